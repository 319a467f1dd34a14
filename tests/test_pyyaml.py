"""PyYAML imported with its reader's pattern compiled beforehand (referee.pyyaml): the same characters."""

from __future__ import annotations

import re
import subprocess
import sys

from referee.pyyaml import NOT_PRINTABLE, PYYAML_NON_PRINTABLE

EVERY_CODE_POINT = "".join(map(chr, range(sys.maxunicode + 1)))


def test_the_pattern_finds_what_pyyamls_own_finds_at_every_code_point() -> None:
    own = re.compile(PYYAML_NON_PRINTABLE, re.UNICODE)  # another flag: compiled afresh, not from the cache
    assert own.pattern == PYYAML_NON_PRINTABLE
    found = [m.start() for m in re.compile(NOT_PRINTABLE).finditer(EVERY_CODE_POINT)]
    assert found == [m.start() for m in own.finditer(EVERY_CODE_POINT)]
    assert len(found) == 0xFFFF + 1 - (0xD7FF - 0xA0 + 1) - (0xFFFD - 0xE000 + 1) - (0x7E - 0x20 + 1) - 4


def test_pyyaml_is_handed_the_pattern_and_refuses_the_same_characters() -> None:
    code = f"""
import re
from referee.pyyaml import yaml, NOT_PRINTABLE
assert yaml.reader.Reader.NON_PRINTABLE.pattern == NOT_PRINTABLE, "PyYAML's pattern changed"
own = re.compile({PYYAML_NON_PRINTABLE!r}, re.UNICODE)
for text in ["a: b\\n", "a: \\x07\\n", "ok \\x85 \\ud800", "tab\\there\\x7f", "\\ufffe", "fine \\U0001f409"]:
    try:
        yaml.reader.Reader(text)  # checks the text at once
        got = None
    except yaml.reader.ReaderError as exc:
        got = (exc.character, exc.position)
    match = own.search(text)
    assert got == (None if match is None else (ord(match.group()), match.start())), (text, got)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
