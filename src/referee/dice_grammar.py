"""The `d20` package, imported on first use, its parser tables read from a cache.

Importing d20 builds its lark grammar's LALR tables (``d20.diceast`` does it at import), about a
tenth of a second on every start of every process that reads a dice expression: most of what
`referee odds` spent before answering. Here :data:`d20` stands in for the module and imports it on the
first attribute asked for; during that import lark's constructor is given the tables saved by an
earlier run (lark's own ``cache`` option, the file written atomically, one per grammar, lark version
and Python version, under ``$XDG_CACHE_HOME/referee`` or ``~/.cache/referee``). A missing, stale or
unreadable cache means the tables are built as before; parsing is the same either way
(tests/test_dice_grammar.py). Lark's contextual lexer builds one lexer (a compiled regex) for each
parser state, three dozen of them, all at once, and one of every terminal; here each is built when a
parse first reaches its state (:func:`_lazy_contextual_lexer`), the same lexer for the same state, and
the one of every terminal when a syntax error is named.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

CACHE_ENV = "REFEREE_GRAMMAR_CACHE"  # a directory for the cache, or "off" to build the tables each time


def cache_dir() -> Path | None:
    """Where the parser tables are kept, or None when caching is off."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee"


def _cached_lark(real: Any) -> Any:
    """A stand-in for ``lark.Lark`` that reuses saved tables for the same grammar and options."""

    def build(grammar: str, **options: Any) -> Any:
        import hashlib  # here: OpenSSL's module costs a start that never reads a dice tree ~12 M instructions

        import lark

        where = cache_dir()
        if where is None or "cache" in options:
            return real(grammar, **options)
        key = f"{grammar}{sorted((k, repr(v)) for k, v in options.items() if k != 'transformer')}"
        digest = hashlib.sha256(f"{key}{lark.__version__}{sys.version_info[:2]}".encode()).hexdigest()
        path = where / f"d20-grammar-{digest[:20]}.lark"
        if path.is_file():
            try:
                return real(grammar, cache=str(path), **options)
            except Exception:  # a damaged or foreign cache file: build the tables afresh
                pass
        parser = real(grammar, **options)
        try:
            where.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            with open(partial, "wb") as out:
                parser.save(out)
            os.replace(partial, path)  # readers never see a half-written file
        except OSError:
            pass  # a read-only home: no cache, same answers
        return parser

    return build


class _LexersByState(dict[Any, Any]):
    """The contextual lexer's lexer of each parser state, built when first asked for."""

    def __init__(self, build: Any) -> None:
        super().__init__()
        self.build = build

    def __missing__(self, state: Any) -> Any:
        lexer = self[state] = self.build(state)  # KeyError for a state the parser does not have, as before
        return lexer


def _lazy_contextual_lexer(real: Any) -> Any:
    """lark 0.9's ``ContextualLexer`` with each state's lexer made on first use: the same terminals for
    the same state, one lexer per set of terminals (lark's own ``__init__``, deferred state by state)."""
    from lark.lexer import TraditionalLexer

    class LazyContextualLexer(real):  # type: ignore[misc]
        def __init__(
            self, terminals: Any, states: Any, re_: Any, ignore: Any = (), always_accept: Any = (),
            user_callbacks: Any = None, g_regex_flags: int = 0,
        ) -> None:  # fmt: skip
            self.re = re_
            user_callbacks = user_callbacks or {}
            tokens_by_name = {t.name: t for t in terminals}
            lexer_by_tokens: dict[frozenset[Any], Any] = {}

            def build(state: Any) -> Any:
                accepts = states[state]
                key = frozenset(accepts)
                if key not in lexer_by_tokens:
                    accepts = set(accepts) | set(ignore) | set(always_accept)
                    state_tokens = [tokens_by_name[n] for n in accepts if n and n in tokens_by_name]
                    lexer_by_tokens[key] = TraditionalLexer(
                        state_tokens, re_=re_, ignore=ignore, user_callbacks=user_callbacks,
                        g_regex_flags=g_regex_flags,
                    )  # fmt: skip
                return lexer_by_tokens[key]

            self.lexers = _LexersByState(build)
            self.root_lexer = _LazyRootLexer(
                lambda: TraditionalLexer(
                    terminals,
                    re_=re_,
                    ignore=ignore,
                    user_callbacks=user_callbacks,
                    g_regex_flags=g_regex_flags,
                ),
                terminals,
                ignore,
            )

    return LazyContextualLexer


class _LazyRootLexer:
    """The contextual lexer's lexer of every terminal, which a parse asks only for the names of the
    terminals that hold newlines and of those ignored (what lark's own gives, worked out the same way);
    the lexer itself (all the terminals' regexes compiled) is built when first used, to name the
    terminal of a syntax error."""

    def __init__(self, build: Any, terminals: Any, ignore: Any) -> None:
        from lark.lexer import _regexp_has_newline  # type: ignore[attr-defined]  # not in lark-stubs

        self._build = build
        self._lexer: Any = None
        self.newline_types = [t.name for t in terminals if _regexp_has_newline(t.pattern.to_regexp())]
        self.ignore_types = list(ignore)

    def __getattr__(self, name: str) -> Any:
        if self._lexer is None:
            self._lexer = self._build()
        return getattr(self._lexer, name)


def import_d20() -> Any:
    """Import d20 (its grammar from the cache when there is one)."""
    if "d20" in sys.modules:
        return sys.modules["d20"]
    import importlib

    import lark

    frontends: Any = importlib.import_module("lark.parser_frontends")  # no stubs in lark-stubs

    real, real_lexer = lark.Lark, frontends.ContextualLexer
    # d20.diceast does `from lark import Lark` and calls it once, at import; its LALR front end makes the
    # contextual lexer then, by the name in lark.parser_frontends
    lark.Lark = _cached_lark(real)  # type: ignore[misc]
    frontends.ContextualLexer = _lazy_contextual_lexer(real_lexer)
    try:
        with warnings.catch_warnings():
            # d20 pins the retired `lark-parser` distribution, which warns on import.
            warnings.simplefilter("ignore")
            import d20
    finally:
        lark.Lark = real  # type: ignore[misc]
        frontends.ContextualLexer = real_lexer
    return d20


class _LazyD20:
    """Stands in for the d20 module: the first attribute asked for imports it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(import_d20(), name)


d20: Any = _LazyD20()
