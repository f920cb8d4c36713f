"""``lessons add``, ``list``, ``show``, ``remove`` and ``project-id``.

Every command that changes lessons rebuilds the manifest before it returns, so the very next
hook call sees the change; there is no "remember to run build" step to forget.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lessons_core.cli.common import json_line, rebuild, user_errors
from lessons_core.errors import LessonsError, NotFound
from lessons_core.models import Lesson, LessonType, Status

if TYPE_CHECKING:
    from lessons_core.store.base import Store

# -- add ---------------------------------------------------------------------------------------


@click.command()
@click.argument("source", metavar="FILE|-", required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"id", "slug"} per lesson.')
@click.option("--partial", is_flag=True, help="Add the valid lessons even if some are invalid.")
@click.option(
    "--starter",
    is_flag=True,
    help="Add the starter lessons the demo shows (those already stored are left as they are).",
)
@user_errors
def add(source: str | None, as_json: bool, partial: bool, starter: bool = False) -> None:
    """Add lessons from FILE (or - for stdin): a JSON object, a JSON array or JSON Lines; or,
    with --starter, the starter lessons (running it again adds nothing)."""
    from lessons_core import services, tool_names
    from lessons_core.transfer import jsonl

    if starter:
        if source is not None:
            raise click.UsageError("give FILE or --starter, not both")
        _add_starter(as_json)
        return
    if source is None:
        raise click.UsageError(
            "give the FILE to add lessons from (- for stdin), or --starter for the starter lessons"
        )

    name = "<stdin>" if source == "-" else source
    parsed = jsonl.parse_lessons(
        jsonl.read_text(source), source=name, partial=partial, tools=tool_names.installed()
    )
    for why in parsed.rejected:
        click.secho(f"skipped: {why}", err=True, fg="yellow")
    with services.open_store() as store:
        known = {
            lesson.content_hash
            for _, lesson in parsed.lessons
            if store.find_by_hash(lesson.content_hash)
        }
        stored = store.add_lessons(lesson for _, lesson in parsed.lessons)
        if stored:
            rebuild(store)
    for (_, incoming), lesson in zip(parsed.lessons, stored, strict=True):
        if as_json:
            click.echo(json_line({"id": lesson.id, "slug": lesson.slug}))
        elif incoming.content_hash in known:
            click.echo(f"merged into {lesson.slug} ({lesson.id}): same content")
        else:
            click.echo(f"added {lesson.slug} ({lesson.id})")


def _add_starter(as_json: bool) -> None:
    """Add the starter lessons the store does not hold yet (by content, or by summary once
    edited), so a second run adds nothing and an edited starter lesson is not added again."""
    from lessons_core import services, starter, tool_names
    from lessons_core.transfer import jsonl

    parsed = jsonl.parse_lessons(
        starter.text(), source=starter.SOURCE, partial=False, tools=tool_names.installed()
    )
    incoming = [lesson for _, lesson in parsed.lessons]
    with services.open_store() as store:
        held = {lesson.summary for lesson in store.list_lessons()}
        fresh = [
            lesson
            for lesson in incoming
            if lesson.summary not in held and not store.find_by_hash(lesson.content_hash)
        ]
        stored = store.add_lessons(fresh) if fresh else []
        if stored:
            rebuild(store)
    for lesson in stored:
        if as_json:
            click.echo(json_line({"id": lesson.id, "slug": lesson.slug}))
        else:
            click.echo(f"added {lesson.slug} ({lesson.id})")
    if as_json:
        return
    kept = len(incoming) - len(stored)
    if not stored:
        click.echo(f"The {len(incoming)} starter lessons are already in the store; nothing added.")
        return
    also = f"; {kept} already in the store" if kept else ""
    click.echo(f"{len(stored)} starter lessons added{also}. `lessons list` shows them.")


# -- list / show -------------------------------------------------------------------------------

_COLUMNS = ("slug", "type", "priority", "confidence", "status", "summary")


def _row(lesson: Lesson) -> tuple[str, ...]:
    return (
        lesson.slug,
        str(lesson.type),
        str(lesson.priority),
        f"{lesson.confidence:.2f}",
        str(lesson.status),
        " ".join(lesson.summary.split()),
    )


def format_table(lessons: list[Lesson], width: int | None = None) -> list[str]:
    """A plain aligned table; with a ``width``, the summary is cut to fit it."""
    rows = [tuple(c.upper() for c in _COLUMNS), *(_row(lesson) for lesson in lessons)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS) - 1)]
    room = max(20, width - sum(widths) - 2 * len(widths)) if width else 1 << 30
    out = []
    for row in rows:
        summary = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        cells = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)]
        out.append("  ".join([*cells, summary]).rstrip())
    return out


@click.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option(
    "--status",
    type=click.Choice([s.value for s in Status]),
    help="Only lessons with this status.",
)
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice([t.value for t in LessonType]),
    help="Only lessons of this type (repeatable).",
)
@user_errors
def list_(as_json: bool, status: str | None, types: tuple[str, ...]) -> None:
    """List lessons (all statuses unless --status is given)."""
    from lessons_core import services

    with services.open_store() as store:
        lessons = store.list_lessons(
            status=Status(status) if status else None, types=list(types) or None
        )
    if as_json:
        from lessons_core import serde

        for lesson in lessons:
            click.echo(json_line(serde.lesson_to_json(lesson)))
        return
    if not lessons:
        click.echo("No lessons. Add some with 'lessons add FILE' or 'lessons import FILE'.")
        return
    # Cut summaries only for a person at a terminal; piped output stays whole for grep.
    if sys.stdout.isatty():
        import shutil  # only for a terminal: importing it loads three compression modules

        width: int | None = shutil.get_terminal_size().columns
    else:
        width = None
    for line in format_table(lessons, width):
        click.echo(line)
    _shared_notes()


def _shared_notes() -> None:
    """After the user's own lessons: what included repositories add and ask (stderr)."""
    from lessons_core import services
    from lessons_core.repomem import registry

    home = services.home_dir()
    if not (home / registry.NAME).exists():
        return  # no repository was ever included: nothing to read
    from lessons_core.cli.doctor_cmds import shared_report

    try:
        report = shared_report(dict(os.environ), home)
    except Exception as exc:
        click.secho(f"lesson sources: not read ({exc})", err=True, fg="yellow")
        return
    if report is None:
        return
    click.echo(f"From repositories: {report['contributed']} lesson(s) delivered", err=True)
    for note in report["waiting"] + report["suggestions"] + report["problems"]:
        click.secho(f"  {note}", err=True, fg="yellow")


def _find(store: Store, key: str) -> Lesson:
    lesson = store.get_lesson(key)
    if lesson is None:
        raise NotFound(f"no lesson with id or slug {key!r} (see 'lessons list')")
    return lesson


def describe(lesson: Lesson) -> list[str]:
    """``lessons show`` in human form."""
    t = lesson.triggers
    out = [
        f"{lesson.slug}  ({lesson.id})",
        f"  summary:      {lesson.summary}",
        f"  type:         {lesson.type}    status: {lesson.status}",
        f"  priority:     {lesson.priority}    confidence: {lesson.confidence:.2f}",
        f"  scope:        {lesson.scope or 'global'}",
    ]
    for label, values in (
        ("tools", t.tool_names),
        ("commands", t.command_patterns),
        ("match on", (str(lesson.command_match_target),) if t.command_patterns else ()),
        ("path globs", t.path_patterns),
        ("path regexes", t.path_regexes),
        ("content", t.content_patterns),
        ("models", t.model_patterns),
        ("tags", lesson.tags),
    ):
        if values:
            out.append(f"  {label + ':':<13} {', '.join(values)}")
    out += [
        f"  mistake:      {lesson.mistake}",
        f"  remediation:  {lesson.remediation}",
    ]
    if lesson.injection:
        out.append("  injection:")
        out += [f"    {line}" for line in lesson.injection.splitlines()]
    p = lesson.provenance
    out.append(
        f"  provenance:   {p.source}, seen {p.occurrences}x in {len(p.sessions)} session(s), "
        f"{len(p.projects)} project(s)"
    )
    out += seen_lines(lesson)
    out.append(f"  created:      {lesson.created_at}    updated: {lesson.updated_at}")
    out.append(f"  content hash: {lesson.content_hash}")
    return out


#: Places and projects ``lessons show`` lists of a lesson (``--json`` gives every one kept).
SHOWN = 5


def seen_lines(lesson: Lesson) -> list[str]:
    """Where ``lesson`` was seen: the transcript places and projects, counted, the first few
    listed; and, for a lesson of one project seen in several, the command that opens it to all.
    """
    from lessons_core import scope_offers
    from lessons_core.models import MAX_SIGHTINGS

    p = lesson.provenance
    out: list[str] = []
    if p.evidence:
        files = len({s.file for s in p.evidence})
        kept = f" (the first {MAX_SIGHTINGS} kept)" if len(p.evidence) >= MAX_SIGHTINGS else ""
        out.append(f"  seen at:      {len(p.evidence)} place(s) in {files} file(s){kept}")
        for s in p.evidence[:SHOWN]:
            where = ", ".join(
                f"{label} {value}"
                for label, value in (("session", s.session_id), ("call", s.call_id))
                if value
            )
            out.append(f"    {s.file}:{s.line}" + (f" ({where})" if where else ""))
        if len(p.evidence) > SHOWN:
            out.append(f"    … {len(p.evidence) - SHOWN} more (lessons show --json lists them)")
    if p.projects:
        more = f", … {len(p.projects) - SHOWN} more" if len(p.projects) > SHOWN else ""
        out.append(f"  projects:     {', '.join(p.projects[:SHOWN])}{more}")
    if scope_offers.offered(lesson):
        count = len(scope_offers.projects_seen(lesson))
        out.append(
            f"  offer:        seen in {count} projects; for every project run: "
            f"{scope_offers.command(lesson)}"
        )
    return out


@click.command()
@click.argument("key", metavar="ID|SLUG")
@click.option("--json", "as_json", is_flag=True, help="The lesson as one JSON object.")
@user_errors
def show(key: str, as_json: bool) -> None:
    """Show one lesson (an id, a slug, or an unambiguous prefix of either)."""
    from lessons_core import services

    with services.open_store() as store:
        lesson = _find(store, key)
    if as_json:
        from lessons_core import serde

        click.echo(json_line(serde.lesson_to_json(lesson)))
    else:
        for line in describe(lesson):
            click.echo(line)


# -- project-id --------------------------------------------------------------------------------


@click.command(name="project-id")
@click.argument("directory", metavar="[DIR]", required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"directory", "projectId"}.')
@user_errors
def project_id(directory: str | None, as_json: bool) -> None:
    """Print the project id of DIR (default: the current directory), as scopes use it."""
    from lessons_core.hot.project import project_id as compute

    target = Path(directory) if directory else Path.cwd()
    if not target.is_dir():
        raise LessonsError(f"{target}: not a directory")
    found = compute(str(target.absolute()))
    if found is None:
        raise LessonsError(f"{target}: cannot determine a project id")
    if as_json:
        click.echo(json_line({"directory": str(target.absolute()), "projectId": found}))
        return
    click.echo(found)
