"""``lessons sync``: exchange lessons with the team store named by ``team.store``.

Pulls the team's lessons into the local store (and rebuilds the manifest the hooks read) and
pushes this machine's lessons, candidates and delivery records; the store plugin does the work
(see :mod:`lessons_core.team`). A team store out of reach is reported on stderr and exits 0:
nothing was lost, and the next sync catches up.
"""

from __future__ import annotations

import click

from lessons_core.cli.common import json_line, user_errors
from lessons_core.errors import LessonsError

NOT_CONFIGURED = (
    "no team store is configured: set one with `lessons config team.store postgres` and its "
    "address with `lessons config team.url postgresql://…` or LESSONS_DATABASE_URL "
    "(see docs/team.md)"
)


@click.command(short_help="Exchange lessons with the team store.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@user_errors
def sync(as_json: bool) -> None:
    """Pull the team's lessons and push this machine's candidates, lessons and deliveries."""
    from lessons_core import services, team

    with services.session() as sess:
        report = team.run_sync(sess)
    if report is None:
        raise LessonsError(NOT_CONFIGURED)
    if as_json:
        click.echo(json_line(report.as_json()))
        return
    if report.offline:
        click.echo(
            f"Offline: {report.offline.rstrip('.')}; local lessons and the manifest are "
            "unchanged, the next sync catches up.",
            err=True,
        )
        return
    click.echo(
        f"Synced with {report.where} in {report.seconds:.2f}s: "
        f"pulled {report.pulled} new, {report.updated} updated, {report.removed} removed; "
        f"pushed {report.pushed_lessons} lesson(s), {report.pushed_candidates} candidate(s), "
        f"{report.pushed_deliveries} delivery record(s)."
    )
    for line in report.conflicts:
        click.echo(f"Conflict: {line}")
    for line in report.waiting:
        click.echo(f"Waits for you: {line}")
    for line in report.suggestions:
        click.echo(f"Suggestion: {line}")
    for line in report.quarantined:
        click.echo(f"Quarantined: {line}", err=True)
    if report.quarantined:
        click.echo(
            f"{len(report.quarantined)} team lesson(s) could not be used and were left on the "
            "team store (listed in team-quarantine.jsonl); the others were applied. Ask their "
            "author to fix them.",
            err=True,
        )
