"""The scanner's patterns, kept as ``_sre`` programs between scans (``kept_programs``).

What is handed to the engine must build the very pattern ``re.compile`` builds (pattern objects
compare equal only with the same source, flags and code), and anything doubtful must fall back
to ``re.compile``.
"""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.patterns import kept_programs, programs
from transcript_support import claude_sessions

_PATTERNS = [
    (r"\bnpm\b[^|;&\n]*?\binstall\b", 0),
    (r"(?P<kind>error|fail)(?:ed)?:\s*(?P<what>.+)$", re.IGNORECASE | re.MULTILINE),
    (
        r"""^(?:  [$%@]  # a comment
           | x+ )$""",
        re.VERBOSE,
    ),
    (r"(?i)caseless (?:inline|flags)", 0),
    (r"\d{2,4}-\w+|[^\x00-\x7f]", re.ASCII),
]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    kept_programs.forget()
    yield
    kept_programs.forget()


def test_kept_programs_build_what_re_builds(tmp_path: Path) -> None:
    for pattern, flags in _PATTERNS:
        kept_programs.compile(pattern, flags)
    assert kept_programs.save(tmp_path)
    assert not kept_programs.save(tmp_path)  # nothing new: nothing written
    kept_programs.forget()
    kept_programs.load(tmp_path)
    for pattern, flags in _PATTERNS:
        assert (pattern, flags) in kept_programs._programs
        kept = kept_programs.compile(pattern, flags)
        built = re.compile(pattern, flags)
        assert kept == built
        assert (kept.flags, kept.groups, kept.groupindex) == (
            built.flags,
            built.groups,
            built.groupindex,
        )
        subject = "npm ci && npm install x\nERROR: it failed\n$x\ncaseless INLINE 12-ab é"
        assert [m.span() for m in kept.finditer(subject)] == [
            m.span() for m in built.finditer(subject)
        ]
    assert not kept_programs._missed  # every one came from a kept program


def test_a_pattern_not_kept_yet_is_built_once_and_equals_re(tmp_path: Path) -> None:
    for pattern, flags in _PATTERNS:
        fresh = kept_programs.compile(pattern, flags)
        assert fresh == re.compile(pattern, flags)
        assert (pattern, flags) in kept_programs._programs  # built here, kept by save
    assert not kept_programs._missed  # none needed re.compile and a second build
    assert kept_programs.save(tmp_path)
    kept_programs.forget()
    kept_programs.load(tmp_path)
    assert all(key in kept_programs._programs for key in _PATTERNS)


def test_a_pattern_the_parser_refuses_raises_as_re_does() -> None:
    with pytest.raises(re.error):
        kept_programs.compile("(unclosed")


def test_a_foreign_broken_or_linked_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / kept_programs.MEMORY_NAME
    kept_programs.compile(*_PATTERNS[0])
    kept_programs.save(tmp_path)
    data = marshal.loads(path.read_bytes())
    kept_programs.forget()
    path.write_bytes(marshal.dumps({**data, "key": "another Python"}))
    kept_programs.load(tmp_path)
    assert not kept_programs._programs
    path.write_bytes(marshal.dumps(data))
    path.chmod(0o666)  # writable by others: not trusted
    kept_programs.load(tmp_path)
    assert not kept_programs._programs
    path.chmod(0o600)
    path.write_bytes(b"\x00not marshal at all")
    kept_programs.load(tmp_path)
    assert not kept_programs._programs
    elsewhere = tmp_path / "elsewhere.marshal"
    elsewhere.write_bytes(marshal.dumps(data))
    path.unlink()
    os.symlink(elsewhere, path)
    kept_programs.load(tmp_path)
    assert not kept_programs._programs


def test_a_program_the_engine_refuses_falls_back_to_re(tmp_path: Path) -> None:
    pattern, flags = _PATTERNS[1]
    built = programs.program(pattern, flags)
    assert built is not None
    flags_kept, code, groups, _names, _groups = built
    kept_programs._programs[(pattern, flags)] = (flags_kept, [999999, *code], groups, {}, ())
    assert kept_programs.compile(pattern, flags) == re.compile(pattern, flags)
    assert (pattern, flags) not in kept_programs._programs
    assert (pattern, flags) in kept_programs._missed


_WRAPPER = """
import json, sys
from lessons_core.patterns import kept_programs
seen = {}
save = kept_programs.save
def counting(home):
    seen["missed"] = len(kept_programs._missed) + len(kept_programs._built)
    return save(home)
kept_programs.save = counting
from lessons_core.cli.main import main
try:
    main(["scan"])
except SystemExit:
    pass
print("MISSED=" + json.dumps(seen.get("missed")))
"""


def _scan(env: dict[str, str]) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER], env=env, capture_output=True, text=True, check=True
    )
    line = [x for x in proc.stdout.splitlines() if x.startswith("MISSED=")]
    assert line, (proc.stdout, proc.stderr)
    missed = json.loads(line[-1].removeprefix("MISSED="))
    assert isinstance(missed, int)
    return missed


def test_the_next_scan_compiles_none_of_its_own_patterns(tmp_path: Path) -> None:
    """A real scan keeps the programs of every pattern it compiled; the next one, reading the
    same kind of lines, builds them all from the kept programs, and each is the pattern
    ``re.compile`` builds."""
    env = dict(os.environ)
    env.update(
        LESSONS_HOME=str(tmp_path / "home"),
        LESSONS_STATE_DIR=str(tmp_path / "state"),
        HOME=str(tmp_path),
    )
    sessions = claude_sessions(tmp_path)
    assert _scan(env) > 20  # the first scan built its patterns' programs, and kept them
    kept = marshal.loads((tmp_path / "home" / kept_programs.MEMORY_NAME).read_bytes())
    import _sre

    for (pattern, flags), program in kept["programs"].items():
        assert _sre.compile(pattern, *program) == re.compile(pattern, flags), pattern
    for source, copy in sessions:
        with copy.open("ab") as out:
            out.write(source.read_bytes())
    assert _scan(env) == 0


def test_only_the_pythons_it_was_checked_on_are_recognised() -> None:
    running = (sys.implementation.name, *sys.version_info[:2])
    assert (running in kept_programs.RECOGNISED) == kept_programs.ACTIVE
    assert kept_programs.recognised("cpython", (3, 11, 7, "final", 0))
    assert kept_programs.recognised("cpython", (3, 13, 0))
    assert not kept_programs.recognised("cpython", (3, 10, 13))  # re._parser was sre_parse
    assert not kept_programs.recognised("cpython", (3, 99, 0))  # internals not checked yet
    assert not kept_programs.recognised("pypy", (3, 11, 0))


_ON_ANOTHER_PYTHON = """
import json, sys
# A release whose re internals were never checked, as the module sees it when it is imported
# (the standard library only, so nothing else is imported under the other version).
real, sys.version_info = sys.version_info, (3, 99, 0, "final", 0)
from lessons_core.patterns import kept_programs
sys.version_info = real
from lessons_core.cli.main import main
try:
    main(["scan", "--json"])
except SystemExit:
    pass
held = len(kept_programs._programs) + len(kept_programs._missed) + len(kept_programs._built)
print("HELD=" + json.dumps(held))
"""


def _scan_output(env: dict[str, str], code: str) -> tuple[list[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    lines = proc.stdout.splitlines()
    return [x for x in lines if not x.startswith("HELD=")], "\n".join(
        x for x in lines if x.startswith("HELD=")
    )


def test_a_python_it_does_not_recognise_scans_with_re_compile(tmp_path: Path) -> None:
    """On a Python whose ``re`` internals were never checked, a real scan finds what it finds
    here, through ``re.compile`` alone: no program is built, none is kept, and a file of kept
    programs already in the home is not read."""
    outputs = []
    for name, code in (
        ("here", _WRAPPER.replace('main(["scan"])', 'main(["scan", "--json"])')),
        ("there", _ON_ANOTHER_PYTHON),
    ):
        root = tmp_path / name
        env = dict(os.environ)
        env.update(
            LESSONS_HOME=str(root / "home"),
            LESSONS_STATE_DIR=str(root / "state"),
            HOME=str(root),
        )
        claude_sessions(root)
        if name == "there":  # what this Python kept, where the other one scans
            (root / "home").mkdir(mode=0o700)
            kept = tmp_path / "here" / "home" / kept_programs.MEMORY_NAME
            (root / "home" / kept_programs.MEMORY_NAME).write_bytes(kept.read_bytes())
            (root / "home" / kept_programs.MEMORY_NAME).chmod(0o600)
        lines, state = _scan_output(env, code)
        outputs.append([json.loads(x) for x in lines if x.startswith("{")])
        if name == "there":
            assert state == "HELD=0"  # no program built, loaded or waiting to be kept
            assert (root / "home" / kept_programs.MEMORY_NAME).read_bytes() == kept.read_bytes()
    assert outputs[0], "the scan found nothing to compare"
    same = [
        [{k: v for k, v in c.items() if k not in {"id", "createdAt"}} for c in out]
        for out in outputs
    ]
    assert same[0] == same[1]
