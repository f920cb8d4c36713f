"""The figures of ``benchmarks/house.py`` on a small package written here, with known answers."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]


def _house() -> ModuleType:
    return load("house", REPO / "benchmarks" / "house.py")


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / "src" / "lessons_core" / "lessons_core" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_rooms_floors_circles_and_imports_that_run_back_up(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "__init__.py": "",
            "models.py": "",
            "cli/__init__.py": "",
            # The CLI runs the scan: the top floor.
            "cli/main.py": (
                "from lessons_core.scan import engine\nfrom lessons_core import models\n"
            ),
            "scan/__init__.py": "",
            "scan/engine.py": "from lessons_core.store.base import Store\n",
            # Inside a function, the store reaches back up into the scanner: a circle.
            "store/__init__.py": "",
            "store/base.py": "def f():\n    from ..scan import engine\n",
            # Only for the type checker: no circle.
            "hot/__init__.py": "",
            "hot/run.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from lessons_core.cli import main\n"
                "from lessons_core import models\n"
            ),
            "big.py": "x = 1\n" * 501,
        },
    )
    house = _house().survey(tmp_path)
    # cli, scan, store, hot, and the root's models and big.
    assert house["rooms"] == 6
    assert house["root_modules"] == ["lessons_core.big", "lessons_core.models"]
    assert house["packages"] == 5
    assert house["circles"] == [["lessons_core.scan", "lessons_core.store"]]
    assert house["back_up"] == 2  # scan -> store and store -> scan
    assert house["floors"] == 2  # cli, then the scan and store taken as one
    assert house["big_files"] == [(501, "src/lessons_core/lessons_core/big.py")]
    assert house["lines"] == 501 + 2 + 1 + 2 + 4


#: Circles of rooms the checkout still has, each with why. None is left: the last one ran
#: through the outcome loop, which was both below the compiler (the build acts on its figures)
#: and above the scanner, until the figures moved a floor down into ``verdicts``.
KNOWN_CIRCLES: list[list[str]] = []


def test_the_checkout_has_no_circle_but_the_known_ones() -> None:
    """A new circle fails here, and so does one that is gone (the list only shrinks)."""
    assert _house().survey(REPO)["circles"] == KNOWN_CIRCLES


def test_a_new_circle_would_fail_the_check(tmp_path: Path) -> None:
    """The check bites: one import back up, even inside a function, makes a circle it reports."""
    _write(
        tmp_path,
        {
            "__init__.py": "",
            "compiler/__init__.py": "",
            "compiler/build.py": "def f():\n    from lessons_core.verdicts import stats\n",
            "verdicts/__init__.py": "",
            "verdicts/stats.py": "def g():\n    from lessons_core.compiler import build\n",
        },
    )
    circles = _house().survey(tmp_path)["circles"]
    assert circles == [["lessons_core.compiler", "lessons_core.verdicts"]]
    assert circles != KNOWN_CIRCLES
