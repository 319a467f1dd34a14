"""Load benchmark of the tracker: many concurrent clients on loopback, several on the same encounter.

    .venv/bin/python benchmarks/bench_load.py                      # 32 clients, 8 encounters, 15 s
    .venv/bin/python benchmarks/bench_load.py --clients 64 --encounters 4 --seconds 30
    .venv/bin/python benchmarks/bench_load.py --clients 8 --encounters 8 --seconds 10 --against HEAD --rounds 3
    .venv/bin/python benchmarks/bench_load.py --in-process 500 --against HEAD --rounds 3
    .venv/bin/python benchmarks/bench_load.py --writers 8 --against-src ../main/src --rounds 2
    .venv/bin/python benchmarks/bench_load.py --clients 8 --encounters 8 --seconds 10 --against-src ../main/src --rounds 3

It starts `referee serve` on a fresh SQLite file, creates the encounters, and lets every client play its
encounter step by step (begin, rounds, attacks, round ends) as fast as it can for the given time. Clients
on the same encounter race: each step names the version it was made on, and the loser of a race gets
409 and retries from the new version. At the end it checks, for every encounter, that the acknowledged
steps tile its stored log exactly (no event lost, none duplicated), that the log has no gap and replays,
and that no request got a 5xx. It prints throughput, latency percentiles and the CPU time the server and
the clients spent per request (results are recorded in benchmarks/README.md) and exits 1 if a check failed.
Each client is one keep-alive connection writing the requests httpx would write (request line, headers, JSON
body) and parsing every answer with orjson; `--httpx` gives each an httpx client instead, as measured before
2026-12-02 (those took about as much CPU per request as the server, on the same cores).

`--against REF` measures an older tracker in the same run: a copy of today's `src/` whose `referee/web/`
(and `commands/serve.py`) are those of the git commit REF (`git archive`, nothing in the work tree changes),
run through `PYTHONPATH`, taking turns with today's code `--rounds` times, so that a shared machine's load
falls on both alike; it ends with one table row per run. `--against-src DIR` does the same with a whole
other source tree (another checkout's `src/`, e.g. the main branch's), put first on `PYTHONPATH` as it is.

`--in-process N` measures the tracker's own time per step instead: no server, no sockets, no clients, the
ASGI app called directly in a fresh process for 100 warm-up steps then N timed ones, each step's wall time
(the route, the fold, the write and its fsync, the answer's JSON) and the process's CPU time per step.

`--writers N` measures the store alone: N threads appending steps to their own encounters at once (the write
lock and each commit's fsync, what group commit shares), appends per second, CPU and latency per append.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from referee.web.store import Store

REFEREE = Path(sys.executable).parent / "referee"
REPO = Path(__file__).resolve().parents[1]
# what `--against` takes from the older commit: the tracker itself and the command that serves it
TRACKER_PATHS = ("src/referee/web", "src/referee/commands/serve.py")
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
    sent: list[float] = field(default_factory=list)  # when each was sent (time.time)
    statuses: dict[int, int] = field(default_factory=dict)
    acknowledged: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # eid -> (before, after)

    def count(self, status: int, seconds: float, sent: float) -> None:
        self.latencies.append(seconds)
        self.sent.append(sent)
        self.statuses[status] = self.statuses.get(status, 0) + 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int, src: Path | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    process = subprocess.Popen(
        [str(REFEREE), "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
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


class RawClient:
    """One keep-alive HTTP/1.1 connection to the server, writing the requests httpx writes (the same request
    line, headers and JSON body) and reading the status and body: the clients share the server's two cores,
    and httpx's per-request objects cost each client about as much CPU as the server spent on the request."""

    def __init__(self, host: str, port: int, auth: dict[str, str]) -> None:
        self.host, self.port = host, port
        headers = {
            "Host": f"{host}:{port}", "Accept": "*/*", "Accept-Encoding": "gzip, deflate",
            "Connection": "keep-alive", "User-Agent": "bench_load", **auth,
        }  # fmt: skip
        self.headers = "".join(f"{k}: {v}\r\n" for k, v in headers.items()).encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
            self.reader = self.writer = None

    async def get(self, path: str) -> tuple[int, bytes]:
        return await self.request(f"GET {path} HTTP/1.1\r\n".encode() + self.headers + b"\r\n")

    async def post(self, path: str, body: Any) -> tuple[int, bytes]:
        payload = orjson.dumps(body)  # httpx's `json=`: compact, the same bytes for these bodies
        head = f"POST {path} HTTP/1.1\r\n".encode() + self.headers
        sized = f"Content-Length: {len(payload)}\r\nContent-Type: application/json\r\n\r\n".encode()
        return await self.request(head + sized + payload)

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        self.writer.write(raw)
        head = (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        status = int(head[0].split(b" ", 2)[1])
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip().lower()
        if fields.get(b"content-encoding", b"identity") != b"identity":
            raise SystemExit(f"the server compressed an answer ({fields[b'content-encoding'].decode()})")
        if fields.get(b"transfer-encoding") == b"chunked":
            content = await self._chunks()
        else:
            content = await self.reader.readexactly(int(fields.get(b"content-length", b"0")))
        if fields.get(b"connection") == b"close":
            await self.close()
        return status, content

    async def _chunks(self) -> bytes:
        assert self.reader is not None
        parts = []
        while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
        await self.reader.readuntil(b"\r\n")  # the last chunk's empty trailer
        return b"".join(parts)


class HttpxClient:
    """The clients as measured before (`--httpx`): an httpx.AsyncClient each."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def get(self, path: str) -> tuple[int, bytes]:
        response = await self.client.get(path)
        return response.status_code, response.content

    async def post(self, path: str, body: Any) -> tuple[int, bytes]:
        response = await self.client.post(path, json=body)
        return response.status_code, response.content


Client = RawClient | HttpxClient


async def timed(tally: Tally, call: Any) -> tuple[int, bytes]:
    sent, started = time.time(), time.perf_counter()
    status, content = await call
    tally.count(status, time.perf_counter() - started, sent)
    return status, content


def answer(content: bytes) -> Any:
    """The answer's JSON, parsed by orjson: the clients share the server's two cores, and json.loads of a
    33 KB state was about a quarter of a client's CPU per request (orjson: less than half of that)."""
    return orjson.loads(content)


async def client_loop(client: Client, eid: str, until: float, tally: Tally, seed: int) -> None:
    seq = seed * 1_000_000
    state = answer((await timed(tally, client.get(f"/api/encounters/{eid}")))[1])
    while time.monotonic() < until:
        seq += 1
        body = next_body(state, seq)
        if body is None:
            return
        status, content = await timed(tally, client.post(f"/api/encounters/{eid}/steps", body))
        if status == 200:
            new = answer(content)
            tally.acknowledged.setdefault(eid, []).append((body["version"], new["version"]))
            state = new
        elif status in {409, 422}:
            if status == 422 and os.environ.get("BENCH_DEBUG"):
                print(content.decode(), body, file=sys.stderr)
            # another client moved the fight on (409), or the step no longer fits it (422): reload
            state = answer((await timed(tally, client.get(f"/api/encounters/{eid}")))[1])
        else:
            raise SystemExit(f"unexpected {status}: {content.decode(errors='replace')}")


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


def process_times(pid: int) -> tuple[float, float] | None:
    """User and system CPU seconds of a process so far, apart (Linux's /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def old_tracker(ref: str, folder: Path) -> Path:
    """A copy of today's src/ with the tracker of commit `ref` (read with `git archive`; the work tree and
    the index are not touched). Returns the copy's src folder, for PYTHONPATH."""
    src = folder / "src"
    shutil.copytree(REPO / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.rmtree(src / "referee" / "web")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, *TRACKER_PATHS], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"--against {ref}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    pyproject = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{ref}:pyproject.toml"], capture_output=True, text=True, check=True
    ).stdout
    if "uvicorn[standard]" not in pyproject:  # installed then without uvicorn's C parser and event loop
        for module in ("uvloop", "httptools"):
            (src / module).mkdir()
            (src / module / "__init__.py").write_text(
                f"raise ImportError('{module}: not installed at {ref}')\n"
            )
    return src


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


async def run(
    clients: int, encounters: int, seconds: float, db: Path, port: int, server: int, use_httpx: bool = False
) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {Store(db).admin_token()}"}
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=60) as setup:
        eids = []
        for _ in range(encounters):
            created = await setup.post("/api/encounters", json={"data": ENCOUNTER})
            created.raise_for_status()
            eids.append(created.json()["id"])
    tally = Tally()
    async with contextlib.AsyncExitStack() as stack:
        # every client made (and connected) before the clock starts: making one (httpx: its SSL context, ~15 ms
        # of CPU) while the others' first requests were in flight was counted in their latency
        made: list[Client] = []
        for _ in range(clients):
            if use_httpx:
                made.append(
                    HttpxClient(
                        await stack.enter_async_context(
                            httpx.AsyncClient(base_url=base, headers=auth, timeout=60)
                        )
                    )
                )
            else:
                raw = RawClient("127.0.0.1", port, auth)
                await raw.open()
                stack.push_async_callback(raw.close)
                made.append(raw)
        server_before, client_before = process_times(server), time.process_time()
        started = time.monotonic()
        until = started + seconds
        await asyncio.gather(
            *(client_loop(made[i], eids[i % encounters], until, tally, i + 1) for i in range(clients))
        )
        elapsed = time.monotonic() - started
        server_after, client_after = process_times(server), time.process_time()
    problems = check_logs(db, tally, eids)
    if os.environ.get(
        "BENCH_LATENCIES"
    ):  # every request's send time and latency, for a look at the slow ones
        with open(os.environ["BENCH_LATENCIES"], "a") as out:
            out.write(json.dumps({"sent": tally.sent, "latency": tally.latencies}) + "\n")
    five_xx = sum(n for status, n in tally.statuses.items() if status >= 500)
    if five_xx:
        problems.append(f"{five_xx} responses were 5xx")
    steps = sum(len(v) for v in tally.acknowledged.values())
    ms = [1000 * s for s in tally.latencies]
    user, system = (
        (None, None)
        if server_before is None or server_after is None
        else (server_after[0] - server_before[0], server_after[1] - server_before[1])
    )
    served = None if user is None or system is None else user + system
    report: dict[str, Any] = {
        "clients": clients,
        "client": "httpx" if use_httpx else "raw HTTP/1.1",
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
        # CPU time per request (what waiting for a busy machine does not inflate): the server process's,
        # and the benchmark's own clients' (one process, asyncio)
        "cpu_ms_per_request": {
            "server": round(1000 * served / len(ms), 2) if served is not None and ms else None,
            "server_system": round(1000 * system / len(ms), 2) if system is not None and ms else None,
            "clients": round(1000 * (client_after - client_before) / len(ms), 2) if ms else None,
        },
        # the server's CPU per acknowledged step (its reloads and refused races included)
        "server_cpu_ms_per_step": round(1000 * served / steps, 2) if served is not None and steps else None,
        "problems": problems,
    }
    return report


def one_run(args: argparse.Namespace, src: Path | None) -> dict[str, Any]:
    """One benchmark on a fresh database and server (`src`: the older tracker's copy, or None for today's)."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.sqlite3"
        Store(db)
        port = free_port()
        server = start_server(db, port, src)
        try:
            load = os.getloadavg()
            started = time.strftime("%H:%M:%S", time.gmtime())
            report = asyncio.run(
                run(args.clients, args.encounters, args.seconds, db, port, server.pid, args.httpx)
            )
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait(30)
    return {"started": started, "load": [round(x, 2) for x in load], **report}


def table_row(tracker: str, r: dict[str, Any]) -> str:
    lat, cpu = r["latency_ms"], r["cpu_ms_per_request"]
    load = ", ".join(f"{x:.2f}" for x in r["load"])
    cells = [
        tracker, r["started"], load, r["requests_per_second"], r["statuses"].get(200, 0),
        *(f"{lat[k]} ms" for k in ("p50", "p90", "p99", "max")),
        f"{cpu['server']} ms" if cpu["server"] is not None else "-",
        f"{cpu['clients']} ms", "; ".join(r["problems"]) or "none",
    ]  # fmt: skip
    return "| " + " | ".join(str(c) for c in cells) + " |"


async def asgi_call(app: Any, method: str, path: str, token: str, body: Any = None) -> tuple[int, bytes]:
    """One request straight into the ASGI app (what uvicorn would hand it), its status and body."""
    raw = b"" if body is None else json.dumps(body).encode()
    headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {token}".encode())]
    if body is not None:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": headers, "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return int(sent[0]["status"]), b"".join(m.get("body", b"") for m in sent[1:])


async def steps_in_process(steps: int, warm: int) -> dict[str, Any]:
    from referee.web.app import Settings, create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(db=Path(folder) / "steps.sqlite3"))
        token = app.state.store.admin_token()
        status, raw = await asgi_call(app, "POST", "/api/encounters", token, {"data": ENCOUNTER})
        eid = json.loads(raw)["id"]
        state = json.loads((await asgi_call(app, "GET", f"/api/encounters/{eid}", token))[1])
        walls: list[float] = []
        cpu = 0.0
        for seq in range(1, warm + steps + 1):
            body = next_body(state, seq)
            if body is None:
                raise SystemExit("the fight ended: give fewer steps")
            started, started_cpu = time.perf_counter(), time.process_time()
            status, raw = await asgi_call(app, "POST", f"/api/encounters/{eid}/steps", token, body)
            if seq > warm:
                walls.append(1000 * (time.perf_counter() - started))
                cpu += 1000 * (time.process_time() - started_cpu)
            if status != 200:
                raise SystemExit(f"step {seq}: {status} {raw[:200]!r}")
            state = json.loads(raw)  # the client's part: not timed
    return {
        "steps": steps,
        "events": state["version"],
        "answer_bytes": len(raw),
        "cpu_ms_per_step": round(cpu / steps, 2),
        "wall_ms": {k: round(percentile(walls, p), 2) for k, p in (("p50", 50), ("p90", 90), ("p99", 99))},
    }


def writers_in_process(writers: int, appends: int) -> dict[str, Any]:
    """`writers` threads appending `appends` two-event steps each to their own encounters of one store at once
    (the store alone: what its write lock and each commit's fsync cost when steps come together)."""
    from referee.engine.events import Event

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "writers.sqlite3")
        eids = [store.create(f"writer {i}", {"sides": []}).id for i in range(writers)]
        event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}, "note": "x" * 300}})
        latencies: list[float] = []

        def writer(i: int) -> None:
            for v in range(appends):
                started = time.perf_counter()
                store.append(eids[i], 2 * v, [event, event])
                latencies.append(1000 * (time.perf_counter() - started))

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
        wall, cpu = time.perf_counter(), time.process_time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        stored = [[s.seq for s in store.events(e)] for e in eids]
    if any(seqs != list(range(2 * appends)) for seqs in stored):
        raise SystemExit("a log has a gap or a duplicate")
    count = writers * appends
    return {
        "writers": writers,
        "appends": count,
        "appends_per_second": round(count / wall),
        "cpu_ms_per_append": round(1000 * cpu / count, 3),
        "latency_ms": {
            k: round(percentile(latencies, p), 2) for k, p in (("p50", 50), ("p90", 90), ("p99", 99))
        },
    }


def in_process_run(steps: int, src: Path | None, worker: str | None = None) -> dict[str, Any]:
    """`steps_in_process` (or with `worker`, :func:`writers_in_process` of `steps` writers) in a fresh process
    (`src`: the older tracker's copy on PYTHONPATH)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    load = os.getloadavg()
    started = time.strftime("%H:%M:%S", time.gmtime())
    done = subprocess.run(
        [sys.executable, __file__, worker or STEP_WORKER, str(steps)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"the in-process run failed: {done.stderr.strip()[-2000:]}")
    return {"started": started, "load": [round(x, 2) for x in load], **json.loads(done.stdout)}


def in_process_row(tracker: str, r: dict[str, Any]) -> str:
    load = ", ".join(f"{x:.2f}" for x in r["load"])
    wall = r["wall_ms"]
    cells = [
        tracker, r["started"], load, r["steps"], r["events"], r["answer_bytes"], f"{r['cpu_ms_per_step']} ms",
        *(f"{wall[k]} ms" for k in ("p50", "p90", "p99")),
    ]  # fmt: skip
    return "| " + " | ".join(str(c) for c in cells) + " |"


STEP_WORKER = "--step-worker"
WRITER_WORKER = "--writer-worker"
WARM_STEPS = 100
WRITER_APPENDS = 150


def main() -> None:
    if sys.argv[1:2] == [STEP_WORKER]:
        print(json.dumps(asyncio.run(steps_in_process(int(sys.argv[2]), WARM_STEPS))))
        return
    if sys.argv[1:2] == [WRITER_WORKER]:
        print(json.dumps(writers_in_process(int(sys.argv[2]), WRITER_APPENDS)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--encounters", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument(
        "--against", metavar="REF", help="also measure the tracker of this git commit, taking turns"
    )
    parser.add_argument(
        "--against-src",
        metavar="DIR",
        type=Path,
        help="also measure the tracker of this src/ folder, taking turns",
    )
    parser.add_argument(
        "--httpx", action="store_true", help="clients made of httpx (as measured before 2026-12-02)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="runs of each tracker (default 1)")
    parser.add_argument(
        "--in-process", type=int, metavar="STEPS", help="time STEPS steps in process (no server, no clients)"
    )
    parser.add_argument(
        "--writers",
        type=int,
        metavar="N",
        help=f"N threads appending {WRITER_APPENDS} steps each to the store",
    )
    args = parser.parse_args()
    if not (1 <= args.encounters <= args.clients <= 1000 and 0 < args.seconds <= 600):
        raise SystemExit("need 1 <= encounters <= clients <= 1000 and 0 < seconds <= 600")
    if not 1 <= args.rounds <= 50:
        raise SystemExit("need 1 <= rounds <= 50")
    if args.in_process is not None and not 1 <= args.in_process <= 5000:
        raise SystemExit("need 1 <= --in-process <= 5000")
    if args.writers is not None and not 1 <= args.writers <= 64:
        raise SystemExit("need 1 <= --writers <= 64")
    rows: list[str] = []
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        old = old_tracker(args.against, Path(folder)) if args.against else None
        label = args.against
        if args.against_src is not None:
            if old is not None:
                raise SystemExit("give --against or --against-src, not both")
            if not (args.against_src / "referee" / "web").is_dir():
                raise SystemExit(f"--against-src {args.against_src}: no referee/web/ in it")
            old, label = args.against_src.resolve(), str(args.against_src)
        if args.writers is not None:
            for _ in range(args.rounds):
                for name, src in ([(label, old)] if old is not None else []) + [("now", None)]:
                    report = in_process_run(args.writers, src, WRITER_WORKER)
                    print(json.dumps({"tracker": name, **report}), flush=True)
            return
        if args.in_process is not None:
            for _ in range(args.rounds):
                for name, src in ([(label, old)] if old is not None else []) + [("now", None)]:
                    report = in_process_run(args.in_process, src)
                    print(json.dumps({"tracker": name, **report}), flush=True)
                    rows.append(in_process_row(str(name), report))
            print("| tracker | started (UTC) | load (1, 5, 15 min) | steps | events at the end | answer bytes"
                  " | CPU / step | wall p50 | wall p90 | wall p99 |")  # fmt: skip
            print("|---" * 10 + "|")
            print("\n".join(rows))
            return
        for _ in range(args.rounds):
            for name, src in ([(label, old)] if old is not None else []) + [("now", None)]:
                report = one_run(args, src)
                print(json.dumps({"tracker": name, **report}, indent=2), flush=True)
                rows.append(table_row(str(name), report))
                failed = failed or bool(report["problems"])
    print("| tracker | started (UTC) | load (1, 5, 15 min) | requests/s | 200 | p50 | p90 | p99 | max"
          " | server CPU / request | clients' CPU / request | problems |")  # fmt: skip
    print("|---" * 12 + "|")
    print("\n".join(rows))
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
