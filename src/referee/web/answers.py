"""The JSON answer of the tracker's busiest routes (a change's new state, the whole state), sent as it is.

A route that returns a dict has FastAPI validate it against the route's annotation in a second trip to the
thread pool (after the route's own) and encode it through pydantic; a :class:`JSONAnswer` skips both:
orjson encodes a fight's state (15-35 KB) in about a sixth of pydantic's time (issue 12, item 5). The JSON
is the same: keys that are not strings become strings, tuples become lists; what orjson cannot encode (an
integer past 64 bits) goes through pydantic's encoder as before.
"""

from __future__ import annotations

from typing import Any

import orjson
import pydantic_core
from starlette.responses import Response


class JSONAnswer(Response):
    """``application/json`` encoded with orjson (pydantic's encoder for what orjson refuses)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        try:
            return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:  # orjson.JSONEncodeError: a number or type it does not take
            return pydantic_core.to_json(content)
