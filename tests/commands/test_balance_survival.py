"""`referee balance`: at the count it settles on, how many fighters end down or dead (ODD-HP-1,
GAP-HP-ZERO), next to the monster's win rate."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands.test_balance import OGRE, write
from tests.conftest import referee


def test_balance_reports_fighters_down_and_dead(tmp_path: Path) -> None:
    """ODD-HP-1, GAP-HP-ZERO: fighters fall at 0 and die at -10; the two shares are reported apart."""
    out = referee("balance", write(tmp_path, OGRE), "--levels", "1", "--fights", "1500", "--json")
    assert out.returncode == 0, out.stderr
    level = json.loads(out.stdout)["levels"][0]
    down, dead = level["fighters_down_rate"], level["fighters_dead_rate"]
    assert 0 < down < 1 and 0 <= dead < 1 and down + dead <= 1
    text = referee("balance", write(tmp_path, OGRE), "--levels", "1", "--fights", "500").stdout
    assert "fighters down" in text and "fighters dead" in text
