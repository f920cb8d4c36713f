"""One lesson as one Markdown file: YAML front matter, then the texts as Markdown sections.

::

    ---
    id: 01JD3S0C6Z7H5V1F8Q2W4E9R6T
    summary: pytest hangs without a TTY
    type: hint
    priority: 8
    confidence: 0.9
    triggers:
      toolNames:
      - Bash
      commandPatterns:
      - \\bpytest\\b
    ---

    ## Mistake

    Running bare pytest in the agent's shell stalls on the first prompt.

    ## Remediation

    Use `python -m pytest -p no:cacheprovider`.

The file name is the slug (``.lessons/<slug>.md``); the front matter holds the other fields of
the lesson schema in their contract spelling (``docs/contract.md``). ``mistake``,
``remediation`` and ``injection`` are Markdown sections (``## Mistake``, ``## Remediation``,
``## Injection``) so that a review reads and diffs them as prose; a text that could not come
back unchanged from a section (one holding a ``##`` line or an unclosed code fence, or
surrounded by blank space) is written into the front matter instead, and either place is read.

Why PyYAML: the front matter is YAML, and PyYAML's ``SafeLoader`` builds plain Python values
only (no object tags), is stable, and ships in most Python installations already. Its pure
Python loader lets us be strict where YAML is lenient: a key given twice is an error (a merge
that kept both sides would otherwise silently keep the last), aliases are refused (a lesson
needs none, and they are the way to make a small file expand into a huge value), and dates are
left as text (``createdAt: 2026-12-01`` is a string in the lesson schema). Every error names
the file and the line.

The scope is not in the file: a repository's lessons are scoped to that repository's project
when they are read (:mod:`lessons_core.repomem.source`).
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import yaml

from lessons_core import serde, validate
from lessons_core.errors import LessonsError, ValidationError
from lessons_core.models import Lesson, MatchTarget, Status
from lessons_core.repomem.names import FOLDER, MAX_FILE_BYTES, SLUG, SUFFIX, is_slug

__all__ = ["FOLDER", "MAX_FILE_BYTES", "SLUG", "SUFFIX", "FileError", "is_slug", "parse", "render"]

#: Section heading → field; the aliases of the lesson schema are accepted too.
SECTIONS = {
    "mistake": "mistake",
    "problem": "mistake",
    "remediation": "remediation",
    "solution": "remediation",
    "fix": "remediation",
    "injection": "injection",
    "message": "injection",
}
_HEADINGS = {"mistake": "Mistake", "remediation": "Remediation", "injection": "Injection"}
_TEXT_FIELDS = ("mistake", "remediation", "injection")
#: Front-matter keys the file format leaves out on purpose, and why.
_REFUSED_KEYS = {
    "scope": "a repository's lessons are scoped to the repository; remove 'scope'",
    "provenance": "provenance stays in each user's own store; remove 'provenance'",
    "contentHash": "the content hash is derived from the lesson; remove 'contentHash'",
}

_CONFLICT = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)")
_HEADING = re.compile(r"^##[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


class FileError(ValidationError):
    """A lesson file that cannot be read as a lesson: names the file and the line."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        super().__init__(message, where=f"{path}:{line}" if line else path)


# -- reading -------------------------------------------------------------------------------------


#: The deepest nesting a front matter may have. A lesson needs three levels (``triggers`` →
#: ``commandPatterns`` → a pattern); PyYAML composes and constructs nested values by recursion,
#: so a file of a few kilobytes nested thousands of levels deep would otherwise end the whole
#: read with ``RecursionError`` instead of being named and left out.
MAX_DEPTH = 16


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, stricter: no duplicate keys, no aliases, no timestamps, no
    nesting deeper than :data:`MAX_DEPTH`."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in a lesson file", event.start_mark
            )
        if self._depth >= MAX_DEPTH:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None,
                None,
                f"values nested more than {MAX_DEPTH} levels deep; a lesson needs three "
                "(triggers, a list of patterns, a pattern): flatten it",
                event.start_mark,
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, _value in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):
                    raise yaml.constructor.ConstructorError(
                        None, None, f"keys must be text, got {key!r}", key_node.start_mark
                    )
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key!r} is given twice (first at line {seen[key] + 2})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


# Dates stay text: the lesson schema's timestamps are ISO strings.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper; text holding a character YAML reads as a line break (NEL, the
    Unicode line and paragraph separators) is written double-quoted, where it is escaped and
    so read back as written."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if any(ch in value for ch in "\x85\u2028\u2029"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


_Dumper.add_representer(str, _represent_str)


def conflict_line(text: str) -> int | None:
    """The 1-based line of the first merge-conflict marker in ``text``, or ``None``."""
    for number, line in enumerate(text.split("\n"), start=1):
        if _CONFLICT.match(line):
            return number
    return None


def parse(text: str, *, path: str, slug: str, default_id: str) -> Lesson:
    """The lesson ``text`` holds; ``path`` names the file in errors, ``slug`` is its stem.

    ``default_id`` is the id of a lesson whose front matter gives none (a lesson written by
    hand in a pull request), so the lesson keeps one id from build to build.
    """
    text = text.replace("\r\n", "\n")
    conflict = conflict_line(text)
    if conflict is not None:
        raise FileError(
            path,
            conflict,
            "unresolved merge conflict (a '<<<<<<<' or '>>>>>>>' marker); resolve it, then "
            "commit the file",
        )
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FileError(path, 1, "a lesson file starts with a '---' line opening its front matter")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FileError(path, 1, "the front matter opened here is never closed by a '---' line")
    front = "\n".join(lines[1:end]) + "\n"
    data, key_lines = _load_front(front, path)
    sections = _sections(lines, end + 1, path)
    return _lesson(data, key_lines, sections, path=path, slug=slug, default_id=default_id)


def _load_front(front: str, path: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The front matter as a dict, and the 1-based file line of every key in it (dotted)."""
    loader = _StrictLoader(front)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else None
        problem = str(exc.problem or exc.context or "not valid YAML")
        raise FileError(path, line, f"front matter: {problem}") from None
    except yaml.YAMLError as exc:
        raise FileError(path, None, f"front matter: {exc}") from None
    except RecursionError:  # a shape the depth bound does not see; the file is still named
        raise FileError(
            path, None, f"front matter: nested too deeply to read; flatten it ({MAX_DEPTH} levels)"
        ) from None
    finally:
        loader.dispose()
    if data is None:
        raise FileError(path, 2, "the front matter is empty; it needs at least 'summary'")
    if not isinstance(data, dict):
        raise FileError(path, 2, "the front matter must be a mapping of keys to values")
    key_lines: dict[str, int] = {}
    _collect_lines(node, "", key_lines)
    return data, key_lines


def _collect_lines(node: Any, prefix: str, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            name = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            out.setdefault(name, key_node.start_mark.line + 2)
            _collect_lines(value_node, name, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            name = f"{prefix}[{index}]"
            out.setdefault(name, item.start_mark.line + 2)
            _collect_lines(item, name, out)


def _sections(lines: list[str], start: int, path: str) -> dict[str, tuple[str, int]]:
    """``## Mistake`` … sections after the front matter: field → (text, heading line)."""
    found: dict[str, tuple[str, int]] = {}
    current: str | None = None
    heading_line = 0
    body: list[str] = []
    fence: str | None = None

    def close() -> None:
        if current is not None:
            found[current] = ("\n".join(body).strip("\n"), heading_line)

    for index in range(start, len(lines)):
        line = lines[index]
        number = index + 1
        opened = _FENCE.match(line)
        if fence is None and not opened:
            heading = _HEADING.match(line)
            if heading:
                name = heading.group(1).strip()
                field = SECTIONS.get(name.lower())
                if field is None:
                    known = ", ".join(f"'## {h}'" for h in _HEADINGS.values())
                    raise FileError(path, number, f"unknown section '## {name}' (known: {known})")
                if field in found or field == current:
                    raise FileError(path, number, f"section '## {name}' is given twice")
                close()
                current, heading_line, body = field, number, []
                continue
        if opened:
            marker = opened.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
        if current is None:
            if line.strip():
                raise FileError(
                    path,
                    number,
                    "text before the first section; put it under '## Mistake' or '## Remediation'",
                )
            continue
        body.append(line)
    close()
    return found


def _lesson(
    data: dict[str, Any],
    key_lines: dict[str, int],
    sections: dict[str, tuple[str, int]],
    *,
    path: str,
    slug: str,
    default_id: str,
) -> Lesson:
    for key, why in _REFUSED_KEYS.items():
        if key in data:
            raise FileError(path, key_lines.get(key), why)
    if "slug" in data and data["slug"] != slug:
        raise FileError(
            path,
            key_lines.get("slug"),
            f"'slug' is {data['slug']!r} but the file is named {slug}{SUFFIX}; the file name "
            "is the slug (rename the file or remove 'slug')",
        )
    for field, (text, line) in sections.items():
        spelled = [k for k in data if serde.LESSON_ALIASES.get(k, k) == field]
        if spelled:
            raise FileError(
                path,
                line,
                f"{field!r} is given both in the front matter (line "
                f"{key_lines.get(spelled[0])}) and as a section",
            )
        data[field] = text
    for field in ("mistake", "remediation"):
        if not any(serde.LESSON_ALIASES.get(k, k) == field for k in data):
            raise FileError(
                path, None, f"no {field}: add a '## {_HEADINGS[field]}' section to the file"
            )
    data["slug"] = slug
    data.setdefault("id", default_id)
    data.setdefault("createdAt", "")
    data.setdefault("updatedAt", "")
    try:
        lesson = serde.lesson_from_json(data)
        validate.check_lesson(lesson, where=path)
    except ValidationError as exc:
        message = str(exc)
        if exc.where and message.startswith(exc.where):
            message = message[len(exc.where) :].lstrip(": ").lstrip()
        raise FileError(path, _line_for(exc, key_lines, sections), message) from None
    return lesson


def _line_for(
    exc: ValidationError, key_lines: dict[str, int], sections: dict[str, tuple[str, int]]
) -> int | None:
    """The line of the field an error is about (its nearest enclosing key we know)."""
    field = exc.field
    if field is None:
        quoted = re.search(r"'([^']+)'", str(exc))
        field = quoted.group(1) if quoted else None
        if field is not None:
            for name, line in key_lines.items():
                if name == field or name.endswith("." + field):
                    return line
        return None
    if field in sections:
        return sections[field][1]
    while field:
        if field in key_lines:
            return key_lines[field]
        cut = max(field.rfind("."), field.rfind("["))
        field = field[:cut] if cut > 0 else ""
    return None


# -- writing -------------------------------------------------------------------------------------


def render(lesson: Lesson) -> str:
    """The file text of ``lesson``: what :func:`parse` reads back as the same lesson (scope,
    provenance and the slug, which is the file name, aside)."""
    t = lesson.triggers
    front: dict[str, Any] = {"id": lesson.id, "summary": lesson.summary, "type": str(lesson.type)}
    front["priority"] = lesson.priority
    front["confidence"] = lesson.confidence
    if lesson.status is not Status.ACTIVE:
        front["status"] = str(lesson.status)
    triggers = {
        serde.camel(a.name): list(getattr(t, a.name))
        for a in attrs.fields(type(t))
        if getattr(t, a.name)
    }
    if triggers:
        front["triggers"] = triggers
    if lesson.command_match_target is not MatchTarget.FULL:
        front["commandMatchTarget"] = str(lesson.command_match_target)
    if lesson.tags:
        front["tags"] = list(lesson.tags)
    if lesson.error_lines:
        front["errorLines"] = list(lesson.error_lines)
    body: list[str] = []
    for field in _TEXT_FIELDS:
        text = getattr(lesson, field)
        if text is None:
            continue
        if fits_section(text):
            body += [f"## {_HEADINGS[field]}", "", text, ""]
        else:
            front[field] = text
    if lesson.created_at:
        front["createdAt"] = lesson.created_at
    if lesson.updated_at:
        front["updatedAt"] = lesson.updated_at
    dumped = yaml.dump(
        front,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return "---\n" + dumped + "---\n\n" + "\n".join(body)


def fits_section(text: str) -> bool:
    """Whether ``text`` comes back unchanged from a Markdown section."""
    if not text or text != text.strip() or "\r" in text:
        return False
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and not opened and _HEADING.match(line):
            return False
        if _CONFLICT.match(line):
            return False
        if opened:
            if fence is None:
                fence = opened.group(1)[0] * 3
            elif line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
    return fence is None


def check_slug(slug: str) -> None:
    """Refuse a slug that is not a plain file name inside the folder."""
    if not is_slug(slug):
        raise LessonsError(
            f"{slug!r} cannot name a lesson file: a slug is lower-case letters, digits and "
            "'-' (no '/', '..' or leading dot)"
        )
