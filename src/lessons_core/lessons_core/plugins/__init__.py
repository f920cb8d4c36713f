"""The plugin framework: how the core finds, loads and calls what is installed beside it.

:mod:`.hookspecs` declares the pluggy hooks; :mod:`.specs` the small frozen descriptions a
plugin registers through them (agents, detectors, matchers, stores, commands …), and
:mod:`.seams` the typed interfaces the core then calls; :mod:`.manager` builds a fresh plugin
manager from the built-ins and the installed entry points, which :mod:`.cache` remembers
between commands; :mod:`.adapters` builds an agent's spec from its adapter package. A plugin
author reads none of this: everything a plugin needs is in :mod:`lessons_core.api`.
"""
