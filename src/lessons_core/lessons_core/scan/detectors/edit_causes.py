"""Why an edit's text to replace was not found, read from the edit that later worked.

A refused edit ("String to replace not found", "Failed to find expected lines") says only that
its text was not in the file. The call that then worked on the same file shows why: its text
has the same lines with other leading whitespace (the indentation was guessed), or the same
lines with a few characters otherwise (a long line was retyped), or the file had been edited
since it was last read (the text came from the version before that edit). Each cause is its own
lesson, said in the same words wherever it recurs, so the intake merges its sessions into one;
a pair that shows none of them keeps the general lesson.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

#: The causes this module tells apart.
INDENTATION = "indentation"
OLDER_VERSION = "older_version"
RETYPED = "retyped"

#: A retyped line is long (a short one is rewritten on purpose more often than mistyped) and
#: differs from the line that matched by a few characters only.
LONG_LINE = 60
FEW_CHARACTERS = 4

#: A similar line is one a line of the other text was changed into, not another line.
SIMILAR = 0.8

#: The escapes a script that rewrites a file writes its text with (``'\t\tfoo\n'``, a quote
#: inside a double-quoted shell argument): decoded, the script's text compares with an edit's.
_ESCAPES = (("\\t", "\t"), ("\\n", "\n"), ('\\"', '"'))


def _lines(text: str) -> list[str]:
    """The non-blank lines of ``text``."""
    return [line for line in text.splitlines() if line.strip()]


def _bare(lines: Iterable[str]) -> list[str]:
    """The lines without their leading and trailing whitespace."""
    return [line.strip() for line in lines]


def _holds(fixed: str, failed: str) -> bool:
    """Whether the fixing text holds the failed text's lines as written, one after another:
    then the failed text was right, and the fix worked for another reason."""
    whole, part = _lines(fixed), _lines(failed)
    n = len(part)
    return n > 0 and any(whole[k : k + n] == part for k in range(len(whole) - n + 1))


def decoded(text: str) -> str:
    """``text`` with the tab, newline and quote escapes of a script's string literals decoded."""
    for escape, char in _ESCAPES:
        text = text.replace(escape, char)
    return text


def script_text(command: str) -> str:
    """The lines a command that rewrites a file holds in its string literals, as an edit's
    text: escapes decoded, and on each line the script's own indentation and the quote that
    opens or closes its literal taken off (``    '\t\tfoo'`` reads ``\t\tfoo``)."""
    out = []
    for line in decoded(command).splitlines():
        line = line.lstrip(" ")
        if line[:1] in ("'", '"'):
            line = line[1:]
        end = line[-1:]
        if end in ("'", '"') and line.count(end) % 2:
            line = line[:-1]
        out.append(line)
    return "\n".join(out)


def _indent(line: str) -> str:
    """The leading whitespace of ``line``."""
    return line[: len(line) - len(line.lstrip())]


def indentation_only(failed: str, fixed: str) -> bool:
    """Whether the lines of the failed text that the fixing text holds too hold them with
    other leading whitespace: some do, and more of them differ there than match as written.

    Lines are compared bare (a script's text has code around the lines it replaces), and only
    the shared ones count (a fix may take fewer lines, or more)."""
    if not failed.strip() or _holds(fixed, failed):
        return False
    indents: dict[str, set[str]] = {}
    for line in _lines(fixed):
        indents.setdefault(line.strip(), set()).add(_indent(line))
    shifted = same = 0
    for line in _lines(failed):
        found = indents.get(line.strip())
        if found is None:
            continue
        if _indent(line) in found:
            same += 1
        else:
            shifted += 1
    return shifted > 0 and shifted > same


def _distance(a: str, b: str) -> int:
    """How many characters of ``a`` and ``b`` differ (inserted, deleted or replaced)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    )


def retyped(failed: str, fixed: str) -> bool:
    """Whether exactly one line of the failed text is missing from the fixing text, that line
    is long, and a line of the fix differs from it by a few characters only."""
    fixed_lines = _lines(fixed)
    present = {line.strip() for line in fixed_lines}
    missing = [line.strip() for line in _lines(failed) if line.strip() not in present]
    if len(missing) != 1 or len(missing[0]) < LONG_LINE:
        return False
    line = missing[0]
    return any(
        _distance(line, other.strip()) <= FEW_CHARACTERS
        for other in fixed_lines
        if abs(len(other.strip()) - len(line)) <= FEW_CHARACTERS
    )


def edited_away(failed: str, earlier: Sequence[tuple[str, str]]) -> bool:
    """Whether the failed text holds a line that an earlier edit of the file took out: it was
    written from the version before that edit."""
    failed_lines = set(_bare(_lines(failed)))
    for old, new in earlier:
        removed = set(_bare(_lines(old))) - set(_bare(_lines(new)))
        if failed_lines & removed:
            return True
    return False


def changed_since_read(failed: str, earlier: Sequence[tuple[str, str]], fixed: str | None) -> bool:
    """Whether the file was edited since it was last read and the text that then worked says
    a line of the failed text otherwise (a line of it is missing from the fix, and a similar
    line there is not in the failed text): the failed text was the file as last seen, not as
    the edits left it. A fix that only took fewer lines says nothing of the kind."""
    if not earlier or fixed is None or _holds(fixed, failed):
        return False
    failed_bare = _bare(_lines(failed))
    fixed_bare = _bare(_lines(fixed))
    gone = [line for line in failed_bare if line not in set(fixed_bare)]
    new = [line for line in fixed_bare if line not in set(failed_bare)]
    return any(_similar(a, b) for a in gone for b in new)


def _similar(a: str, b: str) -> bool:
    """Whether ``b`` reads as ``a`` changed (see :data:`SIMILAR`)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.real_quick_ratio() >= SIMILAR and matcher.ratio() >= SIMILAR


def cause(
    failed: str,
    fixed: str | None,
    earlier: Sequence[tuple[str, str]] = (),
    *,
    script: bool = False,
) -> str | None:
    """The cause the pair shows, or ``None``.

    ``failed`` is the refused edit's text to replace; ``fixed`` the text the fixing edit
    replaced, or with ``script`` the :func:`script_text` of a command that rewrote the file,
    ``None`` when the fix shows no text; ``earlier`` the edits of the same file that worked
    since it was last read, before the refused one. The strongest evidence wins: lines that
    matched once their whitespace changed, a line an earlier edit had taken out, one long line
    a few characters off; last, a file edited since it was read whose fix says the same place
    otherwise. A script's text is framed by its code, so only the first two are read in it:
    its similar lines are as often the code as the text.
    """
    if fixed is not None and indentation_only(failed, fixed):
        return INDENTATION
    if edited_away(failed, earlier):
        return OLDER_VERSION
    if script or fixed is None:
        return None
    if retyped(failed, fixed):
        return RETYPED
    if changed_since_read(failed, earlier, fixed):
        return OLDER_VERSION
    return None
