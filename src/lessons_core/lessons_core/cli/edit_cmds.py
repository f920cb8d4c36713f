"""Lessons a user can correct: ``edit``, ``disable``, ``enable``, ``rescope``, ``remove``.

A lesson learned from a transcript is a first draft. These commands change one lesson in place
(its id, history and outcome figures stay), validate the result exactly as ``lessons add`` does,
and rebuild the manifest, so the next hook call sees the change.

A key may be an id, a slug or an unambiguous prefix of either. A command that deletes, or one
that changes what reaches the agent, asks before acting on a lesson found by prefix only (in a
terminal; elsewhere it needs ``--yes``): a one-letter prefix must never delete the wrong lesson.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lessons_core.cli.common import json_line, rebuild, user_errors
from lessons_core.errors import LessonsError, NotFound

if TYPE_CHECKING:
    from lessons_core.models import Lesson
    from lessons_core.store.base import Store


def find(store: Store, key: str, *, yes: bool, action: str) -> Lesson:
    """The lesson ``key`` names; a prefix match is confirmed first (or needs ``--yes``)."""
    lesson = store.get_lesson(key)
    if lesson is None:
        raise NotFound(f"no lesson with id or slug {key!r} (see 'lessons list')")
    exact = key.strip() in (lesson.slug, lesson.id) or key.strip().upper() == lesson.id
    if exact or yes:
        return lesson
    shown = f"{lesson.slug} ({lesson.id}): {lesson.summary}"
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise LessonsError(
            f"{key!r} is only a prefix of {shown}; "
            f"pass the whole slug or id, or --yes to {action} it"
        )
    if not click.confirm(f"{action.capitalize()} {shown}?", default=False):
        raise click.exceptions.Abort
    return lesson


def check(lesson: Lesson) -> None:
    """Refuse what ``lessons add`` would refuse (:func:`lessons_core.authoring.check`), with its
    reason; its warnings are printed."""
    from lessons_core import authoring, tool_names
    from lessons_core.errors import ValidationError

    try:
        warnings = authoring.check(lesson, "the edited lesson", tools=tool_names.installed())
    except ValidationError as exc:
        raise LessonsError(
            f"not saved, the stored lesson is unchanged: {exc}\n"
            "Fix it and run `lessons edit` again."
        ) from None
    for warning in warnings:
        click.secho(f"warning: {warning}", err=True, fg="yellow")


def _save(store: Store, lesson: Lesson) -> Lesson:
    check(lesson)
    saved = store.update_lesson(lesson)
    rebuild(store)
    return saved


def _report(lesson: Lesson, verb: str, as_json: bool, **extra: Any) -> None:
    if as_json:
        click.echo(
            json_line({"id": lesson.id, "slug": lesson.slug, "status": str(lesson.status), **extra})
        )
    else:
        click.echo(f"{verb} {lesson.slug} ({lesson.id})")


# -- edit ---------------------------------------------------------------------------------------


@click.command()
@click.argument("key", metavar="ID|SLUG")
@click.option("--summary", help="New summary.")
@click.option("--mistake", help="New mistake text.")
@click.option("--remediation", "--fix", "remediation", help="New remediation (the fix).")
@click.option("--injection", help="New text delivered to the agent.")
@click.option("--type", "type_", help="hint, guard, nudge, protocol or directive.")
@click.option("--priority", type=int, help="1-10.")
@click.option("--confidence", type=float, help="0-1.")
@click.option("--tool", "tools", multiple=True, help="Tool names (replaces the list).")
@click.option("--command", "commands", multiple=True, help="Command regexes (replaces the list).")
@click.option("--path", "paths", multiple=True, help="Path globs (replaces the list).")
@click.option("--yes", "-y", is_flag=True, help="Act on a lesson found by prefix without asking.")
@click.option("--json", "as_json", is_flag=True, help="Print the saved lesson as JSON.")
@user_errors
def edit(
    key: str,
    summary: str | None,
    mistake: str | None,
    remediation: str | None,
    injection: str | None,
    type_: str | None,
    priority: int | None,
    confidence: float | None,
    tools: tuple[str, ...],
    commands: tuple[str, ...],
    paths: tuple[str, ...],
    yes: bool,
    as_json: bool,
) -> None:
    """Change a lesson: with field flags (for scripts), or in $EDITOR as JSON.

    The edited lesson is validated like `lessons add` input and its patterns like the
    compiler's; if the editor's text is invalid, nothing is saved and the text is kept in a file
    whose name is printed, so no edit is lost.
    """
    from lessons_core import serde, services

    flags: dict[str, Any] = {
        name: value
        for name, value in (
            ("summary", summary),
            ("mistake", mistake),
            ("remediation", remediation),
            ("injection", injection),
            ("type", type_),
            ("priority", priority),
            ("confidence", confidence),
        )
        if value is not None
    }
    triggers: dict[str, Any] = {}
    if tools:
        triggers["toolNames"] = list(tools)
    if commands:
        triggers["commandPatterns"] = list(commands)
    if paths:
        triggers["pathPatterns"] = list(paths)
    with services.open_store() as store:
        lesson = find(store, key, yes=yes, action="edit")
        data = serde.lesson_to_json(lesson)
        if flags or triggers:
            data.update(flags)
            if triggers:
                data["triggers"] = {**(data.get("triggers") or {}), **triggers}
        else:
            edited = _in_editor(data)
            if edited is None:
                click.echo("no change", err=True)
                return
            data = edited
        data["id"] = lesson.id
        changed = serde.lesson_from_json(data, where="the edited lesson")
        saved = _save(store, changed)
    if as_json:
        click.echo(json_line(serde.lesson_to_json(saved)))
    else:
        click.echo(f"saved {saved.slug} ({saved.id})")


def _in_editor(data: dict[str, Any]) -> dict[str, Any] | None:
    """``data`` as the user left it in ``$EDITOR``; ``None`` when nothing changed."""
    import tempfile

    before = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    after = click.edit(before, extension=".json", require_save=True)
    if after is None or after.strip() == before.strip():
        return None
    try:
        edited = json.loads(after)
    except ValueError as exc:
        with tempfile.NamedTemporaryFile(
            "w", prefix="lesson-", suffix=".json", delete=False, encoding="utf-8"
        ) as fh:
            fh.write(after)
        raise LessonsError(
            f"the edited text is not valid JSON ({exc}); nothing saved, your text is in {fh.name}"
        ) from None
    if not isinstance(edited, dict):
        raise LessonsError("the edited text must be one JSON object; nothing saved")
    return edited


# -- status and scope ---------------------------------------------------------------------------


def _set_status(key: str, status: str, yes: bool, as_json: bool, verb: str) -> None:
    import attrs

    from lessons_core import services
    from lessons_core.models import Status

    with services.open_store() as store:
        lesson = find(store, key, yes=yes, action=verb)
        if lesson.status == Status(status):
            _report(lesson, f"already {status}:", as_json)
            return
        saved = store.update_lesson(attrs.evolve(lesson, status=Status(status)))
        rebuild(store)
    _report(saved, f"{status}", as_json)


_YES = click.option("--yes", "-y", is_flag=True, help="Act on a prefix match without asking.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


@click.command()
@click.argument("key", metavar="ID|SLUG")
@_YES
@_JSON
@user_errors
def disable(key: str, yes: bool, as_json: bool) -> None:
    """Stop delivering a lesson (kept, with its history; `lessons enable` brings it back)."""
    _set_status(key, "disabled", yes, as_json, "disable")


@click.command()
@click.argument("key", metavar="ID|SLUG")
@_YES
@_JSON
@user_errors
def enable(key: str, yes: bool, as_json: bool) -> None:
    """Deliver a disabled (or candidate) lesson again."""
    _set_status(key, "active", yes, as_json, "enable")


@click.command()
@click.argument("key", metavar="ID|SLUG")
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, exists=True),
    help="Scope the lesson to this project (default: the current directory's).",
)
@click.option("--global", "to_all", is_flag=True, help="Deliver the lesson in every project.")
@_YES
@_JSON
@user_errors
def rescope(key: str, project: str | None, to_all: bool, yes: bool, as_json: bool) -> None:
    """Limit a lesson to one project, or open it to all (--global)."""
    import attrs

    from lessons_core import services
    from lessons_core.hot.project import project_id

    if to_all and project:
        raise LessonsError("choose --project or --global, not both")
    scope: str | None = None
    if not to_all:
        target = Path(project) if project else Path.cwd()
        scope = project_id(str(target.absolute()))
        if scope is None:
            raise LessonsError(f"{target}: cannot determine a project id")
    with services.open_store() as store:
        lesson = find(store, key, yes=yes, action="rescope")
        saved = store.update_lesson(attrs.evolve(lesson, scope=scope))
        rebuild(store)
    if as_json:
        click.echo(json_line({"id": saved.id, "slug": saved.slug, "scope": saved.scope}))
    else:
        click.echo(f"{saved.slug} ({saved.id}): scope {saved.scope or 'global (every project)'}")


@click.command()
@click.argument("key", metavar="ID|SLUG")
@_YES
@_JSON
@user_errors
def remove(key: str, yes: bool, as_json: bool) -> None:
    """Delete a lesson and rebuild the manifest (a prefix match asks first)."""
    from lessons_core import services

    with services.open_store() as store:
        lesson = find(store, key, yes=yes, action="remove")
        store.remove_lesson(lesson.id)
        rebuild(store)
    if as_json:
        click.echo(json_line({"id": lesson.id, "slug": lesson.slug, "removed": True}))
    else:
        click.echo(f"removed {lesson.slug} ({lesson.id})")


__all__ = ["disable", "edit", "enable", "remove", "rescope"]
