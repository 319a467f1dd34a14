"""The one error of the exact odds."""

from __future__ import annotations

from referee.errors import RefereeError


class OddsError(RefereeError, ValueError):
    """The exact odds cannot be computed for this question (too large, or beyond the model); the
    message says why in one line."""
