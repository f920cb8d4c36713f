"""`lessons report`: the figures behind the page, the page itself, its escaping, its errors."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lessons_core import services
from lessons_core.cli.main import cli
from lessons_core.report import data


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def figures() -> dict:
    result = invoke("report", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_json_carries_the_outcome_loops_verdicts(history_home: Path) -> None:
    """Totals, per-lesson counts and the noise lists agree with the outcome loop's own."""
    found = figures()
    from lessons_core import outcomes

    with services.open_store() as store:
        summary = outcomes.summary(store)
    assert found["totals"]["fired"] == summary["totals"]["fired"] == 57
    for key in ("prevented", "recurred", "quiet", "needless", "unknown"):
        assert found["totals"][key] == summary["totals"][key]
    rows = {row["id"]: row for row in found["lessons"]}
    assert rows["rp-venv-pytest"]["prevented"] == summary["lessons"]["rp-venv-pytest"]["prevented"]
    assert found["neverFired"] == ["rp-never"]
    assert found["noise"]["noisy"] == ["rp-noisy-ls"]
    assert found["noise"]["resting"] == ["rp-noisy-ls"]  # a noisy hint rides only with failures
    assert found["noise"]["compiledSofter"] == {"rp-git-stash": "hint"}
    assert rows["rp-git-stash"]["compiledAs"] == "hint" and rows["rp-git-stash"]["type"] == "guard"
    assert found["lessons"][0]["id"] == "rp-venv-pytest"  # most delivered first


def test_timeline_counts_every_delivery_once(history_home: Path) -> None:
    found = figures()
    timeline = found["timeline"]
    assert timeline["unit"] == "week"  # six weeks of history
    starts = [datetime.fromisoformat(p["start"]).date() for p in timeline["periods"]]
    assert all((b - a).days == 7 for a, b in itertools.pairwise(starts))
    assert all(s.weekday() == 0 for s in starts)
    assert sum(p["fired"] for p in timeline["periods"]) == found["totals"]["fired"]
    per_lesson = timeline["perLesson"]
    assert sum(per_lesson["rp-venv-pytest"]) == 21
    assert all(len(v) == len(starts) for v in per_lesson.values())


def test_agents_and_projects(history_home: Path) -> None:
    found = figures()
    agents = found["agents"]
    assert sorted(agents) == ["claude", "codex", "gemini"]
    assert sum(a["deliveries"]["fired"] for a in agents.values()) == 57
    assert (agents["claude"]["tier1"], agents["claude"]["tier2"]) == (1, 2)
    assert agents["codex"]["candidates"] == {"pending": 2}
    assert agents["gemini"]["tier1"] == 0  # delivered to, never scanned
    projects = {p["project"]: p for p in found["projects"]}
    assert projects["/srv/dev/acme"]["candidates"] == {"promoted": 1, "pending": 1}
    assert projects["/srv/dev/widgets"]["detections"] == 2


@pytest.mark.parametrize(
    ("days", "unit", "count"),
    [([0, 3, 9], "day", 10), ([0, 30], "week", 5), ([0, 200, 400], "month", 14)],
)
def test_timeline_unit_follows_the_span(days: list[int], unit: str, count: int) -> None:
    """Days for a short span, weeks for months of it, months for years; gaps are zeros."""
    base = datetime(2026, 1, 7, 12, tzinfo=UTC)
    from datetime import timedelta

    found = data.timeline(("L", "quiet", base + timedelta(days=d)) for d in days)
    assert found["unit"] == unit
    assert len(found["periods"]) == count
    assert sum(found["perLesson"]["L"]) == len(days)
    assert sum(1 for p in found["periods"] if p["fired"]) == len(days)


def _parse(page: str) -> tuple[set[str], list[str]]:
    """The tag names in ``page``, and any ``on…`` attributes."""
    from html.parser import HTMLParser

    tags: set[str] = set()
    handlers: list[str] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            tags.add(tag)
            handlers.extend(name for name, _ in attrs if name.startswith("on"))

    Collect().feed(page)
    return tags, handlers


def test_page_is_self_contained_and_escaped(history_home: Path, tmp_path: Path) -> None:
    """No script, no fetch, every chart inline, the agent-written text escaped."""
    target = tmp_path / "out" / "report.html"
    target.parent.mkdir()
    result = invoke("report", "--output", str(target))
    assert result.exit_code == 0, result.output
    assert f"Wrote {target}" in result.output
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg") == 4  # over time, per lesson, heatmap, per agent
    assert "<script" not in page.lower()
    tags, handlers = _parse(page)
    assert not handlers  # no element carries an event handler
    assert not tags & {"script", "img", "link", "iframe", "object", "embed", "foreignobject"}
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    assert re.search(r"<(link|img|iframe|object|embed)\b", page) is None
    assert set(re.findall(r"url\((.)", page)) <= {"#"}  # clip paths only
    links = re.findall(r'(?:src|href)="([^"]{0,15})', page)
    assert links and all(x.startswith(("#", "data:image/png;")) for x in links), links
    assert "default-src 'none'" in page  # and the browser is told so, too


def test_empty_store_gives_a_useful_page(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "empty.html"
    assert invoke("report", "-o", str(target)).exit_code == 0
    page = target.read_text(encoding="utf-8")
    assert "Nothing delivered yet" in page
    assert "lessons install claude" in page
    assert "<svg" not in page
    found = figures()
    assert found["totals"]["fired"] == 0 and found["lessons"] == []


def test_default_output_is_in_the_current_directory(
    history_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("report")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "lessons-report.html").is_file()
    assert "Wrote lessons-report.html" in result.output


@pytest.mark.parametrize("kind", ["directory", "missing parent"])
def test_bad_output_is_a_user_error(home: Path, tmp_path: Path, kind: str) -> None:
    target = tmp_path if kind == "directory" else tmp_path / "nowhere" / "r.html"
    result = CliRunner().invoke(cli, ["report", "-o", str(target)])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "Traceback" not in result.output


_IMPORTS = """
import sys
from lessons_core.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\nHEAVY=" + ",".join(m for m in ("matplotlib", "jinja2", "numpy") if m in sys.modules))
"""


def _heavy(home: Path, *args: str) -> str:
    import os

    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = [x for x in proc.stdout.splitlines() if x.startswith("HEAVY=")]
    assert line, (proc.stdout, proc.stderr)
    return line[-1].removeprefix("HEAVY=")


def test_only_the_page_pays_for_the_plotting_library(home: Path) -> None:
    """`lessons --help` and `lessons report --json` import neither matplotlib nor jinja2."""
    assert _heavy(home, "--help") == ""
    assert _heavy(home, "report", "--json") == ""


def test_open_hands_the_file_to_the_browser(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--open` opens the written file by its file:// address (and says so when it cannot)."""
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or False)
    target = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", "-o", str(target), "--open"])
    assert result.exit_code == 0, result.output
    assert opened == [target.resolve().as_uri()]
    assert "No browser found" in result.output


ROOT = Path(__file__).resolve().parents[2]


def test_plotting_is_an_extra_not_a_core_dependency() -> None:
    """The hook's environment stays small: matplotlib (numpy, Pillow) comes with
    `lessons[report]` (part of `[all]`), never with the core; the test runs install it."""
    import tomllib

    core = tomllib.loads((ROOT / "src/lessons_core/pyproject.toml").read_text())["project"]
    heavy = ("matplotlib", "numpy", "pillow")
    assert not [d for d in core["dependencies"] if d.lower().startswith(heavy)]
    assert [d for d in core["optional-dependencies"]["report"] if d.startswith("matplotlib")]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert extras["report"] == ["lessons-core[report]==0.1.0"]
    assert "lessons-core[report]==0.1.0" in extras["all"]
    assert "src/lessons_core[report]" in (ROOT / "tox.ini").read_text()


def test_without_matplotlib_the_page_has_its_tables_and_says_how_to_add_charts(
    history_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were not installed
    target = tmp_path / "plain.html"
    result = invoke("report", "-o", str(target))
    assert result.exit_code == 0, result.output
    assert "Note: no charts on the page" in result.output
    assert "pip install 'lessons[report]'" in result.output
    page = target.read_text(encoding="utf-8")
    assert "<svg" not in page
    assert "This page has no charts" in page and "pip install &#39;lessons[report]&#39;" in page
    assert "Run the tests with the project&#39;s virtualenv" in page  # the tables are all there
    assert "No deliveries recorded yet" not in page  # the period table, without its chart


def test_an_empty_report_names_the_next_command(home: Path, tmp_path: Path) -> None:
    result = invoke("report", "-o", str(tmp_path / "empty.html"))
    assert result.exit_code == 0, result.output
    assert "No lessons yet. Next: `lessons add --starter`" in result.output
    from report_support import add_lessons

    add_lessons()
    result = invoke("report", "-o", str(tmp_path / "empty.html"))
    assert "No sessions yet" in result.output and "`lessons install claude`" in result.output


def test_no_compliance_rate_before_any_session(home: Path, tmp_path: Path) -> None:
    """Transcripts scanned before the hooks reached a session give detections, never a rate."""
    from report_support import candidates

    candidates()
    found = figures()
    assert found["agents"]["claude"]["tier2"] == 2
    assert found["agents"]["claude"]["sessions"] == 0
    assert found["agents"]["claude"]["complianceRate"] is None
    target = tmp_path / "early.html"
    assert invoke("report", "-o", str(target)).exit_code == 0
    page = target.read_text(encoding="utf-8")
    assert "no sessions yet" in page
    assert not re.search(r'<td class="n">\d+%</td>', page)


def test_a_compliance_rate_once_sessions_ran(history_home: Path, tmp_path: Path) -> None:
    found = figures()
    assert found["agents"]["claude"]["sessions"] > 0
    assert found["agents"]["claude"]["complianceRate"] == round(1 / 3, 3)
