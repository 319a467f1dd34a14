"""The project's own error types. Every user-facing problem is one of these, with a one-line message.

Each also subclasses the built-in it refines, so callers may catch either.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error this library raises on purpose."""


class DiceError(RefereeError, ValueError):
    """A bad dice expression, a die result outside the die's faces, or an expression over the limits."""


class DiceExhaustedError(RefereeError, LookupError):
    """Scripted dice ran out and no random source follows them."""


class EncounterFileError(RefereeError, ValueError):
    """An encounter, ruleset or catalog file that cannot be read or does not fit the schema."""


class OptionError(RefereeError, ValueError):
    """An unknown ruleset option or preset, or a value that is not one of the option's variants."""


class IllegalActionError(RefereeError, ValueError):
    """An action the rules do not allow now (unknown combatant, out of range, already acted...)."""


def raised_afresh(error: IllegalActionError) -> IllegalActionError:
    """A new error with the same message, to keep or to raise again: raising one kept instance over and
    over would chain every raise's frames (and with them whole fights) onto its traceback."""
    return type(error)(*error.args)


class StoreError(RefereeError, RuntimeError):
    """The event store refused a change (stale version, unknown encounter)."""
