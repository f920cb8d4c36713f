"""The core names no agent: every agent fact lives in its adapter, reached through AgentSpec.

The core may explain in prose (docstrings, comments) how the agents it was measured against
behave; its code, its messages and its data files may not name one. A fourth agent then plugs
in without a line of the core changing, and these tests check the seams it would use with an
adapter of our own making that no core file knows.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

from lessons_core.hot import errnorm
from lessons_core.plugins.specs import AgentSpec
from lessons_core.scan import discovery

REPO_ROOT = Path(__file__).resolve().parents[2]
CORE = REPO_ROOT / "src" / "lessons_core" / "lessons_core"
AGENT_NAMES = re.compile(r"claude|codex|gemini", re.IGNORECASE)
#: Non-Python files of the core package (templates, schemas, data) are checked whole.
DATA_SUFFIXES = (".j2", ".json", ".jsonl", ".html", ".txt", ".toml")


#: Names and strings (f-strings are split into parts from Python 3.12 on).
_CODE_TOKENS = {
    tokenize.NAME,
    tokenize.STRING,
    getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING),
}


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def agent_names_in_code(path: Path) -> list[str]:
    """``file:line: token`` for every code token (name or string, not a docstring or a
    comment) of a Python file that names an agent."""
    text = path.read_text(encoding="utf-8")
    docs = _docstring_lines(ast.parse(text))
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in _CODE_TOKENS:
            continue
        if tok.type == tokenize.STRING and tok.start[0] in docs:
            continue
        if AGENT_NAMES.search(tok.string):
            found.append(f"{path.relative_to(CORE)}:{tok.start[0]}: {tok.string[:80]}")
    return found


def test_the_core_code_names_no_agent():
    found = [hit for path in sorted(CORE.rglob("*.py")) for hit in agent_names_in_code(path)]
    assert found == [], "agent facts belong in the adapter:\n" + "\n".join(found)


def test_the_core_data_names_no_agent():
    found = [
        str(path.relative_to(CORE))
        for path in sorted(CORE.rglob("*"))
        if path.is_file()
        and (path.suffix in DATA_SUFFIXES)
        and AGENT_NAMES.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == []


def test_the_check_finds_an_agent_name_in_code(tmp_path, monkeypatch):
    """The check itself: a name in code is found, the same name in prose is not."""
    monkeypatch.setattr(f"{__name__}.CORE", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Codex starts every command afresh (prose: allowed)."""\n'
        "# Gemini too (a comment: allowed)\n"
        'AGENT = "claude"\n',
        encoding="utf-8",
    )
    assert agent_names_in_code(sample) == ['sample.py:3: "claude"']


# -- the seams, with an agent the core has never heard of -----------------------------------


def _example_spec(**kw) -> AgentSpec:
    def recognize(path: Path, head: bytes | None) -> int:
        if head is None:
            return 5 if ".example" in path.parts else 0
        return 5 if b'"exampleSession"' in head else 0

    return AgentSpec(
        name="example",
        hook_command="lessons-example-hook",
        hook_module="lessons_example.hook",
        label="Example CLI",
        recognize=recognize,
        marks="exampleSession",
        transcript_roots=lambda environ: [Path(environ["EXAMPLE_HOME"])],
        reader=lambda *a, **k: iter(()),
        is_transcript=lambda path: path.endswith("-session.jsonl"),
        **kw,
    )


def test_a_new_agent_recognises_its_own_files(tmp_path):
    mine = tmp_path / "a.jsonl"
    mine.write_text(json.dumps({"exampleSession": "s1"}) + "\n", encoding="utf-8")
    other = tmp_path / "b.jsonl"
    other.write_text(json.dumps({"name": "x"}) + "\n", encoding="utf-8")
    agents = {"example": _example_spec()}
    assert discovery.sniff(mine, agents) == "example"
    assert discovery.sniff(other, agents) is None
    why = discovery.why_not(other, agents)
    assert "none of the marks of a Example CLI transcript (exampleSession)" in why


def test_a_new_agent_says_which_files_under_its_root_are_transcripts(tmp_path):
    (tmp_path / "x-session.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / "notes.jsonl").write_text("{}\n", encoding="utf-8")
    found = discovery.discover({"example": _example_spec()}, {"EXAMPLE_HOME": str(tmp_path)})
    assert [Path(p).name for _, p in found] == ["x-session.jsonl"]


def test_the_most_certain_adapter_wins(tmp_path):
    path = tmp_path / ".example" / "s.jsonl"
    path.parent.mkdir()
    path.write_text("{}\n", encoding="utf-8")
    unsure = AgentSpec(name="unsure", hook_command="", hook_module="", recognize=lambda p, head: 1)
    assert discovery.sniff(path, {"unsure": unsure, "example": _example_spec()}) == "example"


def test_any_adapter_hook_command_is_our_own():
    """Recall ignores failures of our own commands, whatever agent's hook it was."""
    own = errnorm.rx("own_command")
    assert own.search("echo '{}' | lessons-example-hook")
    assert own.search("lessons scan")
    assert not own.search("lessonsfoo-hook")
