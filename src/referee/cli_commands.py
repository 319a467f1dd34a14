"""Every command module, imported at once (for tools that want every command registered on
:data:`referee.cli.app`). The `referee` command itself imports a command's module only when it runs
(:mod:`referee.commands.app`)."""

from referee.commands import (  # noqa: F401
    ac,
    balance,
    bestiary,
    catalog,
    fight,
    import_blocks,
    odds,
    rules,
    schema,
    serve,
    sim,
)
