"""``lessons import`` and ``lessons export``.

Import detects the format (our JSONL export, plain JSON lessons, or the Node implementation's
``lesson-manifest.json``), applies the shared merge rules (:mod:`lessons_core.transfer.merge`)
in one transaction and prints a report. Export writes redacted JSONL with a header line.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import click

from lessons_core.cli.common import rebuild, user_errors
from lessons_core.errors import LessonsError
from lessons_core.models import Lesson
from lessons_core.transfer.merge import ImportReport


def _whole_json(text: str) -> Any:
    from lessons_core import jsoninput

    try:
        return jsoninput.loads(text)
    except json.JSONDecodeError:
        return None


def parse_import(text: str, *, source: str, partial: bool) -> tuple[list[Lesson], ImportReport]:
    """Detect the format of ``text`` and parse it; nothing is written here."""
    from lessons_core.transfer import jsonl, node_manifest

    whole = _whole_json(text)
    if node_manifest.is_node_manifest(whole):
        lessons, report = node_manifest.parse_node_manifest(whole, source=source)
        if report.rejected and not partial:
            listed = "\n  ".join(report.rejected)
            raise LessonsError(
                f"{source}: {len(report.rejected)} lesson(s) cannot be represented; nothing was "
                f"imported (use --partial to import the others):\n  {listed}"
            )
        return lessons, report
    if jsonl.is_header(whole):
        jsonl.check_header(whole, "line 1")
        return [], ImportReport(source=source, format="lessons JSONL export")
    if whole is not None or not text.strip():
        parsed = jsonl.parse_lessons(text, source=source, partial=partial)
        fmt = "JSON"
    else:
        parsed = jsonl.parse_jsonl(text, source=source, partial=partial)
        fmt = "lessons JSONL export" if parsed.header is not None else "JSON Lines"
    report = ImportReport(
        source=source, format=fmt, rejected=list(parsed.rejected), warnings=list(parsed.warnings)
    )
    return [lesson for _, lesson in parsed.lessons], report


@click.command(name="import")
@click.argument("source", metavar="FILE|-")
@click.option("--partial", is_flag=True, help="Import the valid lessons even if some are not.")
@click.option(
    "--on-conflict",
    type=click.Choice(["ask", "keep", "theirs", "both"]),
    help="A lesson stored with other content: ask (the default in a terminal), keep the stored "
    "one (the default elsewhere), take the imported one, or keep both.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@user_errors
def import_(source: str, partial: bool, on_conflict: str | None, as_json: bool) -> None:
    """Import a lessons JSONL export, JSON lessons, or a Node lesson-manifest.json."""
    import sys

    from lessons_core import outcomes, services
    from lessons_core.transfer import jsonl
    from lessons_core.transfer.merge import import_lessons

    name = "<stdin>" if source == "-" else source
    text = jsonl.read_text(source)
    lessons, report = parse_import(text, source=name, partial=partial)
    from lessons_core.compiler.entries import refusal_error, refusals

    found = refusals(lessons)
    if found and not partial:
        raise refusal_error(found, "import")
    if found:
        bad = {r.lesson_id for r in found}
        lessons = [lesson for lesson in lessons if lesson.id not in bad]
        report.rejected.extend(r.message() for r in found)
    interactive = source != "-" and sys.stdin.isatty() and sys.stdout.isatty()
    choice = on_conflict or ("ask" if interactive else "keep")
    if choice == "ask" and not interactive:
        raise LessonsError("--on-conflict ask needs a terminal; choose keep, theirs or both")
    resolve = _ask if choice == "ask" else choice
    with services.open_store() as store:
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
        "notes": report.notes,
        "statistics": statistics,
    }


def _write_atomic(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(line + "\n")
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@click.command()
@click.argument("target", metavar="FILE|-")
@click.option("--force", "-f", is_flag=True, help="Overwrite FILE without asking.")
@user_errors
def export(target: str, force: bool) -> None:
    """Write every lesson as JSONL (secrets redacted, home paths as ~) to FILE or stdout.

    An existing FILE is overwritten only after a yes in a terminal, or with --force.
    """
    import sys

    if target != "-" and Path(target).is_file() and not force:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise LessonsError(f"{target} exists; pass --force to overwrite it")
        if not click.confirm(f"{target} exists. Overwrite it?", default=False):
            raise click.exceptions.Abort
    from lessons_core import outcomes, services
    from lessons_core.transfer import jsonl

    with services.open_store() as store:
        lessons = store.list_lessons()
        statistics = list(outcomes.export_rows(store))
    lines = jsonl.export_lines(lessons, statistics=statistics)
    if target == "-":
        for line in lines:
            click.echo(line)
        return
    path = Path(target)
    if path.is_dir():
        raise LessonsError(f"{target}: is a directory; name a file")
    try:
        _write_atomic(path, lines)
    except OSError as exc:
        raise LessonsError(f"{target}: cannot write: {exc.strerror}") from None
    click.echo(f"exported {len(lines) - 1} lesson(s) to {target}", err=True)
