"""Import every rule module so that its functions are registered with the planners.

The engine imports this module; a new rule module is added to the list below.
"""

# ruff: noqa: I001  (kept in registration order: it fixes the order of modifiers in every breakdown)

from referee.rules import attack  # noqa: F401  (ODD core: BTH, Str/Dex, range bands, Dex loss)
from referee.rules import criticals  # noqa: F401  (MF crits, fumbles, knock-outs, positions; HR fumbles)
from referee.rules import situational  # noqa: F401  (ODD situational modifiers, cover, rulings)
from referee.rules import maneuvers  # noqa: F401  (ODD grapple, pummel, overbear, touch)
from referee.rules import movement  # noqa: F401  (ODD movement, reach, charge)
from referee.rules import house  # noqa: F401  (HR house rules: charge, garrotte, nets, missiles, touch, armour)
from referee.rules import dac  # noqa: F401  (DAC layered descending AC: deflection uses, Defence tags, visibility)
from referee.engine import odd_actions as _odd_actions  # noqa: F401  (ODD actions, charge, strays, tactics)
from referee.rules import conditions  # noqa: F401  (MOD conditions, attack position, segment delays)
from referee.rules import environment  # noqa: F401  (cover, fog, water, underwater, visibility, drowning, aerial)
from referee.engine import effects as _effects  # noqa: F401  (area effects with saves: GAP-SAVES, MOD-COVER-EVADE)
