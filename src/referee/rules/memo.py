"""Answers that depend only on a fight's setup, worked out once per setup instead of once per check.

The rules ask for the encounter's environment (003's underwater, MOD-FOG-1 ...) many times for every
attack; parsing the `environment:` mapping each time was a large share of an attack's cost. What is kept
here is a pure function of data that does not change during a fight, so using it cannot change an event.

The switch :data:`ENABLED` (environment variable ``REFEREE_ENGINE_CACHES=off``, or :func:`set_enabled`)
turns this and the engine's per-step plan reuse (:mod:`referee.engine.caches`) off, so that a test can
check that both give the same events (tests/engine/test_engine_caches.py).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from typing import Any

from referee.vocabulary import Environment, parse_environment

ENV_SWITCH = "REFEREE_ENGINE_CACHES"
ENABLED = os.environ.get(ENV_SWITCH, "on").strip().lower() not in {"off", "0", "no", "false"}

# id(mapping) -> (the mapping, a copy of it as parsed, its Environment). The mapping itself is kept so
# that its id cannot be reused by another object while the entry exists; the copy catches a mapping
# changed in place since it was parsed (then it is parsed again).
_ENVIRONMENTS: dict[int, tuple[Mapping[str, Any], Mapping[str, Any], Environment]] = {}
_ENVIRONMENTS_LIMIT = 256  # encounters kept (a long-lived process, e.g. the tracker, loads many)


def set_enabled(on: bool) -> bool:
    """Turn the caches on or off (returns the previous setting); turning them off also empties them."""
    global ENABLED
    before, ENABLED = ENABLED, on
    if not on:
        _ENVIRONMENTS.clear()
    return before


def environment(data: Mapping[str, Any]) -> Environment:
    """:func:`referee.vocabulary.parse_environment` of `data`, parsed once while `data` is unchanged."""
    if not ENABLED:
        return parse_environment(data)
    found = _ENVIRONMENTS.get(id(data))
    if found is not None and found[0] is data and found[1] == data:
        return found[2]
    parsed = parse_environment(data)  # raises on a bad mapping: nothing is kept then
    if len(_ENVIRONMENTS) >= _ENVIRONMENTS_LIMIT:
        _ENVIRONMENTS.clear()
    _ENVIRONMENTS[id(data)] = (data, copy.deepcopy(dict(data)), parsed)
    return parsed
