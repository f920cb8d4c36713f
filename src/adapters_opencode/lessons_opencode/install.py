"""Write the lessons plugin file into OpenCode's configuration (cold path).

OpenCode has no hook commands: it loads every ``*.js`` / ``*.ts`` file in the ``plugin/`` (or
``plugins/``) folder of its configuration directories as a plugin. ``install`` writes one file
there, ``lessons.js`` (the template :file:`opencode_plugin.js` with our hook command filled in);
the plugin starts that command for each event it handles. User scope is
``$XDG_CONFIG_HOME/opencode`` (``~/.config/opencode``); ``--project DIR`` writes
``DIR/.opencode/plugin/lessons.js``.

The rules are those of the settings installers (:mod:`lessons_core.installing`), applied to a
file that is wholly ours: installing twice writes nothing the second time, a file of that name
that we did not write is never overwritten nor removed, writes are atomic, and uninstalling
removes the file (and the ``plugin`` folder, when it created it and nothing else is left there).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import attrs

from lessons_core.api import AgentSpec, LessonsError, installing

AGENT = "opencode"
FILE_NAME = "lessons.js"
#: The first line of every file we write: what tells ours from a user's file of the same name.
MARKER = "// lessons for OpenCode:"
PLACEHOLDER = '"__LESSONS_COMMAND__"'

#: The plugin hooks the file registers (what ``status`` reports as registered).
EVENTS = (
    "event",
    "experimental.chat.system.transform",
    "chat.message",
    "tool.execute.before",
    "tool.execute.after",
    "experimental.chat.messages.transform",
    "experimental.session.compacting",
)

_COMMAND_LINE = re.compile(r"^const COMMAND = (\".*\");$", re.MULTILINE)


@attrs.frozen
class OpenCodeStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` of the plugin file.

    ``foreign`` is True when a ``lessons.js`` we did not write sits where ours goes.
    """

    foreign: bool = False

    def notes(self) -> list[str]:
        if self.foreign:
            return [f"{self.path} was not written by lessons; it is left alone"]
        return []

    def as_dict(self) -> dict[str, object]:
        data = super().as_dict()
        data["foreign"] = self.foreign
        return data


def _spec() -> AgentSpec:
    from lessons_opencode.plugin import agent_spec

    return agent_spec()


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """OpenCode's user configuration directory for this environment."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / "opencode"
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".config" / "opencode"


def plugin_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The plugin file ``install`` writes for this environment / project."""
    if project is not None:
        return Path(project).expanduser().resolve() / ".opencode" / "plugin" / FILE_NAME
    return config_dir(environ) / "plugin" / FILE_NAME


def render(command: str) -> str:
    """The plugin file's text for the hook command ``command``."""
    template = resources.files("lessons_opencode").joinpath("opencode_plugin.js")
    text = template.read_text(encoding="utf-8")
    if PLACEHOLDER not in text or not text.startswith(MARKER):
        raise LessonsError("the OpenCode plugin template of lessons-opencode is damaged")
    return text.replace(PLACEHOLDER, json.dumps(command), 1)


def registered_command(text: str) -> str | None:
    """The hook command a plugin file of ours starts, or ``None``."""
    match = _COMMAND_LINE.search(text)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str) and value else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonsError(f"cannot read {path}: {exc}") from exc


def _is_ours(text: str | None) -> bool:
    return text is not None and text.startswith(MARKER)


def install(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
    style: str = installing.DEFAULT_STYLE,
) -> installing.InstallResult:
    """Write (or update) the plugin file; idempotent."""
    command = installing.hook_command(
        _spec(), style, environ if environ is not None else os.environ
    )
    path = plugin_path(environ, project)
    before = _read(path)
    if before is not None and not _is_ours(before):
        msg = f"{path} exists and was not written by lessons; move it aside and install again"
        raise LessonsError(msg)
    after = render(command)
    changed = before != after
    diff = installing.settings_diff(path, before, after) if changed else ""
    if not changed or dry_run:
        return installing.InstallResult(AGENT, path, changed, False, diff, after)
    path.parent.mkdir(parents=True, exist_ok=True)
    installing.write_atomic(path, after)
    return installing.InstallResult(AGENT, path, True, True, diff, after)


def uninstall(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> installing.InstallResult:
    """Remove our plugin file (and an empty ``plugin`` folder); a foreign file stays."""
    path = plugin_path(environ, project)
    before = _read(path)
    if not _is_ours(before):
        return installing.InstallResult(AGENT, path, False, False, "", before or "")
    diff = installing.settings_diff(path, before, None)
    result = installing.InstallResult(AGENT, path, True, not dry_run, diff, "", removed_file=True)
    if dry_run:
        return result
    path.unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()  # only when empty
    return result


def status(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    style: str = installing.DEFAULT_STYLE,
) -> OpenCodeStatus:
    """Whether our plugin file is in place, and the command it starts."""
    try:
        expected = installing.hook_command(
            _spec(), style, environ if environ is not None else os.environ
        )
    except LessonsError:
        expected = ""
    path = plugin_path(environ, project)
    try:
        text = _read(path)
    except LessonsError as exc:
        return OpenCodeStatus(AGENT, path, path.exists(), (), EVENTS, (), expected, str(exc))
    if text is None:
        return OpenCodeStatus(AGENT, path, False, (), EVENTS, (), expected)
    if not _is_ours(text):
        return OpenCodeStatus(AGENT, path, True, (), EVENTS, (), expected, foreign=True)
    command = registered_command(text)
    if command is None:
        error = f"{path} is damaged (no hook command in it); run `lessons install opencode`"
        return OpenCodeStatus(AGENT, path, True, (), EVENTS, (), expected, error)
    return OpenCodeStatus(AGENT, path, True, EVENTS, (), (command,), expected)
