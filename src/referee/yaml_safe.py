"""Reading YAML files strictly: only regular files, bounded nesting, no silent surprises.

The loader is PyYAML's safe loader (no tags that run code) with three refusals added, each a
`yaml.MarkedYAMLError` that :func:`referee.files.parse_yaml_bytes` reports as one line with its place:

- a key given twice in one mapping (YAML would keep the last one silently);
- a YAML 1.1 base-60 number (`hp: 1:30` would be read as 90);
- a number of more than :data:`MAX_NUMBER_DIGITS` digits (Python refuses to read 4,300+ digit integers
  with a traceback, and no field takes numbers anywhere near that size).

Files are opened without blocking and read only if they are regular files, so a FIFO, a terminal or a
device never makes `referee` wait forever (docs/errors.md, "Files").
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from referee.errors import EncounterFileError

MAX_FLOW_NESTING = 64  # [ and { levels; the scanner takes seconds per few thousand levels
MAX_NUMBER_DIGITS = 100
_OPENERS = frozenset(b"[{")


def read_regular_file(path: Path, limit: int) -> bytes:
    """At most `limit + 1` bytes of `path`, which must be a regular file (one-line error otherwise).

    Opened with O_NONBLOCK so that opening a FIFO returns at once; its type is checked on the open
    descriptor (no race between checking and reading)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise EncounterFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise EncounterFileError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise EncounterFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise EncounterFileError(f"{path}: is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise EncounterFileError(f"{path}: is not a regular file (a pipe or a device); give a file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read(limit + 1)  # never more: a huge file is cut here
    except OSError as exc:
        raise EncounterFileError(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def check_flow_nesting(text: str, where: str) -> None:
    """Refuse brackets nested deeper than :data:`MAX_FLOW_NESTING` before the YAML scanner sees them
    (an encounter nests a few levels; brackets inside quotes count too, which no real file needs)."""
    depth = 0
    for char in re.sub(rb"[^\[\]{}]", b"", text.encode("utf-8", "surrogatepass")):
        depth = depth + 1 if char in _OPENERS else max(0, depth - 1)
        if depth > MAX_FLOW_NESTING:
            raise EncounterFileError(f"{where}: brackets nested deeper than {MAX_FLOW_NESTING} levels")


class StrictConstructor(yaml.constructor.SafeConstructor):
    """The safe constructor refusing duplicate keys; the loaders below add the refusal of base-60 numbers
    and numbers of huge length."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = (key_node.tag, key_node.value)
            if key in first_line:
                raise ConstructorError(
                    None,
                    None,
                    f"key {key_node.value!r} is given twice (first on line {first_line[key]}); keep one",
                    key_node.start_mark,
                )
            first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _check_number(text: str, node: yaml.Node) -> None:
    if ":" in text:
        raise ConstructorError(
            None,
            None,
            f"{text!r} is a YAML 1.1 base-60 number (it would be read as"
            f" {_sexagesimal(text)}); write the number itself, or quote it",
            node.start_mark,
        )
    if len(text) > MAX_NUMBER_DIGITS:
        raise ConstructorError(
            None,
            None,
            f"a number of {len(text)} characters; the limit is {MAX_NUMBER_DIGITS}",
            node.start_mark,
        )


def _sexagesimal(text: str) -> str:
    total = 0.0
    for part in text.replace("_", "").lstrip("+-").split(":"):
        try:
            total = total * 60 + float(part)
        except ValueError:
            return "a number"
    value = -total if text.startswith("-") else total
    return str(int(value)) if value.is_integer() else str(value)


def _strict_int(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode) -> int:
    _check_number(str(loader.construct_scalar(node)), node)
    return loader.construct_yaml_int(node)


def _strict_float(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.ScalarNode) -> float:
    _check_number(str(loader.construct_scalar(node)), node)
    return loader.construct_yaml_float(node)


class StrictLoader(StrictConstructor, yaml.SafeLoader):
    """PyYAML's safe loader (its scanner and parser written in Python), strictly."""


StrictLoader.add_constructor("tag:yaml.org,2002:int", _strict_int)
StrictLoader.add_constructor("tag:yaml.org,2002:float", _strict_float)

FAST_LOADER: Any = None  # libyaml's scanner and parser, where PyYAML was built with them
# what libyaml reads otherwise than PyYAML's own (found by comparing the two on random texts): tabs in
# plain scalars and a byte-order mark after the start (accepted), the bare tag `!` ('' for None), a block
# scalar's header, line breaks other than \n; a text with any of these is read by PyYAML's own only
LIBYAML_READS_OTHERWISE = frozenset("\t\ufeff!|>\r\x85\u2028\u2029")
if hasattr(yaml, "CSafeLoader"):

    class _CStrictLoader(StrictConstructor, yaml.CSafeLoader):
        """libyaml's scanner and parser with the same constructor and resolver (PyYAML's CSafeLoader)."""

    _CStrictLoader.add_constructor("tag:yaml.org,2002:int", _strict_int)
    _CStrictLoader.add_constructor("tag:yaml.org,2002:float", _strict_float)
    FAST_LOADER = _CStrictLoader


def load_strict(text: str, loader_class: Any = StrictLoader) -> Any:
    """One YAML document read with :class:`StrictLoader` (as `yaml.safe_load` does with its loader), or
    with `loader_class` (:data:`FAST_LOADER`)."""
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
