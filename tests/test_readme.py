"""The README's promises: its Python examples run (and print what they show), its commands exist,
its file example loads."""

from __future__ import annotations

import doctest
import os
import re

import yaml
from tests.conftest import ROOT

from referee.files import setup_from_data

README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_python_example_runs() -> None:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks("python"):
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)


def test_from_python_session_prints_what_it_shows() -> None:
    """The "From Python" section is a doctest: every `>>>` line's output is the real output."""
    section = README.split("## From Python", 1)[1].split("\n## ", 1)[0]
    sessions = re.findall(r"```pycon\n(.*?)```", section, flags=re.S)
    assert sessions and "referee.Fight" in sessions[0]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for index, session in enumerate(sessions):
            test = doctest.DocTestParser().get_doctest(
                session, {}, f"README.md session {index + 1}", "README.md", 0
            )
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            report: list[str] = []
            runner.run(test, out=report.append)
            assert runner.failures == 0, "".join(report)
            assert runner.tries > 10
    finally:
        os.chdir(cwd)


def test_yaml_example_is_a_valid_encounter() -> None:
    (block,) = blocks("yaml")
    setup = setup_from_data(yaml.safe_load(block), "README.md")
    assert [c.name for c in setup.combatants][:2] == ["Angthar", "Goblin 1"]


def test_quick_start_is_exactly_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", quick, flags=re.S)
    assert [line.split()[0:2] for line in block.strip().splitlines()] == [["make", "demo"], ["make", "test"]]


def test_every_command_in_the_table_exists() -> None:
    import referee.cli_commands  # noqa: F401  (registers every command; `referee` itself loads them lazily)
    from referee.cli import app

    registered = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    table = README.split("## Commands", 1)[1].split("\n\n", 2)[1]
    for name in re.findall(r"`referee (\w+)", table):
        assert name in registered, name


def test_every_example_is_listed_and_every_listed_example_exists() -> None:
    listed = set(
        re.findall(r"`(examples/[\w.]+\.yaml)`", README.split("## Examples", 1)[1].split("\n## ", 1)[0])
    )
    present = {f"examples/{p.name}" for p in (ROOT / "examples").glob("*.yaml")}
    assert listed == present
