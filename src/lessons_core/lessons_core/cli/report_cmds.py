"""``lessons report``: one self-contained HTML page of what the lessons did.

The figures come from :mod:`lessons_core.report.data` (``--json`` prints them and stops there,
without importing the plotting library); the page is drawn by :mod:`lessons_core.report.charts`
and :mod:`lessons_core.report.page`, and written atomically next to its final name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from lessons_core.cli.common import user_errors
from lessons_core.errors import LessonsError
from lessons_core.hot import safefile

DEFAULT_OUTPUT = "lessons-report.html"


def write_page(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` through a temporary file in the same directory."""
    if target.is_dir():
        raise LessonsError(f"{target} is a directory; give a file name with --output")
    parent = target.parent if str(target.parent) else Path()
    if not parent.is_dir():
        raise LessonsError(f"{parent}: no such directory")
    try:
        safefile.replace(target, text.encode("utf-8"), mode=0o644)  # a report is for reading
    except OSError as exc:
        raise LessonsError(f"cannot write {target}: {exc.strerror}") from exc


def next_step(totals: Mapping[str, int], agents: Sequence[str]) -> str | None:
    """The command that gets an empty report going, or ``None`` once lessons were delivered.

    Before any session there is nothing to judge, so the report names the next command rather
    than leaving a page of zeros to be read as a result.
    """
    if totals["fired"]:
        return None
    if not totals["active"]:
        return (
            "No lessons yet. Next: `lessons add --starter` adds the starter lessons; "
            "`lessons scan` finds lessons in past sessions."
        )
    agent = sorted(agents)[0] if agents else "<agent>"
    return (
        "No sessions yet: no lesson has been delivered. Next: `lessons install "
        f"{agent}` registers the hooks (`lessons doctor` checks them); work as usual, then run "
        "`lessons report` again."
    )


@click.command()
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=True),
    default=DEFAULT_OUTPUT,
    show_default=True,
    help="Where to write the page.",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in a browser afterwards.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures behind the page instead.")
@user_errors
def report(output: Path, open_page: bool, as_json: bool) -> None:
    """Write one self-contained HTML page: deliveries and outcomes over time, per lesson, noise,
    never-fired lessons, per agent and per project, with the scan's capture figures.

    Nothing on the page is fetched: the charts are inline SVG, and the page runs no script.
    """
    from lessons_core import outcomes, services
    from lessons_core.report import data as report_data

    with services.session() as sess:
        outcomes.run(sess)  # judge what the hooks logged since the last scan, like `stats`
        figures = report_data.collect(sess.store)
        home = str(sess.home)
        agents = list(sess.plugins.agents())
    if as_json:
        click.echo(json.dumps(figures, ensure_ascii=False, sort_keys=True))
        return
    from lessons_core.report import charts, page

    missing = charts.wanted(figures) and not charts.available()
    drawn = {} if missing else charts.draw(figures)
    text = page.render(
        figures, drawn, home=home, agents=agents, missing=charts.MISSING if missing else None
    )
    write_page(output, text)
    totals = figures["totals"]
    click.echo(
        f"Wrote {output} ({totals['active']} active lessons, {totals['fired']} deliveries, "
        f"{len(text) / 1024:.0f} KB)."
    )
    if missing:
        click.secho(f"Note: no charts on the page: {charts.MISSING}.", err=True, fg="yellow")
    step = next_step(totals, agents)
    if step:
        click.echo(step)
    if open_page:
        import webbrowser

        if not webbrowser.open(output.resolve().as_uri()):
            click.echo("No browser found to open it; open the file yourself.", err=True)
