"""structlog set-up for the cold path: configured once in the CLI's ``main``, always to stderr.

stdout belongs to command output (and, for hooks, to the agent protocol), so logs never go there.
Human-readable on a terminal, one JSON object per line otherwise.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(verbosity: int = 0) -> None:
    level = logging.WARNING - 10 * min(verbosity, 2)
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
