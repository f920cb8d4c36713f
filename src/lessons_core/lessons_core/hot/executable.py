"""Blank the quoted data of a shell command, keeping what the shell would execute.

A lesson whose ``commandMatchTarget`` is ``executable`` must not fire because its pattern appears
inside an argument: ``git commit -m "rm -rf /"`` runs git, not rm. So before matching, the text of
single-quoted strings, ANSI-C strings (``$'…'``), double-quoted strings and here-document bodies
is removed (the quote characters stay, so ``-m ""`` still reads as an argument).

Command substitutions inside double quotes (``"$(…)"`` and backticks) *are* executed by the
shell, so their text is kept. The scanner is a single pass over the characters, never a regex, so
its cost is linear and no input can make it slow. Standard library only (hot path).
"""


def blank_quotes(command):
    """Return ``command`` with quoted data and heredoc bodies removed."""
    if not command:
        return command or ""
    if "'" not in command and '"' not in command and "<<" not in command:
        return command
    out = []
    pending_heredocs: list[
        tuple[str, bool]
    ] = []  # terminators whose bodies start at the next newline
    i = 0
    n = len(command)
    while i < n:
        c = command[i]
        if c == "\\" and i + 1 < n:
            out.append(command[i : i + 2])
            i += 2
            continue
        if c == "'":
            # ANSI-C $'...' honours backslash escapes; plain '...' has none.
            ansi = i > 0 and command[i - 1] == "$"
            j = i + 1
            while j < n and command[j] != "'":
                j += 2 if (ansi and command[j] == "\\") else 1
            out.append("''")
            i = j + 1
            continue
        if c == '"':
            i = _double_quoted(command, i + 1, out)
            continue
        if c == "<" and command.startswith("<<", i):
            if command.startswith("<<<", i):  # a here-string: its word is quoted data as usual
                out.append("<<<")
                i += 3
                continue
            i = _heredoc_operator(command, i, out, pending_heredocs)
            continue
        if c == "\n" and pending_heredocs:
            out.append("\n")
            i = _skip_heredoc_bodies(command, i + 1, pending_heredocs)
            pending_heredocs = []
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _double_quoted(command, i, out):
    """Consume a double-quoted string starting after its quote; keep ``$(…)`` and backticks."""
    n = len(command)
    out.append('"')
    while i < n:
        c = command[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            out.append('"')
            return i + 1
        if c == "$" and i + 1 < n and command[i + 1] == "(":
            end = _matching_paren(command, i + 2)
            out.append(" " + blank_quotes(command[i + 2 : end]) + " ")
            i = end + 1
            continue
        if c == "`":
            end = command.find("`", i + 1)
            end = n if end < 0 else end
            out.append(" " + blank_quotes(command[i + 1 : end]) + " ")
            i = end + 1
            continue
        i += 1
    return n


def _matching_paren(command, i):
    depth = 1
    n = len(command)
    while i < n:
        c = command[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        elif c == "\\":
            i += 1
        i += 1
    return n


def _heredoc_operator(command, i, out, pending):
    """Read ``<<[-]WORD`` (WORD possibly quoted) and remember its terminator."""
    n = len(command)
    j = i + 2
    strip_tabs = j < n and command[j] == "-"
    if strip_tabs:
        j += 1
    while j < n and command[j] in " \t":
        j += 1
    start = j
    word = []
    while j < n and command[j] not in " \t\n;&|<>()":
        ch = command[j]
        if ch in "'\"":
            close = command.find(ch, j + 1)
            close = n if close < 0 else close
            word.append(command[j + 1 : close])
            j = close + 1
            continue
        if ch == "\\":
            j += 1
            continue
        word.append(ch)
        j += 1
    out.append(command[i:start])
    out.append(command[start:j])
    if word:
        pending.append(("".join(word), strip_tabs))
    return j


def _skip_heredoc_bodies(command, i, pending):
    """Skip the body lines of each pending heredoc; return the index after the last terminator."""
    n = len(command)
    for word, strip_tabs in pending:
        while i < n:
            end = command.find("\n", i)
            line = command[i:] if end < 0 else command[i:end]
            i = n if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == word:
                break
    return i
