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
# ruff: noqa: PTH116, PTH118, S608

import os

from lessons_core.hot import errnorm, paths, safefile
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot.runner import new_decision, trailer

MAX_BUDGET = 2048
MAX_LESSONS = 3
BUSY_TIMEOUT_SECONDS = 0.05
FTS_ROWS = 8
#: Query-word selection: how many words are looked up, and how many documents they may touch.
MAX_TERMS_CHECKED = 16
TERM_DOC_CAP = 1200
MIN_TERMS = 2
ITEM_MAX_BYTES = 900
MIN_PROMPT_CHARS = 20
#: A failure must contain this share of the words of one of a lesson's error lines, or of its
#: summary, and at least MIN_COVERED_WORDS of them.
ERROR_LINE_SHARE = 0.6
SUMMARY_SHARE = 0.6
MIN_COVERED_WORDS = 3
#: A prompt must share this many words with a lesson, covering this share of its summary.
PROMPT_MIN_SHARED = 3
PROMPT_SUMMARY_SHARE = 0.5

FAILURE_HEADER = "Lessons from earlier sessions that match this error:"
PROMPT_HEADER = "Lessons from earlier sessions that may apply to this request:"

# bm25() weights per column: lesson_id (unindexed), summary, mistake, remediation, error_lines.
_FAILURE_WEIGHTS = "0.0, 2.0, 1.0, 0.5, 3.0"
_PROMPT_WEIGHTS = "0.0, 3.0, 1.5, 1.0, 0.5"


def handle(event, manifest, state, environ, stats):
    """The runner's handler for ``post_failure`` and ``prompt`` events."""
    kind = event.get("event")
    if not errnorm.has_programs():  # loaded with the index, not with the full manifest
        load_programs(environ)
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
    joined = " ".join(lines)
    query_words = errnorm.words(joined)
    failure_stems = {errnorm.stem(w) for w in errnorm.words(joined, limit=400)}
    found = search(
        environ,
        manifest,
        query_words,
        exact,
        _FAILURE_WEIGHTS,
        lambda shared, row: failure_accepts(failure_stems, row),
        stats,
    )
    stats["recall_exact"] = len(exact)
    return _deliver(FAILURE_HEADER, found, manifest, state, stats)


def failure_accepts(failure_stems, row):
    """Does a failure's text clearly describe this lesson's mistake?

    BM25 ranks *something* first for any error, so a candidate must also be covered by the
    failure: most words of one of its stored error lines appear in the failure output, or,
    for a lesson without error lines that match, most words of its summary do. Coverage is
    measured on the lesson's side, so a long error output sharing a few common words
    ("file", "read", "command") with a lesson does not pass.
    """
    for line in _error_lines(row[5]):
        if covered(errnorm.words(errnorm.normalize_line(line), limit=64), failure_stems):
            return True
    return covered(errnorm.words(row[2] or "", limit=64), failure_stems, SUMMARY_SHARE)


def covered(words, stems, share=ERROR_LINE_SHARE):
    """True when at least ``share`` of ``words`` (three at least) occur among ``stems``."""
    mine = {errnorm.stem(w) for w in words}
    if len(mine) < MIN_COVERED_WORDS:
        return False
    hits = len(mine & stems)
    return hits >= MIN_COVERED_WORDS and hits >= share * len(mine)


def _error_lines(text):
    """A lesson's stored error lines (a JSON list in the row) as strings."""
    if not text or text == "[]":
        return []
    from lessons_core.hot import fastjson

    try:
        value = fastjson.loads(text)
    except ValueError:
        return []
    return [line for line in value if isinstance(line, str)] if isinstance(value, list) else []


def own_command(command):
    """True for a shell command that runs ``lessons`` or one of our hook commands."""
    return isinstance(command, str) and bool(errnorm.rx("own_command").search(command[:2000]))


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


# -- the recall index ---------------------------------------------------------------------------

INDEX_NAME = "recall-index.txt"
INDEX_TYPE = "lessons-recall-index"
PROGRAMS_NAME = "recall-programs.marshal"


def programs_key():
    """Which interpreters may use the compiled programs (marshal and ``_sre`` are per version)."""
    import marshal
    import sys

    return f"py{sys.version_info[0]}.{sys.version_info[1]} m{marshal.version}"


def load_programs(environ=None):
    """Hand the normalizer its build-time regex programs (silently nothing when unusable)."""
    import marshal

    path = os.path.join(paths.lessons_home(environ), PROGRAMS_NAME)
    try:
        # Only a regular file of ours, not writable by others: marshal must not read another's.
        raw = safefile.read(path, manifest_mod.MAX_MANIFEST_BYTES)
        data = marshal.loads(raw)  # noqa: S302 - our own file, written by the compiler
    except (OSError, ValueError, EOFError, TypeError):
        return False
    if not isinstance(data, dict) or data.get("python") != programs_key():
        return False
    errnorm.use_programs(data.get("programs"))
    return True


def index_text(manifest):
    """The recall index the compiler writes beside the manifest, as text.

    A manifest of 10,000 lessons is megabytes of JSON, and parsing it would cost recall more
    than the search itself. Recall needs only the configuration and the error fingerprints, so
    the index is one JSON header line (type, version, store revision, config) followed by one
    ``<fingerprint> <id>,<id>…`` line per fingerprint, sorted. The hook never parses those
    lines: it searches the bytes for the one fingerprint it wants.
    """
    import json

    header = {
        "type": INDEX_TYPE,
        "version": 1,
        "storeRevision": manifest.get("storeRevision"),
        "config": manifest.get("config", {}),
    }
    if manifest.get("failureHints"):
        header["failureHints"] = manifest["failureHints"]
    lines = [json.dumps(header, ensure_ascii=False, separators=(",", ":"))]
    fps = manifest.get("errorFingerprints") or {}
    lines.extend(f"{fp} {','.join(ids)}" for fp, ids in sorted(fps.items()) if ids)
    return "\n".join(lines) + "\n"


class FingerprintIndex:
    """``get(fingerprint)`` → lesson ids, by a substring search in the index's bytes."""

    def __init__(self, data, start):
        self.data = data
        self.start = start

    def get(self, fp, default=()):
        key = b"\n" + fp.encode("ascii", "replace") + b" "
        at = self.data.find(key, self.start - 1)
        if at < 0:
            return default
        begin = at + len(key)
        end = self.data.find(b"\n", begin)
        ids = self.data[begin : end if end >= 0 else len(self.data)].decode("utf-8", "replace")
        return [i for i in ids.split(",") if i]

    def __bool__(self):
        return len(self.data) > self.start


def load_index(environ=None):
    """A manifest-shaped dict for recall from the index, or the full manifest without one."""
    from lessons_core.hot import fastjson

    load_programs(environ)
    path = os.path.join(paths.lessons_home(environ), INDEX_NAME)
    try:
        data = safefile.read(path, manifest_mod.MAX_MANIFEST_BYTES)
        end = data.find(b"\n")
        header = fastjson.loads(data[: end if end >= 0 else len(data)])
    except (OSError, ValueError):
        return manifest_mod.load(environ=environ)
    if not (
        isinstance(header, dict)
        and header.get("type") == INDEX_TYPE
        and header.get("version") == 1
        and isinstance(header.get("config"), dict)
    ):
        return manifest_mod.load(environ=environ)
    return {
        "type": INDEX_TYPE,
        "storeRevision": header.get("storeRevision"),
        "config": header["config"],
        "failureHints": header.get("failureHints", 0),
        "errorFingerprints": FingerprintIndex(data, end + 1 if end >= 0 else len(data)),
        "lessons": {},
        "byTool": {},
        "anyTool": [],
        "session": [],
    }


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
        terms = pick_terms(conn, query_words) if len(query_words) >= 2 else []
        stats["recall_terms"] = len(terms)
        if terms:
            floor = manifest_mod.config_value(manifest, "minConfidence", 0.0)
            query = " OR ".join('"' + w + '"' for w in terms)
            qstems = {errnorm.stem(w) for w in query_words}
            # Rank inside the index first and join only the best few: joining every match
            # before sorting costs several times more on a large store.
            for row in conn.execute(
                "SELECT l.id, l.slug, l.summary, l.remediation, l.mistake, l.error_lines "
                "FROM (SELECT lesson_id, rank FROM lessons_fts WHERE lessons_fts MATCH ? "
                f"AND rank MATCH 'bm25({weights})' ORDER BY rank LIMIT ?) f "
                "JOIN lessons l ON l.id = f.lesson_id "
                "WHERE l.status = 'active' AND l.confidence >= ? ORDER BY f.rank",
                (query, FTS_ROWS * 2, floor),
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
    if exact and "recall_error" in stats and manifest.get("type") == INDEX_TYPE:
        lessons = manifest_mod.load(environ=environ).get("lessons", {})  # texts for the hits
    for lesson_id in exact:
        row = rows.get(lesson_id)
        if row is not None:
            out.append((lesson_id, row[2] or row[4] or "", row[3] or ""))
        elif lesson_id in lessons and "recall_error" in stats:
            out.append((lesson_id, lessons[lesson_id].get("short", ""), ""))
    out.extend((i, rows[i][2] or rows[i][4] or "", rows[i][3] or "") for i in ranked)
    return out


def pick_terms(conn, words):
    """The rarest of ``words`` in the index, as many as keep the search small.

    BM25 weighs a word by its rarity, so the rare words decide the ranking anyway; a word found
    in thousands of lessons adds little but makes the query score every one of them. Words are
    taken rarest first while the documents they touch stay under ``TERM_DOC_CAP`` (at least
    ``MIN_TERMS`` are kept); words found nowhere are dropped.
    """
    counted = []
    for word in words[:MAX_TERMS_CHECKED]:
        row = conn.execute(
            "SELECT count(*) FROM lessons_fts WHERE lessons_fts MATCH ?", ('"' + word + '"',)
        ).fetchone()
        if row and row[0]:
            counted.append((row[0], word))
    counted.sort()
    chosen: list[str] = []
    total = 0
    for docs, word in counted:
        if len(chosen) >= MIN_TERMS and total + docs > TERM_DOC_CAP:
            break
        chosen.append(word)
        total += docs
    return chosen


def connect(environ):
    """A read-only connection to the store; raises when it is missing or unreadable."""
    try:
        # The C module alone: ``sqlite3`` also imports datetime and registers adapters that
        # recall never uses, which costs the hook process milliseconds.
        sqlite3 = __import__("_sqlite3")
    except ImportError:  # pragma: no cover - other implementations
        sqlite3 = __import__("sqlite3")

    path = paths.store_path(environ)
    # A regular file of ours (a link to one is fine: the store is only read); a FIFO or a
    # device there would stall SQLite's first read, another user's file is not our store.
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no store at {path}") from None
    safefile.check(st, path)
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
