"""structlog set-up for the cold path: configured once in the CLI's ``main``, always to stderr.

stdout belongs to command output (and, for hooks, to the agent protocol), so logs never go there.
Human-readable on a terminal, one JSON object per line otherwise.

Importing structlog costs tens of milliseconds (it pulls in ``structlog.stdlib`` and with it
asyncio), which is most of the start-up of a short command that never logs anything. So modules
take their logger from :func:`get_logger`, a small stand-in that drops a call below the
configured level on its own and imports structlog only when an event is actually emitted.
Until :func:`configure_logging` has run (library use, tests) every call goes straight to
structlog, exactly as ``structlog.get_logger()`` would.
"""

from __future__ import annotations

import sys
from typing import Any

#: The numeric levels of the stdlib ``logging`` module, without importing it.
_DEBUG, _INFO, _WARNING, _ERROR, _CRITICAL = 10, 20, 30, 40, 50

#: Lowest level emitted, once :func:`configure_logging` has run; ``None`` before.
_threshold: int | None = None
#: Verbosity waiting to be handed to structlog on the first emitted event.
_pending: int | None = None


def configure_logging(verbosity: int = 0) -> None:
    """Emit at WARNING and above, INFO with ``-v``, DEBUG with ``-vv``.

    structlog itself is configured now only if something imported it already (so that, say, a
    test capturing logs sees the same configuration); otherwise on the first emitted event.
    """
    global _threshold, _pending
    _threshold = _WARNING - 10 * min(max(verbosity, 0), 2)
    _pending = verbosity
    if "structlog" in sys.modules:
        _apply_pending()


def _apply_pending() -> None:
    global _pending
    if _pending is None:
        return
    verbosity, _pending = _pending, None
    _configure_structlog(verbosity)


def _configure_structlog(verbosity: int) -> None:
    import structlog

    level = _WARNING - 10 * min(max(verbosity, 0), 2)
    renderer: structlog.typing.Processor
    if sys.stderr.isatty():
        renderer = structlog.dev.ConsoleRenderer(colors=True)
    else:
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


class LazyLogger:
    """The part of a structlog logger the code base uses, importing structlog on first emit."""

    __slots__ = ()

    def _emit(self, level: int, method: str, event: str | None, kw: dict[str, Any]) -> None:
        if _threshold is not None and level < _threshold:
            return
        _apply_pending()
        import structlog

        getattr(structlog.get_logger(), method)(event, **kw)

    def debug(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_DEBUG, "debug", event, kw)

    def info(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_INFO, "info", event, kw)

    def warning(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_WARNING, "warning", event, kw)

    def error(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_ERROR, "error", event, kw)

    def exception(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_ERROR, "exception", event, kw)

    def critical(self, event: str | None = None, **kw: Any) -> None:
        self._emit(_CRITICAL, "critical", event, kw)


def get_logger() -> LazyLogger:
    """A logger for a module's ``log`` global; cheap to create at import time."""
    return LazyLogger()
