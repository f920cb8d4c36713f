"""``config.json`` in ``LESSONS_HOME``: read with defaults, written with its schema marker.

No file means the defaults (most users never write one). A file that is there but wrong is an
error, not a silent fallback: a typo such as ``injectionBudgetByte`` would otherwise leave the
user wondering why their setting has no effect. Every file we write says what it is (``$schema``,
``type``, ``version``), so a future version can migrate it and a stray file is recognised.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs

from lessons_core.errors import LessonsError, ValidationError
from lessons_core.hot.paths import CONFIG_NAME
from lessons_core.models import Config

CONFIG_TYPE = "lessons-config"
CONFIG_VERSION = 1
CONFIG_SCHEMA_ID = "urn:lessons:schema:config:1"
_META_KEYS = ("$schema", "type", "version")


def config_file(home: Path) -> Path:
    return home / CONFIG_NAME


def default_config_json() -> dict[str, Any]:
    """The full default configuration as it is written to disk."""
    return config_to_document(Config())


def config_to_document(config: Config) -> dict[str, Any]:
    """``config`` in the on-disk shape, metadata first."""
    # cattrs is imported here, not at the top: most commands find no config.json and never
    # need it, and importing it is a large share of their start-up.
    from lessons_core import serde

    return {
        "$schema": CONFIG_SCHEMA_ID,
        "type": CONFIG_TYPE,
        "version": CONFIG_VERSION,
        **serde.config_to_json(config),
    }


def parse_config(text: str, where: str = CONFIG_NAME) -> Config:
    """Parse the text of a config file; errors name the file and the line/column or key."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LessonsError(
            f"{where}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise LessonsError(f"{where}: expected a JSON object at the top level")
    kind = data.get("type", CONFIG_TYPE)
    if kind != CONFIG_TYPE:
        raise LessonsError(f"{where}: 'type' is {kind!r}, expected {CONFIG_TYPE!r}")
    version = data.get("version", CONFIG_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LessonsError(f"{where}: 'version' must be a positive integer, got {version!r}")
    if version > CONFIG_VERSION:
        raise LessonsError(
            f"{where}: version {version} was written by a newer lessons "
            f"(this one reads version {CONFIG_VERSION}); upgrade lessons"
        )
    from lessons_core import serde

    body = {key: value for key, value in data.items() if key not in _META_KEYS}
    config = serde.config_from_json(body, where=where)
    check_config(config, where)
    return config


#: (attribute, JSON key, lowest, highest) — the same bounds as ``schemas/config.schema.json``.
_BOUNDS: tuple[tuple[str, str, float, float | None], ...] = (
    ("injection_budget_bytes", "injectionBudgetBytes", 0, None),
    ("max_lessons_per_injection", "maxLessonsPerInjection", 0, None),
    ("min_confidence", "minConfidence", 0, 1),
    ("min_priority", "minPriority", 1, 10),
    ("compaction_reinjection_threshold", "compactionReinjectionThreshold", 1, 10),
    ("session_start_budget_bytes", "sessionStartBudgetBytes", 0, None),
    ("recall_budget_bytes", "recallBudgetBytes", 0, None),
    ("auto_scan_interval_hours", "autoScanIntervalHours", 0, None),
    ("stop_reminder_bytes", "stopReminderBytes", 0, None),
    ("deep.max_calls", "deep.maxCalls", 0, None),
    ("deep.max_tokens", "deep.maxTokens", 0, None),
)


def _value(config: Config, dotted: str) -> Any:
    value: Any = config
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def check_config(config: Config, where: str = CONFIG_NAME) -> None:
    """Reject values outside their meaningful range (a negative budget, a priority of 12)."""
    from lessons_core import serde

    checks = [(_value(config, attr), key, low, high) for attr, key, low, high in _BOUNDS]
    checks += [
        (getattr(config.scoring, a.name), f"scoring.{serde.camel(a.name)}", 0, 1)
        for a in attrs.fields(type(config.scoring))
    ]
    for value in config.directive_reinject_thresholds:
        if value < 1:
            raise ValidationError(
                f"thresholds must be at least 1 byte, got {value}",
                where=where,
                field="directiveReinjectThresholds",
            )
    for value, key, low, high in checks:
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ValidationError(f"must be {bound}, got {value}", where=where, field=key)


def load_config(home: Path) -> Config:
    """The configuration in ``home``: defaults when there is no ``config.json``."""
    path = config_file(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise LessonsError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_config(text, where=str(path))


def save_config(home: Path, config: Config) -> Path:
    """Write ``config.json`` atomically (a reader never sees half a file)."""
    import tempfile  # only when writing: a read-only command skips its import

    home.mkdir(parents=True, exist_ok=True)
    path = config_file(home)
    text = json.dumps(config_to_document(config), indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".json", dir=home)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
