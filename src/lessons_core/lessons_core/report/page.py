"""The report page: the figures and charts poured into an autoescaping jinja2 template.

Every value from the store goes through jinja2's HTML escaping (lesson text is written by
agents: untrusted); only the SVG the charts module drew is marked safe, and matplotlib's SVG
writer escapes the lesson names inside it. The page carries a content security policy that
allows no script and no fetch at all, so even a mistake here could not make it load anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from lessons_core.report.charts import COLOURS, STATUS_COLOURS, TIERS
from lessons_core.report.data import parse_time

TEMPLATE = "template.html.j2"
#: The charts the template may show (:func:`lessons_core.report.charts.draw` draws them).
CHARTS = ("timeline", "lessons", "heatmap", "agents")


def _when(text: str | None) -> str:
    stamp = parse_time(text)
    return stamp.strftime("%Y-%m-%d %H:%M UTC") if stamp else "–"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def render(
    data: Mapping[str, Any],
    charts: Mapping[str, str],
    *,
    home: str,
    agents: Sequence[str] = (),
    missing: str | None = None,
) -> str:
    """The whole page as one string (no external file, script or fetch); ``agents`` are the
    installed adapters' names, for the "to get going" steps; ``missing`` says why the charts
    are left out (the tables carry every figure without them)."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    env.globals["pct"] = _pct
    source = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    template = env.from_string(source)
    totals = data["totals"]
    judged = sum(totals[k] for k in ("prevented", "recurred", "quiet", "needless"))
    by_id = {row["id"]: row for row in data["lessons"]}
    return template.render(
        data=data,
        totals=totals,
        judged=judged,
        by_id=by_id,
        home=home,
        agents=sorted(agents) or ["<agent>"],
        # Only the charts module's SVG is marked safe; a chart the data did not allow is "".
        charts={name: Markup(charts.get(name, "")) for name in CHARTS},  # noqa: S704
        missing=missing,
        outcome_colours=COLOURS,
        tier_colours=TIERS,
        status_colours=STATUS_COLOURS,
    )
