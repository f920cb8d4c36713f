"""Entry-point plugins found by ``importlib.metadata`` in a child process, good and broken.

Each test installs a small distribution (module + dist-info) into a scratch directory and runs
the real ``lessons plugins`` command with that directory on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

GOOD = """
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import DetectorSpec, MatcherSpec

def _detect(events):
    return []

@hookimpl
def lessons_register_detectors(register):
    register(DetectorSpec(name="sample-detector", detect=_detect, tier=3))

@hookimpl
def lessons_register_matchers(register):
    register(MatcherSpec(name="sample-matcher", target="sample_plugin:match"))
"""

Run = Callable[..., subprocess.CompletedProcess[str]]
Make = Callable[..., None]


def _rows(result: subprocess.CompletedProcess[str]) -> dict[str, dict[str, object]]:
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    return {row["name"]: row for row in rows}


def test_third_party_plugin_is_listed_with_its_distribution(
    fake_dist: Make, run_lessons: Run
) -> None:
    """A plugin distribution is loaded; the listing shows its dist, version, hooks, specs."""
    fake_dist("lessons-sample", "sample", GOOD, version="1.2.3")
    rows = _rows(run_lessons("plugins", "--json"))
    row = rows["sample"]
    assert row["kind"] == "entry point"
    assert row["distribution"] == "lessons-sample"
    assert row["version"] == "1.2.3"
    assert row["hooks"] == ["lessons_register_detectors", "lessons_register_matchers"]
    assert row["registers"] == {"detectors": ["sample-detector"], "matchers": ["sample-matcher"]}
    assert {"claude", "codex", "gemini", "lessons_core.builtin.sqlite_store"} <= set(rows)


def test_switches_apply_to_third_party_plugins(fake_dist: Make, run_lessons: Run) -> None:
    """Allow-list, block-list and autoload switch all act on the new plugin too."""
    fake_dist("lessons-sample", "sample", GOOD)
    assert "sample" not in _rows(
        run_lessons("plugins", "--json", LESSONS_DISABLED_PLUGINS="sample")
    )
    only = _rows(run_lessons("plugins", "--json", LESSONS_PLUGINS="lessons-sample"))
    assert {n for n, r in only.items() if r["kind"] == "entry point"} == {"sample"}
    off = _rows(run_lessons("plugins", "--json", "--all", LESSONS_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert off["sample"]["status"] == "skipped (LESSONS_DISABLE_PLUGIN_AUTOLOAD)"


def _fails_naming(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_plugin_that_fails_to_import_is_named(fake_dist: Make, run_lessons: Run) -> None:
    """An import error in a plugin names the plugin and says how to block it."""
    fake_dist("lessons-badimport", "badimport", "import module_that_does_not_exist\n")
    result = run_lessons("plugins")
    _fails_naming(
        result,
        "plugin 'badimport' (distribution lessons-badimport) failed to load",
        "ModuleNotFoundError",
        "LESSONS_DISABLED_PLUGINS=badimport",
    )
    # ... and blocking it, as the message says, gets the user going again.
    assert run_lessons("plugins", LESSONS_DISABLED_PLUGINS="badimport").returncode == 0


def test_plugin_raising_during_registration_is_named(fake_dist: Make, run_lessons: Run) -> None:
    """A register hook that raises is reported with the plugin's name and the hook."""
    source = """
from lessons_core.plugin import hookimpl

@hookimpl
def lessons_register_agents(register):
    raise RuntimeError("cannot find my config")
"""
    fake_dist("lessons-raiser", "raiser", source)
    _fails_naming(
        run_lessons("plugins"),
        "plugin 'raiser' failed in lessons_register_agents",
        "cannot find my config",
    )


def test_plugin_with_an_unknown_hook_is_named(fake_dist: Make, run_lessons: Run) -> None:
    """check_pending catches a misspelt hook and the error names the plugin."""
    source = """
from lessons_core.plugin import hookimpl

@hookimpl
def lessons_register_detector(register):
    pass
"""
    fake_dist("lessons-typo", "typo", source)
    _fails_naming(run_lessons("plugins"), "'typo'", "did you mean lessons_register_detectors?")


def test_plugin_with_wrong_hook_arguments_is_named(fake_dist: Make, run_lessons: Run) -> None:
    """An implementation asking for an argument the spec lacks is refused at load time."""
    source = """
from lessons_core.plugin import hookimpl

@hookimpl
def lessons_register_agents(register, colour):
    pass
"""
    fake_dist("lessons-args", "args", source)
    _fails_naming(run_lessons("plugins"), "plugin 'args'", "does not fit the lessons hook specs")


def test_plugin_clashing_with_an_adapter_is_named(fake_dist: Make, run_lessons: Run) -> None:
    """A second 'claude' agent is refused, naming both plugins."""
    source = """
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import AgentSpec

@hookimpl
def lessons_register_agents(register):
    register(AgentSpec(name="claude", hook_command="x", hook_module="x.hook"))
"""
    fake_dist("lessons-fakeclaude", "fakeclaude", source)
    _fails_naming(
        run_lessons("plugins"), "two plugins register the AgentSpec 'claude'", "'fakeclaude'"
    )
