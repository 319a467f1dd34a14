"""Hypothesis profiles for the reliability tests (see docs/testing.md).

`HYPOTHESIS_PROFILE=long` runs many more examples (a manual soak run); the default `fast` profile
keeps `make test` quick. Tests size themselves with :func:`reliability.strategies.examples`.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("fast", deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("long", deadline=None, suppress_health_check=_QUIET, print_blob=True)

if os.environ.get("HYPOTHESIS_PROFILE", "fast") in {"fast", "long"}:
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
