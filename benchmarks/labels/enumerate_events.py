"""List the raw failure events of a transcript corpus, for labelling by hand.

This reads the transcript files directly, with its own small parsers, on purpose: the labels
must not inherit the scanner's idea of what a failure is. For every failing or refused tool call
(and every typed user message, which a person then reads to decide whether it corrects the
agent) it prints one JSON object with the file (relative to the corpus root), the 1-based line,
the call id, the tool, the first characters of the call's input and of its output, a guessed
failure kind, and the calls that came next, so the labeller can pick the one that fixed it.

    python benchmarks/labels/enumerate_events.py CORPUS [--users] > events.jsonl

The output is a worksheet, not the labels: ``RULES.md`` says how a worksheet row becomes a label.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_EXIT = re.compile(
    r"(?:^Exit code:? (\d+)|Process exited with code (\d+)"
    r"|\"exit_code\":\s*(\d+)|Exit Code: (\d+))",
    re.MULTILINE,
)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "error"):
            if key in value:
                return _text(value[key])
        return json.dumps(value)
    return "" if value is None else str(value)


def _short(value: Any, n: int = 300) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return s[:n]


def guess_kind(text: str, exit_code: int | None = None) -> str:
    """A first guess at the failure kind from the output text; the labeller may change it."""
    low = text.lower()
    if (
        "doesn't want to proceed" in low
        or "tool use was rejected" in low
        or "patch rejected" in low
    ):
        return "rejected"
    if "[operation cancelled]" in low or "interrupted" in low[:200]:
        return "interrupted"
    if "requires approval" in low or "was blocked" in low or "sandbox denied" in low:
        return "denied"
    if "timed out" in low or "timeout" in low[:200]:
        return "timeout"
    if "<tool_use_error>" in low or "has not been read yet" in low or "string to replace" in low:
        return "validation"
    if "not found in registry" in low or "must be absolute" in low or "0 occurrences" in low:
        return "validation"
    return "error"


def _exit(text: str) -> int | None:
    m = _EXIT.search(text)
    if not m:
        return None
    return int(next(g for g in m.groups() if g is not None))


# --- Claude -------------------------------------------------------------------------------


def claude(path: Path) -> Iterator[dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    users: list[dict[str, Any]] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if rec.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    call = {
                        "call_id": block.get("id"),
                        "tool": block.get("name"),
                        "input": _short(block.get("input"), 400),
                        "call_line": n,
                        "ok": None,
                    }
                    calls[str(block.get("id"))] = call
                    order.append(call)
        elif rec.get("type") == "user":
            if rec.get("isCompactSummary") or rec.get("isMeta"):
                continue
            if isinstance(content, str):
                users.append({"line": n, "text": content, "after": len(order)})
                continue
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    users.append({"line": n, "text": block.get("text", ""), "after": len(order)})
                elif block.get("type") == "tool_result":
                    call = calls.get(str(block.get("tool_use_id")))
                    text = _text(block.get("content"))
                    if call is None:  # a result whose call is not in this file
                        call = {"call_id": block.get("tool_use_id"), "tool": None, "input": ""}
                        order.append(call)
                    call["ok"] = not block.get("is_error")
                    call["line"] = n
                    call["output"] = text
    yield from _emit("claude", order, users)


def _emit(
    agent: str, order: list[dict[str, Any]], users: list[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    for i, call in enumerate(order):
        if call.get("ok") is False:
            out = call.get("output", "")
            nxt = [
                {
                    "call_id": c["call_id"],
                    "line": c.get("line"),
                    "tool": c["tool"],
                    "ok": c.get("ok"),
                    "input": c["input"][:200],
                }
                for c in order[i + 1 : i + 6]
            ]
            yield {
                "agent": agent,
                "event": "failure",
                "line": call.get("line"),
                "call_id": call["call_id"],
                "tool": call["tool"],
                "kind": guess_kind(out),
                "input": call["input"],
                "output": out[:500],
                "next": nxt,
            }
    for user in users:
        before = order[user["after"] - 1] if user["after"] else None
        yield {
            "agent": agent,
            "event": "user",
            "line": user["line"],
            "call_id": before["call_id"] if before else None,
            "text": user["text"][:400],
            "next": [
                {
                    "call_id": c["call_id"],
                    "line": c.get("line"),
                    "tool": c["tool"],
                    "ok": c.get("ok"),
                    "input": c["input"][:200],
                }
                for c in order[user["after"] : user["after"] + 3]
            ],
        }


# --- Codex --------------------------------------------------------------------------------


def codex(path: Path) -> Iterator[dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    users: list[dict[str, Any]] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        p = rec.get("payload")
        if not isinstance(p, dict):
            continue
        t = p.get("type")
        if rec.get("type") == "response_item" and t in (
            "function_call",
            "custom_tool_call",
            "local_shell_call",
        ):
            call = {
                "call_id": p.get("call_id"),
                "tool": p.get("name") or t,
                "input": _short(p.get("arguments") or p.get("input") or p.get("action"), 400),
                "call_line": n,
                "ok": None,
            }
            calls[str(p.get("call_id"))] = call
            order.append(call)
        elif rec.get("type") == "response_item" and t in (
            "function_call_output",
            "custom_tool_call_output",
        ):
            call = calls.get(str(p.get("call_id")))
            if call is None or "line" in call:
                continue
            text = _text(p.get("output"))
            code = _exit(text)
            low = text.lower()
            bad = (code not in (None, 0)) or (
                code is None
                and any(
                    s in low[:300]
                    for s in (
                        "timed out",
                        "sandbox denied",
                        "patch rejected",
                        "verification failed",
                        "aborted",
                        "failed to",
                        "err:",
                    )
                )
            )
            call["ok"] = not bad
            call["line"] = n
            call["output"] = text
        elif rec.get("type") == "event_msg" and t == "user_message":
            users.append({"line": n, "text": p.get("message", ""), "after": len(order)})
        elif rec.get("type") == "event_msg" and t == "turn_aborted":
            users.append(
                {
                    "line": n,
                    "text": "[turn_aborted " + str(p.get("reason")) + "]",
                    "after": len(order),
                }
            )
    yield from _emit("codex", order, users)


# --- Gemini -------------------------------------------------------------------------------


def _gemini_messages(path: Path) -> tuple[list[dict[str, Any]], dict[int, int], bool]:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            return doc["messages"], {}, True
        return [], {}, True
    except ValueError:
        pass
    msgs: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("id"), str):
            msgs[rec["id"]] = rec
            lines[rec["id"]] = n
    ordered = list(msgs.values())
    return ordered, {i: lines[m["id"]] for i, m in enumerate(ordered)}, False


def gemini(path: Path) -> Iterator[dict[str, Any]]:
    messages, msg_lines, legacy = _gemini_messages(path)
    raw_lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    order: list[dict[str, Any]] = []
    users: list[dict[str, Any]] = []

    def line_of(needle: str) -> int | None:
        for n, raw in enumerate(raw_lines, 1):
            if needle in raw:
                return n
        return None

    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            continue
        where = line_of(f'"id": "{m.get("id")}"') if legacy else msg_lines.get(i)
        if m.get("type") == "user":
            users.append({"line": where, "text": _text(m.get("content")), "after": len(order)})
        for tc in m.get("toolCalls") or []:
            out = _text(
                [
                    r.get("functionResponse", {}).get("response")
                    for r in tc.get("result") or []
                    if isinstance(r, dict)
                ]
            )
            code = _exit(out)
            bad = tc.get("status") in ("error", "cancelled") or code not in (None, 0)
            call = {
                "call_id": tc.get("id"),
                "tool": tc.get("name"),
                "input": _short(tc.get("args"), 400),
                "ok": not bad,
                "line": line_of(f'"id": "{tc.get("id")}"') if legacy else where,
                "message_index": i,
                "output": out or _text(tc.get("resultDisplay")),
            }
            order.append(call)
    yield from _emit("gemini", order, users)


# --- OpenCode -----------------------------------------------------------------------------


class _Cursor:
    """Finds needles in a pretty-printed document's lines, in document order.

    An OpenCode export is one JSON document spread over many lines, so a call has no line of
    its own: its line is the one holding its ``"callID"`` (or, for a user message, its text
    part's ``"id"``), searched forward from the line after the previous find, so that the parts
    keep their order and two parts with the same ``callID`` (some providers number calls
    ``functions.bash:0`` afresh in every step) get their own lines.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.at = 0

    def find(self, needle: str) -> int | None:
        for i in range(self.at, len(self.lines)):
            if needle in self.lines[i]:
                self.at = i + 1
                return i + 1
        return None


def opencode(path: Path) -> Iterator[dict[str, Any]]:
    """An OpenCode export document ``{info, messages: [{info, parts}]}``.

    A failure is a ``tool`` part whose ``state.status`` is ``error``, a ``bash`` part whose
    ``state.metadata.exit`` is non-zero, or a part of the ``invalid`` tool, OpenCode's stand-in
    for a call whose arguments could not be parsed (OpenCode records the last two as
    ``completed``).
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        doc = json.loads(text)
    except ValueError:
        return
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        return
    where = _Cursor(text)
    order: list[dict[str, Any]] = []
    users: list[dict[str, Any]] = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        role = (m.get("info") or {}).get("role")
        for part in m.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if role == "user" and part.get("type") == "text" and not part.get("synthetic"):
                line = where.find(f'"id": "{part.get("id")}"')
                users.append({"line": line, "text": part.get("text", ""), "after": len(order)})
            elif part.get("type") == "tool":
                state = part.get("state") or {}
                meta = state.get("metadata") or {}
                code = meta.get("exit") if part.get("tool") == "bash" else None
                bad = (
                    state.get("status") == "error"
                    or part.get("tool") == "invalid"
                    or (isinstance(code, int) and not isinstance(code, bool) and code != 0)
                )
                out = state.get("error") if state.get("status") == "error" else state.get("output")
                order.append(
                    {
                        "call_id": part.get("callID"),
                        "tool": part.get("tool"),
                        "input": _short(state.get("input"), 400),
                        "ok": not bad,
                        "line": where.find(f'"callID": "{part.get("callID")}"'),
                        "output": _text(out) + (f"\n[exit {code}]" if code else ""),
                    }
                )
    yield from _emit("opencode", order, users)


# --- GitHub Copilot CLI -------------------------------------------------------------------

_SHELL_EXIT = re.compile(r"<shellId: \S+ completed with exit code (-?\d+)>\s*$")


def copilot(path: Path) -> Iterator[dict[str, Any]]:
    """A Copilot CLI ``events.jsonl`` session log, one ``{type, data, id, ...}`` per line.

    A failure is a ``tool.execution_complete`` with ``success: false``, or a shell result whose
    text ends ``<shellId: N completed with exit code N>`` with a non-zero code; its line is the
    ``tool.execution_complete`` line, its id the ``toolCallId``. A user ``abort`` is listed with
    the user messages, as Codex's ``turn_aborted`` is.
    """
    calls: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    users: list[dict[str, Any]] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("data"), dict):
            continue
        t, d = rec.get("type"), rec["data"]
        if t == "tool.execution_start":
            call = {
                "call_id": d.get("toolCallId"),
                "tool": d.get("toolName"),
                "input": _short(d.get("arguments"), 400),
                "call_line": n,
                "ok": None,
            }
            calls[str(d.get("toolCallId"))] = call
            order.append(call)
        elif t == "tool.execution_complete":
            done = calls.get(str(d.get("toolCallId")))
            if done is None:  # a result whose start is not in this file
                done = {"call_id": d.get("toolCallId"), "tool": None, "input": ""}
                order.append(done)
            if d.get("success") is False:
                err = d.get("error")
                out = _text(err.get("message", err) if isinstance(err, dict) else err)
                bad = True
            else:
                out = _text((d.get("result") or {}).get("content"))
                m = _SHELL_EXIT.search(out)
                bad = m is not None and int(m.group(1)) != 0
            done["ok"] = not bad
            done["line"] = n
            done["output"] = out
        elif t == "user.message":
            users.append({"line": n, "text": _text(d.get("content")), "after": len(order)})
        elif t == "abort":
            text = "[abort " + str(d.get("reason")) + "]"
            users.append({"line": n, "text": text, "after": len(order)})
    yield from _emit("copilot", order, users)


READERS = {
    "claude": claude,
    "codex": codex,
    "gemini": gemini,
    "opencode": opencode,
    "copilot": copilot,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--users", action="store_true", help="also list typed user messages")
    args = ap.parse_args(argv)
    for agent, reader in READERS.items():
        for path in sorted((args.corpus / agent).rglob("*")):
            if path.suffix not in (".jsonl", ".json") or path.name.endswith(".meta.json"):
                continue
            for row in reader(path):
                if row["event"] == "user" and not args.users:
                    continue
                row["file"] = path.relative_to(args.corpus).as_posix()
                print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
