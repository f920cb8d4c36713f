"""What the hook-process tests of every agent share.

Imported as a plain module (``from hook_support import …``): ``tests/`` is on ``sys.path``
because the suite's root ``conftest.py`` lives there.

* :func:`build_lessons_home` — a lessons home whose manifest the real ``lessons add`` built;
* :func:`run_hook_process` — one payload through a hook command, with that home and a private
  state directory;
* :data:`BANNED` and :func:`modules_after_run` — the check that a hook process, after a real
  run, holds no third-party or heavy standard-library module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

#: Console scripts of the interpreter running the tests (venv or tox env).
BIN = Path(sys.executable).parent

#: Modules a hook process must never load: third-party ones, the heavy standard-library ones
#: and the cold-path models. Agents' contract tests add ``pathlib`` on top.
BANNED = frozenset(
    {
        "pluggy",
        "attr",
        "attrs",
        "cattrs",
        "cattr",
        "structlog",
        "click",
        "importlib.metadata",
        "typing",
        "dataclasses",
        "logging",
        "lessons_core.models",
    }
)


def build_lessons_home(home: Path, lessons: Sequence[Mapping[str, Any]]) -> Path:
    """Store ``lessons`` in ``home`` with the real ``lessons add`` (which builds the manifest)."""
    env = {**os.environ, "LESSONS_HOME": str(home), "HOME": str(home)}
    proc = subprocess.run(
        [str(BIN / "lessons"), "add", "-"],
        input=json.dumps(list(lessons)),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"lessons add failed: {proc.stderr}")
    return home


def hook_env(lessons_home: Path, state: Path) -> dict[str, str]:
    """This environment with ``lessons_home`` and a private ``state`` directory (created)."""
    state.mkdir(mode=0o700, exist_ok=True)
    return {**os.environ, "LESSONS_HOME": str(lessons_home), "LESSONS_STATE_DIR": str(state)}


def run_hook_process(
    argv: Sequence[str], payload: Any, lessons_home: Path, state: Path
) -> subprocess.CompletedProcess[str]:
    """Pipe ``payload`` (a string as is, anything else as JSON) into the hook command ``argv``."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        list(argv),
        input=data,
        capture_output=True,
        text=True,
        env=hook_env(lessons_home, state),
        timeout=30,
        check=False,
    )


#: Runs ``<package>.hook.main()`` in-process, then writes every loaded module's name to argv[1].
_MODULES_RUN = """
import sys
from {package} import hook
status = hook.main()
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    fh.write("\\n".join(sorted(sys.modules)))
sys.exit(status)
"""


def modules_script(package: str) -> str:
    """Python source running ``package``'s hook and listing the modules it left loaded."""
    return _MODULES_RUN.format(package=package)


def modules_after_run(
    argv: Sequence[str],
    stdin: str | bytes,
    out_file: Path,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> tuple[set[str], subprocess.CompletedProcess[Any]]:
    """Run ``argv`` plus ``out_file`` with ``stdin``; the modules it listed there, and the run.

    The process must exit 0 (its stderr is the failure message).
    """
    proc = subprocess.run(
        [*argv, str(out_file)],
        input=stdin,
        capture_output=True,
        text=isinstance(stdin, str),
        env=dict(env) if env is not None else None,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return set(out_file.read_text().split()), proc
