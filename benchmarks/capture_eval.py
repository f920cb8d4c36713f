"""Capture evaluation: the scanner's candidates against hand-labelled events, on a locked split.

Tier 2 (heuristics) is measured on the real transcript corpora under ``shared/corpus`` beside the
checkout (``--corpora``): ``real`` and ``real2``, each labelled in its own folder
``benchmarks/labels/<corpus>/`` (any number of ``*.jsonl`` files; the rules are in
``benchmarks/labels/RULES.md``). Each corpus is scanned as a user would scan it, into its own
scratch ``LESSONS_HOME`` — in-process through the scan engine by default, or as ``lessons scan``
+ ``lessons candidates --json`` processes with ``--cli`` — and every stored candidate is read
back with its evidence (file, line, call id).

Every labelled event is on the **dev** or the **test** side of the split committed in
``benchmarks/labels/split.json`` (by its session; see ``benchmarks/labels/split.py``). Rules are
tuned on dev; the test side is the headline, printed first and under ``"test"`` in ``--json``:
a figure measured on the events that informed the rules would only say how well they fit them.
Each figure is given for both sides, both corpora and both together, per agent and per kind:

* **recall** — of the labelled events that are reusable *and* were fixed in the transcript, the
  share some Tier 2 candidate points at;
* **lesson recall** — of those, the share some pointing candidate also says the label's lesson,
  by the rule below (a candidate on the right event may still teach the wrong thing);
* **precision** — of the Tier 2 candidates with evidence on that side, the share that point at
  a reusable labelled event. The rest are split into those that point at a labelled one-off
  (noise the labels know about) and those that point at nothing labelled.

The ``user-correction`` kind (a user saying the agent was wrong, without a failing call) is
also reported on its own: its recall and the precision of the candidates on such events. The
correction detector is off by default (``offDetectors``), so that line says what the defaults
find; a second scan with it switched on reports the detector itself (``corrections_detector``:
its recall of user corrections, and the precision of all its candidates, rejection reasons
included), so the figure that keeps it off is measured in every run, not quoted. Per
kind, a candidate counts under the kind of the event it points at; one on nothing labelled is
``unlabelled``.

A candidate points at a label when one of its evidence entries names the same transcript and
either the same call id (when both have one) or, without a call id, the same line. A candidate
counts for the agent whose folder holds its evidence (a file another agent's reader claimed
counts for the agent that wrote it). An agent whose transcripts no installed reader reads
is reported as *no reader*; its events stay in the totals, unfound.

**The lesson rule.** A candidate says a label's lesson when its words (summary, trigger with
the regular expression's escapes removed, mistake and fix) share at least one *key word* with
the label's trigger and at least one with the label's fix: the candidate names something of
when the lesson applies and something of what to do. Key words are the words of three or more
letters or digits (split at anything else, underscores included; a plural ``s`` dropped) that
are not in :data:`COMMON_WORDS` — English function words, the vocabulary every lesson uses
("run", "instead", "failed", "file") and the words of an edit's arguments ("old", "string") —
nor a word of the failing call's tool name: a candidate on the same event shares those with its
label whatever it teaches. Another tool's name does count ("Read the file first").

``--sample N --seed S`` writes a seeded random sample of N test-side candidates (false finds
included), each beside the reusable labels it points at and the rule's verdict, to a JSON file
(``--sample-out``) for judging by hand; the sample is the same for the same N, seed and scan.
``--sample-side dev`` draws it from the dev side instead: the side whose defects a rule may be
changed for. A judged test sample (``labels/judged/test-sample.json``) is the headline figure; a
judged dev sample (``labels/judged/dev-sample.json``) is reported on a line of its own after it.

Tier 1 (``#lesson`` blocks) is measured on authored transcripts under ``tests/fixtures/transcripts``
(or ``--fixtures``) that have an ``<file>.expected.json`` sidecar listing the blocks they hold:
blocks captured / expected, stray captures and duplicates.

    python benchmarks/capture_eval.py [--corpora DIR] [--labels DIR] [--fixtures DIR] [--cli]
                                      [--json] [--details] [--sample N --seed S]
                                      [--sample-side test|dev]

A corpus that is absent is skipped with a message (exit 0); Tier 1 still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO.parent / "shared" / "corpus"
LABELS = REPO / "benchmarks" / "labels"
SPLIT = LABELS / "split.json"
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
JUDGED = LABELS / "judged" / "test-sample.json"
#: The dev side judged the same way: what wording defects may be fixed for, never the headline.
JUDGED_DEV = LABELS / "judged" / "dev-sample.json"
#: What a judge decides about each sampled candidate (issue: the lesson must be right).
VERDICTS = ("cause", "fix", "trigger")
#: The labelled corpora, in the order they are reported (each one a folder of ``--corpora``).
CORPUS_NAMES = ("real", "real2")
SIDES = ("test", "dev")
AGENTS = ("claude", "codex", "gemini", "opencode", "copilot")
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
OPTIONAL_KEYS = ("scope",)
SCOPES = ("global", "project")
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
    corpus: str = "real"
    scope: str | None = None

    @property
    def expected(self) -> bool:
        """Whether recall counts this event: reusable, and fixed later in its transcript."""
        return self.reusable and self.fixed_by is not None

    @property
    def key(self) -> str:
        """The transcript as the split and the candidates' evidence name it: corpus/file."""
        return f"{self.corpus}/{self.file}"


def record_problems(record: Any) -> list[str]:
    """What is wrong with one label record (empty when it is well-formed)."""
    if not isinstance(record, dict):
        return ["not a JSON object"]
    problems = []
    missing = [k for k in KEYS if k not in record]
    extra = [k for k in record if k not in KEYS + OPTIONAL_KEYS]
    if missing:
        problems.append(f"missing keys {missing}")
    if extra:
        problems.append(f"unknown keys {extra}")
    if problems:
        return problems
    file, line, call_id = record["file"], record["line"], record["call_id"]
    if not isinstance(file, str) or file.split("/", 1)[0] not in AGENTS or file.startswith("/"):
        problems.append(
            "file must be a path relative to the corpus root, under an agent folder "
            f"({', '.join(AGENTS)})"
        )
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
    if "scope" in record:
        if record["reusable"] is not True:
            problems.append("scope belongs to a reusable event only (leave it out of a one-off)")
        elif record["scope"] not in SCOPES:
            problems.append(f"scope must be one of {list(SCOPES)}, or left out")
    if not isinstance(record["note"], str) or not record["note"].strip():
        problems.append("note must say why")
    return problems


def label_folders(labels_dir: Path) -> list[Path]:
    """The folders of ``labels_dir`` that hold label files, one per corpus (known corpora first,
    in their order, then any other)."""
    found = [d for d in labels_dir.iterdir() if d.is_dir() and any(d.glob("*.jsonl"))]
    rank = {name: i for i, name in enumerate(CORPUS_NAMES)}
    return sorted(found, key=lambda d: (rank.get(d.name, len(rank)), d.name))


def load_labels(labels_dir: Path) -> list[Label]:
    """Every label in ``labels_dir/<corpus>/*.jsonl``, each naming its corpus (the folder) and
    its agent (the first folder of its file); a malformed record is an error naming its line."""
    labels: list[Label] = []
    folders = label_folders(labels_dir) if labels_dir.is_dir() else []
    if not folders:
        raise ValueError(
            f"no label files in {labels_dir}: expected <corpus>/*.jsonl, e.g. real/claude.jsonl"
        )
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")):
            where = f"{folder.name}/{path.name}"
            for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except ValueError as exc:
                    raise ValueError(f"{where}:{n}: not JSON ({exc})") from None
                problems = record_problems(record)
                if problems:
                    raise ValueError(f"{where}:{n}: " + "; ".join(problems))
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
                        corpus=folder.name,
                        scope=record.get("scope"),
                    )
                )
    keys = [(lb.corpus, lb.file, lb.line, lb.call_id) for lb in labels]
    if len(set(keys)) != len(keys):
        dupes = sorted({k for k in keys if keys.count(k) > 1}, key=str)
        raise ValueError(f"events labelled twice: {dupes[:5]}")
    return labels


def corpus_problems(labels: Iterable[Label], corpora: Path) -> list[str]:
    """Labels that no longer fit their corpus (``corpora/<corpus>``): a missing file, a line
    past its end, or a line (or a fix's line) that does not hold the call id it should."""
    problems: list[str] = []
    cache: dict[str, list[str]] = {}
    for label in labels:
        where = f"{label.key}:{label.line}"
        if label.key not in cache:
            path = corpora / label.corpus / label.file
            if not path.is_file():
                problems.append(f"{where}: no such transcript")
                cache[label.key] = []
                continue
            cache[label.key] = path.read_text(encoding="utf-8", errors="replace").splitlines()
        lines = cache[label.key]
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


# -- the split ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """The committed dev/test split: each transcript's session, and each session's side."""

    files: Mapping[str, str]
    sessions: Mapping[str, str]

    def side_of(self, key: str) -> str | None:
        """``"test"`` or ``"dev"`` for a transcript (``corpus/file``), None when unknown."""
        session = self.files.get(key)
        return self.sessions.get(session) if session is not None else None


def load_split(path: Path = SPLIT) -> Split:
    """``split.json``, read and checked by ``labels/split.py`` (an error that says what to do
    when it is missing or broken)."""
    from siblings import labels_split

    data = labels_split().load(path)
    return Split(data["files"], data["sessions"])


def unsplit(labels: Iterable[Label], split: Split) -> list[str]:
    """Labelled transcripts the split does not know (a corpus grew after it was written)."""
    return sorted({lb.key for lb in labels if split.side_of(lb.key) is None})


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
    if pointer.file != label.key:
        return False
    if pointer.call_id is not None and pointer.call_id == label.call_id:
        return True
    if label.agent == "gemini" and pointer.call_id is not None and label.call_id is not None:
        return False
    return pointer.line == label.line


#: Statuses of candidates no user is shown: refused by the intake, or waiting to come back in
#: another session (a guessed path seen once).
UNSEEN = frozenset({"rejected", "waiting"})


def heuristic(candidates: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Tier 2 and higher candidates a user would review (intake rejections, and findings that
    wait to come back in another session, are not counted)."""
    return [c for c in candidates if c.get("tier") != 1 and c.get("status") not in UNSEEN]


def agent_of(candidate: Mapping[str, Any], ptrs: Sequence[Pointer]) -> str | None:
    """The agent whose folder holds the candidate's evidence (``corpus/agent/…``), else the
    agent the scanner named."""
    for ptr in ptrs:
        parts = ptr.file.split("/")
        if len(parts) > 2 and parts[1] in AGENTS:
            return parts[1]
    agent = candidate.get("agent")
    return agent if isinstance(agent, str) else None


# -- the lesson rule ---------------------------------------------------------------------------

#: Words that say nothing of one lesson in particular: English function words, what every
#: lesson says ("run", "instead", "failed", "file"), and the words of an edit's arguments
#: ("old", "new", "string", "text"), which a candidate on an edit shares with its label whatever
#: lesson it draws. The failing call's own tool name is dropped too, by :func:`says_lesson`.
_COMMON = """
about above after again all also and another any are because been before being both but
can cannot could did does doing done each either else even every for from had has have
here how into its itself just least less let like may might more most much must never
not now off once one only onto other our out over own same should since some such
than that the their them then there these they this those though through too under until
upon very was way were what when where whether which while who whose why will with within
without would yet you your
agent always answer call called case check command correct error fail failed failing
failure first fix fixed get got instead later make made mistake need needed new next old
problem ran run running said say session string text thing time tool try tried use used
user using want wanted work worked wrong file replace
"""
COMMON_WORDS = frozenset(_COMMON.split())
_WORD = re.compile(r"[a-z0-9]+")
_ESCAPE = re.compile(r"\\[A-Za-z]")


def key_words(text: str) -> frozenset[str]:
    """The words of ``text`` that can tell one lesson from another (see the module's docs)."""
    out = set()
    for word in _WORD.findall(_ESCAPE.sub(" ", text).casefold()):
        if word in COMMON_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if len(word) >= 3 and not word.isdigit() and word not in COMMON_WORDS:
            out.add(word)
    return frozenset(out)


def says_lesson(
    candidate: Mapping[str, Any], lesson: Mapping[str, str], tool: str | None = None
) -> bool:
    """Whether the candidate's words share a key word with the lesson's trigger and one with
    its fix (the rule in the module's docs). The words of ``tool``, the failing call's tool,
    do not count: a candidate on the event names it whatever it teaches."""
    said = key_words(
        " ".join(str(candidate.get(k) or "") for k in ("summary", "trigger", "mistake", "fix"))
    ) - key_words(tool or "")
    return bool(said & key_words(lesson["trigger"])) and bool(said & key_words(lesson["fix"]))


# -- Tier 2 evaluation -------------------------------------------------------------------------


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def evaluate(
    labels: Sequence[Label],
    candidates: Iterable[Mapping[str, Any]],
    root: Path,
    home: str | None = None,
    where: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """Recall, lesson recall and precision of the heuristic candidates against ``labels``,
    overall, per agent and per kind. ``root`` is the folder the labels' keys (corpus/file) are
    relative to; ``where``, when given, keeps only the evidence in the transcripts it accepts
    (a candidate with none left is not counted)."""
    cands: list[Mapping[str, Any]] = []
    ptrs_of: list[list[Pointer]] = []
    for cand in heuristic(candidates):
        ptrs = pointers(cand, root, home)
        if where is not None:
            ptrs = [p for p in ptrs if where(p.file)]
            if not ptrs:
                continue
        cands.append(cand)
        ptrs_of.append(ptrs)
    hits = [[lb for lb in labels if any(points_at(p, lb) for p in ptrs)] for ptrs in ptrs_of]
    found = {id(lb) for hit in hits for lb in hit}
    said = {
        id(lb)
        for cand, hit in zip(cands, hits, strict=True)
        for lb in hit
        if lb.lesson is not None and says_lesson(cand, lb.lesson, lb.tool)
    }

    def recall(subset: Sequence[Label]) -> dict[str, Any]:
        expected = [lb for lb in subset if lb.expected]
        got = [lb for lb in expected if id(lb) in found]
        right = [lb for lb in got if id(lb) in said]
        return {
            "expected": len(expected),
            "found": len(got),
            "recall": _ratio(len(got), len(expected)),
            "lesson_found": len(right),
            "lesson_recall": _ratio(len(right), len(expected)),
        }

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

    agents = [agent_of(c, p) for c, p in zip(cands, ptrs_of, strict=True)]
    by_agent = {}
    for agent in AGENTS:
        mine = [lb for lb in labels if lb.agent == agent]
        idx = [i for i, a in enumerate(agents) if a == agent]
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
    correction = [lb for lb in labels if lb.kind == "user-correction"]
    missed = [lb for lb in labels if lb.expected and id(lb) not in found]
    return {
        "labels": len(labels),
        "reusable_labels": sum(lb.reusable for lb in labels),
        **recall(labels),
        **precision(range(len(cands))),
        "user_correction": {
            "labels": len(correction),
            **recall(correction),
            **precision([i for i in range(len(cands)) if kind_of(i) == "user-correction"]),
        },
        "by_agent": by_agent,
        "by_kind": by_kind,
        "missed": [
            {"file": lb.key, "line": lb.line, "call_id": lb.call_id, "kind": lb.kind}
            for lb in missed
        ],
        "wrong_lesson": [
            {"file": lb.key, "line": lb.line, "kind": lb.kind, "trigger": lb.lesson["trigger"]}
            for lb in labels
            if lb.expected and lb.lesson and id(lb) in found and id(lb) not in said
        ],
        "false_positives": [
            {
                "summary": cands[i].get("summary") or str(cands[i].get("mistake", ""))[:100],
                "agent": agents[i],
                "pointer": [vars(p) for p in ptrs_of[i]][:1],
                "labelled": [{"kind": lb.kind, "note": lb.note} for lb in hits[i]][:1],
            }
            for i in range(len(cands))
            if not any(lb.reusable for lb in hits[i])
        ],
    }


def on_side(
    labels: Sequence[Label],
    candidates: Iterable[Mapping[str, Any]],
    root: Path,
    where: Callable[[str], bool],
    home: str | None = None,
) -> list[tuple[Mapping[str, Any], list[Pointer], list[Label]]]:
    """The candidates with evidence ``where`` (its pointers kept), each with the reusable labels
    it points at, in a fixed order: the population a sample is drawn from, so that the same
    seed draws the same sample from the same scan."""
    found = []
    for cand in heuristic(candidates):
        ptrs = [p for p in pointers(cand, root, home) if where(p.file)]
        if not ptrs:
            continue
        hit = [lb for lb in labels if lb.reusable and any(points_at(p, lb) for p in ptrs)]
        found.append((cand, ptrs, hit))
    found.sort(key=lambda f: (f[1][0].file, f[1][0].line, str(f[0].get("summary"))))
    return found


def sample(
    labels: Sequence[Label],
    candidates: Iterable[Mapping[str, Any]],
    root: Path,
    size: int,
    seed: int,
    where: Callable[[str], bool],
    home: str | None = None,
) -> list[dict[str, Any]]:
    """A seeded random sample of ``size`` candidates with evidence ``where``, each beside the
    reusable labels it points at (none for a false find) and the lesson rule's verdict, for
    judging by hand (``"judged"`` is left for the reader). False finds are drawn too, so the
    judged share is of what a user would be shown, not of what the labels already agree with.
    """
    found = on_side(labels, candidates, root, where, home)
    chosen = random.Random(seed).sample(found, min(size, len(found)))
    return [
        {
            "candidate": {k: cand.get(k) for k in ("summary", "tool", "trigger", "mistake", "fix")}
            | {"evidence": [vars(p) for p in ptrs]},
            "labels": [
                {
                    "file": lb.key,
                    "line": lb.line,
                    "call_id": lb.call_id,
                    "kind": lb.kind,
                    "scope": lb.scope,
                    "lesson": dict(lb.lesson or {}),
                    "note": lb.note,
                }
                for lb in hit
            ],
            "lesson_rule": any(
                lb.lesson is not None and says_lesson(cand, lb.lesson, lb.tool) for lb in hit
            ),
            "judged": None,
        }
        for cand, ptrs, hit in chosen
    ]


def judged(path: Path) -> dict[str, Any] | None:
    """The figures of a sample judged by hand (``--sample`` output with each ``"judged"``
    filled in as ``{"cause": bool, "fix": bool, "trigger": bool, "why": str}``), or None when
    there is no such file. An entry left unjudged is an error: a half-judged sample would
    report a share of the entries someone found easy.
    """
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    drawn = data.get("drawn") or []
    for n, entry in enumerate(drawn):
        verdict = entry.get("judged")
        if not isinstance(verdict, dict) or not all(
            isinstance(verdict.get(k), bool) for k in VERDICTS
        ):
            raise ValueError(
                f"{path.name}: entry {n} is not judged: give it "
                + ", ".join(f'"{k}": true|false' for k in VERDICTS)
                + ' and a "why"'
            )
        if not str(verdict.get("why") or "").strip():
            raise ValueError(f'{path.name}: entry {n} has verdicts but no "why"')
    counts = {k: sum(e["judged"][k] for e in drawn) for k in VERDICTS}
    right = sum(all(e["judged"][k] for k in VERDICTS) for e in drawn)
    return {
        "file": path.name,
        "side": data.get("side") or "test",
        "seed": data.get("seed"),
        "judged": len(drawn),
        "population": data.get("population"),
        **counts,
        "all_three": right,
    }


def _judged_line(figures: Mapping[str, Any]) -> str:
    n = figures["judged"]
    said = {"cause": "cause right", "fix": "fix right", "trigger": "trigger narrow"}
    parts = ", ".join(f"{said[k]} {figures[k]}/{n}" for k in VERDICTS)
    of = f" of {figures['population']}" if figures.get("population") else ""
    return (
        f"Judged by hand ({figures['file']}, seed {figures['seed']}, {n}{of} "
        f"{figures.get('side') or 'test'}-side "
        f"candidates): {parts}; all three right {figures['all_three']}/{n} "
        f"({_pct(figures['all_three'] / n if n else None).strip()})."
    )


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


#: The detector the defaults leave out, measured apart.
CORRECTIONS = "corrections"


def _detector_alone(
    scan: Callable[[Sequence[Path], Path], Scan], folder: Path, home: Path
) -> list[dict[str, Any]]:
    """The candidates of the correction detector alone, from a scan of ``folder`` into
    ``home`` with no detector switched off."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"offDetectors": []}), encoding="utf-8")
    return [c for c in scan([folder], home).candidates if c.get("detector") == CORRECTIONS]


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


def readers(corpus: Path, home: Path) -> dict[str, dict[str, Any]]:
    """Per agent folder of ``corpus``: its transcripts, how many the installed readers take as
    that agent's, how many another agent's reader claims, and what that makes of it: ``read``,
    ``partly read`` or ``no reader``."""
    from lessons_core import services
    from lessons_core.scan import discovery

    environ = {**os.environ, "LESSONS_HOME": str(home), "LESSONS_AUTO_SCAN": "0"}
    with services.session(environ) as sess:
        files = discovery.discover(sess.plugins.agents(), environ, [corpus])
    claimed = {relative(path, corpus): agent for agent, path in files}
    out: dict[str, dict[str, Any]] = {}
    for folder in sorted(d for d in corpus.iterdir() if d.is_dir()):
        names = [
            p.relative_to(corpus).as_posix()
            for p in folder.rglob("*")
            if p.is_file() and p.suffix in (".jsonl", ".json") and not p.name.endswith(".meta.json")
        ]
        read = sum(claimed.get(n) == folder.name for n in names)
        other = sum(claimed.get(n) not in (None, folder.name) for n in names)
        status = "read" if read == len(names) else "partly read" if read else "no reader"
        out[folder.name] = {
            "transcripts": len(names),
            "read": read,
            "other": other,
            "status": status,
        }
    return out


# -- report ------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{value * 100:5.1f}%"


def _row(name: str, part: Mapping[str, Any], note: str | None = None) -> str:
    if "expected" in part:
        recall = f"{part['found']:>3}/{part['expected']:<3} {_pct(part['recall'])}"
        lesson = f"{part['lesson_found']:>3}/{part['expected']:<3} {_pct(part['lesson_recall'])}"
    else:
        recall = lesson = " " * 14
    head = f"  {name:<16} {part.get('labels', 0):>6}  "
    if note:
        return head + f"{note} ({part['found']}/{part['expected']} found)"
    return head + (
        f"{recall}   {lesson}   "
        f"{part['on_reusable']:>3}/{part['candidates']:<3} {_pct(part['precision'])}"
        f"   {part['one_off']:>7} {part['unlabelled']:>10}"
    )


HEAD = (
    f"  {'':<16} {'labels':>6}  {'recall':<14}   {'lesson recall':<14}   {'precision':<14}"
    f"   {'one-off':>7} {'unlabelled':>10}"
)


def _table(part: Mapping[str, Any], unread: Mapping[str, str], details: bool) -> list[str]:
    out = [HEAD, _row("all", part), "", "  per agent"]
    out += [
        _row(a, p, "no reader" if unread.get(a) == "no reader" else None)
        for a, p in part["by_agent"].items()
        if p["labels"] or p["candidates"]
    ]
    out += ["", "  per kind (candidates counted under the kind of the event they point at)"]
    out += [_row(k, p) for k, p in part["by_kind"].items()]
    uc = part["user_correction"]
    out += [
        "",
        f"  user corrections on their own: recall {uc['found']}/{uc['expected']} "
        f"{_pct(uc['recall']).strip()}, lesson recall {uc['lesson_found']}/{uc['expected']}, "
        f"precision {uc['on_reusable']}/{uc['candidates']} {_pct(uc['precision']).strip()} "
        f"({uc['labels']} labelled)",
    ]
    cd = part.get("corrections_detector")
    if cd is not None:
        out.append(
            f"  the corrections detector switched on (off by default): recall "
            f"{cd['found']}/{cd['expected']} {_pct(cd['recall']).strip()}, precision "
            f"{cd['on_reusable']}/{cd['candidates']} {_pct(cd['precision']).strip()} "
            f"({cd['one_off']} one-off, {cd['unlabelled']} unlabelled)"
        )
    if details:
        out += ["", "  missed (reusable, fixed, no candidate):"]
        out += [f"    {m['file']}:{m['line']} {m['kind']} {m['call_id']}" for m in part["missed"]]
        out += ["", "  found, but no pointing candidate says the label's lesson:"]
        out += [
            f"    {m['file']}:{m['line']} {m['kind']} — {m['trigger']}"
            for m in part["wrong_lesson"]
        ]
        out += ["", "  candidates not pointing at a reusable event:"]
        for fp in part["false_positives"]:
            why = fp["labelled"][0]["note"] if fp["labelled"] else "not labelled"
            out.append(f"    [{fp['agent']}] {fp['summary']} — {why}")
    return out


def _unread(t2: Mapping[str, Any]) -> dict[str, str]:
    """Agents that no installed reader reads in any evaluated corpus holding their files."""
    seen: dict[str, set[str]] = {}
    for info in t2["corpora"].values():
        for agent, r in (info.get("readers") or {}).items():
            seen.setdefault(agent, set()).add(r["status"])
    return {
        agent: "no reader" if statuses == {"no reader"} else "partly read"
        for agent, statuses in seen.items()
        if statuses != {"read"}
    }


def render(result: Mapping[str, Any], details: bool = False) -> str:
    """The human-readable report: the test side first, then dev, each corpus, the readers."""
    out: list[str] = []
    t2 = result.get("tier2")
    if t2 is None:
        out.append(f"Tier 2: skipped — {result.get('tier2_skipped')}")
    else:
        unread = _unread(t2)
        names = ", ".join(t2["evaluated"])
        for side in SIDES:
            part = t2[side]
            title = (
                "TEST side (the headline: measured, never tuned on)"
                if side == "test"
                else "dev side (the events rules may be tuned on)"
            )
            out += [
                f"Tier 2 (heuristics), {title}, corpora {names}: {part['labels']} labelled "
                f"events, {part['reusable_labels']} reusable, {part['expected']} reusable and "
                "fixed (the recall base).",
                "",
                *_table(part, unread, details),
                "",
            ]
        if result.get("judged"):
            out.append(_judged_line(result["judged"]))
        if result.get("judged_dev"):
            out.append("  dev, not the headline: " + _judged_line(result["judged_dev"]))
        if result.get("judged") or result.get("judged_dev"):
            out.append("")
        out.append("Per corpus (both sides):")
        out.append(HEAD)
        for name, per in t2["by_corpus"].items():
            for side in (*SIDES, "all"):
                out.append(_row(f"{name} {side}", per[side]))
        out += ["", "Corpora:"]
        for name, info in t2["corpora"].items():
            if "skipped" in info:
                out.append(f"  {name}: skipped — {info['skipped']}")
                continue
            read = ", ".join(
                f"{a} {r['read']}/{r['transcripts']}"
                + (f" ({r['status']})" if r["status"] != "read" else "")
                + (f", {r['other']} claimed by another reader" if r["other"] else "")
                for a, r in info["readers"].items()
            )
            out.append(
                f"  {name}: {info['transcripts_scanned']} transcripts scanned, the intake "
                f"refused {info['intake_rejected']} detection(s); labelled agents: "
                f"{', '.join(info['labelled_agents']) or 'none yet'}; read: {read}"
            )
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
    corpora: Path,
    labels_dir: Path = LABELS,
    fixtures: Path = FIXTURES,
    *,
    cli: bool = False,
    scratch: Path | None = None,
    split_file: Path = SPLIT,
    sample_size: int = 0,
    seed: int = 0,
    judged_file: Path = JUDGED,
    sample_side: str = "test",
    judged_dev_file: Path = JUDGED_DEV,
) -> dict[str, Any]:
    """The whole evaluation of the corpora under ``corpora`` (one folder each, named as its
    label folder); ``scratch`` holds the scan homes (a temporary folder if None). A sample of
    ``sample_size`` candidates of ``sample_side`` is left under ``"sample"`` with its side and
    the number of candidates it was drawn from."""
    if sample_side not in SIDES:
        raise ValueError(f"sample side {sample_side!r} is not one of {list(SIDES)}")
    scan = scan_cli if cli else scan_in_process
    result: dict[str, Any] = {"corpora": str(corpora), "fixtures": str(fixtures)}
    with tempfile.TemporaryDirectory(prefix="capture-eval-") as tmp:
        base = scratch or Path(tmp)
        labels = load_labels(labels_dir) if labels_dir.is_dir() else []
        names = list(dict.fromkeys([*CORPUS_NAMES, *(lb.corpus for lb in labels)]))
        info: dict[str, dict[str, Any]] = {}
        candidates: list[dict[str, Any]] = []
        corrections: list[dict[str, Any]] = []
        for name in names:
            folder = corpora / name
            mine = [lb for lb in labels if lb.corpus == name]
            if not folder.is_dir():
                info[name] = {"skipped": f"no corpus at {folder} (pass --corpora DIR)"}
            elif not mine:
                info[name] = {"skipped": f"no labels yet in {labels_dir / name}"}
            else:
                done = scan([folder], base / f"tier2-{name}")
                candidates += done.candidates
                corrections += _detector_alone(scan, folder, base / f"corrections-{name}")
                info[name] = {
                    "dir": str(folder),
                    "transcripts_scanned": done.files,
                    "intake_rejected": done.intake_rejected,
                    "labelled_agents": sorted({lb.agent for lb in mine}),
                    "readers": readers(folder, base / f"readers-{name}"),
                }
        evaluated = [n for n in names if "skipped" not in info[n]]
        if evaluated:
            split = load_split(split_file)
            kept = [lb for lb in labels if lb.corpus in evaluated]
            unknown = unsplit(kept, split)
            if unknown:
                raise ValueError(
                    f"{len(unknown)} labelled transcript(s) not in {split_file.name} "
                    f"(first: {unknown[0]}): run python benchmarks/labels/split.py"
                )
            labelled = {(n, a) for n in evaluated for a in info[n]["labelled_agents"]}

            def where(side: str | None, corpus: str | None = None) -> Callable[[str], bool]:
                def keep(key: str) -> bool:
                    parts = key.split("/", 2)
                    return (
                        len(parts) == 3
                        and (parts[0], parts[1]) in labelled
                        and (corpus is None or parts[0] == corpus)
                        and (side is None or split.side_of(key) == side)
                    )

                return keep

            def part(side: str | None, corpus: str | None = None) -> dict[str, Any]:
                subset = [
                    lb
                    for lb in kept
                    if (corpus is None or lb.corpus == corpus)
                    and (side is None or split.side_of(lb.key) == side)
                ]
                figures = evaluate(subset, candidates, corpora, where=where(side, corpus))
                alone = evaluate(subset, corrections, corpora, where=where(side, corpus))
                figures["corrections_detector"] = {
                    key: alone["user_correction"][key]
                    for key in ("labels", "expected", "found", "recall", "lesson_found")
                } | {
                    key: alone[key]
                    for key in ("candidates", "on_reusable", "one_off", "unlabelled", "precision")
                }
                return figures

            result["tier2"] = {
                "evaluated": evaluated,
                "split_rule": "by session: benchmarks/labels/split.py, split.json",
                "test": part("test"),
                "dev": part("dev"),
                "by_corpus": {
                    n: {"test": part("test", n), "dev": part("dev", n), "all": part(None, n)}
                    for n in evaluated
                },
                "corpora": info,
            }
            result["judged"] = judged(judged_file)
            result["judged_dev"] = judged(judged_dev_file)
            if sample_size:
                keep = where(sample_side)
                result["sample"] = {
                    "side": sample_side,
                    "population": len(on_side(kept, candidates, corpora, keep)),
                    "drawn": sample(kept, candidates, corpora, sample_size, seed, keep),
                }
        else:
            result["tier2"] = None
            result["tier2_skipped"] = "; ".join(f"{n}: {i['skipped']}" for n, i in info.items())
        expectations = load_expectations(fixtures) if fixtures.is_dir() else []
        if expectations:
            done = scan([e.transcript for e in expectations], base / "tier1-home")
            result["tier1"] = evaluate_tier1(expectations, done.candidates, fixtures)
        else:
            result["tier1"] = {"transcripts": 0}
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="folder of the corpora")
    ap.add_argument("--labels", type=Path, default=LABELS, help="folder of <corpus>/*.jsonl")
    ap.add_argument("--split", type=Path, default=SPLIT, help="the committed split.json")
    ap.add_argument("--fixtures", type=Path, default=FIXTURES, help="authored Tier 1 transcripts")
    ap.add_argument("--cli", action="store_true", help="run `lessons` processes, not in-process")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--details", action="store_true", help="list misses and false positives")
    ap.add_argument("--sample", type=int, default=0, metavar="N", help="sample N candidates")
    ap.add_argument(
        "--sample-side", choices=SIDES, default="test", help="the side the sample is drawn from"
    )
    ap.add_argument("--seed", type=int, default=0, help="the sample's random seed")
    ap.add_argument(
        "--sample-out", type=Path, default=Path("capture-sample.json"), help="the sample's file"
    )
    args = ap.parse_args(argv)
    if args.sample < 0:
        ap.error("--sample takes a positive number of candidates")
    from lessons_core.logs import configure_logging

    configure_logging(0)  # the scanner's debug events (each intake refusal) stay quiet
    try:
        result = run(
            args.corpora,
            args.labels,
            args.fixtures,
            cli=args.cli,
            split_file=args.split,
            sample_size=args.sample,
            seed=args.seed,
            sample_side=args.sample_side,
        )
    except (ValueError, OSError, subprocess.CalledProcessError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    drawn = result.pop("sample", None)
    if drawn is not None:
        args.sample_out.write_text(
            json.dumps(
                {"side": drawn["side"], "seed": args.seed, "asked": args.sample}
                | {"population": drawn["population"], "drawn": drawn["drawn"]},
                indent=2,
                ensure_ascii=False,
            )
            + "\n",
            encoding="utf-8",
        )
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(render(result, details=args.details))
    if args.sample and drawn is None:
        print("No sample: no labelled corpus was evaluated.", file=sys.stderr)
    if drawn is not None:
        print(
            f"Wrote {len(drawn['drawn'])} of {drawn['population']} {drawn['side']}-side "
            f"candidate(s) to {args.sample_out}."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
