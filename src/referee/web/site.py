"""What every route of the tracker shares: the store, the kept folds, the templates, and the states built
from them (the referee's, the players', a change's answer), so the route modules stay thin.

One :class:`Site` per app (``app.state.site``); :mod:`.routes_pages`, :mod:`.routes_encounters`,
:mod:`.routes_steps` and :mod:`.streams` add their routes over it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from referee.engine.fight import Fight
from referee.web import problems, tracker, views
from referee.web.access import is_admin, same, start_session
from referee.web.bodies import CreateBody
from referee.web.folds import Folded, Folds, folds_of
from referee.web.problems import NotFound
from referee.web.store import EncounterRow, Store, StoredEvent

HERE = Path(__file__).resolve().parent


class Site:
    """The tracker's shared parts and the states it shows (the referee's page and its JSON twin, the players')."""

    def __init__(self, store: Store, examples: Path | None) -> None:
        self.store = store
        self.folds: Folds = folds_of(store)  # the fights kept folded between requests (referee/web/folds.py)
        self.examples = examples
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        # the add-combatant form's choices (issue 15)
        self.templates.env.globals["bestiary_names"] = bestiary_names
        self.templates.env.globals["bestiary_json"] = bestiary_json

    # --- pages and links ---------------------------------------------------------------------------------

    def strip_token(self, request: Request, row: EncounterRow | None = None) -> RedirectResponse:
        """A `?token=` that is a credential itself is exchanged for a session cookie (the server's, or with
        `row` that encounter's own); either way it leaves the address bar."""
        token = request.query_params["token"]
        response = RedirectResponse(request.url.remove_query_params("token").path, status_code=303)
        if is_admin(request, token):
            start_session(request, response, "*")
        elif row is not None and same(token, row.referee_token):
            start_session(request, response, row.id)
        return response

    def page(self, request: Request, name: str, context: dict[str, Any]) -> HTMLResponse:
        csrf = getattr(request.state, "csrf", "")
        return self.templates.TemplateResponse(request, name, {"csrf": csrf, **context})

    @staticmethod
    def links(request: Request, row: EncounterRow) -> dict[str, str]:
        base = str(request.base_url).rstrip("/")
        return {
            "players": f"{base}/p/{row.id}/{row.player_token}",
            "referee": f"{base}/e/{row.id}?token={row.referee_token}",
        }

    def summary(self, request: Request, row: EncounterRow) -> dict[str, Any]:
        return {
            "id": row.id,
            "name": row.name,
            "version": row.version,
            "revision": row.revision,
            "updated": row.updated,
            "links": self.links(request, row),
        }

    # --- states ------------------------------------------------------------------------------------------

    def fight_state(self, row: EncounterRow, seen: int | None = None) -> dict[str, Any]:
        """The state as stored now (the row and the log of one read: never a version that does not match the
        events shown). `seen` (a change's answer: the version it was made on) bounds the log it carries."""
        with self.folds.lock(row.id):
            return self.state_from(self.folds.current(row.id), seen)

    def page_state(self, row: EncounterRow) -> dict[str, Any]:
        """The state for the referee's page: the log as its rows of HTML (`log_rows`, each rendered once and
        kept with the fold) instead of `events`, and with the dice the preselected action (the engine's own
        choice) asks for, so the page comes with the dice field's labels rather than filling them in later."""
        with self.folds.lock(row.id):
            folded = self.folds.current(row.id)
            state = views.referee_view(
                folded.row, folded.fight, folded.stored, [], folded.tabled, suggested=folded.suggested
            )
            del state["events"]
            state["log_rows"] = list(folded.rows(self.log_row))
            needs = state["needs"]
            if needs == "action" and state["suggested"]:
                state["dice_asked"] = tracker.dice_asked(folded.fight, "action", state["suggested"])
            else:
                state["dice_asked"] = kept_dice(folded, needs)
        return state

    def log_row(self, line: dict[str, Any]) -> str:
        """One line of the log as a row of the page (templates/log_row.html)."""
        row: str = self.templates.get_template("log_row.html").module.row(line)  # type: ignore[attr-defined]
        return row

    @staticmethod
    def state_from(folded: Folded, seen: int | None) -> dict[str, Any]:
        """The referee's state of a kept fold, its log lines as they go into a JSON answer (:class:`Encoded`,
        each encoded once); `seen` (a change's answer: the version it was made on) bounds the log it carries."""
        version = folded.row.version
        start = 0 if seen is None else max(0, version - views.LOG_PAGE)
        state = views.referee_view(
            folded.row, folded.fight, folded.stored, folded.encoded_lines(start), folded.tabled,
            views.encoded_fixed_blocks(), folded.suggested,
        )  # fmt: skip
        state["dice_asked"] = kept_dice(folded, state["needs"])
        if seen is not None:  # what changed, and which page of the log `events` is
            state["events_since"] = folded.encoded_lines(seen) if seen <= version else []
            state["log_page"] = views.log_page(start, version)
        return state

    @staticmethod
    def state_of(row: EncounterRow, fight: Fight, stored: list[StoredEvent]) -> dict[str, Any]:
        state = views.referee_view(row, fight, stored)
        state["dice_asked"] = tracker.dice_asked(fight, state["needs"])
        return state

    def taken_state(self, taken: tracker.Taken, seen: int) -> dict[str, Any]:
        with self.folds.lock(taken.row.id):
            # the fold the step left, unless the fight moved on since (then the state as stored now)
            state = self.state_from(self.folds.at(taken.row), seen)
        if taken.notice:
            state["notice"] = taken.notice  # typed dice the outcome did not need: said, not refused
        return state

    def players_state(self, row: EncounterRow) -> dict[str, Any]:
        with self.folds.lock(row.id):
            folded = self.folds.current(row.id)
            return views.player_view(folded.row, folded.fight, folded.tabled)

    def check_shows(self, row: EncounterRow, fight: Fight, stored: list[StoredEvent]) -> None:
        """Everything the pages and the API will show of an imported encounter, worked out before it is
        stored: an import that one of them could not show is refused."""
        state = self.state_of(row, fight, stored)
        players = views.player_view(row, fight)
        exported = tracker.export_of(row, stored)
        for shown in (state, players, exported):
            json.dumps(shown, ensure_ascii=False, allow_nan=False).encode("utf-8")
        page = {**state, "log_rows": [self.log_row(line) for line in state["events"]]}
        context = {"s": page, "links": {"players": "", "referee": ""}, "meta": json.dumps(page_meta(state))}
        self.templates.get_template("fight.html").render(csrf="", **context).encode("utf-8")
        self.templates.get_template("players.html").render(s=players, api="").encode("utf-8")

    # --- creating encounters -----------------------------------------------------------------------------

    def create_from(self, body: CreateBody) -> EncounterRow:
        given = [x for x in (body.data, body.text, body.example, body.blocks) if x is not None]
        if len(given) != 1:
            raise problems.BadRequest("give exactly one of data, text, example or blocks")
        base_dir = None
        if body.blocks is not None:
            from referee.pasted_blocks import encounter_from_text

            tracker.utf8(body.blocks, "pasted stat blocks")  # (the request's size is capped by the guard)
            data = encounter_from_text(body.blocks, "Monsters", body.ruleset, fields=False)
        elif body.example is not None:
            data, base_dir = self.read_example(body.example), self.examples
        elif body.text is not None:
            data = tracker.encounter_data_from_bytes(
                tracker.utf8(body.text, "pasted encounter"), "pasted encounter"
            )
        else:
            assert body.data is not None
            data = body.data
        name, setup = tracker.frozen_setup(data, body.example or "encounter", base_dir)
        return self.store.create(body.name or name, setup)

    def read_example(self, name: str) -> dict[str, Any]:
        # only a name listed in the folder: never a path a request made up
        examples = self.examples
        if examples is None or name not in {p.name for p in examples.iterdir() if p.is_file()}:
            known = ", ".join(tracker.list_examples(examples)) or "none (no examples folder)"
            raise NotFound(f"no example {name!r}; examples: {known}")
        return tracker.encounter_data_from_bytes((examples / name).read_bytes(), name)


def kept_dice(folded: Folded, step: str) -> list[dict[str, Any]]:
    """:func:`tracker.dice_asked` of `step` (no action) on the fold's fight now, worked out once per state of
    it (a dry run on a copy of the fight: the answer, then every tab's reload and the page); a copy."""
    count = len(folded.stored)
    kept = folded.dice_at
    if kept is None or kept[0] != count or kept[1] != step:
        kept = folded.dice_at = (count, step, tracker.dice_asked(folded.fight, step))
    return [dict(die) for die in kept[2]]


def page_meta(state: dict[str, Any]) -> dict[str, Any]:
    """What the page's script needs: ids, version and revision (sent with every change) and the engine's action
    kinds and forms."""
    keys = (
        "id",
        "version",
        "revision",
        "needs",
        "current",
        "action_kinds",
        "forms",
        "cover",
        "concealment",
        "sides",
        "suggested",
        "players",
    )
    meta = {k: state[k] for k in keys}
    wanted = ("name", "side", "weapons", "status")
    meta["combatants"] = [{k: c[k] for k in wanted} for c in state["combatants"]]
    return meta


def bestiary_names(own: list[str] | None = None) -> list[str]:
    """The monsters' names for `monster:` in the tracker's add-combatant form (issue 15): the encounter's
    own catalog's first, then the built-in ones."""
    from referee.bestiary import monsters

    return [*(own or []), *(m.name for m in monsters().values() if m.name not in (own or []))]


@functools.cache
def bestiary_json(descending: bool) -> str:
    """What the add-combatant form shows of a built-in monster picked from the bestiary, as JSON for the page:
    its stat line, and the fields it brings (name, hit dice, AC in the ruleset's convention, weapons), shown
    in the form's empty fields' places (the form's own fields override the monster's)."""
    from referee.bestiary import monsters

    out = {}
    for m in monsters().values():
        fields = m.fields(descending)
        weapons = [w["name"] if isinstance(w, dict) else str(w) for w in fields.get("weapons", [])]
        out[m.name] = {
            "stat": m.stat,
            "name": str(fields.get("name", "")),
            "hit_dice": str(fields.get("hit_dice", "")),
            "ac": str(fields.get("ac", "")),
            "weapons": ", ".join(weapons),
        }
    return json.dumps(out).replace("<", "\\u003c")
