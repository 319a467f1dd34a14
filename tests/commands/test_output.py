"""Terminal output (issue 15): to a pipe or a file nothing is wrapped and no line ends in spaces; at 80
columns prose wraps but the names a user types stay whole; one `referee ac` table; `--version`; the
verdict agrees with the side's name; the account names the AC convention in use (DAC-AC-1)."""

from __future__ import annotations

import io
import re

from rich.console import Console
from tests.conftest import EXAMPLES, referee

from referee import __version__, catalog
from referee.commands.rules import options_table
from referee.render import print_catalog
from referee.rules.ruleset import OPTIONS
from referee.rules.turns import winner_text

DUEL = str(EXAMPLES / "duel.yaml")
LUCAS_AND_KRIEGER = str(EXAMPLES / "lucas_and_krieger.yaml")


def test_a_pipe_gets_whole_lines_without_trailing_spaces() -> None:
    for args in (("fight", DUEL, "--seed", "3"), ("ac", LUCAS_AND_KRIEGER), ("catalog",), ("rules",)):
        out = referee(*args)
        assert out.returncode == 0, out.stderr
        assert not [line for line in out.stdout.splitlines() if line != line.rstrip()], args
    account = referee("fight", DUEL, "--seed", "3").stdout.splitlines()
    attacks = [line for line in account if " attacks " in line]
    assert attacks and all("→" in line for line in attacks)  # each attack whole on its line


def test_the_account_names_the_convention_in_use() -> None:
    # rule: DAC-AC-1, ODD-AC-1 (issue 15: the account names the convention)
    assert referee("fight", DUEL, "--seed", "3").stdout.splitlines()[0].endswith(", ascending AC")
    assert (
        referee("fight", LUCAS_AND_KRIEGER, "--seed", "3").stdout.splitlines()[0].endswith(", descending AC")
    )


def test_ac_is_one_table_for_every_combatant() -> None:
    out = referee("ac", LUCAS_AND_KRIEGER).stdout
    assert out.count("armour class (descending)") == 1
    assert "Lucas" in out and "Krieger" in out


def test_version() -> None:
    out = referee("--version")
    assert (out.returncode, out.stdout) == (0, f"referee {__version__}\n")


def test_plural_agreement() -> None:
    # rule: ODD-ROUND-1 (one side left wins): the verdict's verb agrees with the side's name
    assert [winner_text(n) for n in ("Orcs", "Angthar", "the Fighters", "Boss", None, "Village")] == [
        "Orcs win", "Angthar wins", "the Fighters win", "Boss wins", "nobody wins", "Village wins",
    ]  # fmt: skip
    assert winner_text("Lucas", ["Lucas"]) == "Lucas wins"  # a side named after its one creature


def at_80_columns(draw: object) -> str:
    console = Console(file=io.StringIO(), width=80, highlight=False)
    draw(console)  # type: ignore[operator]
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert max(len(line) for line in text.splitlines()) <= 80
    return re.sub(r"\s+", " ", text)


def test_catalog_cells_are_never_cut_at_80_columns() -> None:
    data = {
        "weapons": [w.model_dump(mode="json", exclude_none=True) for w in catalog.weapons().values()],
        "armour": [a.model_dump(mode="json", exclude_none=True) for a in catalog.armours().values()],
    }
    text = at_80_columns(lambda console: print_catalog(console, data))
    assert "…" not in text
    for name in [*catalog.weapons(), *catalog.armours()]:
        assert f" {name} " in text


def test_rules_variant_names_are_never_cut_at_80_columns() -> None:
    rows = [
        {"option": name, "value": option.variants[0].name, "help": option.help,
         "variants": [{"name": v.name, "source": v.source, "rules": list(v.rules)} for v in option.variants]}
        for name, option in OPTIONS.items()
    ]  # fmt: skip
    text = at_80_columns(lambda console: console.print(options_table("rules", rows)))
    for option in OPTIONS.values():
        for variant in option.variants:
            assert f" {variant.name} " in text, variant.name
