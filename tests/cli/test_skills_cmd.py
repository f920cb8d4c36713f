"""``lessons skills``: one agent skill per tool with five or more lessons, edits left alone."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from lessons_core.cli.main import cli
from lessons_core.skills import tools_of


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def pnpm(n: int, kind: str = "hint") -> dict[str, Any]:
    return {
        "summary": f"pnpm pitfall number {n}",
        "mistake": f"ran pnpm the wrong way ({n})",
        "remediation": f"Use pnpm the right way PNPM-FIX-{n}",
        "type": kind,
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [rf"^pnpm\s+step{n}\b"]},
        "errorLines": [f"ERR_PNPM_{n} something failed"],
    }


def add(*lessons: dict[str, Any]) -> list[str]:
    result = run("add", "-", "--json", input="\n".join(json.dumps(x) for x in lessons))
    assert result.exit_code == 0, result.output
    return [json.loads(line)["id"] for line in result.stdout.splitlines()]


def skill_files() -> list[Path]:
    home = Path(os.environ["HOME"])
    return [
        home / ".claude" / "skills" / "lessons-pnpm" / "SKILL.md",
        home / ".agents" / "skills" / "lessons-pnpm" / "SKILL.md",
    ]


def test_four_lessons_make_no_skill():
    add(*(pnpm(i) for i in range(4)))
    result = run("skills")
    assert result.exit_code == 0
    assert "no tool has 5 or more" in result.output
    assert not any(p.exists() for p in skill_files())


def test_five_lessons_make_a_skill_for_every_agent():
    ids = add(*(pnpm(i) for i in range(4)), pnpm(4, "guard"))
    result = run("skills")
    assert result.exit_code == 0, result.output
    claude, shared = skill_files()
    text = claude.read_text()
    assert text == shared.read_text()
    head = text.split("---")[1]
    assert "\nname: lessons-pnpm\n" in head and "\ndescription: " in head
    for lesson_id in ids:
        assert lesson_id in text
    assert "PNPM-FIX-4" in text and "(blocked)" in text and "ERR_PNPM_3" in text
    assert "written" in result.output
    assert "unchanged" in run("skills").output


def test_build_regenerates_when_the_set_changes_and_spares_edits():
    add(*(pnpm(i) for i in range(5)))
    run("skills")
    claude, shared = skill_files()
    shared.write_text(shared.read_text() + "\nmy own note\n")
    (new,) = add(pnpm(5))  # `lessons add` rebuilds the manifest, and with it the skills
    assert new in claude.read_text()
    assert new not in shared.read_text() and "my own note" in shared.read_text()
    out = run("skills").output
    assert "edited" in out and "changed by hand" in out
    doctor = run("doctor", "--json")
    findings = {f["check"]: f for f in json.loads(doctor.stdout)["findings"]}
    assert findings["skills"]["status"] == "warn"
    assert str(shared) in findings["skills"]["edited"]


def test_a_skill_below_the_threshold_is_removed_unless_edited():
    ids = add(*(pnpm(i) for i in range(5)))
    run("skills")
    claude, shared = skill_files()
    shared.write_text("mine now\n")
    assert run("disable", ids[0]).exit_code == 0
    run("skills")
    assert not claude.exists()
    assert shared.read_text() == "mine now\n"


def test_without_a_first_run_the_build_writes_no_skill():
    add(*(pnpm(i) for i in range(6)))
    assert not any(p.exists() for p in skill_files())


def test_tools_of_reads_tags_then_patterns():
    from lessons_core.models import Lesson, Triggers

    tagged = Lesson(
        id="a", slug="a", summary="s", mistake="m", remediation="r", tags=("tool:docker",)
    )
    assert tools_of(tagged) == ["docker"]
    patterned = Lesson(
        id="b",
        slug="b",
        summary="s",
        mistake="m",
        remediation="r",
        triggers=Triggers(command_patterns=(r"\balembic\s+upgrade", "^uv run")),
    )
    assert tools_of(patterned) == ["alembic", "uv"]
