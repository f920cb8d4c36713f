"""How Codex CLI reports a failed call: its exit code sentences and its sandbox wrapper."""

from __future__ import annotations

import re

_CODEX_EXIT = re.compile(
    r"(?:^Exit code: (-?\d+)$|^Process exited with code (-?\d+)$|exit code:? (-?\d+))",
    re.MULTILINE | re.IGNORECASE,
)


def codex_exit_code(text: str) -> int | None:
    """The exit code stated in a Codex output text (freeform, unified exec or sandbox text)."""
    head = text[:3000]
    at = head.find("xit")
    if at < 0:
        return None
    m = _CODEX_EXIT.search(head, max(0, at - 40))
    if not m:
        return None
    value = next(g for g in m.groups() if g is not None)
    return int(value)


_SANDBOX_WRAPPER = re.compile(
    r"\Afailed in sandbox \S+ with execution error: sandbox denied exec error, "
    r"exit code: -?\d+, stdout: (?P<stdout>.*?), stderr: (?P<stderr>.*)\Z",
    re.DOTALL,
)
#: What a command prints when the sandbox, not the command, stopped it.
_SANDBOX_SIGNS = re.compile(
    r"operation not permitted|permission denied|read-only file system|sandbox", re.IGNORECASE
)


def unwrap_sandbox(text: str) -> tuple[str, bool]:
    """What the command printed inside Codex's "failed in sandbox … sandbox denied" wrapper,
    and whether the sandbox really stopped it.

    Codex on macOS wraps *every* non-zero exit under its sandbox in that sentence, whatever the
    cause: a shell syntax error or a search that found nothing reads "sandbox denied" too. The
    command's own output says which it was.
    """
    m = _SANDBOX_WRAPPER.match(text)
    if m is None:
        return text, False
    out = "\n".join(part.strip("\n") for part in (m.group("stdout"), m.group("stderr")) if part)
    return out, bool(_SANDBOX_SIGNS.search(out))
