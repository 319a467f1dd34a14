"""`referee sim`: each combatant ends standing, down or dead (ODD-HP-1, GAP-HP-ZERO), and under option
`finish_fallen` (HR-HELPLESS-1, MOD-HELPLESS-MELEE, GAP-COUP) a whole-party defeat kills."""

from __future__ import annotations

import json
import math
from pathlib import Path

from tests.conftest import referee

# Two first-level farmhands against an ogre: the ogre wins nearly every fight. Its club (2d6) takes a
# farmhand from h > 0 hit points to -10 or below (dead, GAP-HP-ZERO) only when it deals h + 10 or more:
# from 1 hit point 11-12 (3/36), from 2 only 12 (1/36) — so with the option off nearly all end down.
OGRE_FIGHT = """\
name: Two farmhands and an ogre
ruleset: odd
{options}
sides:
  - name: Farmhands
    combatants:
      - {{name: Bran, level: 1, hp: 6, weapons: [spear]}}
      - {{name: Tam, level: 1, hp: 5, weapons: [{{name: club, damage: 1d4}}]}}
  - name: Ogre
    combatants:
      - {{name: Ogre, hit_dice: 4, hp: 24, ac: 15, size: large, weapons: [{{name: club, damage: {club}}}]}}
"""


def encounter(tmp_path: Path, options: str = "", club: str = "2d6") -> str:
    path = tmp_path / "ogre.yaml"
    path.write_text(OGRE_FIGHT.format(options=options, club=club), encoding="utf-8")
    return str(path)


def sim_json(*args: str) -> dict:  # type: ignore[type-arg]
    out = referee("sim", *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def by_name(data: dict) -> dict:  # type: ignore[type-arg]
    return {c["name"]: c for c in data["combatants"]}


def test_a_lost_fight_leaves_the_party_down_not_surviving(tmp_path: Path) -> None:
    """ODD-HP-1, GAP-HP-ZERO: characters fall at 0 and die at -10; the table tells down from dead."""
    data = sim_json(encounter(tmp_path), "-n", "20k", "--seed", "3")
    assert data["path"] == "vectorised"
    ogre_wins = {s["side"]: s["win_rate"] for s in data["sides"]}["Ogre"]
    assert ogre_wins > 0.95
    for name in ("Bran", "Tam"):
        c = by_name(data)[name]
        assert math.isclose(c["standing_rate"] + c["down_rate"] + c["dead_rate"], 1.0)
        assert math.isclose(
            c["survival_rate"], c["standing_rate"] + c["down_rate"]
        )  # alive = standing or down
        assert c["down_rate"] > 0.9 and 0 < c["dead_rate"] < 3 / 36  # at most 3/36 per last blow
    table = referee("sim", encounter(tmp_path), "-n", "2000", "--seed", "3").stdout
    assert "standing" in table and "down" in table and "dead" in table


def test_finish_fallen_kills_a_defeated_party(tmp_path: Path) -> None:
    """HR-HELPLESS-1 / MOD-HELPLESS-MELEE (option finish_fallen): once no farmhand stands, the ogre strikes
    the fallen until they are dead; the fast path refuses the option and says why."""
    options = "options: {finish_fallen: when_no_standing_enemy}"
    data = sim_json(encounter(tmp_path, options), "-n", "1500", "--seed", "3")
    assert data["path"] == "event engine" and "finish_fallen" in data["fallback_reason"]
    ogre_wins = {s["side"]: s["win_rate"] for s in data["sides"]}["Ogre"]
    assert ogre_wins > 0.95
    for name in ("Bran", "Tam"):
        c = by_name(data)[name]
        # the fight goes on while a fallen farmhand lives (round limit 100): one is left down only in a
        # fight the farmhands won
        assert c["down_rate"] <= 1 - ogre_wins
        assert c["dead_rate"] >= ogre_wins


def test_exact_odds_refuse_finish_fallen(tmp_path: Path) -> None:
    """HR-HELPLESS-1: the exact fight odds' states hold standing targets only, so they refuse the option."""
    out = referee("odds", encounter(tmp_path, "options: {finish_fallen: always}"), "--fight")
    assert out.returncode != 0 and "finish_fallen" in out.stderr


def test_simulator_and_engine_agree_on_down_and_dead(tmp_path: Path) -> None:
    """ODD-HP-1, GAP-HP-ZERO: the vectorised path and the event engine give the same standing/down/dead
    split (each rate within 4.5 standard errors of the difference)."""
    path = encounter(tmp_path, club="3d6")  # a heavier club: deaths are common, not rare
    fast = by_name(sim_json(path, "-n", "40k", "--seed", "5"))
    slow_data = sim_json(path, "-n", "4000", "--seed", "6", "--engine")
    assert slow_data["path"] == "event engine"
    slow = by_name(slow_data)
    for name in ("Bran", "Tam", "Ogre"):
        for key in ("standing_rate", "down_rate", "dead_rate"):
            p, q = fast[name][key], slow[name][key]
            pooled = (p * 40_000 + q * 4000) / 44_000
            se = math.sqrt(pooled * (1 - pooled) * (1 / 40_000 + 1 / 4000)) or 1e-9
            assert abs(p - q) <= 4.5 * se, (name, key, p, q)
    assert fast["Bran"]["dead_rate"] > 0.05 and fast["Bran"]["down_rate"] > 0.2  # both outcomes occur
