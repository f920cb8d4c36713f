"""The deep detector's parts that need no model: parsing answers, the shared budget, the
choice of detectors in a deep scan, and that nothing imports ``llm`` before a deep scan."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("lessons_llm", reason="the lessons-llm distribution is not installed")

from lessons_core.errors import LessonsError
from lessons_core.models import Config, DeepScan
from lessons_core.plugins.specs import DetectorSpec
from lessons_core.scan.engine import active_detectors
from lessons_llm import answer
from lessons_llm.budget import Budget


@pytest.mark.parametrize(
    "text",
    [
        '{"reusable": false}',
        '```json\n{"reusable": false}\n```',
        'Here is the lesson:\n{"reusable": false}\nHope it helps.',
    ],
)
def test_an_answer_is_found_bare_fenced_or_among_prose(text):
    assert answer.parse(text) == {"reusable": False}


@pytest.mark.parametrize("text", ["", "no", "[1, 2]", '{"reusable": tru', "{} {"])
def test_no_json_object_is_no_answer(text):
    assert answer.parse(text) in (None, {})
    assert not answer.reusable(answer.parse(text) or {})


def test_only_a_true_reusable_counts():
    assert answer.reusable({"reusable": True})
    assert not answer.reusable({"reusable": "true"})
    assert not answer.reusable({"reusable": 1})


def test_the_budget_counts_calls_and_tokens_and_settles_to_what_was_spent():
    budget = Budget(max_calls=3, max_tokens=1000)
    assert budget.reserve(400)
    budget.settle(400, 100)  # the model reported fewer tokens than estimated
    assert budget.reserve(400)
    budget.settle(400, 400)
    assert not budget.reserve(600)  # 500 spent + 600 would pass 1000
    assert budget.reserve(400)
    assert not budget.reserve(1)  # three calls made
    figures = budget.figures()
    assert figures["calls"] == 3
    assert figures["skipped"] == 2


def test_the_budget_is_shared_with_forked_processes():
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    budget = Budget(max_calls=5, max_tokens=10_000)
    children = []
    for _ in range(3):
        with warnings.catch_warnings():  # a thread left by another test is no concern here
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            taken = sum(budget.reserve(10) for _ in range(4))
            os._exit(taken)
        children.append(pid)
    taken = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    assert sum(taken) == 5
    assert budget.figures()["calls"] == 5


def _spec(name: str, **kwargs: object) -> DetectorSpec:
    return DetectorSpec(name=name, detect=lambda events, **_: (), **kwargs)  # type: ignore[arg-type]


def test_a_deep_detector_runs_only_in_deep_scans_and_instead_of_what_it_replaces():
    specs = {
        "tier1": _spec("tier1"),
        "tier2": _spec("tier2"),
        "llm": _spec("llm", deep=True, replaces=("tier2",)),
    }
    plain = active_detectors(specs, Config())
    assert [s.name for s in plain] == ["tier1", "tier2"]
    deep = active_detectors(specs, Config(deep=DeepScan(enabled=True)))
    assert [s.name for s in deep] == ["tier1", "llm"]
    with pytest.raises(LessonsError, match="needs the lessons-llm plugin"):
        active_detectors({"tier2": specs["tier2"]}, Config(deep=DeepScan(enabled=True)))


def test_listing_plugins_and_a_plain_scan_never_import_llm():
    code = (
        "import sys\n"
        "from lessons_core.plugins.manager import Plugins\n"
        "from lessons_core.models import Config\n"
        "from lessons_core.scan.engine import active_detectors\n"
        "specs = Plugins.load({}).detectors()\n"
        "assert 'llm' in specs, sorted(specs)\n"
        "active_detectors(specs, Config())\n"
        "print('llm' in sys.modules, 'openai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]
