"""What is fixed about an encounter before the first die: the combatants, the sides and the rules.

A plain frozen record in the model layer: the engine, the exact odds and the simulator read it; building
one from a file (YAML, validation, the catalog) is :mod:`referee.files`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.errors import IllegalActionError
from referee.model import Combatant, SurpriseSpec

if TYPE_CHECKING:
    from referee.rules.context import Situation
    from referee.rules.ruleset import Ruleset


@dataclass(frozen=True)
class Setup:
    """Everything fixed about an encounter before the first die: the combatants and the rules."""

    name: str
    ruleset: Ruleset
    combatants: tuple[Combatant, ...]
    sides: tuple[str, ...]
    surprise: SurpriseSpec | None = None  # the referee's surprise ruling (ODD-SURP-1..3)
    max_rounds: int = 100
    distance: int = 5
    environment: Mapping[str, Any] = field(default_factory=dict)
    rulings: Mapping[str, Situation] = field(default_factory=dict)  # the referee's stored rulings (ODD-SIT-1)
    source: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # what the file may not mean, e.g. a module's descending AC read as ascending (issue 15)
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def combatant(self, name: str) -> Combatant:
        for c in self.combatants:
            if c.name == name:
                return c
        raise IllegalActionError(
            f"no combatant called {name!r}; combatants: {', '.join(c.name for c in self.combatants)}"
        )

    def enemies_of(self, name: str) -> list[Combatant]:
        side = self.combatant(name).side
        return [c for c in self.combatants if c.side != side]

    def to_dict(self) -> dict[str, Any]:
        """The encounter file's content (with the ruleset frozen in), enough to rebuild this setup."""
        data = dict(self.source)
        data["ruleset"] = self.ruleset.name
        data["options"] = dict(self.ruleset.overrides())
        return data
