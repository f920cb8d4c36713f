"""Read a repository's lessons, and write one lesson into it (``lessons promote --to-repo``).

Reading never stops at a bad file: each file that cannot be used (a merge conflict left in it,
bad front matter, a link, a lesson the schema refuses) is named with its line and left out, and
the other files are read. A file is parsed whole or not at all, so a half-resolved conflict
never becomes half a lesson.

Writing refuses a lesson that holds what looks like a secret (the redaction rules of
:mod:`lessons_core.privacy`): the file is meant to be committed and pushed, so it is not
written at all rather than written redacted behind the user's back. Home paths in its texts are
written as ``~``, as an export writes them.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from lessons_core import privacy
from lessons_core.errors import LessonsError
from lessons_core.hot.digest import hex_sha256
from lessons_core.hot.project import find_git_root, project_id
from lessons_core.models import Config, Lesson, Provenance
from lessons_core.repomem import fileformat, registry
from lessons_core.repomem.folder import Changed, Entry, Folder, FolderError, digest


def find_root(start: Path | str) -> Path:
    """The root of the git repository holding ``start`` (a ``.git`` entry at or above it)."""
    absolute = Path(start).absolute()
    if not absolute.is_dir():
        raise LessonsError(f"{start}: not a directory")
    root = find_git_root(str(absolute))
    if root is None:
        raise LessonsError(f"{absolute}: not inside a git repository")
    return Path(root)


def scope_of(root: Path) -> str:
    """The project id of the repository: the scope its lessons are delivered under."""
    found = project_id(str(root))
    if found is None:
        raise LessonsError(f"{root}: cannot determine a project id")
    return found


def default_id(scope: str, slug: str) -> str:
    """The id of a lesson whose file names none: stable, and distinct across repositories."""
    return "repo-" + hex_sha256(f"{scope}\n{slug}".encode())[:24]


@attrs.frozen
class Found:
    """The lessons of one repository, each with its file, and the files left out (why)."""

    root: Path
    scope: str
    lessons: tuple[tuple[Path, Lesson], ...] = ()
    problems: tuple[str, ...] = ()
    #: The SHA-256 of each usable file's bytes, by path: what ``lessons repo trust`` accepts.
    digests: dict[Path, str] = attrs.field(factory=dict)


@attrs.frozen
class Bounds:
    """How much of one repository is read: at most ``files`` lesson files and ``size`` bytes
    of them (``repoMaxFiles`` and ``repoMaxBytes`` in ``config.json``)."""

    files: int = Config().repo_max_files
    size: int = Config().repo_max_bytes

    @classmethod
    def of(cls, config: Config | None) -> Bounds:
        if config is None:
            return cls()
        return cls(config.repo_max_files, config.repo_max_bytes)


class TooLarge(LessonsError):
    """A repository with more lesson files, or bytes, than it may have; none of it was read."""


def _check_bounds(folder: Folder, entries: list[Entry], bounds: Bounds) -> None:
    """Refuse the whole folder before reading a file of it when it is over either bound: a
    repository is anybody's, and a build must not spend minutes on one."""
    if len(entries) > bounds.files:
        raise TooLarge(
            f"{folder.path} holds {len(entries)} lesson files, more than the {bounds.files} "
            "read from one repository (repoMaxFiles in config.json); none of them was read. "
            f"Keep fewer files there, or raise the limit: lessons config repoMaxFiles "
            f"{len(entries)}"
        )
    total = sum(entry.size for entry in entries)
    if total > bounds.size:
        _too_many_bytes(folder, total, bounds)


def _too_many_bytes(folder: Folder, total: int, bounds: Bounds) -> None:
    raise TooLarge(
        f"{folder.path} holds {total} bytes of lesson files, more than the {bounds.size} read "
        "from one repository (repoMaxBytes in config.json); none of them was read. Keep its "
        f"lessons shorter or fewer, or raise the limit: lessons config repoMaxBytes {total}"
    )


def read_lessons(root: Path, bounds: Bounds | None = None) -> Found:
    """Every lesson in ``root/.lessons``, scoped to the repository; problems named, not raised
    (except for a folder that cannot be used at all, or one over ``bounds``:
    :class:`TooLarge`)."""
    from lessons_core import shared

    bounds = bounds or Bounds()
    scope = scope_of(root)
    try:
        folder = Folder(root)
    except FileNotFoundError:
        return Found(root, scope)
    lessons: list[tuple[Path, Lesson]] = []
    problems: list[str] = []
    ids: dict[str, Path] = {}
    read = 0
    digests: dict[Path, str] = {}
    with folder:
        entries = folder.entries()
        _check_bounds(folder, entries, bounds)
        for entry in entries:
            path = folder.path / entry.name
            if entry.problem:
                problems.append(f"{path}: {entry.problem}")
                continue
            try:
                data = folder.read(entry.name)
                read += len(data)
                if read > bounds.size:  # grown since it was listed
                    _too_many_bytes(folder, read, bounds)
                lesson = parse_data(str(path), entry.name, data, scope)
            except (FolderError, fileformat.FileError) as exc:
                problems.append(str(exc))
                continue
            except OSError as exc:
                problems.append(f"{path}: cannot read: {exc.strerror}")
                continue
            if lesson.id in ids:
                problems.append(
                    f"{path}: the same id as {ids[lesson.id]} ({lesson.id}); left out: give "
                    "one of them a new id, or remove its 'id' line"
                )
                continue
            try:
                shared.check(lesson, shared.REPO, where=str(path))
            except shared.Refused as exc:
                problems.append(str(exc))
                continue
            ids[lesson.id] = path
            digests[path] = digest(data)
            found_secrets = _secret_fields(lesson)
            if found_secrets:
                problems.append(
                    f"{path}: holds what looks like a secret in {', '.join(found_secrets)}; "
                    "it is redacted in the manifest, remove it from the file"
                )
                lesson = privacy.redact_lesson(lesson)
            lessons.append((path, lesson))
    return Found(root, scope, tuple(lessons), tuple(problems), digests)


def parse_file(folder: Folder, name: str, scope: str) -> Lesson:
    """The lesson in ``folder/name``, scoped to ``scope``."""
    return parse_data(str(folder.path / name), name, folder.read(name), scope)


def parse_data(path: str, name: str, data: bytes, scope: str) -> Lesson:
    """The lesson in the bytes ``data`` of the file ``path`` (named ``name``), scoped to
    ``scope``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fileformat.FileError(path, None, f"not UTF-8 text (byte {exc.start})") from None
    slug = name[: -len(fileformat.SUFFIX)]
    lesson = fileformat.parse(text, path=path, slug=slug, default_id=default_id(scope, slug))
    return attrs.evolve(
        lesson, scope=scope, provenance=Provenance(source="repo", projects=(scope,))
    )


# -- writing -------------------------------------------------------------------------------------


@attrs.frozen
class Written:
    path: Path
    status: str  # created | updated | unchanged


def _secret_fields(lesson: Lesson) -> list[str]:
    """Which fields of ``lesson`` hold what the redaction rules call a secret."""
    found: list[str] = []
    texts = {
        "summary": [lesson.summary],
        "mistake": [lesson.mistake],
        "remediation": [lesson.remediation],
        "injection": [lesson.injection or ""],
        "tags": list(lesson.tags),
        "errorLines": list(lesson.error_lines),
    }
    for field, values in texts.items():
        if any(privacy.find_secrets(value) for value in values):
            found.append(field)
    t = lesson.triggers
    for field, patterns, glob in (
        ("commandPatterns", t.command_patterns, False),
        ("contentPatterns", t.content_patterns, False),
        ("modelPatterns", t.model_patterns, False),
        ("pathRegexes", t.path_regexes, False),
        ("pathPatterns", t.path_patterns, True),
    ):
        if any(privacy.redact_pattern(p, glob=glob) != p for p in patterns):
            found.append(f"triggers.{field}")
    return found


def file_text(lesson: Lesson) -> str:
    """What ``promote --to-repo`` writes for ``lesson``; refuses a lesson holding a secret."""
    fields = _secret_fields(lesson)
    if fields:
        raise LessonsError(
            f"lesson {lesson.slug} holds what looks like a secret in {', '.join(fields)}; "
            "nothing was written (a repository file is shared: remove the secret with "
            f"'lessons edit {lesson.slug}' first)"
        )

    def home(text: str) -> str:
        return privacy.normalize_home(text)

    shared = attrs.evolve(
        lesson,
        summary=home(lesson.summary),
        mistake=home(lesson.mistake),
        remediation=home(lesson.remediation),
        injection=None if lesson.injection is None else home(lesson.injection),
        error_lines=tuple(home(line) for line in lesson.error_lines),
        updated_at="",
    )
    text = fileformat.render(shared)
    if privacy.find_secrets(text):  # pragma: no cover - every field is checked above
        raise LessonsError(f"lesson {lesson.slug}: its file would hold a secret; not written")
    return text


def write_lesson(root: Path, lesson: Lesson, home: Path) -> Written:
    """Write ``lesson`` as ``root/.lessons/<slug>.md`` and include the repository.

    A file of the same lesson (same id) under another name is the one written (a team may
    rename files). An existing file is replaced only when it holds exactly what this user last
    wrote there; one that someone else wrote or edited (a teammate's file, a merge, a hand
    edit) is left alone and the error says so.
    """
    fileformat.check_slug(lesson.slug)
    data = file_text(lesson).encode("utf-8")
    with registry.locked(home):
        reg = registry.load(home)
        with Folder(root, create=True) as folder:
            name = _file_of(root, folder, lesson)
            path = folder.path / name
            try:
                current: bytes | None = folder.read(name)
            except FileNotFoundError:
                current = None
            if current is None:
                folder.create(name, data)
                status = "created"
            elif current == data:
                status = "unchanged"
            elif reg.written.get(str(path)) == digest(current):
                folder.replace(name, data, digest(current))
                status = "updated"
            else:
                raise Changed(
                    f"{path} was written or changed by someone else (a teammate, a merge or a "
                    "hand edit) since this user last wrote it; nothing was overwritten. The "
                    "file is the lesson the project delivers: edit it there"
                )
        save = reg.with_repository(root).with_written(path, digest(data))
        registry.save(home, save)
    return Written(path, status)


def _file_of(root: Path, folder: Folder, lesson: Lesson) -> str:
    """The file name to write ``lesson`` to: the file already holding its id, else its slug."""
    scope = scope_of(root)
    for entry in folder.entries():
        if entry.problem:
            continue
        try:
            held = parse_file(folder, entry.name, scope)
        except (FolderError, fileformat.FileError, OSError):
            continue
        if held.id == lesson.id:
            return entry.name
    return lesson.slug + fileformat.SUFFIX
