"""``lessons report``: one self-contained HTML page of what the lessons did.

The figures come from :mod:`lessons_core.report.data` (``--json`` prints them and stops there,
without importing the plotting library); the page is drawn by :mod:`lessons_core.report.charts`
and :mod:`lessons_core.report.page`, and written atomically next to its final name.
"""

from __future__ import annotations

import json
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

    text = page.render(figures, charts.draw(figures), home=home, agents=agents)
    write_page(output, text)
    totals = figures["totals"]
    click.echo(
        f"Wrote {output} ({totals['active']} active lessons, {totals['fired']} deliveries, "
        f"{len(text) / 1024:.0f} KB)."
    )
    if open_page:
        import webbrowser

        if not webbrowser.open(output.resolve().as_uri()):
            click.echo("No browser found to open it; open the file yourself.", err=True)
