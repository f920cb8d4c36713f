"""Helpers for the compiler tests."""

from __future__ import annotations

from lesson_factory import lesson_factory

make_lesson = lesson_factory("01COMPILERTEST", "lesson")
