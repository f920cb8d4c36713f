"""Building an agent adapter's :class:`~lessons_core.plugins.specs.AgentSpec` from its package name.

Every adapter package is laid out the same way (``hook``, ``hot_names``, ``roots``, ``reader``,
``install``) and registers the same kind of spec; only the agent's name and package differ. The
reader and installer are reached through :class:`LazyCall`, so registering an adapter (which
``lessons plugins`` and every cold command do) imports neither its transcript reader nor its
installer until one is used.
"""

from __future__ import annotations

import importlib
from typing import Any

import attrs

from lessons_core.plugins.specs import AgentSpec


@attrs.frozen
class LazyCall:
    """Calls ``module.attr`` with the given arguments, importing ``module`` on the first call.

    A frozen value rather than a closure, so two specs built for the same adapter compare
    equal, as they did when each adapter wrote module-level functions by hand.
    """

    module: str
    attr: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.attr)(*args, **kwargs)


@attrs.frozen
class LazyModule:
    """Returns ``module``, imported on the first call: an agent's installer is its module."""

    module: str

    def __call__(self) -> Any:
        return importlib.import_module(self.module)


def agent_spec_for(
    name: str,
    package: str,
    *,
    ranges: bool = False,
    label: str = "",
    demo: bool = False,
    hook_packages: tuple[str, ...] = (),
) -> AgentSpec:
    """The spec of the adapter for agent ``name`` living in ``package``.

    Its console script is ``lessons-<name>-hook``, its distribution ``lessons-<name>``, its hook
    module ``<package>.hook``; tool names come from ``<package>.hot_names`` and the transcript
    facts from ``<package>.roots`` (both imported now: small modules of data and path checks the
    core reads at registration and calls per file), the reader and installer are imported on
    use, and so is ``<package>.demo`` when ``demo`` is true. ``hook_packages`` are the other
    packages the hook imports (:class:`~lessons_core.plugins.specs.AgentSpec`).

    ``roots`` must define ``transcript_roots(environ)``; it may define ``EXTENSIONS``,
    ``is_transcript(path)``, ``recognize(path, head)``, ``MARKS``, ``DOCUMENT_SUFFIXES``,
    ``session_names(session_id)`` and ``skill_roots(environ)`` (see
    :class:`~lessons_core.plugins.specs.AgentSpec` for what each means).
    """
    hot_names = importlib.import_module(f"{package}.hot_names")
    roots = importlib.import_module(f"{package}.roots")
    return AgentSpec(
        name=name,
        hook_command=f"lessons-{name}-hook",
        hook_module=f"{package}.hook",
        distribution=f"lessons-{name}",
        tool_names=hot_names.NATIVE_TO_CANONICAL,
        transcript_roots=roots.transcript_roots,
        reader=LazyCall(f"{package}.reader", "read"),
        installer=LazyModule(f"{package}.install"),
        ranges=ranges,
        label=label,
        transcript_extensions=getattr(roots, "EXTENSIONS", (".jsonl", ".json")),
        is_transcript=getattr(roots, "is_transcript", None),
        recognize=getattr(roots, "recognize", None),
        marks=getattr(roots, "MARKS", ""),
        document_suffixes=getattr(roots, "DOCUMENT_SUFFIXES", ()),
        session_names=getattr(roots, "session_names", None),
        skill_roots=getattr(roots, "skill_roots", None),
        demo=LazyModule(f"{package}.demo") if demo else None,
        hook_packages=hook_packages,
    )
