"""Encounter files read by libyaml (PyYAML's C scanner) give what PyYAML's own loader gives: the same
data, and for a file either refuses the same one line (PyYAML's own words)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import EXAMPLES

from referee import files
from referee.errors import EncounterFileError
from referee.files import checked_yaml, parse_yaml_bytes
from referee.yaml_safe import FAST_LOADER, StrictLoader

pytestmark = pytest.mark.skipif(FAST_LOADER is None, reason="PyYAML built without libyaml")

READ_ALIKE = [
    "a: &x {b: 1, c: [2, 3]}\nd: *x\ne:\n  <<: *x\n  c: 4\n",
    "yes: [yes, no, on, off, true, False, ~, null, '', \"\"]\n",
    "n: [017, 0o17, 0x1F, 1_000, -0, +12, 0b101, 1e3, 1.5e-3, .inf, -.Inf, 6.]\n",
    "when: [2001-12-14, 2001-12-14t21:59:43.10-05:00, 2002-12-14 21:59:43]\n",
    "text: |\n  two\n  lines\nfolded: >-\n  one\n  line\nkept: |+\n  end\n\n",
    "q: ['it''s', \"tab\\there \\u00e9 \\x41\", 'a # not a comment']  # a comment\n",
    "\ufeffname: a BOM first\n",
    "%YAML 1.1\n---\nname: a directive\n...\n",
    "tags: [!!str 5, !!int '7', !!float '1', !!binary aGVsbG8=]\nset: !!set {a, b}\no: !!omap [{a: 1}, {b: 2}]\n",
    "? complex\n: key\n",
    "- - - nested\n    - lists\n- {a: [b, {c: d}]}\n",
    "name: Ångthar → ゴブリン 🐉\n",
    "",
    "# only a comment\n",
    "a: \ufeff\n",
]

READ_BY_PYYAML_ONLY = ["%YAML 1.3\n---\na: 1\n"]  # libyaml refuses: read again by PyYAML's own loader

REFUSED = [
    "a: 1\na: 2\n",
    "hp: 1:30\n",
    f"hp: {'9' * 101}\n",
    "a: [1, 2\n",
    "a: b\n\tc: d\n",
    "a: 1\n---\nb: 2\n",
    "a: \x07\n",
    "plain: a: b\n",
    "x: !!python/object:os.system ls\n",
    "a: &a [*a]\n",
    "a: &a 1\n" + "".join(f"b{i}: *a\n" for i in range(101)),
    "%YAML 2.0\n---\na: 1\n",
    "- " * 1200 + "x\n",
    "a: 'unclosed\n",
    "[1, 2]: a list for a key\n",
    "key: value\n  bad indent: 1\n",
]


READ_OTHERWISE_BY_LIBYAML = [  # libyaml accepts these, or reads them otherwise; PyYAML's own reads them
    "name: Big\tOgre\n",
    "hp: 5\t\n",
    "\n\ufeff",
    "!",
    "a: !\n",
    "|#  x",
    "a: b\r\nc: d\r\n",
    "a: b\x85c: d\n",
]


def from_every_loader(text: str) -> list[Any]:
    return [checked_yaml(text, "e.yaml", loader) for loader in (FAST_LOADER, StrictLoader)]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_reads_alike(path: Path) -> None:
    fast, own = from_every_loader(path.read_text(encoding="utf-8"))
    assert fast == own


@pytest.mark.parametrize("text", READ_ALIKE)
def test_yaml_forms_read_alike(text: str) -> None:
    fast, own = from_every_loader(text)
    assert fast == own
    assert repr(fast) == repr(own)  # the same types and key order too


@pytest.mark.parametrize("text", READ_BY_PYYAML_ONLY)
def test_what_libyaml_refuses_pyyamls_own_loader_reads(text: str) -> None:
    with pytest.raises(yaml.YAMLError):
        checked_yaml(text, "e.yaml", FAST_LOADER)
    assert parse_yaml_bytes(text.encode("utf-8"), "e.yaml") == checked_yaml(text, "e.yaml", StrictLoader)


@pytest.mark.parametrize("text", READ_OTHERWISE_BY_LIBYAML, ids=range(len(READ_OTHERWISE_BY_LIBYAML)))
def test_what_libyaml_reads_otherwise_is_read_as_pyyamls_own_reads_it(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    def read() -> tuple[str, Any]:
        try:
            return "read", parse_yaml_bytes(text.encode("utf-8"), "e.yaml")
        except EncounterFileError as exc:
            return "refused", str(exc)

    with_libyaml = read()
    monkeypatch.setattr(files, "FAST_LOADER", None)
    assert repr(with_libyaml) == repr(read())


def refusal(text: str) -> str:
    with pytest.raises(EncounterFileError) as info:
        parse_yaml_bytes(text.encode("utf-8"), "e.yaml")
    return str(info.value)


@pytest.mark.parametrize("text", REFUSED, ids=range(len(REFUSED)))
def test_a_refused_file_is_refused_in_pyyamls_own_words(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    with_libyaml = refusal(text)
    monkeypatch.setattr(files, "FAST_LOADER", None)  # PyYAML's own loader only, as before libyaml
    assert with_libyaml == refusal(text)
    assert "\n" not in with_libyaml
