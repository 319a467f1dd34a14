"""d20 imported on first use, its parser tables from a cache: the same trees either way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXPRESSIONS = [
    "1d8",
    "2d6+1",
    "d10",
    "1d20kh1",
    "4d6kl3",
    "(1d6+2)*3",
    "1d6/2",
    "3",
    "10d10-5",
    "1d4+1d6",
    "1d100",
]
DUMP = f"""
import sys
from referee.dice import parse_dice
from referee.dice_grammar import d20

def dump(node):
    if isinstance(node, list):
        return "[" + ",".join(dump(x) for x in node) + "]"
    if type(node).__module__.startswith("d20"):
        names = sorted({{a for c in type(node).__mro__ for a in getattr(c, "__slots__", ())}})
        return type(node).__name__ + "(" + ",".join(f"{{a}}={{dump(getattr(node, a))}}" for a in names if hasattr(node, a)) + ")"
    return repr(node)

for text in {EXPRESSIONS!r}:
    print(text, dump(parse_dice(text).node))
try:
    d20.parse("1d", allow_comments=False)
except d20.RollSyntaxError as exc:
    print("error at", exc.col)
"""


def parsed(cache: str) -> str:
    env = {**os.environ, "REFEREE_GRAMMAR_CACHE": cache}
    out = subprocess.run([sys.executable, "-c", DUMP], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_cached_tables_parse_exactly_as_freshly_built_ones(tmp_path: Path) -> None:
    built = parsed("off")
    assert "OperatedDice" in built and "error at" in built
    assert parsed(str(tmp_path)) == built  # writes the cache
    assert [p.name.startswith("d20-grammar-") for p in tmp_path.iterdir()] == [True]
    assert parsed(str(tmp_path)) == built  # reads it


def test_a_damaged_cache_is_built_afresh(tmp_path: Path) -> None:
    built = parsed("off")
    parsed(str(tmp_path))
    (cache,) = tmp_path.iterdir()
    cache.write_bytes(b"not a pickle")
    assert parsed(str(tmp_path)) == built
    assert cache.read_bytes() != b"not a pickle"  # and replaced by good tables


def test_d20_is_imported_by_the_first_parse_not_before() -> None:
    # `1d6` is read without d20 (referee.dice._simple) until its tree is asked for; `4d6kh3` needs d20
    code = (
        "import sys\nimport referee.dice\nassert 'd20' not in sys.modules\n"
        "expr = referee.dice.parse_dice('1d6')\nassert 'd20' not in sys.modules\n"
        "assert str(expr.node) == '1d6' and 'd20' in sys.modules"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    code = "import sys\nimport referee.dice\nreferee.dice.parse_dice('4d6kh3')\nassert 'd20' in sys.modules"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_each_parser_state_gets_the_lexer_lark_builds_for_it() -> None:
    # the contextual lexer's per-state lexers are made on first use: the same terminals, in the same order
    # (their match order), and the same callbacks as lark's own contextual lexer makes for every state
    from lark.lexer import ContextualLexer

    from referee.dice_grammar import import_d20

    frontend = import_d20().diceast.parser.parser
    lazy, conf = frontend.lexer, frontend.lexer_conf
    assert type(lazy) is not ContextualLexer
    states = {i: list(t.keys()) for i, t in frontend.parser._parse_table.states.items()}
    eager = ContextualLexer(
        conf.tokens, states, re_=frontend.re, ignore=conf.ignore, user_callbacks=conf.callbacks,
        g_regex_flags=conf.g_regex_flags,
    )  # fmt: skip
    assert len(states) > 30
    for state in states:
        made, built = lazy.lexers[state], eager.lexers[state]
        assert [t.name for t in made.terminals] == [t.name for t in built.terminals]
        assert made.callback.keys() == built.callback.keys()
        assert [m.pattern for m, _ in made.mres] == [m.pattern for m, _ in built.mres]
    assert [t.name for t in lazy.root_lexer.terminals] == [t.name for t in eager.root_lexer.terminals]


def test_the_lexer_of_every_terminal_is_the_one_lark_builds() -> None:
    # a parse asks the contextual lexer's lexer of every terminal only for the terminals that hold newlines
    # and those ignored (worked out as lark does); the lexer itself is built for a syntax error, to name
    # the terminal found there, and matches as lark's own
    from lark.lexer import TraditionalLexer

    from referee.dice_grammar import import_d20

    d20 = import_d20()
    frontend = d20.diceast.parser.parser
    conf = frontend.lexer_conf
    eager = TraditionalLexer(conf.tokens, re_=frontend.re, ignore=conf.ignore, user_callbacks=conf.callbacks)
    root = frontend.lexer.root_lexer
    assert root.newline_types == eager.newline_types and root.ignore_types == eager.ignore_types
    for text, at in [("1d6 +* 2", 5), ("kh3", 0), ("1d6 1d6", 4), ("2 kh 3", 2), ("1d6)", 3)]:
        assert root.match(text, at) == eager.match(text, at)
    assert [t.name for t in root.terminals] == [t.name for t in eager.terminals]
