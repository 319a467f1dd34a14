"""The paste page's problems (issue 15): each problem of a pasted encounter with the line it is on, so
that the page can keep the text and mark those lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

_AT_LINE = re.compile(r"\bline (\d+)\b")
_PLACE = re.compile(r"^(?:[^:]*: )?((?:[\w-]+\.)*[\w-]+): ")


@dataclass(frozen=True)
class PasteProblem:
    """One problem of the pasted text: its message and the line (1-based) it names, if known."""

    message: str
    line: int | None


def paste_problems(text: str, message: str) -> list[PasteProblem]:
    """Every line of an error message, each with the line of the pasted text it is about."""
    root = _compose(text)
    found: list[PasteProblem] = []
    for problem in message.splitlines():
        at_line = _AT_LINE.search(problem)
        if at_line:  # a YAML syntax error names its line
            found.append(PasteProblem(problem, int(at_line.group(1))))
            continue
        place = _PLACE.match(problem)
        line = _line_of(root, place.group(1).split(".")) if place and root is not None else None
        found.append(PasteProblem(problem, line))
    return found


def numbered_lines(text: str, problems: list[PasteProblem]) -> list[tuple[int, str, bool]]:
    """(number, text, marked) for each line of the pasted text; marked lines have a problem."""
    marked = {p.line for p in problems if p.line is not None}
    return [(n, line, n in marked) for n, line in enumerate(text.splitlines(), start=1)]


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def _line_of(node: yaml.Node | None, path: list[str]) -> int | None:
    """The line of the deepest node the dotted place reaches (a missing key: its parent's line)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in path:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == part:
                    child, line = value, key.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and part.isdecimal() and int(part) < len(node.value):
            child = node.value[int(part)]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def paste_context(text: str, message: str) -> dict[str, object]:
    """What the encounters page needs to show a refused paste again: the text, its problems, its lines."""
    found = paste_problems(text, message)
    return {"pasted": text, "paste_problems": found, "paste_lines": numbered_lines(text, found)}
