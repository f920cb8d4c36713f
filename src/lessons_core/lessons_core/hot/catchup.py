"""Failures no hook saw: refused calls read back from the session's transcript (stdlib only).

Some agents check a tool call's input before running it, and a call refused there fires no hook
at all: Claude Code answers an Edit whose text to replace is not in the file, or a Write of a
file not read yet, with an error result and nothing else, neither ``PreToolUse`` nor
``PostToolUseFailure``. These refusals are among the commonest mistakes, and the store has
failure-time lessons about them, recalled by their error text; without a hook they would never
come back at the failure.

So every event of the session that can carry context (a call before or after it runs, a failed
call, a prompt) first reads what the transcript gained: its complete lines after the offset kept
in the session's ``tail`` note, at most :data:`MAX_TAIL` bytes (the newest). The agent's hot
adapter says what a refusal looks like there (the seam below). Each refusal found is claimed
once per session (``failure:<call id>``), its error text goes through the failure-time recall
of :mod:`lessons_core.hot.recall`, and what recall finds rides with the current event's context,
once per session like every delivery and within recall's byte budget. The delivery log names
the refused call, so the outcome loop judges the lesson against that failure as if its hook had
fired. A failure a hook did report claims its call id there, so it is never caught up again.

The offset is written when a refusal was found or when it moved :data:`SAVE_SPAN` bytes, not
after every read: opening the session's state to write it costs a hook call far more than
reading again the few kilobytes a call or two add to a transcript, and the claims keep a
refusal read twice from being handled twice. A transcript that has not grown past the offset
costs the note's read and one ``stat``.

The seam, optional (an adapter without it costs one ``getattr``):

* ``REFUSAL_MARK`` — bytes every transcript line holding a refusal carries; lines without them
  are not parsed, and a tail without them costs one ``bytes.find``;
* ``refusals(record)`` — ``[(call id, error text)]`` for one parsed transcript line: the error
  results of calls that no failure hook saw;
* ``refused_call(record, call_id, cwd)`` — the call's event fields (``tool``, ``command``,
  ``paths``, ``content``) if this line is the one that made it, else ``None``.

Any error here is swallowed by the caller and noted in the hook log; the event goes on.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH116

import os

from lessons_core.hot import fastjson, safefile

#: At most this many new bytes of the transcript are read per event (the newest ones).
MAX_TAIL = 256 * 1024
#: The offset is written once it has moved this far (or when a refusal was found).
SAVE_SPAN = 32 * 1024
#: The session note keeping how far the transcript was read (``{"path", "offset"}``).
NOTE = "tail"
#: A path and a number: more than any note of ours holds.
MAX_NOTE_BYTES = 8 * 1024
#: The claim of a failed call, made by the process that handles it (or by its failure hook).
CLAIM = "failure:"
#: Events whose context reaches the model.
EVENTS = ("pre_tool", "post_tool", "post_failure", "prompt")


def applies(event, decision):
    """Can this event carry a refusal's lesson? (No file is touched to find out.)

    Not inside a sub-agent (its transcript is another one, and the parent's lessons are not its
    business), not on an event that cannot show context (``deliver_hints: False``) or denies
    its call (the next event carries them instead).
    """
    if event.get("event") not in EVENTS or event.get("agent_id"):
        return False
    if event.get("deliver_hints") is False or decision.get("deny"):
        return False
    return bool(event.get("transcript_path"))


def lessons(adapter, event, state, environ, stats, given=()):
    """The decision carrying the lessons of the refusals the transcript gained, or ``None``.

    Their deliveries are logged here, each under the refused call it answers (the caller logs
    the event's own). Recall claims what it delivers, as at a failure's own hook; a lesson the
    event itself gives (``given``) is not given twice in one answer.
    """
    if event.get("event") == "post_failure":
        seen_by_hook(event, state)
    failures = refused_calls(adapter, event, state, stats)
    if not failures:
        return None
    from lessons_core.hot import deliveries, recall

    manifest = recall.load_index(environ)
    found = []
    owner = {}
    figures: dict[str, object] = {}
    for failure in failures:
        for item in recall.failure_found(failure, manifest, environ, figures) or ():
            if item[0] not in owner and item[0] not in given:
                owner[item[0]] = failure
                found.append(item)
    if "recall_error" in figures:
        stats["catchup_recall_error"] = figures["recall_error"]
    if not found:
        return None
    caught = recall.deliver_failure(found, manifest, state, figures)
    delivered = caught["delivered"]
    for failure in failures:
        ids = [i for i in delivered if owner[i] is failure]
        if ids:
            deliveries.record(failure, {"delivered": ids}, manifest, environ, {"recalled": ids})
    stats["caught_recalled"] = list(delivered)
    return caught


def seen_by_hook(event, state):
    """A failure its hook reported: claim its call, so no later event handles it again."""
    call_id = event.get("call_id")
    session = state.get()
    if isinstance(call_id, str) and call_id and session is not None:
        session.claim(CLAIM + call_id)


def refused_calls(adapter, event, state, stats):
    """The failure events of the calls the transcript shows refused since the last look.

    Only complete lines are read (a line still being written waits for the next event). Each
    refusal is claimed here, so exactly one hook process handles it.
    """
    path = event["transcript_path"]
    saved = saved_offset(state.note_file(NOTE), path)
    try:
        size = os.stat(path).st_size
    except OSError:  # no transcript (yet): nothing to catch up
        return []
    if saved is not None and size <= saved:
        return []
    start = max(saved or 0, size - MAX_TAIL)
    if saved is not None and start > saved:
        stats["catchup_skipped"] = start - saved
    # A line starts at the saved offset and at the file's start; elsewhere the byte before
    # ``start`` is read too, and the lines begin after the first line feed.
    known = start == (saved or 0)
    base = start if known else start - 1
    data = read_from(path, base, size - base)
    skip = 0 if known else data.find(b"\n") + 1
    end = data.rfind(b"\n") + 1
    if end <= skip:
        return []
    chunk = data[skip:end]
    found = adapter.REFUSAL_MARK in chunk
    done = base + end  # the offset just past the last complete line
    moved = done - (base + skip if saved is None else saved)
    if not found and moved < SAVE_SPAN:
        return []  # read again next time: cheaper than writing the offset now
    session = state.get()
    if session is None:  # an untrusted state directory: nothing that needs dedup
        return []
    save_offset(session, path, done)
    return refusals_in(adapter, event, session, chunk, stats) if found else []


def start_at_end(event, session):
    """A resumed session: whatever its transcript holds was seen in its earlier life, so the
    catch-up starts at its end (the first event would otherwise read the newest
    :data:`MAX_TAIL` bytes and give, once more, the lesson of a refusal from before the
    resume)."""
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path or session is None:
        return
    try:
        size = os.stat(path).st_size
    except OSError:  # no transcript (yet): there is nothing old to pass over
        return
    save_offset(session, path, size)


def save_offset(session, path, offset):
    """Keep in the session's note how far the transcript ``path`` has been read."""
    record = fastjson.dumps({"path": path, "offset": offset})
    safefile.overwrite(session.note_path(NOTE), record.encode("utf-8", "replace"))


def saved_offset(note_path, path):
    """The offset the session's note keeps for the transcript ``path``, or ``None``.

    The note is read as a file of ours (not a link, not writable by others) or not at all;
    one that names another transcript, or is damaged, counts as none.
    """
    try:
        note = fastjson.loads(safefile.read(note_path, MAX_NOTE_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or note.get("path") != path:
        return None
    value = note.get("offset")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def read_from(path, start, length):
    """``length`` bytes of the transcript from ``start``: a regular file only, never waiting."""
    fd, _ = safefile.open_read(path, trusted=False, follow=True)
    try:
        os.lseek(fd, start, os.SEEK_SET)
        return safefile.read_fd(fd, length)
    finally:
        os.close(fd)


def refusals_in(adapter, event, session, chunk, stats):
    """The refusals in ``chunk`` (complete lines) that no process handled yet, as failures."""
    mark = adapter.REFUSAL_MARK
    lines = chunk.split(b"\n")
    out = []
    for index, line in enumerate(lines):
        if mark not in line:
            continue
        for call_id, error in adapter.refusals(_record(line)):
            if not session.claim(CLAIM + call_id):
                continue  # its hook saw it, or another process took it
            failure = failure_event(event, call_id, error)
            failure.update(_call(adapter, lines[:index], call_id, event.get("cwd")) or {})
            out.append(failure)
    stats["caught"] = [f["call_id"] for f in out]
    return out


def _record(line):
    try:
        return fastjson.loads(line, lenient=True)
    except ValueError:
        return None


def _call(adapter, before, call_id, cwd):
    """The refused call's fields, from the newest earlier line that names its id."""
    needle = call_id.encode("utf-8", "replace")
    for line in reversed(before):
        if needle in line:
            fields = adapter.refused_call(_record(line), call_id, cwd)
            if fields is not None:
                return fields
    return None


def failure_event(event, call_id, error):
    """The failure event of a refused call, as its failure hook would have sent it."""
    failure = dict(event)
    failure.update(
        {
            "event": "post_failure",
            "call_id": call_id,
            "error": error,
            "interrupted": False,
            "tool": None,
            "command": None,
            "paths": [],
            "content": None,
            "prompt": None,
        }
    )
    return failure
