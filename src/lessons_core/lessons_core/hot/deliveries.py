"""The delivery log: one JSON line per lesson delivered, appended by the hook (stdlib only).

The outcome loop needs to know which lesson reached which session, when, how, and for which
call. Writing that to SQLite from the hook would cost a write transaction (and possibly a wait
on a scan's lock) on every delivery; appending one line to a file opened ``O_APPEND`` costs a
single ``write``, and concurrent hooks' lines never interleave (each is far below the size the
kernel writes atomically for appends to a local file). ``lessons scan`` and ``lessons stats``
ingest the log into the store later (:mod:`lessons_core.outcomes`).

The log is ``deliveries.jsonl`` in ``LESSONS_HOME``. A line holds the lesson id, the session,
the agent, the hook event, the kind of delivery (``hint``, ``guard``, ``nudge``, ``session``,
``recall``), the time, the tool call's id and fingerprint (so the call can be found again in the
transcript) and the transcript path when the agent sent one. Nothing in it is the user's text.
Recording never raises: a lesson delivered but not logged is better than a broken hook. The log
is appended to only if it is a regular file of ours with a single name (never through a link):
see :mod:`lessons_core.hot.safefile`.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH103, PTH118, PTH120

import os
import time

# Not ``json`` or ``re``: each costs a delivering hook call milliseconds (hence fastjson).
from lessons_core.hot import fastjson, paths, safefile
from lessons_core.hot.digest import sha256

LOG_NAME = "deliveries.jsonl"


def log_path(environ=None):
    return os.path.join(paths.lessons_home(environ), LOG_NAME)


def call_fingerprint(event):
    """16 hex digits naming a tool call by its tool, command and paths (``None`` for no call)."""
    tool = event.get("tool")
    if not tool:
        return None
    parts = [str(tool), event.get("command") or ""]
    parts.extend(sorted(p for p in event.get("paths") or () if isinstance(p, str)))
    return sha256("\x1f".join(parts).encode("utf-8", "replace")).hexdigest()[:16]


def kind_of(lesson_id, event, decision, manifest, recalled):
    """How a lesson was delivered: ``recall``, ``session``, ``guard``, ``nudge`` or ``hint``."""
    if lesson_id in recalled:
        return "recall"
    name = event.get("event")
    if name in ("session_start", "subagent_start"):
        return "session"
    if decision.get("deny"):
        lesson = manifest.get("lessons", {}).get(lesson_id) or {}
        return "nudge" if lesson.get("type") == "nudge" else "guard"
    return "hint"


def lines_for(event, decision, manifest, stats=None, now=None):
    """The log lines (dicts) for one decision: one per delivered lesson."""
    delivered = decision.get("delivered") or []
    if not delivered:
        return []
    recalled = set((stats or {}).get("recalled") or ())
    stamp = time.time() if now is None else now
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp % 1 * 1e6):06d}Z"
    common = {
        "session": event.get("session_id") or "",
        "agent": event.get("agent") or "",
        "event": event.get("event") or "",
        "at": at,
    }
    call = call_fingerprint(event)
    if call:
        common["call"] = call
    if event.get("call_id"):
        common["callId"] = event["call_id"]
    if event.get("transcript_path"):
        common["transcript"] = event["transcript_path"]
    if event.get("cwd"):
        common["cwd"] = event["cwd"]
    out = []
    for lesson_id in delivered:
        line = {"id": lesson_id, "kind": kind_of(lesson_id, event, decision, manifest, recalled)}
        line.update(common)
        out.append(line)
    return out


def record(event, decision, manifest, environ=None, stats=None):
    """Append the decision's deliveries to the log; never raises, returns the lines written."""
    try:
        lines = lines_for(event, decision, manifest, stats)
        if not lines:
            return 0
        data = "".join(fastjson.dumps(line) + "\n" for line in lines)
        path = log_path(environ)
        raw = data.encode("utf-8", "replace")
        try:
            safefile.append(path, raw)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            safefile.append(path, raw)
        return len(lines)
    except Exception as exc:  # recording must never break the hook
        if stats is not None:
            stats["delivery_log_error"] = f"{type(exc).__name__}: {exc}"[:200]
        return 0
