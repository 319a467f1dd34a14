"""The names of conditions, shared by every rule module, the encounter file and the tracker.

A condition on a combatant is one of these names (``CombatantState.conditions``). Rule modules decide
what a name means under the ruleset's options; this list only fixes the spelling.
"""

CONDITIONS: dict[str, str] = {
    # ODD (000) and shared
    "prone": "lying on the ground (ODD-SIT-PRONE, MOD-COND-PRONE, MF-POS-2)",
    "defenceless": "unable to defend itself; with prone: +10 to be hit (ODD-SIT-DEFENCELESS)",
    "stunned": "stunned (ODD-SIT-STUN, MOD-COND-STUN-1)",
    "cowering": "cowering (ODD-SIT-STUN)",
    "blind": "cannot see (ODD-SIT-PRONE, ODD-SIT-INVIS, MOD-COND-BLIND-1)",
    "invisible": "cannot be seen (ODD-SIT-INVIS, MOD-COND-INVIS-1, MF-VIS-2)",
    "grappled": "held in a grapple by another (ODD-GRAP-3, MOD-COND-GRAPPLED-1)",
    "grappling": "holding another in a grapple (MOD-COND-GRAPPLED-1)",
    "charging": "charged this round: AC 4 worse (ODD-CHARGE-4) or no Dex (HR-CHARGE-5)",
    "overbearing": "tried to overbear this round: AC 2 worse (ODD-OVERB-5)",
    "surprised": "surprised (ODD-SURP-4, ODD-AC-DEX-2)",
    "mounted": "on a mount or unstable platform (ODD-SIT-MOUNT-M, ODD-SIT-MOUNT-R)",
    "casting": "casting a spell this round (ODD-ACT-CAST-1, MOD-COND-CASTING)",
    "maneuvering": "a defensive maneuver changes its AC this round (ODD-MANEUVER-1)",
    # MOD (001)
    "bound": "bound or manacled (MOD-COND-BOUND)",
    "climbing": "climbing (MOD-COND-CLIMB-1)",
    "deafened": "deafened (MOD-COND-DEAF)",
    "moderately_encumbered": "moderately encumbered (MOD-COND-ENC-2)",
    "encumbered": "encumbered (MOD-COND-ENC-1)",
    "overloaded": "overloaded (MOD-COND-ENC-3)",
    "entangled": "entangled: webs, plants, nets (MOD-COND-ENTANGLED, HR-NET-2)",
    "exhausted": "exhausted (MOD-COND-EXHAUSTED)",
    "fatigued": "fatigued (MOD-COND-FATIGUED)",
    "held": "magically held (MOD-COND-HELD)",
    "intoxicated_slight": "slightly intoxicated (MOD-COND-INTOX)",
    "intoxicated_moderate": "moderately intoxicated (MOD-COND-INTOX)",
    "intoxicated_great": "greatly intoxicated (MOD-COND-INTOX)",
    "nauseated": "nauseated (MOD-COND-NAUSEA)",
    "off_balance": "off balance (MOD-COND-OFFBAL)",
    "paralyzed": "paralysed by poison (MOD-COND-PARA-2)",
    "paralyzed_fear": "paralysed by fear (MOD-COND-PARA-1)",
    "sleeping": "magically asleep (MOD-COND-SLEEP-M)",
    "sleeping_natural": "naturally asleep (MOD-COND-SLEEP-N-1)",
    "slowed": "magically slowed (MOD-COND-SLOWED)",
    "unconscious": "unconscious (MOD-COND-UNCON, MF-KO-1)",
    # HR (002) and MF (003)
    "garrotted": "in a garrotte (HR-GARROTE-2)",
    "garrotting": "holding a garrotte on a victim (HR-GARROTE-5)",
    "netted": "caught in a net (HR-NET-2)",
    "charged_touch": "holding a touch spell that missed, still charged (HR-TOUCH-3)",
    "firing_missile": "fired a missile this round: no Dex bonus to AC (HR-MISSILE-3)",
    "withdrawing": "made a fighting withdrawal or left melee this round: no attack (HR-WITHDRAW-3)",
    "aoo_used": "has made its attack of opportunity this round (GAP-AOO)",
    "flying": "flying (MF-AIR-1)",
    "holding_breath": "holding breath (MF-DROWN-1)",
    "kneeling": "kneeling (MF-POS-3)",
}

HELPLESS = frozenset(
    {"held", "paralyzed", "paralyzed_fear", "sleeping", "sleeping_natural", "unconscious", "bound"}
)

# Conditions that tie two combatants together (holder and held): they arise from an attack and cannot
# be given at set-up, where there is no partner to name.
PAIRED = frozenset({"grappled", "grappling", "garrotted", "garrotting"})
