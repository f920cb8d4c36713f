"""Judging one delivery from the events its session's reader gives: placing it, then the verdict.

The loop's tests reach ``judge`` through whole transcripts; these name the edges it decides on
(where a delivery sits among its events, which call is its own, how long a silent session
waits) with the events a reader produces, so a slip there changes a verdict a test reads.
"""

from __future__ import annotations

from datetime import UTC, datetime

from outcome_support import MODULE_ERROR, PYTEST_LESSON

from lessons_core import serde
from lessons_core.hot.deliveries import call_fingerprint
from lessons_core.outcomes.judging import SETTLE_SECONDS, LessonProbe, judge
from lessons_core.scan import events as ev
from lessons_core.verdicts.records import (
    NEEDLESS,
    PREVENTED,
    QUIET,
    RECURRED,
    UNKNOWN,
    Delivery,
)

T0 = 1_780_000_000.0  # the delivery's time; events are placed around it in seconds


def iso(offset: float = 0.0) -> str:
    return datetime.fromtimestamp(T0 + offset, UTC).isoformat()


def call(call_id: str, command: str, at: float = 0.0) -> ev.Event:
    return ev.Event(
        ev.TOOL_CALL, "claude", time=iso(at), tool="Bash", command=command, call_id=call_id
    )


def edit(call_id: str, path: str, at: float = 0.0) -> ev.Event:
    return ev.Event(
        ev.TOOL_CALL, "claude", time=iso(at), tool="Edit", paths=(path,), call_id=call_id
    )


def result(call_id: str, text: str = "ok", failure: str | None = None, at: float = 0.0) -> ev.Event:
    return ev.Event(
        ev.TOOL_RESULT, "claude", time=iso(at), call_id=call_id, failure=failure, text=text
    )


def delivery(kind: str = "hint", call_id: str | None = None, **kw: str | None) -> Delivery:
    fields: dict[str, str | None] = {"at": iso(), "call": None, "call_id": call_id}
    fields.update(kw)
    return Delivery("oc-venv-pytest", "s1", "claude", "pre_tool", kind, **fields)  # type: ignore[arg-type]


def fingerprint(command: str) -> str:
    return str(call_fingerprint({"tool": "Bash", "command": command, "paths": []}))


def probe(**changes: object) -> LessonProbe:
    return LessonProbe(serde.lesson_from_json({**PYTEST_LESSON, **changes}))


def verdict(
    d: Delivery, events: list[ev.Event], p: LessonProbe | None = None, now: float = 0.0
) -> str | None:
    return judge(d, events, p or probe(), {}, T0 + now)


# --- the probe ---------------------------------------------------------------------------------


def test_a_call_matching_the_trigger_recurs_without_the_error_text() -> None:
    """The trigger alone says the mistake came back: the output need not carry a fingerprint."""
    events = [
        call("c1", "ls"),
        result("c1"),
        call("c2", "pytest -q", 5),
        result("c2", "boom", ev.ERROR, 6),
    ]
    assert verdict(delivery(call_id="c1"), events) == RECURRED


def test_a_file_tool_call_on_the_triggering_path_recurs() -> None:
    """A lesson triggered by a path recurs when a later edit of that path fails, whatever the
    output says; an edit of another file is not its trigger."""
    by_path = probe(triggers={"toolNames": ["Edit"], "pathPatterns": ["**/migrations/*.py"]})
    assert by_path.matches_call(edit("c2", "/srv/app/migrations/0002.py"), {})
    assert not by_path.matches_call(edit("c2", "/srv/app/models.py"), {})
    events = [
        call("c1", "ls"),
        result("c1"),
        edit("c2", "/srv/app/migrations/0002.py", 5),
        result("c2", "boom", ev.ERROR, 6),
    ]
    assert verdict(delivery(call_id="c1"), events, by_path) == RECURRED


def test_a_lesson_without_a_trigger_matches_no_call() -> None:
    """A lesson known only by its error lines is never said to fire on a command."""
    bare = probe(triggers={})
    assert not bare.has_trigger()
    assert not bare.matches_call(call("c2", "pytest -q"), {})
    events = [
        call("c1", "ls"),
        result("c1"),
        call("c2", "pytest -q", 5),
        result("c2", "boom", ev.ERROR, 6),
    ]
    assert verdict(delivery(call_id="c1"), events, bare) == QUIET


# --- the delivery's own call -------------------------------------------------------------------


def test_the_delivering_call_failing_on_its_trigger_makes_the_lesson_live() -> None:
    """The call the hint came with, failing as the trigger says, shows the mistake was live."""
    events = [
        call("c1", "pytest -q"),
        result("c1", "boom", ev.ERROR, 1),
        call("c2", "ls", 5),
        result("c2", at=6),
    ]
    assert verdict(delivery(call_id="c1"), events) == PREVENTED
    worked = [call("c1", "pytest -q"), result("c1", at=1), call("c2", "ls", 5), result("c2", at=6)]
    assert verdict(delivery(call_id="c1"), worked) == QUIET


# --- waiting and settling ----------------------------------------------------------------------


def test_an_unplaceable_delivery_waits_then_settles_as_unknown() -> None:
    """Nothing to place it by: a young delivery waits, one past the settling time is unknown."""
    lost = delivery(call_id="gone", at=iso())
    assert verdict(lost, [], now=SETTLE_SECONDS - 60) is None
    assert verdict(lost, [], now=SETTLE_SECONDS + 60) == UNKNOWN


def test_a_session_that_has_not_gone_on_waits_then_is_judged() -> None:
    """No call after the delivery: it waits while young, and is judged once settled."""
    events = [call("c1", "pytest -q"), result("c1", MODULE_ERROR, ev.ERROR, 1)]
    assert verdict(delivery(call_id="c1"), events, now=60) is None
    assert verdict(delivery(call_id="c1"), events, now=SETTLE_SECONDS + 60) == PREVENTED


# --- placing a delivery ------------------------------------------------------------------------


def test_placed_by_fingerprint_at_the_last_run_of_the_call_by_its_time() -> None:
    """Without an id, the delivery sits after the last run of its call not later than it.

    The earlier run of the same call failed (before the hint); the run the hint came with is the
    second, and the third, an hour later, fails again: that one is the recurrence.
    """
    events = [
        call("a", "pytest -q", -60),
        result("a", MODULE_ERROR, ev.ERROR, -59),
        call("b", "pytest -q", 0),
        result("b", "2 passed", at=2),
        call("x", "ls", 1.5),
        result("x", at=1.6),
        call("c", "pytest -q", 3600),
        result("c", MODULE_ERROR, ev.ERROR, 3601),
    ]
    hinted = delivery(call=fingerprint("pytest -q"))
    assert verdict(hinted, events) == RECURRED
    # Placed after the first run instead, the second run's success would be all it saw next.
    assert verdict(hinted, events[:6]) == QUIET


def test_a_denied_call_run_again_unchanged_and_working_is_needless() -> None:
    """A guard's denied call, placed by fingerprint, then run again unchanged and succeeding."""
    command = "pytest -q"
    denied = delivery("guard", call=fingerprint(command))
    events = [
        call("d", command, 0),
        result("d", "denied", ev.DENIED, 0.5),
        call("e", command, 30),
        result("e", at=31),
    ]
    assert verdict(denied, events) == NEEDLESS
    changed = [
        call("d", command, 0),
        result("d", "denied", ev.DENIED, 0.5),
        call("e", "ls", 30),
        result("e", at=31),
    ]
    assert verdict(denied, changed) == PREVENTED


def test_a_fingerprint_found_only_later_places_the_delivery_at_its_first_run() -> None:
    """Every run of the call is after the delivery's time: it sits after the first of them."""
    events = [
        call("a", "ls", 100),
        result("a", MODULE_ERROR, ev.ERROR, 101),
        call("b", "pytest -q", 200),
        result("b", at=201),
        call("c", "pytest -q", 300),
        result("c", MODULE_ERROR, ev.ERROR, 301),
    ]
    # The output of `a`, before the first run, is not after the delivery; `c`'s is.
    assert verdict(delivery(call=fingerprint("pytest -q")), events) == RECURRED
    assert verdict(delivery(call=fingerprint("pytest -q")), events[:4], now=SETTLE_SECONDS) == QUIET


def test_a_delivery_without_a_call_is_placed_by_time() -> None:
    """A session-start delivery sits before the first event at or after its time."""
    events = [
        call("a", "pytest -q", -10),
        result("a", MODULE_ERROR, ev.ERROR, -9),
        call("b", "pytest -q", 0),
        result("b", MODULE_ERROR, ev.ERROR, 1),
    ]
    start = delivery("session")
    assert verdict(start, events) == RECURRED
    assert verdict(start, [*events[:2], call("b", "ls", 0), result("b", at=1)]) == QUIET
    untimed = [ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command="ls", call_id="u")]
    assert verdict(start, [*untimed, *events[2:]]) == RECURRED
    assert verdict(delivery("session", at=None), events, now=SETTLE_SECONDS + 60) == UNKNOWN


def test_a_later_failure_of_another_kind_is_not_a_recurrence() -> None:
    """A failing call the trigger does not name, with other output, leaves the lesson quiet."""
    events = [
        call("c1", "ls"),
        result("c1"),
        call("c2", "cat setup.cfg", 5),
        result("c2", "cat: setup.cfg: No such file or directory", ev.ERROR, 6),
    ]
    assert verdict(delivery(call_id="c1"), events) == QUIET


def test_placed_by_id_after_its_own_call_not_the_first_call() -> None:
    """Earlier calls of the session, failing as the lesson says, are before the delivery."""
    events = [
        call("c0", "pytest -q", -60),
        result("c0", MODULE_ERROR, ev.ERROR, -59),
        call("c1", "ls", 0),
        result("c1", at=1),
    ]
    assert verdict(delivery(call_id="c1"), events, now=SETTLE_SECONDS) == QUIET


def test_placed_by_fingerprint_after_the_last_of_several_earlier_runs() -> None:
    """Three runs of the call up to the delivery's time: it sits after the third."""
    events = [
        call("a", "pytest -q", -120),
        result("a", "ok", at=-119),
        call("b", "pytest -q", -60),
        result("b", MODULE_ERROR, ev.ERROR, -59),
        call("c", "pytest -q", 0),
        result("c", at=0.5),
    ]
    assert verdict(delivery(call=fingerprint("pytest -q")), events, now=SETTLE_SECONDS) == QUIET


def test_placed_by_fingerprint_after_its_call_not_another_call() -> None:
    """Another call made just after it does not move the delivery past what followed its own."""
    events = [
        call("b", "pytest -q", 0),
        result("b", at=0.1),
        call("y", "pytest -x", 0.2),
        result("y", MODULE_ERROR, ev.ERROR, 0.3),
        call("x", "ls", 0.5),
        result("x", at=0.6),
    ]
    assert verdict(delivery(call=fingerprint("pytest -q")), events, now=SETTLE_SECONDS) == RECURRED


def test_a_run_within_a_second_of_the_delivery_is_its_own() -> None:
    """The hook's clock and the transcript's differ by up to a second, no more."""
    events = [
        call("a", "pytest -q", 0),
        result("a", MODULE_ERROR, ev.ERROR, 0.2),
        call("b", "pytest -q", 1.5),
        result("b", at=1.7),
    ]
    # Placed after `a` (0 s), not `b` (1.5 s): a's failure, after the delivery, recurs.
    assert verdict(delivery(call=fingerprint("pytest -q")), events, now=SETTLE_SECONDS) == RECURRED


def test_a_run_a_second_after_the_delivery_is_still_its_own() -> None:
    """Up to a second either way: a run the transcript dates a second after the hook's clock is
    the delivering call, not a later one."""
    events = [
        call("a", "pytest -q", -60),
        result("a", MODULE_ERROR, ev.ERROR, -59),
        call("b", "pytest -q", 1),
        result("b", at=1.2),
    ]
    # Placed after `b`, whose run worked; placed after `a`, b's run would follow a's failure.
    assert verdict(delivery(call=fingerprint("pytest -q")), events, now=SETTLE_SECONDS) == QUIET


def test_placed_by_fingerprint_just_after_its_call() -> None:
    """The delivering call is not a later call, and its result is the first thing after it."""
    hinted = delivery(call=fingerprint("pytest -q"))
    worked = [call("b", "pytest -q", 0), result("b", at=1)]
    assert verdict(hinted, worked, now=60) is None
    failed = [call("b", "pytest -q", 0), result("b", MODULE_ERROR, ev.ERROR, 1)]
    assert verdict(hinted, failed, now=60) == RECURRED


def test_an_event_at_the_delivery_time_is_after_it() -> None:
    """A session-start delivery and a call at the same second: the call counts as later."""
    events = [call("a", "ls", 0), result("a", at=1)]
    assert verdict(delivery("session"), events, now=60) == QUIET
