"""``lessons repo …`` and ``lessons promote --to-repo``: lessons kept in a repository.

``promote --to-repo`` writes lessons as ``.lessons/<slug>.md`` files for a pull request;
``repo list`` and ``repo check`` read them back (``check`` exits 1 on any file it cannot use,
for a CI job); ``repo add`` / ``repo forget`` include a repository's lessons in this user's
manifest or stop doing so. See ``docs/repo-memory.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from lessons_core.cli.common import json_line, user_errors
from lessons_core.errors import LessonsError, NotFound

_DIR = click.argument("directory", metavar="[DIR]", required=False)


def _root(directory: str | None) -> Path:
    from lessons_core.repomem.repository import find_root

    return find_root(directory or Path.cwd())


def promote_to_repo(keys: Iterable[str], directory: str | None, as_json: bool) -> None:
    """Write each lesson (an id or slug; a candidate id is promoted first) into the repository."""
    from lessons_core import services
    from lessons_core.repomem.repository import write_lesson

    root = _root(directory)
    with services.session() as ctx:
        lessons = [_lesson_for(ctx.store, key) for key in keys]
        written = []
        try:
            for lesson in lessons:
                written.append((lesson, write_lesson(root, lesson, ctx.home)))
        finally:  # what was promoted or written before a refusal is delivered all the same
            ctx.rebuild_manifest()
    for lesson, result in written:
        if as_json:
            click.echo(
                json_line(
                    {
                        "id": lesson.id,
                        "slug": lesson.slug,
                        "path": str(result.path),
                        "status": result.status,
                    }
                )
            )
        else:
            click.echo(f"{result.status} {result.path} ({lesson.slug})")
    if not as_json and any(r.status != "unchanged" for _, r in written):
        click.echo(
            "Commit the file(s) and open a pull request; in this project the repository's "
            "version is the one delivered.",
            err=True,
        )


def _lesson_for(store: Any, key: str) -> Any:
    """The lesson ``key`` names, or the lesson a pending candidate ``key`` becomes."""
    lesson = store.get_lesson(key)
    if lesson is not None:
        return lesson
    candidate = store.get_candidate(key)
    if candidate is None:
        raise NotFound(
            f"no lesson or candidate {key!r} (see 'lessons list' and 'lessons candidates')"
        )
    from lessons_core.scan.promotion import promote

    with store.transaction():
        # The repository's file scopes it to the repository's project when it is read.
        ((_, promoted),) = promote(store, [key], scope="global")
    return promoted


@click.group(short_help="Lessons kept in a repository's .lessons.")
def repo() -> None:
    """Lessons kept in a repository's .lessons folder, reviewed in pull requests."""


@repo.command(name="list")
@_DIR
@click.option("--json", "as_json", is_flag=True, help="One JSON object per lesson.")
@click.option("--all", "every", is_flag=True, help="Every included repository.")
@user_errors
def list_(directory: str | None, as_json: bool, every: bool) -> None:
    """List the lessons of DIR's repository (default: the current directory's)."""
    found = _read(directory, every)
    _show(found, as_json)
    for item in found:
        for problem in item.problems:
            click.secho(f"left out: {problem}", err=True, fg="yellow")


@repo.command()
@_DIR
@click.option("--json", "as_json", is_flag=True, help='One {"file", "problem"} line per problem.')
@user_errors
def check(directory: str | None, as_json: bool) -> None:
    """Check every lesson file of DIR's repository; exit 1 if any cannot be used."""
    (found,) = _read(directory, False)
    for problem in found.problems:
        if as_json:
            click.echo(json_line({"problem": problem}))
        else:
            click.echo(f"error: {problem}", err=True)
    if found.problems:
        raise LessonsError(f"{len(found.problems)} lesson file(s) cannot be used")
    if not as_json:
        click.echo(f"{len(found.lessons)} lesson file(s) in {found.root}, all usable")


@repo.command()
@_DIR
@user_errors
def add(directory: str | None) -> None:
    """Include DIR's repository's lessons in this user's manifest (trust them as they are now)."""
    root = _root(directory)
    found, accepted = _trust(root, include=True)
    click.echo(f"included {root}: {len(found.lessons)} lesson(s), delivered in that project")
    _tell_accepted(found, accepted)
    for problem in found.problems:
        click.secho(f"left out: {problem}", err=True, fg="yellow")


@repo.command()
@_DIR
@user_errors
def trust(directory: str | None) -> None:
    """Deliver DIR's repository's lesson files as they are now, new and changed ones included.

    A file added or changed after 'lessons repo add' (a pull, a merge, a checkout) waits until
    this command; a file changed again later waits again.
    """
    from lessons_core import services
    from lessons_core.repomem import registry

    root = _root(directory)
    if str(root) not in registry.load(services.home_dir()).repositories:
        raise LessonsError(f"{root} is not included; 'lessons repo add {root}' includes it")
    found, accepted = _trust(root, include=False)
    if not accepted:
        click.echo(f"nothing new in {root}: every lesson file was already trusted")
    else:
        click.echo(f"trusted {len(accepted)} new or changed lesson file(s) in {root}")
    _tell_accepted(found, accepted)
    for problem in found.problems:
        click.secho(f"left out: {problem}", err=True, fg="yellow")


def _trust(root: Path, *, include: bool) -> tuple[Any, list[Path]]:
    """Trust every usable lesson file of ``root`` at its current bytes (and include the
    repository when ``include``); rebuild. Returns what was read and the files newly trusted."""
    from lessons_core import services
    from lessons_core.repomem import registry
    from lessons_core.repomem.repository import read_lessons

    with services.session() as ctx:
        with registry.locked(ctx.home):
            found = read_lessons(root, _bounds())  # under the lock: the digests saved are shown
            reg = registry.load(ctx.home)
            accepted = [p for p, _ in found.lessons if not reg.accepts(p, found.digests[p])]
            files = {str(p): d for p, d in found.digests.items()}
            reg = reg.with_repository(root) if include else reg
            registry.save(ctx.home, reg.with_trusted(files, root))
        ctx.rebuild_manifest()
    return found, accepted


def _tell_accepted(found: Any, accepted: list[Path]) -> None:
    """Name each newly trusted file; those that deny calls or speak at session start first."""
    from lessons_core.shared import ACTING_TYPES

    chosen = set(accepted)
    for path, lesson in sorted(
        found.lessons, key=lambda item: (item[1].type not in ACTING_TYPES, str(item[0]))
    ):
        if path not in chosen:
            continue
        acts = " (acts on its own)" if lesson.type in ACTING_TYPES else ""
        summary = " ".join(lesson.summary.split())
        click.echo(f"  trusted {path.name}: {lesson.type}{acts}: {summary}")


@repo.command()
@_DIR
@user_errors
def forget(directory: str | None) -> None:
    """Stop delivering DIR's repository's lessons (its files are left alone)."""
    from lessons_core import services
    from lessons_core.repomem import registry

    target = Path(directory or Path.cwd()).absolute()
    with services.session() as ctx:
        with registry.locked(ctx.home):
            reg = registry.load(ctx.home)
            root = target if str(target) in reg.repositories else _root(str(target))
            if str(root) not in reg.repositories:
                raise LessonsError(f"{root} is not included (see 'lessons repo list --all')")
            registry.save(ctx.home, reg.without_repository(root))
        ctx.rebuild_manifest()
    click.echo(f"forgot {root}; its lessons are no longer delivered")


def _read(directory: str | None, every: bool) -> list[Any]:
    from lessons_core import services
    from lessons_core.patterns import probe
    from lessons_core.repomem import registry
    from lessons_core.repomem.repository import read_lessons

    if not every:
        return [_read_one(_root(directory))]
    home = services.home_dir()
    roots = registry.load(home).repositories
    if not roots:
        raise LessonsError("no repository is included yet ('lessons repo add DIR')")
    out = []
    bounds = _bounds()
    with probe.remembered(home):
        for root in roots:
            try:
                out.append(read_lessons(Path(root), bounds))
            except LessonsError as exc:
                click.secho(f"skipped {root}: {exc}", err=True, fg="yellow")
    return out


def _read_one(root: Path) -> Any:
    """The lessons of the repository at ``root``, read within this user's bounds; the probe's
    verdicts on their patterns are those the builds keep (a pattern is timed once, not at
    every check)."""
    from lessons_core import services
    from lessons_core.patterns import probe
    from lessons_core.repomem.repository import read_lessons

    home = services.home_dir(create=False)
    with probe.remembered(home, save=home.is_dir()):
        return read_lessons(root, _bounds())


def _bounds() -> Any:
    """How much of a repository is read (``repoMaxFiles``, ``repoMaxBytes``)."""
    from lessons_core import services
    from lessons_core.repomem.repository import Bounds

    return Bounds.of(services.load_config(services.home_dir(create=False)))


def _show(found: list[Any], as_json: bool) -> None:
    from lessons_core import serde
    from lessons_core.repomem import registry
    from lessons_core.services import home_dir

    reg = registry.load(home_dir())
    rows: list[tuple[str, ...]] = [("FILE", "TYPE", "PRIORITY", "STATUS", "TRUST", "SUMMARY")]
    for item in found:
        for path, lesson in item.lessons:
            trusted = "trusted" if reg.accepts(path, item.digests[path]) else "waits"
            if as_json:
                data = serde.lesson_to_json(lesson)
                data["file"] = str(path)
                data["trust"] = trusted
                click.echo(json_line(data))
                continue
            rows.append(
                (
                    str(path.relative_to(item.root)) if len(found) == 1 else str(path),
                    str(lesson.type),
                    str(lesson.priority),
                    str(lesson.status),
                    trusted,
                    " ".join(lesson.summary.split()),
                )
            )
    if as_json:
        return
    if len(rows) == 1:
        where = found[0].root if len(found) == 1 else "the included repositories"
        click.echo(f"No lessons in {where} (write one with 'lessons promote ID --to-repo').")
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)]
        click.echo("  ".join([*cells, row[-1]]).rstrip())
