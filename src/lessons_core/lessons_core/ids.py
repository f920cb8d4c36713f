"""Lesson identifiers: ULIDs for machines, slugs for people.

A ULID sorts by creation time and needs no coordination between machines, so lessons captured
on two laptops never collide. A slug is what people type (``lessons show pytest-hangs-k3f9``): the
summary in kebab case plus a short random suffix, so two lessons with the same summary still get
distinct slugs.
"""

from __future__ import annotations

import os
import time
import unicodedata

from lessons_core.patterns import kept_programs

#: Slugs are cut at a word boundary at or below this length (the suffix comes on top).
SLUG_MAX = 50
_SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_NON_ALNUM = kept_programs.compile(r"[^a-z0-9]+")
_ULID = kept_programs.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


#: Crockford's base32 alphabet, the one ULIDs are written in (no I, L, O or U).
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id() -> str:
    """A fresh ULID in its canonical 26-character Crockford base32 form.

    A ULID is 48 bits of Unix time in milliseconds followed by 80 random bits, written as 26
    base32 digits, most significant first (the first digit holds the top 3 of its 130 bits).
    Minted here rather than with python-ulid: importing that package imports
    ``importlib.metadata`` (and with it ``email``) for its version string, 50–60 ms that every
    scan finding a new candidate paid for a few lines of arithmetic on ``time`` and ``urandom``.
    """
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    digits = []
    for _ in range(26):
        digits.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(digits))


def is_ulid(value: str) -> bool:
    """True when ``value`` looks like a canonical ULID (upper case, 26 characters)."""
    return bool(_ULID.match(value))


def slug_stem(summary: str) -> str:
    """The kebab-case, ASCII-only part of a slug, without the random suffix."""
    folded = unicodedata.normalize("NFKD", summary).encode("ascii", "ignore").decode("ascii")
    words = [w for w in _NON_ALNUM.split(folded.lower()) if w]
    stem = ""
    for word in words:
        candidate = f"{stem}-{word}" if stem else word
        if len(candidate) > SLUG_MAX:
            if not stem:
                # A single overlong word: cut it rather than produce an empty slug.
                stem = word[:SLUG_MAX]
            break
        stem = candidate
    return stem or "lesson"


def random_suffix(length: int = 4) -> str:
    # ``os.urandom`` rather than ``random``, whose import (with ``hashlib`` behind it) costs a
    # short command more than it needs for four characters; 252 = 7 * 36 keeps them uniform.
    out: list[str] = []
    while len(out) < length:
        out.extend(_SUFFIX_ALPHABET[b % 36] for b in os.urandom(length * 2) if b < 252)
    return "".join(out[:length])


def make_slug(summary: str) -> str:
    """``"Use -p no:cacheprovider!"`` → ``"use-p-no-cacheprovider-x7q2"``."""
    return f"{slug_stem(summary)}-{random_suffix()}"
