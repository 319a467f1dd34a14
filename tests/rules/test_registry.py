"""The one list of the rules (src/referee/rules/registry.py): order and completeness."""

from __future__ import annotations

from tests.odd_helpers import encounter, fighter, orc, plan, rules_of, state_of

from referee.rules import registry

KINDS = (
    "TO_HIT_RULES", "AC_RULES", "DAMAGE_RULES", "DEFENCE_LOSS_RULES", "ALLOW_RULES", "ADVANTAGE_RULES",
    "AUTOMATIC_RULES", "MISS_CHANCE_RULES", "EFFECT_RULES", "DAMAGE_PLAN_RULES", "FINAL_DAMAGE_PLAN_RULES",
    "DEFLECTION_RULES", "RATE_RULES", "DELAY_SOURCES",
)  # fmt: skip


def test_every_rule_is_listed_once_and_lives_in_a_rule_module() -> None:
    for kind in KINDS:
        listed = getattr(registry, kind)
        assert len(set(listed)) == len(listed), kind
        assert all(fn.__module__.startswith("referee.rules.") for fn in listed), kind


def test_the_list_fixes_the_order_of_the_breakdown() -> None:
    # rule: ODD-BTH-1, ODD-MELEE-1: the ODD core comes first, in the listed order
    state = state_of(encounter([fighter(abilities={"str": 16})], [orc()]))
    p = plan(state, "Ann", "Orc")
    order = [fn.__name__ for fn in registry.TO_HIT_RULES]
    assert order[:2] == ["basic_to_hit", "attribute_to_hit"]
    assert [rule for _, rule in rules_of(p.check.modifiers)][:2] == ["ODD-BTH-1", "ODD-MELEE-1"]


def test_the_helpless_damage_rule_runs_after_every_multiplier() -> None:
    # rule: HR-HELPLESS-4: multiplicative bonuses (a backstab) do not apply; so it comes last
    assert [fn.__name__ for fn in registry.FINAL_DAMAGE_PLAN_RULES] == ["helpless_damage"]
