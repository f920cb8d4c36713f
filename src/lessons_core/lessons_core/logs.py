"""structlog set-up for the cold path: configured once in the CLI's ``main``, always to stderr.

stdout belongs to command output (and, for hooks, to the agent protocol), so logs never go there.
An ordinary command is read by a person, so by default a warning or an error is one short line
(``Warning: unknown tool name (lesson=line 2, tool=Frobnicate)``) and nothing below WARNING is
shown. Structured logs are there when asked for: ``-v``/``-vv`` add INFO/DEBUG events, rendered
as key=value on a terminal and one JSON object per line otherwise, and ``LESSONS_LOG`` picks the
rendering outright (``json``, ``console`` or ``human``) whatever the verbosity.

Importing structlog costs tens of milliseconds (it pulls in ``structlog.stdlib`` and with it
asyncio), which is most of the start-up of a short command that never logs anything. So modules
take their logger from :func:`get_logger`, a small stand-in that drops a call below the
configured level on its own and imports structlog only when an event is actually emitted.
Until :func:`configure_logging` has run (library use, tests) every call goes straight to
structlog, exactly as ``structlog.get_logger()`` would.
"""

from __future__ import annotations

import sys
from collections.abc import MutableMapping
from typing import Any

#: The numeric levels of the stdlib ``logging`` module, without importing it.
_DEBUG, _INFO, _WARNING, _ERROR, _CRITICAL = 10, 20, 30, 40, 50

#: Lowest level emitted, once :func:`configure_logging` has run; ``None`` before.
_threshold: int | None = None
#: (verbosity, rendering) waiting to be handed to structlog on the first emitted event.
_pending: tuple[int, str] | None = None

#: The environment variable that picks the rendering of logs on stderr.
LOG_ENV = "LESSONS_LOG"
#: Its values: one JSON object per line, structlog's key=value lines, or short human lines.
FORMATS = ("json", "console", "human")


def configure_logging(verbosity: int = 0, fmt: str | None = None) -> None:
    """Emit at WARNING and above, INFO with ``-v``, DEBUG with ``-vv``.

    ``fmt`` (default: ``LESSONS_LOG``) is one of :data:`FORMATS`; unset, a plain command gets
    human lines and ``-v`` gets structured logs (key=value on a terminal, JSON otherwise). An
    unknown value is named in one line on stderr and human lines are used: a typo in a
    variable must not stop the command.

    structlog itself is configured now only if something imported it already (so that, say, a
    test capturing logs sees the same configuration); otherwise on the first emitted event.
    """
    global _threshold, _pending
    verbosity = min(max(verbosity, 0), 2)
    _threshold = _WARNING - 10 * verbosity
    _pending = (verbosity, _rendering(verbosity, fmt))
    if "structlog" in sys.modules:
        _apply_pending()


def _rendering(verbosity: int, fmt: str | None) -> str:
    """The rendering asked for: ``fmt``, else ``LESSONS_LOG``, else by verbosity."""
    import os

    asked = (fmt if fmt is not None else os.environ.get(LOG_ENV, "")).strip().lower()
    if asked in FORMATS:
        return asked
    if asked:
        sys.stderr.write(
            f"Warning: {LOG_ENV}={asked!r} is not one of {', '.join(FORMATS)}; "
            "logging short human lines\n"
        )
        return "human"
    if verbosity == 0:
        return "human"
    return "console" if sys.stderr.isatty() else "json"


def _apply_pending() -> None:
    global _pending
    if _pending is None:
        return
    (verbosity, rendering), _pending = _pending, None
    _configure_structlog(verbosity, rendering)


def _configure_structlog(verbosity: int, rendering: str = "human") -> None:
    import structlog

    level = _WARNING - 10 * min(max(verbosity, 0), 2)
    processors: list[structlog.typing.Processor] = [structlog.processors.add_log_level]
    if rendering == "human":
        processors.append(render_human)
    else:
        processors.append(structlog.processors.TimeStamper(fmt="iso", utc=True))
        if rendering == "console":
            processors.append(structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty()))
        else:
            processors.append(structlog.processors.JSONRenderer())
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )


def _stderr_logger(*_args: Any) -> Any:
    """A logger writing to the ``sys.stderr`` of the moment it logs, not of the moment logging
    was set up: a caller that swaps stderr (an embedding program, a test capturing output)
    and closes it afterwards would leave a logger bound to a closed file."""
    import structlog

    return structlog.PrintLogger(file=sys.stderr)


def render_human(_logger: Any, method: str, event_dict: MutableMapping[str, Any]) -> str:
    """One short line for a person: ``Warning: scan: file error (path=a.jsonl, error=…)``.

    Event names are dotted identifiers (``scan.file_error``) chosen for searching logs; here the
    area stays as a prefix and underscores become spaces. The remaining fields follow in
    parentheses; an exception is shown by its type and message, never as a traceback.
    """
    fields = dict(event_dict)
    level = str(fields.pop("level", method))
    if level == "exception":
        level = "error"
    event = str(fields.pop("event", "") or "")
    if " " not in event and "." in event:
        area, _, rest = event.rpartition(".")
        event = f"{area}: {rest}"
    event = event.replace("_", " ")
    fields.pop("timestamp", None)
    exc = fields.pop("exc_info", None)
    if exc is True:
        exc = sys.exc_info()[1]
    elif isinstance(exc, tuple):
        exc = exc[1]
    if isinstance(exc, BaseException):
        fields["error"] = f"{type(exc).__name__}: {exc}"
    detail = ", ".join(f"{key}={value}" for key, value in fields.items())
    return f"{level.capitalize()}: {event}" + (f" ({detail})" if detail else "")


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
