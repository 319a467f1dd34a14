"""Where `referee` may keep files between runs: the user's own cache folder, never the package's.

numba's `cache=True` writes compiled kernels next to the source, and, when that folder is read-only
(a system-wide or packaged install), into a folder of its own choosing; where none of those is
writable it stops with "cannot cache function". :func:`numba_cache_ready` points numba at
``$XDG_CACHE_HOME/referee/numba`` (else ``~/.cache/referee/numba``) before numba is imported, and
says whether caching is possible at all; the simulator compiles without a cache when it is not.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the odds answers read cache_root() before importing much
if TYPE_CHECKING:
    from pathlib import Path

NUMBA_CACHE_ENV = "NUMBA_CACHE_DIR"


def cache_root() -> str | None:
    """$XDG_CACHE_HOME/referee, else ~/.cache/referee, as a path (nothing made, nothing probed: for
    reading what an earlier run kept); None without either."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is to be ignored
        return os.path.join(xdg, "referee")
    home = os.environ.get("HOME", "")
    return os.path.join(home, ".cache", "referee") if home else None


def user_cache_dir() -> Path | None:
    """The first of $XDG_CACHE_HOME/referee and ~/.cache/referee that exists or can be made, and can
    be written to; None if neither can."""
    from pathlib import Path

    candidates: list[Path] = []
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG spec: a relative value is to be ignored
        candidates.append(Path(xdg) / "referee")
    home = os.environ.get("HOME", "")
    if home:
        candidates.append(Path(home) / ".cache" / "referee")
    for folder in candidates:
        if _writable_folder(folder):
            return folder
    return None


def _writable_folder(folder: Path) -> bool:
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            return True  # access() can say yes on a read-only mount; a real file cannot lie
    except OSError:
        return False


def numba_cache_ready() -> bool:
    """Before numba is imported: make sure its cache goes where this user can write.

    A cache folder the user chose (NUMBA_CACHE_DIR) is kept. Returns whether `cache=True` is safe."""
    from pathlib import Path

    given = os.environ.get(NUMBA_CACHE_ENV)
    if given:
        return _writable_folder(Path(given))
    if "numba" in sys.modules:  # too late to steer it: caching could fail, so do without
        return False
    folder = user_cache_dir()
    if folder is None:
        return False
    os.environ[NUMBA_CACHE_ENV] = str(folder / "numba")
    return _writable_folder(folder / "numba")
