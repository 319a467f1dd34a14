"""Server-sent events: the referee's page and the players' page follow the fight without reloading, and the
players' JSON twin (which tells them nothing a player's character could not see: :func:`views.player_view`)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from referee.errors import StoreError
from referee.web.access import Encounter, Players
from referee.web.site import Site

STREAM_SECONDS = 60  # a stream ends after this long (the browser reconnects), so none outlives its page
STREAM_TICK = 0.5


def add_stream_routes(app: FastAPI, site: Site) -> None:
    store = site.store

    @app.get("/api/encounters/{eid}/stream", tags=["fight"])
    async def api_stream(request: Request, row: Encounter) -> StreamingResponse:
        """Server-sent events: a `data: {version, revision}` line at once and whenever the fight changes (the
        referee's page follows it without reloading). The stream ends after a minute; browsers reconnect."""

        def now() -> str:
            current = store.get(row.id)
            return json.dumps({"version": current.version, "revision": current.revision})

        return event_stream(request, now)

    @app.get("/api/players/{eid}/{token}/stream", tags=["players"])
    async def api_players_stream(request: Request, row: Players) -> StreamingResponse:
        """Server-sent events for the players' page: `data: {revision}` (the digest of what they see) at once
        and whenever their view changes; nothing else about the fight."""
        cache: dict[int, str] = {}

        def now() -> str:
            current = store.get(row.id)
            if current.revision not in cache:  # the players' digest needs a fold: only when the fight moved
                cache.clear()
                cache[current.revision] = json.dumps({"revision": site.players_state(current)["revision"]})
            return cache[current.revision]

        return event_stream(request, now)

    @app.get("/api/players/{eid}/{token}", tags=["players"])
    def api_players(row: Players) -> dict[str, Any]:
        """The players' view (read-only; no monster hit points, no AC, no hidden combatants)."""
        return site.players_state(row)


def event_stream(request: Request, read: Callable[[], str]) -> StreamingResponse:
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
