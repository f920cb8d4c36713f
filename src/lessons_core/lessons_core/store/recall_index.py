"""The recall index a store publishes for the hook: BM25 postings and look-up tables in one file.

Failure-time and prompt-time recall run in a fresh hook process, where importing ``sqlite3``
alone costs more than the rest of the search, and any store other than SQLite has no tables the
hook could query. So every build publishes ``recall-index.bin`` beside the manifest: whatever
the store, the hook reads the same file, a few small pieces of it per call, and never the store.

What goes in is the store's documents (:class:`RecallDocument`: a lesson's id, texts, status
and confidence), taken from the store's optional ``recall_documents()`` when it has one (the
SQLite store lists them in the order of its full-text index, so ties rank as they always did)
or else from ``list_lessons()``. The texts are cut into words and stemmed as SQLite's FTS5
``porter unicode61`` tokenizer does (ASCII exactly, other scripts closely:
:func:`tokens`), and everything BM25 needs is computed here, once: each word's share of each
document's score (FTS5's ``bm25()`` formula, from the word's rarity, its counts per column and
the document's length) for both weight sets recall ranks with. The hook only adds shares, so
it ranks exactly as FTS5 would, and its work follows the query, not the catalogue: a common
word's best documents come first in its *impact order*, so a query of a rare word and a common
one reads a few dozen postings of the common word, not its thousands.

The file, all numbers little- or big-endian as the machine that wrote it (``byteorder`` in the
header; the hook reads only a file of its own machine):

* 16 bytes :data:`MAGIC`, a 4-byte little-endian header length, the header (``marshal``: a dict
  with the store revision, the recall configuration, the document count, the weight sets, where
  each section starts, the file's total size);
* three hash tables (word stem → ``(documents, offset, distinct scores, impact prefix)``, error
  fingerprint → lesson ids, lesson id → document number), each ``buckets`` 8-byte slots
  ``offset << 24 | length`` pointing at a small ``marshal`` dict; a key's bucket is the first
  four bytes of its SHA-256 modulo ``buckets``;
* per word, its block: the document numbers of its postings (32-bit, ascending), aligned with
  them the index of each posting's score in the word's table (32-bit), the table (one 64-bit
  float column per weight set: a posting's score depends only on its counts and its document's
  length, so a few values serve thousands of postings), and, for a word in more than
  :data:`IMPACT_MIN` documents, per weight set its first :data:`IMPACT_PREFIX` postings best
  first (pairs of document number and score index; equal scores by document number);
* a slot per document (``offset << 24 | length``) pointing at its ``marshal`` record: the id,
  texts, status and confidence, the word stems the hook's acceptance rules compare
  (:func:`accept_sets`), and the project the lesson is scoped to (last, so that a record of an
  index written before it had one reads as global).

Written atomically (temporary file, ``fsync``, ``os.replace``) after the manifest and its stamp;
the header's revision must equal the stamp's for the hook to read it, so an index the build did
not get to refresh is never read (:func:`lessons_core.hot.recall.open_index`).
"""

from __future__ import annotations

import contextlib
import json
import marshal
import math
import re
import sys
import unicodedata
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from lessons_core.hot import errnorm, porter, safefile
from lessons_core.hot import recall as hot_recall
from lessons_core.hot.digest import sha256
from lessons_core.models import Lesson, Status

INDEX_NAME = "recall-index.bin"
LEGACY_INDEX_NAME = "recall-index.txt"
INDEX_TYPE = "lessons-recall-index"
VERSION = 3
MAGIC = b"LESSONS-RECALL\x00\x03"
#: BM25 parameters, as FTS5's ``bm25()`` fixes them.
K1 = 1.2
B = 0.75
#: A word in more documents than this gets impact orders (best postings first) ...
IMPACT_MIN = 64
#: ... of this many postings: enough for the hook to skip the documents of every other word of
#: a query (at most ``TERM_DOC_CAP`` of them when it keeps three or more) and still find its best.
IMPACT_PREFIX = hot_recall.TERM_DOC_CAP + 4 * hot_recall.FTS_ROWS
#: Documents with more text than this are not indexed (the compiler refuses far less: 64 KiB).
MAX_DOCUMENT_BYTES = 1 << 20
_MAX_COUNT = 254
_SLOT_SIZE_BITS = 24

_TOKEN = re.compile(r"[^\W_]+")


class RecallDocument(NamedTuple):
    """What recall searches and shows of one stored lesson (every status: the hook filters)."""

    id: str
    slug: str
    summary: str
    mistake: str
    remediation: str
    #: The error lines as the store keeps them: a compact JSON list (searched as text).
    error_lines: str
    active: bool
    confidence: float
    #: The project the lesson is limited to (``None``: every project). Recall keeps to it as
    #: the triggers do; a store that does not say is taken as global.
    scope: str | None = None


def error_lines_text(lines: Iterable[str]) -> str:
    """Error lines as the SQLite store writes its ``error_lines`` column (and FTS5 reads it)."""
    return json.dumps(list(lines), ensure_ascii=False, separators=(",", ":"))


def document_of(lesson: Lesson) -> RecallDocument:
    return RecallDocument(
        lesson.id,
        lesson.slug,
        lesson.summary,
        lesson.mistake,
        lesson.remediation,
        error_lines_text(lesson.error_lines),
        lesson.status == Status.ACTIVE,
        float(lesson.confidence),
        lesson.scope,
    )


def documents_of(store: Any) -> Iterator[RecallDocument]:
    """The store's own ``recall_documents()`` when it has one, else its lessons, every status."""
    source = getattr(store, "recall_documents", None)
    if callable(source):
        yield from source()
        return
    for lesson in store.list_lessons():
        yield document_of(lesson)


# -- words --------------------------------------------------------------------------------------


class _StemCache(dict[str, str]):
    """Folded token -> stem, computed on first sight (``map`` over it runs at C speed)."""

    def __missing__(self, token: str) -> str:
        found = stem_token(token)
        if len(self) < 500_000:
            self[token] = found
        return found


def _fold(token: str) -> str:
    """Case and diacritics folded as ``unicode61`` does (``remove_diacritics 1``), nearly."""
    token = token.lower()
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem_token(token: str) -> str:
    """FTS5's porter stem of a folded token; non-ASCII tokens are stemmed byte by byte as FTS5
    does (the stemmer sees UTF-8 bytes)."""
    if token.isascii():
        return str(porter.stem(token))
    raw = token.encode("utf-8").decode("latin-1")
    return str(porter.stem(raw)).encode("latin-1").decode("utf-8", "replace")


_stems = _StemCache()


def tokens(text: str) -> list[str]:
    """The stemmed tokens of ``text``, in order, as FTS5's ``porter unicode61`` emits them."""
    if text.isascii():
        return list(map(_stems.__getitem__, _TOKEN.findall(text.lower())))
    folded = (_fold(raw) for raw in _TOKEN.findall(text))
    return [_stems[t] for t in folded if t]


# -- building -----------------------------------------------------------------------------------


def _bucket(key: str, buckets: int) -> int:
    return int.from_bytes(sha256(key.encode("utf-8")).digest()[:4], "little") % buckets


def _slot(offset: int, length: int) -> int:
    if length >= 1 << _SLOT_SIZE_BITS:
        raise ValueError("a recall index entry of 16 MiB or more")
    return offset << _SLOT_SIZE_BITS | length


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> int:
        at = self.size
        self.parts.append(data)
        self.size += len(data)
        return at

    def table(self, mapping: Mapping[str, Any]) -> tuple[int, int]:
        """A hash table of ``mapping``: (offset of its slots, bucket count)."""
        buckets = max(1, len(mapping) // 2 + 1)
        grouped: list[dict[str, Any]] = [{} for _ in range(buckets)]
        for key, value in mapping.items():
            grouped[_bucket(key, buckets)][key] = value
        slots = array("Q", bytes(8 * buckets))
        blobs = []
        at = 0
        for n, group in enumerate(grouped):
            if group:
                blob = marshal.dumps(group)
                blobs.append((n, at, blob))
                at += len(blob)
        base = self.size + 8 * buckets
        for n, offset, blob in blobs:
            slots[n] = _slot(base + offset, len(blob))
        start = self.add(slots.tobytes())
        for _, _, blob in blobs:
            self.add(blob)
        return start, buckets


def _text_bytes(doc: RecallDocument) -> int:
    return sum(
        len(t.encode("utf-8", "replace"))
        for t in (doc.id, doc.slug, doc.summary, doc.mistake, doc.remediation, doc.error_lines)
    )


def weight_sets() -> tuple[tuple[float, float, float, float], ...]:
    """The column weights recall ranks with (failure, prompt), as the hook parses them."""
    return tuple(_parse_weights(w) for w in (hot_recall.FAILURE_WEIGHTS, hot_recall.PROMPT_WEIGHTS))


def _parse_weights(text: str) -> tuple[float, float, float, float]:
    w = tuple(float(part) for part in text.split(","))[1:]
    return (w[0], w[1], w[2], w[3])


def bm25_part(
    counts: tuple[int, int, int, int],
    size: int,
    idf: float,
    weights: tuple[float, float, float, float],
    avgdl: float,
) -> float:
    """One word's share of a document's ``bm25()`` score, as FTS5 computes it.

    ``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))``, where ``f`` is the word's
    weighted count in the document and ``D`` the document's length in tokens.
    """
    w1, w2, w3, w4 = weights
    f = w1 * counts[0] + w2 * counts[1] + w3 * counts[2] + w4 * counts[3]
    norm = K1 * (1 - B + B * size / avgdl)
    return idf * ((f * (K1 + 1.0)) / (f + norm))


class _CrudeStems(dict[str, str]):
    """Word -> the acceptance rules' crude stem (:func:`errnorm.stem`), computed on first sight."""

    def __missing__(self, word: str) -> str:
        found = str(errnorm.stem(word))
        if len(self) < 500_000:
            self[word] = found
        return found


_crude = _CrudeStems()


def _stem_set(words: Iterable[str]) -> frozenset[str]:
    return frozenset(map(_crude.__getitem__, words))


def accept_sets(
    doc: RecallDocument,
) -> tuple[frozenset[str], tuple[frozenset[str], ...], frozenset[str]]:
    """The word stems the hook's acceptance rules compare with a query, computed once here.

    The stems of the searched text (summary, mistake, error lines), of each stored error line
    once normalized, and of the summary: the hook would otherwise normalize and stem these for
    every candidate of every call.
    """
    text = " ".join(part or "" for part in (doc.summary, doc.mistake, doc.error_lines))
    lines = tuple(
        _stem_set(errnorm.words(errnorm.normalize_line(line), limit=64))
        for line in hot_recall.stored_error_lines(doc.error_lines)
    )
    return (
        _stem_set(errnorm.words(text, limit=400)),
        lines,
        _stem_set(errnorm.words(doc.summary or "", limit=64)),
    )


def _term_block(
    docs: list[int],
    keys: list[Any],
    lengths: array[int],
    idf: float,
    weights: tuple[tuple[float, float, float, float], ...],
    avgdl: float,
) -> tuple[bytes, int, int]:
    """One word's postings, score table and impact orders: (bytes, distinct scores, prefix).

    Postings are document numbers (ascending) and, aligned with them, an index into the word's
    table of distinct scores (one ``float`` column per weight set): the score of a posting
    depends only on its counts and its document's length, so few values serve thousands of
    postings. A word found in more than :data:`IMPACT_MIN` documents also gets, per weight set,
    the first :data:`IMPACT_PREFIX` postings in the order of their scores (highest first, equal
    scores by document number): the hook takes the best documents of a common word from there
    without reading its other postings.
    """
    table: dict[Any, int] = {}
    pairs = [(key, lengths[doc]) for doc, key in zip(docs, keys, strict=True)]
    for pair in pairs:
        if pair not in table:
            table[pair] = len(table)
    vidx = list(map(table.__getitem__, pairs))
    columns = []
    for w in weights:
        column = array("d", bytes(8 * len(table)))
        for (key, size), n in table.items():
            column[n] = bm25_part(_counts(key), size, idf, w, avgdl)
        columns.append(column)
    prefix = min(len(docs), IMPACT_PREFIX) if len(docs) > IMPACT_MIN else 0
    parts = [array("I", docs).tobytes(), array("I", vidx).tobytes()]
    parts.extend(column.tobytes() for column in columns)
    for column in columns:
        order_keys = [-column[v] for v in vidx]
        # A stable sort of postings in document order: equal scores stay by document number.
        order = sorted(range(len(docs)), key=order_keys.__getitem__)[:prefix]
        flat = array("I")
        for i in order:
            flat.append(docs[i])
            flat.append(vidx[i])
        parts.append(flat.tobytes())
    return b"".join(parts), len(table), prefix


def _counts(key: Any) -> tuple[int, int, int, int]:
    """A posting's counts per column: packed one byte each, or a tuple when one passes 254."""
    if isinstance(key, tuple):
        return (key[0], key[1], key[2], key[3])
    return (key & 255, key >> 8 & 255, key >> 16 & 255, key >> 24)


def build_index(
    documents: Iterable[RecallDocument],
    *,
    revision: int,
    config: Mapping[str, Any],
    fingerprints: Mapping[str, Iterable[str]] | None = None,
    failure_hints: int = 0,
) -> bytes:
    """The bytes of a recall index over ``documents`` (their order is the tie order)."""
    # A lesson too big for the manifest (a store written past intake's limits) is left out
    # here too: recall never shows more than a few hundred bytes of one anyway.
    docs = [d for d in documents if _text_bytes(d) <= MAX_DOCUMENT_BYTES]
    postings: defaultdict[str, list[int]] = defaultdict(list)
    keys: defaultdict[str, list[Any]] = defaultdict(list)
    lengths = array("I")
    total = 0
    for docno, doc in enumerate(docs):
        packed: dict[str, int] = {}
        big: dict[str, list[int]] = {}
        length = 0
        for column, text in enumerate((doc.summary, doc.mistake, doc.remediation, doc.error_lines)):
            words = tokens(text or "")
            length += len(words)
            shift = 8 * column
            for word, n in Counter(words).items():
                if n > _MAX_COUNT:
                    big.setdefault(word, [0, 0, 0, 0])[column] = n
                    n = 0
                packed[word] = packed.get(word, 0) + (n << shift)
        lengths.append(length)
        total += length
        for word, value in packed.items():
            key: Any = value
            if word in big:
                counts = big[word]
                for column in range(4):
                    counts[column] = counts[column] or (value >> 8 * column) & 255
                key = (counts[0], counts[1], counts[2], counts[3])
            postings[word].append(docno)
            keys[word].append(key)

    out = _Writer()
    header_room = 0  # the header is written last, in front; offsets below are from the body
    rows = len(docs)
    avgdl = (total / rows) if rows else 1.0
    weights = weight_sets()
    terms: dict[str, tuple[int, int, int, int]] = {}
    for word in sorted(postings):
        hits = len(postings[word])
        idf = math.log((rows - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        block, distinct, prefix = _term_block(
            postings[word], keys[word], lengths, idf, weights, avgdl
        )
        terms[word] = (hits, out.add(block), distinct, prefix)
    del postings, keys
    numbers = {doc.id: n for n, doc in enumerate(docs)}
    fps = {
        fp: tuple(i for i in ids if i in numbers)
        for fp, ids in (fingerprints or {}).items()
        if any(i in numbers for i in ids)
    }
    tables = {
        "terms": out.table(terms),
        "fingerprints": out.table(fps),
        "ids": out.table(numbers),
    }
    records = [
        marshal.dumps(
            (
                d.id,
                d.slug,
                d.summary,
                d.remediation,
                d.mistake,
                d.error_lines,
                bool(d.active),
                float(d.confidence),
                *accept_sets(d),
                d.scope,
            )
        )
        for d in docs
    ]
    slots = array("Q")
    at = out.size + 8 * len(records)
    for record in records:
        slots.append(_slot(at, len(record)))
        at += len(record)
    docs_at = out.add(slots.tobytes())
    for record in records:
        out.add(record)

    header: dict[str, Any] = {
        "type": INDEX_TYPE,
        "version": VERSION,
        "storeRevision": revision,
        "config": dict(config),
        "failureHints": failure_hints,
        "byteorder": sys.byteorder,
        "rows": rows,
        "avgdl": avgdl,
        "weights": weights,
        "tables": tables,
        "docs": docs_at,
        "body": header_room,
        "size": 0,
    }
    # Offsets in the header count from the end of the header; the header's own length is
    # only known once it is encoded, so the body offset is fixed up in two passes.
    head = marshal.dumps(header)
    for _ in range(3):
        header["body"] = len(MAGIC) + 4 + len(head)
        header["size"] = header["body"] + out.size
        again = marshal.dumps(header)
        if len(again) == len(head):
            head = again
            break
        head = again
    else:  # pragma: no cover - the sizes settle at once in practice
        raise ValueError("the recall index header did not settle")
    return b"".join([MAGIC, len(head).to_bytes(4, "little"), head, *out.parts])


# -- publishing ---------------------------------------------------------------------------------


def publish(store: Any, manifest: Mapping[str, Any], home: Path) -> Path:
    """Write the recall index of ``store`` for the manifest just written to ``home``."""
    data = build_index(
        documents_of(store),
        revision=int(manifest.get("storeRevision") or 0),
        config=manifest.get("config", {}),
        fingerprints=manifest.get("errorFingerprints") or {},
        failure_hints=int(manifest.get("failureHints") or 0),
    )
    target = home / INDEX_NAME
    safefile.replace(target, data)
    with contextlib.suppress(OSError):
        (home / LEGACY_INDEX_NAME).unlink()  # the text index of earlier versions
    return target
