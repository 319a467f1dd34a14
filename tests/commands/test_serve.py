"""`referee serve`: prints the referee's link with its token and the players' links, then runs the app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.commands import serve
from referee.web.store import Store


@pytest.fixture(autouse=True)
def _no_freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` tunes the process before it runs: not the test process."""
    monkeypatch.setattr(serve, "tune_for_serving", lambda: None)


def test_serve_prints_the_links_and_runs_uvicorn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda web, **kw: calls.append(kw))
    db = tmp_path / "t.sqlite3"
    store = Store(db)
    row = store.create("Duel", {"sides": []})
    result = CliRunner().invoke(app, ["serve", "--db", str(db), "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert f"http://127.0.0.1:8123/?token={store.admin_token()}" in result.output
    assert f"http://127.0.0.1:8123/p/{row.id}/{row.player_token}" in result.output
    assert calls == [{"host": "127.0.0.1", "port": 8123, "log_level": "warning"}]


def test_serve_with_password_mentions_login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda web, **kw: None)
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "t.sqlite3"), "--password", "pw"])
    assert result.exit_code == 0 and "/login" in result.output and "each encounter's page" in result.output


def test_serve_on_every_address_prints_links_that_reach_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from referee.commands import serve

    monkeypatch.setattr(uvicorn, "run", lambda web, **kw: None)
    monkeypatch.setattr(serve, "reachable_address", lambda: "192.168.1.20")
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "t.sqlite3"), "--host", "0.0.0.0"])
    assert result.exit_code == 0, result.output
    assert "http://192.168.1.20:8000/?token=" in result.output and "127.0.0.1" not in result.output


def test_the_process_is_tuned_for_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc
    import sys

    monkeypatch.undo()  # the real one, not the fixture's
    interval = sys.getswitchinterval()
    try:
        serve.tune_for_serving()
        assert gc.get_freeze_count() > 1000  # the modules, the catalog, the app...
        assert sys.getswitchinterval() == pytest.approx(0.001)
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)
    assert gc.get_freeze_count() == 0
