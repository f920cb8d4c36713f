"""The manifest compiler against a real SQLite store: floors, indexes, texts, atomic writes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import pluggy
import pytest
from compiler_support import make_lesson

from lessons_core.compiler import build as build_mod
from lessons_core.compiler.build import build, build_manifest, compile_manifest
from lessons_core.errors import LessonsError
from lessons_core.models import Config, LessonType, MatchTarget, Status, Triggers
from lessons_core.plugin import PROJECT, hookimpl
from lessons_core.plugins import hookspecs
from lessons_core.protocol import PROTOCOL_TEXT

SCHEMA = Path(build_mod.__file__).resolve().parents[1] / "schemas" / "manifest.schema.json"


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_floors_leave_out_weak_and_inactive_lessons(store, home):
    """Confidence below 0.5, priority below 1 and non-active lessons never reach the manifest."""
    kept = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\bls\b"]})
    weak = make_lesson(confidence=0.4, triggers={"command_patterns": ["x"]})
    low = make_lesson(priority=0, triggers={"command_patterns": ["y"]})
    disabled = make_lesson(status=Status.DISABLED, triggers={"command_patterns": ["z"]})
    store.add_lessons([kept, weak, low, disabled])
    result = build(store, Config(), home)
    assert set(result.manifest["lessons"]) == {kept.id}
    assert result.skipped_floor == 2
    on_disk = _read(home / "lesson-manifest.json")
    assert set(on_disk["lessons"]) == {kept.id}


def test_indexes_by_tool_any_tool_and_session(store, home):
    """Tool-gated lessons go under each tool, pattern-only ones in anyTool, directives at start."""
    bash = make_lesson(priority=3, triggers={"tool_names": ["Bash"], "command_patterns": ["git"]})
    both = make_lesson(
        priority=9, triggers={"tool_names": ["Edit", "Write"], "path_patterns": ["*.py"]}
    )
    anywhere = make_lesson(triggers={"content_patterns": ["password ="]})
    directive = make_lesson(type=LessonType.DIRECTIVE, priority=4)
    protocol = make_lesson(type=LessonType.PROTOCOL, priority=8)
    silent = make_lesson()  # a hint with no trigger at all
    store.add_lessons([bash, both, anywhere, directive, protocol, silent])
    manifest = build(store, Config(), home).manifest
    assert manifest["byTool"] == {"Bash": [bash.id], "Edit": [both.id], "Write": [both.id]}
    assert manifest["anyTool"] == [anywhere.id]
    assert manifest["session"] == [protocol.id, directive.id]  # ranked by priority
    assert manifest["reinject"] == [both.id, protocol.id]  # priority >= 7, best first
    assert silent.id in manifest["lessons"]
    assert "tools" not in manifest["lessons"][directive.id]


def test_manifest_header_config_and_schema(store, home):
    """The header, config and protocol are there and the file validates against its schema."""
    store.add_lessons([make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["npm"]})])
    path = build_manifest(store, Config(injection_budget_bytes=2048), home)
    manifest = _read(path)
    assert manifest["type"] == "lessons-manifest"
    assert manifest["version"] == 1
    assert manifest["generator"] == "lessons 0.1.0"
    assert manifest["storeRevision"] == store.revision()
    assert manifest["config"]["injectionBudgetBytes"] == 2048
    assert manifest["config"]["maxLessonsPerInjection"] == 3
    assert manifest["config"]["compactionReinjectionThreshold"] == 7
    assert manifest["config"]["scoring"]["errorThenSuccess"] == 0.25
    assert manifest["protocol"] == PROTOCOL_TEXT
    jsonschema.validate(manifest, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert (home / "manifest.stamp").read_text().strip() == str(store.revision())


def test_fingerprint_is_the_hash_of_the_body(store, home):
    """Same lessons → same fingerprint; any change → a different one."""
    store.add_lessons([make_lesson(triggers={"command_patterns": ["make"]})])
    first = build(store, Config(), home).manifest
    again = build(store, Config(), home).manifest
    assert first["fingerprint"] == again["fingerprint"]
    assert first["fingerprint"] == build_mod.fingerprint(first)
    store.add_lessons([make_lesson(triggers={"command_patterns": ["cargo"]})])
    assert build(store, Config(), home).manifest["fingerprint"] != first["fingerprint"]


def test_lesson_entry_texts_prefilters_and_globs():
    """A compiled entry carries the rendered texts, literals and glob regexes."""
    lesson = make_lesson(
        summary="pytest hangs",
        mistake="bare pytest waits for a TTY",
        remediation="use python -m pytest -p no:cacheprovider",
        type=LessonType.NUDGE,
        priority=8,
        confidence=0.9,
        tags=["lang:python", "tool:pytest", "language:Bash"],
        triggers={
            "tool_names": ["Bash", "Bash"],
            "command_patterns": [r"\bpytest\b(?!.*-p no:cacheprovider)"],
            "path_patterns": ["**/tests/*.py"],
            "model_patterns": ["(?i)claude"],
        },
        command_match_target=MatchTarget.EXECUTABLE,
        scope="github.com/acme/widgets",
    )
    manifest, refused, _warnings, _ = compile_manifest([lesson], Config(), 1)
    assert not refused
    entry = manifest["lessons"][lesson.id]
    assert entry["type"] == "nudge"
    assert entry["tools"] == ["Bash"]
    assert entry["lang"] == ["bash", "python"]
    assert entry["scope"] == "github.com/acme/widgets"
    assert entry["commandTarget"] == "executable"
    assert entry["commands"] == [
        {
            "source": r"(?<![^\n])(?>.*\bpytest\b)(?!.*-p no:cacheprovider)",
            "literal": "pytest",
            "written": r"\bpytest\b(?!.*-p no:cacheprovider)",
        }
    ]
    # A leading **/ is "at any directory boundary", which (?:^|/) says already.
    assert entry["paths"][0]["source"] == r"(?:^|/)tests/[^/]*\.py$"
    assert entry["paths"][0]["literal"] == "tests/"
    assert entry["models"] == [{"source": "(?i)claude", "literal": "claude", "fold": True}]
    assert entry["text"] == (
        "## Lesson: pytest hangs\nbare pytest waits for a TTY\n"
        "**Fix**: use python -m pytest -p no:cacheprovider"
    )
    assert entry["short"].startswith("Lesson: pytest hangs")
    assert len(entry["short"].encode()) <= 200


def test_own_injection_text_wins_and_short_is_bounded():
    """A lesson's injection text is used as is; the short form stays within 200 bytes."""
    lesson = make_lesson(
        injection="Do not run {command}",
        summary="é" * 300,
        remediation="x" * 500,
        triggers={"command_patterns": ["rm"]},
    )
    entry = compile_manifest([lesson], Config(), 1)[0]["lessons"][lesson.id]
    assert entry["text"] == "Do not run {command}"
    assert len(entry["short"].encode("utf-8")) <= 200
    assert entry["short"].endswith("…")


@pytest.mark.parametrize("pad", range(8))
def test_short_form_is_cut_between_words(pad):
    """The summary the hooks fall back to never ends in half a word, wherever the cut falls."""
    words = "use python -m pytest -p no:cacheprovider with the flags the project sets " * 4
    summary = "pytest hangs" + "!" * pad
    lesson = make_lesson(summary=summary, remediation=words, triggers={"tool_names": ["Bash"]})
    short = compile_manifest([lesson], Config(), 1)[0]["lessons"][lesson.id]["short"]
    assert short.endswith("…") and len(short.encode("utf-8")) <= 200
    head = f"Lesson: {summary} — Fix: "
    kept = short[len(head) : -len("…")]
    assert short.startswith(head)
    assert words.startswith(kept + " "), short


def test_refused_patterns_skip_the_lesson_and_are_reported(store, home):
    """A catastrophic or invalid pattern keeps its lesson out; the others are still written."""
    good = make_lesson(triggers={"command_patterns": ["docker"]})
    nested = make_lesson(slug="nested", triggers={"command_patterns": ["(a+)+$"]})
    broken = make_lesson(slug="broken", triggers={"content_patterns": ["([unclosed"]})
    bad_glob = make_lesson(slug="bad-glob", triggers={"path_patterns": ["src/[abc"]})
    store.add_lessons([good, nested, broken, bad_glob])
    result = build(store, Config(), home)
    assert set(result.manifest["lessons"]) == {good.id}
    refused = {r.slug: r for r in result.refused}
    assert set(refused) == {"nested", "broken", "bad-glob"}
    assert refused["nested"].field == "command"
    assert "nested quantifiers" in refused["nested"].reason
    assert "does not compile" in refused["broken"].reason
    assert refused["bad-glob"].field == "path"
    assert "nested" in refused["nested"].message()
    assert set(_read(home / "lesson-manifest.json")["lessons"]) == {good.id}


def test_tool_gate_only_lessons_are_warned_about():
    """A lesson gated on a tool with no pattern fires on every call: the build says so."""
    lesson = make_lesson(slug="every-bash", triggers={"tool_names": ["Bash"]})
    _, _, warnings, _ = compile_manifest([lesson], Config(), 1)
    assert any("every-bash" in w and "every call" in w for w in warnings)


def test_failed_write_keeps_the_old_manifest(store, home, monkeypatch):
    """If os.replace fails the previous manifest stays intact and no temp file is left."""
    store.add_lessons([make_lesson(triggers={"command_patterns": ["first"]})])
    path = build_manifest(store, Config(), home)
    before = path.read_bytes()
    store.add_lessons([make_lesson(triggers={"command_patterns": ["second"]})])

    def broken_replace(source: Any, target: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(LessonsError, match="previous manifest is left in place"):
        build_manifest(store, Config(), home)
    assert path.read_bytes() == before
    assert [p.name for p in home.iterdir() if p.name.endswith(".tmp")] == []


def test_manifest_file_is_private(store, home):
    """The manifest holds lesson texts: readable by its owner only."""
    store.add_lessons([make_lesson(triggers={"command_patterns": ["ssh"]})])
    path = build_manifest(store, Config(), home)
    assert os.stat(path).st_mode & 0o077 == 0


class _Extender:
    """A plugin that adds a field to the manifest before it is written."""

    seen: list[int]

    def __init__(self) -> None:
        self.seen = []

    @hookimpl
    def lessons_manifest_compiled(self, manifest: dict[str, Any], config: Config) -> None:
        self.seen.append(len(manifest["lessons"]))
        manifest["extension"] = {"by": "test"}


def test_plugins_see_and_extend_the_manifest(store, home):
    """lessons_manifest_compiled runs before the write; the fingerprint covers the change."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    plugin = _Extender()
    pm.register(plugin)
    store.add_lessons([make_lesson(triggers={"command_patterns": ["kubectl"]})])
    manifest = _read(build_manifest(store, Config(), home, pm))
    assert plugin.seen == [1]
    assert manifest["extension"] == {"by": "test"}
    assert manifest["fingerprint"] == build_mod.fingerprint(manifest)


def test_path_regexes_match_the_whole_path():
    """Imported path regexes are anchored to the whole path, inline flags kept in front."""
    lesson = make_lesson(triggers=Triggers(tool_names=["Edit"], path_regexes=["(?i).*/[^/]*\\.sh"]))
    entry = compile_manifest([lesson], Config(), 1)[0]["lessons"][lesson.id]
    written = "(?i)^.*/[^/]*\\.sh$"
    assert entry["paths"][0]["written"] == written
    assert entry["paths"][0]["source"] == r"(?i)(?<![^\n])(?>[^\n]*?^)[^\n]*?/[^/]*\.sh$"
    for path, hit in [("/a/b/run.sh", True), ("/a/RUN.SH", True), ("/a/x.sh/y", False)]:
        assert bool(re.search(entry["paths"][0]["source"], path)) is hit
        assert bool(re.search(written, path)) is hit
    assert entry["paths"][0]["fold"] is True
