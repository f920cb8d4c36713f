"""Kilo CLI payloads in, Kilo CLI answers out (hot path, standard library only).

Kilo CLI is an OpenCode fork that loads OpenCode's plugins with the same hooks
(``tool.execute.before``/``after``, ``chat.message``, ``experimental.chat.system.transform``,
``experimental.chat.messages.transform``, ``experimental.session.compacting``, ``event``), so it
loads the very plugin file OpenCode's adapter writes, and its payloads and answers are the ones
:mod:`lessons_opencode.hot_plugin` reads and writes. This module gives that code Kilo's name and
tool names.
"""

from lessons_kilo.hot_names import NATIVE_TO_CANONICAL
from lessons_opencode.hot_plugin import PluginHost
from lessons_opencode.hot_plugin import render as render

AGENT = "kilo"

HOST = PluginHost(AGENT, NATIVE_TO_CANONICAL)
normalize = HOST.normalize
canonical_tool = HOST.canonical_tool
