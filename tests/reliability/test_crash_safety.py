"""A tracker killed with SIGKILL in the middle of a fight loses nothing it acknowledged and stores no half step.

`referee serve` runs as a real process on loopback; a client drives a scripted fight (every step with a
fixed seed, so each step's events are known in advance) while the test kills the server at a random
moment, five times. After each restart:

- the SQLite file passes `PRAGMA integrity_check`;
- every event of every acknowledged step (HTTP 200 received) is stored, unchanged;
- anything stored beyond the last acknowledged step is exactly one whole step, the one in flight when
  the server died (its commit happened, its answer was lost) — never a part of one.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.engine.events import Event
from referee.engine.fight import Fight
from referee.files import setup_from_data
from referee.web.store import Store
from referee.web.tracker import TypedDice

REFEREE = Path(sys.executable).parent / "referee"
KILLS = 5
ENCOUNTER: dict[str, Any] = {
    "name": "endless",
    "max_rounds": 1000,
    "sides": [
        {"name": "A", "combatants": [{"name": "Ann", "hp": 10000, "weapons": ["long sword"]}]},
        {"name": "B", "combatants": [{"name": "Bob", "hp": 10000, "weapons": ["mace"]}]},
    ],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    db: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(REFEREE), "serve", "--db", str(self.db), "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"referee serve exited with {self.process.returncode}")
            try:
                httpx.get(f"{self.url}/static/style.css", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("referee serve did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    db = tmp_path / "tracker.sqlite3"
    Store(db)  # creates the schema and the referee's token before the server starts
    srv = Server(db)
    try:
        yield srv
    finally:
        srv.kill()


@dataclass
class Driver:
    """Takes steps one after the other, remembering the version every acknowledged step ended on."""

    url: str
    auth: dict[str, str]
    eid: str
    acknowledged: int = 0
    in_flight: dict[str, Any] | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    seq: int = 0

    def next_body(self, state: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        needs = state["needs"]
        body: dict[str, Any] = {"version": state["version"], "seed": self.seq, "dice": ""}
        if needs == "action":
            actor = state["current"]
            body |= {
                "step": "action",
                "action": {"kind": "attack", "actor": actor, "target": "Bob" if actor == "Ann" else "Ann"},
            }
        else:
            body["step"] = needs
        return body

    def run(self, client: httpx.Client) -> None:
        state = client.get(f"{self.url}/api/encounters/{self.eid}", headers=self.auth).json()
        self.acknowledged = state["version"]
        while not self.stop.is_set() and state["needs"] != "over":
            body = self.next_body(state)
            self.in_flight = body
            response = client.post(
                f"{self.url}/api/encounters/{self.eid}/steps", json=body, headers=self.auth
            )
            assert response.status_code == 200, response.text
            state = response.json()
            self.acknowledged = state["version"]
            self.in_flight = None


def drive_until_killed(server: Server, driver: Driver, delay: float) -> None:
    """Drive the fight in a thread; kill the server after `delay` seconds (mid-request, most likely)."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with httpx.Client(timeout=30) as client:
                driver.run(client)
        except httpx.TransportError:
            pass  # the server died under the request: that step was not acknowledged
        except BaseException as exc:  # an assertion in the driver must fail the test
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    time.sleep(delay)
    server.kill()
    thread.join(30)
    assert not thread.is_alive()
    assert not errors, errors


def stored_events(db: Path, eid: str) -> list[tuple[int, int, dict[str, Any]]]:
    import json

    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = con.execute(
            "SELECT seq, step, event FROM events WHERE encounter=? ORDER BY seq", (eid,)
        ).fetchall()
    assert [seq for seq, _, _ in rows] == list(range(len(rows))), "a gap in the stored log"
    return [(seq, step, json.loads(text)) for seq, step, text in rows]


def expected_step(
    setup_data: dict[str, Any], before: list[dict[str, Any]], body: dict[str, Any]
) -> list[dict[str, Any]]:
    """The events the in-flight step makes (seeded dice): what a committed-but-unanswered step stored."""
    from referee.engine.actions import action_from_dict

    fight = Fight(setup_from_data(setup_data, "crash"), [Event.from_dict(e) for e in before])
    dice = TypedDice([], body["seed"])
    step = body["step"]
    action = action_from_dict(body["action"]) if step == "action" else None
    events = fight.take(step, dice, action)
    return [e.to_dict() for e in events]


def test_sigkill_never_loses_an_acknowledged_step_nor_stores_half_a_step(server: Server) -> None:
    rng = random.Random(20261130)
    server.start()
    token = Store(server.db).admin_token()
    auth = {"Authorization": f"Bearer {token}"}
    created = httpx.post(f"{server.url}/api/encounters", json={"data": ENCOUNTER}, headers=auth, timeout=30)
    assert created.status_code == 201, created.text
    eid = created.json()["id"]
    setup_data = Store(server.db).get(eid).setup
    acknowledged_log: list[dict[str, Any]] = []
    for _ in range(KILLS):
        driver = Driver(server.url, auth, eid)
        drive_until_killed(server, driver, delay=rng.uniform(0.2, 1.2))
        stored = stored_events(server.db, eid)
        events = [e for _, _, e in stored]
        # every acknowledged event is there, unchanged (the log only grows in this script)
        assert len(events) >= driver.acknowledged, "an acknowledged step was lost"
        assert events[: len(acknowledged_log)] == acknowledged_log
        # beyond the acknowledged version: nothing, or exactly the whole step that was in flight
        extra = events[driver.acknowledged :]
        if extra:
            assert driver.in_flight is not None
            assert extra == expected_step(setup_data, events[: driver.acknowledged], driver.in_flight), (
                "half a step"
            )
            assert {step for _, step, _ in stored[driver.acknowledged :]} == {driver.acknowledged}
        acknowledged_log = events
        server.start()  # restart on the same file: it opens, and the fight goes on from the stored log
        state = httpx.get(f"{server.url}/api/encounters/{eid}", headers=auth, timeout=30).json()
        assert state["version"] == len(events)
    assert len(acknowledged_log) > 10, "the kills came before any step was taken"
