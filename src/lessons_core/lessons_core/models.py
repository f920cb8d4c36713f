"""The lesson model: frozen attrs value classes shared by the store, the scanner and the compiler.

These classes are the cold path's vocabulary. They never reach the hook process: the compiler
flattens them into plain JSON (the manifest) that the stdlib-only hot path reads. Conversion from
and to JSON lives in :mod:`lessons_core.serde`, at the I/O boundaries only; inside the program we
pass these objects around.

Field names are Python's (snake_case); the JSON spelling of the contract (camelCase) is the
converter's business.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable

import attrs

from lessons_core.hot.digest import hex_sha256


class LessonType(enum.StrEnum):
    """How and when a lesson reaches the model (see the delivery table in the docs)."""

    HINT = "hint"
    NUDGE = "nudge"
    GUARD = "guard"
    PROTOCOL = "protocol"
    DIRECTIVE = "directive"


#: Lesson types delivered at session start rather than around a tool call.
SESSION_TYPES = frozenset({LessonType.PROTOCOL, LessonType.DIRECTIVE})


class Status(enum.StrEnum):
    """Where a lesson is in its life: only ``active`` lessons are compiled into the manifest."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    DISABLED = "disabled"
    ARCHIVED = "archived"


class MatchTarget(enum.StrEnum):
    """What a command pattern is matched against.

    ``executable`` blanks quoted strings first, so ``git commit -m "rm -rf /"`` does not fire a
    lesson about ``rm -rf``.
    """

    FULL = "full"
    EXECUTABLE = "executable"


def _tuple_of_str(value: Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@attrs.frozen
class Triggers:
    """When a lesson fires. Every non-empty list is a gate; an empty list does not constrain.

    ``tool_names`` are canonical (Claude Code's spelling: ``Bash``, ``Edit`` …); adapters map their
    agent's native names onto them. Command, content and model patterns are Python regular
    expressions; path patterns are globs (``**`` crosses directories). ``path_regexes`` are Python
    regular expressions matched against the whole absolute path: imported catalogues (the Node
    manifest) express paths that way, and turning a regex back into a glob loses meaning.
    """

    tool_names: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    command_patterns: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    path_patterns: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    content_patterns: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    model_patterns: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    path_regexes: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)

    def is_empty(self) -> bool:
        return not (
            self.tool_names
            or self.command_patterns
            or self.path_patterns
            or self.content_patterns
            or self.model_patterns
            or self.path_regexes
        )


@attrs.frozen
class Sighting:
    """One place a lesson's mistake was seen: the contract's evidence shape plus the project of
    the session (a lesson gathers sightings from many projects, a candidate has one)."""

    file: str
    line: int
    call_id: str | None = None
    session_id: str | None = None
    project: str | None = None


@attrs.frozen
class Provenance:
    """Where a lesson came from and how often its mistake was seen.

    The counts feed the scoring bonuses (seen in several sessions, in several projects).
    ``evidence`` lists where it was seen, the first :data:`MAX_SIGHTINGS` places (the counts
    go on past them): a scan that folds a repeat into the lesson adds the repeat's place, so a
    user can open the transcripts behind it.
    """

    source: str = "manual"  # manual | import | scan:tier1 | scan:tier2 | plugin:<name>
    sessions: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    projects: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    occurrences: int = 1
    evidence: tuple[Sighting, ...] = ()


#: The most sightings a lesson keeps (its row is written again at every repeat).
MAX_SIGHTINGS = 50


def add_sightings(kept: Iterable[Sighting], new: Iterable[Sighting]) -> tuple[Sighting, ...]:
    """``kept`` and then those of ``new`` at another place (file, line, call), up to
    :data:`MAX_SIGHTINGS`: the first places are kept, a later one only raises the counts."""
    out = dict.fromkeys(kept)
    places = {(s.file, s.line, s.call_id) for s in out}
    for sighting in new:
        if len(out) >= MAX_SIGHTINGS:
            break
        place = (sighting.file, sighting.line, sighting.call_id)
        if place not in places:
            places.add(place)
            out[sighting] = None
    return tuple(out)[:MAX_SIGHTINGS]


@attrs.frozen
class Lesson:
    """One lesson: a mistake, its remediation, and the triggers that bring it back.

    ``id`` is a ULID (sortable by creation time); ``slug`` is a kebab-case summary plus a
    4-character random suffix, stable once assigned. ``content_hash`` identifies the *content*
    across stores and machines and is what import and deduplication compare.
    """

    id: str
    slug: str
    summary: str
    mistake: str
    remediation: str
    type: LessonType = LessonType.HINT
    triggers: Triggers = Triggers()
    command_match_target: MatchTarget = MatchTarget.FULL
    priority: int = 5
    confidence: float = 0.8
    tags: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    scope: str | None = None
    injection: str | None = None
    status: Status = Status.ACTIVE
    #: Normalized error lines the mistake produced; failure-time recall searches them.
    error_lines: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    provenance: Provenance = Provenance()
    created_at: str = ""
    updated_at: str = ""

    @property
    def content_hash(self) -> str:
        return content_hash(self)


def content_hash(lesson: Lesson) -> str:
    """A stable digest of what a lesson *says and when it fires*.

    Ids, slugs, timestamps, status, counts and confidence are left out on purpose: two machines
    that captured the same lesson independently must agree on the hash.
    """
    t = lesson.triggers
    payload = {
        "summary": " ".join(lesson.summary.split()).lower(),
        "mistake": " ".join(lesson.mistake.split()).lower(),
        "remediation": " ".join(lesson.remediation.split()).lower(),
        "type": str(lesson.type),
        "toolNames": sorted(t.tool_names),
        "commandPatterns": sorted(t.command_patterns),
        "pathPatterns": sorted(t.path_patterns),
        "contentPatterns": sorted(t.content_patterns),
        "modelPatterns": sorted(t.model_patterns),
        "scope": lesson.scope,
    }
    if t.path_regexes:
        # Only present when used, so hashes of lessons without path regexes stay as they were.
        payload["pathRegexes"] = sorted(t.path_regexes)
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hex_sha256(blob)[:32]


@attrs.frozen
class Evidence:
    """Where in a transcript a candidate was seen (the contract's evidence shape)."""

    file: str
    line: int
    call_id: str | None = None
    session_id: str | None = None


@attrs.frozen
class Candidate:
    """A lesson proposed by a detector, waiting for intake checks and review.

    ``tier`` 1 is a ``#lesson`` block the agent wrote, 2 a heuristic detection, higher tiers
    belong to plugins.
    """

    id: str
    tier: int
    agent: str
    tool: str | None
    trigger: str | None
    mistake: str
    fix: str
    summary: str = ""
    tags: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    confidence: float = 0.5
    priority: int = 5
    status: str = "pending"  # pending | held | waiting | promoted | rejected | duplicate
    evidence: tuple[Evidence, ...] = ()
    error_lines: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    project: str | None = None
    detector: str = ""
    created_at: str = ""


@attrs.frozen
class ScoringWeights:
    """Weights of the Tier 2 confidence formula; configurable in ``config.json``."""

    base: float = 0.3
    error_then_success: float = 0.25
    user_correction: float = 0.3
    retry_loop: float = 0.15
    hang_or_timeout: float = 0.15
    self_diagnosis: float = 0.1
    known_mistake: float = 0.1
    multi_session_bonus: float = 0.1
    multi_project_bonus: float = 0.1
    max_confidence: float = 0.95


@attrs.frozen
class DeepScan:
    """Deep scanning (``deep`` in ``config.json``): a detector plugin asks a language model to
    write the lesson of each heuristic finding. Off unless ``enabled`` or ``lessons scan
    --deep``; ``model`` is the plugin's model name (empty: its default); every scan may make at
    most ``max_calls`` model calls and spend ``max_tokens`` tokens."""

    enabled: bool = False
    model: str = ""
    max_calls: int = 20
    max_tokens: int = 40000


@attrs.frozen
class McpSettings:
    """The MCP server (``mcp`` in ``config.json``, distribution ``lessons-mcp``).

    ``record_active``: a lesson the model records through the server's ``record`` tool becomes
    an active lesson at once instead of a pending candidate for ``lessons review``."""

    record_active: bool = False


@attrs.frozen
class TeamSettings:
    """A team store shared by several machines (``team`` in ``config.json``).

    ``store`` names a registered store that can sync (``postgres`` with ``lessons[postgres]``);
    empty means no team store: nothing leaves the machine. ``url`` is its address (a database
    URL; its plugin may also read one from the environment), never shown with its password.
    ``author`` and ``machine`` label the rows this machine writes (empty: the login name, and
    the host name plus an id kept in ``LESSONS_HOME``)."""

    store: str = ""
    url: str = ""
    author: str = ""
    machine: str = ""


@attrs.frozen
class Config:
    """User configuration (``config.json`` in ``LESSONS_HOME``); the defaults are the contract's."""

    injection_budget_bytes: int = 4096
    max_lessons_per_injection: int = 3
    min_confidence: float = 0.5
    min_priority: int = 1
    compaction_reinjection_threshold: int = 7
    session_start_budget_bytes: int = 4096
    recall_budget_bytes: int = 2048
    auto_scan: bool = True
    auto_scan_interval_hours: float = 1.0
    #: Extra transcript roots or files ``lessons scan`` reads besides the agents' own (``~``
    #: expanded), as the Node original's ``scanPaths`` did.
    scan_paths: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    #: Detectors a scan leaves out, by name. The user-correction detector is off until its
    #: precision on sessions it was not tuned on is worth the review time (docs/scanner.md).
    off_detectors: tuple[str, ...] = attrs.field(default=("corrections",), converter=_tuple_of_str)
    #: At most this many new pending candidates per scan, highest-scored first; the rest are
    #: held back (status ``held``) for later scans. 0: no limit.
    max_candidates_per_scan: int = 0
    #: Transcript growth (bytes) at which directive lessons are delivered again, once each.
    directive_reinject_thresholds: tuple[int, ...] = (400_000, 800_000, 1_400_000)
    #: Transcript growth (bytes) of a session after which ``Stop`` arms the lesson reminder.
    stop_reminder_bytes: int = 150_000
    #: The most lesson files, and bytes of them, read from one repository's ``.lessons``: a
    #: repository over either is refused whole (a clone is anybody's; its reading must stay
    #: short).
    repo_max_files: int = 500
    repo_max_bytes: int = 2 * 1024 * 1024
    #: Set by the MCP server's install: reminders name its ``record`` tool.
    mcp_installed: bool = False
    scoring: ScoringWeights = ScoringWeights()
    deep: DeepScan = DeepScan()
    mcp: McpSettings = McpSettings()
    team: TeamSettings = TeamSettings()
