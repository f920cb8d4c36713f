"""``lessons import`` and ``lessons export``.

Import detects the format (our JSONL export, plain JSON lessons, or the Node implementation's
``lesson-manifest.json``), applies the shared merge rules (:mod:`lessons_core.transfer.merge`)
in one transaction and prints a report. Export writes redacted JSONL with a header line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lessons_core.cli.common import rebuild, user_errors
from lessons_core.errors import LessonsError
from lessons_core.hot import safefile
from lessons_core.models import Lesson
from lessons_core.transfer.merge import ImportReport

if TYPE_CHECKING:
    from lessons_core.tool_names import ToolVocabulary


def _whole_json(text: str) -> Any:
    from lessons_core import jsoninput

    try:
        return jsoninput.loads(text)
    except json.JSONDecodeError:
        return None


def parse_import(
    text: str, *, source: str, strict: bool, tools: ToolVocabulary | None = None
) -> tuple[list[Lesson], ImportReport]:
    """Detect the format of ``text`` and parse it; nothing is written here.

    Every lesson is checked as ``lessons add`` checks it (:func:`lessons_core.authoring.check`).
    Those that fail are listed in the report's ``rejected``; with ``strict`` any of them stops
    the import instead.
    """
    from lessons_core import authoring
    from lessons_core.transfer import jsonl, node_manifest

    whole = _whole_json(text)
    if node_manifest.is_node_manifest(whole):
        lessons, report = node_manifest.parse_node_manifest(whole, source=source, tools=tools)
        kept = []
        for lesson in lessons:
            refused = authoring.refusal(lesson)
            if refused is None:
                kept.append(lesson)
            else:
                report.rejected.append(str(refused))
        lessons = kept
        if report.rejected and strict:
            listed = "\n  ".join(report.rejected)
            raise LessonsError(
                f"{source}: {len(report.rejected)} lesson(s) cannot be imported; nothing was "
                f"imported (leave out --strict to import the others):\n  {listed}"
            )
        return lessons, report
    if jsonl.is_header(whole):
        jsonl.check_header(whole, "line 1")
        return [], ImportReport(source=source, format="lessons JSONL export")
    if whole is not None or not text.strip():
        parsed = jsonl.parse_lessons(
            text, source=source, partial=not strict, tools=tools, hint=jsonl.STRICT_HINT
        )
        fmt = "JSON"
    else:
        parsed = jsonl.parse_jsonl(
            text, source=source, partial=not strict, tools=tools, hint=jsonl.STRICT_HINT
        )
        fmt = "lessons JSONL export" if parsed.header is not None else "JSON Lines"
    report = ImportReport(
        source=source, format=fmt, rejected=list(parsed.rejected), warnings=list(parsed.warnings)
    )
    return [lesson for _, lesson in parsed.lessons], report


class _DryRun(Exception):
    """Rolls the dry run's transaction back."""


@click.command(name="import")
@click.argument("source", metavar="FILE|-")
@click.option(
    "--strict",
    is_flag=True,
    help="All or nothing: any lesson that cannot be imported stops the import.",
)
@click.option(
    "--partial",
    is_flag=True,
    help="Import the valid lessons and report the others (the default; kept for scripts).",
)
@click.option(
    "--scope",
    "scope_choice",
    type=click.Choice(["keep", "global", "here"]),
    default="keep",
    show_default=True,
    help="Lessons scoped to a project that cannot be on this machine (a Node path-derived id): "
    "keep the scope, open them to every project, or scope them to this directory's project.",
)
@click.option(
    "--on-conflict",
    type=click.Choice(["ask", "keep", "theirs", "both"]),
    help="A lesson stored with other content: ask (the default in a terminal), keep the stored "
    "one (the default elsewhere), take the imported one, or keep both.",
)
@click.option(
    "--dry-run", is_flag=True, help="Report what would come in and what not; change nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@user_errors
def import_(
    source: str,
    strict: bool,
    partial: bool,
    scope_choice: str,
    on_conflict: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Import a lessons JSONL export, JSON lessons, or a Node lesson-manifest.json.

    Every lesson that can be used comes in; those that cannot (refused the way `lessons add`
    refuses them) are listed with the reason, and the import still succeeds. It fails (exit 1)
    when the file holds lessons but none can be imported, or with --strict when any cannot.
    """
    import sys

    from lessons_core import outcomes, services, tool_names
    from lessons_core.transfer import jsonl, scopes
    from lessons_core.transfer.merge import import_lessons

    if strict and partial:
        raise LessonsError("choose --strict or --partial, not both")
    name = "<stdin>" if source == "-" else source
    text = jsonl.read_text(source)
    lessons, report = parse_import(text, source=name, strict=strict, tools=tool_names.installed())
    report.dry_run = dry_run
    here = scopes.here_scope(str(Path.cwd())) if scope_choice == scopes.HERE else None
    lessons = scopes.rescope(lessons, scope_choice, report, here=here)
    if report.rejected and not lessons:
        listed = "\n  ".join(report.rejected)
        raise LessonsError(
            f"{name}: none of its {len(report.rejected)} lesson(s) can be imported:\n  {listed}"
        )
    interactive = source != "-" and sys.stdin.isatty() and sys.stdout.isatty() and not dry_run
    choice = on_conflict or ("ask" if interactive else "keep")
    if choice == "ask" and not interactive:
        raise LessonsError("--on-conflict ask needs a terminal; choose keep, theirs or both")
    resolve = _ask if choice == "ask" else choice
    merged = 0
    with services.open_store() as store:
        if dry_run:
            try:
                with store.transaction():
                    import_lessons(store, lessons, report, resolve)
                    raise _DryRun
            except _DryRun:
                pass
        else:
            import_lessons(store, lessons, report, resolve)
            merged, _ = outcomes.merge_rows(store, jsonl.statistics_lines(text))
            if report.changed() or merged:
                rebuild(store)
    if as_json:
        click.echo(json.dumps(_report_json(report, merged), ensure_ascii=False, sort_keys=True))
        return
    for line in report.lines():
        click.echo(line)
    if merged:
        click.echo(f"delivery statistics: {merged} merged")


def _ask(stored: Lesson, incoming: Lesson) -> str:
    """Show one conflict and ask what to keep."""
    from lessons_core.transfer.merge import differences

    click.echo(f"\n{stored.slug} ({stored.id}) is stored with other content:")
    for line in differences(incoming, stored):
        click.echo(f"  {line}")
    answer = click.prompt(
        "keep (s)tored, take (i)mported, keep (b)oth",
        type=click.Choice(["s", "i", "b"]),
        default="s",
        show_choices=False,
    )
    return {"s": "keep", "i": "theirs", "b": "both"}[answer]


def _report_json(report: ImportReport, statistics: int) -> dict[str, Any]:
    def ids(lessons: list[Lesson]) -> list[dict[str, str]]:
        return [{"id": x.id, "slug": x.slug} for x in lessons]

    return {
        "source": report.source,
        "format": report.format,
        "added": ids(report.added),
        "merged": ids(report.merged),
        "unchanged": ids(report.unchanged),
        "conflicts": [
            {"id": incoming.id, "resolution": how, "stored": {"id": x.id, "slug": x.slug}}
            for x, how, incoming in report.conflicts
        ],
        "rejected": report.rejected,
        "notes": [*report.grouped_notes(), *report.notes],
        "noteGroups": [
            {"note": heading, "lessons": [n for n, _ in members]}
            for heading, members in report.groups.items()
        ],
        "dryRun": report.dry_run,
        "statistics": statistics,
    }


def _write_atomic(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    safefile.replace(path, "".join(line + "\n" for line in lines).encode("utf-8"))


@click.command()
@click.argument("target", metavar="FILE|-")
@click.option("--force", "-f", is_flag=True, help="Overwrite FILE without asking.")
@user_errors
def export(target: str, force: bool) -> None:
    """Write every lesson as JSONL (secrets redacted, home paths as ~) to FILE or stdout.

    An existing FILE is overwritten only after a yes in a terminal, or with --force. A lesson
    that import would refuse (stored before a check existed) is left out and named, and the
    command exits 1 after writing the rest.
    """
    import sys

    if target != "-" and Path(target).is_file() and not force:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise LessonsError(f"{target} exists; pass --force to overwrite it")
        if not click.confirm(f"{target} exists. Overwrite it?", default=False):
            raise click.exceptions.Abort
    from lessons_core import outcomes, services, tool_names
    from lessons_core.transfer import jsonl

    with services.open_store() as store:
        lessons = store.list_lessons()
        statistics = list(outcomes.export_rows(store))
    left_out: list[str] = []
    lines = jsonl.export_lines(
        lessons, statistics=statistics, tools=tool_names.installed(), left_out=left_out
    )
    if target == "-":
        for line in lines:
            click.echo(line)
        _left_out(left_out)
        return
    path = Path(target)
    if path.is_dir():
        raise LessonsError(f"{target}: is a directory; name a file")
    try:
        _write_atomic(path, lines)
    except OSError as exc:
        raise LessonsError(f"{target}: cannot write: {exc.strerror}") from None
    click.echo(f"exported {len(lessons) - len(left_out)} lesson(s) to {target}", err=True)
    _left_out(left_out)


def _left_out(problems: list[str]) -> None:
    """Name the lessons export left out (import would refuse them) and fail, as build does."""
    if not problems:
        return
    for why in problems:
        click.secho(f"left out: {why}", err=True, fg="yellow")
    raise LessonsError(
        f"{len(problems)} lesson(s) were not exported: import would refuse them as they are; "
        "correct them with 'lessons edit ID' (or remove them) and export again"
    )
