"""Which lessons of the manifest fire for one tool call (standard library only).

Gates, in order (cheapest first), for each lesson listed under the event's tool in ``byTool``
and for each lesson in ``anyTool``:

1. **tool** – listed under the tool (or has no tool gate at all);
2. **subject** – command patterns apply when the call has a command, path patterns when it has
   paths. Every applicable kind must match (any of its patterns); a lesson with patterns of
   which none applies to this call does not fire. A lesson with no pattern at all fires on every
   call of its tools (the compiler warns about it);
3. **content** – when a lesson has content patterns, the call must introduce text that matches;
4. **model** – when a lesson has model patterns and the event names the model, it must match
   (an unknown model passes: several agents do not send it with tool calls);
5. **scope** – a scoped lesson fires only in the project whose id equals its scope; the project
   id is computed at most once per call and only if some lesson got this far with a scope.

Before the gates, the manifest's per-tool ``prefilter`` index drops every lesson none of whose
required substrings occurs in the call's text, so a large catalogue costs one pass over short
strings. Each pattern also carries its own lowercase ``literal`` (a substring, or a list of which
one must occur); only patterns that pass it are compiled, once per process — from the program
compiled at build time when the manifest's marshal copy has one, else with ``re``.

Patterns see at most the first ``SUBJECT_LIMIT`` characters of a command, a content or a path:
the compiler proves or measures every accepted pattern fast on subjects that long
(``lessons_core.patterns.probe``), and a longer subject would void that bound. A pattern whose
search time grows faster than linearly carries a shorter ``limit`` of its own (4,096 characters
when it grows with the square of the length), on which it was measured the same way.

Bounding each pattern does not bound a call: a 32 KB command that holds every literal would be
searched whole by every hint of the tool. So the command, content and path patterns of the
hints of one call share a budget of ``SEARCH_BUDGET`` characters; once it is spent, each further
pattern sees only the first ``SHORT_SUBJECT`` characters. Real commands are far shorter than
either, so nothing changes for them. Guards and nudges are never cut: a deny must see what it
was written for.
"""

import marshal

from lessons_core.hot.executable import blank_quotes

#: Characters of a command, content or path that patterns are matched against (the rest is not
#: looked at). Must equal ``lessons_core.patterns.probe.SUBJECT_LIMIT``.
SUBJECT_LIMIT = 32768
#: Characters the hint patterns of one call may search between them (about 20 ms of linear
#: searching), and what each further pattern still sees once they are spent.
SEARCH_BUDGET = 1 << 20
SHORT_SUBJECT = 4096
#: Lesson types whose patterns the budget never cuts.
_UNCUT = ("guard", "nudge")

_compiled: dict[str, object] = {}
_programs: dict[str, object] = {}


def use_programs(manifest):
    """Take the build-time regex programs of ``manifest`` (present in its marshal copy)."""
    global _programs
    found = manifest.get("programs")
    _programs = found if isinstance(found, dict) else {}


def compiled(source):
    """The compiled regex for ``source`` (cached per process).

    A program compiled at build time (see ``lessons_core.patterns.programs``) goes straight to
    the C engine; only without one is ``re`` imported, which costs milliseconds.
    """
    rx = _compiled.get(source)
    if rx is None:
        program = _programs.get(source)
        if program is not None:
            try:
                import _sre

                if program.__class__ is bytes:
                    program = marshal.loads(program)  # noqa: S302 - our own manifest cache
                rx = _sre.compile(source, *program)  # type: ignore[misc]
            except Exception:
                rx = None
        if rx is None:
            import re

            rx = re.compile(source)
        _compiled[source] = rx
    return rx


class Subject:
    """The parts of one event that patterns look at, lowercased lazily and at most once."""

    __slots__ = ("_low", "_project", "cwd", "event", "left", "texts")

    def __init__(self, event):
        self.event = event
        self.cwd = event.get("cwd") or ""
        command = event.get("command")
        content = event.get("content")
        model = event.get("model")
        self.texts = {
            "full": command[:SUBJECT_LIMIT] if isinstance(command, str) else None,
            "content": content[:SUBJECT_LIMIT] if isinstance(content, str) else None,
            "model": model if isinstance(model, str) and model else None,
        }
        self._low = {}
        self._project = False
        self.left = SEARCH_BUDGET  # characters the call's hint patterns may still search

    def text(self, kind):
        if kind == "executable":
            if kind not in self.texts:
                full = self.texts["full"]
                self.texts[kind] = None if full is None else blank_quotes(full)
            return self.texts[kind]
        return self.texts.get(kind)

    def lower(self, kind):
        low = self._low.get(kind)
        if low is None:
            text = self.text(kind)
            low = (text.lower(), text.isascii()) if text is not None else ("", True)
            self._low[kind] = low
        return low

    def haystack(self):
        """All the call's text, lowercased, for the prefilter index; ``None`` if not ASCII."""
        parts = []
        full = self.texts["full"]
        if full is not None:
            parts.append(full)
            blanked = self.text("executable")
            if blanked != full:
                parts.append(blanked)
        parts.extend(p.replace("\\", "/") for p in self.paths())
        if self.texts["content"] is not None:
            parts.append(self.texts["content"])
        hay = "\n".join(parts)
        if not hay.isascii():
            return None
        return hay.lower()

    def paths(self):
        found = self.event.get("paths")
        if not isinstance(found, list):
            return ()
        return [p[:SUBJECT_LIMIT] for p in found if isinstance(p, str) and p]

    def project(self, environ=None):
        if self._project is False:
            self._project = _project_id(self.cwd, environ)
        return self._project


def _project_id(cwd, environ):
    if not cwd:
        return None
    try:
        from lessons_core.hot.project import project_id
    except ImportError:
        return None
    try:
        return project_id(cwd)
    except Exception:  # a scope we cannot compute simply does not match
        return None


def searched(length, limit, left):
    """How many characters of a subject of ``length`` one pattern searches: all of them, or its
    own ``limit``, and no more than the call's ``left`` budget unless that is below
    ``SHORT_SUBJECT`` (``left`` is None for a pattern the budget does not cut)."""
    n = limit if limit and limit < length else length
    if left is not None and n > left:
        n = left if left > SHORT_SUBJECT else min(n, SHORT_SUBJECT)
    return n


def any_matches(patterns, text, low, is_ascii, meter=None):
    """True when one of ``patterns`` (``{"source", "literal", "fold", "limit"}`` dicts) matches
    ``text``, or its first ``limit`` characters when the pattern has one.

    ``meter`` (the call's :class:`Subject`) makes the search share the call's budget (see the
    module's docstring); without it the pattern sees all it may.

    The literal check is skipped for non-ASCII text when the pattern folds case: under
    ``re.IGNORECASE`` a few non-ASCII letters match ASCII ones that ``str.lower`` leaves alone.
    """
    length = len(text)
    for pattern in patterns:
        literal = pattern.get("literal")
        if literal and (is_ascii or not pattern.get("fold")):
            if literal.__class__ is str:
                if literal not in low:
                    continue
            elif not any(part in low for part in literal):
                continue
        if meter is None:
            n = searched(length, pattern.get("limit"), None)
        else:
            n = searched(length, pattern.get("limit"), meter.left)
            meter.left -= n
        if compiled(pattern["source"]).search(text if n == length else text[:n]):
            return True
    return False


def check(lesson, subject, listed=True, environ=None):
    """Return ``None`` when ``lesson`` fires for ``subject``, else the name of the failing gate."""
    if not listed:
        return "tool"
    commands = lesson.get("commands") or ()
    path_patterns = lesson.get("paths") or ()
    meter = None if lesson.get("type") in _UNCUT else subject
    applicable = 0
    if commands:
        kind = "executable" if lesson.get("commandTarget") == "executable" else "full"
        text = subject.text(kind)
        if text is not None:
            applicable += 1
            low, is_ascii = subject.lower(kind)
            if not any_matches(commands, text, low, is_ascii, meter):
                return "command"
    if path_patterns:
        event_paths = subject.paths()
        if event_paths:
            applicable += 1
            if not _any_path(path_patterns, event_paths, meter):
                return "path"
    if (commands or path_patterns) and not applicable:
        return "command" if commands and not path_patterns else "path"
    content = lesson.get("content")
    if content:
        text = subject.text("content")
        if text is None:
            return "content"
        low, is_ascii = subject.lower("content")
        if not any_matches(content, text, low, is_ascii, meter):
            return "content"
    models = lesson.get("models")
    if models and subject.text("model") is not None:
        low, is_ascii = subject.lower("model")
        if not any_matches(models, subject.text("model"), low, is_ascii):
            return "model"
    scope = lesson.get("scope")
    if scope and subject.project(environ) != scope:
        return "scope"
    return None


def _any_path(patterns, event_paths, meter=None):
    for path in event_paths:
        norm = path.replace("\\", "/")
        low = norm.lower()
        is_ascii = norm.isascii()
        if any_matches(patterns, norm, low, is_ascii, meter):
            return True
    return False


def candidates(manifest, tool):
    """Ids to consider for ``tool``: its ``byTool`` list, then ``anyTool``, without repeats."""
    by_tool = manifest.get("byTool", {}).get(tool or "", ())
    any_tool = manifest.get("anyTool", ())
    if not any_tool:
        return list(by_tool)
    if not by_tool:
        return list(any_tool)
    seen = set(by_tool)
    return list(by_tool) + [i for i in any_tool if i not in seen]


def prefiltered(manifest, tool, ids, subject):
    """``ids`` without the lessons none of whose needed substrings occurs in the call.

    The compiler lists, per tool, (substring, id) pairs and the ids without a certain substring
    (``prefilter``); one pass over the pairs replaces a pass over the lessons. Any doubt — no
    index for a list, or text that is not ASCII (case folding) — keeps every id.
    """
    index = manifest.get("prefilter")
    if not index or not ids:
        return ids
    hay = subject.haystack()
    if hay is None:
        return ids
    keep = set()
    lists = (("*", manifest.get("anyTool")), (tool or "", manifest.get("byTool", {}).get(tool)))
    for key, listed in lists:
        if not listed:
            continue
        part = index.get(key)
        if part is None:
            return ids
        if part.__class__ is bytes:  # from the marshal copy: decoded for this tool only
            part = marshal.loads(part)  # noqa: S302 - our own manifest cache
            index[key] = part
        keep.update([lesson_id for need, lesson_id in part["pairs"] if need in hay])
        keep.update(part["open"])
    return [lesson_id for lesson_id in ids if lesson_id in keep]


def matching(manifest, event, environ=None):
    """The ids of the lessons that fire for a ``pre_tool`` event, in manifest order."""
    lessons = manifest.get("lessons", {})
    use_programs(manifest)
    subject = Subject(event)
    found = []
    tool = event.get("tool")
    for lesson_id in prefiltered(manifest, tool, candidates(manifest, tool), subject):
        lesson = lessons.get(lesson_id)
        if lesson is not None and check(lesson, subject, True, environ) is None:
            found.append(lesson_id)
    return found


def trace(manifest, event, environ=None):
    """Every lesson of the manifest with the gate it failed (``None`` = fires); for ``explain``."""
    lessons = manifest.get("lessons", {})
    use_programs(manifest)
    listed = set(candidates(manifest, event.get("tool")))
    subject = Subject(event)
    result = []
    for lesson_id, lesson in lessons.items():
        if lesson.get("type") in ("protocol", "directive"):
            continue
        if lesson_id not in listed:
            gate = "tool" if lesson.get("tools") else "no-trigger"
        else:
            gate = check(lesson, subject, True, environ)
        result.append((lesson_id, gate))
    return result
