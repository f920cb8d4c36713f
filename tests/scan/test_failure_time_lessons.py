"""A lesson about a refusal the call does not show comes back with the refusal, not before it.

"File has not been read yet" and "String to replace not found" depend on the session and the
file, not on anything in the Edit call: the scanned lesson fires on none of the Edit calls that
go well, and the hook's failure-time recall brings it back when the refusal happens again, in
another file of another project. Run through the real hook processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lessons_core import services
from lessons_core.compiler.build import compile_manifest
from lessons_core.models import Config
from lessons_core.scan import events as ev
from lessons_core.scan import intake
from lessons_core.scan.detectors import tier2

HOOK = str(Path(sys.executable).parent / "lessons-claude-hook")
REFUSAL = (
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>"
)


def _hook(payload: dict[str, Any]) -> str:
    done = subprocess.run(
        [HOOK],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def _edit(session: str, path: str, event: str, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "/elsewhere/other-project",
        "hook_event_name": event,
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"},
        "tool_use_id": f"toolu_{session}",
        **extra,
    }


def test_edit_before_read_is_recalled_at_the_refusal_only(script, home: Path) -> None:
    script.file("Edit", "/p/src/app.py", REFUSAL, failure=ev.VALIDATION)
    script.file("Read", "/p/src/app.py", "1\tx = 1")
    script.file("Edit", "/p/src/app.py", "updated")
    (candidate,) = tier2.detect(script.events, config=Config())
    with services.open_store() as store:
        (lesson,) = store.add_lessons([intake.to_lesson(candidate)])
        services.rebuild_manifest(store)
        _manifest, _refused, warnings, _skipped = compile_manifest([lesson], Config(), 1)
    assert warnings == []  # recalled by its error line: not "never fires"

    # Edits of other Python files, in another project, that go well: nothing is said.
    for n, path in enumerate(["/elsewhere/other-project/main.py", "/elsewhere/x/y.py"]):
        assert _hook(_edit(f"pre{n}", path, "PreToolUse")) == ""

    # The same refusal on another file: the lesson comes with it.
    failing = _edit("fail", "/elsewhere/other-project/lib.js", "PostToolUseFailure", error=REFUSAL)
    out = _hook(failing)
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Read the file first" in context
    assert f"injected={lesson.id}" in context
