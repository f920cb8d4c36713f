"""Reminders that grow the memory: ask for a ``#lesson`` block once a session has earned one.

Two moments, one reminder per session (claim ``remind``):

* **a failure nothing recalled, then fixed.** A failing call whose failure brought back no lesson
  is noted per executable (``<key>.fails``). A later successful call of the same executable
  means the model found the fix: where the agent reports successes (Codex ``PostToolUse``,
  Gemini ``AfterTool``) that is seen directly; Claude Code registers no ``PostToolUse`` (a hook
  process on every successful call), so there the retry's ``PreToolUse`` marks the note
  ``tries`` and the next ``PreToolUse`` (or ``Stop``) without a failure in between counts it as
  fixed. The reminder then rides with that call's result.
* **the end of a turn after substantial work** (``Stop`` / Gemini's ``AfterAgent``): the
  transcript grew by ``stopReminderBytes`` or a failure was fixed. Context given at ``Stop``
  makes Claude Code continue the turn (measured with 2.1.197: one more model request per
  answer), which would replace the final answer, so ``Stop`` answers nothing: it arms the
  reminder (``remind:armed``) and the next prompt of the session carries it.

With the MCP server installed (``mcpInstalled`` in the config) the reminder names its ``record``
tool instead of the block. Standard library only; nothing here runs unless a note exists.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH119

import os

FAILS = "fails"
MAX_NOTED = 8
ERROR_CHARS = 160
COMMAND_CHARS = 120
#: Beyond these first words the executable is looked for (``sudo``, ``env`` …).
_WRAPPERS = frozenset(("sudo", "env", "time", "nohup", "exec", "command", "npx", "uv", "poetry"))
_RUNNERS = frozenset(("run", "exec", "x"))


def subject(event):
    """What a failure is about: the command's executable, else the tool's name."""
    command = event.get("command")
    if isinstance(command, str) and command.strip():
        return executable(command)
    tool = event.get("tool")
    return tool if isinstance(tool, str) and tool else None


def executable(command):
    """``pnpm`` for ``FOO=1 pnpm test``, ``pytest`` for ``python -m pytest``, ``alembic`` …"""
    words = command.split()
    i = 0
    while i < len(words) and "=" in words[i] and not words[i].startswith(("=", "-")):
        i += 1
    while i < len(words):
        word = os.path.basename(words[i])
        if word in _WRAPPERS or (word in _RUNNERS and i > 0):
            i += 1
            continue
        if word.startswith("python") and words[i + 1 : i + 2] == ["-m"] and i + 2 < len(words):
            return words[i + 2][:64]
        return word[:64] or None
    return None


def _first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line and not line.lower().startswith("exit code"):
            return line[:ERROR_CHARS]
    return ""


def on_failure(event, state, covered, stats):
    """Note a failure that no lesson covered (a covered one clears the note: nothing to learn)."""
    name = subject(event)
    session = state.get() if state is not None else None
    if not name or session is None or event.get("interrupted") or stats.get("recall") == "ignored":
        return
    notes = session.read_note(FAILS)
    notes = notes if isinstance(notes, dict) else {}
    if covered:
        if name not in notes:
            return
        notes.pop(name)
    else:
        command = event.get("command")
        notes.pop(name, None)
        notes[name] = {
            "error": _first_line(event.get("error")),
            "command": " ".join(command.split())[:COMMAND_CHARS]
            if isinstance(command, str)
            else "",
            "tries": 0,
        }
        while len(notes) > MAX_NOTED:
            notes.pop(next(iter(notes)))
    try:
        session.write_note(FAILS, notes)
    except OSError:
        return


def fixed_now(event, state, succeeded):
    """Failures this call shows fixed (their notes are removed); ``[]`` when there is no note.

    ``succeeded`` is True on an agent's success event, ``None`` on a pre-tool event.
    """
    if state is None or (hasattr(state, "has_note") and not state.has_note(FAILS)):
        return []
    session = state.get()
    if session is None:
        return []
    notes = session.read_note(FAILS)
    if not isinstance(notes, dict) or not notes:
        return []
    name = subject(event)
    fixed = []
    for noted, record in list(notes.items()):
        done = (succeeded and noted == name) or (
            succeeded is None and isinstance(record, dict) and record.get("tries", 0) >= 1
        )
        if done:
            fixed.append((noted, record if isinstance(record, dict) else {}))
            notes.pop(noted)
    if succeeded is None and name in notes and isinstance(notes[name], dict):
        notes[name]["tries"] = notes[name].get("tries", 0) + 1  # this call is the retry
    elif not fixed:
        return []
    try:
        session.write_note(FAILS, notes)
    except OSError:
        return []
    return fixed


def open_failures(session):
    notes = session.read_note(FAILS)
    return notes if isinstance(notes, dict) else {}


def how_to_record(manifest):
    if manifest.get("config", {}).get("mcpInstalled") is True:
        return "call the lessons MCP server's `record` tool with the mistake and the fix"
    return "write a #lesson block (tool, trigger, mistake, fix) in your reply"


def fixed_text(fixed, manifest):
    name, record = fixed[0]
    what = f"`{record.get('command') or name}`"
    error = record.get("error")
    said = f" ({error})" if error else ""
    return (
        f"Earlier in this session {what} failed{said}, no stored lesson covered it, and a later "
        f"`{name}` call worked. If the fix is worth keeping for future sessions, "
        f"{how_to_record(manifest)}."
    )


def work_text(manifest):
    return (
        "The last turn of this session did substantial work. If it taught something that a "
        f"future session should not have to rediscover, {how_to_record(manifest)}."
    )


def remind(session, text, stats):
    """The reminder text when this process takes the session's one reminder, else ``None``."""
    if session is None or session.has("remind") or not session.claim("remind"):
        return None
    stats["reminded"] = True
    return text


def on_stop(event, manifest, state, stats):
    """Arm the end-of-turn reminder for the next prompt; never answers anything at ``Stop``."""
    session = state.get() if state is not None else None
    if session is None or event.get("stop_active") or session.has("remind"):
        return
    fixed = fixed_now(event, state, None)
    if fixed:
        session.claim("remind:armed:" + fixed_text(fixed, manifest)[:400])
        return
    from lessons_core.hot import directives
    from lessons_core.hot import manifest as manifest_mod

    size = directives.transcript_size(event)
    need = manifest_mod.config_value(manifest, "stopReminderBytes", 0)
    if size is not None and need > 0 and size - directives.base(session) >= need:
        session.claim("remind:armed:" + work_text(manifest))


def armed(session, stats):
    """The armed reminder's text, taken once (``None`` when none is armed)."""
    if session is None:
        return None
    for name in session.seen():
        if name.startswith("remind:armed:"):
            return remind(session, name[len("remind:armed:") :], stats)
    return None
