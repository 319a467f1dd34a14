"""Who may do what in the tracker: credentials, browser sessions, CSRF tokens and the log-in rate limit.

A program sends a credential itself: the server's referee token, the ``--password`` or one encounter's own
referee token, as ``Authorization: Bearer`` (or ``?token=``). A browser gets a **session** instead: a link's
``?token=`` or a log-in is exchanged for a fresh random value (never the token itself, rotated at every log-in,
revoked by logging out, a week at most) kept in an HttpOnly, SameSite=Strict cookie whose name holds the
server's port (``referee_session_8000``; one encounter's own: ``referee_session_8000_<id>``), so two trackers
on one machine keep their own. Only a digest of the value is stored (:meth:`Store.new_session`).

A change made with a session cookie must also carry the session's CSRF token (the ``csrf`` field every form has,
or the ``X-CSRF-Token`` header the page's script sends); :mod:`referee.web.guard` has already refused one from
another origin. Every credential is compared with :func:`hmac.compare_digest`.
"""

from __future__ import annotations

import hmac
import time
from collections import deque
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Response

from referee.web.guard import SAFE_METHODS
from referee.web.problems import Forbidden, HTTPProblem
from referee.web.store import SESSION_SECONDS, EncounterRow, Session, Store

COOKIE = "referee_session"
CSRF_HEADER = "x-csrf-token"


class TooManyAttempts(HTTPProblem):
    status = 429


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def server_port(request: Request) -> int:
    """The port this server listens on (the cookie's name holds it: cookies ignore ports)."""
    server = request.scope.get("server")
    return int(server[1]) if server and server[1] else 0


def cookie_name(request: Request, eid: str | None = None) -> str:
    base = f"{COOKIE}_{server_port(request)}"
    return f"{base}_{eid}" if eid else base


def direct_credentials(request: Request) -> list[str]:
    """What a program sends: an ``Authorization: Bearer`` header or ``?token=``."""
    found = [request.query_params.get("token", "")]
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        found.append(auth[7:].strip())
    return [c for c in found if c]


def is_admin(request: Request, secret: str) -> bool:
    """The server's referee token or the password (both compared in constant time)."""
    ok = same(secret, request.app.state.store.admin_token())
    password = request.app.state.settings.password
    return (password is not None and same(secret, password)) or ok


def session_of(request: Request, eid: str | None = None) -> tuple[str, Session] | None:
    """The live session in this browser's cookie (the whole tracker's, or with `eid` that encounter's own)."""
    value = request.cookies.get(cookie_name(request, eid), "")
    if not value:
        return None
    found = request.app.state.store.session(value)
    return None if found is None else (value, found)


async def _check_csrf(request: Request, session: Session) -> None:
    """A change made with a session cookie carries the session's CSRF token (form field or header)."""
    request.state.csrf = session.csrf
    if request.method in SAFE_METHODS:
        return
    given = request.headers.get(CSRF_HEADER, "")
    if not given and "form" in request.headers.get("content-type", ""):
        field = (await request.form()).get("csrf", "")
        given = field if isinstance(field, str) else ""
    if not given or not same(given, session.csrf):
        raise Forbidden(
            "this form has expired or did not come from this tracker: reload the page and try again"
        )


async def require_referee(request: Request) -> None:
    """The server's referee credential, sent by a program or held in this browser's session."""
    request.state.csrf = ""
    if any(is_admin(request, c) for c in direct_credentials(request)):
        return
    found = session_of(request)
    if found is None or found[1].scope != "*":
        raise Forbidden("the referee's token is needed here (the link `referee serve` printed)")
    await _check_csrf(request, found[1])


async def encounter_access(request: Request, eid: str) -> EncounterRow:
    """The encounter, if the request carries the server's referee credential or this encounter's own."""
    store: Store = request.app.state.store
    request.state.csrf = ""
    given = direct_credentials(request)
    if any(is_admin(request, c) for c in given):
        return store.get(eid)
    whole = session_of(request)
    if whole is not None and whole[1].scope == "*":
        await _check_csrf(request, whole[1])
        return store.get(eid)
    try:
        row = store.get(eid)
    except LookupError:
        raise Forbidden("the referee's token is needed here") from None
    if any(same(c, row.referee_token) for c in given):
        return row
    own = session_of(request, eid)
    if own is not None and own[1].scope == eid:
        await _check_csrf(request, own[1])
        return row
    raise Forbidden("the referee's token is needed here (a players' link only opens the players' view)")


def player_access(request: Request, eid: str, token: str) -> EncounterRow:
    try:
        row = request.app.state.store.get(eid)
    except LookupError:
        raise Forbidden("unknown players' link") from None
    if not same(token, row.player_token):
        raise Forbidden("unknown players' link")
    return row  # type: ignore[no-any-return]


def start_session(request: Request, response: Response, scope: str) -> None:
    """Give this browser a fresh session (rotation: the one its cookie held is revoked)."""
    store: Store = request.app.state.store
    eid = None if scope == "*" else scope
    name = cookie_name(request, eid)
    old = request.cookies.get(name)
    if old:
        store.revoke_session(old)
    value, _ = store.new_session(scope)
    response.set_cookie(name, value, max_age=SESSION_SECONDS, httponly=True, samesite="strict", path="/")


def end_sessions(request: Request, response: Response) -> None:
    """Log out: revoke every session this browser's cookies hold for this server and drop the cookies."""
    prefix = cookie_name(request)
    for name, value in request.cookies.items():
        if name == prefix or name.startswith(prefix + "_"):
            request.app.state.store.revoke_session(value)
            response.delete_cookie(name, path="/", httponly=True, samesite="strict")


@dataclass
class LoginLimit:
    """At most `attempts` wrong passwords in `window` seconds (from anywhere: on 127.0.0.1 every client has
    the same address); then every log-in is refused with 429 until the oldest failure leaves the window."""

    attempts: int = 10
    window: float = 60.0

    def __post_init__(self) -> None:
        self.failures: deque[float] = deque()

    def check(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        while self.failures and self.failures[0] <= now - self.window:
            self.failures.popleft()
        if len(self.failures) >= self.attempts:
            wait = int(self.failures[0] + self.window - now) + 1
            raise TooManyAttempts(f"too many wrong passwords: try again in {wait} s")

    def failed(self, now: float | None = None) -> None:
        self.failures.append(time.monotonic() if now is None else now)


# Access is a dependency, so it is checked before a body is validated: without a token, no hints.
REFEREE = [Depends(require_referee)]
Encounter = Annotated[EncounterRow, Depends(encounter_access)]
Players = Annotated[EncounterRow, Depends(player_access)]
