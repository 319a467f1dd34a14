"""The tracker's add-combatant with `monster:` from the bestiary (issue 15, item 3; ODD-HD-2, ODD-ATK-3)."""

from __future__ import annotations

from typing import Any

from tests.web.test_table import begun, table, who


def test_a_bestiary_monster_joins_with_its_fields_and_the_forms_overrides(tracker: Any) -> None:
    eid = begun(tracker)
    action = {"kind": "add_combatant", "side": "Goblins", "combatant": {"monster": "ogre", "hp": 12}}
    state = table(tracker, eid, action)
    ogre = who(state, "Ogre")
    assert ogre["hp"] == 12 == ogre["max_hp"]
    state = table(
        tracker,
        eid,
        {"kind": "add_combatant", "side": "Goblins", "combatant": {"monster": "troll"}},
        "1, 2, 3, 4, 5, 6",
    )
    assert who(state, "Troll")["hp"] == 1 + 2 + 3 + 4 + 5 + 6 + 3  # 6+3 hit dice (ODD-HD-2)


def test_the_add_form_offers_the_bestiary(tracker: Any) -> None:
    eid = begun(tracker)
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert 'id="add-monster" list="bestiary"' in page
    assert '<option value="ogre">' in page and '<option value="lizard man">' in page
