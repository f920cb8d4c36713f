"""The hook process: stdin → event → decision → the agent's JSON on stdout (standard library only).

An adapter's ``hook.py`` calls :func:`run` with an object offering ``normalize(payload)`` (the
agent's JSON → a neutral event dict, or ``None`` to ignore it) and ``render(event, decision)``
(the decision → the agent's JSON dict, or ``None`` for no output). See docs/architecture.md.

Everything fails open: an oversized or malformed payload, a broken manifest, an adapter error —
any exception ends the call with exit status 0 and nothing on stdout, and leaves one line in the
opt-in log (``LESSONS_HOOK_LOG``). A hook that crashes or prints garbage would disturb the agent
far more than a lesson left undelivered.

Events are dispatched through ``HANDLERS``: event name → ``"module:function"``, imported only
when that event arrives. A handler is called as ``handler(event, manifest, state, environ,
stats)`` and returns a decision dict (see :func:`new_decision`); ``state`` is ``None`` (no
dedup: :func:`evaluate`) or a :class:`LazyState`; ``stats`` collects figures for the log line.
A missing handler module means "no opinion".
"""

import os
import sys
import time

from lessons_core.hot import fastjson, homecheck, paths
from lessons_core.hot import log as hook_log
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot.decision import new_decision, trailer, trailer_reserve

MAX_STDIN_BYTES = 4 * 1024 * 1024
RETRY_NOTE = "If this does not apply here, run the same call again."
COMMAND_IN_MESSAGE_CHARS = 200

HANDLERS = {
    "pre_tool": "lessons_core.hot.runner:handle_pre_tool",
    "post_tool": "lessons_core.hot.runner:handle_post_tool",
    "session_start": "lessons_core.hot.runner:handle_session_start",
    "subagent_start": "lessons_core.hot.runner:handle_subagent_start",
    "pre_compact": "lessons_core.hot.runner:handle_pre_compact",
    "stop": "lessons_core.hot.runner:handle_stop",
    # Failure-time and prompt-time recall search the store (hot/recall.py).
    "post_failure": "lessons_core.hot.recall:handle",
    "prompt": "lessons_core.hot.runner:handle_prompt",
}

DEFAULTS = {
    "injectionBudgetBytes": 4096,
    "maxLessonsPerInjection": 3,
    "compactionReinjectionThreshold": 7,
    "sessionStartBudgetBytes": 4096,
    "directiveReinjectThresholds": [],
    "stopReminderBytes": 0,
}


class LazyState:
    """Opens the session's dedup state on first use; ``get()`` is ``None`` when it is refused."""

    def __init__(self, event, environ, stats):
        self.event = event
        self.environ = environ
        self.stats = stats
        self._state: object = False  # False: not opened yet; None: refused

    def has_note(self, kind):
        """True when the session keeps a ``kind`` note: one ``stat``, the state left unopened.

        The file is only looked at here; reading it goes through :meth:`get` and its checks.
        """
        opened = self._state
        if opened is not False:  # opened already: ask it
            note_path = getattr(opened, "note_path", None)
            return note_path is not None and os.path.exists(note_path(kind))  # noqa: PTH110
        try:
            os.stat(self.note_file(kind))  # noqa: PTH116
        except (OSError, ValueError):
            return False
        return True

    def note_file(self, kind):
        """Where the session's ``kind`` note is, found without opening the state (no checks:
        a reader must take the file for what it is, one of ours or nothing)."""
        from lessons_core.hot import paths

        key = session_key_of(self.event).encode("utf-8", "replace")
        name = _sha256_hex(key)[:24] + "." + kind  # claims.session_key, without dedup
        return os.path.join(paths.state_dir(self.environ), name)  # noqa: PTH118

    def get(self):
        if self._state is False:
            from lessons_core.hot import claims

            try:
                self._state = claims.open_session(session_key_of(self.event), self.environ)
            except (OSError, claims.UnsafeStateDir) as exc:
                self.stats["state_error"] = str(exc)
                self._state = None
        return self._state


def _sha256_hex(data):
    """SHA-256 from the builtin module alone (``hot.digest`` also loads BLAKE2: not needed here)."""
    for name in ("_sha2", "_sha256"):
        try:
            return __import__(name).sha256(data).hexdigest()
        except (ImportError, AttributeError):
            continue
    from lessons_core.hot.digest import sha256  # pragma: no cover - no builtin module

    return sha256(data).hexdigest()  # pragma: no cover


def session_key_of(event):
    """The dedup record's name: the session, or the sub-agent inside it.

    A sub-agent starts with an empty context, so what its parent was given is not in its
    context: tool calls made inside a sub-agent (``agent_id`` in the payload) keep their own
    record, and a hint the parent already received is delivered to the sub-agent once too.
    """
    session_id = event.get("session_id") or ""
    agent_id = event.get("agent_id")
    if agent_id and event.get("event") != "subagent_start":
        return session_id + "\x00agent:" + agent_id
    return session_id


def _state_of(state):
    return state.get() if state is not None else None


# -- run ----------------------------------------------------------------------------------------


def run(adapter, stdin=None, stdout=None, environ=None):
    """Handle one hook call; always returns 0 (the exit status)."""
    started = time.perf_counter()
    env = os.environ if environ is None else environ
    stats = {"agent": getattr(adapter, "AGENT", None)}
    try:
        raw = _read_bounded(sys.stdin if stdin is None else stdin)
        if raw is None:
            stats["error"] = f"stdin larger than {MAX_STDIN_BYTES} bytes"
            return 0
        payload = fastjson.loads(_text_of(raw), lenient=True)
        if isinstance(payload, dict):
            stats["hook_event"] = payload.get("hook_event_name")
        event = adapter.normalize(payload)
        if not event:
            return 0
        untrusted = homecheck.problem(paths.lessons_home(env), ())
        if untrusted is not None:  # deliver nothing rather than what someone else put there
            stats["error"] = untrusted
            return 0
        stats["event"] = event.get("event")
        stats["agent"] = event.get("agent") or stats["agent"]
        if event.get("event") in ("post_failure", "prompt") and not event.get("deliver_hints"):
            from lessons_core.hot import recall  # recall needs only its small index

            manifest = recall.load_index(env)
            if event.get("event") == "post_failure" and manifest.get("failureHints"):
                # Some hints wait for their call to fail: match triggers on the full manifest.
                event["deliver_hints"] = True
                manifest = manifest_mod.load(environ=env)
        else:
            manifest = manifest_mod.load(environ=env)
        if env.get("LESSONS_HOOK_LOG"):
            stats["stale"] = manifest_mod.is_stale(manifest, env)
        state = LazyState(event, env, stats)
        decision = dispatch(event, manifest, state, env, stats)
        if decision.get("delivered"):
            from lessons_core.hot import deliveries  # the outcome loop's log

            deliveries.record(event, decision, manifest, env, stats)
        decision = catch_up(adapter, event, decision, state, env, stats)
        stats["injected"] = decision.get("delivered")
        stats["dropped"] = decision.get("dropped")
        answer = adapter.render(event, decision)
        if answer is not None:
            text = fastjson.dumps(answer)
            out = sys.stdout if stdout is None else stdout
            out.write(text)
            out.flush()
    except Exception as exc:  # the hook fails open, always
        stats["error"] = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        stats["duration_ms"] = round((time.perf_counter() - started) * 1000, 3)
        hook_log.write(env, stats)
    return 0


def catch_up(adapter, event, decision, state, environ, stats):
    """``decision`` plus the lessons of calls the agent refused without firing a hook.

    See :mod:`lessons_core.hot.catchup`; only adapters that say how their transcript shows a
    refusal take part. Whatever goes wrong there is logged, and the event keeps its own answer.
    """
    if getattr(adapter, "REFUSAL_MARK", None) is None:
        return decision
    try:
        from lessons_core.hot import catchup

        if not catchup.applies(event, decision):
            return decision
        given = decision.get("delivered") or ()
        caught = catchup.lessons(adapter, event, state, environ, stats, given)
    except Exception as exc:  # the event proceeds without them
        stats["catchup_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return decision
    return merge_decisions(decision, caught) if caught else decision


def _text_of(raw):
    """The payload as text: UTF-8, with a byte sequence that is not (a lone surrogate encoded
    raw, a stray byte) read as U+FFFD instead of losing the whole call's lessons."""
    if isinstance(raw, str):
        return raw
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _read_bounded(stream):
    reader = getattr(stream, "buffer", stream)
    data = reader.read(MAX_STDIN_BYTES + 1)
    if data is None:
        return b""
    if len(data) > MAX_STDIN_BYTES:
        return None
    return data


def dispatch(event, manifest, state, environ, stats):
    """Call the handler registered for ``event["event"]``; no handler → an empty decision.

    A failure event that also asks for hints (``deliver_hints``, see :func:`handle_post_tool`)
    gets both: the call's hints first, then whatever the failure handler adds.
    """
    decision = _dispatch_one(event, manifest, state, environ, stats)
    if event.get("event") == "post_failure":
        if event.get("deliver_hints"):
            hints = handle_post_tool(event, manifest, state, environ, stats)
            decision = merge_decisions(hints, decision)
        if state is not None:
            from lessons_core.hot import reminders

            reminders.on_failure(event, state, bool(decision.get("delivered")), stats)
    return decision


def merge_decisions(first, second):
    """One decision carrying both contexts (``first`` leading); a deny is never merged in."""
    from lessons_core.hot.select import SEPARATOR

    merged = new_decision()
    texts = [d.get("context") for d in (first, second) if d.get("context")]
    merged["context"] = SEPARATOR.join(texts) if texts else None
    merged["delivered"] = list(first.get("delivered") or []) + list(second.get("delivered") or [])
    merged["dropped"] = list(first.get("dropped") or []) + list(second.get("dropped") or [])
    if merged["delivered"] or merged["dropped"]:
        merged["trailer"] = trailer(merged["delivered"], merged["dropped"])
    return merged


def _dispatch_one(event, manifest, state, environ, stats):
    target = HANDLERS.get(event.get("event"))
    if target is None:
        return new_decision()
    module_name, _, attr = target.partition(":")
    if module_name == __name__:
        handler = globals()[attr]
    else:
        try:
            module = __import__(module_name, fromlist=[attr])
        except ImportError:
            return new_decision()
        handler = getattr(module, attr, None)
        if handler is None:
            return new_decision()
    decision = handler(event, manifest, state, environ, stats)
    return decision if decision is not None else new_decision()


def evaluate(event, manifest, state=None, environ=None):
    """The decision for ``event`` in-process; with ``state=None`` no dedup state is touched.

    For adapters' tests and ``lessons explain``. ``state`` may be a :class:`LazyState` or any
    object whose ``get()`` returns a :class:`lessons_core.hot.claims.SessionState`.
    """
    env = os.environ if environ is None else environ
    if state is not None and not hasattr(state, "get"):
        state = _Fixed(state)
    return dispatch(event, manifest, state, env, {})


class _Fixed:
    def __init__(self, state):
        self._state = state

    def get(self):
        return self._state


# -- pre_tool -----------------------------------------------------------------------------------


def handle_pre_tool(event, manifest, state, environ, stats):
    """Guards deny every matching call; a nudge denies once; hints become context.

    A call that is not denied and can carry context may also bring the session's directives
    back (:mod:`lessons_core.hot.directives`), the memory reminder
    (:mod:`lessons_core.hot.reminders`) and, on Gemini, the compaction handoff.
    """
    decision = tool_lessons(event, manifest, state, environ, stats)
    if decision.get("deny") or state is None or event.get("deliver_hints") is False:
        return decision
    return with_extras(decision, event, manifest, state, environ, stats)


def with_extras(decision, event, manifest, state, environ, stats):
    """``decision`` plus what the session itself has due: handoff, directives, a reminder.

    On most calls nothing is due, and finding that out costs at most two ``stat`` calls and no
    import: the modules that deliver are imported only when something is there to deliver.
    """
    agent_call = not event.get("agent_id")
    late = bool(event.get("late_handoff")) and state.has_note("handoff")
    grown = agent_call and _transcript_past_threshold(event, manifest)
    kind = event.get("event")
    fails = agent_call and kind in ("pre_tool", "post_tool") and state.has_note("fails")
    if not (late or grown or fails):
        return decision
    extra = new_decision()
    texts = []
    if late:
        text = _late_handoff(event, manifest, state, stats)
        if text:
            texts.append(text)
    if grown:
        from lessons_core.hot import directives

        due = directives.due(event, manifest, state, environ, stats)
        if due is not None:
            chosen, dropped = due
            if chosen:
                texts.append(directives.HEADER + "\n\n" + "\n\n".join(t for _, t, _ in chosen))
            extra["delivered"] = [i for i, _, _ in chosen]
            extra["dropped"] = dropped
    if fails:
        from lessons_core.hot import reminders

        fixed = reminders.fixed_now(event, state, True if kind == "post_tool" else None)
        if fixed:
            text = reminders.remind(state.get(), reminders.fixed_text(fixed, manifest), stats)
            if text:
                texts.append(text)
    if not texts and not extra["dropped"]:
        return decision
    extra["context"] = "\n\n".join(texts) if texts else None
    return merge_decisions(decision, extra)


def _transcript_past_threshold(event, manifest):
    """Has the transcript reached the smallest directive threshold? (One ``stat``.)"""
    steps = manifest.get("config", {}).get("directiveReinjectThresholds")
    path = event.get("transcript_path")
    if not steps or not isinstance(steps, list) or not isinstance(path, str) or not path:
        return False
    smallest = min((v for v in steps if isinstance(v, int) and v > 0), default=None)
    if smallest is None:
        return False
    try:
        return os.stat(path).st_size >= smallest  # noqa: PTH116
    except (OSError, ValueError):
        return False


def _late_handoff(event, manifest, state, stats):
    """The handoff for agents without a post-compaction session start (Gemini).

    A tentative note (written before the agent knew whether it would compact) is delivered only
    when the transcript shows the compaction; then the session is re-armed as at ``PreCompact``.
    Without that evidence the note is dropped: the agent did not compact.
    """
    from lessons_core.hot import handoff

    if not handoff.pending(state):
        return None
    session = state.get()
    note = session.read_note("handoff")
    if not isinstance(note, dict):
        return None
    budget = manifest_mod.config_value(manifest, "sessionStartBudgetBytes", 4096)
    budget = int(budget * handoff.SHARE)
    if "confirm" not in note:
        return handoff.take(session, budget, stats, note)
    if not handoff.compacted(note.get("confirm")):
        session.drop_note("handoff")
        stats["handoff"] = "no compaction"
        return None
    if not session.claim(f"handoff@{note.get('stamp')}"):
        return None  # a parallel call delivers it
    session.drop_note("handoff")
    from lessons_core.hot import directives

    rearm(session, manifest)
    directives.after_compaction(session, event, manifest)
    stats["compacted"] = True
    return handoff.text_of(note, budget, stats)


def tool_lessons(event, manifest, state, environ, stats):
    """The trigger-matched lessons of one tool call (guards, nudges, hints)."""
    from lessons_core.hot import match, select

    decision = new_decision()
    ids = match.matching(manifest, event, environ)
    stats["candidates"] = len(ids)
    if not ids:
        return decision
    lessons = manifest["lessons"]
    budget = manifest_mod.config_value(manifest, "injectionBudgetBytes", 4096)
    limit = manifest_mod.config_value(manifest, "maxLessonsPerInjection", 3)
    ranked = select.rank(manifest, ids, event.get("cwd"))
    by_type: dict[str, list[str]] = {"guard": [], "nudge": [], "hint": []}
    for lesson_id in ranked:
        kind = lessons[lesson_id].get("type", "hint")
        by_type.get(kind, by_type["hint"]).append(lesson_id)

    # A post-tool event that carries hints (see handle_post_tool) never denies: the call ran.
    after_the_call = event.get("event") in ("post_tool", "post_failure")
    if after_the_call:
        by_type["guard"] = by_type["nudge"] = []

    if by_type["guard"]:
        command = _short_command(event.get("command"))
        items = [
            (
                i,
                _with_command(lessons[i].get("text", ""), command),
                _with_command(lessons[i].get("short", ""), command),
            )
            for i in by_type["guard"]
        ]
        chosen, dropped = select.fit(items, budget, limit)
        return _finish(decision, chosen, dropped, deny=True)

    session = _state_of(state)
    if state is not None and session is None:
        return decision  # untrusted state dir: deliver nothing that needs dedup

    if by_type["nudge"]:
        fresh = [i for i in by_type["nudge"] if session is None or not session.has("nudge:" + i)]
        items = [(i, lessons[i].get("text", ""), lessons[i].get("short", "")) for i in fresh]
        chosen, dropped = select.fit(items, budget, limit)
        chosen, lost = _claim(session, chosen, "nudge:")
        if chosen:
            decision = _finish(decision, chosen, dropped + lost, deny=True)
            decision["deny"] = decision["deny"] + "\n\n" + RETRY_NOTE
            return decision

    if event.get("deliver_hints") is False:
        # The agent cannot show context before this call (Gemini's BeforeTool): the hints are
        # left unclaimed for the post-tool event of the same call.
        return decision

    hints = by_type["hint"]
    if event.get("event") != "post_failure":
        # Hints the outcome loop found noisy ride only with a failing call's result.
        hints = [i for i in hints if lessons[i].get("when") != "failure"]
    if session is not None:
        seen = [i for i in hints if session.has(i)]
        if seen:
            stats["seen"] = len(seen)
            hints = [i for i in hints if i not in seen]
    items = [(i, lessons[i].get("text", ""), lessons[i].get("short", "")) for i in hints]
    chosen, dropped = select.fit(items, budget, limit)
    chosen, lost = _claim(session, chosen, "")
    return _finish(decision, chosen, dropped + lost, deny=False)


def handle_post_tool(event, manifest, state, environ, stats):
    """Hints delivered with a call's result, for agents that ask for it (``deliver_hints``).

    Gemini drops context given before a tool runs, so its adapter marks the pre-tool event
    ``deliver_hints: False`` (guards and nudges only) and the post-tool event of the same call
    ``deliver_hints: True``; the hints then ride along with the result, as elsewhere.
    """
    if not event.get("deliver_hints"):
        if state is None or event.get("agent_id") or not state.has_note("fails"):
            return new_decision()
        # Codex reports every call here: a success may show a noted failure fixed.
        from lessons_core.hot import reminders

        fixed = reminders.fixed_now(event, state, True)
        text = fixed and reminders.remind(state.get(), reminders.fixed_text(fixed, manifest), stats)
        decision = new_decision()
        decision["context"] = text or None
        return decision
    return handle_pre_tool(event, manifest, state, environ, stats)


def handle_prompt(event, manifest, state, environ, stats):
    """Recall on the prompt, plus a reminder armed at the last stop (and Gemini's handoff),
    and, when the prompt corrects the agent, a line asking for a lesson about it."""
    from lessons_core.hot import recall, reminders

    decision = recall.handle(event, manifest, state, environ, stats)
    if state is None:
        return decision
    texts = []
    if event.get("late_handoff"):
        text = _late_handoff(event, manifest, state, stats)
        if text:
            texts.append(text)
    session = state.get()
    text = reminders.armed(session, stats)
    if text:
        texts.append(text)
    text = _correction(event, manifest, session, stats)
    if text:
        texts.append(text)
    if not texts:
        return decision
    extra = new_decision()
    extra["context"] = "\n\n".join(texts)
    return merge_decisions(extra, decision)


def _correction(event, manifest, session, stats):
    """The line asking for a ``#lesson`` when the prompt corrects the agent, once per
    correction (a claim on its words), never for a sub-agent's prompt."""
    from lessons_core.hot import corrections

    said = corrections.correction(event.get("prompt"))
    if not said or session is None or event.get("agent_id"):
        return None
    if not session.claim("correct:" + " ".join(said.split())[:160]):
        return None
    stats["correction"] = True
    return corrections.ask_text(manifest)


def handle_stop(event, manifest, state, environ, stats):
    """End of a turn: arm the memory reminder for the next prompt; answer nothing."""
    from lessons_core.hot import reminders

    if state is not None and not event.get("agent_id"):
        reminders.on_stop(event, manifest, state, stats)
    return new_decision()


def _claim(session, chosen, prefix):
    """Keep the chosen lessons this process managed to claim; the rest lost a race."""
    if session is None:
        return chosen, []
    kept = []
    lost = []
    for item in chosen:
        if session.claim(prefix + item[0]):
            kept.append(item)
        else:
            lost.append({"id": item[0], "why": "seen"})
    return kept, lost


def _finish(decision, chosen, dropped, deny):
    from lessons_core.hot.select import SEPARATOR

    decision["dropped"] = dropped
    decision["delivered"] = [lesson_id for lesson_id, _, _ in chosen]
    if chosen:
        text = SEPARATOR.join(t for _, t, _ in chosen)
        decision["deny" if deny else "context"] = text
    if chosen or dropped:
        decision["trailer"] = trailer(decision["delivered"], dropped)
    return decision


def _short_command(command):
    if not isinstance(command, str):
        return ""
    command = " ".join(command.split())
    if len(command) > COMMAND_IN_MESSAGE_CHARS:
        return command[: COMMAND_IN_MESSAGE_CHARS - 1] + "…"
    return command


def _with_command(text, command):
    return text.replace("{command}", command) if text else text


# -- session start, subagent start, compaction -------------------------------------------------


def handle_session_start(event, manifest, state, environ, stats):
    """Protocol text and protocol/directive lessons; ``clear`` wipes, ``compact`` re-arms."""
    from lessons_core.hot import autoscan  # a detached background scan when due; never raises

    autoscan.maybe_start(environ)
    session = _state_of(state)
    source = event.get("source")
    if session is not None:
        if source == "clear":
            session.wipe()
        elif source == "compact":
            rearm(session, manifest)
            from lessons_core.hot import handoff

            budget = manifest_mod.config_value(manifest, "sessionStartBudgetBytes", 4096)
            carried = handoff.take(session, int(budget * handoff.SHARE), stats)
            session.claim("session")
            return session_block(event, manifest, environ, stats, carried)
        else:
            _drop_tentative(session)
        if source == "resume":
            _catch_up_from_now(event, session, stats)
            if session.has("session"):
                return new_decision()  # the transcript already holds the block
        if source in (None, "startup"):
            from lessons_core.hot import claims

            claims.prune(session.root)
        session.claim("session")
        return session_block(event, manifest, environ, stats, session=session)
    return session_block(event, manifest, environ, stats)


def _catch_up_from_now(event, session, stats):
    """Refusals from before a resume were the earlier life's: catch-up reads on from here."""
    from lessons_core.hot import catchup

    try:
        catchup.start_at_end(event, session)
    except Exception as exc:  # no note written: catch-up reads the newest tail, as without one
        stats["catchup_error"] = f"{type(exc).__name__}: {exc}"[:300]


def _drop_tentative(session):
    """A tentative handoff does not outlive its chat: a resumed chat writes the very line that
    would confirm it."""
    note = session.read_note("handoff")
    if isinstance(note, dict) and "confirm" in note:
        session.drop_note("handoff")


def handle_subagent_start(event, manifest, state, environ, stats):
    """A subagent starts with an empty context: give it the same block, state untouched."""
    return session_block(event, manifest, environ, stats)


def handle_pre_compact(event, manifest, state, environ, stats):
    """Compaction is about to drop delivered lessons from the context: re-arm the important ones."""
    session = _state_of(state)
    if session is None:
        return new_decision()
    from lessons_core.hot import directives, handoff

    marker = event.get("compaction_marker")
    if marker:
        # The agent may not compact at all (Gemini asks before every turn): a tentative note,
        # settled by the next event that can carry context (see _late_handoff).
        path = event.get("transcript_path")
        size = directives.transcript_size(event)
        if size is not None:
            confirm = {"path": path, "offset": size, "marker": marker}
            handoff.write(session, manifest, stats, confirm)
        return new_decision()
    handoff.write(session, manifest, stats)
    rearm(session, manifest)
    directives.after_compaction(session, event, manifest)
    return new_decision()


def rearm(session, manifest):
    """Release the claims of lessons at or above the re-injection threshold (and the session
    block), so they can be delivered again after compaction."""
    important = manifest.get("reinject")
    if not isinstance(important, list):  # an older manifest: look at every lesson
        threshold = manifest_mod.config_value(manifest, "compactionReinjectionThreshold", 7)
        important = [
            lesson_id
            for lesson_id, lesson in manifest.get("lessons", {}).items()
            if lesson.get("priority", 0) >= threshold
        ]
    names = ["session"]
    for lesson_id in important:
        names.append(lesson_id)
        names.append("nudge:" + lesson_id)
    session.release(names)


def _in_scope(ids, lessons, subject, environ):
    """Those of ``ids`` in the manifest whose scope, if any, is the project the event is in."""
    ids = [i for i in ids if i in lessons]
    if any(lessons[i].get("scope") for i in ids):
        ids = [
            i
            for i in ids
            if not lessons[i].get("scope") or subject.project(environ) == lessons[i]["scope"]
        ]
    return ids


#: Heads the session-start line that tells the user what waits for them (``notices``).
NOTICE_HEAD = "Tell the user (a notice from lessons, not a lesson to follow): "


#: The most recurring lessons (``manifest["recurring"]``) a session start tells.
RECURRING_AT_START = 3
#: Heads the recurring lessons in the session-start block.
RECURRING_HEAD = "Mistakes made here in more than one earlier session:"


def session_block(event, manifest, environ, stats, carried=None, session=None):
    """The protocol text plus the ranked session lessons, within ``sessionStartBudgetBytes``.

    ``carried`` (the compaction handoff) follows the protocol and counts in the budget, as does
    the trailer. A lesson is delivered whole, or as its summary, or not at all: never cut.
    With the new session's ``session`` state, a few recurring hints follow
    (:func:`lessons_core.compiler.build.recurring`), each claimed as a hint is, so its trigger
    does not give it again and a failure it is about gives it once more.
    """
    from lessons_core.hot import match, select

    decision = new_decision()
    budget = manifest_mod.config_value(manifest, "sessionStartBudgetBytes", 4096)
    protocol = manifest.get("protocol") or ""
    lessons = manifest.get("lessons", {})
    subject = match.Subject(event)
    ids = _in_scope(manifest.get("session", ()), lessons, subject, environ)
    stats["candidates"] = len(ids)
    ranked = select.rank(manifest, ids, event.get("cwd"))
    told = []
    if session is not None:
        told = _in_scope(manifest.get("recurring", ()), lessons, subject, environ)
        told = told[:RECURRING_AT_START]
    used = len(protocol.encode("utf-8"))
    if carried:
        used += (len(select.SEPARATOR) if protocol else 0) + len(carried.encode("utf-8"))
    if told:
        used += len(select.SEPARATOR) + len(RECURRING_HEAD.encode("utf-8"))
    items = [(i, lessons[i].get("text", ""), lessons[i].get("short", "")) for i in ranked + told]
    # The trailer the adapter appends counts too: its frame is set aside, and each chosen
    # lesson pays for its id in it, so context plus trailer stay within the budget.
    room = budget - trailer_reserve(len(items)) if items else budget
    chosen, dropped = select.fit_after(items, room, used, len(items), with_ids=True)
    if told:
        kept, lost = _claim(session, [item for item in chosen if item[0] in told], "")
        chosen = [item for item in chosen if item[0] not in told or item in kept]
        dropped.extend(lost)
    parts = [protocol] if protocol else []
    if carried:
        parts.append(carried)
    head = RECURRING_HEAD
    for lesson_id, text, _ in chosen:
        if head and lesson_id in told:
            parts.append(head)
            head = ""
        parts.append(text)
    notices = manifest.get("notices")
    if isinstance(notices, list) and notices:
        # Our own words about what waits (never a source's text): the user hears of it here.
        parts.append(NOTICE_HEAD + " ".join(str(n) for n in notices[:3]))
    if parts:
        decision["context"] = select.SEPARATOR.join(parts)
    decision["delivered"] = [i for i, _, _ in chosen]
    decision["dropped"] = dropped
    if chosen or dropped:
        decision["trailer"] = trailer(decision["delivered"], dropped)
    return decision
