"""The cycle collector's full passes, run while no request waits for its answer (issue 12, item 5).

A full pass of CPython's cycle collector walks every object the tracker keeps: the folded fights, their
events and lines (tens of thousands of objects per long fight), and it stops every thread while it does.
Left to CPython it runs whenever those have grown by a quarter since the last one, in the middle of
whatever requests are in flight: 15-55 ms each, three or four times in a ten-second burst of steps, and
every request then waiting got that much slower (the slowest hundredth of the steps under load).

Served by ``referee serve`` (:class:`QuietCollector`, ``Settings.collect_when_quiet``), CPython keeps its
young generations (cheap, frequent) and the full passes wait for the server to be quiet: no request between
its arrival and the start of its answer for :data:`QUIET_SECONDS`. A server that is never quiet still runs one
every :data:`LONGEST_WAIT_SECONDS`, or after :data:`MOST_DEFERRED` passes of the middle generation, so the
garbage that only a full pass finds stays bounded. (A step of the tracker leaves few objects behind: the
middle generation is collected about once in seventy steps, so a full pass is worth running after some
seven hundred.)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

QUIET_SECONDS = 0.25  # no request waiting for this long: a full pass now delays nobody
TICK_SECONDS = 0.1
LONGEST_WAIT_SECONDS = 60.0  # a server never quiet: a full pass at least this often (if worth one)
# passes of the middle generation (CPython's third threshold, 10 by default) a full pass waits at most
MOST_DEFERRED = 1_000
WORTH_A_PASS = 10  # passes of the middle generation since the last full one before a quiet moment runs one
NEVER = 2**31 - 1  # CPython's largest threshold: it never starts a full pass itself


class QuietCollector:
    """Knows how many requests wait for an answer (:class:`CountWaiting` tells it) and runs the full passes
    when none does (:meth:`lifespan`, while the app is served)."""

    def __init__(self) -> None:
        self.waiting = 0
        self.last_answer = self.last_pass = time.monotonic()
        self.full_passes = 0

    def answered(self) -> None:
        self.waiting -= 1
        self.last_answer = time.monotonic()

    def due(self, now: float | None = None) -> bool:
        """Whether to run a full pass now: the middle generation has been collected a few times since the
        last one and the server is quiet (or has not been for too long), or a full pass has waited for very
        many of them."""
        deferred = gc.get_count()[2]
        now = time.monotonic() if now is None else now
        quiet = self.waiting == 0 and now - self.last_answer >= QUIET_SECONDS
        overdue = now - self.last_pass >= LONGEST_WAIT_SECONDS
        return (deferred >= WORTH_A_PASS and (quiet or overdue)) or deferred >= MOST_DEFERRED

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """While the app is served: CPython's own full passes off, this collector's on (the event loop's
        thread runs them, between requests); CPython's thresholds are put back at shutdown."""
        with _full_passes_deferred():
            task = asyncio.create_task(self._run())
            try:
                yield
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            if self.due():
                gc.collect(2)
                self.full_passes += 1
                self.last_pass = time.monotonic()


class CountWaiting:
    """ASGI middleware: an HTTP request waits from its arrival until its answer starts (a stream's answer
    starts at once, so an open page does not keep the server busy)."""

    def __init__(self, app: ASGIApp, collector: QuietCollector) -> None:
        self.app = app
        self.collector = collector

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        collector = self.collector
        answered = False

        async def answer(message: Message) -> None:
            nonlocal answered
            if not answered and message["type"] == "http.response.start":
                answered = True
                collector.answered()
            await send(message)

        collector.waiting += 1
        try:
            await self.app(scope, receive, answer)
        finally:
            if not answered:
                collector.answered()


_DEFERRING = threading.Lock()
_deferred_by = 0
_thresholds: tuple[int, int, int] | None = None


@contextlib.contextmanager
def _full_passes_deferred() -> Iterator[None]:
    """CPython's third threshold at its largest while any app of this process is served (put back after)."""
    global _deferred_by, _thresholds
    with _DEFERRING:
        if _deferred_by == 0:
            _thresholds = gc.get_threshold()
            gc.set_threshold(_thresholds[0], _thresholds[1], NEVER)
        _deferred_by += 1
    try:
        yield
    finally:
        with _DEFERRING:
            _deferred_by -= 1
            if _deferred_by == 0 and _thresholds is not None:
                gc.set_threshold(*_thresholds)
