"""Write the lessons hooks file into GitHub Copilot CLI's configuration (cold path).

Copilot CLI merges every ``*.json`` file of its hooks folders: the user's
``$COPILOT_HOME/hooks/`` (``~/.copilot/hooks/``) and a repository's ``.github/hooks/``. So
``install`` writes one file of its own there, ``lessons.json``, and touches nothing else;
``--project DIR`` writes ``DIR/.github/hooks/lessons.json``. The file is::

    {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "<hook> preToolUse || true",
                                             "timeoutSec": 10}], ...}}

Which events and why (Copilot CLI 1.0, see docs/agents/copilot.md):

* ``preToolUse`` — guards and nudges deny the call there (Copilot reads only the decision);
* ``postToolUse`` — hints ride along with the call's result (Copilot appends this event's
  ``additionalContext`` to it); a shell command that exited non-zero also gets failure-time
  recall here, as Copilot reports it as a success;
* ``postToolUseFailure`` — the call's hints and failure-time recall after a failed call;
* ``sessionStart`` and ``subagentStart`` — protocol and directive lessons before work starts;
* ``userPromptSubmitted`` — recall on a new prompt;
* ``preCompact`` — writes the compaction handoff and re-arms high-priority lessons;
* ``agentStop`` — arms the end-of-turn reminder to record a lesson (it answers nothing).

Copilot's camelCase payloads do not name their event, so each command ends with the event's
name. Copilot **denies** a tool call whose ``preToolUse`` hook exits non-zero, and a hook that
cannot even start (an interpreter removed since the install) exits 127: each command ends in
``|| true``, so lessons fails open whatever happens. No matcher is set: every tool's calls reach
the hook, MCP tools' included, and a call no lesson is about costs one quick, silent run.

The rules are those of the settings installers (:mod:`lessons_core.installing`), applied to a
file that is wholly ours: installing twice writes nothing the second time, a file of that name
that we did not write is never overwritten nor removed, a file of ours that changes is backed
up once (``lessons.json.bak``, which Copilot does not read), writes are atomic, and uninstalling
removes the file, its backup, and the ``hooks`` folder when nothing else is left there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_copilot.roots import copilot_home
from lessons_core.api import AgentSpec, LessonsError, installing

AGENT = "copilot"
FILE_NAME = "lessons.json"

#: Seconds. The hook answers in tens of milliseconds; this only bounds a wedged run (Copilot
#: lets the call go ahead when a hook times out).
TIMEOUT_SEC = 10

#: The events we register, in order.
EVENTS = (
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "sessionStart",
    "subagentStart",
    "userPromptSubmitted",
    "preCompact",
    "agentStop",
)

#: What ends every command we register: a hook that cannot start must not deny the call.
FAIL_OPEN = " || true"


@attrs.frozen
class CopilotStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` of the hooks file.

    ``foreign`` is True when a ``lessons.json`` we did not write sits where ours goes;
    ``enabled`` is False when Copilot's user settings set ``disableAllHooks``.
    """

    foreign: bool = False
    enabled: bool = True

    def notes(self) -> list[str]:
        notes = []
        if self.foreign:
            notes.append(f"{self.path} was not written by lessons; it is left alone")
        if self.registered and not self.enabled:
            notes.append('"disableAllHooks" is set in Copilot\'s settings.json: it runs no hook')
        return notes

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        data["foreign"] = self.foreign
        data["enabled"] = self.enabled
        return data


def _spec() -> AgentSpec:
    from lessons_copilot.plugin import agent_spec

    return agent_spec()


def hooks_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The hooks file ``install`` writes for this environment / project."""
    if project is not None:
        return Path(project).expanduser().resolve() / ".github" / "hooks" / FILE_NAME
    env = os.environ if environ is None else environ
    return copilot_home(env) / "hooks" / FILE_NAME


def event_command(command: str, event: str) -> str:
    """The line registered for ``event``: the hook command, the event's name, ``|| true``."""
    return f"{command} {shlex.quote(event)}{FAIL_OPEN}"


def base_command(line: str, event: str) -> str | None:
    """The hook command of a line :func:`event_command` wrote for ``event``, else ``None``."""
    tail = f" {shlex.quote(event)}{FAIL_OPEN}"
    return line[: -len(tail)] if line.endswith(tail) else None


def render(command: str) -> str:
    """The hooks file's text for the hook command ``command``."""
    hooks = {
        event: [
            {"type": "command", "bash": event_command(command, event), "timeoutSec": TIMEOUT_SEC}
        ]
        for event in EVENTS
    }
    return installing.dump_settings({"version": 1, "hooks": hooks})


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonsError(f"cannot read {path}: {exc}") from exc


def registered(text: str | None) -> dict[str, str] | None:
    """``{event: hook command}`` of a hooks file of ours, or ``None`` when it is not ours.

    Ours: a JSON object whose every hook is one ``lessons-copilot`` command ending with the
    name of the event it is registered for and ``|| true``.
    """
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict) or not hooks:
        return None
    found: dict[str, str] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
            return None
        line = entries[0].get("bash")
        command = base_command(line, event) if isinstance(line, str) else None
        if command is None or (
            "lessons_copilot" not in command and "lessons-copilot" not in command
        ):
            return None
        found[event] = command
    return found


def install(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
    style: str = installing.DEFAULT_STYLE,
) -> installing.InstallResult:
    """Write (or update) the hooks file; idempotent."""
    command = installing.hook_command(
        _spec(), style, environ if environ is not None else os.environ
    )
    path = hooks_path(environ, project)
    before = _read(path)
    if before is not None and registered(before) is None:
        msg = f"{path} exists and was not written by lessons; move it aside and install again"
        raise LessonsError(msg)
    after = render(command)
    changed = before != after
    diff = installing.settings_diff(path, before, after) if changed else ""
    if not changed or dry_run:
        return installing.InstallResult(AGENT, path, changed, False, diff, after)
    bak = installing.backup_once(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    installing.write_atomic(path, after)
    return installing.InstallResult(AGENT, path, True, True, diff, after, backup=bak)


def uninstall(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> installing.InstallResult:
    """Remove our hooks file, its backup and an emptied ``hooks`` folder; a foreign file stays."""
    path = hooks_path(environ, project)
    before = _read(path)
    if registered(before) is None:
        return installing.InstallResult(AGENT, path, False, False, "", before or "")
    diff = installing.settings_diff(path, before, None)
    result = installing.InstallResult(AGENT, path, True, not dry_run, diff, "", removed_file=True)
    if dry_run:
        return result
    path.unlink()
    bak = installing.backup_path(path)
    with contextlib.suppress(OSError, LessonsError):
        if registered(_read(bak)) is not None:
            bak.unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # only when empty
    return result


def _enabled(environ: Mapping[str, str] | None) -> bool:
    env = os.environ if environ is None else environ
    try:
        settings, _ = installing.read_settings(copilot_home(env) / "settings.json")
    except LessonsError:
        return True
    return settings.get("disableAllHooks") is not True


def status(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    style: str = installing.DEFAULT_STYLE,
) -> CopilotStatus:
    """Which events our hooks file registers, and the command it runs."""
    try:
        expected = installing.hook_command(
            _spec(), style, environ if environ is not None else os.environ
        )
    except LessonsError:
        expected = ""
    path = hooks_path(environ, project)
    enabled = _enabled(environ)
    try:
        text = _read(path)
    except LessonsError as exc:
        return CopilotStatus(AGENT, path, path.exists(), (), EVENTS, (), expected, str(exc))
    if text is None:
        return CopilotStatus(AGENT, path, False, (), EVENTS, (), expected, enabled=enabled)
    found = registered(text)
    if found is None:
        return CopilotStatus(
            AGENT, path, True, (), EVENTS, (), expected, foreign=True, enabled=enabled
        )
    events = tuple(e for e in EVENTS if e in found)
    missing = tuple(e for e in EVENTS if e not in found)
    commands = tuple(dict.fromkeys(found.values()))
    return CopilotStatus(AGENT, path, True, events, missing, commands, expected, enabled=enabled)
