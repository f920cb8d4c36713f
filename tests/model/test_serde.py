"""JSON ↔ model conversion: aliases, strictness and the exact error messages."""

from __future__ import annotations

import pytest

from lessons_core import serde
from lessons_core.errors import ValidationError
from lessons_core.models import (
    Candidate,
    Config,
    Evidence,
    LessonType,
    MatchTarget,
    ScoringWeights,
    Status,
)

BASE = {"summary": "pytest hangs", "mistake": "ran bare pytest", "remediation": "use -p no:x"}


def lesson(**extra):
    return {**BASE, **extra}


def error_of(obj, where="line 3"):
    with pytest.raises(ValidationError) as info:
        serde.lesson_from_json(obj, where=where)
    return str(info.value)


def test_contract_example_is_read_in_full():
    """Every contract field lands on the model, camelCase to snake_case."""
    got = serde.lesson_from_json(
        lesson(
            injection="pre-rendered",
            type="guard",
            triggers={
                "toolNames": ["Bash"],
                "commandPatterns": [r"\bpytest\b"],
                "pathPatterns": ["**/alembic/versions/*.py"],
                "contentPatterns": ["x"],
                "modelPatterns": ["sonnet"],
                "pathRegexes": [r".*\.sh$"],
            },
            commandMatchTarget="executable",
            priority=8,
            confidence=0.9,
            tags=["tool:pytest"],
            scope="github.com/acme/widgets",
        )
    )
    assert got.type is LessonType.GUARD
    assert got.command_match_target is MatchTarget.EXECUTABLE
    assert got.triggers.tool_names == ("Bash",)
    assert got.triggers.path_patterns == ("**/alembic/versions/*.py",)
    assert got.triggers.path_regexes == (r".*\.sh$",)
    assert got.triggers.model_patterns == ("sonnet",)
    assert (got.priority, got.confidence, got.tags) == (8, 0.9, ("tool:pytest",))
    assert got.scope == "github.com/acme/widgets"
    assert got.injection == "pre-rendered"
    assert got.status is Status.ACTIVE


def test_missing_id_slug_and_timestamps_are_filled():
    """A hand-written lesson gets a ULID, a slug from its summary and timestamps."""
    got = serde.lesson_from_json(BASE)
    assert len(got.id) == 26
    assert got.slug.startswith("pytest-hangs-")
    assert got.created_at.endswith("Z") and got.updated_at == got.created_at


@pytest.mark.parametrize(
    ("alias", "field"),
    [("problem", "mistake"), ("solution", "remediation"), ("fix", "remediation")],
)
def test_input_aliases(alias, field):
    """problem/solution/fix are accepted for mistake/remediation."""
    obj = {k: v for k, v in BASE.items() if k != field}
    obj[alias] = "aliased text"
    assert getattr(serde.lesson_from_json(obj), field) == "aliased text"


def test_message_alias_is_injection():
    """message is accepted for injection."""
    assert serde.lesson_from_json(lesson(message="hi")).injection == "hi"


def test_alias_and_field_with_the_same_value_are_fine_but_different_values_are_not():
    """Giving both spellings is an error only when they disagree."""
    assert serde.lesson_from_json(lesson(fix=BASE["remediation"])).remediation == "use -p no:x"
    assert error_of(lesson(fix="other")) == (
        "line 3: 'remediation' and 'fix' both given, with different values "
        "(they are the same field)"
    )


def test_unknown_key_gets_a_did_you_mean_hint():
    """A misspelt trigger key is rejected with the closest known key."""
    message = error_of(lesson(triggers={"comandPatterns": ["x"]}))
    assert message == "line 3: unknown key 'comandPatterns' — did you mean 'commandPatterns'?"


def test_unknown_top_level_key_hint_includes_aliases():
    """Top-level typos are caught too, and aliases count as known spellings."""
    assert error_of(lesson(sumary="x")) == "line 3: unknown key 'sumary' — did you mean 'summary'?"
    assert "did you mean 'solution'" in error_of(lesson(solutin="x"))


def test_unknown_key_without_a_close_match_lists_the_known_keys():
    """When nothing is close, the message lists what is allowed."""
    message = error_of(lesson(zzz=1))
    assert message.startswith("line 3: unknown key 'zzz' (known keys: id, slug, summary")


def test_comment_keys_and_content_hash_are_ignored():
    """'//' keys are comments; contentHash is recomputed, never trusted."""
    got = serde.lesson_from_json(lesson(**{"//": "note", "//2": "x", "contentHash": "bogus"}))
    assert got.content_hash != "bogus"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"priority": "8"}, "line 3 field 'priority': expected an integer, got '8'"),
        ({"priority": True}, "line 3 field 'priority': expected an integer, got true"),
        ({"confidence": "high"}, "line 3 field 'confidence': expected a number, got 'high'"),
        ({"summary": 5}, "line 3 field 'summary': expected a string, got 5"),
        ({"tags": "x"}, "line 3 field 'tags': expected a list of strings, got 'x'"),
        (
            {"type": "bogus"},
            "line 3 field 'type': 'bogus' is not one of: hint, nudge, guard, protocol, directive",
        ),
        (
            {"commandMatchTarget": "exe"},
            "line 3 field 'commandMatchTarget': 'exe' is not one of: full, executable",
        ),
        (
            {"triggers": {"commandPatterns": ["a", 3]}},
            "line 3 field 'triggers.commandPatterns': item 1: expected a string, got 3",
        ),
        ({"triggers": ["Bash"]}, "line 3 field 'triggers': expected a JSON object, got a list"),
        ({"provenance": None}, "line 3 field 'provenance': expected a JSON object"),
        ({"scope": 5}, "line 3 field 'scope': expected a string, got 5"),
        (
            {"provenance": {"occurrences": 2.5}},
            "line 3 field 'provenance.occurrences': expected an integer, got 2.5",
        ),
    ],
)
def test_type_errors_name_the_field_and_the_reason(extra, expected):
    """Wrong types are reported, not coerced, with the lesson and the JSON field path."""
    assert error_of(lesson(**extra)) == expected


def test_missing_required_field():
    """A lesson without remediation says so."""
    assert error_of({"summary": "s", "mistake": "m"}) == "line 3 field 'remediation': is required"


def test_several_errors_are_reported_together():
    """All shape errors of one lesson come in one message."""
    message = error_of(lesson(priority="x", type="bogus"))
    assert message.startswith("line 3: ")
    assert "field 'priority': expected an integer" in message
    assert "field 'type': 'bogus' is not one of" in message


def test_not_an_object():
    """A list where a lesson belongs is named as such."""
    assert error_of([1, 2], where="lesson 2") == "lesson 2: expected a JSON object, got a list"


def test_integral_floats_are_accepted_as_integers():
    """8.0 is a fine priority (some JSON writers emit floats)."""
    assert serde.lesson_from_json(lesson(priority=8.0)).priority == 8


def test_lesson_round_trip_through_the_export_shape():
    """lesson_to_json then lesson_from_json gives back an equal lesson, hash included."""
    original = serde.lesson_from_json(
        lesson(type="nudge", triggers={"toolNames": ["Edit"], "pathPatterns": ["**/*.py"]})
    )
    data = serde.lesson_to_json(original)
    assert data["contentHash"] == original.content_hash
    assert data["triggers"]["pathPatterns"] == ["**/*.py"]
    assert list(data)[:3] == ["id", "slug", "summary"]
    again = serde.lesson_from_json(data)
    assert again == original


def test_candidate_round_trip_keeps_contract_spelling():
    """Candidates use camelCase, except evidence which keeps the contract's call_id/session_id."""
    candidate = Candidate(
        id="c1",
        tier=2,
        agent="claude",
        tool="Bash",
        trigger="pytest",
        mistake="m",
        fix="f",
        tags=("t",),
        evidence=(Evidence(file="/t.jsonl", line=4, call_id="toolu_1", session_id="s"),),
        error_lines=("E1",),
    )
    data = serde.candidate_to_json(candidate)
    assert data["evidence"] == [
        {"file": "/t.jsonl", "line": 4, "call_id": "toolu_1", "session_id": "s"}
    ]
    assert data["errorLines"] == ["E1"]
    assert serde.candidate_from_json(data) == candidate


def test_candidate_errors_name_the_evidence_item():
    """A bad evidence line number points at the evidence entry."""
    obj = {
        "id": "c",
        "tier": 1,
        "agent": "a",
        "tool": None,
        "trigger": None,
        "mistake": "m",
        "fix": "f",
        "evidence": [{"file": "x", "line": "4"}],
    }
    with pytest.raises(ValidationError) as info:
        serde.candidate_from_json(obj, where="candidate c")
    assert str(info.value) == "candidate c field 'evidence[0].line': expected an integer, got '4'"


def test_config_uses_camel_case_and_nested_scoring():
    """Config keys are camelCase; a partial scoring block keeps the other defaults."""
    config = serde.config_from_json({"injectionBudgetBytes": 2048, "scoring": {"base": 0.2}})
    assert config == Config(injection_budget_bytes=2048, scoring=ScoringWeights(base=0.2))
    data = serde.config_to_json(Config())
    assert data["maxLessonsPerInjection"] == 3
    assert data["autoScanIntervalHours"] == 1.0
    assert data["scoring"]["errorThenSuccess"] == 0.25


def test_config_unknown_nested_key_hint():
    """A typo inside scoring is caught with a hint."""
    with pytest.raises(ValidationError) as info:
        serde.config_from_json({"scoring": {"userCorection": 0.1}}, where="config.json")
    assert str(info.value) == (
        "config.json: unknown key 'userCorection' — did you mean 'userCorrection'?"
    )
