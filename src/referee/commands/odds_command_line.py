"""How `referee odds ARGS` is read without typer (issue 12, "the command line answers at once"): a
plainly written command line gives the file and the question; anything else (help, `--catalog`, a
typo, a bad number) is left to the typer app, which reads and answers it as it always has."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing is part of what this module avoids
if TYPE_CHECKING:
    from typing import Any

VALUED = ("--attacker", "--target", "--weapon", "--form", "--distance")  # options that take a value
FLAGS = ("--charge", "--fight", "--json")


def question(
    attacker: str | None,
    target: str | None,
    weapon: str | None,
    form: str | None,
    charge: bool,
    distance: int | None,
    fight: bool,
    as_json: bool,
) -> dict[str, Any]:
    """The options of one `referee odds` question (the file apart)."""
    return {
        "attacker": attacker, "target": target, "weapon": weapon, "form": form, "charge": charge,
        "distance": distance, "fight": fight, "json": as_json,
    }  # fmt: skip


def read_command_line(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The file and the question of `referee odds ARGS` when ARGS are plainly the command's own options
    (each at most once, every value a word not starting with a dash); None for anything else (help,
    `--catalog`, a typo, a bad number), which the app reads and answers as it always has."""
    file: str | None = None
    values: dict[str, str] = {}
    flags: set[str] = set()
    rest = list(args)
    while rest:
        word = rest.pop(0)
        name, equals, value = word.partition("=")
        if name in VALUED and name not in values:
            if not equals:
                if not rest:
                    return None
                value = rest.pop(0)
            if value.startswith("-") or not value:
                return None
            values[name] = value
        elif word in FLAGS and word not in flags:
            flags.add(word)
        elif not word.startswith("-") and file is None and word:
            file = word
        else:
            return None
    if file is None:
        return None
    distance: int | None = None
    if "--distance" in values:
        text = values["--distance"]
        if not (text.isascii() and text.isdigit()) or int(text) > 10_000:
            return None
        distance = int(text)
    return file, question(
        values.get("--attacker"), values.get("--target"), values.get("--weapon"), values.get("--form"),
        "--charge" in flags, distance, "--fight" in flags, "--json" in flags,
    )  # fmt: skip
