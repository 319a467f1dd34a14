"""Every input has a bound (docs/errors.md, "Limits"): accepted at the edge, refused one past it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from referee.dice import LIMITS, RandomDice, parse_dice, parse_script
from referee.engine.fight import run_fight
from referee.errors import DiceError, EncounterFileError
from referee.files import (
    MAX_ALIASES,
    MAX_COMBATANTS,
    MAX_FILE_BYTES,
    MAX_YAML_NODES,
    check_expanded_size,
    parse_yaml_bytes,
    setup_from_data,
)

BASE: dict[str, Any] = {
    "sides": [
        {"name": "A", "combatants": [{"name": "Ann", "hp": 5}]},
        {"name": "B", "combatants": [{"name": "Bob", "hp": 5}]},
    ],
}


def encounter(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def refused(data: Any, match: str) -> str:
    with pytest.raises(EncounterFileError, match=match) as info:
        setup_from_data(data, "limits.yaml")
    message = str(info.value)
    assert "\n" not in message and message.startswith("limits.yaml: ")
    return message


# --- dice -------------------------------------------------------------------------------------------


def test_dice_expression_length() -> None:
    edge = "1+" * ((LIMITS.max_length - 1) // 2) + "1"
    edge += "0" * (LIMITS.max_length - len(edge))
    assert len(edge) == LIMITS.max_length
    parse_dice(edge)
    with pytest.raises(DiceError, match=f"characters long; the limit is {LIMITS.max_length}"):
        parse_dice(edge + "0")


def test_dice_count_per_group_and_in_total() -> None:
    assert parse_dice(f"{LIMITS.max_dice}d6").maximum == 6 * LIMITS.max_dice
    with pytest.raises(DiceError, match=f"more than {LIMITS.max_dice} dice"):
        parse_dice(f"{LIMITS.max_dice + 1}d6")
    half = LIMITS.max_dice // 2
    parse_dice(f"{half}d6+{LIMITS.max_dice - half}d4")
    with pytest.raises(DiceError, match=f"more than {LIMITS.max_dice} dice"):
        parse_dice(f"{half}d6+{LIMITS.max_dice - half + 1}d4")


def test_dice_faces() -> None:
    assert parse_dice(f"1d{LIMITS.max_faces}").maximum == LIMITS.max_faces
    with pytest.raises(DiceError, match=f"more than {LIMITS.max_faces} faces"):
        parse_dice(f"1d{LIMITS.max_faces + 1}")


def test_dice_nesting_depth() -> None:
    depth = LIMITS.max_depth
    assert parse_dice("(" * depth + "1d6" + ")" * depth).maximum == 6
    with pytest.raises(DiceError, match=f"nests deeper than {depth} levels"):
        parse_dice("(" * (depth + 1) + "1d6" + ")" * (depth + 1))
    with pytest.raises(DiceError, match=f"nests deeper than {depth} levels"):
        parse_dice("-" * (depth + 1) + "1")


def test_typed_in_dice_list_length() -> None:
    assert len(parse_script(",".join(["3"] * LIMITS.max_script))) == LIMITS.max_script
    with pytest.raises(DiceError, match=f"the limit is {LIMITS.max_script}"):
        parse_script(",".join(["3"] * (LIMITS.max_script + 1)))


# --- files ------------------------------------------------------------------------------------------


def test_file_size() -> None:
    body = yaml.safe_dump(BASE).encode()
    padding = MAX_FILE_BYTES - len(body) - 2
    edge = body + b"#" + b"x" * padding + b"\n"
    assert len(edge) == MAX_FILE_BYTES
    setup_from_data(parse_yaml_bytes(edge, "edge.yaml"))
    with pytest.raises(EncounterFileError, match=f"the limit is {MAX_FILE_BYTES}"):
        parse_yaml_bytes(edge + b"\n", "big.yaml")


def test_file_size_when_read_from_disk(tmp_path: Any) -> None:
    from referee.files import load_encounter

    path = tmp_path / "big.yaml"
    path.write_bytes(yaml.safe_dump(BASE).encode() + b"#" * MAX_FILE_BYTES)
    with pytest.raises(EncounterFileError, match=f"more than {MAX_FILE_BYTES} bytes"):
        load_encounter(path)


def aliases_yaml(count: int) -> bytes:
    lines = ["anchor: &a 1", "uses:"] + ["  - *a"] * count
    return "\n".join(lines).encode()


def test_yaml_aliases() -> None:
    assert len(parse_yaml_bytes(aliases_yaml(MAX_ALIASES), "ok.yaml")["uses"]) == MAX_ALIASES
    with pytest.raises(
        EncounterFileError, match=f"{MAX_ALIASES + 1} YAML aliases; the limit is {MAX_ALIASES}"
    ):
        parse_yaml_bytes(aliases_yaml(MAX_ALIASES + 1), "many.yaml")


def test_expanded_values() -> None:
    check_expanded_size(["x"] * (MAX_YAML_NODES - 1), "edge")  # the list itself is one value
    with pytest.raises(EncounterFileError, match=f"expands to more than {MAX_YAML_NODES} values"):
        check_expanded_size(["x"] * MAX_YAML_NODES, "past")


# --- encounters -------------------------------------------------------------------------------------


def many(count_a: int, count_b: int, extra: int = 0) -> dict[str, Any]:
    sides = [
        {"name": "A", "combatants": [{"name": "Orc", "count": count_a, "hp": 1}]},
        {"name": "B", "combatants": [{"name": "Elf", "count": count_b, "hp": 1}]},
    ]
    if extra:
        sides.append({"name": "C", "combatants": [{"name": "Imp", "count": extra, "hp": 1}]})
    return {"sides": sides, "max_rounds": 1}


def test_combatants_per_encounter() -> None:
    assert MAX_COMBATANTS == 200  # two full `count: 100` entries
    setup = setup_from_data(many(100, 100))
    assert len(setup.combatants) == MAX_COMBATANTS
    assert run_fight(setup, RandomDice(1)).is_over()  # the largest encounter still plays
    refused(many(100, 100, 1), f"201 combatants; the limit is {MAX_COMBATANTS}")


def test_count_per_combatant() -> None:
    assert len(setup_from_data(many(100, 1)).combatants) == 101
    refused(many(101, 1), "count: Input should be less than or equal to 100")
    refused(many(0, 1), "count: Input should be greater than or equal to 1")


def test_round_limit() -> None:
    assert setup_from_data(encounter(max_rounds=1000)).max_rounds == 1000
    refused(encounter(max_rounds=1001), "max_rounds: Input should be less than or equal to 1000")
    refused(encounter(max_rounds=0), "max_rounds: Input should be greater than or equal to 1")


def test_number_of_sides() -> None:
    sides = [{"name": f"S{i}", "combatants": [{"name": f"C{i}", "hp": 1}]} for i in range(21)]
    assert len(setup_from_data({"sides": sides[:20]}).sides) == 20
    refused({"sides": sides}, "sides: List should have at most 20 items")
    refused({"sides": sides[:1]}, "sides: List should have at least 2 items")


@pytest.mark.parametrize(
    ("path", "limit"),
    [
        (("name",), 120),
        (("sides", 0, "name"), 60),
        (("sides", 0, "combatants", 0, "name"), 60),
        (("sides", 0, "combatants", 0, "weapons", 0, "name"), 80),
        (("sides", 0, "combatants", 0, "armour", "name"), 80),
    ],
    ids=["encounter", "side", "combatant", "weapon", "armour"],
)
def test_name_lengths(path: tuple[Any, ...], limit: int) -> None:
    def with_name(length: int) -> dict[str, Any]:
        data = encounter()
        data["sides"][0]["combatants"][0]["weapons"] = [{"name": "w", "damage": "1d6"}]
        data["sides"][0]["combatants"][0]["armour"] = {"name": "a", "ac_bonus": 1}
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = "n" * length
        return data

    setup_from_data(with_name(limit))
    refused(with_name(limit + 1), f"at most {limit} characters")


def test_numbers_in_a_combatant() -> None:
    data = encounter()
    data["sides"][0]["combatants"][0]["hp"] = 10_000
    setup_from_data(data)
    data["sides"][0]["combatants"][0]["hp"] = 10_001
    refused(data, "hp: Input should be less than or equal to 10000")
    data["sides"][0]["combatants"][0] = {"name": "Ann", "hp": 5, "abilities": {"str": 26}}
    refused(data, "abilities.str: Input should be less than or equal to 25")


def test_a_long_flat_sum_is_not_nesting_and_parses_fast() -> None:
    # a chain `1d4+1d4+...` is bounded by the length limit, not the nesting limit, and its bounds are
    # computed in one pass (they once took seconds: two recursive calls per `+`)
    terms = LIMITS.max_length // 4
    expr = parse_dice("+".join(["1d4"] * terms))
    assert (expr.minimum, expr.maximum) == (terms, 4 * terms)


def test_errors_and_limits_are_documented() -> None:
    """docs/errors.md names every error type and every bound (checked like datasette's docs tests)."""
    from pathlib import Path

    import referee.errors as errors
    from referee import files

    text = (Path(__file__).resolve().parents[2] / "docs" / "errors.md").read_text()
    kinds = [
        name for name, value in vars(errors).items() if isinstance(value, type) and name.endswith("Error")
    ]
    assert kinds and all(f"`{name}`" in text for name in kinds if name != "RefereeError")
    bounds = [name for name in vars(files) if name.startswith("MAX_")]
    assert all(f"files.{name}" in text for name in bounds)
    assert all(f"dice.LIMITS.{name}" in text for name in vars(LIMITS) if not name.startswith("_"))
