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
    try:
        return json.loads(text)
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
@user_errors
def import_(source: str, partial: bool) -> None:
    """Import a lessons JSONL export, JSON lessons, or a Node lesson-manifest.json."""
    from lessons_core import outcomes, services
    from lessons_core.transfer import jsonl
    from lessons_core.transfer.merge import import_lessons

    name = "<stdin>" if source == "-" else source
    text = jsonl.read_text(source)
    lessons, report = parse_import(text, source=name, partial=partial)
    from lessons_core.compiler.build import refusal_error, refusals

    found = refusals(lessons)
    if found and not partial:
        raise refusal_error(found)
    if found:
        bad = {r.lesson_id for r in found}
        lessons = [lesson for lesson in lessons if lesson.id not in bad]
        report.rejected.extend(r.message() for r in found)
    with services.open_store() as store:
        import_lessons(store, lessons, report)
        merged, _ = outcomes.merge_rows(store, jsonl.statistics_lines(text))
        if report.changed() or merged:
            rebuild(store)
    for line in report.lines():
        click.echo(line)
    if merged:
        click.echo(f"delivery statistics: {merged} merged")


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
@user_errors
def export(target: str) -> None:
    """Write every lesson as JSONL (secrets redacted, home paths as ~) to FILE or stdout."""
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
