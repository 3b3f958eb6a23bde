"""The scoring package: its public surface, and nothing imported beyond the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import scoring
from scoring.free import FREE_ERRORS
from scoring.k510 import K510_ERRORS
from scoring.mahjong_checks import MAHJONG_ERRORS
from scoring.settle_up import SETTLE_UP_ERRORS
from scoring.tiles_model import TILES_ERRORS

PACKAGE = Path(scoring.__file__).parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return {name.split(".")[0] for name in names}


def test_only_standard_library_and_itself() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert files
    for path in files:
        foreign = imported_modules(path) - set(sys.stdlib_module_names) - {"scoring"}
        assert not foreign, f"{path.name} imports {foreign}"


def test_public_api() -> None:
    expected = {
        "settle_hand",
        "hand_value",
        "score_hand",
        "card_points",
        "marathon_add",
        "marathon_finished",
        "score_marathon",
        "settle_up",
        "ScoringError",
        "MahjongHand",
        "Win",
        "Kong",
        "Report510k",
        "Result510k",
        "MarathonState",
    }
    assert expected <= set(scoring.__all__)
    for name in scoring.__all__:
        assert getattr(scoring, name) is not None


def test_error_codes_are_distinct_and_snake_case() -> None:
    tables = [MAHJONG_ERRORS, K510_ERRORS, SETTLE_UP_ERRORS, FREE_ERRORS, TILES_ERRORS]
    assert sum(len(t) for t in tables) == len(scoring.ERROR_CODES)
    for code, meaning in scoring.ERROR_CODES.items():
        assert code.isascii() and code == code.lower() and " " not in code
        assert meaning
