"""Round 1's code beside today's, so a benchmark can measure both in the same run.

    from baseline import round1_src, python_env
    env = python_env(round1_src())          # PYTHONPATH=<round 1's src>: `import referee` is round 1
    subprocess.run([sys.executable, "-c", "import referee", ...], env=env)

Issue 12 asks for every speed target as a ratio against round 1's code (commit 6ea1143, "One named-step
entry point") measured in the same run, so that the load of a shared machine weighs on both alike.
:func:`round1_src` exports that commit's files once into a folder under the temporary directory (``git
archive``: read-only for the repository, which several people may be working in; no worktree is
registered and no index touched) and reuses it afterwards. Both versions run on this virtualenv's
Python and libraries; only ``src/`` differs, chosen by ``PYTHONPATH`` (which comes before the editable
install's path entry).

    .venv/bin/python benchmarks/baseline.py     # export (or find) round 1 and print where it is
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

ROUND1 = "6ea1143"  # round 1's last commit: One named-step entry point (Fight.take)
REPO = Path(__file__).resolve().parent.parent
NOW_SRC = REPO / "src"


def round1_src(commit: str = ROUND1, parent: Path | None = None) -> Path:
    """The `src` folder of `commit`, exported under `parent` (the temporary directory) on first use."""
    full = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{commit}^{{commit}}"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    tree = (parent or Path(tempfile.gettempdir())) / f"referee-round1-{full[:12]}"
    done = tree / ".exported"
    if done.is_file() and (tree / "src" / "referee" / "__init__.py").is_file():
        return tree / "src"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = tree / "export.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", full, "src"], stdout=out, check=True
        )
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    done.write_text(full + "\n")
    return tree / "src"


def python_env(src: Path) -> dict[str, str]:
    """This process's environment with `src` first on Python's path (`import referee` finds it)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def console_entry(commit: str | None = None) -> str:
    """What the `referee` console script calls (``"referee.cli:main"``), as the pyproject.toml of `commit`
    (None: this tree) names it: round 1's script calls ``main``, today's ``run``."""
    if commit is None:
        text = (REPO / "pyproject.toml").read_text()
    else:
        text = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{commit}:pyproject.toml"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    entry: str = tomllib.loads(text)["project"]["scripts"]["referee"]
    return entry


def referee_command(*args: str, entry: str = "referee.cli:main") -> list[str]:
    """The `referee` console script's own code (``from referee.cli import main; sys.exit(main())`` for the
    entry point ``referee.cli:main``, :func:`console_entry`) on this Python."""
    module, function = entry.split(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}())"
    return [sys.executable, "-c", code, *args]


if __name__ == "__main__":
    src = round1_src()
    found = subprocess.run(
        [sys.executable, "-c", "import referee; print(referee.__file__)"],
        env=python_env(src), capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    print(f"round 1 ({ROUND1}): {src} (imports {found})")
