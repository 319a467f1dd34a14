"""The JSON API that changes a fight: steps, actions (the combatants' and the referee's table actions), the
engine's turn, undo, redo, and the odds of an action before it is taken. Every change names the `version`
and `revision` the client last saw (409 if the fight changed since: another tab)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from referee.web import tracker
from referee.web.access import Encounter
from referee.web.answers import JSONAnswer
from referee.web.bodies import ActionBody, EngineBody, OddsBody, StepBody, UndoBody, VersionBody
from referee.web.folds import clone_fight
from referee.web.site import Site


def add_step_routes(app: FastAPI, site: Site) -> None:
    store, folds = site.store, site.folds

    @app.post("/api/encounters/{eid}/steps", tags=["fight"])
    def api_step(row: Encounter, body: StepBody) -> JSONAnswer:
        """Take the next step: `begin` (with an optional surprise ruling), `round`, `action` or `end_round`.

        Send the `version` and `revision` the client last saw: if the fight changed since (another tab), the
        step is refused with 409 and nothing is stored."""
        with folds.lock(row.id):  # the answer is the state the step left, not a later one (another tab)
            taken = tracker.take_step(
                store, row, body.step, version=body.version, revision=body.revision, dice=body.dice,
                action=body.action, surprise=body.surprise, seed=body.seed,
            )  # fmt: skip
            return JSONAnswer(site.taken_state(taken, body.version))

    @app.post("/api/encounters/{eid}/actions", tags=["fight"])
    def api_action(row: Encounter, body: ActionBody) -> JSONAnswer:
        """Resolve one combatant's action (kind, actor, target, weapon, form, charge, situation…).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        with folds.lock(row.id):  # the answer is the state the action left, not a later one
            taken = tracker.take_step(
                store, row, "action", version=body.version, revision=body.revision, dice=body.dice,
                action=body.action, seed=body.seed,
            )  # fmt: skip
            return JSONAnswer(site.taken_state(taken, body.version))

    @app.post("/api/encounters/{eid}/engine", tags=["fight"])
    def api_engine(row: Encounter, body: EngineBody) -> JSONAnswer:
        """Let the engine decide with the default tactics of `referee fight`: the current actor's action
        (`until: actor`), or the foes' in turn until a combatant of the players' sides is to act (`until:
        players`). Each action is its own step. Send `version` and `revision` as for any change."""
        with folds.lock(row.id):  # the answer is the state the engine's turns left, not a later one
            taken = tracker.engine_turns(
                store, row, version=body.version, revision=body.revision, dice=body.dice, seed=body.seed,
                until=body.until,
            )  # fmt: skip
            return JSONAnswer(site.taken_state(taken, body.version))

    @app.post("/api/encounters/{eid}/undo", tags=["fight"])
    def api_undo(row: Encounter, body: UndoBody) -> JSONAnswer:
        """Undo the last step, the last `count` events, or back to line `keep`.

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        with folds.lock(row.id):  # the answer is the state the undo left, not a later one
            undone = tracker.undo(
                store, row, version=body.version, revision=body.revision, keep=body.keep, count=body.count
            )
            return JSONAnswer(site.fight_state(undone, body.version))

    @app.post("/api/encounters/{eid}/redo", tags=["fight"])
    def api_redo(row: Encounter, body: VersionBody) -> JSONAnswer:
        """Put back the last undone events (until a new step is taken).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        with folds.lock(row.id):  # the answer is the state the redo left, not a later one
            redone = tracker.redo(store, row, version=body.version, revision=body.revision)
            return JSONAnswer(site.fight_state(redone, body.version))

    @app.post("/api/encounters/{eid}/odds", tags=["fight"])
    def api_odds(row: Encounter, body: OddsBody) -> dict[str, Any]:
        """The exact odds of an action before it is taken (when the odds module is installed), and the dice
        it asks for (`dice_asked`, in order, damage included)."""
        with folds.lock(row.id):
            fight = clone_fight(folds.current(row.id).fight)  # the odds only read it; a copy all the same
        odds = tracker.action_odds_for(fight, body.action)
        dice = tracker.dice_asked(fight, "action", body.action)
        return {"available": odds is not None, "odds": odds, "dice_asked": dice}
