"""``lessons build``: compile the store's active lessons into the manifest the hooks read.

Every command that changes lessons rebuilds the manifest already; running it by hand is for
after editing ``config.json`` and for checking a catalogue. Lessons with a refused pattern
(invalid, or prone to catastrophic backtracking) are left out, the rest is still written, and
the command exits 1 listing each refusal, so a script notices.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from lessons_core.compiler.build import BuildResult, Refusal


def summarize(result: BuildResult) -> dict[str, Any]:
    """The figures of a build as a JSON-ready dict."""
    manifest = result.manifest
    return {
        "path": str(result.path) if result.path else None,
        "fingerprint": manifest.get("fingerprint"),
        "storeRevision": manifest.get("storeRevision"),
        "lessons": len(manifest.get("lessons", {})),
        "byTool": {tool: len(ids) for tool, ids in manifest.get("byTool", {}).items()},
        "anyTool": len(manifest.get("anyTool", [])),
        "session": len(manifest.get("session", [])),
        "belowFloors": result.skipped_floor,
        "refused": [
            {
                "id": r.lesson_id,
                "slug": r.slug,
                "field": r.field,
                "pattern": r.pattern,
                "reason": r.reason,
                "part": r.part,
                "rewrite": r.rewrite,
            }
            for r in result.refused
        ],
        "warnings": list(result.warnings),
        "sources": manifest.get("sources", {}),
        "sourceProblems": list(result.source_problems),
        "sourceNotices": list(result.source_notices),
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the build summary as JSON.")
def build(as_json: bool) -> None:
    """Compile the manifest the hooks read (LESSONS_HOME/lesson-manifest.json)."""
    from lessons_core import services
    from lessons_core.compiler.build import build as compile_and_write

    with services.session() as ctx:
        result = compile_and_write(ctx.store, ctx.config, ctx.home, ctx.plugins)
    summary = summarize(result)
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False))
    else:
        _print_human(summary)
    if result.refused or result.source_problems:
        sys.exit(1)


def _print_human(summary: dict[str, Any]) -> None:
    tools = ", ".join(f"{tool} {count}" for tool, count in summary["byTool"].items()) or "none"
    click.echo(f"{summary['path']}: {summary['lessons']} lessons")
    click.echo(
        f"  store revision {summary['storeRevision']}, fingerprint {summary['fingerprint'][:12]}"
    )
    click.echo(f"  by tool: {tools}; any tool: {summary['anyTool']}")
    click.echo(f"  session start: {summary['session']}")
    if summary["belowFloors"]:
        click.echo(f"  left out below minConfidence/minPriority: {summary['belowFloors']}")
    for warning in summary["warnings"]:
        click.echo(f"  warning: {warning}", err=True)
    for refusal in summary["refused"]:
        shown = Refusal(
            refusal["id"],
            refusal["slug"],
            refusal["field"],
            refusal["pattern"],
            refusal["reason"],
            refusal["part"],
            refusal["rewrite"],
        )
        click.echo(f"  refused {shown.message()}", err=True)
    if summary["refused"]:
        click.echo(
            f"{len(summary['refused'])} stored lesson(s) left out of the manifest: they never"
            " fire until their pattern is fixed (`lessons edit`) or they are removed; every"
            " other lesson was compiled.",
            err=True,
        )
    for problem in summary["sourceProblems"]:
        click.echo(f"  left out: {problem}", err=True)
    for notice in summary["sourceNotices"]:
        click.echo(f"  notice: {notice}", err=True)
