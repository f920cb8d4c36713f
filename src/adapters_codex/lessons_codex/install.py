"""Register the lessons hooks in Codex CLI's ``hooks.json`` (cold path).

Codex reads hooks from ``$CODEX_HOME/hooks.json`` (``~/.codex`` by default) besides any
``[hooks]`` tables in ``config.toml``. We only ever write ``hooks.json``: ``config.toml`` belongs
to the user (it is also where Codex records which hooks they trusted). ``--project DIR`` writes
``DIR/.codex/hooks.json``, which Codex loads only for a trusted project. The merge, backup and
removal rules are the shared ones of :mod:`lessons_core.installing`.

Which events and why:

* ``PreToolUse`` on every tool (no matcher) — shell calls arrive as ``Bash``, edits as
  ``apply_patch``, subagents as ``spawn_agent``, MCP tools by name: the only moment a lesson can
  stop a call (deny) or ride along with its result (context);
* ``PostToolUse`` — Codex has no failure event; the adapter reads failures from the output;
* ``SessionStart`` (every source, ``compact`` included) and ``SubagentStart`` — protocol and
  directive lessons before work starts; ``UserPromptSubmit`` — recall on a new prompt.

Codex habits that shape the details: hooks run through a login shell (``$SHELL -lc``) that
re-reads the profile, so the command is absolute; timeouts are in seconds; and a new or changed
hook does not run until the user trusts it in ``/hooks`` (keyed to a hash of the definition).
:func:`install` says so, and :func:`status` reports whether Codex has recorded any trust for a
hook in our file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import AgentSpec, installing

AGENT = "codex"

#: Seconds. The hook answers in tens of milliseconds; this only bounds a wedged run.
TIMEOUT = 10

#: Events we register, in order; none takes a matcher (every tool, every source).
EVENTS = (
    "SessionStart",
    "SubagentStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "Stop",
)

TRUST_NOTE = (
    "Codex runs a new or changed hook only after you trust it: start `codex`, type `/hooks` "
    "and trust the lessons hooks. (`codex exec --dangerously-bypass-hook-trust` skips the check "
    "for one run, for automation that vets its hooks.)"
)


@attrs.frozen
class CodexStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` plus Codex's trust record.

    ``trusted`` is True when ``config.toml`` holds a trusted hash for a hook defined in our
    ``hooks.json``, False when it holds none, ``None`` when ``config.toml`` cannot be read. Codex
    keys trust to the hook definition's hash, which it does not document; a definition changed
    since it was trusted still shows True here, and Codex will ask again.
    """

    trusted: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        data["trusted"] = self.trusted
        if not self.trusted:
            data["note"] = TRUST_NOTE
        return data


def _spec() -> AgentSpec:
    from lessons_codex.plugin import agent_spec

    return agent_spec()


def codex_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex`` under the environment's ``HOME``."""
    env = os.environ if environ is None else environ
    explicit = env.get("CODEX_HOME")
    if explicit:
        return Path(explicit).expanduser()
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".codex"


def hooks_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The ``hooks.json`` that ``install`` edits for this environment / project."""
    if project is not None:
        return Path(project).expanduser().resolve() / ".codex" / "hooks.json"
    return codex_home(environ) / "hooks.json"


def groups(command: str) -> list[installing.HookGroup]:
    """The hook groups for ``command``, in registration order."""
    handler = {"type": "command", "command": command, "timeout": TIMEOUT}
    return [installing.HookGroup(event, handler) for event in EVENTS]


def _status(base: installing.InstallStatus, environ: Mapping[str, str] | None) -> CodexStatus:
    trusted = trust_recorded(environ, base.path) if base.registered else False
    return installing.extend_status(CodexStatus, base, trusted=trusted)


_INSTALLER = installing.SettingsInstaller(
    agent=AGENT,
    spec=_spec,
    settings_path=hooks_path,
    groups=groups,
    events=EVENTS,
    extra_status=_status,
    install_notes=(TRUST_NOTE,),
)


#: The public installer functions (see :mod:`lessons_core.installing` for what they do).
install = _INSTALLER.install
uninstall = _INSTALLER.uninstall
status = _INSTALLER.status


def trust_recorded(environ: Mapping[str, str] | None, path: Path) -> bool | None:
    """Whether Codex's ``config.toml`` records trust for each of our hooks in ``path``.

    Codex stores what the user trusted in ``/hooks`` as ``[hooks.state."<key>"] trusted_hash``,
    the key being ``<hooks.json path>:<event in snake_case>:<group>:<handler>`` (as
    ``codex app-server``'s ``hooks/list`` reports it). Every event we register needs one.
    """
    config = codex_home(environ) / "config.toml"
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return False
    trusted = [
        key
        for key, entry in state.items()
        if isinstance(entry, dict) and isinstance(entry.get("trusted_hash"), str)
    ]
    return all(
        any(key.startswith(f"{path}:{_snake(event)}:") for key in trusted) for event in EVENTS
    )


def _snake(event: str) -> str:
    """``PreToolUse`` → ``pre_tool_use``, as Codex spells events in its hook keys."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")
