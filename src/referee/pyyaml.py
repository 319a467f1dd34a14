"""PyYAML, imported with its reader's pattern of forbidden characters already compiled.

``import yaml`` compiles ``yaml.reader.Reader.NON_PRINTABLE``, a character class of everything but the
printable ranges; Python's regex compiler walks each of its ranges code point by code point (about 60,000
of them), about 57 M instructions, 7% of a one-attack `referee odds` (issue 12), for a pattern only PyYAML's
own reader uses (encounter files are read by libyaml where PyYAML has it, :mod:`referee.yaml_safe`).
Here the same class, written as the few ranges it leaves out, is compiled first and left in the regex
module's cache under PyYAML's pattern, so ``re.compile`` hands it to PyYAML: the same characters found at
the same places (tests/test_pyyaml.py checks every code point). Where the cache is not the dict this
was measured on, or PyYAML's pattern is another, PyYAML compiles its own as before.

Modules of the project import PyYAML from here: ``from referee.pyyaml import yaml``.
"""

from __future__ import annotations

import re
import sys

PYYAML_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
NOT_PRINTABLE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"  # the same class


def _prime() -> None:
    cache = getattr(re, "_cache", None)
    if "yaml" not in sys.modules and isinstance(cache, dict):
        cache.setdefault((str, PYYAML_NON_PRINTABLE, 0), re.compile(NOT_PRINTABLE))


_prime()

import yaml as yaml  # noqa: E402 - after the pattern is in the cache

__all__ = ["yaml"]
