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
