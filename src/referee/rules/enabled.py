"""Kept for older imports: the rules are listed in :mod:`referee.rules.registry` and need no import to count."""
