"""Fixtures for the tracker: the app in-process (TestClient), a live server in a thread, a headless Chromium."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from conftest import EXAMPLES, angthar_data  # tests/conftest.py (tests/ is on sys.path)
from referee.web.app import Settings, create_app

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


@dataclass
class Tracker:
    """The app, a client and the referee's credential."""

    app: FastAPI
    client: TestClient
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def create(self, data: dict[str, Any] | None = None) -> str:
        response = self.client.post(
            "/api/encounters", json={"data": data or angthar_data()}, headers=self.auth
        )
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def state(self, eid: str) -> dict[str, Any]:
        response = self.client.get(f"/api/encounters/{eid}", headers=self.auth)
        assert response.status_code == 200, response.text
        return dict(response.json())

    def step(self, eid: str, step: str, dice: str | list[int | None] = "", **extra: Any) -> dict[str, Any]:
        body = {"step": step, "version": self.state(eid)["version"], "dice": dice, **extra}
        response = self.client.post(f"/api/encounters/{eid}/steps", json=body, headers=self.auth)
        assert response.status_code == 200, response.text
        return dict(response.json())


@pytest.fixture
def tracker(tmp_path: Path) -> Iterator[Tracker]:
    app = create_app(Settings(db=tmp_path / "tracker.sqlite3", examples=EXAMPLES))
    with TestClient(app) as client:
        yield Tracker(app, client, app.state.store.admin_token())


@dataclass
class LiveServer:
    url: str
    token: str
    db: Path


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """uvicorn in a thread on 127.0.0.1 (port 0: no free-port race), a fresh SQLite file per test."""
    db = tmp_path / "tracker.sqlite3"
    app = create_app(Settings(db=db, examples=EXAMPLES))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the tracker did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app.state.store.admin_token(), db)
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless system Chromium per session; skipped without Chromium unless CI is set."""
    if not os.path.exists(CHROMIUM):
        message = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import expect, sync_playwright

    # as the contexts' own timeouts: a loaded CI machine (2 cores, the whole suite on both) may take more
    # than the default 5 s to push a change to a second page, which is no fault of the page
    expect.set_options(timeout=10_000)
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def sized(browser: Any, size: dict[str, int]) -> Iterator[Any]:
    """A browser context at the viewport `size` the test is parametrized with (one per test, so two of its
    pages share a session)."""
    context = browser.new_context(viewport=size, device_scale_factor=1)
    context.set_default_timeout(10_000)
    yield context
    context.close()
