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


def test_a_latecomer_from_a_classic_modules_stat_line(tracker: Any) -> None:
    """GAP-STAT-LINE: `#AT 3, D 1-4/1-4/2-8` is the routine claw, claw, bite (ODD-ATK-3), 2-8 rolled as 2d4."""
    eid = begun(tracker)
    line = "AC 5, HD 5, hp 30, #AT 2 claws/1 bite, D 1-4/2-8, MV 120' (40'), Save F3, ML 9, SZ L"
    state = table(tracker, eid, {"kind": "add_combatant", "side": "Goblins",
                                 "combatant": {"name": "Owlbear", "stat_block": line}})  # fmt: skip
    owlbear = who(state, "Owlbear")
    assert owlbear["hp"] == 30 == owlbear["max_hp"] and owlbear["ac"] == 14  # 19 - 5
    assert owlbear["weapons"] == ["claw", "bite"]
    refused = tracker.client.post(
        f"/api/encounters/{eid}/actions",
        headers=tracker.auth,
        json={"version": state["version"], "action": {"kind": "add_combatant", "side": "Goblins",
              "combatant": {"name": "Kobold", "stat_block": "AC 7, HD 1/2, hp 3, 2, 4, #AT 1, D 1-4"}}},
    )  # fmt: skip
    assert refused.status_code == 422
    assert "one hit-point total per block" in refused.json()["error"]
