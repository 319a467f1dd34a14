"""The names of conditions, shared by every rule module, the encounter file and the tracker.

A condition on a combatant is one of these names (``CombatantState.conditions``). Rule modules decide
what a name means under the ruleset's options; this list only fixes the spelling. The names live in the
model layer (:mod:`referee.vocabulary`), which validates encounter files without importing a rule.
"""

from __future__ import annotations

from referee.vocabulary import CONDITIONS as CONDITIONS
from referee.vocabulary import HELPLESS as HELPLESS
from referee.vocabulary import PAIRED as PAIRED
