"""What every request passes before a route sees it: size, origin, content type, and JSON that can be shown.

:class:`RequestGuard` is one ASGI middleware. For every HTTP request it

- reads the body up to :data:`MAX_BODY_BYTES` (a longer one, announced or chunked, is 413);
- refuses a state-changing request (anything but GET, HEAD, OPTIONS) that a browser marks as coming from
  another origin: an ``Origin`` that is not this server's own scheme, host and port (another port of
  127.0.0.1 is another origin), or ``Sec-Fetch-Site`` other than ``same-origin`` or ``none`` (403). Programs
  send neither header and are not affected; their credential is a header a page on another origin cannot set;
- requires ``application/json`` for a body sent to ``/api/`` (415), so that a form or a ``text/plain`` fetch,
  which a page on another origin may send without asking, never reaches the API;
- parses a JSON body strictly (:func:`strict_json`): no lone surrogate, no NaN or infinity, no nesting deeper
  than :data:`MAX_JSON_DEPTH` (400), so that whatever is stored can always be encoded back as UTF-8 JSON.

Every refusal is ``{"error": "one line", "status": n}``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.errors import EncounterFileError
from referee.files import MAX_FILE_BYTES

# Room for the multipart envelope around a file of MAX_FILE_BYTES.
MAX_BODY_BYTES = MAX_FILE_BYTES + 64_000
# Deeper than any export or encounter (a few levels), far below Python's recursion limit.
MAX_JSON_DEPTH = 32
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
SAME_SITE_FETCH = {"same-origin", "none"}


def strict_json(raw: bytes | str, where: str) -> Any:
    """Parse JSON that can always be written back: refuse what Python's parser lets through (NaN, Infinity,
    1e400, a lone surrogate such as ``"\\ud800"``) and nesting deeper than :data:`MAX_JSON_DEPTH`."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        raise EncounterFileError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise EncounterFileError(f"{where}: not JSON: {' '.join(str(exc).split())}") from None
    _check_values(data, where, 0)
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _check_values(value: Any, where: str, depth: int) -> None:
    if depth > MAX_JSON_DEPTH:
        raise EncounterFileError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, where)
            _check_values(item, where, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_values(item, where, depth + 1)


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise EncounterFileError(f"{where}: a string holds a lone surrogate (not a character)") from None


def same_origin(scope: Scope, headers: Headers) -> bool:
    """False when a browser says the request comes from a page of another origin.

    A page with ``Referrer-Policy: no-referrer`` (the tracker's own) sends ``Origin: null`` with its forms; then
    ``Sec-Fetch-Site``, which every current browser sends, decides, and without it ``null`` is refused."""
    origin = headers.get("origin")
    site = headers.get("sec-fetch-site")
    if origin is not None and origin != "null":
        host = headers.get("host", "")
        return bool(host) and origin == f"{scope.get('scheme', 'http')}://{host}"
    if site is not None:
        return site in SAME_SITE_FETCH
    return origin is None  # neither header: not a browser (a program with its own credential)


def is_json(headers: Headers) -> bool:
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


class RequestGuard:
    """The checks above, before routing; the body read here is handed on unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._before_body(scope, headers)
        body = b""
        if refusal is None:
            body, refusal = await self._read_body(receive)
        if (
            refusal is None
            and body
            and scope["path"].startswith("/api/")
            and scope["method"] not in SAFE_METHODS
        ):
            refusal = self._check_json(headers, body)
        if refusal is not None:
            status, message = refusal
            await JSONResponse({"error": message, "status": status}, status)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    @staticmethod
    def _before_body(scope: Scope, headers: Headers) -> tuple[int, str] | None:
        if scope["method"] not in SAFE_METHODS and not same_origin(scope, headers):
            return 403, "a request from another site or port cannot change anything here"
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
            return 413, f"request body over {MAX_BODY_BYTES} bytes"
        return None

    @staticmethod
    async def _read_body(receive: Receive) -> tuple[bytes, tuple[int, str] | None]:
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"", (400, "the client went away")
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > MAX_BODY_BYTES:  # chunked bodies announce no length: count as they come
                return b"", (413, f"request body over {MAX_BODY_BYTES} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), None

    @staticmethod
    def _check_json(headers: Headers, body: bytes) -> tuple[int, str] | None:
        if not is_json(headers):
            return 415, "send JSON bodies with Content-Type: application/json"
        try:
            strict_json(body, "request body")
        except EncounterFileError as exc:
            return 400, str(exc)
        return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def once() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect as usual

    return once
