"""Files cannot run code or read other files (docs/errors.md, "Files").

- Only `yaml.safe_load` is used anywhere in the source tree, so Python-specific YAML tags are refused.
- The only file reference an encounter may hold is `ruleset:` (a house-rules file). It is resolved
  against the encounter's own folder and may point outside it (absolute or `../`): the encounter file
  is the referee's own. A house-rules file names a preset only, never another file. Encounter data
  that was not read from a file (the web tracker's API, a program) may name a preset only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from referee.errors import EncounterFileError
from referee.files import load_encounter, load_ruleset_file, parse_yaml_bytes, setup_from_data

SRC = Path(__file__).resolve().parents[2] / "src" / "referee"

ENCOUNTER = """\
name: ambush
ruleset: {ruleset}
sides:
  - name: A
    combatants: [{{name: Ann, hp: 5}}]
  - name: B
    combatants: [{{name: Bob, hp: 5}}]
"""


def python_sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_only_safe_yaml_loading_in_the_source_tree() -> None:
    unsafe = re.compile(
        r"yaml\.(load|load_all|unsafe_load|full_load|unsafe_load_all|full_load_all)\(|Loader=yaml\.(Loader|UnsafeLoader|FullLoader)"
    )
    found = [
        f"{p.relative_to(SRC)}: {m.group(0)}"
        for p in python_sources()
        for m in unsafe.finditer(p.read_text())
    ]
    assert found == []
    assert python_sources(), "the source tree was not found"


def test_no_code_from_data_in_the_source_tree() -> None:
    risky = re.compile(r"\b(eval|exec|pickle\.loads?|marshal\.loads?|shelve\.open)\(")
    found = [
        f"{p.relative_to(SRC)}: {m.group(0)}" for p in python_sources() for m in risky.finditer(p.read_text())
    ]
    assert found == []


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['echo pwned > {marker}']",
        "!!python/object/new:subprocess.Popen [['touch', '{marker}']]",
        "!!python/name:os.system",
        "!!python/module:os",
        "!!python/tuple [1, 2]",
    ],
)
def test_python_yaml_tags_are_refused(tmp_path: Path, tag: str) -> None:
    marker = tmp_path / "marker"
    raw = f"name: x\nenvironment: {{boom: {tag.format(marker=marker)}}}\n".encode()
    with pytest.raises(EncounterFileError, match="bad YAML") as info:
        parse_yaml_bytes(raw, "evil.yaml")
    assert "\n" not in str(info.value)
    assert not marker.exists()


def test_ruleset_file_next_to_the_encounter(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text("preset: hr\noptions: {critical_hits: none}\n")
    (tmp_path / "fight.yaml").write_text(ENCOUNTER.format(ruleset="house.yaml"))
    setup = load_encounter(tmp_path / "fight.yaml")
    assert setup.ruleset.name == "hr" and setup.ruleset["critical_hits"] == "none"


def test_ruleset_file_outside_the_encounters_folder_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text("preset: mf\n")
    folder = tmp_path / "encounters"
    folder.mkdir()
    (folder / "up.yaml").write_text(ENCOUNTER.format(ruleset="../house.yaml"))
    (folder / "absolute.yaml").write_text(ENCOUNTER.format(ruleset=tmp_path / "house.yaml"))
    assert load_encounter(folder / "up.yaml").ruleset.name == "mf"
    assert load_encounter(folder / "absolute.yaml").ruleset.name == "mf"


def test_a_file_that_is_not_a_ruleset_reveals_nothing_of_its_content(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password: hunter2\n")
    (tmp_path / "fight.yaml").write_text(ENCOUNTER.format(ruleset="secret.txt"))
    with pytest.raises(EncounterFileError) as info:
        load_encounter(tmp_path / "fight.yaml")
    assert "hunter2" not in str(info.value)
    assert "unknown key 'password'" in str(info.value)


def test_a_ruleset_file_cannot_name_another_file(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("preset: mf\n")
    (tmp_path / "house.yaml").write_text("preset: other.yaml\n")
    with pytest.raises(EncounterFileError, match=r"unknown preset 'other\.yaml'"):
        load_ruleset_file(tmp_path / "house.yaml")


def test_data_not_read_from_a_file_may_only_name_a_preset(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text("preset: hr\n")
    data = yaml.safe_load(ENCOUNTER.format(ruleset=tmp_path / "house.yaml"))
    with pytest.raises(EncounterFileError, match="may only name a preset"):
        setup_from_data(data, "api")
    for path in ("/etc/passwd", "/dev/zero", "../../etc/shadow"):
        data["ruleset"] = path
        with pytest.raises(EncounterFileError, match="may only name a preset"):
            setup_from_data(data, "api")
    data["ruleset"] = "002"  # a preset alias is a preset
    assert setup_from_data(data, "api").ruleset.name == "hr"
