"""Capture evaluation: the scanner's candidates against hand-labelled events.

Tier 2 (heuristics) is measured on the real transcript corpus (``shared/corpus/real`` beside the
checkout, or ``--corpus``) against the labels in ``benchmarks/labels/`` (one JSONL file per agent;
the rules are in ``benchmarks/labels/RULES.md``). The scanner runs as a user would run it, over
the corpus into a scratch ``LESSONS_HOME`` — in-process through the scan engine by default, or as
``lessons scan`` + ``lessons candidates --json`` processes with ``--cli`` — and every stored
candidate is read back with its evidence (file, line, call id).

* **recall** — of the labelled events that are reusable *and* were fixed in the transcript, the
  share some Tier 2 candidate points at;
* **precision** — of all Tier 2 candidates, the share that point at a reusable labelled event.
  The rest are split into those that point at a labelled one-off (noise the labels know about)
  and those that point at nothing labelled.

A candidate points at a label when one of its evidence entries names the same transcript and
either the same call id (when both have one) or, without a call id, the same line. Figures are
given per agent and per failure kind.

Tier 1 (``#lesson`` blocks) is measured on authored transcripts under ``tests/fixtures/transcripts``
(or ``--fixtures``) that have an ``<file>.expected.json`` sidecar listing the blocks they hold:
blocks captured / expected, stray captures and duplicates.

    python benchmarks/capture_eval.py [--corpus DIR] [--labels DIR] [--fixtures DIR] [--cli]
                                      [--json] [--details]

Without the corpus the Tier 2 part is skipped with a message (exit 0); Tier 1 still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "real"
LABELS = REPO / "benchmarks" / "labels"
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
AGENTS = ("claude", "codex", "gemini")
KINDS = (
    "error",
    "validation",
    "rejected",
    "denied",
    "timeout",
    "interrupted",
    "user-correction",
    "retry-loop",
    "cwd-drift",
)
KEYS = ("file", "line", "call_id", "tool", "kind", "reusable", "fixed_by", "lesson", "note")
LESSON_KEYS = ("mistake", "fix", "trigger")
SIDECAR = ".expected.json"


# -- labels ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """One labelled event (see RULES.md for the meaning of each field)."""

    agent: str
    file: str
    line: int
    call_id: str | None
    tool: str | None
    kind: str
    reusable: bool
    fixed_by: Mapping[str, Any] | None
    lesson: Mapping[str, str] | None
    note: str

    @property
    def expected(self) -> bool:
        """Whether recall counts this event: reusable, and fixed later in its transcript."""
        return self.reusable and self.fixed_by is not None


def record_problems(record: Any) -> list[str]:
    """What is wrong with one label record (empty when it is well-formed)."""
    if not isinstance(record, dict):
        return ["not a JSON object"]
    problems = []
    missing = [k for k in KEYS if k not in record]
    extra = [k for k in record if k not in KEYS]
    if missing:
        problems.append(f"missing keys {missing}")
    if extra:
        problems.append(f"unknown keys {extra}")
    if problems:
        return problems
    file, line, call_id = record["file"], record["line"], record["call_id"]
    if not isinstance(file, str) or file.split("/", 1)[0] not in AGENTS or file.startswith("/"):
        problems.append("file must be a path relative to the corpus root, under an agent folder")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        problems.append("line must be a positive integer")
    if call_id is not None and not (isinstance(call_id, str) and call_id):
        problems.append("call_id must be a non-empty string or null")
    if record["tool"] is not None and not isinstance(record["tool"], str):
        problems.append("tool must be the agent's tool name or null")
    if record["kind"] not in KINDS:
        problems.append(f"kind {record['kind']!r} is not one of {list(KINDS)}")
    if not isinstance(record["reusable"], bool):
        problems.append("reusable must be true or false")
    fixed = record["fixed_by"]
    if fixed is not None and not (
        isinstance(fixed, dict)
        and set(fixed) == {"call_id", "line"}
        and isinstance(fixed["call_id"], str)
        and isinstance(fixed["line"], int)
    ):
        problems.append('fixed_by must be null or {"call_id": str, "line": int}')
    lesson = record["lesson"]
    if record["reusable"] is True:
        if not (
            isinstance(lesson, dict)
            and set(lesson) == set(LESSON_KEYS)
            and all(isinstance(lesson[k], str) and lesson[k].strip() for k in LESSON_KEYS)
        ):
            problems.append("a reusable event needs a lesson {mistake, fix, trigger}")
    elif lesson is not None:
        problems.append("a one-off event has no lesson (null)")
    if not isinstance(record["note"], str) or not record["note"].strip():
        problems.append("note must say why")
    return problems


def load_labels(labels_dir: Path) -> list[Label]:
    """Every label in ``labels_dir/*.jsonl``; a malformed record is an error naming its line."""
    labels: list[Label] = []
    files = sorted(labels_dir.glob("*.jsonl"))
    if not files:
        raise ValueError(f"no label files (*.jsonl) in {labels_dir}")
    for path in files:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError as exc:
                raise ValueError(f"{path.name}:{n}: not JSON ({exc})") from None
            problems = record_problems(record)
            if problems:
                raise ValueError(f"{path.name}:{n}: " + "; ".join(problems))
            labels.append(
                Label(
                    agent=record["file"].split("/", 1)[0],
                    file=record["file"],
                    line=record["line"],
                    call_id=record["call_id"],
                    tool=record["tool"],
                    kind=record["kind"],
                    reusable=record["reusable"],
                    fixed_by=record["fixed_by"],
                    lesson=record["lesson"],
                    note=record["note"],
                )
            )
    keys = [(lb.file, lb.line, lb.call_id) for lb in labels]
    if len(set(keys)) != len(keys):
        dupes = sorted({k for k in keys if keys.count(k) > 1}, key=str)
        raise ValueError(f"events labelled twice: {dupes[:5]}")
    return labels


def corpus_problems(labels: Iterable[Label], corpus: Path) -> list[str]:
    """Labels that no longer fit the corpus: a missing file, a line past its end, or a line
    (or a fix's line) that does not hold the call id it should."""
    problems: list[str] = []
    cache: dict[str, list[str]] = {}
    for label in labels:
        where = f"{label.file}:{label.line}"
        if label.file not in cache:
            path = corpus / label.file
            if not path.is_file():
                problems.append(f"{where}: no such transcript")
                cache[label.file] = []
                continue
            cache[label.file] = path.read_text(encoding="utf-8", errors="replace").splitlines()
        lines = cache[label.file]
        if not lines:
            continue
        checks = [(label.line, label.call_id, "event")]
        if label.fixed_by is not None:
            checks.append((label.fixed_by["line"], label.fixed_by["call_id"], "fix"))
        for line, call_id, what in checks:
            if line > len(lines):
                problems.append(f"{where}: {what} line {line} is past the end ({len(lines)})")
            elif call_id is not None and f'"{call_id}"' not in lines[line - 1]:
                # a user message cites the call before it, which sits on an earlier line
                before = "\n".join(lines[: line - 1]) if label.tool is None else ""
                if f'"{call_id}"' not in before:
                    problems.append(f"{where}: {what} line {line} does not hold call id {call_id}")
    return problems


# -- candidates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pointer:
    """Where a candidate's evidence points: a transcript relative to the scanned root."""

    file: str
    line: int
    call_id: str | None


def relative(file: str, root: Path, home: str | None = None) -> str:
    """``file`` relative to ``root`` (POSIX), or unchanged when it is elsewhere. A leading
    ``~`` (the scanner may shorten the scanning user's home) is expanded with ``home``."""
    if home and (file == "~" or file.startswith("~/")):
        file = home.rstrip("/") + file[1:]
    try:
        return Path(file).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return file


def pointers(candidate: Mapping[str, Any], root: Path, home: str | None = None) -> list[Pointer]:
    """The evidence entries of a candidate (contract shape), made relative to ``root``."""
    out = []
    for item in candidate.get("evidence") or ():
        if not isinstance(item, Mapping) or not isinstance(item.get("file"), str):
            continue
        line = item.get("line")
        out.append(
            Pointer(
                relative(item["file"], root, home),
                line if isinstance(line, int) else 0,
                item.get("call_id") or None,
            )
        )
    return out


def points_at(pointer: Pointer, label: Label) -> bool:
    """Same transcript, and the same call id or the same line.

    A line alone is enough for Claude and Codex, where one record holds one result: the
    scanner may cite the call that started a process while the label names the poll that
    reported its exit on that line. Gemini needs the call id when both have one: a message
    holds several tool calls, and in a legacy single-document session the evidence line is
    the message's index, not a line of the file.
    """
    if pointer.file != label.file:
        return False
    if pointer.call_id is not None and pointer.call_id == label.call_id:
        return True
    if label.agent == "gemini" and pointer.call_id is not None and label.call_id is not None:
        return False
    return pointer.line == label.line


def heuristic(candidates: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Tier 2 and higher candidates a user would review (intake rejections are not counted)."""
    return [c for c in candidates if c.get("tier") != 1 and c.get("status") != "rejected"]


# -- Tier 2 evaluation -------------------------------------------------------------------------


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def evaluate(
    labels: Sequence[Label],
    candidates: Iterable[Mapping[str, Any]],
    root: Path,
    home: str | None = None,
) -> dict[str, Any]:
    """Recall and precision of the heuristic candidates against ``labels``, overall, per agent
    and per kind. ``root`` is the folder the label paths are relative to."""
    cands = heuristic(candidates)
    hits: list[list[Label]] = []
    for cand in cands:
        ptrs = pointers(cand, root, home)
        hits.append([lb for lb in labels if any(points_at(p, lb) for p in ptrs)])
    found = {id(lb) for hit in hits for lb in hit}

    def recall(subset: Sequence[Label]) -> dict[str, Any]:
        expected = [lb for lb in subset if lb.expected]
        got = [lb for lb in expected if id(lb) in found]
        ratio = _ratio(len(got), len(expected))
        return {"expected": len(expected), "found": len(got), "recall": ratio}

    def precision(indices: Sequence[int]) -> dict[str, Any]:
        good = [i for i in indices if any(lb.reusable for lb in hits[i])]
        one_off = [i for i in indices if hits[i] and i not in good]
        return {
            "candidates": len(indices),
            "on_reusable": len(good),
            "one_off": len(one_off),
            "unlabelled": len(indices) - len(good) - len(one_off),
            "precision": _ratio(len(good), len(indices)),
        }

    def kind_of(i: int) -> str:
        reusable = [lb.kind for lb in hits[i] if lb.reusable]
        return (reusable or [lb.kind for lb in hits[i]] or ["unlabelled"])[0]

    by_agent = {}
    for agent in AGENTS:
        mine = [lb for lb in labels if lb.agent == agent]
        idx = [i for i, c in enumerate(cands) if c.get("agent") == agent]
        by_agent[agent] = {"labels": len(mine), **recall(mine), **precision(idx)}
    by_kind = {}
    for kind in KINDS:
        mine = [lb for lb in labels if lb.kind == kind]
        idx = [i for i in range(len(cands)) if kind_of(i) == kind]
        if mine or idx:
            by_kind[kind] = {"labels": len(mine), **recall(mine), **precision(idx)}
    unlabelled = [i for i in range(len(cands)) if not hits[i]]
    if unlabelled:
        by_kind["unlabelled"] = {"labels": 0, **precision(unlabelled)}
    missed = [lb for lb in labels if lb.expected and id(lb) not in found]
    return {
        "labels": len(labels),
        "reusable_labels": sum(lb.reusable for lb in labels),
        **recall(labels),
        **precision(range(len(cands))),
        "by_agent": by_agent,
        "by_kind": by_kind,
        "missed": [
            {"file": lb.file, "line": lb.line, "call_id": lb.call_id, "kind": lb.kind}
            for lb in missed
        ],
        "false_positives": [
            {
                "summary": cands[i].get("summary") or cands[i].get("mistake", "")[:100],
                "agent": cands[i].get("agent"),
                "pointer": [vars(p) for p in pointers(cands[i], root, home)][:1],
                "labelled": [{"kind": lb.kind, "note": lb.note} for lb in hits[i]][:1],
            }
            for i in range(len(cands))
            if not any(lb.reusable for lb in hits[i])
        ],
    }


# -- Tier 1 evaluation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One expected ``#lesson`` block: the line of the record holding it, and its words."""

    line: int
    summary: str
    mistake: str = ""

    def said_by(self, summary: str) -> bool:
        """Whether a candidate's summary is this block's summary (or its mistake)."""
        return any(_same(summary, mine) for mine in (self.summary, self.mistake) if mine)


@dataclass(frozen=True)
class Expectation:
    """The ``#lesson`` blocks one authored transcript holds (its ``.expected.json`` sidecar)."""

    transcript: Path
    agent: str | None
    blocks: tuple[Block, ...]


def _transcript_of(sidecar: Path) -> Path:
    """``x.jsonl.expected.json`` (or ``x.expected.json``) → the transcript beside it."""
    name = sidecar.name[: -len(SIDECAR)]
    candidates = [sidecar.with_name(name)] if name.endswith((".jsonl", ".json")) else []
    candidates += [sidecar.with_name(name + ext) for ext in (".jsonl", ".json")]
    for path in candidates:
        if path.is_file():
            return path
    raise ValueError(
        f"{sidecar}: no transcript beside it ({', '.join(p.name for p in candidates)})"
    )


def load_expectations(fixtures: Path) -> list[Expectation]:
    """Every sidecar under ``fixtures`` with the transcript beside it."""
    out = []
    for sidecar in sorted(fixtures.rglob(f"*{SIDECAR}")):
        transcript = _transcript_of(sidecar)
        data = json.loads(sidecar.read_text(encoding="utf-8"))
        blocks = data.get("blocks") if isinstance(data, dict) else None
        if not isinstance(blocks, list) or not all(
            isinstance(b, dict)
            and isinstance(b.get("line"), int)
            and isinstance(b.get("summary"), str)
            and isinstance(b.get("mistake", ""), str)
            for b in blocks
        ):
            raise ValueError(f'{sidecar}: needs "blocks": [{{"line": int, "summary": str}}, …]')
        agent = data.get("agent")
        if agent is None:
            agent = next((p for p in transcript.relative_to(fixtures).parts if p in AGENTS), None)
        found = tuple(Block(b["line"], b["summary"], b.get("mistake", "")) for b in blocks)
        out.append(Expectation(transcript, agent, found))
    return out


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def assign(
    blocks: Sequence[Block], captures: Sequence[tuple[int, str]]
) -> tuple[dict[int, int], list[int], list[int]]:
    """Pair captures ``(line, summary)`` with expected blocks, one to one.

    A capture on a block's line with its words is paired first, then one on its line (several
    blocks can share a line), then one with its words elsewhere. A capture left over that fits
    a block already paired is a duplicate; one that fits none is a stray. Returns
    ``{block index: capture index}``, the duplicates and the strays (capture indices).
    """
    paired: dict[int, int] = {}
    free = list(range(len(captures)))
    rules: tuple[Callable[[Block, tuple[int, str]], bool], ...] = (
        lambda b, c: b.line == c[0] and b.said_by(c[1]),
        lambda b, c: b.line == c[0],
        lambda b, c: b.said_by(c[1]),
    )
    for rule in rules:
        for ci in list(free):
            for bi, block in enumerate(blocks):
                if bi not in paired and rule(block, captures[ci]):
                    paired[bi] = ci
                    free.remove(ci)
                    break
    dupes = [ci for ci in free if any(r(b, captures[ci]) for b in blocks for r in rules[1:])]
    strays = [ci for ci in free if ci not in dupes]
    return paired, dupes, strays


def evaluate_tier1(
    expectations: Sequence[Expectation],
    candidates: Iterable[Mapping[str, Any]],
    root: Path,
    home: str | None = None,
) -> dict[str, Any]:
    """Blocks captured / expected, stray captures and duplicates, per transcript and in all.

    Every evidence entry of a Tier 1 candidate that cites a transcript is one capture there: the
    scanner folds a repeated block into the first one's evidence rather than making a second
    candidate, so a duplicate shows as a second entry.
    """
    tier1 = [c for c in candidates if c.get("tier") == 1]
    per: list[dict[str, Any]] = []
    for exp in expectations:
        name = relative(str(exp.transcript), root)
        captures = [
            (p.line, str(c.get("summary") or ""))
            for c in tier1
            for p in pointers(c, root, home)
            if p.file == name
        ]
        paired, dupes, strays = assign(exp.blocks, captures)
        per.append(
            {
                "transcript": name,
                "expected": len(exp.blocks),
                "captured": len(paired),
                "strays": len(strays),
                "duplicates": len(dupes),
                "missed": [
                    f"line {b.line}: {b.summary}"
                    for i, b in enumerate(exp.blocks)
                    if i not in paired
                ],
                "stray_summaries": [f"line {captures[i][0]}: {captures[i][1]}" for i in strays],
            }
        )
    total = {k: sum(p[k] for p in per) for k in ("expected", "captured", "strays", "duplicates")}
    return {"transcripts": len(per), **total, "by_transcript": per}


# -- scanning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scan:
    """What a scan left in its store, and how many detections its intake refused (those are
    not stored, so they can only be counted)."""

    candidates: list[dict[str, Any]]
    intake_rejected: int | None
    files: int | None


def scan_in_process(paths: Sequence[Path], home: Path) -> Scan:
    """Scan ``paths`` into the store at ``home`` through the scan engine; every stored
    candidate in the contract's JSON shape."""
    from lessons_core import serde, services
    from lessons_core.scan import discovery, engine

    environ = {**os.environ, "LESSONS_HOME": str(home), "LESSONS_AUTO_SCAN": "0"}
    with services.session(environ) as sess:
        files = discovery.discover(sess.plugins.agents(), environ, list(paths))
        report = engine.run_scan(sess, files=files)
        found = sess.store.list_candidates(status=None)
        return Scan([serde.candidate_to_json(c) for c in found], report.rejected, len(files))


def scan_cli(paths: Sequence[Path], home: Path) -> Scan:
    """The same through the ``lessons`` command, as a user runs it."""
    exe = Path(sys.executable).parent / "lessons"
    cmd = str(exe) if exe.exists() else "lessons"
    env = {**os.environ, "LESSONS_HOME": str(home), "LESSONS_AUTO_SCAN": "0"}
    said = subprocess.run(
        [cmd, "scan", *map(str, paths)], env=env, check=True, capture_output=True, text=True
    ).stdout
    rejected = re.search(r"(\d+) rejected", said)
    files = re.search(r"Scanned \d+ of (\d+) transcript", said)
    out = subprocess.run(
        [cmd, "candidates", "--json", "--status", "all"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return Scan(
        [json.loads(line) for line in out.splitlines() if line.strip()],
        int(rejected.group(1)) if rejected else None,
        int(files.group(1)) if files else None,
    )


# -- report ------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{value * 100:5.1f}%"


def _row(name: str, part: Mapping[str, Any]) -> str:
    recall = (
        f"{part['found']:>3}/{part['expected']:<3} {_pct(part['recall'])}"
        if "expected" in part
        else " " * 14
    )
    return (
        f"  {name:<16} {part.get('labels', 0):>6}  {recall}   "
        f"{part['on_reusable']:>3}/{part['candidates']:<3} {_pct(part['precision'])}"
        f"   {part['one_off']:>7} {part['unlabelled']:>10}"
    )


def render(result: Mapping[str, Any], details: bool = False) -> str:
    """The human-readable report."""
    out: list[str] = []
    t2 = result.get("tier2")
    if t2 is None:
        out.append(f"Tier 2: skipped — {result.get('tier2_skipped')}")
    else:
        out.append(
            f"Tier 2 (heuristics) on {result['corpus']}: {t2['labels']} labelled events, "
            f"{t2['reusable_labels']} reusable, {t2['expected']} reusable and fixed "
            "(the recall base)."
        )
        head = (
            f"  {'':<16} {'labels':>6}  {'recall':<14}   {'precision':<14}"
            f"   {'one-off':>7} {'unlabelled':>10}"
        )
        refused = t2.get("intake_rejected")
        if refused is not None:
            out.append(
                f"{t2['transcripts_scanned']} transcripts scanned; the intake refused {refused} "
                "detection(s) before they became candidates (not counted below)."
            )
        out += ["", head, _row("all", t2), "", "  per agent"]
        out += [_row(a, p) for a, p in t2["by_agent"].items()]
        out += ["", "  per kind (candidates counted under the kind of the event they point at)"]
        out += [_row(k, p) for k, p in t2["by_kind"].items()]
        if details:
            out += ["", "  missed (reusable, fixed, no candidate):"]
            out += [f"    {m['file']}:{m['line']} {m['kind']} {m['call_id']}" for m in t2["missed"]]
            out += ["", "  candidates not pointing at a reusable event:"]
            for fp in t2["false_positives"]:
                why = fp["labelled"][0]["note"] if fp["labelled"] else "not labelled"
                out.append(f"    [{fp['agent']}] {fp['summary']} — {why}")
    out.append("")
    t1 = result.get("tier1")
    if not t1 or not t1["transcripts"]:
        out.append(
            "Tier 1 (#lesson blocks): no labelled transcripts "
            f"(no *{SIDECAR} sidecar under {result.get('fixtures')})."
        )
    else:
        out.append(
            f"Tier 1 (#lesson blocks) on {t1['transcripts']} authored transcript(s): "
            f"{t1['captured']}/{t1['expected']} blocks captured, {t1['strays']} stray, "
            f"{t1['duplicates']} duplicate(s)."
        )
        for per in t1["by_transcript"]:
            line = (
                f"  {per['transcript']}: {per['captured']}/{per['expected']}, "
                f"{per['strays']} stray, {per['duplicates']} duplicate(s)"
            )
            out.append(line)
            if details:
                out += [f"    missed: {s}" for s in per["missed"]]
                out += [f"    stray: {s}" for s in per["stray_summaries"]]
    return "\n".join(out)


def run(
    corpus: Path,
    labels_dir: Path = LABELS,
    fixtures: Path = FIXTURES,
    *,
    cli: bool = False,
    scratch: Path | None = None,
) -> dict[str, Any]:
    """The whole evaluation; ``scratch`` holds the scan homes (a temporary folder if None)."""
    scan = scan_cli if cli else scan_in_process
    result: dict[str, Any] = {"corpus": str(corpus), "fixtures": str(fixtures)}
    with tempfile.TemporaryDirectory(prefix="capture-eval-") as tmp:
        base = scratch or Path(tmp)
        if corpus.is_dir():
            labels = load_labels(labels_dir)
            done = scan([corpus], base / "tier2-home")
            result["tier2"] = evaluate(labels, done.candidates, corpus)
            result["tier2"]["intake_rejected"] = done.intake_rejected
            result["tier2"]["transcripts_scanned"] = done.files
        else:
            result["tier2"] = None
            result["tier2_skipped"] = (
                f"no corpus at {corpus} (it lives beside the checkout as shared/corpus/real; "
                "pass --corpus DIR)"
            )
        expectations = load_expectations(fixtures) if fixtures.is_dir() else []
        if expectations:
            done = scan([e.transcript for e in expectations], base / "tier1-home")
            result["tier1"] = evaluate_tier1(expectations, done.candidates, fixtures)
        else:
            result["tier1"] = {"transcripts": 0}
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="the real transcript corpus")
    ap.add_argument("--labels", type=Path, default=LABELS, help="folder of label *.jsonl files")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES, help="authored Tier 1 transcripts")
    ap.add_argument("--cli", action="store_true", help="run `lessons` processes, not in-process")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--details", action="store_true", help="list misses and false positives")
    args = ap.parse_args(argv)
    from lessons_core.logs import configure_logging

    configure_logging(0)  # the scanner's debug events (each intake refusal) stay quiet
    try:
        result = run(args.corpus, args.labels, args.fixtures, cli=args.cli)
    except (ValueError, OSError, subprocess.CalledProcessError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render(result, details=args.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
