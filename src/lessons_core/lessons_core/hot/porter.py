"""The Porter stemmer as SQLite's FTS5 ``porter`` tokenizer applies it (standard library only).

Recall ranks lessons by BM25 over stemmed words. The SQLite store's full-text index stems with
FTS5's ``porter`` tokenizer, and the published recall index (:mod:`lessons_core.store.recall_index`)
must stem documents and queries the same way, or a word of an error would not meet the word of a
lesson it came from. FTS5 follows Martin Porter's published algorithm with a few choices of its
own, reproduced here: words shorter than 3 or longer than 64 bytes are left as they are, a ``y``
after the first letter counts as a vowel in the "contains a vowel" test, and ``-sses`` only
becomes ``-ss`` after at least one more letter. ``tests/store/test_recall_index.py`` checks this
module against the SQLite library itself, word for word.

The word is a lowercase ``str`` whose characters stand for bytes (the cold path passes UTF-8
bytes decoded as Latin-1, so lengths and letters are counted as FTS5 counts them).
"""

MAX_TOKEN = 64
_VOWELS = "aeiou"


def _is_vowel(c, y_is_vowel):
    return c in _VOWELS or (y_is_vowel and c == "y")


def _gobble_vc(word, start, end, prev_cons):
    """Past the first vowel-then-consonant run of ``word[start:end]``: its end, or 0."""
    cons = prev_cons
    i = start
    while i < end:
        cons = not _is_vowel(word[i], cons)
        if not cons:
            break
        i += 1
    i += 1
    while i < end:
        cons = not _is_vowel(word[i], cons)
        if cons:
            return i + 1
        i += 1
    return 0


def _m_gt0(word, end):
    return bool(_gobble_vc(word, 0, end, False))


def _m_gt1(word, end):
    n = _gobble_vc(word, 0, end, False)
    return bool(n) and bool(_gobble_vc(word, n, end, True))


def _m_eq1(word, end):
    n = _gobble_vc(word, 0, end, False)
    return bool(n) and not _gobble_vc(word, n, end, True)


def _o_star(word, end):
    """Ends consonant-vowel-consonant, the last not ``w``, ``x`` or ``y``."""
    if end < 1 or word[end - 1] in "wxy":
        return False
    mask = 0
    cons = False
    for i in range(end):
        cons = not _is_vowel(word[i], cons)
        mask = (mask << 1) + cons
    return (mask & 7) == 5


def _has_vowel(word, end):
    return any(_is_vowel(word[i], i > 0) for i in range(end))


# (suffix, replacement) per step, tried in order; the first suffix that matches decides, whether
# or not its condition holds.
_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("logi", "log"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("ical", "ic"),
    ("ness", ""),
    ("icate", "ic"),
    ("iciti", "ic"),
    ("ful", ""),
    ("ative", ""),
    ("alize", "al"),
)
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
    "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _by_second_last(rules):
    """FTS5 picks a rule group by the word's second-to-last letter, then tries it in order."""
    groups: dict[str, list[object]] = {}
    for rule in rules:
        suffix = rule[0] if isinstance(rule, tuple) else rule
        groups.setdefault(suffix[-2], []).append(rule)
    return groups


_STEP2_BY = _by_second_last(_STEP2)
_STEP3_BY = _by_second_last(_STEP3)
_STEP4_BY = _by_second_last(_STEP4)


def _replace(word, groups, condition):
    if len(word) < 2:
        return word
    for suffix, replacement in groups.get(word[-2], ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = len(word) - len(suffix)
            return word[:stem] + replacement if condition(word, stem) else word
    return word


def _step4(word):
    if len(word) < 2:
        return word
    for suffix in _STEP4_BY.get(word[-2], ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = len(word) - len(suffix)
            if suffix == "ion":
                keep = word[stem - 1] in "st" and _m_gt1(word, stem)
            else:
                keep = _m_gt1(word, stem)
            return word[:stem] if keep else word
    return word


def stem(word):
    """The FTS5 porter stem of one lowercase token."""
    n = len(word)
    if n < 3 or n > MAX_TOKEN:
        return word
    # Step 1a: plurals.
    if word[-1] == "s":
        if word[-2] == "e":
            if (n > 4 and word[-4:-2] == "ss") or (n > 3 and word[-3] == "i"):
                word = word[:-2]
            else:
                word = word[:-1]
        elif word[-2] != "s":
            word = word[:-1]
    # Step 1b: -eed, -ed, -ing.
    removed = False
    n = len(word)
    if n > 3 and word.endswith("eed"):
        if _m_gt0(word, n - 3):
            word = word[:-1]
    elif n > 2 and word.endswith("ed"):
        if _has_vowel(word, n - 2):
            word = word[:-2]
            removed = True
    elif n > 3 and word.endswith("ing") and _has_vowel(word, n - 3):
        word = word[:-3]
        removed = True
    if removed and len(word) >= 2:
        if word[-2:] in ("at", "bl", "iz") and len(word) > 2:
            word += "e"
        else:
            c = word[-1]
            if not _is_vowel(c, False) and c not in "lsz" and c == word[-2]:
                word = word[:-1]
            elif _m_eq1(word, len(word)) and _o_star(word, len(word)):
                word += "e"
    # Step 1c: y -> i after a vowel.
    if word and word[-1] == "y" and _has_vowel(word, len(word) - 1):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2_BY, _m_gt0)
    word = _replace(word, _STEP3_BY, _m_gt0)
    word = _step4(word)
    # Step 5a: a final e.
    n = len(word)
    if (n and word[-1] == "e") and (
        _m_gt1(word, n - 1) or (_m_eq1(word, n - 1) and not _o_star(word, n - 1))
    ):
        word = word[:-1]
    # Step 5b: -ll after m > 1.
    n = len(word)
    if n > 1 and word[-1] == "l" and word[-2] == "l" and _m_gt1(word, n - 1):
        word = word[:-1]
    return word
