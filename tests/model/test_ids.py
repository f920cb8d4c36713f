"""ULIDs and slugs."""

from __future__ import annotations

import re

from lessons_core import ids


def test_new_id_is_a_canonical_ulid_and_unique():
    """Ids are 26 Crockford base32 characters, and a thousand of them never collide."""
    made = [ids.new_id() for _ in range(1000)]
    assert all(ids.is_ulid(value) for value in made)
    assert len(set(made)) == len(made)


def test_ids_sort_by_creation_time():
    """A later id sorts after an earlier one at millisecond resolution (ULID's time prefix)."""
    import time

    first = ids.new_id()
    time.sleep(0.002)
    assert ids.new_id() > first


def test_is_ulid_rejects_lowercase_and_wrong_length():
    """Only the canonical upper-case 26-character form counts."""
    assert not ids.is_ulid("01knh2fracbqmqwx29gpye47d8")
    assert not ids.is_ulid("01JQSEED00000000000000001")
    assert not ids.is_ulid("01KNH2FRACBQMQWX29GPYE47DU")  # U is not in Crockford base32


def test_slug_is_kebab_case_summary_plus_random_suffix():
    """Punctuation collapses to single dashes and a 4-character suffix follows."""
    slug = ids.make_slug("Use `python -m pytest`, not bare pytest!")
    assert re.fullmatch(r"use-python-m-pytest-not-bare-pytest-[a-z0-9]{4}", slug)


def test_slug_folds_accents_to_ascii():
    """Accented letters become their ASCII base letters; other scripts are dropped."""
    assert ids.slug_stem("Café naïve Ünïcode façade") == "cafe-naive-unicode-facade"
    assert ids.slug_stem("日本語 only") == "only"


def test_slug_is_cut_at_a_word_boundary():
    """Long summaries are trimmed to at most 50 characters without cutting a word."""
    summary = "never run the full integration suite on every save because it takes minutes"
    stem = ids.slug_stem(summary)
    assert len(stem) <= ids.SLUG_MAX
    assert summary.replace(" ", "-").startswith(stem)
    assert stem == "never-run-the-full-integration-suite-on-every-save"


def test_slug_of_an_overlong_single_word_is_cut():
    """A single word longer than the limit is cut rather than dropped."""
    assert ids.slug_stem("x" * 80) == "x" * ids.SLUG_MAX


def test_slug_of_nothing_usable_falls_back():
    """A summary with no ASCII letters still gives a usable slug."""
    assert re.fullmatch(r"lesson-[a-z0-9]{4}", ids.make_slug("!!! ???"))


def test_two_slugs_of_the_same_summary_differ():
    """The random suffix keeps equal summaries apart (collisions are 1 in 36**4)."""
    slugs = {ids.make_slug("same summary") for _ in range(50)}
    assert len(slugs) > 45


def test_random_suffixes_use_the_whole_alphabet_and_no_other_character():
    """Four lower-case letters or digits, drawn from all 36 of them."""
    drawn = [ids.random_suffix() for _ in range(2000)]
    assert all(re.fullmatch(r"[a-z0-9]{4}", s) for s in drawn)
    assert set("".join(drawn)) == set("abcdefghijklmnopqrstuvwxyz0123456789")
    assert len(set(drawn)) > 1900  # 36**4 possibilities: repeats are rare


def test_an_id_spells_its_time_and_randomness_as_ulid_does():
    """The first ten digits are the creation time in milliseconds, the other sixteen 80 random
    bits: decoded by the spec, the time is now and two ids minted together differ in them."""
    import time

    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    before = time.time_ns() // 1_000_000
    made = ids.new_id()
    after = time.time_ns() // 1_000_000
    value = 0
    for digit in made:
        value = value * 32 + alphabet.index(digit)
    assert before <= value >> 80 <= after
    assert made[0] in "01234567"  # 130 digit bits hold 128: the first digit is below 8
    assert ids.new_id()[10:] != made[10:]


def test_minting_an_id_imports_no_package_metadata():
    """A scan that finds a new candidate mints an id: that must not import
    ``importlib.metadata`` (and ``email`` with it), as the ULID library used to."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom lessons_core import ids\nids.new_id()\n"
        "print(sorted(m for m in ('importlib.metadata', 'email') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
