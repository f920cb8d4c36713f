"""What the words around a failure say: the user correcting the agent, or the agent telling
its own mistake, and how either is cut to one line of a lesson.

The pairing reads them in the window after a failure, and the user's corrections also start
findings of their own (:mod:`.user_corrections`).
"""

from __future__ import annotations

import functools
import re

from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head

USER_CORRECTION = kept_programs.compile(
    r"""^\W*(?:
        no(?:pe)?\b[,.!]?\s*(?:use|do|don'?t|not|that|it|you|we|run|the|instead|stop|wrong)?
      | that'?s\s+(?:wrong|not\s+(?:right|correct|what|how))
      | (?:this|that|it)\s+(?:is|was)\s+wrong
      | wrong\b
      | don'?t\b | do\s+not\b | never\b | stop\b
      | (?:you\s+)?should(?:n'?t|\s+not)?\s+(?:use|have|run|be)
      | actually[,\s]
      | please\s+(?:use|don'?t|do\s+not|stop)
      | use\s+\S+\s+instead
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_INSTEAD = kept_programs.compile(r"\binstead\b|\bnot\s+\S+,\s*(?:but|use)\b", re.IGNORECASE)
SELF_DIAGNOSIS = kept_programs.compile(
    r"""\b(?:
        I\s+see\s+(?:the|what)\s+(?:issue|problem|mistake|error)
      | the\s+(?:issue|problem|error|mistake|culprit)\s+(?:was|is|here\s+is)
      | (?:that'?s|this\s+is)\s+why
      | I\s+was\s+wrong | my\s+mistake | I\s+made\s+a\s+mistake
      | the\s+fix\s+is | turns\s+out | root\s+cause
      | (?:it\s+)?looks\s+like\s+the\s+(?:issue|problem)
      | I\s+(?:need|have)\s+to\s+(?:first|use|read)
      | should\s+have\s+(?:used|run|read|checked)
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(redact_head(text, limit).split())  # redact, then cut: a cut token leaks
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Where a sentence ends (:func:`_first_sentence`).
_SENTENCE_END = kept_programs.compile(r"(?<=[.!?])\s")
#: Where one ends before the next begins: a mark and a space, or a new line. The dot of
#: ``app.py`` or ``./run.sh`` ends nothing.
_SENTENCE_BREAK = kept_programs.compile(r"[.!?]\s+|\n")


def _first_sentence(text: str) -> str:
    """The sentence of ``text`` that says what went wrong, from its start: the last sentence
    break before the diagnosis, not any dot (a file name's would cut a word in two)."""
    m = SELF_DIAGNOSIS.search(text)
    start = 0
    if m:
        for brk in _SENTENCE_BREAK.finditer(text, 0, m.start()):
            start = brk.end()
    chunk = text[start:].lstrip()
    sentence = _SENTENCE_END.split(chunk, maxsplit=1)[0]
    return _one_line(sentence, 240)


@functools.lru_cache(maxsize=4096)
def _diagnoses(text: str) -> bool:
    """Whether the agent's text says what went wrong. Remembered: a message lies in the window
    of every failure before it, and is searched for each of them."""
    return SELF_DIAGNOSIS.search(text) is not None


@functools.lru_cache(maxsize=4096)
def _is_correction(text: str) -> bool:
    head = text.strip()[:300]
    if not head or head.startswith(("<", "[", "{", "/")):
        return False
    return bool(USER_CORRECTION.match(head)) or (len(head) < 200 and bool(_INSTEAD.search(head)))
