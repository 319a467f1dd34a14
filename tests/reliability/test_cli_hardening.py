"""No traceback and no hang from the command line (issue 16, items 5, 6, 8 and 10; docs/errors.md).

Each case ran into a traceback, a silent misreading or a hang in round 1; each is now one `error:`
line with exit status 2 (or, for an unwritable package folder, a normal run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from referee.errors import EncounterFileError
from referee.files import load_encounter, parse_yaml_bytes
from reliability.cli_run import referee

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DUEL = EXAMPLES / "duel.yaml"


def encounter_text(ann: str = "{name: Ann, hp: 5}", extra: str = "") -> str:
    return (
        f"ruleset: odd\n{extra}sides:\n  - name: A\n    combatants:\n      - {ann}\n"
        "  - name: B\n    combatants:\n      - {name: Bob, hp: 3}\n"
    )


def write(tmp_path: Path, text: str, name: str = "fight.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- item 6: tracebacks ------------------------------------------------------------------------------


def test_an_integer_of_thousands_of_digits(tmp_path: Path) -> None:
    path = write(tmp_path, encounter_text("{name: Ann, hp: " + "9" * 5000 + "}"))
    assert "5000 characters" in referee("fight", path).refused()
    ruleset = write(tmp_path, "preset: odd\noptions: {critical_hits: " + "7" * 5000 + "}\n", "house.yaml")
    assert "the limit is" in referee("rules", ruleset).refused()


def test_hit_dice_of_five_thousand_digits_and_overflowing_hit_dice(tmp_path: Path) -> None:
    for hit_dice in ("'" + "9" * 5000 + "'", "9999999999999999+1"):
        path = write(tmp_path, encounter_text(f"{{name: Ann, hit_dice: {hit_dice}}}"))
        for command in ("fight", "sim"):
            assert "hit_dice" in referee(command, path).refused()


def test_a_negative_seed() -> None:
    for command in ("sim", "balance"):
        args = ["-n", "20"] if command == "sim" else ["--fights", "20", "--levels", "1"]
        target = DUEL if command == "sim" else EXAMPLES / "owlbear.yaml"
        assert "--seed" in referee(command, target, "--seed", "-5", *args).refused()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_to_a_full_device() -> None:
    for args in (("fight", DUEL), ("fight", "--json", DUEL), ("rules", "odd")):
        with open("/dev/full", "w") as full:
            line = referee(*args, stdout=full.fileno()).refused()
        assert "cannot write the output" in line


# --- item 8: FIFOs -----------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for args in (("fight", fifo), ("rules", fifo)):
        assert "not a regular file" in referee(*args).refused()
    named = write(tmp_path, encounter_text().replace("ruleset: odd", f"ruleset: {fifo}"))
    line = referee("fight", named).refused()
    assert str(fifo) in line and "not a regular file" in line
    started = time.perf_counter()
    with pytest.raises(EncounterFileError, match="not a regular file"):
        load_encounter(fifo)
    assert time.perf_counter() - started < 5


# --- item 10: silent misreadings -----------------------------------------------------------------


def test_a_duplicate_key_is_refused_naming_it_and_its_lines(tmp_path: Path) -> None:
    text = encounter_text("name: Ann\n        hp: 3\n        hp: 5")
    line = referee("fight", write(tmp_path, text)).refused()
    assert "'hp' is given twice" in line and "line 7" in line and "first on line 6" in line


def test_base_60_numbers_and_booleans_are_not_numbers(tmp_path: Path) -> None:
    line = referee("fight", write(tmp_path, encounter_text("{name: Ann, hp: 1:30}"))).refused()
    assert "base-60" in line and "90" in line
    for boolean in ("true", "yes", "on"):
        line = referee("fight", write(tmp_path, encounter_text(f"{{name: Ann, hp: {boolean}}}"))).refused()
        assert "hp" in line and "boolean" in line
    assert load_encounter(write(tmp_path, encounter_text("{name: Ann, hp: '7'}"))).combatants[0].hp == 7


def test_balance_takes_a_house_rules_file(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "house_rules.yaml", tmp_path / "house.yaml")
    write(tmp_path, "name: Ogre\nhit_dice: 4+1\nac: 5\nweapons: [{name: club, damage: 1d10}]\n", "ogre.yaml")
    run = referee(
        "balance", "ogre.yaml", "--ruleset", "house.yaml", "--levels", "1", "--fights", "50", cwd=tmp_path
    )
    assert run.code == 0, run.err
    assert "balance: Ogre" in run.out


def test_deeply_nested_brackets_are_refused_before_parsing() -> None:
    started = time.perf_counter()
    with pytest.raises(EncounterFileError, match="nested deeper than 64 levels"):
        parse_yaml_bytes(b"a: " + b"[" * 20_000 + b"]" * 20_000, "deep.yaml")
    assert time.perf_counter() - started < 2  # round 1: about 25 s
    assert parse_yaml_bytes(b"a: " + b"[" * 64 + b"]" * 64, "edge.yaml") is not None


# --- item 5: a package folder the user cannot write -----------------------------------------------


def _unprivileged_python() -> list[str] | None:
    """A Python the user `nobody` can run, with this tree's sources and packages on its path."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return None
    import numpy

    src = str(Path(__file__).resolve().parents[2] / "src")
    site = str(Path(numpy.__file__).resolve().parents[1])
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, shutil.which(version), f"/usr/bin/{version}"):
        if not python or not os.path.exists(python):
            continue
        probe = [
            "runuser",
            "-u",
            "nobody",
            "--",
            "env",
            "-i",
            "PATH=/usr/bin:/bin",
            f"PYTHONPATH={src}:{site}",
            python,
        ]
        ok = subprocess.run(
            [*probe, "-c", "import numba, referee"], capture_output=True, timeout=120, check=False
        )
        if ok.returncode == 0:
            return probe
    return None


def test_sim_runs_for_a_user_who_cannot_write_the_package_folder() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to run as the unprivileged user nobody")
    pytest.importorskip("numba")
    python = _unprivileged_python()
    if python is None:
        pytest.skip("no Python interpreter with numba that the user nobody may run")
    home = Path(tempfile.mkdtemp(prefix="referee-nobody-"))  # pytest's tmp_path is private to root
    try:
        home.chmod(0o777)
        main = "import sys; sys.argv[0] = 'referee'; from referee.cli import main; main()"
        for home_dir in (home, Path("/nonexistent")):  # a cache folder of its own, or none writable at all
            run = subprocess.run(
                [*python[:6], f"HOME={home_dir}", *python[6:], "-c", main, "sim", "-n", "200", str(DUEL)],
                capture_output=True, text=True, timeout=300, check=False, cwd="/",
            )  # fmt: skip
            assert run.returncode == 0, run.stderr[-2000:]
            assert "cannot cache" not in run.stderr
        assert (home / ".cache" / "referee" / "numba").is_dir()  # the user's cache, not the package's
    finally:
        shutil.rmtree(home, ignore_errors=True)
