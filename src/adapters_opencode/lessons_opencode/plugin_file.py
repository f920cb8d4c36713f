"""The plugin file OpenCode and its forks load, written and removed (cold path).

OpenCode has no hook commands: it loads every ``*.js`` / ``*.ts`` file in the ``plugin/`` (or
``plugins/``) folder of its configuration directories as a plugin, and Kilo CLI, a fork of it,
does the same in its own folders. ``install`` writes one file there, ``lessons.js`` (the
template :file:`opencode_plugin.js` with the host's name and our hook command filled in); the
plugin starts that command for each event it handles. A :class:`PluginFile` holds what differs
from host to host: its name and where its configuration lives.

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
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path

import attrs

from lessons_core.api import AgentSpec, LessonsError, installing

FILE_NAME = "lessons.js"
PLACEHOLDER = '"__LESSONS_COMMAND__"'
#: Where the template names the host (its label, then its name in ``lessons install <name>``).
LABEL_PLACEHOLDER = "__LESSONS_LABEL__"
AGENT_PLACEHOLDER = "__LESSONS_AGENT__"

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
class PluginStatus(installing.InstallStatus):
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


@attrs.frozen
class PluginFile:
    """The lessons plugin file of one host of the plugin.

    ``config_dir`` gives the host's user configuration directory for an environment;
    ``project_dir`` is the folder a project keeps its configuration in (``.opencode``). A fork
    whose hook imports this package names it among its spec's ``hook_packages``.
    """

    agent: str
    label: str
    spec: Callable[[], AgentSpec]
    config_dir: Callable[[Mapping[str, str] | None], Path]
    project_dir: str

    @property
    def marker(self) -> str:
        """The first line of every file we write: what tells ours from a user's file."""
        return f"// lessons for {self.label}:"

    def plugin_path(
        self, environ: Mapping[str, str] | None = None, project: Path | None = None
    ) -> Path:
        """The plugin file ``install`` writes for this environment / project."""
        if project is not None:
            return Path(project).expanduser().resolve() / self.project_dir / "plugin" / FILE_NAME
        return self.config_dir(environ) / "plugin" / FILE_NAME

    def render(self, command: str) -> str:
        """The plugin file's text for the hook command ``command``."""
        template = resources.files("lessons_opencode").joinpath("opencode_plugin.js")
        text = template.read_text(encoding="utf-8")
        if PLACEHOLDER not in text or not text.startswith(f"// lessons for {LABEL_PLACEHOLDER}:"):
            raise LessonsError("the plugin template of lessons-opencode is damaged")
        text = text.replace(LABEL_PLACEHOLDER, self.label).replace(AGENT_PLACEHOLDER, self.agent)
        return text.replace(PLACEHOLDER, json.dumps(command), 1)

    def hook_command(self, environ: Mapping[str, str] | None, style: str) -> str:
        """The hook command the file starts."""
        return installing.hook_command(
            self.spec(), style, environ if environ is not None else os.environ
        )

    def _is_ours(self, text: str | None) -> bool:
        return text is not None and text.startswith(self.marker)

    def install(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        dry_run: bool = False,
        style: str = installing.DEFAULT_STYLE,
    ) -> installing.InstallResult:
        """Write (or update) the plugin file; idempotent."""
        command = self.hook_command(environ, style)
        path = self.plugin_path(environ, project)
        before = _read(path)
        if before is not None and not self._is_ours(before):
            msg = f"{path} exists and was not written by lessons; move it aside and install again"
            raise LessonsError(msg)
        after = self.render(command)
        changed = before != after
        diff = installing.settings_diff(path, before, after) if changed else ""
        if not changed or dry_run:
            return installing.InstallResult(self.agent, path, changed, False, diff, after)
        path.parent.mkdir(parents=True, exist_ok=True)
        installing.write_atomic(path, after)
        return installing.InstallResult(self.agent, path, True, True, diff, after)

    def uninstall(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        dry_run: bool = False,
    ) -> installing.InstallResult:
        """Remove our plugin file (and an empty ``plugin`` folder); a foreign file stays."""
        path = self.plugin_path(environ, project)
        before = _read(path)
        if not self._is_ours(before):
            return installing.InstallResult(self.agent, path, False, False, "", before or "")
        diff = installing.settings_diff(path, before, None)
        result = installing.InstallResult(
            self.agent, path, True, not dry_run, diff, "", removed_file=True
        )
        if dry_run:
            return result
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
        return result

    def status(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        style: str = installing.DEFAULT_STYLE,
    ) -> PluginStatus:
        """Whether our plugin file is in place, and the command it starts."""
        agent = self.agent
        try:
            expected = self.hook_command(environ, style)
        except LessonsError:
            expected = ""
        path = self.plugin_path(environ, project)
        try:
            text = _read(path)
        except LessonsError as exc:
            return PluginStatus(agent, path, path.exists(), (), EVENTS, (), expected, str(exc))
        if text is None:
            return PluginStatus(agent, path, False, (), EVENTS, (), expected)
        if not self._is_ours(text):
            return PluginStatus(agent, path, True, (), EVENTS, (), expected, foreign=True)
        command = registered_command(text)
        if command is None:
            error = f"{path} is damaged (no hook command in it); run `lessons install {agent}`"
            return PluginStatus(agent, path, True, (), EVENTS, (), expected, error)
        return PluginStatus(agent, path, True, EVENTS, (), (command,), expected)
