"""Register the server in an agent's MCP configuration (``lessons install AGENT --mcp``).

Where each agent reads its stdio MCP servers:

* **Claude Code** — user scope: ``mcpServers`` at the top of ``~/.claude.json``
  (``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set); ``--project DIR``: ``DIR/.mcp.json``
  (Claude Code asks before it starts a project's servers);
* **Codex CLI** — ``[mcp_servers.lessons]`` in ``$CODEX_HOME/config.toml`` (``~/.codex``);
  ``--project DIR``: ``DIR/.codex/config.toml`` (read for a trusted project);
* **Gemini CLI** — ``mcpServers`` in ``~/.gemini/settings.json`` (``$GEMINI_CLI_HOME``);
  ``--project DIR``: ``DIR/.gemini/settings.json``.

The entry starts this interpreter with ``-I -m lessons_mcp`` (absolute, like the hook
command), with ``LESSONS_HOME`` / ``LESSONS_STATE_DIR`` pinned in its ``env`` when they are
set. The rules are the hooks' (:mod:`lessons_core.installing`): only our entry (the name
``lessons``) is touched, the file is copied once to ``.bak`` before our first write, a second
install writes nothing, uninstall gives back what was there (and removes a file that held only
our entry), writes are atomic. ``config.toml`` is the user's hand-written file, so it is edited
as text: our table is appended or cut out, everything else keeps its bytes, and the result is
parsed with ``tomllib`` before it is written.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessons_core.api import LessonsError, installing

NAME = "lessons"
AGENTS = ("claude", "codex", "gemini")


def server_entry(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``command`` / ``args`` / ``env`` of the server as every agent's config spells them."""
    entry: dict[str, Any] = {"command": sys.executable, "args": ["-I", "-m", "lessons_mcp"]}
    pinned = installing.pinned_env(os.environ if environ is None else environ)
    if pinned:
        entry["env"] = pinned
    return entry


def config_path(agent: str, environ: Mapping[str, str] | None, project: Path | None) -> Path:
    """The file ``install`` edits for ``agent``."""
    env = os.environ if environ is None else environ
    if agent == "claude":
        if project is not None:
            return Path(project).expanduser().resolve() / ".mcp.json"
        base = env.get("CLAUDE_CONFIG_DIR") or env.get("HOME") or str(Path.home())
        return Path(base).expanduser() / ".claude.json"
    if agent == "codex":
        if project is not None:
            return Path(project).expanduser().resolve() / ".codex" / "config.toml"
        from lessons_codex.install import codex_home

        return codex_home(env) / "config.toml"
    if agent == "gemini":
        from lessons_gemini.install import settings_path

        return settings_path(env, project)
    msg = f"no MCP registration for agent {agent!r} (known: {', '.join(AGENTS)})"
    raise LessonsError(msg)


def install(
    agent: str,
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> installing.InstallResult:
    """Add (or bring up to date) our server entry in ``agent``'s MCP configuration."""
    path = config_path(agent, environ, project)
    entry = server_entry(environ)
    if agent == "codex":
        return _toml_change(agent, path, entry, dry_run=dry_run)
    return _json_change(agent, path, entry, dry_run=dry_run)


def uninstall(
    agent: str,
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> installing.InstallResult:
    """Remove our server entry (and nothing else)."""
    path = config_path(agent, environ, project)
    if agent == "codex":
        return _toml_change(agent, path, None, dry_run=dry_run)
    return _json_change(agent, path, None, dry_run=dry_run)


def registered(
    agent: str, environ: Mapping[str, str] | None = None, project: Path | None = None
) -> bool:
    """Whether ``agent``'s configuration holds our server entry."""
    path = config_path(agent, environ, project)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    try:
        data = tomllib.loads(text) if agent == "codex" else json.loads(text)
    except ValueError:
        return False
    key = "mcp_servers" if agent == "codex" else "mcpServers"
    servers = data.get(key) if isinstance(data, dict) else None
    return isinstance(servers, dict) and NAME in servers


# -- JSON (Claude Code, Gemini CLI) ----------------------------------------------------------


def _json_change(
    agent: str, path: Path, entry: dict[str, Any] | None, *, dry_run: bool
) -> installing.InstallResult:
    settings, before = installing.read_settings(path)
    servers = settings.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        msg = f"{path}: 'mcpServers' is not a JSON object; fix it by hand first"
        raise LessonsError(msg)
    servers = dict(servers or {})
    if entry is None:
        if NAME not in servers:
            return installing.InstallResult(agent, path, False, False, "", before or "")
        del servers[NAME]
    else:
        wanted = {"type": "stdio", **entry} if agent == "claude" else dict(entry)
        if servers.get(NAME) == wanted and before is not None:
            return installing.InstallResult(agent, path, False, False, "", before)
        servers[NAME] = wanted
    result = dict(settings)
    if servers:
        result["mcpServers"] = servers
    else:
        result.pop("mcpServers", None)
    after = installing.dump_settings(result)
    return _write(agent, path, before, after, entry is None, dry_run=dry_run, empty=not result)


# -- TOML (Codex CLI) ------------------------------------------------------------------------

#: A table header of our server or one of its sub-tables: ``[mcp_servers.lessons]``,
#: ``[mcp_servers."lessons".env]`` …
_OUR_HEADER = re.compile(
    r"^\s*\[\s*mcp_servers\s*\.\s*(?:lessons|\"lessons\"|'lessons')\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$"
)
_ANY_HEADER = re.compile(r"^\s*\[")


def _toml_value(value: Any) -> str:
    """A TOML value for the strings, lists and string tables of our entry."""
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }"
    msg = f"cannot write {value!r} as TOML"
    raise LessonsError(msg)


def _toml_block(entry: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{NAME}]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in entry.items()]
    return "\n".join(lines) + "\n"


def _cut_ours(text: str) -> tuple[str, bool]:
    """``text`` without our tables (header to the next other header); whether any was cut."""
    out: list[str] = []
    inside = found = False
    for line in text.splitlines(keepends=True):
        if _OUR_HEADER.match(line):
            inside = found = True
            continue
        if inside and _ANY_HEADER.match(line):
            inside = False
        if not inside:
            out.append(line)
    kept = "".join(out)
    if found:
        kept = kept.rstrip("\n") + "\n" if kept.strip() else ""
    return kept, found


def _toml_change(
    agent: str, path: Path, entry: dict[str, Any] | None, *, dry_run: bool
) -> installing.InstallResult:
    try:
        before: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        before = None
    except OSError as exc:
        msg = f"cannot read {path}: {exc.strerror}"
        raise LessonsError(msg) from exc
    text = before or ""
    try:
        current = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = f"{path} is not valid TOML ({exc}); fix or move it, then run the command again"
        raise LessonsError(msg) from exc
    servers = current.get("mcp_servers")
    ours = servers.get(NAME) if isinstance(servers, dict) else None
    kept, cut = _cut_ours(text)
    if ours is not None and not cut:
        msg = (
            f"{path} defines mcp_servers.{NAME} in a form this command does not edit (an inline "
            f"table or dotted keys); change or remove it by hand"
        )
        raise LessonsError(msg)
    if entry is None:
        if ours is None:
            return installing.InstallResult(agent, path, False, False, "", text)
        after: str | None = kept
    else:
        if ours == entry:
            return installing.InstallResult(agent, path, False, False, "", text)
        after = (kept + ("\n" if kept.strip() else "") if kept.strip() else "") + _toml_block(entry)
    try:
        parsed = tomllib.loads(after or "")
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - our edit must keep it valid
        msg = f"editing {path} would leave invalid TOML ({exc}); nothing was written"
        raise LessonsError(msg) from exc
    left = (
        parsed.get("mcp_servers", {}).get(NAME)
        if isinstance(parsed.get("mcp_servers"), dict)
        else None
    )
    if left != entry:  # pragma: no cover - a table of ours the cut did not see
        msg = f"{path}: could not edit mcp_servers.{NAME} safely; nothing was written"
        raise LessonsError(msg)
    empty = not (after or "").strip()
    return _write(agent, path, before, after, entry is None, dry_run=dry_run, empty=empty)


# -- writing ---------------------------------------------------------------------------------


def _write(
    agent: str,
    path: Path,
    before: str | None,
    after: str | None,
    removing: bool,
    *,
    dry_run: bool,
    empty: bool,
) -> installing.InstallResult:
    """Write ``after`` (backup first); on removal, restore the backup or drop an empty file."""
    bak = installing.backup_path(path)
    restore = remove_file = False
    if removing:
        if bak.exists():
            with_backup = bak.read_text(encoding="utf-8")
            restore = _same(path, with_backup, after or "")
            if restore:
                after = with_backup
        elif empty and not path.is_symlink():
            remove_file, after = True, None
    diff = installing.settings_diff(path, before, after)
    result = installing.InstallResult(
        agent,
        path,
        True,
        not dry_run,
        diff,
        after or "",
        removed_file=remove_file,
        restored_backup=restore,
    )
    if dry_run:
        return result
    if remove_file:
        path.unlink()
        return result
    backup = installing.backup_once(path) if not removing else None
    installing.write_atomic(path, after or "")
    return installing.InstallResult(
        agent, path, True, True, diff, after or "", backup=backup, restored_backup=restore
    )


def _same(path: Path, first: str, second: str) -> bool:
    """Whether two versions of a config file say the same (parsed, not byte for byte)."""
    try:
        if path.suffix == ".toml":
            return tomllib.loads(first) == tomllib.loads(second)
        return bool(json.loads(first or "{}") == json.loads(second or "{}"))
    except ValueError:
        return False
