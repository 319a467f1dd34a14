"""The referee's tracker: a FastAPI app over the engine and the event store.

Pages for the referee (encounters, the fight) and for the players (read-only), each with a JSON twin under
``/api``. Who may do what is :mod:`referee.web.access` (credentials, browser sessions, CSRF tokens); what every
request passes first is :mod:`referee.web.guard` (size, origin, content type, strict JSON); the players' link
carries only the encounter's player token and opens only the players' view.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field

from referee.engine.fight import Fight
from referee.errors import EncounterFileError, StoreError
from referee.files import MAX_FILE_BYTES
from referee.web import problems, tracker, views
from referee.web.access import (
    REFEREE,
    Encounter,
    LoginLimit,
    Players,
    end_sessions,
    is_admin,
    same,
    start_session,
)
from referee.web.folds import Folded, clone_fight, folds_of
from referee.web.guard import MAX_BODY_BYTES, RequestGuard
from referee.web.paste import paste_context
from referee.web.problems import Forbidden, NotFound
from referee.web.store import EncounterRow, Store, StoredEvent

HERE = Path(__file__).resolve().parent
__all__ = ["MAX_BODY_BYTES", "Settings", "create_app"]


class Settings(BaseModel):
    """How the tracker runs (``referee serve`` fills it in; tests pass their own)."""

    db: Path
    password: str | None = None
    examples: Path | None = None


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


# --- the app -----------------------------------------------------------------------------------------


def create_app(settings: Settings | None = None) -> FastAPI:
    """The tracker app. Without settings, reads REFEREE_DB / REFEREE_PASSWORD / REFEREE_EXAMPLES."""
    if settings is None:
        settings = Settings(
            db=Path(os.environ.get("REFEREE_DB", "referee.sqlite3")),
            password=os.environ.get("REFEREE_PASSWORD") or None,
            examples=Path(os.environ["REFEREE_EXAMPLES"]) if os.environ.get("REFEREE_EXAMPLES") else None,
        )
    store = Store(settings.db)
    folds = folds_of(store)  # the fights kept folded between requests (referee/web/folds.py)
    examples = tracker.find_examples(settings.examples)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["bestiary_names"] = _bestiary_names  # the add-combatant form's choices (issue 15)
    app = FastAPI(
        title="referee tracker",
        description="The referee's tracker: encounters, fights, dice, undo, and a read-only players' view.",
        version="1",
    )
    app.state.store = store
    app.state.settings = settings
    app.state.login_limit = LoginLimit()
    app.add_middleware(RequestGuard)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    problems.install(app)

    def strip_token(request: Request, row: EncounterRow | None = None) -> RedirectResponse:
        """A `?token=` that is a credential itself is exchanged for a session cookie (the server's, or with
        `row` that encounter's own); either way it leaves the address bar."""
        token = request.query_params["token"]
        response = RedirectResponse(request.url.remove_query_params("token").path, status_code=303)
        if is_admin(request, token):
            start_session(request, response, "*")
        elif row is not None and same(token, row.referee_token):
            start_session(request, response, row.id)
        return response

    def page(request: Request, name: str, context: dict[str, Any]) -> HTMLResponse:
        csrf = getattr(request.state, "csrf", "")
        return templates.TemplateResponse(request, name, {"csrf": csrf, **context})

    def links(request: Request, row: EncounterRow) -> dict[str, str]:
        base = str(request.base_url).rstrip("/")
        return {
            "players": f"{base}/p/{row.id}/{row.player_token}",
            "referee": f"{base}/e/{row.id}?token={row.referee_token}",
        }

    def fight_state(row: EncounterRow, seen: int | None = None) -> dict[str, Any]:
        """The state as stored now (the row and the log of one read: never a version that does not match the
        events shown). `seen` (a change's answer: the version it was made on) bounds the log it carries."""
        with folds.lock(row.id):
            return state_from(folds.current(row.id), seen)

    def state_from(folded: Folded, seen: int | None) -> dict[str, Any]:
        version = folded.row.version
        lines = folded.lines(0 if seen is None else version - views.LOG_PAGE)
        state = views.referee_view(folded.row, folded.fight, folded.stored, lines, folded.tabled)
        state["dice_asked"] = tracker.dice_asked(folded.fight, state["needs"])
        if seen is not None:  # what changed, and which page of the log `events` is
            state["events_since"] = folded.lines(seen) if seen <= version else []
            state["log_page"] = views.log_page(lines, version)
        return state

    def state_of(row: EncounterRow, fight: Fight, stored: list[StoredEvent]) -> dict[str, Any]:
        state = views.referee_view(row, fight, stored)
        state["dice_asked"] = tracker.dice_asked(fight, state["needs"])
        return state

    def taken_state(taken: tracker.Taken, seen: int) -> dict[str, Any]:
        with folds.lock(taken.row.id):
            # the fold the step left, unless the fight moved on since (then the state as stored now)
            state = state_from(folds.at(taken.row), seen)
        if taken.notice:
            state["notice"] = taken.notice  # typed dice the outcome did not need: said, not refused
        return state

    def players_state(row: EncounterRow) -> dict[str, Any]:
        with folds.lock(row.id):
            folded = folds.current(row.id)
            return views.player_view(folded.row, folded.fight, folded.tabled)

    def check_shows(row: EncounterRow, fight: Fight, stored: list[StoredEvent]) -> None:
        """Everything the pages and the API will show of an imported encounter, worked out before it is
        stored: an import that one of them could not show is refused."""
        state = state_of(row, fight, stored)
        players = views.player_view(row, fight)
        exported = tracker.export_of(row, stored)
        for shown in (state, players, exported):
            json.dumps(shown, ensure_ascii=False, allow_nan=False).encode("utf-8")
        context = {"s": state, "links": {"players": "", "referee": ""}, "meta": json.dumps(_meta(state))}
        templates.get_template("fight.html").render(csrf="", **context).encode("utf-8")
        templates.get_template("players.html").render(s=players, api="").encode("utf-8")

    def summary(request: Request, row: EncounterRow) -> dict[str, Any]:
        return {
            "id": row.id,
            "name": row.name,
            "version": row.version,
            "revision": row.revision,
            "updated": row.updated,
            "links": links(request, row),
        }

    def create_from(body: CreateBody) -> EncounterRow:
        given = [x for x in (body.data, body.text, body.example) if x is not None]
        if len(given) != 1:
            raise problems.BadRequest("give exactly one of data, text or example")
        base_dir = None
        if body.example is not None:
            data, base_dir = read_example(body.example), examples
        elif body.text is not None:
            data = tracker.encounter_data_from_bytes(
                tracker.utf8(body.text, "pasted encounter"), "pasted encounter"
            )
        else:
            assert body.data is not None
            data = body.data
        name, setup = tracker.frozen_setup(data, body.example or "encounter", base_dir)
        return store.create(body.name or name, setup)

    def read_example(name: str) -> dict[str, Any]:
        # only a name listed in the folder: never a path a request made up
        if examples is None or name not in {p.name for p in examples.iterdir() if p.is_file()}:
            known = ", ".join(tracker.list_examples(examples)) or "none (no examples folder)"
            raise NotFound(f"no example {name!r}; examples: {known}")
        return tracker.encounter_data_from_bytes((examples / name).read_bytes(), name)

    # --- pages ----------------------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse, include_in_schema=False, dependencies=REFEREE)
    def index(request: Request) -> Response:
        if "token" in request.query_params:
            return strip_token(request)
        rows = [summary(request, r) for r in store.encounters()]
        return page(request, "index.html", {"encounters": rows, "examples": tracker.list_examples(examples)})

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_page(request: Request) -> Response:
        return page(request, "login.html", {"enabled": bool(settings.password)})

    @app.post("/login", include_in_schema=False)
    def login(request: Request, password: Annotated[str, Form()]) -> Response:
        limit: LoginLimit = app.state.login_limit
        limit.check()
        if not settings.password or not hmac.compare_digest(password.encode(), settings.password.encode()):
            limit.failed()
            raise Forbidden("wrong password")
        response = RedirectResponse("/", status_code=303)
        start_session(request, response, "*")
        return response

    @app.post("/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        """Revoke this browser's sessions (a page from another origin was refused before this)."""
        response = RedirectResponse("/login", status_code=303)
        end_sessions(request, response)
        return response

    @app.post("/encounters", include_in_schema=False, dependencies=REFEREE)
    async def create_page(
        request: Request,
        source: Annotated[str, Form()] = "paste",
        example: Annotated[str, Form()] = "",
        text: Annotated[str, Form()] = "",
        file: Annotated[UploadFile | None, File()] = None,
    ) -> Response:
        if source == "upload":
            if file is None:
                raise problems.BadRequest("choose a file to upload")
            raw = await file.read(MAX_FILE_BYTES + 1)
            name = file.filename or "upload"
            if name.endswith(".json") and _looks_like_export(raw):
                row = tracker.import_export(store, tracker.read_json_upload(raw, name), check_shows)
            else:
                name_, setup = tracker.frozen_setup(tracker.encounter_data_from_bytes(raw, name), name)
                row = store.create(name_, setup)
        elif source == "example":
            row = create_from(CreateBody(example=example))
        else:
            try:
                row = create_from(CreateBody(text=text))
            except EncounterFileError as exc:  # the page keeps the text and marks its lines (issue 15)
                listed: dict[str, Any] = {"encounters": [summary(request, r) for r in store.encounters()]}
                listed["examples"] = tracker.list_examples(examples)
                response = page(request, "index.html", {**listed, **paste_context(text, str(exc))})
                response.status_code = 422
                return response
        return RedirectResponse(f"/e/{row.id}", status_code=303)

    @app.post("/e/{eid}/rename", include_in_schema=False)
    def rename_page(row: Encounter, name: Annotated[str, Form(min_length=1, max_length=120)]) -> Response:
        store.rename(row.id, name)
        return RedirectResponse(f"/e/{row.id}", status_code=303)

    @app.post("/e/{eid}/delete", include_in_schema=False, dependencies=REFEREE)
    def delete_page(request: Request, eid: str, confirm: Annotated[str, Form()] = "") -> Response:
        if confirm != "yes":
            raise problems.BadRequest("tick the box to confirm the deletion")
        store.delete(eid)
        folds.drop(eid)
        return RedirectResponse("/", status_code=303)

    @app.get("/e/{eid}", response_class=HTMLResponse, include_in_schema=False)
    def fight_page(request: Request, row: Encounter) -> Response:
        if "token" in request.query_params:
            return strip_token(request, row)
        state = fight_state(row)
        meta = {**_meta(state), "csrf": getattr(request.state, "csrf", "")}
        context = {
            "s": state,
            "links": links(request, row),
            "meta": json.dumps(meta).replace("<", "\\u003c"),
        }
        return page(request, "fight.html", context)

    @app.get("/p/{eid}/{token}", response_class=HTMLResponse, include_in_schema=False)
    def players_page(request: Request, row: Players) -> Response:
        state = players_state(row)
        return page(request, "players.html", {"s": state, "api": f"/api/players/{row.id}/{row.player_token}"})

    # --- JSON API -------------------------------------------------------------------------------------

    @app.get("/api/encounters", tags=["encounters"], dependencies=REFEREE)
    def api_list(request: Request) -> list[dict[str, Any]]:
        """Every encounter, newest change first (the twin of the page `/`)."""
        return [summary(request, r) for r in store.encounters()]

    @app.get("/api/examples", tags=["encounters"], dependencies=REFEREE)
    def api_examples() -> list[str]:
        """The encounter files in the examples folder (empty when the package was installed without it)."""
        return tracker.list_examples(examples)

    @app.post("/api/encounters", tags=["encounters"], status_code=201, dependencies=REFEREE)
    def api_create(request: Request, body: CreateBody) -> dict[str, Any]:
        """Create an encounter from JSON data, a file's text (YAML/JSON) or an example's name."""
        return summary(request, create_from(body))

    @app.post("/api/encounters/import", tags=["encounters"], status_code=201, dependencies=REFEREE)
    async def api_import(request: Request) -> dict[str, Any]:
        """Create an encounter from an export (setup + event log)."""
        data = tracker.read_json_upload(await request.body(), "import")
        return summary(request, tracker.import_export(store, data, check_shows))

    @app.get("/api/encounters/{eid}", tags=["fight"])
    def api_state(row: Encounter) -> dict[str, Any]:
        """The whole fight as the referee sees it (the twin of the page `/e/{id}`)."""
        return fight_state(row)

    @app.get("/api/encounters/{eid}/version", tags=["fight"])
    def api_version(row: Encounter) -> dict[str, int]:
        """A cheap poll: `version` (the number of events) and `revision` (moves on with every change and never
        goes back: the pair to send with the next change)."""
        return {"version": row.version, "revision": row.revision}

    @app.patch("/api/encounters/{eid}", tags=["encounters"])
    def api_rename(request: Request, row: Encounter, body: RenameBody) -> dict[str, Any]:
        """Rename an encounter (last one wins). It moves the `revision` on like any change, so a page opened
        before it is told to reload and its next change is refused with 409."""
        return summary(request, store.rename(row.id, body.name))

    @app.delete("/api/encounters/{eid}", tags=["encounters"], dependencies=REFEREE)
    def api_delete(eid: str) -> dict[str, Any]:
        store.delete(eid)
        folds.drop(eid)
        return {"deleted": eid}

    @app.get("/api/encounters/{eid}/events", tags=["fight"])
    def api_events(row: Encounter) -> list[dict[str, Any]]:
        """The event log: every event with its dice, modifiers and rule IDs."""
        return [views.event_view(s) for s in store.snapshot(row.id)[1]]

    @app.get("/api/encounters/{eid}/export", tags=["encounters"])
    def api_export(row: Encounter) -> Response:
        """Setup and event log as one JSON file (import it back with POST /api/encounters/import)."""
        filename = f"encounter-{row.id}.json"
        row, stored = store.snapshot(row.id)
        return JSONResponse(
            tracker.export_of(row, stored),
            headers={"content-disposition": f'attachment; filename="{filename}"'},
        )

    @app.post("/api/encounters/{eid}/steps", tags=["fight"])
    def api_step(row: Encounter, body: StepBody) -> dict[str, Any]:
        """Take the next step: `begin` (with an optional surprise ruling), `round`, `action` or `end_round`.

        Send the `version` and `revision` the client last saw: if the fight changed since (another tab), the
        step is refused with 409 and nothing is stored."""
        taken = tracker.take_step(
            store, row, body.step, version=body.version, revision=body.revision, dice=body.dice,
            action=body.action, surprise=body.surprise, seed=body.seed,
        )  # fmt: skip
        return taken_state(taken, body.version)

    @app.post("/api/encounters/{eid}/actions", tags=["fight"])
    def api_action(row: Encounter, body: ActionBody) -> dict[str, Any]:
        """Resolve one combatant's action (kind, actor, target, weapon, form, charge, situation…).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        taken = tracker.take_step(
            store, row, "action", version=body.version, revision=body.revision, dice=body.dice,
            action=body.action, seed=body.seed,
        )  # fmt: skip
        return taken_state(taken, body.version)

    @app.post("/api/encounters/{eid}/engine", tags=["fight"])
    def api_engine(row: Encounter, body: EngineBody) -> dict[str, Any]:
        """Let the engine decide with the default tactics of `referee fight`: the current actor's action
        (`until: actor`), or the foes' in turn until a combatant of the players' sides is to act (`until:
        players`). Each action is its own step. Send `version` and `revision` as for any change."""
        taken = tracker.engine_turns(
            store, row, version=body.version, revision=body.revision, dice=body.dice, seed=body.seed,
            until=body.until,
        )  # fmt: skip
        return taken_state(taken, body.version)

    @app.post("/api/encounters/{eid}/undo", tags=["fight"])
    def api_undo(row: Encounter, body: UndoBody) -> dict[str, Any]:
        """Undo the last step, the last `count` events, or back to line `keep`.

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        undone = tracker.undo(
            store, row, version=body.version, revision=body.revision, keep=body.keep, count=body.count
        )
        return fight_state(undone, body.version)

    @app.post("/api/encounters/{eid}/redo", tags=["fight"])
    def api_redo(row: Encounter, body: VersionBody) -> dict[str, Any]:
        """Put back the last undone events (until a new step is taken).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        redone = tracker.redo(store, row, version=body.version, revision=body.revision)
        return fight_state(redone, body.version)

    @app.post("/api/encounters/{eid}/odds", tags=["fight"])
    def api_odds(row: Encounter, body: OddsBody) -> dict[str, Any]:
        """The exact odds of an action before it is taken (when the odds module is installed), and the dice
        it asks for (`dice_asked`, in order, damage included)."""
        with folds.lock(row.id):
            fight = clone_fight(folds.current(row.id).fight)  # the odds only read it; a copy all the same
        odds = tracker.action_odds_for(fight, body.action)
        dice = tracker.dice_asked(fight, "action", body.action)
        return {"available": odds is not None, "odds": odds, "dice_asked": dice}

    @app.get("/api/encounters/{eid}/stream", tags=["fight"])
    async def api_stream(request: Request, row: Encounter) -> StreamingResponse:
        """Server-sent events: a `data: {version, revision}` line at once and whenever the fight changes (the
        referee's page follows it without reloading). The stream ends after a minute; browsers reconnect."""

        def now() -> str:
            current = store.get(row.id)
            return json.dumps({"version": current.version, "revision": current.revision})

        return _event_stream(request, now)

    @app.get("/api/players/{eid}/{token}/stream", tags=["players"])
    async def api_players_stream(request: Request, row: Players) -> StreamingResponse:
        """Server-sent events for the players' page: `data: {revision}` (the digest of what they see) at once
        and whenever their view changes; nothing else about the fight."""
        cache: dict[int, str] = {}

        def now() -> str:
            current = store.get(row.id)
            if current.revision not in cache:  # the players' digest needs a fold: only when the fight moved
                cache.clear()
                cache[current.revision] = json.dumps({"revision": players_state(current)["revision"]})
            return cache[current.revision]

        return _event_stream(request, now)

    @app.get("/api/players/{eid}/{token}", tags=["players"])
    def api_players(row: Players) -> dict[str, Any]:
        """The players' view (read-only; no monster hit points, no AC, no hidden combatants)."""
        return players_state(row)

    return app


STREAM_SECONDS = 60  # a stream ends after this long (the browser reconnects), so none outlives its page
STREAM_TICK = 0.5


def _event_stream(request: Request, read: Callable[[], str]) -> StreamingResponse:
    """Server-sent events of `read()` (run off the event loop: it reads SQLite) each time its value changes."""

    async def lines() -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        seen = None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STREAM_SECONDS
        while loop.time() < deadline and not await request.is_disconnected():
            try:
                value = await run_in_threadpool(read)
            except (StoreError, sqlite3.Error, LookupError):
                return  # the encounter was deleted or the database failed: the client's retry says so
            if value != seen:
                seen = value
                yield f"data: {value}\n\n"
            await asyncio.sleep(STREAM_TICK)

    return StreamingResponse(
        lines(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _looks_like_export(raw: bytes) -> bool:
    """Is this JSON with the export's format? (Read strictly later: `tracker.read_json_upload`.)"""
    try:
        return json.loads(raw).get("format") == tracker.EXPORT_FORMAT  # type: ignore[no-any-return]
    except (ValueError, AttributeError, UnicodeDecodeError, RecursionError):
        return False


def _meta(state: dict[str, Any]) -> dict[str, Any]:
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


def app_from_env() -> FastAPI:
    """For `uvicorn referee.web.app:app_from_env --factory`."""
    try:
        return create_app()
    except (EncounterFileError, StoreError) as exc:  # pragma: no cover - a start-up message
        raise SystemExit(f"error: {exc}") from None


def _bestiary_names() -> list[str]:
    """The built-in monsters' names, for `monster:` in the tracker's add-combatant form (issue 15)."""
    from referee.bestiary import monsters

    return [m.name for m in monsters().values()]
