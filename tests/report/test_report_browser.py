"""The report in a real headless Chromium: it renders, the charts draw, nothing errs or loads.

Skipped when no Chromium is installed, unless ``LESSONS_REQUIRE_BROWSER=1`` (CI sets it and
installs Debian's ``chromium``): then a missing browser fails the run instead of hiding it.
"""

from __future__ import annotations

import base64
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from browser import Browser, dump_dom, find_chromium
from click.testing import CliRunner

from lessons_core.cli.main import cli
from lessons_core.report.charts import COLOURS

pytestmark = pytest.mark.browser

WIDTH, VIEWPORT_HEIGHT = 1280, 900
#: A blank or broken page has a handful of colours; the report, with text and charts, thousands.
MIN_COLOURS = 500

PROBE = """JSON.stringify({
  charts: [...document.querySelectorAll('svg.chart')].map(s => {
    const r = s.getBoundingClientRect();
    return {label: s.getAttribute('aria-label'), width: r.width, height: r.height,
            shapes: s.querySelectorAll('path, rect, image, text').length};
  }),
  headings: [...document.querySelectorAll('h2')].map(h => h.textContent.trim()),
  scripts: document.scripts.length,
  width: document.documentElement.scrollWidth,
  sideways: [...document.querySelectorAll('.scroll, table')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => (e.closest('section') || {}).id + ':' + e.scrollWidth + '>' + e.clientWidth),
  height: document.documentElement.scrollHeight,
  resources: performance.getEntriesByType('resource').length,
  text: document.body.innerText,
})"""
HEADINGS = [
    "Summary",
    "Deliveries over time",
    "Lessons",
    "Noise",
    "Never fired",
    "Agents",
    "Projects",
]


@pytest.fixture(name="chromium")
def fixture_chromium() -> str:
    found = find_chromium()
    if found is None:
        if os.environ.get("LESSONS_REQUIRE_BROWSER") == "1":
            pytest.fail("LESSONS_REQUIRE_BROWSER=1, but no chromium on PATH (apt-get install it)")
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")
    return found


def write_report(path: Path) -> Path:
    result = CliRunner().invoke(cli, ["report", "--output", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path


CONSOLE_PROBLEMS = ("error", "assert", "warning")


def problems(events: list[dict[str, Any]]) -> list[str]:
    """Console errors and warnings, uncaught exceptions, and the browser's own error log."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params["type"] in CONSOLE_PROBLEMS:
            found.append(f"console.{params['type']}: {params['args']}")
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
            found.append(f"log {params['entry']['level']}: {params['entry']['text']}")
    return found


def render(chromium: str, page: Path, tmp_path: Path) -> dict[str, Any]:
    """Load ``page``, then return what the DOM shows, what went wrong and a full-page PNG."""
    import json

    browser = Browser(chromium, tmp_path / "profile", tmp_path / "chromium.log")
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(f"{domain}.enable", session=session)
        metrics = {"width": WIDTH, "deviceScaleFactor": 1, "mobile": False}
        browser.call("Emulation.setDeviceMetricsOverride", metrics | {"height": VIEWPORT_HEIGHT},
                     session=session)  # fmt: skip
        browser.call("Page.navigate", {"url": page.as_uri()}, session=session)
        browser.wait_for("Page.loadEventFired", session)
        value = browser.call(
            "Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session
        )["result"]["value"]
        probe = json.loads(value)
        height = min(int(probe["height"]), 12000)
        browser.call("Emulation.setDeviceMetricsOverride", metrics | {"height": height},
                     session=session)  # fmt: skip
        shot = browser.call("Page.captureScreenshot", {"format": "png"}, session=session)
        png = tmp_path / (page.stem + ".png")
        png.write_bytes(base64.b64decode(shot["data"]))
        events = list(browser.events)
    finally:
        browser.close()
    sent = [e for e in events if e.get("method") == "Network.requestWillBeSent"]
    requests = [e["params"]["request"]["url"] for e in sent]
    return {"probe": probe, "problems": problems(events), "requests": requests, "png": png,
            "height": height}  # fmt: skip


def check_png(path: Path, size: tuple[int, int]) -> set[tuple[int, int, int]]:
    """A valid PNG of ``size`` that is not blank; returns its colours."""
    from PIL import Image

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        image.load()
        assert image.format == "PNG"
        assert image.size == size
        colours = image.convert("RGB").getcolors(maxcolors=1 << 24)
    assert colours is not None
    assert len(colours) > MIN_COLOURS, len(colours)
    return {rgb for _, rgb in colours}


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return (int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16))


def test_report_renders_and_its_charts_draw(
    history_home: Path, tmp_path: Path, chromium: str
) -> None:
    page = write_report(tmp_path / "report.html")
    seen = render(chromium, page, tmp_path)
    probe = seen["probe"]
    assert seen["problems"] == []
    # The page itself and the heatmap's inline images (data: URLs), nothing else.
    inline = [url for url in seen["requests"] if url.startswith("data:image/png;")]
    assert [url for url in seen["requests"] if url not in inline] == [page.as_uri()]
    assert probe["resources"] == 0 and probe["scripts"] == 0
    assert probe["headings"] == HEADINGS
    assert probe["width"] <= WIDTH  # no sideways scrolling at 100 % zoom
    assert probe["sideways"] == []  # and no table cut off at the side
    charts = {c["label"]: c for c in probe["charts"]}
    assert len(charts) == 4, charts
    for chart in charts.values():
        assert chart["width"] > 600 and chart["height"] > 100, chart
        assert chart["shapes"] > 10, chart
    assert '<script>alert("x")</script>' in probe["text"]  # shown as text, never run
    colours = check_png(seen["png"], (WIDTH, seen["height"]))
    for outcome in ("prevented", "recurred", "quiet", "needless"):
        assert rgb(COLOURS[outcome]) in colours, outcome  # the bars really were painted


def test_empty_store_page_renders(home: Path, tmp_path: Path, chromium: str) -> None:
    page = write_report(tmp_path / "empty.html")
    seen = render(chromium, page, tmp_path)
    assert seen["problems"] == []
    assert seen["requests"] == [page.as_uri()]
    assert seen["probe"]["headings"] == HEADINGS
    assert seen["probe"]["charts"] == []
    assert "Nothing delivered yet" in seen["probe"]["text"]
    check_png(seen["png"], (WIDTH, seen["height"]))


def test_dump_dom_shows_the_structure(history_home: Path, tmp_path: Path, chromium: str) -> None:
    """What ``--dump-dom`` prints after load: every section, every chart, no script."""
    page = write_report(tmp_path / "report.html")
    dom = dump_dom(chromium, page.as_uri(), tmp_path / "profile")
    counts: dict[str, int] = {}
    sections: list[str] = []

    class Count(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            counts[tag] = counts.get(tag, 0) + 1
            if tag == "section":
                sections.append(dict(attrs).get("id") or "")

    Count().feed(dom)
    assert sections == ["summary", "time", "lessons", "noise", "never", "agents", "projects"]
    assert counts.get("svg") == 4
    assert counts.get("script", 0) == 0
    assert counts.get("table", 0) >= 6
    assert "&lt;script&gt;alert" in dom
