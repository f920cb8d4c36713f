"""Turn raw error output into stable lines, fingerprints and search words (standard library only).

The same failure never prints the same bytes twice: line numbers, temporary paths, process ids,
addresses, UUIDs and timestamps change from run to run. Recall needs what stays the same — the
*kind* of error — so every volatile part becomes a placeholder (``<path>``, ``<n>``, …) before
anything is hashed or searched. The compiler normalizes the error lines stored with each lesson
through this very module (cold code may import it), so a fingerprint computed in the hook and one
computed at build time agree by construction.

Hook input can be anything: megabytes of test output, a binary dump, a JSON blob. The work is
bounded before it starts: at most ``MAX_CHARS`` characters are looked at (the head and the larger
tail, where errors usually end up), NULs and other control bytes are dropped, and at most
``MAX_LINES`` lines are examined.
"""

from lessons_core.hot.digest import sha256

MAX_CHARS = 32 * 1024
HEAD_CHARS = 8 * 1024
MAX_LINES = 2000
MAX_LINE_CHARS = 400
KEY_LINES = 6
#: A normalized line shorter than this (placeholders removed) says too little to fingerprint.
MIN_FINGERPRINT_CHARS = 12

#: Every regex of this module by name, as source text with inline flags. They are compiled on
#: first use: by ``_sre`` from programs the compiler prepared (:func:`use_programs`), so the hook
#: never imports ``re``, or by ``re.compile`` when there are none.
SOURCES = {
    "ansi": r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07",
    "control": r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]",
    "uuid": r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    "ts": r"\b\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+-]\d{2}:?\d{2})?",
    "time": r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b",
    "url": r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)\]]+",
    "ip": r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b",
    "local": r"\b(?:localhost|\[::1?\]):\d+\b",
    "hex0x": r"\b0x[0-9a-f]+\b",
    # Paths: absolute, home-relative, Windows, or relative with at least one separator.
    "path": r"(?:[a-z]:\\|~[/\\]|\.{1,2}/|/)[^\s'\"`:,;()<>\[\]{}]*|\b[\w.-]+(?:/[\w.@+-]+)+/?",
    "hex": r"\b[0-9a-f]{7,}\b",
    "number": r"(?<![a-z_])\d+(?:\.\d+)*",
    "placeholder": r"<(?:uuid|ts|time|url|addr|hex|path|n)>",
    "spaces": r"\s+",
    "ruler": r"^[=*#~_-]{2,}\s*|\s*[=*#~_-]{2,}$",
    # Lines that state an error (matched against normalized, lowercased lines).
    "errorish": (
        r"error|exception|traceback|fail|fatal|panic|no such|not found|cannot|can't|could not|"
        r"unable|denied|refused|invalid|undefined|missing|unknown|timed out|timeout|abort|"
        r"e\d{3,4}\b|err!|errno|segmentation|killed"
    ),
    # Lines that carry no information of their own in most tools' failure output.
    "noise": (
        r"^(?:exit code:? <n>|process exited with code <n>|exit code <n>|output:|error:|"
        r"=+|-+|\*+|~+|\^+|\.+|<n>|wall time.*|chunk id.*|original token count.*)$"
    ),
    # Failures that are decisions (user, policy, harness), not mistakes: recall stays silent.
    "decision": (
        r"(?i)doesn't want to (?:proceed|take this action)|tool use was rejected|user rejected|"
        r"rejected by (?:the )?user|operation cancelled|user cancelled|request interrupted|"
        r"interrupted by user|requires approval|permission to use \S+ has been denied|"
        r"not allowed by (?:the )?(?:sandbox|policy)|approval policy|sandbox denied|"
        r"haven't granted it yet|was blocked\. for security"
    ),
    "word": r"[a-z][a-z0-9]{2,}",
    # Our own commands (recall ignores their failures): the CLI and the hook commands, which
    # every adapter names ``lessons-<agent>-hook``
    # (``lessons_core.plugins.adapters.agent_spec_for``).
    "own_command": (
        r"(?:^|[\s;&|/(])(?:lessons(?:-[a-z0-9_]+-hook)?|python3? -m lessons_\w+)(?:\s|$)"
    ),
}

#: Placeholder rules, in order: the specific shapes go before the generic number rule.
RULES = (
    ("uuid", "<uuid>"),
    ("ts", "<ts>"),
    ("time", "<time>"),
    ("url", "<url>"),
    ("ip", "<addr>"),
    ("local", "<addr>"),
    ("hex0x", "<hex>"),
    ("path", "<path>"),
    ("hex", "<hex>"),
    ("number", "<n>"),
)

_compiled: dict[str, object] = {}
_programs: dict[str, tuple[object, ...]] = {}


def use_programs(programs):
    """Take build-time ``_sre`` programs (source → arguments), as the compiler wrote them."""
    if isinstance(programs, dict):
        _programs.update(programs)


def has_programs():
    return bool(_programs)


def rx(name):
    """The compiled pattern ``name`` of :data:`SOURCES` (compiled once per process)."""
    pattern = _compiled.get(name)
    if pattern is None:
        source = SOURCES[name]
        program = _programs.get(source)
        if program is not None:
            try:
                pattern = __import__("_sre").compile(source, *program)
            except Exception:
                pattern = None
        if pattern is None:
            import re

            pattern = re.compile(source)
        _compiled[name] = pattern
    return pattern


_STOPWORD_TEXT = """
    the and for with from that this was were are not has have had but you your into onto than
    then there their them they which what when where while will would should could can cannot
    can't did does done its our out all any one two get got use used using see run ran line
    lines file files call called calling code exit status error errors failed fail fails
    failure true false none null self also only just more most some such very via after before
    because been being both each other over same still under until upon yet above below again
    here how why who whom please try tried make made need needs needed new now off per set let
    may might must
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def prepare(text):
    """Bounded, printable text: at most ``MAX_CHARS`` characters, ANSI and control bytes gone."""
    if not isinstance(text, str):
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text[: MAX_CHARS * 4]).decode("utf-8", "replace")
        else:
            return ""
    if len(text) > MAX_CHARS:
        text = text[:HEAD_CHARS] + "\n" + text[-(MAX_CHARS - HEAD_CHARS) :]
    if "\x1b" in text:
        text = rx("ansi").sub("", text)
    return rx("control").sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def normalize_line(line):
    """One line with volatile parts replaced by placeholders, lowercased, spaces collapsed."""
    line = line.strip()[:MAX_LINE_CHARS].lower()
    for name, placeholder in RULES:
        line = rx(name).sub(placeholder, line)
    return rx("ruler").sub("", rx("spaces").sub(" ", line).strip())


def key_lines(text, limit=KEY_LINES):
    """The most informative normalized lines of ``text``, in order, without repeats.

    Lines that read like an error come first; when none does, the last non-trivial lines stand
    in (a failing command often ends with its reason).
    """
    text = prepare(text)
    if not text:
        return []
    raw = text.split("\n")
    if len(raw) > MAX_LINES:
        raw = raw[: MAX_LINES // 4] + raw[-(MAX_LINES - MAX_LINES // 4) :]
    picked = []
    seen = set()
    fallback = []
    for line in raw:
        if not line.strip():
            continue
        norm = normalize_line(line)
        if not norm or norm in seen or rx("noise").match(norm):
            continue
        seen.add(norm)
        if rx("errorish").search(norm):
            picked.append(norm)
            if len(picked) >= limit:
                break
        else:
            fallback.append(norm)
            if len(fallback) > limit:
                fallback.pop(0)
    return picked if picked else fallback[-limit:]


def informative(line):
    """True when a normalized line says enough to be fingerprinted on its own."""
    bare = rx("placeholder").sub("", line)
    return len(bare.replace(" ", "")) >= MIN_FINGERPRINT_CHARS and bool(rx("word").search(bare))


def fingerprint(line):
    """The fingerprint of one normalized line (24 hex digits of its SHA-256)."""
    return sha256(line.encode("utf-8", "replace")).hexdigest()[:24]


def fingerprints(lines):
    """Fingerprints of the informative lines among ``lines`` (already normalized)."""
    out = []
    for line in lines:
        if informative(line):
            fp = fingerprint(line)
            if fp not in out:
                out.append(fp)
    return out


def line_fingerprints(raw_lines):
    """Fingerprints of raw error lines (a lesson's ``error_lines``), normalized one by one."""
    return fingerprints(normalize_line(prepare(line)) for line in raw_lines if line)


def words(text, limit=24):
    """Distinctive lowercase words of ``text`` (placeholders, stop words and numbers dropped)."""
    text = rx("placeholder").sub(" ", text.lower())
    out = []
    seen = set()
    for word in rx("word").findall(text):
        if word in STOPWORDS or word in seen:
            continue
        seen.add(word)
        out.append(word)
        if len(out) >= limit:
            break
    return out


def stem(word):
    """A crude stem, close enough to FTS5's porter tokenizer for overlap counting."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def not_a_mistake(text):
    """True when a failure text is a user's or a policy's decision (rejected, denied, cancelled)."""
    if not isinstance(text, str):
        return False
    return bool(rx("decision").search(text[:2000]))
