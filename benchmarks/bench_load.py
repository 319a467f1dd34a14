"""Load benchmark of the tracker: many concurrent clients on loopback, several on the same encounter.

    .venv/bin/python benchmarks/bench_load.py                      # 32 clients, 8 encounters, 15 s
    .venv/bin/python benchmarks/bench_load.py --clients 64 --encounters 4 --seconds 30

It starts `referee serve` on a fresh SQLite file, creates the encounters, and lets every client play its
encounter step by step (begin, rounds, attacks, round ends) as fast as it can for the given time. Clients
on the same encounter race: each step names the version it was made on, and the loser of a race gets
409 and retries from the new version. At the end it checks, for every encounter, that the acknowledged
steps tile its stored log exactly (no event lost, none duplicated), that the log has no gap and replays,
and that no request got a 5xx. It prints throughput and latency percentiles (results are recorded in
benchmarks/README.md) and exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from referee.web.store import Store

REFEREE = Path(sys.executable).parent / "referee"
ENCOUNTER: dict[str, Any] = {
    "name": "load",
    "max_rounds": 1000,
    "sides": [
        {"name": "A", "combatants": [{"name": "Ann", "hp": 10000, "weapons": ["long sword"]}]},
        {"name": "B", "combatants": [{"name": "Orc", "count": 2, "hp": 10000, "weapons": ["spear"]}]},
    ],
}


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)  # seconds, every request
    statuses: dict[int, int] = field(default_factory=dict)
    acknowledged: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # eid -> (before, after)

    def count(self, status: int, seconds: float) -> None:
        self.latencies.append(seconds)
        self.statuses[status] = self.statuses.get(status, 0) + 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [str(REFEREE), "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/static/style.css", timeout=1)
            return process
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("referee serve did not start")


def next_body(state: dict[str, Any], seq: int) -> dict[str, Any] | None:
    needs = state["needs"]
    if needs == "over":
        return None
    body: dict[str, Any] = {"version": state["version"], "seed": seq, "dice": ""}
    if needs == "action":
        actor = state["current"]
        target = "Orc 1" if actor == "Ann" else "Ann"
        body |= {"step": "action", "action": {"kind": "attack", "actor": actor, "target": target}}
    else:
        body["step"] = needs
    return body


async def timed(tally: Tally, call: Any) -> httpx.Response:
    started = time.perf_counter()
    response: httpx.Response = await call
    tally.count(response.status_code, time.perf_counter() - started)
    return response


async def client_loop(
    base: str, auth: dict[str, str], eid: str, until: float, tally: Tally, seed: int
) -> None:
    seq = seed * 1_000_000
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=60) as client:
        state = (await timed(tally, client.get(f"/api/encounters/{eid}"))).json()
        while time.monotonic() < until:
            seq += 1
            body = next_body(state, seq)
            if body is None:
                return
            response = await timed(tally, client.post(f"/api/encounters/{eid}/steps", json=body))
            if response.status_code == 200:
                new = response.json()
                tally.acknowledged.setdefault(eid, []).append((body["version"], new["version"]))
                state = new
            elif response.status_code in {409, 422}:
                if response.status_code == 422 and os.environ.get("BENCH_DEBUG"):
                    print(response.text, body, file=sys.stderr)
                # another client moved the fight on (409), or the step no longer fits it (422): reload
                state = (await timed(tally, client.get(f"/api/encounters/{eid}"))).json()
            else:
                raise SystemExit(f"unexpected {response.status_code}: {response.text}")


def check_logs(db: Path, tally: Tally, eids: list[str]) -> list[str]:
    problems: list[str] = []
    with sqlite3.connect(db) as con:
        if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            problems.append("integrity_check failed")
        for eid in eids:
            seqs = [
                r[0] for r in con.execute("SELECT seq FROM events WHERE encounter=? ORDER BY seq", (eid,))
            ]
            if seqs != list(range(len(seqs))):
                problems.append(f"{eid}: the stored log has a gap or a duplicate")
            spans = sorted(tally.acknowledged.get(eid, []))
            position = 0
            for before, after in spans:
                if before != position:
                    problems.append(f"{eid}: acknowledged step starts at {before}, log was at {position}")
                position = after
            if position != len(seqs):
                problems.append(
                    f"{eid}: acknowledged steps end at {position}, the stored log has {len(seqs)}"
                )
    return problems


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


async def run(clients: int, encounters: int, seconds: float, db: Path, port: int) -> int:
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {Store(db).admin_token()}"}
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=60) as setup:
        eids = []
        for _ in range(encounters):
            created = await setup.post("/api/encounters", json={"data": ENCOUNTER})
            created.raise_for_status()
            eids.append(created.json()["id"])
    tally = Tally()
    started = time.monotonic()
    until = started + seconds
    await asyncio.gather(
        *(client_loop(base, auth, eids[i % encounters], until, tally, i + 1) for i in range(clients))
    )
    elapsed = time.monotonic() - started
    problems = check_logs(db, tally, eids)
    five_xx = sum(n for status, n in tally.statuses.items() if status >= 500)
    if five_xx:
        problems.append(f"{five_xx} responses were 5xx")
    steps = sum(len(v) for v in tally.acknowledged.values())
    ms = [1000 * s for s in tally.latencies]
    report = {
        "clients": clients,
        "encounters": encounters,
        "clients_per_encounter": clients / encounters,
        "seconds": round(elapsed, 1),
        "requests": len(ms),
        "requests_per_second": round(len(ms) / elapsed, 1),
        "steps_acknowledged": steps,
        "steps_per_second": round(steps / elapsed, 1),
        "statuses": dict(sorted(tally.statuses.items())),
        "latency_ms": {
            "p50": round(percentile(ms, 50), 1),
            "p90": round(percentile(ms, 90), 1),
            "p99": round(percentile(ms, 99), 1),
            "max": round(max(ms, default=0.0), 1),
            "mean": round(statistics.fmean(ms), 1) if ms else 0.0,
        },
        "problems": problems,
    }
    print(json.dumps(report, indent=2))
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--encounters", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    if not (1 <= args.encounters <= args.clients <= 1000 and 0 < args.seconds <= 600):
        raise SystemExit("need 1 <= encounters <= clients <= 1000 and 0 < seconds <= 600")
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.sqlite3"
        Store(db)
        port = free_port()
        server = start_server(db, port)
        try:
            code = asyncio.run(run(args.clients, args.encounters, args.seconds, db, port))
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait(30)
    raise SystemExit(code)


if __name__ == "__main__":
    main()
