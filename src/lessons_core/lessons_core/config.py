"""``config.json`` in ``LESSONS_HOME``: read with defaults, written with its schema marker.

No file means the defaults (most users never write one). A file that is there but wrong is an
error, not a silent fallback: a typo such as ``injectionBudgetByte`` would otherwise leave the
user wondering why their setting has no effect. Every file we write says what it is (``$schema``,
``type``, ``version``), so a future version can migrate it and a stray file is recognised.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.errors import LessonsError, ValidationError
from lessons_core.hot import safefile
from lessons_core.hot.paths import CONFIG_NAME
from lessons_core.models import Config

CONFIG_TYPE = "lessons-config"
#: The Node original's ``config.json`` says this; its keys are read as ours (see NODE_ONLY).
NODE_CONFIG_TYPE = "lessons-learned-config"
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
    from lessons_core import jsoninput

    try:
        data = jsoninput.loads(text)
    except json.JSONDecodeError as exc:
        raise LessonsError(
            f"{where}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise LessonsError(f"{where}: expected a JSON object at the top level")
    kind = data.get("type", CONFIG_TYPE)
    if kind not in (CONFIG_TYPE, NODE_CONFIG_TYPE):
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
    _refuse_node_only(body, where)
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
    ("max_candidates_per_scan", "maxCandidatesPerScan", 0, None),
    ("stop_reminder_bytes", "stopReminderBytes", 0, None),
    ("repo_max_files", "repoMaxFiles", 1, None),
    ("repo_max_bytes", "repoMaxBytes", 1, None),
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
            hint = ""
            if key.startswith("scoring.") and value > 1:
                hint = (
                    " (a scoring weight adds to a confidence between 0 and 1; the Node "
                    "lessons-learned counted priority points here: use a fraction such as 0.1)"
                )
            raise ValidationError(f"must be {bound}, got {value}{hint}", where=where, field=key)


#: Keys of the Node original's ``config.json`` that have no counterpart here, and what to use.
NODE_ONLY: dict[str, str] = {
    "scoring.hangTimeoutBonus": (
        "use 'scoring.hangOrTimeout', the confidence weight of a hang or timeout (0 to 1, "
        "default 0.15); a hang always adds 2 to the priority"
    ),
    "scoring.userCorrectionBonus": (
        "use 'scoring.userCorrection', the confidence weight of a user correction (0 to 1, "
        "default 0.3); a correction always adds 1 to the priority"
    ),
    "scoring.singleOccurrencePenalty": (
        "a finding seen once simply gets no 'scoring.multiSessionBonus'; lower 'scoring.base' "
        "to score every single finding lower"
    ),
}


def _refuse_node_only(body: dict[str, Any], where: str) -> None:
    """Name the replacement of a Node-only key instead of a bare "unknown key"."""
    scoring = body.get("scoring")
    keys = [f"scoring.{k}" for k in scoring] if isinstance(scoring, dict) else []
    for key in [*body, *keys]:
        if key in NODE_ONLY:
            raise ValidationError(
                f"not supported (a priority bonus of the Node lessons-learned): {NODE_ONLY[key]}",
                where=where,
                field=key,
            )


def load_config(home: Path) -> Config:
    """The configuration in ``home``: defaults when there is no ``config.json``."""
    path = config_file(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except UnicodeDecodeError as exc:
        raise LessonsError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise LessonsError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_config(text, where=str(path))


def save_config(home: Path, config: Config) -> Path:
    """Write ``config.json`` atomically (a reader never sees half a file)."""
    return write_document(home, config_to_document(config))


def write_document(home: Path, document: dict[str, Any]) -> Path:
    """Write ``document`` as ``config.json`` atomically (a reader never sees half a file)."""
    home.mkdir(parents=True, exist_ok=True)
    path = config_file(home)
    if path.is_symlink():  # a config.json kept elsewhere (dotfiles) is written where it lives
        path = path.resolve()
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        safefile.replace(path, text.encode("utf-8"))
    except OSError as exc:
        raise LessonsError(
            f"cannot write {path}: {exc.strerror}; make {path.parent} writable "
            "or set LESSONS_HOME to a writable directory"
        ) from None
    return path


# -- one key at a time (``lessons config``) -----------------------------------------------------

#: Environment variables that override a key, and how they read: (variable, value when set).
ENV_OVERRIDES: dict[str, str] = {"autoScan": "LESSONS_AUTO_SCAN"}
_OFF = ("0", "false", "no", "off")
#: Keys that may hold a password inside a URL: shown with the password masked.
SECRET_URL_KEYS = frozenset({"team.url"})


@attrs.frozen
class Setting:
    """One key as ``lessons config`` shows it."""

    key: str
    value: Any
    default: Any
    source: str  # "default" | "config.json" | "environment (NAME)"


def _flatten(document: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in document.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def known_keys() -> list[str]:
    """Every key of ``config.json``, nested ones dotted (``scoring.base``)."""
    from lessons_core import serde

    return list(_flatten(serde.config_to_json(Config())))


def read_document(home: Path) -> dict[str, Any] | None:
    """The JSON object in ``config.json`` as written (checked by :func:`load_config` first)."""
    load_config(home)  # a broken file is reported in full before anything is read from it
    try:
        text = config_file(home).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    data: dict[str, Any] = json.loads(text)
    return data


def settings(home: Path, environ: Mapping[str, str]) -> list[Setting]:
    """Every key: its value in effect, its default and where the value came from."""
    from lessons_core import serde

    config = load_config(home)
    document = read_document(home) or {}
    given = _flatten({k: v for k, v in document.items() if k not in _META_KEYS})
    values = _flatten(serde.config_to_json(config))
    defaults = _flatten(serde.config_to_json(Config()))
    out = []
    for key, value in values.items():
        source = "config.json" if key in given else "default"
        variable = ENV_OVERRIDES.get(key)
        if variable and environ.get(variable, "").strip().lower() in _OFF:
            value, source = False, f"environment ({variable})"
        if key in SECRET_URL_KEYS and isinstance(value, str):
            from lessons_core.team import mask_url

            value = mask_url(value)
        out.append(Setting(key, _plain(value), _plain(defaults[key]), source))
    return out


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def check_key(key: str) -> None:
    """Refuse a key ``config.json`` does not have, naming the closest or the replacement."""
    known = known_keys()
    if key in known:
        return
    if key in NODE_ONLY:
        raise ValidationError(
            f"not supported (a priority bonus of the Node lessons-learned): {NODE_ONLY[key]}",
            field=key,
        )
    raise LessonsError(unknown_key(key, known))


def unknown_key(key: str, known: list[str]) -> str:
    from lessons_core import serde

    return serde.unknown_key_message(key, known)


def parse_value(key: str, text: str) -> Any:
    """A value typed on the command line: JSON (``5``, ``true``, ``["a"]``), else the text.

    A list key (``scanPaths``) also takes one bare path.
    """
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError:
        value = text
    default = _flatten(_to_json(Config())).get(key)
    if isinstance(default, list | tuple) and not isinstance(value, list):
        value = [text]
    elif isinstance(default, str) and not isinstance(value, str):
        value = text
    return value


def _to_json(config: Config) -> dict[str, Any]:
    from lessons_core import serde

    return serde.config_to_json(config)


def set_key(home: Path, key: str, value: Any | None) -> Path:
    """Set (or, with ``None``, remove) one key of ``config.json``, checked before writing."""
    check_key(key)
    path = config_file(home)
    document = read_document(home)
    if document is None:
        document = {"$schema": CONFIG_SCHEMA_ID, "type": CONFIG_TYPE, "version": CONFIG_VERSION}
    parts = key.split(".")
    parent = document
    for part in parts[:-1]:
        child = parent.get(part)
        if not isinstance(child, dict):
            if value is None:
                return path
            child = parent[part] = {}
        parent = child
    if value is None:
        parent.pop(parts[-1], None)
        if len(parts) > 1 and not parent:
            document.pop(parts[0], None)
    else:
        parent[parts[-1]] = value
    try:
        parse_config(json.dumps(document), where=str(path))
    except LessonsError as exc:
        raise LessonsError(f"{exc}; {path.name} left unchanged") from None
    return write_document(home, document)
