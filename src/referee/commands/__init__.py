"""The `referee` command's subcommands, one module each, imported only when that command runs.

:data:`COMMANDS` lists them in the order `referee --help` shows them, each with the module that defines
it and the summary the help shows (the first paragraph of the command's docstring, line breaks kept as
typer keeps them; tests/commands/test_app.py checks the two agree). With it the top-level help is
printed without importing typer or any command (:mod:`referee.commands.top_help`), and `referee odds`
imports only what `odds` needs (:mod:`referee.commands.app`).
"""

from __future__ import annotations

# name → (module that registers it on the app, its one-paragraph summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "fight": (
        "referee.commands.fight",
        "Run a whole fight from an encounter file and print its round-by-round account.",
    ),
    "schema": ("referee.commands.schema", "Print the JSON Schema of encounter files."),
    "catalog": ("referee.commands.catalog", "List the catalog's weapons, armour and shields."),
    "bestiary": (
        "referee.commands.bestiary",
        "List the bestiary's monsters: hit dice, AC in both notations, attacks, movement, morale, saves.",
    ),
    "import": (
        "referee.commands.import_blocks",
        "Turn pasted stat blocks (one per paragraph, name on the first line) into an encounter file.",
    ),
    "ac": (
        "referee.commands.ac",
        "Print each combatant's total, flatfooted, touch and flatfooted-touch armour class with breakdowns.",
    ),
    "balance": (
        "referee.commands.balance",
        "How many fighters of each level make a fair (50%) fight for a monster, and its equivalent hit dice.",
    ),
    "odds": (
        "referee.commands.odds",
        "Exact odds of one attack at the start of the encounter, or of the whole fight (small fights).",
    ),
    "rules": (
        "referee.commands.rules",
        "List every ruleset option with its value under PRESET, its variants and the rule IDs behind each.",
    ),
    "serve": (
        "referee.commands.serve",
        "Serve the tracker; print the referee's link (with its secret token) and the players' links.",
    ),
    "sim": (
        "referee.commands.sim",
        "Simulate many fights of an encounter: win rates with 95% intervals, rounds, survival.",
    ),
}

APP_HELP = "A combat rules engine for old-school fantasy role-playing games."
VERSION_HELP = "Print the version and exit."
