"""Commands kept out of cli.py to keep it small. Each module registers its commands on `cli.app`."""

from referee.commands import ac, balance, odds, rules, serve, sim  # noqa: F401
