"""Commands kept out of cli.py to keep it small. Each module registers its commands on `cli.app`."""

from referee.commands import rules  # noqa: F401
