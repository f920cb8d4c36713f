"""Shared machinery for registering our hook command in an agent's JSON settings file.

All three agents keep hooks in the same three-level shape::

    {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]}}

so reading, merging, removing, backing up and writing are done once, here. Each adapter's
``install.py`` only says *where* its file is and *which* groups to add (event names, matchers,
timeout units and handler fields differ per agent).

The rules, which users rely on:

* a handler is "ours" when its command names our hook (console script, ``-m`` module or hook
  file); nothing else in the file is ever touched;
* the original file is copied once to ``<name>.bak`` before our first write;
* installing twice writes nothing the second time; uninstalling restores the original bytes
  when the result is what the backup held (and deletes a file we created from nothing);
* writes are atomic (temporary file in the same directory, then ``os.replace``).

An agent's installer (what ``AgentSpec.installer()`` returns, usually its ``install`` module)
offers three functions, which ``lessons install``, ``uninstall`` and ``doctor`` call::

    install(environ, *, project=None, dry_run=False) -> InstallResult
    uninstall(environ, *, project=None, dry_run=False) -> InstallResult
    status(environ, *, project=None) -> InstallStatus

Those three read the same way for every agent, so :class:`SettingsInstaller` holds them once;
an adapter describes its file, its groups and its extra status, and forwards to it.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import attrs

from lessons_core.errors import LessonsError
from lessons_core.hot import safefile
from lessons_core.logs import get_logger
from lessons_core.plugins.specs import AgentSpec

log = get_logger()

#: How the registered command starts the hook (see docs/agents/claude.md for the figures).
STYLE_FILE = "file"  # <python> -I -S <abs>/hook.py <sys.path dirs>
STYLE_MODULE = "module"  # <python> -I -m <package>.hook
STYLE_SCRIPT = "script"  # <abs>/bin/lessons-<agent>-hook
STYLES = (STYLE_FILE, STYLE_MODULE, STYLE_SCRIPT)
DEFAULT_STYLE = STYLE_FILE

#: A PreToolUse payload that matches nothing: used to time a registered command.
NOOP_PAYLOAD: dict[str, Any] = {
    "session_id": "lessons-doctor-probe",
    "hook_event_name": "PreToolUse",
    "tool_name": "LessonsDoctorProbe",
    "tool_input": {},
    "cwd": "/",
}


@attrs.frozen
class HookGroup:
    """One group to register: an event, an optional matcher and the handler dict."""

    event: str
    handler: Mapping[str, Any]
    matcher: str | None = None

    def as_json(self) -> dict[str, Any]:
        group: dict[str, Any] = {}
        if self.matcher is not None:
            group["matcher"] = self.matcher
        group["hooks"] = [dict(self.handler)]
        return group


@attrs.frozen
class InstallResult:
    """What ``install`` / ``uninstall`` did (or, with ``dry_run``, would do)."""

    agent: str
    path: Path
    changed: bool
    written: bool
    diff: str
    result_text: str
    backup: Path | None = None
    removed_file: bool = False
    restored_backup: bool = False
    #: Things the user must know or do next (e.g. Codex's trust step), printed after the result.
    notes: tuple[str, ...] = ()


@attrs.frozen
class InstallStatus:
    """Whether our hooks are registered, and with which command."""

    agent: str
    path: Path
    exists: bool
    registered: tuple[str, ...]
    missing: tuple[str, ...]
    commands: tuple[str, ...]
    expected_command: str
    error: str | None = None

    @property
    def installed(self) -> bool:
        return bool(self.registered) and not self.missing and self.error is None

    @property
    def current(self) -> bool:
        """True when every registered command is the one ``install`` would write now."""
        return bool(self.commands) and all(
            same_command(c, self.expected_command) for c in self.commands
        )

    def notes(self) -> list[str]:
        """Agent-specific caveats worth a warning (subclasses add theirs)."""
        return []

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "path": str(self.path),
            "exists": self.exists,
            "installed": self.installed,
            "current": self.current,
            "registered": list(self.registered),
            "missing": list(self.missing),
            "commands": list(self.commands),
            "expected_command": self.expected_command,
            "error": self.error,
        }


# -- "ours" ----------------------------------------------------------------------------------


def is_ours_factory(spec: AgentSpec) -> Callable[[Mapping[str, Any]], bool]:
    """A predicate telling our handlers from everyone else's, by the command they run.

    Ours: a word of the command is the console script (any directory, ``.exe`` allowed), the
    hook module after ``-m``, or a path ending in ``<package>/hook.py``.
    """
    package, _, leaf = spec.hook_module.rpartition(".")
    file_suffix = f"{package.replace('.', '/')}/{leaf}.py"

    def is_ours(handler: Mapping[str, Any]) -> bool:
        command = handler.get("command")
        if not isinstance(command, str):
            return False
        # Both splits: shlex for quoted POSIX paths, plain for Windows backslashes.
        words = command.split()
        with contextlib.suppress(ValueError):
            words += shlex.split(command)
        for word in words:
            path = word.replace("\\", "/")
            name = path.rsplit("/", 1)[-1].removesuffix(".exe")
            if name == spec.hook_command or word == spec.hook_module:
                return True
            if path.endswith("/" + file_suffix) or path == file_suffix:
                return True
        return False

    return is_ours


def agents(environ: Mapping[str, str] | None = None) -> dict[str, AgentSpec]:
    """The agent adapters the plugin manager knows, by name."""
    from lessons_core.plugins.manager import get_plugin_manager

    found: dict[str, AgentSpec] = {}
    pm = get_plugin_manager(environ)
    pm.hook.lessons_register_agents(register=lambda spec: found.setdefault(spec.name, spec))
    return found


def agent_installer(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The installer of agent ``name``, or a clear error naming the ones available."""
    known = agents(environ)
    spec = known.get(name)
    if spec is None:
        names = ", ".join(sorted(known)) or "none"
        msg = f"no adapter for agent {name!r} is installed (installed: {names})"
        if name in umbrella_extras():
            msg += f"; add it with: pip install 'lessons[{name}]'"
        else:
            msg += "; lessons has no adapter of that name"
        raise LessonsError(msg)
    if spec.installer is None:
        msg = f"the {name} adapter has no installer"
        raise LessonsError(msg)
    return spec.installer()


def umbrella_extras() -> list[str]:
    """The extras of the ``lessons`` distribution (one per published adapter), if installed.

    Read from the installed metadata rather than a list kept here, so the core names no agent
    and the suggestion is only ever one that ``pip`` can satisfy.
    """
    import importlib.metadata

    try:
        extras = importlib.metadata.metadata("lessons").get_all("Provides-Extra") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    return [e for e in extras if e != "all"]


def detect_agents(known: Mapping[str, AgentSpec], environ: Mapping[str, str]) -> dict[str, str]:
    """Agents that look used on this machine: name → why (its binary, or its transcripts)."""
    found: dict[str, str] = {}
    for name, spec in sorted(known.items()):
        binary = shutil.which(name, path=environ.get("PATH"))
        if binary:
            found[name] = f"`{name}` at {binary}"
            continue
        roots = spec.transcript_roots(environ) if spec.transcript_roots else []
        existing = [root for root in roots if root.is_dir()]
        if existing:
            found[name] = f"transcripts in {existing[0]}"
    return found


# -- command resolution ----------------------------------------------------------------------

#: Environment the hook reads that an install pins into the registered command when it is set:
#: the agents start hooks with their own environment, which rarely carries these.
PINNED_ENV = ("LESSONS_HOME", "LESSONS_STATE_DIR")


def pinned_env(environ: Mapping[str, str] | None) -> dict[str, str]:
    """The :data:`PINNED_ENV` variables set in ``environ``, as absolute paths."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for key in PINNED_ENV:
        value = env.get(key)
        if value:
            out[key] = str(Path(value).expanduser().absolute())
    return out


def _without_env(words: list[str]) -> list[str]:
    """The words of a command line after its ``env KEY=VALUE …`` prefix, if any."""
    if not words or Path(words[0]).name != "env":
        return words
    rest = words[1:]
    while rest and "=" in rest[0] and rest[0].partition("=")[0].isidentifier():
        rest = rest[1:]
    return rest


def command_env(command: str) -> dict[str, str]:
    """The ``env KEY=VALUE …`` prefix of a registered command line, as a dict."""
    try:
        words = shlex.split(command)
    except ValueError:
        return {}
    if not words or Path(words[0]).name != "env":
        return {}
    out: dict[str, str] = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not key.isidentifier():
            break
        out[key] = value
    return out


def _package_parent(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        msg = f"cannot find the package {package!r}; is it installed in this Python?"
        raise LessonsError(msg)
    return Path(next(iter(spec.submodule_search_locations))).resolve().parent


def same_command(registered: str, expected: str) -> bool:
    """Whether two hook command lines start the same thing.

    A virtual environment's ``bin/python`` and ``bin/python3`` are one interpreter under two
    names, and which one ``sys.executable`` reports depends on how the process was started
    (``lessons`` console script or ``python -m``). The interpreter word therefore counts as the
    same when both names sit in the same directory and resolve to the same file; every other
    word must be equal.
    """
    if registered == expected:
        return True
    try:
        ours, theirs = _without_env(shlex.split(registered)), _without_env(shlex.split(expected))
    except ValueError:
        return False
    if command_env(registered) != command_env(expected):
        return False
    if len(ours) != len(theirs) or not ours or ours[1:] != theirs[1:]:
        return False
    first, second = Path(ours[0]), Path(theirs[0])
    try:
        return first.parent == second.parent and first.resolve() == second.resolve()
    except OSError:
        return False


def hook_command(
    spec: AgentSpec, style: str = DEFAULT_STYLE, environ: Mapping[str, str] | None = None
) -> str:
    """The absolute command line to register for ``spec``'s hook, in the given style.

    ``file`` starts the interpreter with ``-I -S`` (no site-packages scan, no PYTHON* variables,
    no current directory on ``sys.path``) and passes the directories holding the adapter and the
    core, so nothing is looked up at run time. ``module`` keeps ``site`` (``-I -m``). ``script``
    is the console script installed next to the interpreter.

    A ``LESSONS_HOME`` or ``LESSONS_STATE_DIR`` set in ``environ`` is pinned in front of the
    command (``/usr/bin/env LESSONS_HOME=… <command>``): the agent starts its hooks with its own
    environment, and a hook that silently read the default home would see none of the lessons.
    All three agents run a hook command through a POSIX shell, where ``env`` works whatever the
    user's shell is.
    """
    command = _bare_hook_command(spec, style)
    pinned = pinned_env(environ if environ is not None else {})
    if not pinned:
        return command
    env = "/usr/bin/env" if Path("/usr/bin/env").exists() else "env"
    words = [env, *(f"{k}={v}" for k, v in pinned.items())]
    return " ".join(shlex.quote(w) for w in words) + " " + command


def _bare_hook_command(spec: AgentSpec, style: str) -> str:
    python = sys.executable
    if style == STYLE_SCRIPT:
        scripts = Path(sysconfig.get_path("scripts"))
        candidate = scripts / spec.hook_command
        if not candidate.exists():
            found = shutil.which(spec.hook_command)
            if found is None:
                msg = f"the console script {spec.hook_command!r} is not installed"
                raise LessonsError(msg)
            candidate = Path(found)
        return shlex.quote(str(candidate.absolute()))
    if style == STYLE_MODULE:
        return f"{shlex.quote(python)} -I -m {spec.hook_module}"
    if style == STYLE_FILE:
        module_spec = importlib.util.find_spec(spec.hook_module)
        if module_spec is None or module_spec.origin is None:
            msg = f"cannot find the hook module {spec.hook_module!r}"
            raise LessonsError(msg)
        hook_file = Path(module_spec.origin).resolve()
        dirs: list[str] = []
        for package in (spec.hook_module.split(".")[0], "lessons_core", *spec.hook_packages):
            parent = str(_package_parent(package))
            if parent not in dirs:
                dirs.append(parent)
        words = [python, "-I", "-S", str(hook_file), *dirs]
        return " ".join(shlex.quote(w) for w in words)
    msg = f"unknown hook command style {style!r}; choose one of {', '.join(STYLES)}"
    raise LessonsError(msg)


def time_command(
    command: str,
    payload: Mapping[str, Any] | None = None,
    *,
    runs: int = 5,
    env: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[float, list[float], str]:
    """Run a hook command ``runs`` times through ``sh -c`` (as the agents do).

    Returns ``(median ms, all ms, stdout of the last run)``. Raises :class:`LessonsError` when
    the command cannot run or exits non-zero.
    """
    data = json.dumps(dict(payload or NOOP_PAYLOAD)).encode()
    times: list[float] = []
    out = b""
    for _ in range(runs):
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                ["/bin/sh", "-c", command],
                input=data,
                capture_output=True,
                timeout=timeout,
                env=dict(env) if env is not None else None,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            msg = f"the hook command did not run: {exc}"
            raise LessonsError(msg) from exc
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            msg = f"the hook command exited {proc.returncode}: {err[-1] if err else ''}"
            raise LessonsError(msg)
        out = proc.stdout
    ordered = sorted(times)
    return ordered[len(ordered) // 2], times, out.decode(errors="replace")


# -- JSON settings ---------------------------------------------------------------------------


def read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """Return ``(settings, original text)``; a missing file is ``({}, None)``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        msg = f"cannot read {path}: {exc.strerror}"
        raise LessonsError(msg) from exc
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        msg = (
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix or move it, then run the command again"
        )
        raise LessonsError(msg) from exc
    if not isinstance(data, dict):
        msg = f"{path} must hold a JSON object, found {type(data).__name__}"
        raise LessonsError(msg)
    return data, text


def dump_settings(settings: Mapping[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically, keeping the file's permissions if it exists.

    A symlinked settings file (dotfile managers do this) is written through: the link stays and
    its target gets the new content.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    safefile.replace(path, data.encode("utf-8") if isinstance(data, str) else data, keep_mode=True)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def backup_once(path: Path) -> Path | None:
    """Copy ``path`` to ``<path>.bak`` unless a backup is already there (or nothing exists)."""
    bak = backup_path(path)
    if bak.exists() or not path.exists():
        return None
    shutil.copy2(path, bak)
    return bak


def _groups(settings: Mapping[str, Any], event: str) -> list[Any]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    groups = hooks.get(event)
    return groups if isinstance(groups, list) else []


def strip_ours(
    settings: Mapping[str, Any], is_ours: Callable[[Mapping[str, Any]], bool]
) -> tuple[dict[str, Any], dict[str, int]]:
    """Remove our handlers; returns the new settings and, per event, where the first one was.

    Groups left empty are dropped, then events left empty, then an empty ``hooks`` object, so
    removing what we added gives back what was there.
    """
    result = copy.deepcopy(dict(settings))
    positions: dict[str, int] = {}
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result, positions
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept: list[Any] = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept.append(group)
                continue
            remaining = [h for h in handlers if not (isinstance(h, dict) and is_ours(h))]
            if len(remaining) != len(handlers):
                positions.setdefault(event, len(kept))
                if not remaining:
                    continue
                group = {**group, "hooks": remaining}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del result["hooks"]
    return result, positions


def merge_groups(
    settings: Mapping[str, Any],
    groups: Sequence[HookGroup],
    is_ours: Callable[[Mapping[str, Any]], bool],
) -> dict[str, Any]:
    """Settings with our groups in place of any earlier ones of ours (same position)."""
    result, positions = strip_ours(settings, is_ours)
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        if "hooks" in result:
            msg = "the settings' 'hooks' value is not a JSON object; fix it by hand first"
            raise LessonsError(msg)
        hooks = {}
        result["hooks"] = hooks
    for group in groups:
        existing = hooks.get(group.event)
        if existing is None:
            existing = []
            hooks[group.event] = existing
        elif not isinstance(existing, list):
            msg = f"the settings' hooks.{group.event} is not a JSON list; fix it by hand first"
            raise LessonsError(msg)
        at = positions.get(group.event, len(existing))
        existing.insert(min(at, len(existing)), group.as_json())
        positions[group.event] = min(at, len(existing) - 1) + 1
    return result


def status_of(
    agent: str,
    path: Path,
    events: Sequence[str],
    is_ours: Callable[[Mapping[str, Any]], bool],
    expected_command: str,
) -> InstallStatus:
    """Which of ``events`` carry one of our handlers in the file at ``path``."""
    try:
        settings, text = read_settings(path)
    except LessonsError as exc:
        return InstallStatus(
            agent, path, path.exists(), (), tuple(events), (), expected_command, str(exc)
        )
    registered: list[str] = []
    commands: list[str] = []
    for event in events:
        found = False
        for group in _groups(settings, event):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if isinstance(handler, dict) and is_ours(handler):
                    found = True
                    command = str(handler.get("command"))
                    if command not in commands:
                        commands.append(command)
        if found:
            registered.append(event)
    missing = tuple(e for e in events if e not in registered)
    return InstallStatus(
        agent, path, text is not None, tuple(registered), missing, tuple(commands), expected_command
    )


def settings_diff(path: Path, before: str | None, after: str | None) -> str:
    """The unified diff an install or uninstall shows (``/dev/null`` for a missing side)."""
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        (after or "").splitlines(keepends=True),
        fromfile=f"{path} (before)" if before is not None else "/dev/null",
        tofile=f"{path} (after)" if after is not None else "/dev/null",
    )
    return "".join(lines)


def install_groups(
    agent: str,
    path: Path,
    groups: Sequence[HookGroup],
    is_ours: Callable[[Mapping[str, Any]], bool],
    *,
    dry_run: bool = False,
) -> InstallResult:
    """Merge ``groups`` into the settings at ``path`` (see the module docstring for the rules)."""
    settings, before = read_settings(path)
    merged = merge_groups(settings, groups, is_ours)
    changed = before is None or merged != settings
    after = dump_settings(merged) if changed else before
    diff = settings_diff(path, before, after) if changed else ""
    if not changed or dry_run:
        return InstallResult(agent, path, changed, False, diff, after or "")
    bak = backup_once(path)
    write_atomic(path, after or "")
    log.info("hooks installed", agent=agent, path=str(path), backup=str(bak) if bak else None)
    return InstallResult(agent, path, True, True, diff, after or "", backup=bak)


def uninstall_groups(
    agent: str,
    path: Path,
    is_ours: Callable[[Mapping[str, Any]], bool],
    *,
    dry_run: bool = False,
) -> InstallResult:
    """Remove our handlers from ``path``; everything else stays as it was."""
    settings, before = read_settings(path)
    if before is None:
        return InstallResult(agent, path, False, False, "", "")
    stripped, positions = strip_ours(settings, is_ours)
    if not positions:
        return InstallResult(agent, path, False, False, "", before)
    bak = backup_path(path)
    backup_settings: dict[str, Any] | None = None
    backup_text: str | None = None
    if bak.exists():
        with contextlib.suppress(LessonsError):
            backup_settings, backup_text = read_settings(bak)
    restore = backup_settings is not None and backup_settings == stripped
    remove_file = not bak.exists() and not stripped and not path.is_symlink()
    if remove_file:
        after: str | None = None
    elif restore:
        after = backup_text
    else:
        after = dump_settings(stripped)
    diff = settings_diff(path, before, after)
    result = InstallResult(
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
    elif restore:
        write_atomic(path, bak.read_bytes())
    else:
        write_atomic(path, after or "")
    log.info("hooks removed", agent=agent, path=str(path), restored=restore, removed=remove_file)
    return result


# -- one installer per agent -----------------------------------------------------------------

S = TypeVar("S", bound=InstallStatus)


def extend_status(cls: type[S], base: InstallStatus, **extra: Any) -> S:
    """``base`` as the agent's own status class ``cls``, with ``extra`` fields filled in."""
    return cls(**attrs.asdict(base, recurse=False), **extra)


@attrs.frozen
class SettingsInstaller(Generic[S]):
    """``install`` / ``uninstall`` / ``status`` for one agent, from what differs between agents.

    Every agent goes through the same steps (resolve the hook command, find its file, merge or
    strip our groups, report which events carry our handler); only the file's place, the groups
    and the extra checks of the status are the agent's own. Keeping the steps here means a fix
    to one of them reaches every agent.

    ``spec`` and ``settings_path`` are callables so that building the installer imports nothing
    and reads no environment; ``extra_status(base, environ)`` turns the common status into the
    agent's subclass (see :func:`extend_status`); ``install_notes`` are added to a result that
    changed the file.
    """

    agent: str
    spec: Callable[[], AgentSpec]
    settings_path: Callable[[Mapping[str, str] | None, Path | None], Path]
    groups: Callable[[str], Sequence[HookGroup]]
    events: tuple[str, ...]
    extra_status: Callable[[InstallStatus, Mapping[str, str] | None], S]
    install_notes: tuple[str, ...] = ()

    def install(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        dry_run: bool = False,
        style: str = DEFAULT_STYLE,
    ) -> InstallResult:
        """Merge our groups into the agent's file; idempotent."""
        spec = self.spec()
        command = hook_command(spec, style, environ if environ is not None else os.environ)
        result = install_groups(
            self.agent,
            self.settings_path(environ, project),
            self.groups(command),
            is_ours_factory(spec),
            dry_run=dry_run,
        )
        if result.changed and self.install_notes:
            result = attrs.evolve(result, notes=(*result.notes, *self.install_notes))
        return result

    def uninstall(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        dry_run: bool = False,
    ) -> InstallResult:
        """Remove exactly our handlers from the agent's file."""
        return uninstall_groups(
            self.agent,
            self.settings_path(environ, project),
            is_ours_factory(self.spec()),
            dry_run=dry_run,
        )

    def status(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        project: Path | None = None,
        style: str = DEFAULT_STYLE,
    ) -> S:
        """Which events carry our handler, with which command, plus the agent's own checks.

        A hook command that cannot be resolved (say, the console script is missing) leaves
        ``expected_command`` empty rather than failing: ``doctor`` reports it as not current.
        """
        spec = self.spec()
        try:
            expected = hook_command(spec, style, environ if environ is not None else os.environ)
        except LessonsError:
            expected = ""
        path = self.settings_path(environ, project)
        base = status_of(self.agent, path, list(self.events), is_ours_factory(spec), expected)
        return self.extra_status(base, environ)
