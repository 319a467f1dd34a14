"""The referee's tracker: a FastAPI app over the engine and the event store.

Pages for the referee (encounters, the fight) and for the players (read-only), each with a JSON twin under
``/api``. Who may do what is :mod:`referee.web.access` (credentials, browser sessions, CSRF tokens); what every
request passes first is :mod:`referee.web.guard` (size, origin, content type, strict JSON); the players' link
carries only the encounter's player token and opens only the players' view.

The routes live by concern: :mod:`.routes_pages` (HTML pages), :mod:`.routes_encounters` (the encounters'
JSON API), :mod:`.routes_steps` (steps, table actions, the engine's turn, undo, redo, odds) and
:mod:`.streams` (server-sent events and the players' JSON view), all over one :class:`.site.Site`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from referee.errors import EncounterFileError, StoreError
from referee.web import problems, tracker
from referee.web.access import LoginLimit
from referee.web.collector import CountWaiting, QuietCollector
from referee.web.guard import MAX_BODY_BYTES, RequestGuard
from referee.web.routes_encounters import add_encounter_routes
from referee.web.routes_pages import add_page_routes
from referee.web.routes_steps import add_step_routes
from referee.web.site import HERE, Site
from referee.web.store import Store
from referee.web.streams import add_stream_routes

__all__ = ["MAX_BODY_BYTES", "Settings", "create_app"]


class Settings(BaseModel):
    """How the tracker runs (``referee serve`` fills it in; tests pass their own)."""

    db: Path
    password: str | None = None
    examples: Path | None = None
    # full passes of the cycle collector only while no request waits (referee/web/collector.py): for a
    # server process (`referee serve`), not for tests that make many apps in theirs
    collect_when_quiet: bool = False


def create_app(settings: Settings | None = None) -> FastAPI:
    """The tracker app. Without settings, reads REFEREE_DB / REFEREE_PASSWORD / REFEREE_EXAMPLES."""
    if settings is None:
        settings = Settings(
            db=Path(os.environ.get("REFEREE_DB", "referee.sqlite3")),
            password=os.environ.get("REFEREE_PASSWORD") or None,
            examples=Path(os.environ["REFEREE_EXAMPLES"]) if os.environ.get("REFEREE_EXAMPLES") else None,
            collect_when_quiet=True,  # `uvicorn referee.web.app:app_from_env --factory`: a server process
        )
    store = Store(settings.db)
    site = Site(store, tracker.find_examples(settings.examples))
    collector = QuietCollector() if settings.collect_when_quiet else None
    app = FastAPI(
        title="referee tracker",
        description="The referee's tracker: encounters, fights, dice, undo, and a read-only players' view.",
        version="1",
        lifespan=_lifespan(store, collector),
    )
    app.state.store = store
    app.state.settings = settings
    app.state.site = site
    app.state.login_limit = LoginLimit()
    app.add_middleware(RequestGuard)
    if collector is not None:
        app.state.collector = collector
        app.add_middleware(CountWaiting, collector=collector)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    problems.install(app)
    # in this order, as before the split: pages, the encounters' API, the changes, the streams
    add_page_routes(app, site, settings.password)
    add_encounter_routes(app, site)
    add_step_routes(app, site)
    add_stream_routes(app, site)
    return app


def _lifespan(
    store: Store, collector: QuietCollector | None
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """While the app is served: the collector's full passes (if any); when it stops, the store's checkpoints'
    thread ends (after the checkpoint already asked for)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            if collector is None:
                yield
            else:
                async with collector.lifespan(app):
                    yield
        finally:
            await anyio.to_thread.run_sync(store.stop_checkpoints)

    return lifespan


def app_from_env() -> FastAPI:
    """For `uvicorn referee.web.app:app_from_env --factory`."""
    try:
        return create_app()
    except (EncounterFileError, StoreError) as exc:  # pragma: no cover - a start-up message
        raise SystemExit(f"error: {exc}") from None
