"""A store with a history worth a report: lessons, judged deliveries over weeks, candidates.

Deliveries go in two ways, both real: the outcome loop judging hook-logged deliveries against a
Claude Code transcript (:func:`judged_by_the_loop`), and recorded rows with outcomes for the weeks
before (:func:`history`), the way imported statistics arrive.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lessons_core import outcomes, serde, services
from lessons_core.hot import deliveries
from lessons_core.models import Candidate, Evidence

SESSION = "7d1c2d3e-0000-4000-8000-00000000beef"
#: Agent-written text meant to break out of the page if it were not escaped.
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> $\\frac{a}{b}$ & "quotes"'

LESSONS = [
    {
        "id": "rp-venv-pytest",
        "summary": "Run the tests with the project's virtualenv",
        "mistake": "Bare pytest runs the system interpreter, which lacks the project's packages.",
        "remediation": "Use .venv/bin/python -m pytest.",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^pytest\\b"]},
        "errorLines": ["E   ModuleNotFoundError: No module named 'requests'"],
    },
    {
        "id": "rp-git-stash",
        "summary": "git stash leaves untracked files behind",
        "mistake": "git stash without -u keeps untracked files in the tree.",
        "remediation": "Use git stash -u.",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^git stash$"]},
    },
    {
        "id": "rp-hostile",
        "summary": HOSTILE,
        "mistake": "An agent wrote this lesson " + HOSTILE,
        "remediation": "Escape it.",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^make\\b"]},
    },
    {
        "id": "rp-noisy-ls",
        "summary": "Listing hidden files needs -a",
        "mistake": "ls without -a hides dotfiles.",
        "remediation": "Use ls -a.",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^ls\\b"]},
    },
    {
        "id": "rp-never",
        "summary": "Alembic revisions need a down_revision",
        "mistake": "A revision file without down_revision breaks the chain.",
        "remediation": "Set down_revision.",
        "triggers": {"pathPatterns": ["**/alembic/versions/*.py"]},
    },
]
MODULE_ERROR = "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'\n1 error in 0.1s"


def iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def add_lessons() -> None:
    with services.open_store() as store:
        store.add_lessons([serde.lesson_from_json(obj) for obj in LESSONS])
        services.rebuild_manifest(store)


def history(now: datetime, weeks: int = 6) -> None:
    """Judged deliveries over the last weeks, spread over three agents and every outcome."""
    plan = [
        ("rp-venv-pytest", "claude", "pre_tool:hint", ["prevented", "prevented", "recurred"]),
        ("rp-venv-pytest", "codex", "pre_tool:hint", ["prevented", "quiet"]),
        ("rp-git-stash", "claude", "pre_tool:guard", ["needless", "prevented", "needless"]),
        ("rp-hostile", "gemini", "pre_tool:hint", ["quiet", "prevented"]),
        ("rp-noisy-ls", "claude", "pre_tool:hint", ["quiet", "quiet", "quiet", "unknown"]),
    ]
    with services.open_store() as store, store.transaction():
        for week in range(weeks):
            for n, (lesson, agent, event, verdicts) in enumerate(plan):
                if (week + n) % 3 == 2:
                    continue  # not every lesson every week
                for k, verdict in enumerate(verdicts):
                    at = now - timedelta(days=7 * (weeks - week), hours=3 * n + k)
                    store.record_delivery(lesson, f"s-{week}-{n}-{k}", agent, event,
                                          outcome=verdict, delivered_at=iso(at))  # fmt: skip


def judged_by_the_loop(home: Path, tmp_path: Path) -> outcomes.IngestReport:
    """A hint logged the way the hook logs it, then judged by the outcome loop: prevented."""
    from outcome_support import ClaudeTranscript

    now = datetime.now(UTC)
    transcript = ClaudeTranscript(tmp_path / "session.jsonl", session=SESSION)
    line = {"id": "rp-venv-pytest", "kind": "hint", "session": SESSION, "agent": "claude",
            "event": "pre_tool", "at": iso(now - timedelta(seconds=60)), "callId": "toolu_1",
            "transcript": str(transcript.path)}  # fmt: skip
    with (home / deliveries.LOG_NAME).open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    transcript.call("toolu_1", "pytest -q", iso(now - timedelta(seconds=60)))
    transcript.result("toolu_1", MODULE_ERROR, iso(now - timedelta(seconds=59)), error=True)
    transcript.call("toolu_2", ".venv/bin/python -m pytest -q", iso(now - timedelta(seconds=50)))
    transcript.result("toolu_2", "3 passed", iso(now - timedelta(seconds=49)))
    with services.session() as sess:
        return outcomes.ingest(sess.store, home, agents=sess.plugins.agents(), now=time.time())


def candidates() -> None:
    """Tier 1 and Tier 2 detections of two agents in two projects, in several states."""
    with services.open_store() as store, store.transaction():
        for n, (tier, agent, project, status) in enumerate(
            [
                (1, "claude", "/srv/dev/acme", "promoted"),
                (2, "claude", "/srv/dev/acme", "pending"),
                (2, "claude", "/srv/dev/widgets", "rejected"),
                (1, "codex", "/srv/dev/widgets", "pending"),
                (2, "codex", HOSTILE, "pending"),
            ]
        ):
            store.add_candidate(
                Candidate(
                    id=f"cand-{n:02d}",
                    tier=tier,
                    agent=agent,
                    tool="Bash",
                    trigger=f"^tool{n}\\b",
                    mistake=f"mistake {n}",
                    fix=f"fix {n}",
                    summary=f"candidate {n}",
                    status=status,
                    project=project,
                    evidence=(Evidence(file=f"/t/{n}.jsonl", line=n + 1, call_id=f"c{n}"),),
                )
            )


def populate(home: Path, tmp_path: Path) -> None:
    """Everything above, in the order a real store would see it."""
    add_lessons()
    history(datetime.now(UTC))
    report = judged_by_the_loop(home, tmp_path)
    assert report.outcomes == {"prevented": 1}, report
    candidates()
