"""The public API for adapters and plugins: what a distribution outside the core may import.

An agent adapter, a store, a detector, a lesson source or a command plugin imports what it
needs from here (and, in a hook process, from :mod:`lessons_core.hot`, which holds only the
standard library). Every other module of ``lessons_core`` is private and free to move; the
import contract (``tests/plugins/test_import_contract.py``) keeps the adapters and plugins of this
repository to that rule. ``docs/plugins/api.md`` says what each name is for.

The names are re-exported lazily (a module ``__getattr__``): a plugin module that imports
``hookimpl`` and ``AgentSpec`` at registration must not pay for the store, the scanner and the
compiler, which the plugin manager's start-up would otherwise import on every command.

Namespaces kept whole, as submodules: :mod:`lessons_core.api.events` (the normalized events a
reader yields), :mod:`lessons_core.api.installing` (helpers for an agent's settings installer),
:mod:`lessons_core.api.rows` (lesson and candidate rows for a store), :mod:`lessons_core.api.shared`
(the rules for lessons that come from outside the user's own store),
:mod:`lessons_core.api.triggers` (trigger helpers for a detector) and
:mod:`lessons_core.api.testing` (the contract kits; it imports pytest, this module does not).
"""

from __future__ import annotations

import importlib

# Not ``typing.TYPE_CHECKING``: importing typing would cost a plugin module that has no other
# use for it; type checkers treat this name the same way.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lessons_core.errors import LessonsError, NotFound, StoreError, ValidationError
    from lessons_core.hot.paths import lessons_home
    from lessons_core.ids import make_slug, new_id
    from lessons_core.jsoninput import loads as json_loads
    from lessons_core.logs import get_logger
    from lessons_core.models import (
        Candidate,
        Config,
        Evidence,
        Lesson,
        LessonType,
        Provenance,
        Sighting,
        Status,
        Triggers,
        add_sightings,
        content_hash,
    )
    from lessons_core.patterns.kept_programs import compile as compile_regex
    from lessons_core.plugin import hookimpl
    from lessons_core.plugins.adapters import agent_spec_for
    from lessons_core.plugins.manager import PluginError, Plugins
    from lessons_core.plugins.seams import (
        Detect,
        FindDuplicate,
        HotAdapter,
        HotDecision,
        HotEvent,
        Installer,
        PrepareDetector,
        Recognize,
        StoreFactory,
        TeamSync,
        TranscriptReader,
        TranscriptRoots,
    )
    from lessons_core.plugins.specs import (
        AgentSpec,
        DedupSpec,
        DetectorSpec,
        InstallExtraSpec,
        LessonSourceSpec,
        SourceLessons,
        StoreSpec,
    )
    from lessons_core.privacy import redact_candidate, redact_head, redact_lesson, scrub
    from lessons_core.scan.detectors.failures import (
        HEAD,
        MistakeClass,
        class_of,
        classify_text,
        error_lines,
        mistake_class,
    )
    from lessons_core.scan.detectors.tier2 import Finding
    from lessons_core.scan.detectors.tier2 import findings as heuristic_findings
    from lessons_core.scan.intake import pattern_problem
    from lessons_core.scan.lines import Buffer, as_text, iter_lines, iter_runs, iter_spans, loads
    from lessons_core.serde import lesson_to_json
    from lessons_core.store.base import RecallSource, ScanStateListing, Store, StoreDiagnostics
    from lessons_core.store.sqlite import candidate_key, utc_now
    from lessons_core.team import SyncReport, mask_url
    from lessons_core.validate import check_glob, check_lesson

#: Each public name: the private module it lives in, and its name there.
_WHERE: dict[str, tuple[str, str]] = {}


def _add(module: str, *names: str, **renamed: str) -> None:
    for name in names:
        _WHERE[name] = (module, name)
    for public, private in renamed.items():
        _WHERE[public] = (module, private)


# Plugging in: the marker, the specs a plugin registers, the seams its callables fill.
_add("lessons_core.plugin", "hookimpl")
_add("lessons_core.plugins.manager", "Plugins", "PluginError")
_add(
    "lessons_core.plugins.specs",
    "AgentSpec",
    "DetectorSpec",
    "StoreSpec",
    "DedupSpec",
    "LessonSourceSpec",
    "SourceLessons",
    "InstallExtraSpec",
)
_add(
    "lessons_core.plugins.seams",
    "TranscriptRoots",
    "TranscriptReader",
    "Recognize",
    "Installer",
    "Detect",
    "PrepareDetector",
    "FindDuplicate",
    "StoreFactory",
    "TeamSync",
    "HotEvent",
    "HotDecision",
    "HotAdapter",
)
_add("lessons_core.plugins.adapters", "agent_spec_for")
# The model and its errors.
_add(
    "lessons_core.models",
    "Lesson",
    "Candidate",
    "Evidence",
    "Triggers",
    "Provenance",
    "LessonType",
    "Status",
    "Config",
    "content_hash",
    "Sighting",
    "add_sightings",
)
_add("lessons_core.errors", "LessonsError", "ValidationError", "StoreError", "NotFound")
_add("lessons_core.ids", "new_id", "make_slug")
_add("lessons_core.validate", "check_lesson", "check_glob")
# Stores.
_add("lessons_core.store.base", "Store", "RecallSource", "ScanStateListing", "StoreDiagnostics")
_add("lessons_core.store.sqlite", "candidate_key", "utc_now")
_add("lessons_core.team", "SyncReport", "mask_url")
_add("lessons_core.jsoninput", json_loads="loads")
_add("lessons_core.serde", "lesson_to_json")
# Transcript readers.
_add(
    "lessons_core.scan.lines", "Buffer", "as_text", "iter_lines", "iter_runs", "iter_spans", "loads"
)
_add(
    "lessons_core.scan.detectors.failures",
    "HEAD",
    "class_of",
    "classify_text",
    "error_lines",
    "MistakeClass",
    "mistake_class",
)
_add("lessons_core.patterns.kept_programs", compile_regex="compile")
# Detectors.
_add("lessons_core.scan.detectors.tier2", "Finding", heuristic_findings="findings")
_add("lessons_core.scan.intake", "pattern_problem")
# Privacy, logging, where the data lives.
_add("lessons_core.privacy", "redact_head", "scrub", "redact_lesson", "redact_candidate")
_add("lessons_core.logs", "get_logger")
_add("lessons_core.hot.paths", "lessons_home")

__all__ = [
    "HEAD",
    "AgentSpec",
    "Buffer",
    "Candidate",
    "Config",
    "DedupSpec",
    "Detect",
    "DetectorSpec",
    "Evidence",
    "FindDuplicate",
    "Finding",
    "HotAdapter",
    "HotDecision",
    "HotEvent",
    "InstallExtraSpec",
    "Installer",
    "Lesson",
    "LessonSourceSpec",
    "LessonType",
    "LessonsError",
    "MistakeClass",
    "NotFound",
    "PluginError",
    "Plugins",
    "PrepareDetector",
    "Provenance",
    "RecallSource",
    "Recognize",
    "ScanStateListing",
    "Sighting",
    "SourceLessons",
    "Status",
    "Store",
    "StoreDiagnostics",
    "StoreError",
    "StoreFactory",
    "StoreSpec",
    "SyncReport",
    "TeamSync",
    "TranscriptReader",
    "TranscriptRoots",
    "Triggers",
    "ValidationError",
    "add_sightings",
    "agent_spec_for",
    "as_text",
    "candidate_key",
    "check_glob",
    "check_lesson",
    "class_of",
    "classify_text",
    "compile_regex",
    "content_hash",
    "error_lines",
    "get_logger",
    "heuristic_findings",
    "hookimpl",
    "iter_lines",
    "iter_runs",
    "iter_spans",
    "json_loads",
    "lesson_to_json",
    "lessons_home",
    "loads",
    "make_slug",
    "mask_url",
    "mistake_class",
    "new_id",
    "pattern_problem",
    "redact_candidate",
    "redact_head",
    "redact_lesson",
    "scrub",
    "utc_now",
]


def __getattr__(name: str) -> Any:
    """Import the module that holds ``name`` on first use (see the module's docstring)."""
    try:
        module, attribute = _WHERE[name]
    except KeyError:
        # AttributeError lets ``from lessons_core.api import events`` find the submodule.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
