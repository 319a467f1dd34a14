"""HTTP errors as exception classes, turned into responses in one place (:func:`install`).

A route raises :class:`Forbidden`, :class:`NotFound` …, or lets one of the library's own errors through;
the status code of each library error is in :data:`STATUS_OF`. The API answers ``{"error": "one line",
"status": n}``; a page answers a small HTML page with the same line.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from referee.errors import (
    DiceError,
    DiceExhaustedError,
    EncounterFileError,
    IllegalActionError,
    OptionError,
    RefereeError,
    StoreError,
)
from referee.web.store import StaleVersionError, UnknownEncounterError


class HTTPProblem(Exception):
    """An error with an HTTP status and a one-line message."""

    status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(HTTPProblem):
    status = 400


class Forbidden(HTTPProblem):
    status = 403


class NotFound(HTTPProblem):
    status = 404


class Conflict(HTTPProblem):
    status = 409


class TooLarge(HTTPProblem):
    status = 413


class Unprocessable(HTTPProblem):
    status = 422


# The library's errors, most specific first: a refused die or an illegal action stores nothing (422), a stale
# version is a conflict (409).
STATUS_OF: list[tuple[type[Exception], int]] = [
    (StaleVersionError, 409),
    (UnknownEncounterError, 404),
    (StoreError, 409),
    (DiceError, 422),
    (DiceExhaustedError, 422),
    (IllegalActionError, 422),
    (EncounterFileError, 422),
    (OptionError, 422),
    (RefereeError, 422),
]


def status_of(exc: Exception) -> int:
    if isinstance(exc, HTTPProblem):
        return exc.status
    for cls, status in STATUS_OF:
        if isinstance(exc, cls):
            return status
    return 500


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def respond(request: Request, status: int, message: str, extra: dict[str, Any] | None = None) -> Response:
    lines = message.splitlines() or [message]
    if wants_json(request):  # `error` stays one line; several problems are also listed one by one
        several = {"problems": lines} if len(lines) > 1 else {}
        body = {"error": "; ".join(lines), "status": status, **several, **(extra or {})}
        return JSONResponse(body, status_code=status)
    page = (
        "<!doctype html><meta charset=utf-8><link rel=stylesheet href=/static/style.css>"
        f"<title>error {status}</title><main><h1>error {status}</h1><p class=error>{'<br>'.join(map(_escape, lines))}</p>"
        "<p><a href=/>back to the encounters</a></p></main>"
    )
    return HTMLResponse(page, status_code=status)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _validation_message(exc: RequestValidationError) -> str:
    errors: list[Any] = list(exc.errors())
    if not errors:
        return "bad request"
    lines = []
    for error in errors:  # every problem, one line each (issue 15)
        # a key from the body may hold a line break: quote such parts to keep each problem on one line
        where = ".".join(
            str(p) if str(p).isprintable() else repr(p) for p in error.get("loc", ()) if p != "body"
        )
        message = " ".join(str(error.get("msg", "invalid")).split())
        lines.append(f"{where + ': ' if where else ''}{message}")
    return "\n".join(lines)


def database_message(exc: sqlite3.Error) -> str:
    """A database that fails while the tracker runs (disk full, made read-only, removed): nothing was stored."""
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return f"the tracker's database failed ({reason}); nothing was stored: free disk space or fix the file, then retry"


def install(app: FastAPI) -> None:
    """Register the one place where exceptions become responses."""

    async def on_problem(request: Request, exc: Exception) -> Response:
        # a refused step that rolled `?` dice hands them back: the retry uses them (no re-roll fishing)
        kept = getattr(exc, "kept_dice", None)
        return respond(request, status_of(exc), str(exc), {"kept_dice": kept} if kept else None)

    async def on_database(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, sqlite3.Error)
        return respond(request, 503, database_message(exc))

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return respond(request, 422, _validation_message(exc))

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return respond(request, exc.status_code, str(exc.detail))

    app.add_exception_handler(HTTPProblem, on_problem)
    app.add_exception_handler(sqlite3.Error, on_database)
    app.add_exception_handler(RefereeError, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
