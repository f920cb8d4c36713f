"""Read Codex CLI rollouts (``sessions/YYYY/MM/DD/rollout-*.jsonl``) into normalized events.

Every line is ``{timestamp, type, payload}``. Tool calls (``function_call``, ``custom_tool_call``,
``local_shell_call``) and their outputs are separate ``response_item`` lines linked by
``call_id``; the output carries no success flag, so the exit code is read from the text in any of
its known shapes: a JSON string with ``metadata.exit_code``, freeform ``Exit code: N``, and the
unified-exec ``Process exited with code N``. A unified-exec command that is still running when
its first output is written finishes later, in a ``write_stdin`` poll or an
``exec_command_end`` event; both are folded back onto the original call.

Pre-envelope rollouts (bare items without ``payload``) are read leniently: a line that looks
like a response item is treated as one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_codex.code_mode import SCRIPT_TOOL, script_call, script_output
from lessons_codex.failures import codex_exit_code, unwrap_sandbox
from lessons_codex.hot_codex import patch_header
from lessons_codex.hot_names import NATIVE_TO_CANONICAL
from lessons_codex.roots import transcript_roots as transcript_roots
from lessons_core.api import as_text, classify_text, iter_spans, loads
from lessons_core.api import events as ev

AGENT = "codex"

_CALL_ID = re.compile(rb'"call_id":\s*"([^"]+)"')
_OK_MARKERS = (b"Process exited with code 0\\n", b"Exit code: 0\\n", b'\\"exit_code\\":0,')
_RUNNING = re.compile(r"Process running with session ID (\d+)")
_SESSION_IN_NAME = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl?$"
)
_GENERIC_FAILURE = re.compile(r"\A(?:err(?:or)?:|\S+ failed:|failed to )", re.IGNORECASE)
_NEEDLES = (
    b"function_call",
    b"custom_tool_call",
    b"local_shell_call",
    b'"message"',
    b"session_meta",
    b"turn_context",
    b"compact",
    b"exec_command_end",
    b"patch_apply_end",
    b"user_message",
    b'"instructions"',
)
#: ``{"timestamp":…,"type":"<record>","payload":{"type":"<item>"`` at the start of a line.
_HEAD = re.compile(rb'\{"timestamp":"[^"]*","type":"(\w+)","payload":\{(?:"type":"(\w+)")?')
#: Record and payload types the reader uses; every other line is skipped unparsed.
_WANTED = frozenset(
    {
        b"session_meta",
        b"turn_context",
        b"compacted",
        b"message",
        b"function_call",
        b"function_call_output",
        b"custom_tool_call",
        b"custom_tool_call_output",
        b"local_shell_call",
        b"compaction",
        b"user_message",
        b"exec_command_end",
        b"patch_apply_end",
    }
)
_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "compaction",
    }
)
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})


def canonical(name: str) -> str:
    return str(NATIVE_TO_CANONICAL.get(name, name))


def _argv_to_command(argv: list[Any]) -> str:
    parts = [str(a) for a in argv]
    if len(parts) >= 3 and parts[0] in _SHELLS and parts[1] in ("-lc", "-c"):
        return parts[2]
    return " ".join(parts)


def _command(name: str, args: Any) -> str | None:
    if not isinstance(args, dict):
        return None
    for key in ("cmd", "command"):
        value = args.get(key)
        if isinstance(value, str):
            return str(value)
        if isinstance(value, list):
            return _argv_to_command(value)
    return None


def _where(args: Any) -> tuple[str | None, bool]:
    """The working directory a command names for itself (``workdir``) and whether it asked to
    run outside the sandbox (``sandbox_permissions: require_escalated``, or the older
    ``with_escalated_permissions``): the same command run elsewhere, or escalated, is another
    call, and often the one that fixed a failure."""
    if not isinstance(args, dict):
        return None, False
    workdir = args.get("workdir")
    escalated = (
        args.get("sandbox_permissions") == "require_escalated"
        or args.get("with_escalated_permissions") is True
    )
    return (workdir if isinstance(workdir, str) and workdir else None), escalated


def _patch_edit(patch: str) -> tuple[str, str] | None:
    """The lines a one-file patch expects in the file (its context and removed lines) and the
    lines it writes there (its context and added lines): the texts of an edit, compared with
    the patch that later worked to say why this one did not apply."""
    expected: list[str] = []
    written: list[str] = []
    for line in patch.splitlines():
        if line.startswith(("***", "@@")):
            continue
        mark, rest = line[:1], line[1:]
        if mark in (" ", "-"):
            expected.append(rest)
        if mark in (" ", "+"):
            written.append(rest)
    return ("\n".join(expected), "\n".join(written)) if expected else None


def _parse_args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):  # (the model wrote it: it may nest without end)
            return raw
    return raw


def _output(value: Any) -> tuple[str, int | None]:
    """Text and exit code of a tool output in any of its recorded shapes."""
    text = as_text(value)
    scripted = script_output(text) if text.startswith("Script completed") else None
    if scripted is not None:  # code mode: the result of the script's one call
        printed, code, session = scripted
        if session is not None:
            return f"Process running with session ID {session}\n{printed}", None
        return printed, code
    stripped = text.lstrip()
    if stripped.startswith("{") and '"metadata"' in stripped[:20000]:
        try:
            doc = json.loads(stripped)
        except (ValueError, RecursionError):  # a command's output: it may nest without end
            doc = None
        if isinstance(doc, dict):
            meta = doc.get("metadata")
            inner = as_text(doc.get("output"))
            if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int):
                return inner, meta["exit_code"]
            return inner or text, None
    code = codex_exit_code(text)
    # Freeform and unified-exec outputs put a header (exit code, wall time, chunk id) before
    # ``Output:``; what the command printed is after it.
    cut = text.find("Output:\n", 0, 600)
    if cut >= 0 and code is not None:
        text = text[cut + len("Output:\n") :]
    return text, code


def _failure(text: str, code: int | None) -> str | None:
    if code == 0:
        return None
    kind = classify_text(text)
    if code is not None:
        return kind if kind in (ev.TIMEOUT, ev.DENIED, ev.REJECTED) else ev.ERROR
    if kind is not None:
        return kind
    if _GENERIC_FAILURE.match(text.lstrip()):
        return ev.ERROR
    return None


class _State:
    """Per-read bookkeeping: call ids → tools, pending unified-exec processes, finished calls."""

    __slots__ = ("calls", "done", "pending", "sidechain", "stdin_calls")

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str | None]] = {}  # call id -> (tool, command)
        self.pending: dict[str, str] = {}  # process session id -> original call id
        self.stdin_calls: dict[str, str] = {}  # write_stdin call id -> original call id
        self.done: set[str] = set()
        self.sidechain = False  # a sub-agent's rollout (``session_meta.source.subagent``)


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of one Codex rollout from ``start_offset`` on."""
    prog = progress if progress is not None else ev.Progress(start_offset)
    file = str(path)
    if prog.session_id is None:
        m = _SESSION_IN_NAME.search(Path(file).name)
        if m:
            prog.session_id = m.group(1)
    st = _State()
    if prog.offset > 0:
        # A later read starts past ``session_meta``, the first line: it says whether this
        # rollout is a sub-agent's, which holds for every line after it.
        st.sidechain = _is_subagent_rollout(file)
    for line_no, offset, buf, start, end in iter_spans(file, prog):
        # Searched inside the chunk; the line is copied out only to be parsed.
        find = buf.find
        if find(b"function_call_output", start, min(end, start + 200)) >= 0 and any(
            find(mk, start, end) >= 0 for mk in _OK_MARKERS
        ):
            hit = _CALL_ID.search(buf, start, min(end, start + 400)) or _CALL_ID.search(
                buf, start, end
            )
            if hit:
                call_id = hit.group(1).decode("utf-8", "replace")
                target = st.stdin_calls.get(call_id, call_id)
                if target not in st.done:
                    st.done.add(target)
                    tool = st.calls.get(target, (None, None))[0]
                    yield ev.Event(
                        ev.TOOL_RESULT,
                        AGENT,
                        session_id=prog.session_id,
                        project=prog.project,
                        file=file,
                        line=line_no,
                        offset=offset,
                        tool=tool,
                        call_id=target,
                        exit_code=0,
                        sidechain=st.sidechain,
                    )
                continue
        head = _HEAD.match(buf, start, end)
        if head is not None:
            # The envelope names the record (and payload) type in the first bytes: decide there.
            if head.group(2) not in _WANTED and head.group(1) not in _WANTED:
                continue
            if (
                head.group(2) == b"message"
                and find(b'"role":"assistant"', start, min(end, start + 400)) < 0
            ):
                continue
            if head.group(2) == b"exec_command_end":
                hit = _CALL_ID.search(buf, start, min(end, start + 400)) or _CALL_ID.search(
                    buf, start, end
                )
                if hit and hit.group(1).decode("utf-8", "replace") in st.done:
                    continue
        elif not any(find(n, start, end) >= 0 for n in _NEEDLES):
            continue
        record = loads(buf[start:end], prog)
        if not isinstance(record, dict):
            continue
        rtype = record.get("type")
        if not isinstance(rtype, str):
            rtype = None
        payload = record.get("payload")
        if not isinstance(payload, dict):
            if rtype in _ITEM_TYPES:  # pre-envelope rollout: the line is the item
                payload, rtype = record, "response_item"
            elif isinstance(record.get("id"), str) and "instructions" in record:
                prog.session_id = record["id"]
                continue
            else:
                continue
        stamp = record.get("timestamp")
        base: dict[str, Any] = {
            "session_id": prog.session_id,
            "project": prog.project,
            "time": stamp if isinstance(stamp, str) else None,
            "file": file,
            "line": line_no,
            "offset": offset,
            "sidechain": st.sidechain,
        }
        if rtype == "session_meta":
            source = payload.get("source")
            if isinstance(source, dict) and "subagent" in source:
                st.sidechain = True
            sid = payload.get("session_id") or payload.get("id")
            if isinstance(sid, str) and sid:
                prog.session_id = sid
            if isinstance(payload.get("cwd"), str):
                prog.project = payload["cwd"]
            continue
        if rtype == "turn_context":
            if isinstance(payload.get("cwd"), str):
                prog.project = payload["cwd"]
            continue
        if rtype == "compacted":
            yield ev.Event(ev.COMPACTION, AGENT, text=as_text(payload.get("message")), **base)
            continue
        if rtype == "event_msg":
            yield from _event_msg(payload, base, st)
            continue
        if rtype == "response_item":
            yield from _item(payload, base, st)


#: A ``session_meta`` line carries the session's base instructions: tens of kilobytes.
_META_MAX = 1 << 20


def _is_subagent_rollout(file: str) -> bool:
    """Whether the rollout's first line is a ``session_meta`` naming a sub-agent source."""
    try:
        with open(file, "rb") as fh:
            first = fh.readline(_META_MAX)
    except OSError:
        return False
    if b"session_meta" not in first or b'"subagent"' not in first:
        return False
    record = loads(first.rstrip(b"\r\n"), ev.Progress())  # its own progress: counted once
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return False
    payload = record.get("payload")
    source = payload.get("source") if isinstance(payload, dict) else None
    return isinstance(source, dict) and "subagent" in source


def _item(payload: dict[str, Any], base: dict[str, Any], st: _State) -> Iterator[ev.Event]:
    ptype = payload.get("type")
    if ptype == "message":
        if payload.get("role") == "assistant":
            text = as_text(payload.get("content"))
            if text:
                yield ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base)
        return
    if ptype == "compaction":
        yield ev.Event(ev.COMPACTION, AGENT, **base)
        return
    if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = payload.get("call_id") or payload.get("id")
        if not isinstance(call_id, str):
            call_id = None
        name = payload.get("name")
        if ptype == "local_shell_call":
            name = "local_shell"
            action = payload.get("action")
            args: Any = action if isinstance(action, dict) else {}
        else:
            args = _parse_args(payload.get("arguments", payload.get("input")))
        if name == SCRIPT_TOOL and isinstance(args, str):
            inner = script_call(args)  # code mode: a script making one call is that call
            if inner is not None:
                name, args = inner
        if not isinstance(name, str):
            return
        if name == "write_stdin":
            # A poll of a running unified-exec process: its output finishes the original call.
            if call_id and isinstance(args, dict) and args.get("session_id") is not None:
                original = st.pending.get(str(args["session_id"]))
                if original:
                    st.stdin_calls[call_id] = original
            return
        tool = canonical(name)
        command = _command(name, args)
        paths: tuple[str, ...] = ()
        patch = args if isinstance(args, str) else None
        if isinstance(args, dict) and isinstance(args.get("input"), str):
            patch = args["input"]
        edit = None
        if name == "apply_patch" and patch:
            headers = (patch_header(line) for line in patch.splitlines())
            paths = tuple(dict.fromkeys(header[1] for header in headers if header))
            edit = _patch_edit(patch) if len(paths) == 1 else None
        elif isinstance(args, dict):
            for key in ("path", "file_path"):
                if isinstance(args.get(key), str):
                    paths = (args[key],)
        if call_id:
            st.calls[call_id] = (tool, command)
        cwd, escalated = _where(args) if command else (None, False)
        yield ev.Event(
            ev.TOOL_CALL,
            AGENT,
            tool=tool,
            native_tool=name,
            command=command,
            paths=paths,
            call_id=call_id,
            cwd=cwd,
            escalated=escalated,
            edit=edit,
            **base,
        )
        return
    if ptype in ("function_call_output", "custom_tool_call_output"):
        call_id = payload.get("call_id")
        if not isinstance(call_id, str):
            return
        text, code = _output(payload.get("output"))
        running = _RUNNING.search(text[:400]) if code is None else None
        if running:
            st.pending[running.group(1)] = st.stdin_calls.get(call_id, call_id)
            return
        target = st.stdin_calls.get(call_id, call_id)
        if target in st.done:
            return
        st.done.add(target)
        sandboxed = False
        if text.startswith("failed in sandbox"):
            text, sandboxed = unwrap_sandbox(text)
        yield ev.Event(
            ev.TOOL_RESULT,
            AGENT,
            tool=st.calls.get(target, (None, None))[0],
            call_id=target,
            failure=ev.DENIED if sandboxed else _failure(text, code),
            exit_code=code,
            text=ev.shorten(text),
            **base,
        )


def _event_msg(payload: dict[str, Any], base: dict[str, Any], st: _State) -> Iterator[ev.Event]:
    ptype = payload.get("type")
    if ptype == "user_message":
        text = payload.get("message")
        if isinstance(text, str) and text.strip():
            yield ev.Event(ev.USER_TEXT, AGENT, text=text, **base)
        return
    call_id = payload.get("call_id")
    if not isinstance(call_id, str) or call_id in st.done:
        return
    if ptype == "exec_command_end":
        code = payload.get("exit_code")
        if not isinstance(code, int):
            return
        text = as_text(payload.get("aggregated_output") or payload.get("stderr"))
        st.done.add(call_id)
        yield ev.Event(
            ev.TOOL_RESULT,
            AGENT,
            tool=st.calls.get(call_id, ("Bash", None))[0],
            call_id=call_id,
            failure=_failure(text, code),
            exit_code=code,
            text=ev.shorten(text),
            **base,
        )
    elif ptype == "patch_apply_end" and payload.get("success") is False:
        text = as_text(payload.get("stderr")) or as_text(payload.get("stdout"))
        st.done.add(call_id)
        yield ev.Event(
            ev.TOOL_RESULT,
            AGENT,
            tool="Edit",
            call_id=call_id,
            failure=ev.ERROR,
            text=ev.shorten(text),
            **base,
        )
