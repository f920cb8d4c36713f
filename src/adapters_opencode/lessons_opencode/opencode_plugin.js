// lessons for __LESSONS_LABEL__: delivers the lessons learned from earlier sessions.
// Written by `lessons install __LESSONS_AGENT__`; `lessons uninstall __LESSONS_AGENT__` removes it.
//
// Each hook below hands the event, as one JSON object on stdin, to the lessons hook command and
// acts on its answer: {"deny": reason} stops a tool call (__LESSONS_LABEL__ gives the model the reason as
// the call's error), {"context": text} is added to what the model reads next. Anything that goes
// wrong (no command, a crash, a timeout, output that is not JSON) is ignored: __LESSONS_LABEL__ then runs
// as if this file were not there.

import { spawn } from "node:child_process";

// lessons-hook-command:
const COMMAND = "__LESSONS_COMMAND__";
const TIMEOUT_MS = 10000;
// The hook needs the start and the end of a long result, not all of it.
const MAX_RESULT_CHARS = 32000;

function ask(payload) {
  return new Promise((resolve) => {
    let child;
    let done = false;
    const finish = (value) => {
      if (!done) {
        done = true;
        resolve(value);
      }
    };
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      finish(null);
      return;
    }
    let out = "";
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish(null);
    }, TIMEOUT_MS);
    child.on("error", () => {
      clearTimeout(timer);
      finish(null);
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        const answer = out.trim() ? JSON.parse(out) : null;
        finish(answer && typeof answer === "object" ? answer : null);
      } catch {
        finish(null);
      }
    });
    child.stdin.on("error", () => {});
    try {
      child.stdin.end(JSON.stringify(payload));
    } catch {
      finish(null);
    }
  });
}

function text(value) {
  return typeof value === "string" && value ? value : null;
}

function shorten(value) {
  if (typeof value !== "string") return "";
  if (value.length <= MAX_RESULT_CHARS) return value;
  const half = MAX_RESULT_CHARS / 2;
  return value.slice(0, half) + "\n…\n" + value.slice(-half);
}

export const LessonsPlugin = async ({ directory }) => {
  const created = new Map(); // session id -> parent id ("" for a top-level session)
  const blocks = new Map(); // session id -> Promise of its session block
  const pending = new Map(); // call id -> hints found before the call, for its result
  const failed = new Map(); // call id -> context for a call that threw
  const denied = new Set(); // call ids this file stopped
  const reported = new Set(); // call ids whose error was reported
  const reports = new Set(); // reports still waiting for their answer

  const payload = (name, sessionID, extra) => ({
    hook_event_name: name,
    session_id: sessionID || "",
    cwd: directory,
    ...extra,
  });

  const join = (...parts) => parts.filter((p) => p).join("\n\n");

  const reportError = async (part) => {
    try {
      const callID = part.callID;
      if (!callID || denied.has(callID) || reported.has(callID)) return;
      reported.add(callID);
      const answer = await ask(
        payload("tool.error", part.sessionID, {
          tool: part.tool,
          call_id: callID,
          args: part.state?.input || {},
          error: shorten(part.state?.error),
        }),
      );
      const extra = join(pending.get(callID), text(answer?.context));
      pending.delete(callID);
      if (extra) failed.set(callID, extra);
    } catch {}
  };

  return {
    event: async ({ event }) => {
      try {
        if (event?.type === "session.created") {
          const info = event.properties?.info;
          if (info?.id) created.set(info.id, info.parentID || "");
        } else if (event?.type === "message.part.updated") {
          const part = event.properties?.part;
          if (part?.type === "tool" && part.state?.status === "error") {
            const report = reportError(part);
            reports.add(report);
            await report;
            reports.delete(report);
          }
        } else if (event?.type === "session.idle") {
          await ask(payload("session.idle", event.properties?.sessionID));
        }
      } catch {}
    },

    "experimental.chat.system.transform": async (input, output) => {
      try {
        const id = input?.sessionID;
        if (!id || !Array.isArray(output?.system)) return;
        if (!blocks.has(id)) {
          const source = created.has(id) ? "startup" : "resume";
          const parent = created.get(id) || "";
          blocks.set(
            id,
            ask(payload("session.start", id, { source, parent_id: parent })).then((a) =>
              text(a?.context),
            ),
          );
        }
        const block = await blocks.get(id);
        if (block) output.system.push(block);
      } catch {}
    },

    "chat.message": async (input, output) => {
      try {
        const parts = Array.isArray(output?.parts) ? output.parts : [];
        const typed = parts.filter((p) => p?.type === "text" && !p.synthetic && text(p.text));
        if (!typed.length) return;
        const answer = await ask(
          payload("chat.message", input?.sessionID, { prompt: typed.map((p) => p.text).join("\n") }),
        );
        const context = text(answer?.context);
        if (!context) return;
        const first = typed[0];
        parts.push({
          id: first.id + "lessons",
          messageID: first.messageID,
          sessionID: first.sessionID,
          type: "text",
          text: context,
          synthetic: true,
        });
      } catch {}
    },

    "tool.execute.before": async (input, output) => {
      let answer = null;
      try {
        answer = await ask(
          payload("tool.execute.before", input?.sessionID, {
            tool: input?.tool,
            call_id: input?.callID,
            args: output?.args || {},
          }),
        );
      } catch {
        answer = null;
      }
      const reason = text(answer?.deny);
      if (reason) {
        if (input?.callID) denied.add(input.callID);
        throw new Error(reason); // the only way a plugin stops a call
      }
      const context = text(answer?.context);
      if (context && input?.callID) pending.set(input.callID, context);
    },

    "tool.execute.after": async (input, output) => {
      try {
        const callID = input?.callID;
        const before = pending.get(callID);
        pending.delete(callID);
        const exit = output?.metadata?.exit;
        const answer = await ask(
          payload("tool.execute.after", input?.sessionID, {
            tool: input?.tool,
            call_id: callID,
            args: input?.args || {},
            output: shorten(output?.output),
            exit: typeof exit === "number" ? exit : null,
          }),
        );
        const extra = join(before, text(answer?.context));
        if (extra && typeof output?.output === "string") output.output = join(output.output, extra);
      } catch {}
    },

    "experimental.chat.messages.transform": async (_input, output) => {
      try {
        if (reports.size) await Promise.all([...reports]); // the error's context, before the next request
        if (!failed.size) return;
        for (const message of output?.messages || []) {
          for (const part of message?.parts || []) {
            const extra = part?.type === "tool" ? failed.get(part.callID) : undefined;
            const error = part?.state?.error;
            if (extra && typeof error === "string" && !error.endsWith(extra)) {
              part.state = { ...part.state, error: join(error, extra) };
            }
          }
        }
      } catch {}
    },

    "experimental.session.compacting": async (input) => {
      try {
        await ask(payload("session.compacting", input?.sessionID));
      } catch {}
    },
  };
};
