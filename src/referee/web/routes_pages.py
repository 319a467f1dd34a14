"""The tracker's HTML pages: the start page, login, creating / renaming / deleting an encounter, the referee's
fight page and the players' page (each has a JSON twin under ``/api``: :mod:`.routes_encounters`,
:mod:`.routes_steps`, :mod:`.streams`)."""

from __future__ import annotations

import hmac
import json
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from referee.errors import EncounterFileError
from referee.files import MAX_FILE_BYTES
from referee.web import problems, tracker
from referee.web.access import REFEREE, Encounter, LoginLimit, Players, end_sessions, start_session
from referee.web.bodies import CreateBody
from referee.web.paste import paste_context
from referee.web.problems import Forbidden
from referee.web.site import Site, page_meta


def add_page_routes(app: FastAPI, site: Site, server_password: str | None) -> None:
    """The pages; `server_password` is ``--password``, None when only tokens are accepted."""
    store = site.store

    @app.get("/", response_class=HTMLResponse, include_in_schema=False, dependencies=REFEREE)
    def index(request: Request) -> Response:
        if "token" in request.query_params:
            return site.strip_token(request)
        return site.page(request, "index.html", listed_encounters(request))

    def listed_encounters(request: Request) -> dict[str, Any]:
        """What the encounters page lists: the encounters, the examples, the presets a paste may name."""
        from referee.rules.presets import PRESETS

        rows = [site.summary(request, r) for r in store.encounters()]
        return {"encounters": rows, "examples": tracker.list_examples(site.examples), "presets": list(PRESETS),
                "blocks_ruleset": "odd"}  # fmt: skip

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_page(request: Request) -> Response:
        return site.page(request, "login.html", {"enabled": bool(server_password)})

    @app.post("/login", include_in_schema=False)
    def login(request: Request, password: Annotated[str, Form()]) -> Response:
        limit: LoginLimit = app.state.login_limit
        limit.check()
        expected = server_password
        if not expected or not hmac.compare_digest(password.encode(), expected.encode()):
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
        ruleset: Annotated[str, Form(max_length=40)] = "odd",
    ) -> Response:
        if source == "upload":
            if file is None:
                raise problems.BadRequest("choose a file to upload")
            raw = await file.read(MAX_FILE_BYTES + 1)
            name = file.filename or "upload"
            if name.endswith(".json") and looks_like_export(raw):
                row = tracker.import_export(store, tracker.read_json_upload(raw, name), site.check_shows)
            else:
                name_, setup = tracker.frozen_setup(tracker.encounter_data_from_bytes(raw, name), name)
                row = store.create(name_, setup)
        elif source == "example":
            row = site.create_from(CreateBody(example=example))
        elif source == "blocks":
            try:
                row = site.create_from(CreateBody(blocks=text, ruleset=ruleset))
            except EncounterFileError as exc:  # the page keeps the text and lists each block's problem
                shown = {
                    "blocks_pasted": text,
                    "blocks_problems": str(exc).splitlines(),
                    "blocks_ruleset": ruleset,
                }
                response = site.page(request, "index.html", {**listed_encounters(request), **shown})
                response.status_code = 422
                return response
        else:
            try:
                row = site.create_from(CreateBody(text=text))
            except EncounterFileError as exc:  # the page keeps the text and marks its lines (issue 15)
                context = {**listed_encounters(request), **paste_context(text, str(exc))}
                response = site.page(request, "index.html", context)
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
        site.folds.drop(eid)
        return RedirectResponse("/", status_code=303)

    @app.get("/e/{eid}", response_class=HTMLResponse, include_in_schema=False)
    def fight_page(request: Request, row: Encounter) -> Response:
        if "token" in request.query_params:
            return site.strip_token(request, row)
        state = site.page_state(row)
        meta = {**page_meta(state), "csrf": getattr(request.state, "csrf", "")}
        context = {
            "s": state,
            "links": site.links(request, row),
            "meta": json.dumps(meta).replace("<", "\\u003c"),
        }
        return site.page(request, "fight.html", context)

    @app.get("/p/{eid}/{token}", response_class=HTMLResponse, include_in_schema=False)
    def players_page(request: Request, row: Players) -> Response:
        state = site.players_state(row)
        return site.page(
            request, "players.html", {"s": state, "api": f"/api/players/{row.id}/{row.player_token}"}
        )


def looks_like_export(raw: bytes) -> bool:
    """Is this JSON with the export's format? (Read strictly later: `tracker.read_json_upload`.)"""
    try:
        return json.loads(raw).get("format") == tracker.EXPORT_FORMAT  # type: ignore[no-any-return]
    except (ValueError, AttributeError, UnicodeDecodeError, RecursionError):
        return False
