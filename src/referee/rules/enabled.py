"""Import every rule module so that its functions are registered with the planners.

The engine imports this module; a new rule module is added to the list below.
"""

from referee.rules import attack  # noqa: F401  (ODD core: BTH, Str/Dex, range bands, Dex loss)
