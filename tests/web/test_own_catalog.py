"""The tracker with a referee's own catalog (issue 15, item 3): an encounter's inline `catalog:` (or a
catalog file an examples-folder encounter names) gives its weapons and monsters, the stored encounter
carries the catalog itself, and the add-combatant picker offers the own monsters first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from tests.conftest import angthar_data
from tests.web.test_table import table, who

from referee.web.app import Settings, create_app

CATALOG = {
    "weapons": [{"name": "elven blade", "damage": "1d8", "type": ["slashing"]}],
    "monsters": [
        {"name": "cave goblin", "stat": "AC 7 [12], HD 1, Att 1 × elven blade (1d6)", "size": "small"}
    ],
}


def test_an_inline_catalog_is_used_and_a_newcomer_picks_from_it(tracker: Any) -> None:
    # rule: ODD-HD-2 (the newcomer's hit points are a roll of its hit dice)
    data = angthar_data()
    data["catalog"] = CATALOG
    data["sides"][0]["combatants"][0]["weapons"] = ["elven blade"]
    eid = tracker.create(data)
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "7, 4")
    state = table(tracker, eid, {"kind": "add_combatant", "side": "Goblins",
                                 "combatant": {"monster": "cave goblin", "hp": 5}})  # fmt: skip
    assert who(state, "Cave Goblin")["weapons"] == ["elven blade"]
    assert who(tracker.state(eid), "Cave Goblin")["hp"] == 5  # the stored log folds again with the catalog
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert page.index('<option value="cave goblin">') < page.index('<option value="ogre">')


def test_a_pasted_encounter_naming_a_catalog_file_is_told_to_write_it_in(tracker: Any) -> None:
    data = angthar_data()
    data["catalog"] = "mine.yaml"
    response = tracker.client.post("/api/encounters", json={"data": data}, headers=tracker.auth)
    assert response.status_code in (400, 422), response.text
    assert "names no file; write the catalog itself there" in response.text


def test_an_example_naming_a_catalog_file_is_stored_with_the_catalog(tmp_path: Path) -> None:
    examples = tmp_path / "examples"
    examples.mkdir()
    source = Path(__file__).resolve().parents[1] / "data" / "catalog"
    for name in ("mine.yaml", "elves.yaml"):
        (examples / name).write_text((source / name).read_text())
    app = create_app(Settings(db=tmp_path / "t.sqlite3", examples=examples))
    with TestClient(app) as client:
        auth = {"Authorization": f"Bearer {app.state.store.admin_token()}"}
        made = client.post("/api/encounters", json={"example": "elves.yaml"}, headers=auth)
        assert made.status_code == 201, made.text
        (examples / "mine.yaml").unlink()  # the stored encounter no longer needs the file
        state = client.get(f"/api/encounters/{made.json()['id']}", headers=auth)
        assert state.status_code == 200, state.text
        assert "cave goblin" in state.json()["own_monsters"]
