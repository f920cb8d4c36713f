"""``lessons explain``: what the hook would do for one tool call, and why.

It runs the hook's own matching and selection code (``lessons_core.hot``) on the current
manifest, in-process and without touching any session's dedup state, then reports every lesson
considered: whether it fires or at which gate it stopped, what would be denied, nudged or added
as context, and how the byte budget was spent (full texts, summary fallbacks, drops).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from lessons_core.errors import LessonsError

GATE_TEXT = {
    "tool": "not gated on this tool",
    "no-trigger": "no tool or pattern trigger",
    "command": "command patterns did not match",
    "path": "path patterns did not match",
    "content": "content patterns did not match (or the call adds no text)",
    "model": "model patterns did not match",
    "scope": "scoped to another project",
}


def _canonical_tool(agent: str | None, tool: str) -> str:
    if not agent:
        return tool
    from lessons_core import services

    agents = services.load_plugins().agents()
    spec = agents.get(agent)
    if spec is None:
        known = ", ".join(sorted(agents)) or "none installed"
        raise LessonsError(f"unknown agent {agent!r} (known: {known})")
    return str(spec.tool_names.get(tool, tool))


def explain_call(manifest: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """The whole explanation as a JSON-ready dict (the text output is rendered from it)."""
    from lessons_core.hot import manifest as manifest_mod
    from lessons_core.hot import match, runner, select

    lessons = manifest.get("lessons", {})
    considered = []
    fired = []
    for lesson_id, gate in match.trace(manifest, event):
        lesson = lessons[lesson_id]
        considered.append(
            {
                "id": lesson_id,
                "slug": lesson.get("slug", ""),
                "type": lesson.get("type", "hint"),
                "priority": lesson.get("priority"),
                "confidence": lesson.get("confidence"),
                "matched": gate is None,
                "failedGate": gate,
            }
        )
        if gate is None:
            fired.append(lesson_id)
    ranked = select.rank(manifest, fired, event.get("cwd"))
    kinds: dict[str, list[str]] = {"guard": [], "nudge": [], "hint": []}
    for lesson_id in ranked:
        kind = lessons[lesson_id].get("type", "hint")
        kinds.get(kind, kinds["hint"]).append(lesson_id)
    if kinds["guard"]:
        effect = "deny"
    elif kinds["nudge"]:
        effect = "deny-once"
    elif kinds["hint"]:
        effect = "context"
    else:
        effect = "nothing"
    decision = runner.evaluate(event, manifest)
    budget = manifest_mod.config_value(manifest, "injectionBudgetBytes", 4096)
    text = decision.get("deny") or decision.get("context") or ""
    shortened = [
        i for i in decision["delivered"] if lessons[i].get("short") and lessons[i]["short"] in text
    ]
    return {
        "tool": event.get("tool"),
        "command": event.get("command"),
        "paths": event.get("paths"),
        "considered": considered,
        "ranked": ranked,
        "effect": effect,
        "waiting": [
            i for k in ("nudge", "hint") for i in kinds[k] if i not in decision["delivered"]
        ]
        if effect != "context"
        else [],
        "delivered": decision["delivered"],
        "shortened": shortened,
        "dropped": decision["dropped"],
        "budget": {
            "bytes": budget,
            "used": len(text.encode("utf-8")),
            "maxLessons": manifest_mod.config_value(manifest, "maxLessonsPerInjection", 3),
        },
        "deny": decision.get("deny"),
        "context": decision.get("context"),
    }


@click.command()
@click.option(
    "--agent", help="Agent whose native tool name --tool is (an installed adapter's name)."
)
@click.option("--tool", required=True, help="Tool name (canonical, or the agent's native one).")
@click.option("--command", "command", help="Shell command of the call.")
@click.option("--path", "path", help="File path the call touches.")
@click.option("--content", help="Text the call introduces (an edit's new text).")
@click.option("--model", help="Model name, for lessons gated on the model.")
@click.option("--cwd", type=click.Path(file_okay=False), help="Working directory of the call.")
@click.option("--all", "show_all", is_flag=True, help="Also list the lessons that do not fire.")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain(
    agent: str | None,
    tool: str,
    command: str | None,
    path: str | None,
    content: str | None,
    model: str | None,
    cwd: str | None,
    show_all: bool,
    as_json: bool,
) -> None:
    """Show which lessons would fire for a tool call, and why."""
    if not command and not path:
        raise click.UsageError("give --command or --path")
    from lessons_core import services
    from lessons_core.hot import manifest as manifest_mod

    home = services.home_dir(create=False)
    manifest_file = home / "lesson-manifest.json"
    if not manifest_file.is_file():
        raise LessonsError(f"no manifest at {manifest_file}; run `lessons build` first")
    manifest_mod.clear_cache()
    manifest = manifest_mod.load(str(manifest_file))
    if manifest is manifest_mod.EMPTY:
        raise LessonsError(f"{manifest_file} is not a readable manifest; run `lessons build`")
    work_dir = str(Path(cwd).resolve() if cwd else Path.cwd())
    paths = [str(Path(work_dir, path).resolve())] if path else []
    event = {
        "agent": agent,
        "event": "pre_tool",
        "tool": _canonical_tool(agent, tool),
        "command": command,
        "paths": paths,
        "content": content,
        "model": model,
        "cwd": work_dir,
        "session_id": None,
    }
    report = explain_call(manifest, event)
    report["unknownTool"] = _unknown_tool(str(event["tool"]))
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    _print_human(report, tool, show_all)
    if report["unknownTool"]:
        click.secho(f"Note: {report['unknownTool']}", fg="yellow")


def _unknown_tool(tool: str) -> str | None:
    """What to say about a tool name no installed adapter reports (``None``: a known one).

    Without it, ``explain --tool bash`` shows nothing firing and the user blames the lesson.
    """
    from lessons_core import tool_names

    vocabulary = tool_names.installed()
    if vocabulary.knows(tool):
        return None
    meant = vocabulary.suggestion(tool)
    hint = f"; did you mean {meant}?" if meant else "."
    return (
        f"no installed agent reports a tool named {tool!r}{hint} Lessons gated on a tool "
        "name only fire for the names agents report."
    )


def _print_human(report: dict[str, Any], native_tool: str, show_all: bool) -> None:
    tool = report["tool"]
    shown_tool = tool if tool == native_tool else f"{native_tool} → {tool}"
    subject = report["command"] if report["command"] is not None else ", ".join(report["paths"])
    click.echo(f"{shown_tool}: {subject}")
    stopped: dict[str, int] = {}
    for row in report["considered"]:
        gate = row["failedGate"]
        if gate is not None:
            stopped[gate] = stopped.get(gate, 0) + 1
        if gate is not None and not show_all:
            continue
        mark = "fires" if row["matched"] else f"no: {GATE_TEXT.get(gate, '?')}"
        click.echo(
            f"  {row['slug'] or row['id']} [{row['type']}, priority {row['priority']}, "
            f"confidence {row['confidence']}]: {mark}"
        )
    if stopped:
        counts = ", ".join(f"{gate} {count}" for gate, count in sorted(stopped.items()))
        more = "" if show_all else "; --all lists them"
        click.echo(f"  not firing, by the gate they stopped at: {counts}{more}")
    effect = {
        "deny": "the call is denied (guard)",
        "deny-once": "the call is denied once (nudge); a retry goes through",
        "context": "context is added next to the tool result",
        "nothing": "nothing is delivered",
    }[report["effect"]]
    click.echo(f"Outcome: {effect}")
    budget = report["budget"]
    slugs = {row["id"]: row["slug"] or row["id"] for row in report["considered"]}

    def names(ids: list[str]) -> str:
        return ", ".join(slugs.get(i, i) for i in ids)

    if report["delivered"]:
        click.echo(
            f"  delivered: {names(report['delivered'])} "
            f"({budget['used']} of {budget['bytes']} bytes, at most {budget['maxLessons']})"
        )
    if report["shortened"]:
        click.echo(f"  shortened to the summary: {names(report['shortened'])}")
    for drop in report["dropped"]:
        click.echo(f"  dropped: {names([drop['id']])} ({drop['why']})")
    if report["waiting"]:
        click.echo(f"  not delivered with this outcome: {names(report['waiting'])}")
    text = report["deny"] or report["context"]
    if text:
        click.echo("")
        click.echo(text)
