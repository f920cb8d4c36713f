"""The published recall index ranks exactly as the SQLite store's FTS5 index does.

FTS5 is the oracle: the stemmer is compared with SQLite's word for word, the index's token counts
with ``fts5vocab``, and the index's word choice and BM25 order with the queries recall used to run
against the store (kept here, in the store's own SQL, for that purpose only).
"""

from __future__ import annotations

import random
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from recall_support import catalogue_lessons

from lessons_core import services
from lessons_core.hot import errnorm, porter, recall
from lessons_core.models import Lesson, Provenance, Status
from lessons_core.store import recall_index

# Words whose stems exercise every step and FTS5's own choices (short words, digits, -sses).
TRICKY = [
    "caresses",
    "ponies",
    "ties",
    "caress",
    "cats",
    "feed",
    "agreed",
    "plastered",
    "bled",
    "motoring",
    "sing",
    "conflated",
    "troubled",
    "sized",
    "hopping",
    "tanned",
    "falling",
    "hissing",
    "fizzed",
    "failing",
    "filing",
    "happy",
    "sky",
    "relational",
    "conditional",
    "rational",
    "valenci",
    "hesitanci",
    "digitizer",
    "conformabli",
    "radicalli",
    "differentli",
    "vileli",
    "analogousli",
    "vietnamization",
    "predication",
    "operator",
    "feudalism",
    "decisiveness",
    "hopefulness",
    "callousness",
    "formaliti",
    "sensitiviti",
    "sensibiliti",
    "triplicate",
    "formative",
    "formalize",
    "electriciti",
    "electrical",
    "hopeful",
    "goodness",
    "revival",
    "allowance",
    "inference",
    "airliner",
    "gyroscopic",
    "adjustable",
    "defensible",
    "irritant",
    "replacement",
    "adjustment",
    "dependent",
    "adoption",
    "homologou",
    "communism",
    "activate",
    "angulariti",
    "homologous",
    "effective",
    "bowdlerize",
    "probate",
    "rate",
    "cease",
    "controll",
    "roll",
    "sses",
    "asses",
    "yes",
    "eyed",
    "syzygy",
    "e0502",
    "widget123",
    "abc123",
    "x86",
    "sha256",
    "utf8",
    "logging",
    "loggings",
    "ioerror",
    "modulenotfounderror",
    "eresolve",
    "enoent",
    "crashloopbackoff",
]

FAILURE_WEIGHTS = recall._FAILURE_WEIGHTS
PROMPT_WEIGHTS = recall._PROMPT_WEIGHTS


def fts5_stems(words: list[str]) -> dict[str, str]:
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61')")
        conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(words))
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        got = dict(conn.execute("SELECT doc, term FROM v"))
    return {w: got[i] for i, w in enumerate(words)}


def corpus_words(shared_dir: Path | None) -> list[str]:
    words = set(TRICKY)
    for lesson in catalogue_lessons():
        text = " ".join([lesson.summary, lesson.mistake, lesson.remediation, *lesson.error_lines])
        words.update(re.findall(r"[a-z][a-z0-9]{2,}", text.lower()))
    if shared_dir is not None:
        for path in sorted((shared_dir / "corpus" / "real").rglob("*.json*"))[:60]:
            text = path.read_text("utf-8", "replace")[:400_000].lower()
            words.update(re.findall(r"[a-z][a-z0-9]{2,}", text))
    return sorted(words)


def test_stemmer_agrees_with_sqlite(shared_dir: Path) -> None:
    """Every query word stems as SQLite's FTS5 porter tokenizer stems it."""
    corpus = shared_dir if (shared_dir / "corpus" / "real").is_dir() else None
    words = corpus_words(corpus)
    assert len(words) > 300
    oracle = fts5_stems(words)
    wrong = [(w, oracle[w], porter.stem(w)) for w in words if porter.stem(w) != oracle[w]]
    assert not wrong, wrong[:20]


def bench_lessons(count: int, seed: int = 3) -> list[Lesson]:
    """Lessons sharing most words, so that many score alike (the tie order is tested too)."""
    rng = random.Random(seed)
    tools = ["pytest", "npm", "cargo", "docker", "alembic", "terraform"]
    errors = ["ModuleNotFoundError", "PermissionError", "TimeoutError", "ENOENT", "E0502"]
    subjects = ["migration", "fixture", "schema", "cache", "lockfile", "socket", "token"]
    out = []
    for n in range(count):
        tool, error, subject = rng.choice(tools), rng.choice(errors), rng.choice(subjects)
        out.append(
            Lesson(
                id=f"bench-{n:04d}",
                slug=f"bench-{n:04d}",
                summary=f"{tool} fails with {error} when the {subject} is stale",
                mistake=f"Ran {tool} before refreshing the {subject}; {tool} raised {error}.",
                remediation=f"Refresh the {subject} ({tool} {subject} refresh) and rerun.",
                error_lines=(f"{error}: {subject} is out of date (expected revision 41)",),
                confidence=rng.choice([0.3, 0.8, 0.9]),
                status=Status.DISABLED if n % 11 == 0 else Status.ACTIVE,
                provenance=Provenance(source="bench"),
            )
        )
    return out


@pytest.fixture(name="published", params=["catalogue", "alike"])
def fixture_published(request: Any, home: Path) -> tuple[Path, list[str]]:
    """A store (the fixture catalogue, or lessons much alike) with its index published."""
    lessons = catalogue_lessons() if request.param == "catalogue" else bench_lessons(300)
    with services.open_store() as store:
        store.add_lessons(lessons)
        # Updates move a lesson to a new FTS row: the tie order is no longer the id order.
        for lesson in store.list_lessons()[::7]:
            store.update_lesson(lesson)
        services.rebuild_manifest(store)
    words = set()
    for lesson in lessons:
        text = " ".join([lesson.summary, lesson.mistake, *lesson.error_lines])
        words.update(errnorm.words(text.lower(), limit=400))
    return home, sorted(words)


def test_token_counts_agree_with_fts5vocab(published: tuple[Path, list[str]]) -> None:
    """Documents tokenize as FTS5 tokenized them: same stems, same counts, same lengths."""
    home, _ = published
    conn = sqlite3.connect(home / "lessons.db")
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, lessons_fts, 'instance')")
    oracle: dict[tuple[int, str], list[int]] = {}
    for doc, term, col in conn.execute("SELECT doc, term, col FROM temp.v"):
        counts = oracle.setdefault((doc, term), [0, 0, 0, 0])
        counts[["summary", "mistake", "remediation", "error_lines"].index(col)] += 1
    order = [r[0] for r in conn.execute("SELECT rowid FROM lessons_fts ORDER BY rowid")]
    conn.close()
    with services.open_store() as store:
        docs = list(recall_index.documents_of(store))
    mine: dict[tuple[int, str], list[int]] = {}
    for docno, doc in enumerate(docs):
        for column, text in enumerate([doc.summary, doc.mistake, doc.remediation, doc.error_lines]):
            for token in recall_index.tokens(text):
                mine.setdefault((order[docno], token), [0, 0, 0, 0])[column] += 1
    assert mine == oracle


def oracle_terms(conn: sqlite3.Connection, words: list[str]) -> list[str]:
    counted = []
    for word in words[: recall.MAX_TERMS_CHECKED]:
        (n,) = conn.execute(
            "SELECT count(*) FROM lessons_fts WHERE lessons_fts MATCH ?", ('"' + word + '"',)
        ).fetchone()
        if n:
            counted.append((n, word))
    counted.sort()
    chosen: list[str] = []
    total = 0
    for docs, word in counted:
        if len(chosen) >= recall.MIN_TERMS and total + docs > recall.TERM_DOC_CAP:
            break
        chosen.append(word)
        total += docs
    return chosen


def oracle_ranking(conn: sqlite3.Connection, terms: list[str], weights: str) -> list[str]:
    query = " OR ".join('"' + w + '"' for w in terms)
    return [
        row[0]
        for row in conn.execute(
            "SELECT lesson_id FROM lessons_fts WHERE lessons_fts MATCH ? "
            f"AND rank MATCH 'bm25({weights})' ORDER BY rank LIMIT ?",
            (query, recall.FTS_ROWS * 2),
        )
    ]


def test_ranking_agrees_with_fts5(published: tuple[Path, list[str]]) -> None:
    """For hundreds of queries the index keeps the same words and ranks the same lessons in the
    same order as FTS5's ``bm25()`` over the store (ties included)."""
    home, words = published
    rng = random.Random(11)
    conn = sqlite3.connect(home / "lessons.db")
    index = recall.open_index()
    try:
        checked = 0
        for n in range(300):
            query = rng.sample(words, k=min(len(words), rng.randint(2, 12)))
            query += ["zzunknownword"] if n % 5 == 0 else []
            terms = recall.pick_terms(index, query)
            assert terms == oracle_terms(conn, query), query
            if not terms:
                continue
            for weights in (FAILURE_WEIGHTS, PROMPT_WEIGHTS):
                parsed = tuple(float(w) for w in weights.split(","))[1:]
                mine = [index.document(d)[0] for d in index.top(terms, parsed, 16)]
                assert mine == oracle_ranking(conn, terms, weights), terms
                checked += 1
        assert checked > 200
    finally:
        index.close()
        conn.close()


def test_counts_past_one_byte_rank_as_fts5(home: Path) -> None:
    """A word repeated hundreds of times in one column keeps its true count in the index."""
    heavy = Lesson(
        id="heavy-1",
        slug="heavy-1",
        summary="flaky suite keeps failing",
        mistake="flaky " * 300 + "suite",
        remediation="quarantine the flaky suite",
        error_lines=("flaky suite failed " * 3,),
    )
    with services.open_store() as store:
        store.add_lessons([*catalogue_lessons(), heavy, *bench_lessons(40)])
        services.rebuild_manifest(store)
    conn = sqlite3.connect(home / "lessons.db")
    index = recall.open_index()
    try:
        assert index.term("flaky") is not None
        for weights in (FAILURE_WEIGHTS, PROMPT_WEIGHTS):
            parsed = tuple(float(w) for w in weights.split(","))[1:]
            for terms in (["flaky", "suite"], ["suite", "flaky", "migration"]):
                mine = [index.document(d)[0] for d in index.top(terms, parsed, 16)]
                assert mine == oracle_ranking(conn, terms, weights)
                assert mine[0] == "heavy-1"
    finally:
        index.close()
        conn.close()


def spread_lessons(count: int, seed: int = 5) -> list[Lesson]:
    """Lessons with words in every document, in hundreds, and in three (``tag…``), and texts
    of varied length, so that common words have many distinct scores and many equal ones."""
    rng = random.Random(seed)
    tools = ["pytest", "npm", "cargo", "docker", "alembic", "terraform", "kubectl"]
    errors = ["ModuleNotFoundError", "PermissionError", "TimeoutError", "ENOENT", "E0502"]
    subjects = ["migration", "fixture", "schema", "cache", "lockfile", "socket", "token"]
    out = []
    for n in range(count):
        tool, error, subject = rng.choice(tools), rng.choice(errors), rng.choice(subjects)
        tag = "tag" + "".join("abcdefghij"[int(d)] for d in str(n // 3))
        out.append(
            Lesson(
                id=f"spread-{n:05d}",
                slug=f"spread-{n:05d}",
                summary=f"{tool} fails with {error} when the {subject} {tag} is stale",
                mistake=f"Ran {tool} before refreshing the {subject}. " * rng.randint(1, 3),
                remediation=f"Refresh the {subject} ({tool} {subject} refresh) and rerun.",
                error_lines=(f"{error}: {subject} {tag} is out of date",),
                status=Status.DISABLED if n % 13 == 0 else Status.ACTIVE,
                provenance=Provenance(source="bench"),
            )
        )
    return out


def test_common_words_rank_as_fts5_through_their_impact_order(home: Path) -> None:
    """Past a word's impact prefix the answers stay FTS5's: a rare word with a common one (the
    common word's best documents taken from its impact order), two words in hundreds of
    documents (its share found by bisection), and two words in every document (more than the
    prefix holds: read whole)."""
    lessons = spread_lessons(2000)
    with services.open_store() as store:
        store.add_lessons(lessons)
        for lesson in store.list_lessons()[::9]:
            store.update_lesson(lesson)  # the tie order is no longer the id order
        services.rebuild_manifest(store)
    conn = sqlite3.connect(home / "lessons.db")
    index = recall.open_index()
    try:
        stale = index.term("stale")
        assert stale is not None
        assert recall_index.IMPACT_MIN < stale[3] == recall_index.IMPACT_PREFIX < stale[0]
        # The bisection by reads finds every document of a long list, and no other.
        count, offset = stale[0], stale[1]
        docs = list(memoryview(index._read(offset, 4 * count)).cast("I"))
        assert count > recall._PAGE_NUMBERS
        for at, doc in enumerate(docs):
            assert index._find(offset, count, doc) == at
        missing = sorted(set(range(-1, max(docs) + 2)) - set(docs))
        assert all(index._find(offset, count, doc) == -1 for doc in missing)
        rng = random.Random(3)
        queries = [["tagbc", "stale"], ["stale", "tagbc"], ["socket", "pytest"], ["stale", "fails"]]
        for _ in range(60):
            tag = "tag" + "".join("abcdefghij"[int(d)] for d in str(rng.randrange(666)))
            common = rng.sample(["stale", "fails", "cache", "docker", "enoent", "refresh"], 2)
            queries.append(rng.sample([tag, *common], k=rng.randint(2, 3)))
            queries.append(common)
        for terms in queries:
            for weights in (FAILURE_WEIGHTS, PROMPT_WEIGHTS):
                parsed = tuple(float(w) for w in weights.split(","))[1:]
                mine = [index.document(d)[0] for d in index.top(terms, parsed, 16)]
                assert mine == oracle_ranking(conn, terms, weights), terms
    finally:
        index.close()
        conn.close()


def test_other_column_weights_are_refused(published: tuple[Path, list[str]]) -> None:
    """Scores are published for the two weight sets recall uses; any other is an error (and
    recall fails open), never a ranking by the wrong weights."""
    index = recall.open_index()
    try:
        with pytest.raises(recall.UnusableIndex):
            index.top(["migration", "fixture"], (1.0, 1.0, 1.0, 1.0), 16)
    finally:
        index.close()


def test_records_carry_the_stems_recall_compares(published: tuple[Path, list[str]]) -> None:
    """The stems a record carries are those the hook would compute from its texts."""
    index = recall.open_index()
    try:
        for docno in range(index.rows):
            record = index.document(docno)
            text = " ".join(part or "" for part in (record[2], record[4], record[5]))
            assert record[8] == {errnorm.stem(w) for w in errnorm.words(text, limit=400)}
            lines = [
                {errnorm.stem(w) for w in errnorm.words(errnorm.normalize_line(line), limit=64)}
                for line in recall.stored_error_lines(record[5])
            ]
            assert list(record[9]) == lines
            assert record[10] == {errnorm.stem(w) for w in errnorm.words(record[2], limit=64)}
    finally:
        index.close()


@pytest.mark.parametrize(
    ("size", "refused_unread"),
    [((1 << 20) + 1, True), ((1 << 19) + 1, False)],
    ids=["over-1-MiB", "half-a-MiB"],
)
def test_a_header_over_a_mebibyte_is_refused_unread(
    tmp_path: Path, size: int, refused_unread: bool
) -> None:
    """The header's length is read before the header: past 1 MiB the file is refused at once;
    within it, the header is read, and here found cut short."""
    path = tmp_path / recall.INDEX_NAME
    path.write_bytes(recall.MAGIC + size.to_bytes(4, "little") + bytes(64))
    with pytest.raises((ValueError, EOFError)) as raised:
        recall.RecallIndex(str(path))
    assert ("header too large" in str(raised.value)) is refused_unread


def test_damaged_postings_fail_open(home: Path) -> None:
    """Score indices pointing past a word's table: recall notes the error and answers nothing."""
    lessons = catalogue_lessons()
    with services.open_store() as store:
        store.add_lessons(lessons)
        services.rebuild_manifest(store)
    text = "git push was rejected as non-fast-forward, please push my fix"
    event = {"agent": "claude", "event": "prompt", "session_id": "s-1", "prompt": text}
    stats: dict[str, Any] = {}
    assert recall.handle(event, recall.load_index(), None, {}, stats)["delivered"]
    path = home / recall.INDEX_NAME
    index = recall.open_index()
    try:
        words = errnorm.words(errnorm.normalize_line(text), limit=32)
        blocks = [(index.body + e[1] + 4 * e[0], e[0]) for e in map(index.term, words) if e]
    finally:
        index.close()
    data = bytearray(path.read_bytes())
    for at, count in blocks:
        data[at : at + 4 * count] = b"\xff" * (4 * count)
    path.write_bytes(bytes(data))
    stats = {}
    decision = recall.handle(event, recall.load_index(), None, {}, stats)
    assert decision["delivered"] == []
    assert "IndexError" in stats["recall_error"]
