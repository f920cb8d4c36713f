"""Events: the fields every reader fills and every detector reads, built cheaply."""

from __future__ import annotations

import gc
import pickle

import pytest

from lessons_core.scan import events as ev


def _event(**kw: object) -> ev.Event:
    base: dict[str, object] = {
        "session_id": "s1",
        "project": "/home/dev/app",
        "file": "/t/a.jsonl",
        "line": 7,
        "offset": 123,
        "tool": "Bash",
        "command": "pytest -x",
        "paths": ("/home/dev/app/x.py",),
        "call_id": "c1",
    }
    base.update(kw)
    return ev.Event(ev.TOOL_CALL, "claude", **base)  # type: ignore[arg-type]


def test_fields_by_position_are_the_fields_by_name_in_their_documented_order():
    """Readers pass all eighteen by position, in the order of ``_FIELDS``."""
    assert ev.Event.__struct_fields__ == ev._FIELDS
    named = _event()
    positional = ev.Event(*(getattr(named, name) for name in ev._FIELDS))
    assert positional == named
    assert positional.as_dict() == named.as_dict()


def test_an_event_is_not_tracked_by_the_collector():
    """A scan's events set off no young collections: they hold no references a cycle needs."""
    assert not gc.is_tracked(_event())


def test_events_compare_by_value_are_unhashable_and_survive_a_pickle():
    """Equal fields are equal events; a mutable event has no hash; a helper can send one."""
    one = _event()
    assert one == _event() and one != _event(line=8)
    with pytest.raises(TypeError):
        hash(one)
    assert pickle.loads(pickle.dumps(one)) == one
    assert repr(one) == "Event(tool_call, /t/a.jsonl:7, Bash, call=c1)"
