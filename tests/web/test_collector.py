"""The cycle collector's full passes while no request waits (referee/web/collector.py, issue 12 item 5)."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.web import collector as collector_module
from referee.web.app import Settings, create_app
from referee.web.collector import (
    LONGEST_WAIT_SECONDS,
    MOST_DEFERRED,
    NEVER,
    QUIET_SECONDS,
    WORTH_A_PASS,
    QuietCollector,
)


def test_a_full_pass_waits_for_a_quiet_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = QuietCollector()
    now = time.monotonic()
    deferred = [WORTH_A_PASS]
    monkeypatch.setattr(gc, "get_count", lambda: (0, 0, deferred[0]))
    quiet.last_answer = now - 2 * QUIET_SECONDS
    assert quiet.due(now)
    quiet.waiting = 1  # a request waits: not now
    assert not quiet.due(now)
    quiet.waiting = 0
    quiet.last_answer = now  # one was answered a moment ago: not yet
    assert not quiet.due(now)
    assert quiet.due(now + QUIET_SECONDS)
    deferred[0] = WORTH_A_PASS - 1  # hardly anything to collect: not even when quiet
    assert not quiet.due(now + QUIET_SECONDS)
    quiet.waiting = 5  # never quiet: it runs all the same after a while, or after very many
    deferred[0] = WORTH_A_PASS
    assert not quiet.due(now)
    quiet.last_pass = now - LONGEST_WAIT_SECONDS
    assert quiet.due(now)
    quiet.last_pass = now
    deferred[0] = MOST_DEFERRED
    assert quiet.due(now)


def test_the_served_app_runs_the_full_passes_and_gives_cpython_its_own_back(tmp_path: Path) -> None:
    before = gc.get_threshold()
    app = create_app(Settings(db=tmp_path / "t.sqlite3", collect_when_quiet=True))
    collector = app.state.collector
    with TestClient(app) as client:
        assert gc.get_threshold() == (before[0], before[1], NEVER)  # CPython starts no full pass itself
        assert client.get("/static/style.css").status_code == 200
        assert collector.waiting == 0  # answered
        for _ in range(WORTH_A_PASS):
            gc.collect(1)
        deadline = time.monotonic() + 10
        while collector.full_passes == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert collector.full_passes >= 1 and gc.get_count()[2] < WORTH_A_PASS
    assert gc.get_threshold() == before
    assert collector_module._deferred_by == 0


def test_only_a_server_defers_the_full_passes(tmp_path: Path) -> None:
    before = gc.get_threshold()
    app = create_app(Settings(db=tmp_path / "t.sqlite3"))
    with TestClient(app) as client:
        assert client.get("/static/style.css").status_code == 200
        assert gc.get_threshold() == before
    assert not hasattr(app.state, "collector")
