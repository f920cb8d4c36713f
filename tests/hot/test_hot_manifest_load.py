"""Loading the manifest: the marshal copy when it is trustworthy, the JSON otherwise."""

from __future__ import annotations

import json
import os

from hot_support import install_manifest, make_lesson
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.hot import fastjson
from lessons_core.hot import manifest as manifest_mod


def _paths(home):
    path = str(home / "lesson-manifest.json")
    return path, manifest_mod.cache_path(path)


def test_cache_is_written_and_used(home, monkeypatch):
    """After a build the marshal copy exists and is what gets loaded."""
    lesson = make_lesson()
    install_manifest(home, lesson)
    path, cache = _paths(home)
    assert os.path.exists(cache)
    calls = []
    monkeypatch.setattr(fastjson, "loads", lambda raw: calls.append(raw) or {})
    manifest = manifest_mod.load(path)
    assert lesson.id in manifest["lessons"]
    assert calls == []


def test_cache_bound_to_the_json_it_came_from(home):
    """A JSON edited after the build wins over the old cache."""
    install_manifest(home, make_lesson())
    path, _ = _paths(home)
    data = json.loads((home / "lesson-manifest.json").read_text(encoding="utf-8"))
    data["lessons"] = {}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    assert manifest_mod.load(path)["lessons"] == {}


def test_untrusted_or_corrupt_cache_is_ignored(home):
    """A group-writable or garbled cache falls back to the JSON."""
    lesson = make_lesson()
    install_manifest(home, lesson)
    path, cache = _paths(home)
    os.chmod(cache, 0o666)
    assert lesson.id in manifest_mod.load(path)["lessons"]
    manifest_mod.clear_cache()
    os.chmod(cache, 0o600)
    blob = (home / "lesson-manifest.marshal").read_bytes()
    header = blob.split(b"\n", 1)[0] + b"\n"
    with open(cache, "wb") as fh:
        fh.write(header + b"\x00garbage")
    assert lesson.id in manifest_mod.load(path)["lessons"]


def test_wrong_shape_is_empty(home):
    """A JSON document that is not a manifest of our version loads as no lessons."""
    path, _ = _paths(home)
    for doc in ({"type": "other"}, {"type": "lessons-manifest", "version": 99}, [1]):
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        manifest_mod.clear_cache()
        assert manifest_mod.load(path) is manifest_mod.EMPTY


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(), c, max_size=5),
    max_leaves=20,
)


@given(_values)
def test_fastjson_round_trips_like_json(value):
    """fastjson parses what json writes and writes what json parses back to the same value."""
    assert fastjson.loads(json.dumps(value)) == value
    assert json.loads(fastjson.dumps(value)) == value
    assert fastjson.dumps(value).isascii()


@given(st.text(max_size=40))
def test_fastjson_rejects_what_json_rejects(text):
    """Invalid documents raise ValueError in both."""
    try:
        expected = json.loads(text)
    except ValueError:
        expected = ValueError
    try:
        got = fastjson.loads(text)
    except ValueError:
        got = ValueError
    assert got == expected or (got != got and expected != expected)


def test_cache_and_json_decide_alike(home):
    """Matching on the marshal copy (lazy lessons, programs, per-tool index) equals the JSON."""
    from lessons_core.hot import match

    lessons = [
        make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\bgit\s+push\b"]}),
        make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"(?P<x>npm)\s+ci"]}),
        make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["**/*.sql"]}),
        make_lesson(triggers={"content_patterns": [r"\b\d+\.\d+"]}),  # \d+ alone is quadratic
    ]
    install_manifest(home, *lessons)
    path, _ = _paths(home)
    cached = manifest_mod.load(path)
    assert isinstance(cached["lessons"], manifest_mod.LazyLessons)
    plain = fastjson.loads((home / "lesson-manifest.json").read_bytes())
    events = [
        {"event": "pre_tool", "tool": "Bash", "command": "git push -f"},
        {"event": "pre_tool", "tool": "Bash", "command": "npm ci"},
        {"event": "pre_tool", "tool": "Edit", "paths": ["/a/b.sql"], "content": "v 1.2"},
        {"event": "pre_tool", "tool": "Write", "paths": ["/a/b.txt"], "content": "v 1.2"},
        {"event": "pre_tool", "tool": "Bash", "command": "ls"},
    ]
    for event in events:
        match._compiled.clear()
        via_cache = match.matching(cached, event)
        match._compiled.clear()
        assert via_cache == match.matching(plain, event)
    assert match.matching(cached, events[0]) == [lessons[0].id]


def test_rebuilt_cache_is_not_misread(home):
    """A closed reader whose file was rebuilt refuses to read, instead of decoding garbage."""
    first = make_lesson()
    install_manifest(home, first)
    path, _ = _paths(home)
    cached = manifest_mod.load(path)
    manifest_mod.clear_cache()
    install_manifest(home, make_lesson(), make_lesson(), first)
    try:
        entry = cached["lessons"][first.id]
    except LookupError:
        return
    assert entry["slug"] == first.slug  # the same file after all (rebuilt in place identically)
