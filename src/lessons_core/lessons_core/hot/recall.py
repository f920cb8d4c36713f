"""Recall: bring back the lesson that fixes a failure, or that fits a new prompt (stdlib only).

Trigger patterns only fire for calls someone foresaw. When a call fails in a way a stored lesson
describes, or the user asks for something a lesson is about, the store itself is searched:

1. **exact fingerprint** — the failure's informative lines are normalized (:mod:`errnorm`) and
   hashed; the manifest's ``errorFingerprints`` maps such hashes to the lessons whose stored
   error lines produce the same ones. No database is touched for this step.
2. **full-text search** — the distinctive words of those lines (or of the prompt) become a
   quoted OR-query for the store's FTS5 index (BM25 ranking, summary and error lines weighted
   up). The store is opened read-only (``mode=ro`` URI) with a short busy timeout. A match must
   also share enough distinct words with the lesson to count: BM25 always ranks *something*
   first, and a lesson that merely shares the word "module" is noise.

Delivered lessons are claimed once per session (``recall:<id>``, beside the pre-tool claims);
one already given as a hint in this session is not repeated. The text is bounded by
``recallBudgetBytes`` (at most 2 KB). Interrupts, permission denials, user rejections and
failures of our own commands are ignored. A missing, locked or corrupt store fails open: the
fingerprint hits are still delivered and the reason goes to the opt-in log.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# SQL text is built from this module's constants and "?" placeholders only.
# ruff: noqa: PTH110, S608

import os
import re

from lessons_core.hot import errnorm, paths
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot.runner import new_decision, trailer

MAX_BUDGET = 2048
MAX_LESSONS = 3
BUSY_TIMEOUT_SECONDS = 0.05
FTS_ROWS = 8
ITEM_MAX_BYTES = 900
MIN_PROMPT_CHARS = 20
#: Distinct shared words a failure needs with a lesson (fewer if they are most of the query).
FAILURE_MIN_SHARED = 3
FAILURE_MIN_SHARED_SHORT = 2
#: A prompt must share this many words with a lesson, covering this share of its summary.
PROMPT_MIN_SHARED = 3
PROMPT_SUMMARY_SHARE = 0.5

FAILURE_HEADER = "Lessons from earlier sessions that match this error:"
PROMPT_HEADER = "Lessons from earlier sessions that may apply to this request:"

#: Our own commands: their failures are not the agent's mistakes to recall lessons for.
_OWN_COMMAND = re.compile(
    r"(?:^|[\s;&|/(])(?:lessons(?:-(?:claude|codex|gemini)-hook)?|python3? -m lessons_\w+)"
    r"(?:\s|$)"
)

# bm25() weights per column: lesson_id (unindexed), summary, mistake, remediation, error_lines.
_FAILURE_WEIGHTS = "0.0, 2.0, 1.0, 0.5, 3.0"
_PROMPT_WEIGHTS = "0.0, 3.0, 1.5, 1.0, 0.5"


def handle(event, manifest, state, environ, stats):
    """The runner's handler for ``post_failure`` and ``prompt`` events."""
    kind = event.get("event")
    if kind == "post_failure":
        return on_failure(event, manifest, state, environ, stats)
    if kind == "prompt":
        return on_prompt(event, manifest, state, environ, stats)
    return new_decision()


# -- failure ------------------------------------------------------------------------------------


def on_failure(event, manifest, state, environ, stats):
    """Lessons whose error lines or text match the failure output."""
    error = event.get("error")
    if not isinstance(error, str) or not error.strip() or event.get("interrupted"):
        return new_decision()
    if errnorm.not_a_mistake(error) or own_command(event.get("command")):
        stats["recall"] = "ignored"
        return new_decision()
    lines = errnorm.key_lines(error)
    if not lines:
        return new_decision()
    fps = errnorm.fingerprints(lines)
    index = manifest.get("errorFingerprints") or {}
    exact = []
    for fp in fps:
        for lesson_id in index.get(fp, ()):
            if lesson_id not in exact:
                exact.append(lesson_id)
    query_words = errnorm.words(" ".join(lines))
    found = search(
        environ,
        manifest,
        query_words,
        exact,
        _FAILURE_WEIGHTS,
        lambda shared, row: _failure_accepts(shared, query_words),
        stats,
    )
    stats["recall_exact"] = len(exact)
    return _deliver(FAILURE_HEADER, found, manifest, state, stats)


def _failure_accepts(shared, query_words):
    if len(shared) >= FAILURE_MIN_SHARED:
        return True
    return len(shared) >= FAILURE_MIN_SHARED_SHORT and len(shared) * 2 >= len(query_words)


def own_command(command):
    """True for a shell command that runs ``lessons`` or one of our hook commands."""
    return isinstance(command, str) and bool(_OWN_COMMAND.search(command[:2000]))


# -- prompt -------------------------------------------------------------------------------------


def on_prompt(event, manifest, state, environ, stats):
    """Lessons that fit the user's new prompt; silent unless the match is clear."""
    prompt = event.get("prompt")
    if not isinstance(prompt, str):
        return new_decision()
    text = prompt.strip()
    if len(text) < MIN_PROMPT_CHARS or text.startswith("/"):
        return new_decision()
    query_words = errnorm.words(errnorm.normalize_line(errnorm.prepare(text[:4000])), limit=32)
    if len(query_words) < PROMPT_MIN_SHARED:
        return new_decision()

    def accepts(shared, row):
        if len(shared) < PROMPT_MIN_SHARED:
            return False
        summary = {errnorm.stem(w) for w in errnorm.words(row[2] or "", limit=64)}
        if not summary:
            return False
        return len(summary & shared) >= PROMPT_SUMMARY_SHARE * len(summary)

    found = search(environ, manifest, query_words, [], _PROMPT_WEIGHTS, accepts, stats)
    return _deliver(PROMPT_HEADER, found, manifest, state, stats)


# -- the store ----------------------------------------------------------------------------------


def search(environ, manifest, query_words, exact, weights, accepts, stats):
    """``[(id, summary, remediation)]``: the exact hits first, then accepted FTS matches.

    Never raises: a store problem is noted in ``stats["recall_error"]`` and the exact hits are
    returned with the manifest's texts.
    """
    rows = {}
    ranked = []
    conn = None
    try:
        conn = connect(environ)
        if exact:
            marks = ", ".join("?" for _ in exact)
            for row in conn.execute(
                "SELECT id, slug, summary, remediation, mistake, error_lines FROM lessons "
                f"WHERE id IN ({marks}) AND status = 'active'",
                exact,
            ):
                rows[row[0]] = row
        if len(query_words) >= 2:
            floor = manifest_mod.config_value(manifest, "minConfidence", 0.0)
            query = " OR ".join('"' + w + '"' for w in query_words)
            qstems = {errnorm.stem(w) for w in query_words}
            for row in conn.execute(
                "SELECT l.id, l.slug, l.summary, l.remediation, l.mistake, l.error_lines "
                "FROM lessons_fts f JOIN lessons l ON l.id = f.lesson_id "
                "WHERE lessons_fts MATCH ? AND l.status = 'active' AND l.confidence >= ? "
                f"ORDER BY bm25(lessons_fts, {weights}) LIMIT ?",
                (query, floor, FTS_ROWS),
            ):
                if row[0] in rows:
                    continue
                text = " ".join(part or "" for part in (row[2], row[4], row[5]))
                lesson_stems = {errnorm.stem(w) for w in errnorm.words(text, limit=400)}
                if accepts(qstems & lesson_stems, row):
                    rows[row[0]] = row
                    ranked.append(row[0])
    except Exception as exc:  # the hook fails open on any store problem
        stats["recall_error"] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if conn is not None:
            conn.close()
    out = []
    lessons = manifest.get("lessons", {})
    for lesson_id in exact:
        row = rows.get(lesson_id)
        if row is not None:
            out.append((lesson_id, row[2] or row[4] or "", row[3] or ""))
        elif lesson_id in lessons and "recall_error" in stats:
            out.append((lesson_id, lessons[lesson_id].get("short", ""), ""))
    out.extend((i, rows[i][2] or rows[i][4] or "", rows[i][3] or "") for i in ranked)
    return out


def connect(environ):
    """A read-only connection to the store; raises when it is missing or unreadable."""
    import sqlite3  # here: only recall pays for it

    path = paths.store_path(environ)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no store at {path}")
    uri = "file:" + _uri_path(path) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    except Exception:
        conn.close()
        raise
    return conn


def _uri_path(path):
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


# -- delivery -----------------------------------------------------------------------------------


def _deliver(header, found, manifest, state, stats):
    decision = new_decision()
    stats["recall_found"] = len(found)
    if not found:
        return decision
    session = state.get() if state is not None else None
    if state is not None and session is None:
        return decision  # an untrusted state dir: nothing that needs dedup
    fresh = []
    for lesson_id, summary, fix in found:
        if session is not None and (session.has("recall:" + lesson_id) or session.has(lesson_id)):
            continue
        fresh.append((lesson_id, summary, fix))
    if not fresh:
        return decision
    from lessons_core.hot import select

    budget = min(
        int(manifest_mod.config_value(manifest, "recallBudgetBytes", MAX_BUDGET)), MAX_BUDGET
    )
    items = [(i, item_text(summary, fix), short_text(summary)) for i, summary, fix in fresh]
    used = len(header.encode("utf-8"))
    chosen, dropped = select.fit_after(items, budget, used, MAX_LESSONS)
    if session is not None:
        kept = []
        for item in chosen:
            if session.claim("recall:" + item[0]):
                kept.append(item)
            else:
                dropped.append({"id": item[0], "why": "seen"})
        chosen = kept
    decision["delivered"] = [i for i, _, _ in chosen]
    decision["dropped"] = dropped
    if chosen:
        decision["context"] = select.SEPARATOR.join([header] + [t for _, t, _ in chosen])
        stats["recalled"] = list(decision["delivered"])
    if chosen or dropped:
        decision["trailer"] = trailer(decision["delivered"], dropped)
    return decision


def item_text(summary, fix):
    """``- summary`` and its fix, cut to ``ITEM_MAX_BYTES``."""
    text = "- " + " ".join(summary.split())
    if fix.strip():
        text += "\n  Fix: " + fix.strip()
    return _cut(text, ITEM_MAX_BYTES)


def short_text(summary):
    return _cut("- " + " ".join(summary.split()), 200)


def _cut(text, limit):
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore").rstrip() + "…"
