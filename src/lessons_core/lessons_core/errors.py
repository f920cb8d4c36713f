"""Errors the CLI turns into a clear message and a non-zero exit (never a traceback)."""

from __future__ import annotations


class LessonsError(Exception):
    """A user-facing error: the message says what is wrong and, where possible, what to do."""

    exit_code = 1


class ValidationError(LessonsError):
    """Input that does not fit the lesson schema.

    ``where`` names the lesson (index, line or slug) and ``field`` the offending field, so the
    message can point at the exact spot.
    """

    def __init__(self, message: str, *, where: str | None = None, field: str | None = None):
        self.where = where
        self.field = field
        prefix = " ".join(p for p in (where, f"field {field!r}" if field else None) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class StoreError(LessonsError):
    """The store cannot be used as it is (newer schema, corrupt file, locked for too long)."""


class NotFound(LessonsError):
    """No lesson or candidate by that id or slug."""
