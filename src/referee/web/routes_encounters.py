"""The JSON API of the encounters: list, create, import, read, rename, delete, the log and the export (the
twins of the start page and of the referee's page, :mod:`.routes_pages`)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from referee.web import tracker, views
from referee.web.access import REFEREE, Encounter
from referee.web.answers import JSONAnswer
from referee.web.bodies import CreateBody, RenameBody
from referee.web.site import Site


def add_encounter_routes(app: FastAPI, site: Site) -> None:
    store = site.store

    @app.get("/api/encounters", tags=["encounters"], dependencies=REFEREE)
    def api_list(request: Request) -> list[dict[str, Any]]:
        """Every encounter, newest change first (the twin of the page `/`)."""
        return [site.summary(request, r) for r in store.encounters()]

    @app.get("/api/examples", tags=["encounters"], dependencies=REFEREE)
    def api_examples() -> list[str]:
        """The encounter files in the examples folder (empty when the package was installed without it)."""
        return tracker.list_examples(site.examples)

    @app.post("/api/encounters", tags=["encounters"], status_code=201, dependencies=REFEREE)
    def api_create(request: Request, body: CreateBody) -> dict[str, Any]:
        """Create an encounter from JSON data, a file's text (YAML/JSON) or an example's name."""
        return site.summary(request, site.create_from(body))

    @app.post("/api/encounters/import", tags=["encounters"], status_code=201, dependencies=REFEREE)
    async def api_import(request: Request) -> dict[str, Any]:
        """Create an encounter from an export (setup + event log)."""
        data = tracker.read_json_upload(await request.body(), "import")
        return site.summary(request, tracker.import_export(store, data, site.check_shows))

    @app.get("/api/encounters/{eid}", tags=["fight"])
    def api_state(row: Encounter) -> JSONAnswer:
        """The whole fight as the referee sees it (the twin of the page `/e/{id}`)."""
        return JSONAnswer(site.fight_state(row))

    @app.get("/api/encounters/{eid}/version", tags=["fight"])
    def api_version(row: Encounter) -> dict[str, int]:
        """A cheap poll: `version` (the number of events) and `revision` (moves on with every change and never
        goes back: the pair to send with the next change)."""
        return {"version": row.version, "revision": row.revision}

    @app.patch("/api/encounters/{eid}", tags=["encounters"])
    def api_rename(request: Request, row: Encounter, body: RenameBody) -> dict[str, Any]:
        """Rename an encounter (last one wins). It moves the `revision` on like any change, so a page opened
        before it is told to reload and its next change is refused with 409."""
        return site.summary(request, store.rename(row.id, body.name))

    @app.delete("/api/encounters/{eid}", tags=["encounters"], dependencies=REFEREE)
    def api_delete(eid: str) -> dict[str, Any]:
        store.delete(eid)
        site.folds.drop(eid)
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
