"""The JSON bodies the tracker's API takes (pydantic models: an unknown field is refused with 422).

Every change names the `version` and `revision` the client last saw, so a change made on a fight that moved on
since (another tab) is refused with 409 and nothing is stored (:func:`referee.web.store.check_seen`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# --- request bodies -----------------------------------------------------------------------------------


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Dice = Annotated[
    str | list[int | None] | None, Field(description="typed dice in order; blank or ? = roll it")
]
SeenVersion = Annotated[
    int,
    Field(
        ge=0,
        description="the version (event count) the change is made on, as the client last saw it"
        " (`version` of the state); another one is refused with 409",
    ),
]
SeenRevision = Annotated[
    int | None,
    Field(
        ge=0,
        description="the revision the client last saw (`revision` of the state; it moves on with every step,"
        " undo, redo and rename and never goes back). Given, any change since is refused with 409, even one"
        " that brought the event count back to `version` (another tab undid a step and took a new one)."
        " Omitted, only `version` is compared (older clients); send it",
    ),
]


class CreateBody(Body):
    data: dict[str, Any] | None = Field(None, description="the encounter as JSON")
    text: str | None = Field(None, description="the encounter file's text (YAML or JSON)")
    example: str | None = Field(None, description="the name of a file in the examples folder")
    blocks: str | None = Field(
        None,
        description="stat blocks as a module prints them, one a paragraph with the name on its first line"
        " (`referee import`): the monsters against a placeholder fighter",
    )
    ruleset: str = Field("odd", description="with `blocks`: the preset the encounter names", max_length=40)
    name: str | None = Field(None, min_length=1, max_length=120)


class RenameBody(Body):
    name: str = Field(min_length=1, max_length=120)


class StepBody(Body):
    step: Literal["begin", "round", "action", "end_round"]
    version: SeenVersion
    revision: SeenRevision = None
    dice: Dice = None
    action: dict[str, Any] | None = None
    surprise: dict[str, Any] | None = Field(None, description="begin only: the surprise ruling (ODD-SURP-1)")
    seed: int | None = Field(None, description="seed for the dice that are rolled (reproducible API use)")


class ActionBody(Body):
    version: SeenVersion
    revision: SeenRevision = None
    action: dict[str, Any]
    dice: Dice = None
    seed: int | None = None


class EngineBody(Body):
    version: SeenVersion
    revision: SeenRevision = None
    dice: Dice = None
    seed: int | None = None
    until: Literal["actor", "players"] = Field(
        "actor", description="actor: the current actor only; players: the foes until a player's turn"
    )


class UndoBody(Body):
    version: SeenVersion
    revision: SeenRevision = None
    keep: int | None = Field(None, ge=0, description="undo back to this line (keep lines 0..keep-1)")
    count: int | None = Field(None, ge=1, description="undo this many events")


class VersionBody(Body):
    version: SeenVersion
    revision: SeenRevision = None


class OddsBody(Body):
    action: dict[str, Any]
