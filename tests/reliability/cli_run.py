"""Run the `referee` command in a child process, as a user would, under a memory cap and a timeout."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

MEMORY_CAP = 3 * 1024**3  # bytes of address space (`ulimit -v`): numba and numpy need ~1 GB of it
TIMEOUT = 60.0  # seconds; a budgeted command answers in a few
MAIN = "import sys; sys.argv[0] = 'referee'; from referee.cli import main; main()"


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str
    seconds: float

    def refused(self) -> str:
        """The one `error:` line of a refusal (exit status 2, no traceback); its text."""
        assert "Traceback" not in self.err, self.err[-2000:]
        lines = self.err.strip().splitlines()
        assert self.code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (self.code, self.err)
        return lines[0]


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def referee(*args: str | Path, cwd: Path | None = None, stdout: int | None = None) -> Run:
    """`referee ARGS` with `ulimit -v` at MEMORY_CAP and TIMEOUT seconds (a hang fails the test)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", MAIN, *map(str, args)],
        cwd=cwd,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_cap_memory,
        env={**os.environ, "COLUMNS": "120"},
        check=False,
    )
    return Run(proc.returncode, proc.stdout or "", proc.stderr, time.perf_counter() - started)
