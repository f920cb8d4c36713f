"""The locked dev/test split of the labelled corpora: which session each transcript belongs to,
and which side each session is on.

Capture is tuned by reading what it missed. A figure measured on the events that informed the
rules says how well the rules fit those events, not how well they capture a mistake they never
saw. So every labelled event goes to **dev** (read it, tune on it) or **test** (measure on it,
never read a miss there to write a rule), and the side is decided by the session, not the event:
two mistakes of one session share a project, a person and often a cause, and would leak one
side's knowledge into the other.

The side of a session is a fixed, seeded hash of its id, chosen once and never changed:
``sha256("lessons-split-v1:" + session id)``, and the session is on the test side when its first
8 hex digits, read as a number and divided by ``2**32``, are below ``0.45``. The threshold was
fixed before any event of the second corpus was labelled, from the raw failure counts alone (no
capture figure): ``0.4`` put 33 % of the raw events on the test side, short of the third the test
side must hold. The session id comes from the transcript itself, so a sub-agent's file and a
second file of one session go with it:

* Claude Code: the first record's ``sessionId`` (a sub-agent's file carries its parent's);
* Codex CLI: ``session_meta.payload.id``;
* Gemini CLI: ``sessionId`` (of the document, of its first line, or of its first log entry);
* OpenCode (an exported session): ``info.parentID`` for a sub-agent's session, else ``info.id``;
* Copilot CLI: the ``session.start`` record's ``data.sessionId``;
* anything else: the file's own path in its corpus (one file, one session).

``split.json`` beside this script holds the result for every transcript of every corpus, so a
label added later already has its side: the sessions and their sides, each file's session, and
``moved_to_dev``, the sessions later moved to dev because a rule was written after reading one
of their test misses (each ``{"session": id, "reason": why}``; such a session no longer measures
anything). Re-running the script keeps that list and reapplies it.

    python benchmarks/labels/split.py [--corpora DIR] [--check]

``--corpora`` is the folder holding one folder per corpus (``shared/corpus`` beside the
checkout); ``--check`` writes nothing and exits 1 when ``split.json`` differs from what the
corpora give.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPLIT = HERE / "split.json"
CORPORA = HERE.parents[2] / "shared" / "corpus"
#: The corpora split, in the order they are reported.
NAMES = ("real", "real2")
SEED = "lessons-split-v1:"
TEST_SHARE = 0.45
RULE = (
    f'test when int(sha256("{SEED}" + session id)[:8], 16) / 2**32 < {TEST_SHARE}; '
    "session id from the transcript (see benchmarks/labels/split.py), else the file's path"
)
SIDES = ("dev", "test")


def side(session: str) -> str:
    """``"test"`` or ``"dev"`` for a session id: the fixed rule, never to be changed."""
    digest = hashlib.sha256((SEED + session).encode("utf-8")).hexdigest()
    return "test" if int(digest[:8], 16) / 2**32 < TEST_SHARE else "dev"


# -- session ids -------------------------------------------------------------------------------


def _records(path: Path) -> Iterator[Any]:
    """The JSON values of a transcript: the whole document when it is one, else each line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for raw in text.splitlines():
        try:
            yield json.loads(raw)
        except ValueError:
            continue


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _session_in(agent: str, record: Any) -> str | None:
    """The session id one record names, by the agent's own format."""
    if isinstance(record, list):  # a Gemini log: a list of entries
        return next((s for s in (_session_in(agent, r) for r in record) if s), None)
    if not isinstance(record, dict):
        return None
    if agent in ("claude", "gemini"):
        return _text(record.get("sessionId"))
    if agent == "codex":
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, dict):
            return _text(payload.get("id"))
        return None
    if agent == "opencode":
        info = record.get("info")
        if isinstance(info, dict) and "messages" in record:
            return _text(info.get("parentID")) or _text(info.get("id"))
        return None
    if agent == "copilot":
        data = record.get("data")
        if record.get("type") == "session.start" and isinstance(data, dict):
            return _text(data.get("sessionId"))
        return None
    return None


def session_of(path: Path, agent: str) -> str | None:
    """The session id ``path`` names itself (``None`` when it names none)."""
    for record in _records(path):
        found = _session_in(agent, record)
        if found:
            return found
    return None


def transcripts(corpus: Path) -> list[Path]:
    """Every transcript file of a corpus: JSON or JSON Lines under an agent's folder, without
    Claude's sub-agent ``.meta.json`` sidecars."""
    return sorted(
        path
        for path in corpus.glob("*/**/*")
        if path.is_file()
        and path.suffix in (".jsonl", ".json")
        and not path.name.endswith(".meta.json")
    )


# -- the split ---------------------------------------------------------------------------------


def build(
    corpora: Mapping[str, Path], moved_to_dev: Iterable[Mapping[str, str]] = ()
) -> dict[str, Any]:
    """The split of every transcript of ``corpora`` (name → folder), with ``moved_to_dev``
    applied: those sessions are on the dev side whatever their hash says."""
    moved = [{"session": m["session"], "reason": m["reason"]} for m in moved_to_dev]
    files: dict[str, str] = {}
    for name, folder in corpora.items():
        for path in transcripts(folder):
            rel = path.relative_to(folder).as_posix()
            agent = rel.split("/", 1)[0]
            files[f"{name}/{rel}"] = session_of(path, agent) or f"{name}/{rel}"
    dev = {m["session"] for m in moved}
    sessions = {s: "dev" if s in dev else side(s) for s in sorted(set(files.values()))}
    return {"rule": RULE, "sessions": sessions, "files": files, "moved_to_dev": moved}


def load(path: Path = SPLIT) -> dict[str, Any]:
    """The committed split; an error that says how to make it when it is missing or broken."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"no split at {path}: run python benchmarks/labels/split.py to write it"
        ) from None
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc}); restore it from version control") from None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("sessions"), dict)
        and isinstance(data.get("files"), dict)
        and isinstance(data.get("moved_to_dev"), list)
        and set(data["sessions"].values()) <= set(SIDES)
    ):
        raise ValueError(f"{path}: not a split (sessions, files, moved_to_dev); restore it")
    return data


def dump(split: Mapping[str, Any]) -> str:
    """The file's text: stable (sorted keys), one entry a line, so a change reads as a diff."""
    return json.dumps(split, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", type=Path, default=CORPORA, help="folder of the corpora")
    ap.add_argument("--out", type=Path, default=SPLIT, help="the split file")
    ap.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    args = ap.parse_args(argv)
    corpora = {n: args.corpora / n for n in NAMES if (args.corpora / n).is_dir()}
    if not corpora:
        print(f"Error: no corpus ({', '.join(NAMES)}) under {args.corpora}", file=sys.stderr)
        return 1
    moved = load(args.out)["moved_to_dev"] if args.out.is_file() else []
    text = dump(build(corpora, moved))
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print("split.json is up to date" if same else f"{args.out} differs: rerun without --check")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
