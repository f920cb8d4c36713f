"""OpenCode payloads in, OpenCode answers out (hot path, standard library only).

OpenCode runs no hook commands; its plugins are JavaScript modules loaded into the agent. The
plugin file the installer writes (``opencode_plugin.js``) turns each plugin hook it handles into
one JSON payload for this command, and acts on the answer. The payload and the answer are this
adapter's own small contract, kept in step with that file:

* payload: ``hook_event_name`` (the plugin hook, or ``tool.error`` / ``session.start`` /
  ``session.idle`` for what the plugin derives from OpenCode's events), ``session_id``, ``cwd``;
  tool events add ``tool``, ``call_id``, ``args``; ``tool.execute.after`` adds ``output`` (the
  result text, already shortened by the plugin) and ``exit`` (a shell call's exit status);
  ``tool.error`` adds ``error``; ``session.start`` adds ``source`` and ``parent_id``;
  ``chat.message`` adds ``prompt``;
* answer: ``{"deny": reason}`` (the plugin throws, so OpenCode hands the reason to the model as
  the call's error and runs nothing) or ``{"context": text}`` (the plugin appends it to the
  call's result, the prompt or the system prompt), or nothing.

What OpenCode does differently from the other agents, and how this module copes:

* ``tool.execute.before`` can change the arguments or throw, nothing else; so hints found there
  are answered as context that the plugin keeps and appends to the same call's result in
  ``tool.execute.after`` — the moment Claude and Codex deliver them too;
* a tool that throws never reaches ``tool.execute.after``: the plugin reports it from the
  ``message.part.updated`` event as ``tool.error``, and its context is added to the error text
  the model reads;
* the system prompt is rebuilt for every model request, so the session block is asked for once
  per session and process and added every time; a resumed session gets it again (``resume`` is
  answered as a start: nothing of the block is in the stored conversation).

The work is in :mod:`lessons_opencode.hot_plugin`, shared with Kilo CLI (an OpenCode fork that
loads the same plugin); this module gives it OpenCode's name and tool names.
"""

from lessons_core.hot.payload import DEFAULT_DENY as DEFAULT_DENY
from lessons_opencode.hot_names import NATIVE_TO_CANONICAL
from lessons_opencode.hot_plugin import CONTEXT_EVENTS as CONTEXT_EVENTS
from lessons_opencode.hot_plugin import EVENTS as EVENTS
from lessons_opencode.hot_plugin import PluginHost
from lessons_opencode.hot_plugin import failure_text as failure_text
from lessons_opencode.hot_plugin import render as render

AGENT = "opencode"

HOST = PluginHost(AGENT, NATIVE_TO_CANONICAL)
normalize = HOST.normalize
canonical_tool = HOST.canonical_tool
