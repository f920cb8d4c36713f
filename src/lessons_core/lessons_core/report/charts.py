"""The report's plots: matplotlib figures written as inline SVG, nothing fetched, no script.

matplotlib is imported here and nowhere else, and only when a page is written (about half a
second to a second of import on a small machine: a cold command can afford it, the other
commands never pay it). It is an extra (``lessons[report]``), not a dependency of the core: it
brings numpy and Pillow, which the hook's environment does not need. Without it the page is
written with its tables and no charts, and says how to add them (:data:`MISSING`). No pyplot
and no GUI backend: each chart is a bare
:class:`matplotlib.figure.Figure` saved through the SVG backend, so it works headless. Text stays
text (``svg.fonttype: none``), so the page's own fonts draw it and it can be selected; lesson
names are plain text to matplotlib (``text.parse_math`` off: a ``$`` in a slug is no formula),
and the SVG writer escapes them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: One colour per outcome (Okabe–Ito, readable with the common colour-vision deficiencies).
COLOURS = {
    "prevented": "#009E73",
    "recurred": "#D55E00",
    "quiet": "#A3ACB9",
    "needless": "#E69F00",
    "unknown": "#DADDE2",
    "waiting": "#56B4E9",
}
TIERS = {"tier1": "#0072B2", "tier2": "#CC79A7", "plugins": "#F0E442"}
STATUS_COLOURS = {
    "pending": "#56B4E9",
    "promoted": "#009E73",
    "rejected": "#A3ACB9",
    "duplicate": "#DADDE2",
}
LABELS = {"tier1": "Tier 1", "tier2": "Tier 2"}
INK = "#1f2933"
MUTED = "#5f6b7a"
GRID = "#e4e7eb"
FONT = ["system-ui", "Segoe UI", "Helvetica", "Arial", "DejaVu Sans", "sans-serif"]
#: Most lessons drawn in the per-lesson charts (the table lists all of them).
TOP_LESSONS = 15
#: Longest lesson label drawn in a chart.
LABEL_CHARS = 38
#: Figure widths in inches: a chart across the page's full width, and one beside a table. The
#: SVG is scaled to its column, so these keep the 11 pt text at about 12-13 px on the page.
WIDE = 13.5
HALF = 7.0

_STYLE = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.sans-serif": FONT,
    "font.size": 11,
    "text.color": INK,
    "axes.labelcolor": MUTED,
    "axes.edgecolor": GRID,
    "axes.linewidth": 1.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": GRID,
    "grid.linewidth": 0.8,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "xtick.major.size": 0,
    "ytick.major.size": 0,
    "legend.frameon": False,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
}


@contextmanager
def _style(salt: str) -> Iterator[None]:
    """The report's look, and ids unique to this chart (several SVGs share one HTML page)."""
    import matplotlib

    settings: Any = {**_STYLE, "svg.hashsalt": salt}  # (its stubs list every key as a literal)
    with matplotlib.rc_context(settings):
        yield


#: What the page and the command say when matplotlib is not installed.
MISSING = (
    "the charts need matplotlib, which is not installed; add it with "
    "pip install 'lessons[report]' (from a checkout: pip install './src/lessons_core[report]')"
)


def wanted(data: Mapping[str, Any]) -> bool:
    """Whether the data has anything to draw (an empty store draws no chart)."""
    return bool(data["timeline"]["periods"] or data["agents"])


def available() -> bool:
    """Whether matplotlib can be imported (the ``report`` extra is installed)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def to_svg(fig: Figure, label: str) -> str:
    """The figure as an ``<svg>`` element for inline use: no XML prolog, no metadata, and
    scaled by the page (its ``viewBox`` kept, its fixed size dropped)."""
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None, "Format": None})
    text = out.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    head_end = text.index(">")
    head = re.sub(r'\s(width|height)="[^"]*"', "", text[:head_end])
    safe_label = label.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    head += f' role="img" aria-label="{safe_label}" class="chart"'
    return head + text[head_end:]


def _short(text: str, limit: int = LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _period_label(start: str, unit: str) -> str:
    day = date.fromisoformat(start)
    if unit == "month":
        return day.strftime("%b %Y")
    return f"{day.strftime('%b')} {day.day}"


def _stack(
    ax: Axes,
    positions: Sequence[float],
    series: Mapping[str, Sequence[float]],
    colours: Mapping[str, str],
    *,
    horizontal: bool = False,
    width: float = 0.7,
) -> None:
    base = [0.0] * len(positions)
    for name, values in series.items():
        if not any(values):
            continue
        if horizontal:
            ax.barh(positions, values, height=width, left=base, color=colours[name],
                    label=LABELS.get(name, name))  # fmt: skip
        else:
            ax.bar(positions, values, width=width, bottom=base, color=colours[name],
                   label=LABELS.get(name, name))  # fmt: skip
        base = [b + v for b, v in zip(base, values, strict=True)]


def _integer_axis(ax: Axes, axis: str = "y") -> None:
    from matplotlib.ticker import MaxNLocator

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(MaxNLocator(integer=True, nbins=5))


def _legend(ax: Axes, columns: int) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=columns, fontsize=10,
                  handlelength=1.0, borderaxespad=0.2)  # fmt: skip


def timeline_chart(timeline: Mapping[str, Any]) -> str:
    """Deliveries per day, week or month, stacked by outcome."""
    periods = timeline["periods"]
    unit = timeline["unit"]
    with _style("timeline"):
        fig = _figure(HALF, 3.4)
        ax = fig.subplots()
        xs = list(range(len(periods)))
        _stack(ax, xs, {k: [p[k] for p in periods] for k in COLOURS}, COLOURS,
               width=0.8 if len(periods) > 1 else 0.4)  # fmt: skip
        step = max(1, len(periods) // 8)
        ax.set_xticks(xs[::step], [_period_label(p["start"], unit) for p in periods[::step]])
        ax.set_xlim(-0.6, max(len(periods), 3) - 0.4)
        ax.grid(axis="x", visible=False)
        _integer_axis(ax)
        ax.set_ylabel(f"deliveries per {unit}")
        _legend(ax, len(COLOURS))
        return to_svg(fig, f"Deliveries per {unit}, by outcome")


def lessons_chart(lessons: Sequence[Mapping[str, Any]]) -> str:
    """The most delivered lessons, one bar each, stacked by outcome."""
    shown = [row for row in lessons if row["fired"]][:TOP_LESSONS][::-1]
    with _style("lessons"):
        fig = _figure(WIDE, 0.9 + 0.34 * len(shown))
        ax = fig.subplots()
        ys = list(range(len(shown)))
        _stack(ax, ys, {k: [r[k] for r in shown] for k in COLOURS}, COLOURS, horizontal=True)
        ax.set_yticks(ys, [_short(r["slug"]) for r in shown])
        ax.set_ylim(-0.6, len(shown) - 0.4)
        ax.grid(axis="y", visible=False)
        _integer_axis(ax, "x")
        ax.set_xlabel("deliveries")
        _legend(ax, len(COLOURS))
        return to_svg(fig, "Deliveries of the most delivered lessons, by outcome")


def heatmap_chart(timeline: Mapping[str, Any], lessons: Sequence[Mapping[str, Any]]) -> str:
    """Fires per lesson and period: when each of the most delivered lessons was at work."""
    from matplotlib.colors import LinearSegmentedColormap

    periods = timeline["periods"]
    per = timeline["perLesson"]
    shown = [row for row in lessons if row["fired"] and row["id"] in per][:TOP_LESSONS]
    grid = [per[row["id"]] for row in shown]
    with _style("heatmap"):
        fig = _figure(WIDE, 0.8 + 0.3 * len(shown))
        ax = fig.subplots()
        cmap = LinearSegmentedColormap.from_list(
            "fires", ["#d6e9f5", "#7fb8da", "#0b4f8a"]
        ).with_extremes(under="#f4f6f8")  # no fire: the background
        image = ax.imshow(grid, aspect="auto", cmap=cmap, vmin=0.5, interpolation="nearest")
        step = max(1, len(periods) // 16)
        ax.set_xticks(
            range(0, len(periods), step),
            [_period_label(p["start"], timeline["unit"]) for p in periods[::step]],
        )
        ax.set_yticks(range(len(shown)), [_short(r["slug"]) for r in shown])
        ax.grid(visible=False)
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01, extend="neither")
        bar.outline.set_visible(False)
        bar.ax.tick_params(labelsize=9)
        bar.set_label("fires")
        return to_svg(fig, f"Fires per lesson and {timeline['unit']}")


def agents_chart(agents: Mapping[str, Mapping[str, Any]]) -> str:
    """Per agent: deliveries by outcome, detections by tier, candidates by status."""
    names = sorted(agents)
    ys = list(range(len(names)))[::-1]
    with _style("agents"):
        fig = _figure(WIDE, 1.4 + 0.42 * len(names))
        panels = fig.subplots(1, 3, sharey=True)
        delivered = {k: [agents[n].get("deliveries", {}).get(k, 0) for n in names] for k in COLOURS}
        tiers = {k: [agents[n].get(k, 0) for n in names] for k in TIERS}
        statuses = {
            k: [agents[n].get("candidates", {}).get(k, 0) for n in names] for k in STATUS_COLOURS
        }
        for ax, series, colours, title in (
            (panels[0], delivered, COLOURS, "deliveries"),
            (panels[1], tiers, TIERS, "detections"),
            (panels[2], statuses, STATUS_COLOURS, "candidates"),
        ):
            _stack(ax, ys, series, colours, horizontal=True, width=0.6)
            ax.set_xlabel(title)
            ax.grid(axis="y", visible=False)
            _integer_axis(ax, "x")
            _legend(ax, 3)
        panels[0].set_yticks(ys, names)
        panels[0].set_ylim(-0.6, len(names) - 0.4)
        return to_svg(fig, "Per agent: deliveries, detections and candidates")


def draw(data: Mapping[str, Any]) -> dict[str, str]:
    """Every chart the data allows, by name (an empty store draws none)."""
    charts: dict[str, str] = {}
    timeline = data["timeline"]
    if timeline["periods"]:
        charts["timeline"] = timeline_chart(timeline)
        charts["lessons"] = lessons_chart(data["lessons"])
        if len(timeline["periods"]) > 1:
            charts["heatmap"] = heatmap_chart(timeline, data["lessons"])
    if data["agents"]:
        charts["agents"] = agents_chart(data["agents"])
    return charts
