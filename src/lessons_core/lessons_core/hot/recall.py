"""Recall: bring back the lesson that fixes a failure, or that fits a new prompt (stdlib only).

Trigger patterns only fire for calls someone foresaw. When a call fails in a way a stored lesson
describes, or the user asks for something a lesson is about, the lessons themselves are searched,
through the recall index the store publishes at every build (``recall-index.bin``, written by
:mod:`lessons_core.store.recall_index`; the hook never opens the store, whichever it is):

1. **exact fingerprint** — the failure's informative lines are normalized (:mod:`errnorm`) and
   hashed; the index maps such hashes to the lessons whose stored error lines produce the same
   ones.
2. **full-text search** — the distinctive words of those lines (or of the prompt), stemmed as
   the SQLite store's FTS5 index stems them (:mod:`porter`), are ranked by BM25 exactly as
   FTS5's ``bm25()`` ranks them (summary and error lines weighted up), from scores the store
   computed ahead. A match must also share enough distinct words with the lesson to count: BM25
   always ranks *something* first, and a lesson that merely shares the word "module" is noise.

Lessons stored with the same error line are ways out of one error, and the failure gets the
best of them, not all (:func:`one_per_line`). Delivered lessons are claimed once per session
(``recall:<id>``, beside the pre-tool claims); one already given as a hint in this session is
not repeated. The text is bounded by ``recallBudgetBytes`` (at most 2 KB). Interrupts,
permission denials, user rejections and failures of our own commands are ignored. A missing,
damaged or stale index (built for another store revision than the manifest's stamp) is not
read: recall fails open, the manifest's fingerprint hits are still delivered with their short
texts, and the reason goes to the opt-in log.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH118

import os
import sys

from lessons_core.hot import errnorm, paths, porter, safefile
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot.decision import new_decision, trailer
from lessons_core.hot.digest import sha256

MAX_BUDGET = 2048
MAX_LESSONS = 3
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
#: The claim of a lesson's one return at a failure (see :func:`_deliver`).
AGAIN = "again:"
PROMPT_HEADER = "Lessons from earlier sessions that may apply to this request:"

# bm25() weights per column: lesson_id (unindexed), summary, mistake, remediation, error_lines.
# The recall index holds each word's scores for these two sets, computed when it is published.
FAILURE_WEIGHTS = _FAILURE_WEIGHTS = "0.0, 2.0, 1.0, 0.5, 3.0"
PROMPT_WEIGHTS = _PROMPT_WEIGHTS = "0.0, 3.0, 1.5, 1.0, 0.5"


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
    found = failure_found(event, manifest, environ, stats)
    if found is None:
        return new_decision()
    return deliver_failure(found, manifest, state, stats)


def deliver_failure(found, manifest, state, stats):
    """Deliver what recall ``found`` for one or more failures, as at a failure's own hook."""
    return _deliver(FAILURE_HEADER, found, manifest, state, stats, again=True)


def failure_found(event, manifest, environ, stats):
    """``[(id, summary, remediation)]`` matching the failure of ``event``; ``None`` when its
    text is no mistake to recall for (none, an interrupt, a decision, our own command)."""
    error = event.get("error")
    if not isinstance(error, str) or not error.strip() or event.get("interrupted"):
        return None
    if errnorm.not_a_mistake(error) or own_command(event.get("command")):
        stats["recall"] = "ignored"
        return None
    lines = errnorm.key_lines(error)
    if not lines:
        return None
    index = manifest.get("errorFingerprints") or {}
    # lesson id -> the fingerprints of the failure's lines it was stored with
    by_line: dict[str, set[str]] = {}
    for fp in errnorm.fingerprints(lines):
        for lesson_id in index.get(fp, ()):
            by_line.setdefault(lesson_id, set()).add(fp)
    exact = list(by_line)
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
        answers=lambda row: [
            *(mine for mine in row[9] if covered_stems(mine, failure_stems)),
            *by_line.get(row[0], ()),
        ],
        text=error,
        event=event,
    )
    stats["recall_exact"] = len(exact)
    return found


def failure_accepts(failure_stems, row):
    """Does a failure's text clearly describe this lesson's mistake?

    BM25 ranks *something* first for any error, so a candidate must also be covered by the
    failure: most words of one of its stored error lines appear in the failure output, or,
    for a lesson without error lines that match, most words of its summary do. Coverage is
    measured on the lesson's side, so a long error output sharing a few common words
    ("file", "read", "command") with a lesson does not pass. The stems of the lesson's lines
    and summary come with its record (``row[9]``, ``row[10]``), computed at publication.
    """
    for mine in row[9]:
        if covered_stems(mine, failure_stems):
            return True
    return covered_stems(row[10], failure_stems, SUMMARY_SHARE)


def covered(words, stems, share=ERROR_LINE_SHARE):
    """True when at least ``share`` of ``words`` (three at least) occur among ``stems``."""
    return covered_stems({errnorm.stem(w) for w in words}, stems, share)


def covered_stems(mine, stems, share=ERROR_LINE_SHARE):
    """True when at least ``share`` of the stems ``mine`` (three at least) are among ``stems``."""
    if len(mine) < MIN_COVERED_WORDS:
        return False
    hits = len(mine & stems)
    return hits >= MIN_COVERED_WORDS and hits >= share * len(mine)


def stored_error_lines(text):
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
        summary = row[10]  # the summary's stems, computed at publication
        if not summary:
            return False
        return len(summary & shared) >= PROMPT_SUMMARY_SHARE * len(summary)

    found = search(environ, manifest, query_words, [], _PROMPT_WEIGHTS, accepts, stats, event=event)
    return _deliver(PROMPT_HEADER, found, manifest, state, stats)


# -- the recall index ---------------------------------------------------------------------------

#: The file the store publishes at every build (:mod:`lessons_core.store.recall_index` writes it).
INDEX_NAME = "recall-index.bin"
INDEX_TYPE = "lessons-recall-index"
INDEX_VERSION = 3
MAGIC = b"LESSONS-RECALL\x00\x03"
PROGRAMS_NAME = "recall-programs.marshal"
#: The first read: the magic, the header length and, nearly always, the whole header.
HEAD_READ = 16 * 1024
MAX_HEADER_BYTES = 1 << 20
_SLOT_MASK = (1 << 24) - 1
#: Up to this many look-ups in a common word's postings are made by bisection through reads...
_FEW_LOOKUPS = 32
#: ... down to a range of this many document numbers (a page), read at once.
_PAGE_NUMBERS = 1024


def programs_key():
    """Which interpreters may use the compiled programs (marshal and ``_sre`` are per version)."""
    import marshal

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


class UnusableIndex(ValueError):
    """The recall index is missing a part, of another build, or of another machine."""


def _pread(fd, length, offset):
    """``os.pread``, or a seek and a read where there is none (Windows)."""
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


_PREAD = getattr(os, "pread", _pread)


def _bucket(key, buckets):
    return int.from_bytes(sha256(key.encode("utf-8", "replace")).digest()[:4], "little") % buckets


class RecallIndex:
    """The published recall index, read a few bytes at a time (``os.pread``), never whole.

    A call looks up at most a few dozen words, fingerprints and ids, and reads the postings of
    the rare words it keeps, the document numbers and best postings of the most common one, and
    the records of the best dozen lessons: at 100,000 lessons some tens of kilobytes of a file
    of a hundred megabytes, the same few dozen postings turned into Python objects as at 10,000.
    Every read is bounds-checked, so a damaged file raises (and recall fails open) instead of
    answering with wrong bytes.
    """

    def __init__(self, path, stamp_path=None):
        import marshal

        self._loads = marshal.loads
        self.fd = None
        fd, st = safefile.open_read(path)  # a regular file of ours: marshal reads only ours
        self.fd = fd
        try:
            head = _PREAD(fd, HEAD_READ, 0)
            if head[: len(MAGIC)] != MAGIC:
                raise UnusableIndex("not a recall index")
            start = len(MAGIC) + 4
            size = int.from_bytes(head[len(MAGIC) : start], "little")
            if size > MAX_HEADER_BYTES:
                raise UnusableIndex("recall index header too large")
            if start + size > len(head):
                head = _PREAD(fd, start + size, 0)
            header = self._loads(head[start : start + size])
            if not (
                isinstance(header, dict)
                and header.get("type") == INDEX_TYPE
                and header.get("version") == INDEX_VERSION
                and header.get("byteorder") == sys.byteorder
                and isinstance(header.get("config"), dict)
            ):
                raise UnusableIndex("a recall index of another version or machine")
            if header.get("size") != st.st_size:
                raise UnusableIndex("recall index truncated or grown")
            if stamp_path is not None:
                _check_fresh(header, stamp_path)
            self.header = header
            self.body = header["body"]
            self.rows = header["rows"]
            self.weights = list(header["weights"])
            self.tables = header["tables"]
        except BaseException:
            os.close(fd)
            self.fd = None
            raise
        self._terms = {}

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __del__(self):
        self.close()

    def _read(self, offset, length):
        if self.fd is None:
            raise UnusableIndex("recall index closed")
        data = _PREAD(self.fd, length, self.body + offset)
        if len(data) != length:
            raise UnusableIndex("recall index truncated")
        return data

    def _lookup(self, table, key):
        start, buckets = self.tables[table]
        slot = int.from_bytes(self._read(start + 8 * _bucket(key, buckets), 8), sys.byteorder)
        if not slot:
            return None
        group = self._loads(self._read(slot >> 24, slot & _SLOT_MASK))
        return group.get(key)

    def term(self, word):
        """``(documents, offset, distinct scores, impact prefix)`` of a word's stem, or ``None``."""
        stemmed = porter.stem(word)
        if stemmed not in self._terms:
            self._terms[stemmed] = self._lookup("terms", stemmed)
        return self._terms[stemmed]

    def fingerprint(self, fp):
        return self._lookup("fingerprints", fp) or ()

    def record(self, lesson_id):
        """``(id, slug, summary, remediation, mistake, error_lines, active, confidence,
        text stems, error-line stems, summary stems)``."""
        docno = self._lookup("ids", lesson_id)
        return None if docno is None else self.document(docno)

    def document(self, docno):
        if not 0 <= docno < self.rows:
            raise UnusableIndex("recall index points past its documents")
        slot = int.from_bytes(self._read(self.header["docs"] + 8 * docno, 8), sys.byteorder)
        return self._loads(self._read(slot >> 24, slot & _SLOT_MASK))

    def _weight_set(self, weights):
        try:
            return self.weights.index(tuple(weights))
        except ValueError:
            raise UnusableIndex("recall index built for other column weights") from None

    def _scores(self, entry, ws):
        """A word's score table for weight set ``ws``, and where its postings start."""
        count, offset, distinct, _ = entry
        at = offset + 8 * count + 8 * distinct * ws
        return memoryview(self._read(at, 8 * distinct)).cast("d").tolist()

    def _postings(self, entry, ws):
        """``{document: score}`` over every posting of a word."""
        count, offset, _, _ = entry
        raw = memoryview(self._read(offset, 8 * count))
        table = self._scores(entry, ws)
        docs = raw[: 4 * count].cast("I")
        return dict(zip(docs, map(table.__getitem__, raw[4 * count :].cast("I")), strict=True))

    def _find(self, offset, count, doc):
        """Where ``doc`` is among a word's ``count`` document numbers at ``offset``, or -1.

        Bisection by 4-byte reads until the range left fits in a page, then that range at once:
        a cold file costs a page fault a probe, not one for every page of the list.
        """
        low, high = 0, count
        while high - low > _PAGE_NUMBERS:
            middle = (low + high) // 2
            if int.from_bytes(self._read(offset + 4 * middle, 4), sys.byteorder) < doc:
                low = middle + 1
            else:
                high = middle
        end = min(high + 1, count)  # the number at ``high`` may be ``doc`` itself
        if low >= end:
            return -1
        numbers = memoryview(self._read(offset + 4 * low, 4 * (end - low))).cast("I")
        at = _bisect_left(numbers, doc)
        return low + at if at < len(numbers) and numbers[at] == doc else -1

    def top(self, words, weights, limit):
        """Document numbers of the ``limit`` best BM25 matches of ``words``, best first.

        The score is FTS5's ``bm25()``, summed term by term in the query's order (a missing
        word adds nothing); each word's share per document was computed when the index was
        published. Equal scores keep the store's order, as FTS5's do.

        The cost follows the query, not the catalogue: the postings of every word but the most
        common one are read whole (the word choice keeps them few), and the common word gives
        only its share in those documents (found by bisection in its document numbers) and the
        best of its other documents, taken in order from its impact order. A document that has
        none of the other words scores its share of the common word alone, so the first
        ``limit`` of the impact order outside the others' documents are the best of them.
        """
        ws = self._weight_set(weights)
        entries = [entry for entry in map(self.term, words) if entry]
        if not entries:
            return []
        common = max(range(len(entries)), key=lambda i: entries[i][0])
        parts = [self._postings(e, ws) for i, e in enumerate(entries) if i != common]
        candidates = set().union(*parts)
        extra = []
        count, offset, distinct, prefix = entries[common]
        need = min(count, limit + len(candidates))
        if need > prefix:  # a rare word, or the impact order is too short: read it all
            shares = self._postings(entries[common], ws)
            candidates.update(shares)
        else:
            table = self._scores(entries[common], ws)
            shares = {}
            if len(candidates) > _FEW_LOOKUPS:
                import bisect

                raw = memoryview(self._read(offset, 8 * count))
                docs = raw[: 4 * count].cast("I")
                values = raw[4 * count :].cast("I")
                for doc in candidates:
                    at = bisect.bisect_left(docs, doc)
                    if at < count and docs[at] == doc:
                        shares[doc] = table[values[at]]
            else:  # a few: probe the document numbers, touching a few pages of a long list
                for doc in candidates:
                    at = self._find(offset, count, doc)
                    if at >= 0:
                        value = self._read(offset + 4 * count + 4 * at, 4)
                        shares[doc] = table[int.from_bytes(value, sys.byteorder)]
            start = offset + 8 * count + 8 * distinct * len(self.weights) + 8 * prefix * ws
            flat = memoryview(self._read(start, 8 * need)).cast("I").tolist()
            for doc, value in zip(flat[0::2], flat[1::2], strict=True):
                if doc not in candidates:
                    extra.append((doc, table[value]))
                    if len(extra) >= limit:
                        break
        parts.insert(common, shares)  # back in the query's order, for the sums
        scored = extra
        for doc in candidates:
            total = None
            for part in parts:
                value = part.get(doc)
                if value is not None:
                    total = value if total is None else total + value
            scored.append((doc, total))
        scored.sort()  # equal scores: the store's order (a stable sort keeps it)
        scored.sort(key=_score_of, reverse=True)
        return [doc for doc, _ in scored[:limit]]


def _score_of(item):
    return item[1]


def _bisect_left(values, value):
    """Where ``value`` is, or would go, in the ascending ``values``."""
    low, high = 0, len(values)
    while low < high:
        middle = (low + high) // 2
        if values[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


def _check_fresh(header, stamp_path):
    """Refuse an index built for another store revision than the manifest beside it."""
    try:
        stamp = safefile.read(stamp_path, 64).strip()
    except OSError:
        return  # no stamp: nothing says the index is old
    try:
        fresh = int(stamp) == header.get("storeRevision")
    except ValueError:
        fresh = False
    if not fresh:
        raise UnusableIndex("stale recall index (the store changed since it was published)")


def open_index(environ=None):
    """The published recall index of ``LESSONS_HOME``; raises ``OSError``/``ValueError``."""
    home = paths.lessons_home(environ)
    return RecallIndex(os.path.join(home, INDEX_NAME), os.path.join(home, manifest_mod.STAMP_NAME))


class FingerprintIndex:
    """``get(fingerprint)`` → lesson ids, looked up in the published index."""

    def __init__(self, index):
        self.index = index

    def get(self, fp, default=()):
        return list(self.index.fingerprint(fp)) or default

    def __bool__(self):
        return self.index.tables["fingerprints"][1] > 0


def load_index(environ=None):
    """A manifest-shaped dict for recall from the index, or the full manifest without one.

    A missing, damaged or stale index is not read: recall then has the manifest's fingerprints
    only (their lessons' short texts), and the full-text step notes the reason.
    """
    load_programs(environ)
    try:
        index = open_index(environ)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        return manifest_mod.load(environ=environ)
    header = index.header
    return {
        "type": INDEX_TYPE,
        "storeRevision": header.get("storeRevision"),
        "config": header["config"],
        "failureHints": header.get("failureHints", 0),
        "errorFingerprints": FingerprintIndex(index),
        "recallIndex": index,
        "lessons": {},
        "byTool": {},
        "anyTool": [],
        "session": [],
    }


# -- searching ------------------------------------------------------------------------------------


def search(
    environ,
    manifest,
    query_words,
    exact,
    weights,
    accepts,
    stats,
    answers=None,
    text="",
    event=None,
):
    """``[(id, summary, remediation)]``: the exact hits first, then accepted BM25 matches.

    A lesson scoped to a project is found only in that project (``event``'s, as the triggers
    compare it): another repository's fact, or a teammate's, is not recalled elsewhere because
    its error text looks alike. Without an event (the MCP server's search, asked for lessons
    rather than recalling them for a call) every project's are found.

    With ``answers`` (a record's stored error lines that the failure shows), lessons that only
    answer lines an earlier one answers are left out: see :func:`one_per_line`. Never raises:
    an index problem is noted in ``stats["recall_error"]`` and the exact hits are returned with
    the manifest's texts.
    """
    rows = {}
    ranked = []
    index = manifest.get("recallIndex")
    opened = None
    try:
        if index is None:
            index = opened = open_index(environ)
        for lesson_id in exact:
            record = index.record(lesson_id)
            if record is not None and record[6]:
                rows[lesson_id] = record
        terms = pick_terms(index, query_words) if len(query_words) >= 2 else []
        stats["recall_terms"] = len(terms)
        if terms:
            floor = manifest_mod.config_value(manifest, "minConfidence", 0.0)
            qstems = {errnorm.stem(w) for w in query_words}
            column_weights = tuple(float(w) for w in weights.split(","))[1:]
            for docno in index.top(terms, column_weights, FTS_ROWS * 2):
                record = index.document(docno)
                if not record[6] or record[7] < floor or record[0] in rows:
                    continue
                # The record carries the stems of its text (``record[8]``), computed at
                # publication, and of its error lines and summary for ``accepts``.
                if accepts(qstems & record[8], record):
                    rows[record[0]] = record
                    ranked.append(record[0])
    except Exception as exc:  # the hook fails open on any index problem
        stats["recall_error"] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if opened is not None:
            opened.close()
    lessons = manifest.get("lessons", {})
    if exact and "recall_error" in stats and manifest.get("type") == INDEX_TYPE:
        lessons = manifest_mod.load(environ=environ).get("lessons", {})  # texts for the hits
    if event is not None:
        here = _in_scope(event, environ, rows, lessons)
        exact, ranked = [i for i in exact if here(i)], [i for i in ranked if here(i)]
    if answers is not None and "recall_error" not in stats:
        exact, ranked = one_per_line([*exact, *ranked], rows, answers, text), []
    out = []
    for lesson_id in exact:
        row = rows.get(lesson_id)
        if row is not None:
            out.append((lesson_id, row[2] or row[4] or "", row[3] or ""))
        elif lesson_id in lessons and "recall_error" in stats:
            out.append((lesson_id, lessons[lesson_id].get("short", ""), ""))
    out.extend((i, rows[i][2] or rows[i][4] or "", rows[i][3] or "") for i in ranked)
    return out


def _in_scope(event, environ, rows, lessons):
    """A test of whether a found lesson may be recalled for ``event``: unscoped, or scoped to
    its project, as the triggers' gate compares them (:class:`match.Subject` works the id out
    once, and only when a scoped lesson was found)."""
    subject = None

    def here(lesson_id):
        nonlocal subject
        row = rows.get(lesson_id)
        if row is not None:
            scope = row[11] if len(row) > 11 else None
        else:
            scope = (lessons.get(lesson_id) or {}).get("scope")
        if not scope:
            return True
        if subject is None:
            from lessons_core.hot import match

            subject = match.Subject(event)
        return subject.project(environ) == scope

    return here


def one_per_line(found, rows, answers, text):
    """The lessons of ``found`` (ids, best first) worth giving for one failure.

    Lessons stored with the same error line describe one error and different ways out of it
    (a string to replace not found: copy long lines, mind the tabs, read the file again).
    Given all at once they cost the agent's attention, and the ledger a delivery each, for one
    failure; the best is enough. So a lesson is passed over when every line of the failure it
    answers (``answers(record)``: its stored lines the failure shows, by their words or their
    fingerprint) is answered by a lesson kept before it; one with no such line (found by its
    summary) is always kept.

    Of the lessons that answer the same lines, the one kept is the one whose stored line
    appears in the failure as written (the same path or name, which normalized lines hide),
    then the most confident; the search's order only breaks ties, since text scores between
    lessons of one error line measure their other words, not their worth.
    """
    usable = [i for i in found if i in rows]
    lines = {i: frozenset(answers(rows[i])) for i in usable}
    folded = None
    kept = []
    answered: set[object] = set()
    for lesson_id in usable:
        mine = lines[lesson_id]
        if mine and answered.issuperset(mine):
            continue
        rivals = [i for i in usable if lines[i] == mine] if mine else []
        if len(rivals) > 1:  # the texts are read only when there is a choice to make
            folded = text.lower() if folded is None else folded
            lesson_id = min(
                rivals,
                key=lambda i: (not _verbatim(rows[i], folded), -rows[i][7], rivals.index(i)),
            )
        answered.update(mine)
        kept.append(lesson_id)
    return kept


def _verbatim(row, folded):
    """Does one of a record's stored error lines appear, as written, in the folded failure?"""
    return bool(folded) and any(
        line.strip().lower() in folded for line in stored_error_lines(row[5]) if line.strip()
    )


def pick_terms(index, words):
    """The rarest of ``words`` in the index, as many as keep the search small.

    BM25 weighs a word by its rarity, so the rare words decide the ranking anyway; a word found
    in thousands of lessons adds little but makes the query score every one of them. Words are
    taken rarest first while the documents they touch stay under ``TERM_DOC_CAP`` (at least
    ``MIN_TERMS`` are kept); words found nowhere are dropped.
    """
    counted = []
    for word in words[:MAX_TERMS_CHECKED]:
        entry = index.term(word)
        if entry and entry[0]:
            counted.append((entry[0], word))
    counted.sort()
    chosen: list[str] = []
    total = 0
    for docs, word in counted:
        if len(chosen) >= MIN_TERMS and total + docs > TERM_DOC_CAP:
            break
        chosen.append(word)
        total += docs
    return chosen


# -- delivery -----------------------------------------------------------------------------------


#: Said of a lesson that comes back at a failure it is about, after an earlier delivery.
AGAIN_NOTE = " (given earlier in this session)"


def _deliver(header, found, manifest, state, stats, *, again=False):
    """Deliver the lessons ``found``, each once per session; with ``again`` (a failure), a
    lesson the session was given earlier, as a hint or by recall, comes back once more.

    The failure shows the earlier delivery was not heeded, and by now it may be far back in a
    long context: one more time, at the very error it is about, is when it is most likely to
    be read. The outcome loop needs nothing more to see it: the earlier delivery was followed
    by its mistake, which it counts as recurred.
    """
    decision = new_decision()
    stats["recall_found"] = len(found)
    if not found:
        return decision
    session = state.get() if state is not None else None
    if state is not None and session is None:
        return decision  # an untrusted state dir: nothing that needs dedup
    fresh = []
    back = set()
    for lesson_id, summary, fix in found:
        if session is not None and (session.has("recall:" + lesson_id) or session.has(lesson_id)):
            if again and not session.has(AGAIN + lesson_id):
                back.add(lesson_id)
                fresh.append((lesson_id, summary + AGAIN_NOTE, fix))
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
            if session.claim((AGAIN if item[0] in back else "recall:") + item[0]):
                kept.append(item)
            else:
                dropped.append({"id": item[0], "why": "seen"})
        chosen = kept
        if back:
            stats["again"] = [i for i, _, _ in chosen if i in back]
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
