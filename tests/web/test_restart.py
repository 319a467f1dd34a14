"""Crash safety: the tracker as a real server process, SIGKILLed mid-fight and restarted on the same file."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from conftest import EXAMPLES, angthar_data
from referee.web.store import Store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(db: Path, port: int) -> subprocess.Popen[bytes]:
    # `referee serve` exactly as installed (the console script's entry point)
    command = [sys.executable, "-c", "from referee.cli import main; main()", "serve", "--db", str(db)]
    log = (db.parent / "server.log").open("ab")
    proc = subprocess.Popen(
        [*command, "--port", str(port), "--examples", str(EXAMPLES)], stdout=log, stderr=subprocess.STDOUT
    )
    log.close()  # the child has its own copy
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited early: {(db.parent / 'server.log').read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/login", timeout=1, trust_env=False).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("the server did not come up in 30 s")
        time.sleep(0.05)


def test_sigkill_mid_fight_then_restart_shows_the_same_fight(tmp_path: Path) -> None:
    # rule: ODD-INIT-1, ODD-ATK-1 (TV-000-01, TV-000-04 played before the crash)
    db = tmp_path / "tracker.sqlite3"
    auth = {"Authorization": f"Bearer {Store(db).admin_token()}"}
    port = free_port()
    proc = start(db, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, trust_env=False) as client:
            eid = client.post("/api/encounters", json={"data": angthar_data()}).json()["id"]

            def step(body: dict[str, Any]) -> dict[str, Any]:
                version = client.get(f"/api/encounters/{eid}").json()["version"]
                response = client.post(f"/api/encounters/{eid}/steps", json={"version": version, **body})
                assert response.status_code == 200, response.text
                return dict(response.json())

            step({"step": "begin"})
            step({"step": "round", "dice": "7, 4"})
            attack = {"kind": "attack", "actor": "Angthar", "target": "Goblin"}
            before = step({"step": "action", "action": attack, "dice": "12, 1"})
        os.kill(proc.pid, signal.SIGKILL)  # no shutdown, no flush: as if the laptop died
        proc.wait(10)
        proc = start(db, port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, trust_env=False) as client:
            after = client.get(f"/api/encounters/{eid}").json()
            assert after["version"] == before["version"] == len(after["events"])
            for key in ("combatants", "order", "current", "needs", "round", "events"):
                assert after[key] == before[key], key
            goblin = next(c for c in after["combatants"] if c["name"] == "Goblin")
            assert goblin["hp"] == 2 and after["current"] == "Goblin"
            response = client.post(
                f"/api/encounters/{eid}/actions",
                json={"version": after["version"], "action": {"kind": "wait", "actor": "Goblin"}},
            )
            assert response.status_code == 200 and response.json()["needs"] == "end_round"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
