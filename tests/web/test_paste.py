"""The tracker's paste page (issue 15, "every problem at once"): a refused paste keeps its text, lists
every problem with its line and marks those lines."""

from __future__ import annotations

import html

from tests.web.conftest import Tracker

from referee.web.paste import paste_problems

PASTED = """name: bad
sides:
  - name: Fighters
    combatants:
      - name: Angthar
        hp: 20
        weapons: [long swrod]
  - name: Orcs
    combatants:
      - name: Orc
        hp: -3
        weapons: [sword]
"""


def test_a_refused_paste_keeps_the_text_and_marks_every_problem_line(tracker: Tracker) -> None:
    page = tracker.client.post(
        "/encounters", data={"source": "paste", "text": PASTED}, headers=tracker.auth, follow_redirects=False
    )
    assert page.status_code == 422
    text = html.unescape(page.text)
    assert PASTED in text  # the textarea holds the pasted text again
    assert "line 7" in text and "did you mean 'long sword'?" in text
    assert "line 11" in text and "greater than or equal to 1" in text
    assert 'id="paste-line-7" class="marked"' in page.text
    assert 'id="paste-line-11" class="marked"' in page.text
    assert 'id="paste-line-12" class=""' in page.text  # `sword` is the documented synonym: no problem


def test_a_good_paste_still_makes_the_encounter(tracker: Tracker) -> None:
    good = PASTED.replace("long swrod", "long sword").replace("hp: -3", "hp: 3")
    page = tracker.client.post(
        "/encounters", data={"source": "paste", "text": good}, headers=tracker.auth, follow_redirects=False
    )
    assert page.status_code == 303, page.text


def test_a_yaml_syntax_error_marks_its_line() -> None:
    found = paste_problems("name: x\nsides: [\n", "pasted encounter: bad YAML at line 3, column 1: oops")
    assert [p.line for p in found] == [3]
