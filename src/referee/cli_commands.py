"""Commands kept out of cli.py to keep it small. Each module registers its commands on `cli.app`."""

from referee.commands import rules, serve  # noqa: F401
from referee.commands import sim  # noqa: F401,E402
from referee.commands import balance  # noqa: F401,E402
from referee.commands import odds  # noqa: F401,E402
from referee.commands import ac  # noqa: F401,E402
