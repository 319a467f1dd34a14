"""The JSON answer of the tracker's busiest routes (a change's new state, the whole state), sent as it is.

A route that returns a dict has FastAPI validate it against the route's annotation in a second trip to the
thread pool (after the route's own) and encode it through pydantic; a :class:`JSONAnswer` skips both:
orjson encodes a fight's state (15-35 KB) in about a sixth of pydantic's time (issue 12, item 5). The JSON
is the same: keys that are not strings become strings, tuples become lists; what orjson cannot encode (an
integer past 64 bits) goes through pydantic's encoder as before.

Most of a change's answer is lines of the log that earlier answers sent too: each is encoded once
(:func:`encode`, kept by the fold as bytes, which the cycle collector does not walk) and put into every
answer that shows it as it is (:class:`Encoded`).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pydantic_core
from starlette.responses import Response


class Encoded:
    """A value already encoded as JSON (a log line), written into an answer as it is."""

    __slots__ = ("json",)

    def __init__(self, json: bytes) -> None:
        self.json = json


def encode(content: Any) -> bytes:
    """`content` as JSON bytes, as :class:`JSONAnswer` writes it."""
    return encode_read_back(content)[0]


def encode_read_back(content: Any) -> tuple[bytes, bool]:
    """:func:`encode`, and whether ``orjson.loads`` reads the bytes back as they were (not so when pydantic's
    encoder wrote an integer past 64 bits, which orjson reads as a float)."""
    try:
        return orjson.dumps(content, default=_fragment, option=orjson.OPT_NON_STR_KEYS), True
    except TypeError:  # orjson.JSONEncodeError: a number or type it does not take
        return pydantic_core.to_json(content, fallback=_decoded), False


def _fragment(value: Any) -> orjson.Fragment:
    if isinstance(value, Encoded):
        return orjson.Fragment(value.json)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _decoded(value: Any) -> Any:
    if isinstance(value, Encoded):
        return json.loads(value.json)
    raise TypeError(f"{type(value).__name__} is not JSON")


class JSONAnswer(Response):
    """``application/json`` encoded with orjson (pydantic's encoder for what orjson refuses)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return encode(content)
