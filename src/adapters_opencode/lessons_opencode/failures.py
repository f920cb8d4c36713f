"""How OpenCode reports a failed call: the abort it records on a call cut short, and the notes
its shell tool appends to a command it stopped.

A call that ran into an error is an ``error`` part whose text the shared classes read (a
permission rule, an edit refused, a schema not met). Two ways of failing need OpenCode's own
words:

* a call still running when the user stopped the answer is closed as an ``error`` part with
  the text ``Tool execution aborted`` (and ``metadata.interrupted``): the user's decision, not
  a failed command;
* the shell tool kills a command that outlived its timeout, or that the user aborted, and says
  so in a ``<bash_metadata>`` block (``<shell_metadata>`` in later versions) at the *end* of its
  output, where the shared classes, which read the head, never look. A killed command has no
  exit code (``metadata.exit`` is ``null``), so without that note a hang would read as a
  success.
"""

from __future__ import annotations

import re
from typing import Any

from lessons_core.api import classify_text
from lessons_core.api import events as ev

#: The text OpenCode gives a call that was still running when the answer was stopped.
ABORTED = "Tool execution aborted"
#: The note block the shell tool appends, and what it says of a command it stopped.
_NOTE = re.compile(r"<(?:bash|shell)_metadata>(.*?)</(?:bash|shell)_metadata>\s*\Z", re.DOTALL)
_TIMED_OUT = re.compile(r"\btool terminated command after exceeding timeout\b")
_USER_ABORTED = re.compile(r"^User aborted the command", re.MULTILINE)
#: How far from the end of an output the note block may start.
_TAIL = 2000


def error_failure(text: str, metadata: Any) -> str:
    """The failure class of an ``error`` part (its ``state.error`` text and ``metadata``)."""
    if isinstance(metadata, dict) and metadata.get("interrupted") is True:
        return ev.INTERRUPTED
    if text.strip().removeprefix("Error:").strip().startswith(ABORTED):
        return ev.INTERRUPTED
    return classify_text(text) or ev.ERROR


def shell_failure(output: str, exit_code: int | None) -> str | None:
    """The failure class of a finished shell call, from the note the tool appended to its
    output and its exit code (``None`` when the command was killed); ``None`` when it worked."""
    note = _NOTE.search(output[-_TAIL:])
    said = note.group(1) if note else ""
    if _TIMED_OUT.search(said):
        return ev.TIMEOUT
    if _USER_ABORTED.search(said.strip()):
        return ev.INTERRUPTED
    if exit_code is None or exit_code == 0:
        return None
    return ev.TIMEOUT if classify_text(output) == ev.TIMEOUT else ev.ERROR
