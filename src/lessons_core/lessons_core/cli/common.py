"""What the commands share: clean user errors, JSON lines, the rebuild after a change.

Kept apart from the commands themselves so a command module can use them without defining
(and paying the import of) every other command.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from lessons_core.errors import LessonsError

if TYPE_CHECKING:
    from lessons_core.store.base import Store

#: True when ``lessons`` runs as its own process (the console script), not inside a host such as
#: a test runner: only then may a command make process-wide choices like :func:`settle_heap`.
OWN_PROCESS = False

P = ParamSpec("P")
R = TypeVar("R")


class UserError(click.ClickException):
    """A :class:`LessonsError` in click's clothing: ``Error: <message>`` and its exit code."""

    def __init__(self, error: LessonsError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code  # type: ignore[misc]  # per error, not per class


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn :class:`LessonsError` into a clean message + exit code, also under ``CliRunner``."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except LessonsError as exc:
            raise UserError(exc) from exc

    return wrapper


def rebuild(store: Store) -> None:
    """Recompile the manifest after a change (a missing compiler only logs a warning)."""
    from lessons_core import services

    services.rebuild_manifest(store)


#: Whether :func:`hold_collector` switched the collector off (and :func:`settle_heap` is to
#: switch it on again).
_HELD = False


def hold_collector() -> None:
    """Keep the garbage collector off while a command imports its modules, until
    :func:`settle_heap`, when this is our own process.

    Imports make tens of thousands of objects that live until exit (modules, classes, the code
    attrs generates); each young collection meanwhile walks those made since the last one, some
    forty collections and several milliseconds of a scan's start-up, to free nothing. Nothing
    cyclic is left behind by imports, and the collector is on again before the work begins.
    """
    global _HELD
    if OWN_PROCESS:
        import gc

        if gc.isenabled():
            gc.disable()
            _HELD = True


def settle_heap() -> None:
    """Hide every object alive now from the garbage collector, when this is our own process.

    A short command's heap is mostly modules, classes and functions that live until exit, yet
    each full collection walks all of them again: the ones a long scan triggers, and the ones
    interpreter shutdown runs (together several milliseconds per command). Frozen, they are
    skipped, and a forked scan helper does not copy the pages the collector would have written.
    Called once the heavy imports are done and again on the way out; the collector that
    :func:`hold_collector` switched off is switched on again.
    """
    global _HELD
    if OWN_PROCESS:
        import gc

        gc.freeze()
        if _HELD:
            gc.enable()
            _HELD = False


def json_line(obj: Any) -> str:
    from lessons_core.jsoninput import dumps_line

    return dumps_line(obj)
