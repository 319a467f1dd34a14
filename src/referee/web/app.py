"""The referee's tracker: a FastAPI app over the engine and the event store.

Pages for the referee (encounters, the fight) and for the players (read-only), each with a JSON twin under
``/api``. Access: the referee's credential (the server's secret token, the ``--password``, or one encounter's
own referee token) comes as ``?token=`` (then kept in an HttpOnly cookie), a ``Authorization: Bearer`` header or
that cookie; the players' link carries only the encounter's player token and opens only the players' view.
Every credential is compared with :func:`hmac.compare_digest`.
"""

from __future__ import annotations

import hmac
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.errors import EncounterFileError
from referee.files import MAX_FILE_BYTES
from referee.web import problems, tracker, views
from referee.web.problems import Forbidden, NotFound, TooLarge
from referee.web.store import EncounterRow, Store

HERE = Path(__file__).resolve().parent
COOKIE = "referee"
# Room for the multipart envelope around a file of MAX_FILE_BYTES.
MAX_BODY_BYTES = MAX_FILE_BYTES + 64_000


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


class BodyLimit:
    """Refuse request bodies over :data:`MAX_BODY_BYTES` (413) before they are parsed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
            response = JSONResponse(
                {"error": f"request body over {MAX_BODY_BYTES} bytes", "status": 413}, 413
            )
            await response(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                raise TooLarge(f"request body over {MAX_BODY_BYTES} bytes")
            return message

        await self.app(scope, limited, send)


# --- access ---------------------------------------------------------------------------------------------


def _credentials(request: Request) -> list[str]:
    """Every credential the request offers: `?token=`, the cookies, an `Authorization: Bearer` header."""
    found = [request.query_params.get("token", ""), request.cookies.get(COOKIE, "")]
    found.append(request.cookies.get(f"{COOKIE}_{request.path_params.get('eid', '')}", ""))
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        found.append(auth[7:].strip())
    return [c for c in found if c]


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def is_admin(request: Request, secret: str) -> bool:
    """The server's referee token or the password (both compared in constant time)."""
    ok = _same(secret, request.app.state.store.admin_token())
    password = request.app.state.settings.password
    return (password is not None and _same(secret, password)) or ok


def require_referee(request: Request) -> None:
    if not any(is_admin(request, c) for c in _credentials(request)):
        raise Forbidden("the referee's token is needed here (the link `referee serve` printed)")


def encounter_access(request: Request, eid: str) -> EncounterRow:
    """The encounter, if the request carries the server's referee credential or this encounter's own."""
    store: Store = request.app.state.store
    given = _credentials(request)
    if any(is_admin(request, c) for c in given):
        return store.get(eid)
    try:
        row = store.get(eid)
    except LookupError:
        raise Forbidden("the referee's token is needed here") from None
    if any(_same(c, row.referee_token) for c in given):
        return row
    raise Forbidden("the referee's token is needed here (a players' link only opens the players' view)")


def player_access(request: Request, eid: str, token: str) -> EncounterRow:
    try:
        row = request.app.state.store.get(eid)
    except LookupError:
        raise Forbidden("unknown players' link") from None
    if not _same(token, row.player_token):
        raise Forbidden("unknown players' link")
    return row  # type: ignore[no-any-return]


# Access is a dependency, so it is checked before a body is validated: without a token, no hints.
REFEREE = [Depends(require_referee)]
Encounter = Annotated[EncounterRow, Depends(encounter_access)]
Players = Annotated[EncounterRow, Depends(player_access)]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The tracker app. Without settings, reads REFEREE_DB / REFEREE_PASSWORD / REFEREE_EXAMPLES."""
    if settings is None:
        settings = Settings(
            db=Path(os.environ.get("REFEREE_DB", "referee.sqlite3")),
            password=os.environ.get("REFEREE_PASSWORD") or None,
            examples=Path(os.environ["REFEREE_EXAMPLES"]) if os.environ.get("REFEREE_EXAMPLES") else None,
        )
    store = Store(settings.db)
    examples = tracker.find_examples(settings.examples)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    app = FastAPI(
        title="referee tracker",
        description="The referee's tracker: encounters, fights, dice, undo, and a read-only players' view.",
        version="1",
    )
    app.state.store = store
    app.state.settings = settings
    app.add_middleware(BodyLimit)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    problems.install(app)

    def keep_token(request: Request, response: Response) -> Response:
        """A `?token=` that worked is moved into an HttpOnly cookie, so it leaves the address bar."""
        token = request.query_params.get("token")
        if token:
            name = COOKIE if is_admin(request, token) else f"{COOKIE}_{request.path_params.get('eid', '')}"
            response.set_cookie(name, token, httponly=True, samesite="strict")
        return response

    def strip_token(request: Request) -> RedirectResponse:
        response = RedirectResponse(request.url.remove_query_params("token").path, status_code=303)
        keep_token(request, response)
        return response

    def page(request: Request, name: str, context: dict[str, Any]) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context)

    def links(request: Request, row: EncounterRow) -> dict[str, str]:
        base = str(request.base_url).rstrip("/")
        return {
            "players": f"{base}/p/{row.id}/{row.player_token}",
            "referee": f"{base}/e/{row.id}?token={row.referee_token}",
        }

    def fight_state(row: EncounterRow) -> dict[str, Any]:
        fight = tracker.load_fight(store, row)
        state = views.referee_view(row, fight, store.events(row.id))
        state["dice_asked"] = tracker.dice_asked(fight, state["needs"])
        return state

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
            data = tracker.encounter_data_from_bytes(body.text.encode("utf-8"), "pasted encounter")
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
    def login(password: Annotated[str, Form()]) -> Response:
        if not settings.password or not hmac.compare_digest(password.encode(), settings.password.encode()):
            raise Forbidden("wrong password")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, store.admin_token(), httponly=True, samesite="strict")
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
                row = tracker.import_export(store, tracker.read_json_upload(raw, name))
            else:
                name_, setup = tracker.frozen_setup(tracker.encounter_data_from_bytes(raw, name), name)
                row = store.create(name_, setup)
        elif source == "example":
            row = create_from(CreateBody(example=example))
        else:
            row = create_from(CreateBody(text=text))
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
        return RedirectResponse("/", status_code=303)

    @app.get("/e/{eid}", response_class=HTMLResponse, include_in_schema=False)
    def fight_page(request: Request, row: Encounter) -> Response:
        if "token" in request.query_params:
            return strip_token(request)
        state = fight_state(row)
        context = {
            "s": state,
            "links": links(request, row),
            "meta": json.dumps(_meta(state)).replace("<", "\\u003c"),
        }
        return page(request, "fight.html", context)

    @app.get("/p/{eid}/{token}", response_class=HTMLResponse, include_in_schema=False)
    def players_page(request: Request, row: Players) -> Response:
        state = views.player_view(row, tracker.load_fight(store, row))
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
        return summary(request, tracker.import_export(store, data))

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
        return {"deleted": eid}

    @app.get("/api/encounters/{eid}/events", tags=["fight"])
    def api_events(row: Encounter) -> list[dict[str, Any]]:
        """The event log: every event with its dice, modifiers and rule IDs."""
        return [views.event_view(s) for s in store.events(row.id)]

    @app.get("/api/encounters/{eid}/export", tags=["encounters"])
    def api_export(row: Encounter) -> Response:
        """Setup and event log as one JSON file (import it back with POST /api/encounters/import)."""
        filename = f"encounter-{row.id}.json"
        return JSONResponse(
            tracker.export(store, row), headers={"content-disposition": f'attachment; filename="{filename}"'}
        )

    @app.post("/api/encounters/{eid}/steps", tags=["fight"])
    def api_step(row: Encounter, body: StepBody) -> dict[str, Any]:
        """Take the next step: `begin` (with an optional surprise ruling), `round`, `action` or `end_round`.

        Send the `version` and `revision` the client last saw: if the fight changed since (another tab), the
        step is refused with 409 and nothing is stored."""
        row, _ = tracker.take_step(
            store, row, body.step, version=body.version, revision=body.revision, dice=body.dice,
            action=body.action, surprise=body.surprise, seed=body.seed,
        )  # fmt: skip
        return fight_state(row)

    @app.post("/api/encounters/{eid}/actions", tags=["fight"])
    def api_action(row: Encounter, body: ActionBody) -> dict[str, Any]:
        """Resolve one combatant's action (kind, actor, target, weapon, form, charge, situation…).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        row, _ = tracker.take_step(
            store, row, "action", version=body.version, revision=body.revision, dice=body.dice,
            action=body.action, seed=body.seed,
        )  # fmt: skip
        return fight_state(row)

    @app.post("/api/encounters/{eid}/undo", tags=["fight"])
    def api_undo(row: Encounter, body: UndoBody) -> dict[str, Any]:
        """Undo the last step, the last `count` events, or back to line `keep`.

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        undone = tracker.undo(
            store, row, version=body.version, revision=body.revision, keep=body.keep, count=body.count
        )
        return fight_state(undone)

    @app.post("/api/encounters/{eid}/redo", tags=["fight"])
    def api_redo(row: Encounter, body: VersionBody) -> dict[str, Any]:
        """Put back the last undone events (until a new step is taken).

        Send the `version` and `revision` the client last saw (409 if the fight changed since)."""
        return fight_state(tracker.redo(store, row, version=body.version, revision=body.revision))

    @app.post("/api/encounters/{eid}/odds", tags=["fight"])
    def api_odds(row: Encounter, body: OddsBody) -> dict[str, Any]:
        """The exact odds of an action before it is taken (when the odds module is installed), and the dice
        it asks for (`dice_asked`, in order, damage included)."""
        fight = tracker.load_fight(store, row)
        odds = tracker.action_odds_for(fight, body.action)
        dice = tracker.dice_asked(fight, "action", body.action)
        return {"available": odds is not None, "odds": odds, "dice_asked": dice}

    @app.get("/api/players/{eid}/{token}", tags=["players"])
    def api_players(row: Players) -> dict[str, Any]:
        """The players' view (read-only; no monster hit points, no AC, no hidden combatants)."""
        return views.player_view(row, tracker.load_fight(store, row))

    return app


def _looks_like_export(raw: bytes) -> bool:
    try:
        return json.loads(raw).get("format") == tracker.EXPORT_FORMAT  # type: ignore[no-any-return]
    except (ValueError, AttributeError, UnicodeDecodeError):
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
    )
    meta = {k: state[k] for k in keys}
    wanted = ("name", "side", "weapons", "status")
    meta["combatants"] = [{k: c[k] for k in wanted} for c in state["combatants"]]
    return meta


def app_from_env() -> FastAPI:
    """For `uvicorn referee.web.app:app_from_env --factory`."""
    try:
        return create_app()
    except EncounterFileError as exc:  # pragma: no cover - a start-up message
        raise SystemExit(f"error: {exc}") from None
