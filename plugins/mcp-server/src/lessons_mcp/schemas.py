"""The tools' input schemas, and the check every call's arguments go through.

The schemas are written here as data, not derived from function signatures: they are the
server's contract with every host (``docs/mcp.md`` shows them), so a refactor of the Python
code cannot change them by accident. Arguments are checked against them with ``jsonschema``
before a tool runs, and a bad call gets one plain sentence back naming the argument and what
is wrong with it.
"""

from __future__ import annotations

from typing import Any

from lessons_core.api import LessonType, Status

#: Verdicts of the ``feedback`` tool (mapped onto the outcome loop's outcomes in tools.py).
VERDICTS = ("helped", "not_helpful", "wrong")

_TEXT_LIMIT = 8000
_SHORT = {"type": "string", "minLength": 1, "maxLength": 400}

SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "maxLength": _TEXT_LIMIT,
            "description": "What you are about to do or are stuck on, in a few words "
            "(for example: 'git stash untracked files', 'pytest hangs in CI').",
        },
        "error": {
            "type": "string",
            "maxLength": 32 * 1024,
            "description": "The output of a command or tool call that failed, as it was "
            "printed: matched by its error fingerprints first, then by its words.",
        },
        "scope": {
            "type": "string",
            "enum": ["project", "all"],
            "default": "project",
            "description": "'project': lessons for every project plus those scoped to this "
            "one; 'all': every lesson, whatever its scope.",
        },
        "cwd": {
            "type": "string",
            "maxLength": 4096,
            "description": "The project directory (default: the server's working directory).",
        },
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
    },
    "additionalProperties": False,
}

#: Tools that need at least one of some arguments. Checked in code, not as a top-level
#: ``anyOf`` in the schema: hosts whose model API refuses combinators at the top of a tool's
#: input schema drop such a tool (Claude Code 2.1 does: the tool never reaches the model).
AT_LEAST_ONE: dict[str, tuple[str, ...]] = {"search": ("text", "error")}

RECORD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "mistake": {
            "type": "string",
            "minLength": 20,
            "maxLength": _TEXT_LIMIT,
            "description": "What went wrong, concretely (the command, the symptom).",
        },
        "fix": {
            "type": "string",
            "minLength": 20,
            "maxLength": _TEXT_LIMIT,
            "description": "What worked instead, so the next session can do it at once.",
        },
        "summary": {**_SHORT, "maxLength": 120, "description": "One line naming the lesson."},
        "tool": {
            **_SHORT,
            "description": "The tool whose call went wrong: Bash, Edit, Write, Read, … "
            "(shell tools of other agents are accepted and mapped to Bash).",
        },
        "trigger": {
            **_SHORT,
            "description": "When the lesson applies: a regular expression (or the literal "
            "command) for a shell tool, a path glob for a file tool.",
        },
        "error": {
            "type": "string",
            "maxLength": 4000,
            "description": "The error output the mistake produced: failure-time recall "
            "matches later failures against it.",
        },
        "tags": {"type": "array", "items": {**_SHORT, "maxLength": 40}, "maxItems": 10},
        "priority": {"type": "integer", "minimum": 1, "maximum": 10, "default": 6},
        "cwd": {
            "type": "string",
            "maxLength": 4096,
            "description": "The project directory the lesson was learned in.",
        },
    },
    "required": ["mistake", "fix"],
    "additionalProperties": False,
}

FEEDBACK: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lesson": {**_SHORT, "description": "The lesson's id or slug (as search showed it)."},
        "verdict": {
            "type": "string",
            "enum": list(VERDICTS),
            "description": "'helped': it kept you from the mistake or fixed it; 'not_helpful': "
            "it did not apply here; 'wrong': what it says is incorrect.",
        },
        "session_id": {**_SHORT, "maxLength": 200},
    },
    "required": ["lesson", "verdict"],
    "additionalProperties": False,
}

SHOW: dict[str, Any] = {
    "type": "object",
    "properties": {"lesson": {**_SHORT, "description": "An id, a slug, or a prefix of either."}},
    "required": ["lesson"],
    "additionalProperties": False,
}

LIST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["lessons", "candidates"], "default": "lessons"},
        "status": {
            "type": "string",
            "enum": [s.value for s in Status],
            "default": "active",
            "description": "Lessons with this status (lessons only).",
        },
        "type": {"type": "string", "enum": [t.value for t in LessonType]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
    },
    "additionalProperties": False,
}

#: name -> (input schema, description for the model).
TOOLS: dict[str, tuple[dict[str, Any], str]] = {
    "search": (
        SEARCH,
        "Search the lessons learned in earlier sessions. Call it before a command you are not "
        "sure about (give 'text') and right after a command fails (give its output as 'error'): "
        "it returns the matching lessons with their fixes, best first.",
    ),
    "record": (
        RECORD,
        "Record a lesson after you fixed a mistake of your own: what went wrong, what worked, "
        "and when it applies. Secrets and home paths are removed before it is stored. It waits "
        "for review unless the user made recorded lessons active.",
    ),
    "feedback": (
        FEEDBACK,
        "Say whether a lesson search gave you helped, did not apply, or is wrong: lessons that "
        "help rank higher, wrong ones lose confidence.",
    ),
    "show": (SHOW, "Show one lesson in full: triggers, mistake, fix, provenance."),
    "list": (LIST, "List lessons (or candidates waiting for review)."),
}


class ArgumentError(ValueError):
    """A tool call's arguments do not fit its schema; the message says why, in one sentence."""


def check(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call to ``name``, checked, with the schema's defaults filled in."""
    import jsonschema

    entry = TOOLS.get(name)
    if entry is None:
        raise ArgumentError(
            f"unknown tool {_bounded(name, 80)!r}; the tools are: {', '.join(TOOLS)}"
        )
    schema = entry[0]
    args = dict(arguments or {})
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(args), key=lambda e: (list(e.path), e.message))
    if errors:
        raise ArgumentError(f"{name}: {_explain(errors[0], schema)}")
    needed = AT_LEAST_ONE.get(name)
    if needed and not any(isinstance(args.get(k), str) and args[k].strip() for k in needed):
        raise ArgumentError(f"{name}: give {' or '.join(repr(k) for k in needed)}")
    for key, prop in schema.get("properties", {}).items():
        if key not in args and "default" in prop:
            args[key] = prop["default"]
    return args


#: The most of a caller's own text an error message repeats: jsonschema's messages quote the
#: offending value whole, and a 10 MB argument must not come back as a 10 MB answer.
ECHO_LIMIT = 200


def _bounded(text: str, limit: int = ECHO_LIMIT) -> str:
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text)} characters)"


def _explain(error: Any, schema: dict[str, Any]) -> str:
    """One sentence for a jsonschema error, naming the argument; the caller's value is never
    repeated beyond :data:`ECHO_LIMIT` characters."""
    where = _bounded(".".join(str(p) for p in error.path), 80)
    if error.validator == "additionalProperties":
        allowed = ", ".join(schema.get("properties", {}))
        return f"{_bounded(error.message)} (the arguments are: {allowed})"
    if error.validator == "required":
        return str(error.message).replace("is a required property", "is required")
    if error.validator == "maxLength" and isinstance(error.instance, str):
        return (
            f"{where}: {len(error.instance)} characters, more than the {error.validator_value} "
            "allowed"
        )
    return f"{where or 'arguments'}: {_bounded(error.message)}"
