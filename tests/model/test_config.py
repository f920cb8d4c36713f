"""config.json: defaults, clear errors, atomic save, and the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from lessons_core import config as cfg
from lessons_core.errors import LessonsError
from lessons_core.models import Config, ScoringWeights

SCHEMA = Path(cfg.__file__).parent / "schemas" / "config.schema.json"


def write(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(text, encoding="utf-8")


def test_absent_file_gives_defaults(tmp_path):
    """Most users never write a config."""
    assert cfg.load_config(tmp_path / "nowhere") == Config()


def test_partial_file_overrides_only_what_it_names(tmp_path):
    """Keys not in the file keep their defaults, nested scoring included."""
    write(tmp_path, '{"maxLessonsPerInjection": 5, "scoring": {"retryLoop": 0.2}}')
    assert cfg.load_config(tmp_path) == Config(
        max_lessons_per_injection=5, scoring=ScoringWeights(retry_loop=0.2)
    )


def test_malformed_json_names_line_and_column(tmp_path):
    """A syntax error points at where it is."""
    write(tmp_path, '{\n  "minPriority": 3,\n  oops\n}')
    with pytest.raises(LessonsError) as info:
        cfg.load_config(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'config.json'}: not valid JSON at line 3, column 3: "
        "Expecting property name enclosed in double quotes"
    )


def test_unknown_key_gets_a_hint(tmp_path):
    """A typo is an error with the closest key, not a silently ignored setting."""
    write(tmp_path, '{"injectionBudgetByte": 100}')
    with pytest.raises(LessonsError) as info:
        cfg.load_config(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'config.json'}: unknown key 'injectionBudgetByte' — "
        "did you mean 'injectionBudgetBytes'?"
    )


def test_wrong_value_type_names_the_field(tmp_path):
    """Values are not coerced."""
    write(tmp_path, '{"autoScan": "yes"}')
    with pytest.raises(LessonsError, match=r"field 'autoScan': expected true or false, got 'yes'"):
        cfg.load_config(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "expected a JSON object at the top level"),
        ('{"type": "lessons-export"}', "'type' is 'lessons-export', expected 'lessons-config'"),
        ('{"version": 2}', "version 2 was written by a newer lessons"),
        ('{"version": "1"}', "'version' must be a positive integer, got '1'"),
    ],
)
def test_file_metadata_is_checked(tmp_path, text, message):
    """The $schema/type/version header identifies the file and its format version."""
    write(tmp_path, text)
    with pytest.raises(LessonsError, match=message):
        cfg.load_config(tmp_path)


def test_save_then_load_round_trips_and_carries_metadata(tmp_path):
    """What save writes, load reads back identically; the file says what it is."""
    wanted = Config(min_confidence=0.7, auto_scan=False, scoring=ScoringWeights(base=0.4))
    path = cfg.save_config(tmp_path / "home", wanted)
    data = json.loads(path.read_text())
    assert (data["$schema"], data["type"], data["version"]) == (
        cfg.CONFIG_SCHEMA_ID,
        "lessons-config",
        1,
    )
    assert cfg.load_config(tmp_path / "home") == wanted
    assert [p.name for p in (tmp_path / "home").iterdir()] == ["config.json"]


def test_written_files_validate_against_the_shipped_schema(tmp_path):
    """The default file and a customised one both satisfy config.schema.json."""
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(cfg.default_config_json())
    path = cfg.save_config(tmp_path, Config(injection_budget_bytes=1024))
    validator.validate(json.loads(path.read_text()))


def test_schema_rejects_what_the_loader_rejects():
    """An unknown key fails the schema too, so editors flag it as the loader would."""
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    assert not validator.is_valid({"injectionBudgetByte": 1})
    assert not validator.is_valid({"scoring": {"nope": 1}})


def test_schema_lists_every_config_field():
    """A new Config field must be added to the schema too."""
    properties = json.loads(SCHEMA.read_text())["properties"]
    for key in cfg.default_config_json():
        assert key in properties
    scoring = properties["scoring"]["properties"]
    assert set(scoring) == set(cfg.default_config_json()["scoring"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"minConfidence": 1.5}', "field 'minConfidence': must be between 0 and 1, got 1.5"),
        ('{"minPriority": 0}', "field 'minPriority': must be between 1 and 10, got 0"),
        (
            '{"injectionBudgetBytes": -1}',
            "field 'injectionBudgetBytes': must be at least 0, got -1",
        ),
        ('{"scoring": {"base": 2}}', "field 'scoring.base': must be between 0 and 1, got 2.0"),
    ],
)
def test_out_of_range_values_are_refused(tmp_path, text, message):
    """The loader enforces the schema's bounds, naming the field."""
    write(tmp_path, text)
    with pytest.raises(LessonsError) as info:
        cfg.load_config(tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'config.json'} {message}")


def test_mcp_record_active_is_read_and_checked() -> None:
    """``mcp.recordActive`` (the MCP server's record tool) parses, defaults off, refuses typos."""
    assert cfg.parse_config("{}").mcp.record_active is False
    assert cfg.parse_config('{"mcp": {"recordActive": true}}').mcp.record_active is True
    with pytest.raises(LessonsError, match="recordActive"):
        cfg.parse_config('{"mcp": {"recordActiv": true}}')
