"""``lessons scan``, ``candidates``, ``review``, ``promote`` and ``stats``.

``scan`` mines transcripts into candidates (incrementally; see :mod:`lessons_core.scan.engine`),
the other commands curate them. ``--json`` output follows the contract's candidate shape, one
object per line, so scripts can pipe it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lessons_core.cli.common import hold_collector, json_line, settle_heap, user_errors
from lessons_core.errors import LessonsError
from lessons_core.scan.promotion import SCOPES, proposed_scope
from lessons_core.scan.promotion import get_candidate as _get
from lessons_core.scan.promotion import promote as _promote

if TYPE_CHECKING:
    from lessons_core.models import Candidate

#: Scans longer than this many files get a progress bar on a terminal.
PROGRESS_MIN_FILES = 20


def candidate_json(candidate: Candidate) -> dict[str, Any]:
    """The contract's candidate object (through the project's converter, like every JSON out)."""
    from lessons_core import serde

    return serde.candidate_to_json(candidate)


def _describe(candidate: Candidate) -> str:
    first = candidate.evidence[0] if candidate.evidence else None
    where = f"{first.file}:{first.line}" if first else "?"
    seen = len(candidate.evidence)
    return "\n".join(
        [
            click.style(
                f"{candidate.id}  tier {candidate.tier}  {candidate.agent}/{candidate.tool or '-'}"
                f"  confidence {candidate.confidence:.2f}  priority {candidate.priority}",
                bold=True,
            ),
            f"  summary:  {candidate.summary}",
            f"  trigger:  {candidate.trigger or '-'}",
            f"  mistake:  {candidate.mistake}",
            f"  fix:      {candidate.fix}",
            f"  tags:     {', '.join(candidate.tags) or '-'}",
            f"  seen:     {seen}x, first at {where}",
        ]
    )


# -- scan --------------------------------------------------------------------------------------


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    metavar="NAME",
    help="Scan only this agent's transcripts (an installed adapter: see `lessons plugins`).",
)
@click.option("--json", "as_json", is_flag=True, help="Print new candidates as JSON lines.")
@click.option("--background", is_flag=True, help="Quiet; leave at once if another scan is running.")
@click.option(
    "--deep",
    is_flag=True,
    help="Have a language model write the lesson of each heuristic finding (lessons-llm).",
)
@user_errors
def scan(
    paths: tuple[Path, ...], agent: str | None, as_json: bool, background: bool, deep: bool
) -> None:
    """Mine agent transcripts for lessons (default: every installed agent's transcripts).

    Only what was added since the last scan is read. #lesson blocks become active lessons at
    once; heuristic detections wait for `lessons review`. With --deep (or `deep.enabled` in
    config.json) a model writes the lessons of heuristic findings, within the budget of
    `deep.maxCalls` and `deep.maxTokens`.
    """
    plain = not (paths or agent or as_json or background or deep)
    if plain and _nothing_new():
        return
    hold_collector()  # until settle_heap(), once the store, plugins and scanner are imported
    from lessons_core.hot.paths import lessons_home
    from lessons_core.patterns import kept_programs

    home = lessons_home(os.environ)
    kept_programs.load(home)  # before the detectors' modules compile their patterns
    from lessons_core.scan import planning

    planning.mark_start()  # the start-up is the window over which the load of others is seen
    import attrs

    from lessons_core import services
    from lessons_core.scan import discovery, engine

    if background and deep:
        raise LessonsError("--deep does not run in the background; run `lessons scan --deep`")
    if background:
        from lessons_core.scan import background as bg

        settle_heap()  # the collector back on: a background scan may read a great deal
        bg.run_background(paths=paths, agent=agent)
        kept_programs.save(home)
        return
    with services.session() as sess:
        if deep:  # the deep detectors read it from the configuration, like the other settings
            sess.config = attrs.evolve(
                sess.config, deep=attrs.evolve(sess.config.deep, enabled=True)
            )
        environ = sess.environ if sess.environ is not None else os.environ
        agents = sess.plugins.agents()
        if agent is not None and agent not in agents:
            known = ", ".join(sorted(agents)) or "none"
            raise LessonsError(f"no agent plugin named {agent!r} is installed (installed: {known})")
        skipped: list[tuple[str, str]] = []
        files = discovery.discover(
            agents,
            environ,
            list(paths),
            agent,
            extra=sess.config.scan_paths,
            skipped=skipped,
        )
        for where, why in skipped:
            click.echo(f"Skipped {where}: {why}.", err=True)
        if paths and skipped and not files:
            raise LessonsError(
                "nothing to scan: no named path holds a transcript "
                f"(if one is, name its agent: --agent {'|'.join(sorted(agents)) or 'NAME'})"
            )
        settle_heap()  # what is alive now lives to the end: keep the collector off it

        def waiting() -> None:
            click.echo("Another scan is running; waiting for it to finish…", err=True)

        show_bar = sys.stderr.isatty() and not as_json and len(files) >= PROGRESS_MIN_FILES
        if show_bar:
            from lessons_core.cli.progress import ScanProgress

            bar = ScanProgress(len(files), sys.stderr)
            try:
                report = engine.run_scan(
                    sess, files=files, on_file=bar.advance, on_plan=bar.plan, on_wait=waiting
                )
            finally:
                bar.finish()
        else:
            report = engine.run_scan(sess, files=files, on_wait=waiting)
        from lessons_core.verdicts.state import idle

        if not idle(sess.store, sess.home):  # judge what the delivered lessons achieved
            from lessons_core import outcomes

            outcomes.run(sess)
        index = _index_of(sess, report, files) if plain else None
    kept_programs.save(home)
    _keep_index(sess.home, environ, index)
    if as_json:
        for candidate in report.new:
            click.echo(json_line(candidate_json(candidate)))
        for note in report.notes:
            click.echo(note, err=True)
        if report.held:
            click.echo(f"{report.held} candidate(s) held back by maxCandidatesPerScan.", err=True)
        _echo_offers(report.offers, err=True)
        return
    pending = sum(1 for c in report.new if c.status == "pending") - report.released
    click.echo(
        f"Scanned {report.files_read} of {report.files_seen} transcript(s) "
        f"({report.bytes_read / 1e6:.1f} MB, {report.events} events; "
        f"{report.files_skipped} unchanged)."
    )
    click.echo(
        f"{pending} new candidate(s), {report.promoted} #lesson block(s) promoted, "
        f"{report.duplicates} repeat(s) merged, {report.rejected} rejected."
    )
    for note in report.notes:
        click.echo(note)
    _echo_offers(report.offers)
    if report.held:
        click.echo(
            f"{report.held} more candidate(s) held back by maxCandidatesPerScan "
            f"({sess.config.max_candidates_per_scan}); later scans offer them again, best first "
            "(see `lessons candidates --status held`)."
        )
    if report.released:
        click.echo(f"{report.released} held candidate(s) from earlier scans are now pending.")
    if report.waiting:
        click.echo(
            f"{report.waiting} guessed path(s) kept until the same guess comes back in another "
            "session of the project (see `lessons candidates --status waiting`)."
        )
    if report.bad_lines:
        click.echo(f"{report.bad_lines} unreadable line(s) skipped.", err=True)
    if pending or report.released:
        click.echo("Review them with: lessons review")


def _echo_offers(lessons: Iterable[Any], *, err: bool = False) -> None:
    """One line per lesson scoped to one project and seen in more, with the command that opens
    it to every project (the user decides; nothing is rescoped here)."""
    from lessons_core import scope_offers

    for lesson in lessons:
        click.echo(scope_offers.describe(lesson), err=err)


def _nothing_new() -> bool:
    """Answer a plain ``lessons scan`` that has nothing to read from the index the last one left
    (see :mod:`lessons_core.scan.unchanged`), printing what the full scan would print."""
    from lessons_core.hot import homecheck
    from lessons_core.hot.paths import lessons_home
    from lessons_core.scan import unchanged

    home = lessons_home(os.environ)
    untrusted = homecheck.problem(home)
    if untrusted is not None:
        raise LessonsError(untrusted)
    count = unchanged.unchanged(home, os.environ)
    if count is None:
        return False
    click.echo(f"Scanned 0 of {count} transcript(s) (0.0 MB, 0 events; {count} unchanged).")
    click.echo("0 new candidate(s), 0 #lesson block(s) promoted, 0 repeat(s) merged, 0 rejected.")
    return True


def _index_of(
    sess: Any, report: Any, files: list[tuple[str, str]]
) -> tuple[list[Any], list[tuple[str, str]], Any] | None:
    """What the index of a plain scan holds (its roots and the store's stamps), or ``None`` when
    the next scan could not be answered from it: something was left for later (held candidates,
    deliveries waiting to be judged), a file could not be read, or the scan reads more than the
    agents' roots (``scanPaths``) or runs a model (``deep``)."""
    from lessons_core.scan import walk
    from lessons_core.verdicts.state import PENDING_STATE_KEY

    store = sess.store
    stamps = getattr(store, "list_scan_stamps", None)
    if (
        stamps is None
        or report.errors
        or sess.config.scan_paths
        or sess.config.deep.enabled
        or store.list_candidates(status="held")
        or (store.get_scan_state(PENDING_STATE_KEY) or {}).get("items")
    ):
        return None
    environ = sess.environ if sess.environ is not None else os.environ
    return walk.roots_of(sess.plugins.agents(), environ), files, stamps()


def _keep_index(
    home: Path,
    environ: Any,
    index: tuple[list[Any], list[tuple[str, str]], Any] | None,
) -> None:
    """Write the index a plain scan leaves (after the store is closed, so its files are as the
    next command finds them), or remove an old one."""
    from lessons_core.scan import unchanged

    if index is None:
        unchanged.forget(str(home))
        return
    roots, files, stamps = index
    unchanged.record(str(home), environ, roots, files, stamps)


# -- candidates --------------------------------------------------------------------------------


STATUSES = ("pending", "held", "waiting", "promoted", "rejected", "duplicate", "all")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option(
    "--status",
    type=click.Choice(STATUSES),
    default="pending",
    show_default=True,
    help="Which candidates to list.",
)
@user_errors
def candidates(as_json: bool, status: str) -> None:
    """List candidates (pending ones by default)."""
    from lessons_core import services

    with services.open_store() as store:
        found = store.list_candidates(status=None if status == "all" else status)
        offers = [] if as_json else _offers(store)
    if as_json:
        for candidate in found:
            click.echo(json_line(candidate_json(candidate)))
        return
    if not found:
        click.echo(f"No {status if status != 'all' else ''} candidates.".replace("  ", " "))
    for candidate in found:
        click.echo(_describe(candidate))
        click.echo("")
    _list_offers(offers)


def _offers(store: Any) -> list[Any]:
    """The active lessons of ``store`` offered for every project."""
    from lessons_core import scope_offers
    from lessons_core.models import Status

    return scope_offers.offers(store.list_lessons(status=Status.ACTIVE))


def _list_offers(offers: list[Any]) -> None:
    """The lessons offered for every project, after the candidates a user reviews."""
    if not offers:
        return
    click.echo(f"{len(offers)} lesson(s) scoped to one project were seen in several:")
    _echo_offers(offers)


# -- promote / review --------------------------------------------------------------------------


_SCOPE_OPTION = click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="project",
    show_default=True,
    help="Scope each lesson to the project its evidence comes from (a candidate seen in no one "
    "project is global), or to every project.",
)


@click.command()
@click.argument("ids", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help='Print {"id", "slug"} per new lesson.')
@click.option(
    "--to-repo",
    "to_repo",
    is_flag=True,
    help="Write the lessons (or candidates) into the repository's .lessons folder.",
)
@click.option(
    "--repo",
    "repo_dir",
    metavar="DIR",
    help="With --to-repo: the repository holding DIR (default: the current directory's).",
)
@_SCOPE_OPTION
@user_errors
def promote(
    ids: tuple[str, ...], as_json: bool, to_repo: bool, repo_dir: str | None, scope: str
) -> None:
    """Promote candidates to active lessons (the manifest is rebuilt).

    With --to-repo, each ID (a lesson's id or slug, or a candidate, promoted first) is written
    as .lessons/<slug>.md in the repository, for review in a pull request.
    """
    from lessons_core import services

    if repo_dir is not None and not to_repo:
        raise LessonsError("--repo goes with --to-repo")
    if to_repo:
        from lessons_core.cli.repo_cmds import promote_to_repo

        promote_to_repo(ids, repo_dir, as_json)
        return
    with services.open_store() as store:
        with store.transaction():
            done = _promote(store, ids, scope=scope)
        services.rebuild_manifest(store)
    for candidate, lesson in done:
        if as_json:
            click.echo(json_line({"id": lesson.id, "slug": lesson.slug, "candidate": candidate.id}))
        else:
            click.echo(f"Promoted {candidate.id} → {lesson.slug}")


def _reject(store: Any, keys: Iterable[str]) -> list[Candidate]:
    import attrs

    done = []
    for key in keys:
        candidate = _get(store, key)
        done.append(store.update_candidate(attrs.evolve(candidate, status="rejected")))
    return done


def _interactive() -> bool:
    """Whether a person can answer prompts (stdin is a terminal)."""
    return sys.stdin.isatty()


def _edit(candidate: Candidate) -> Candidate:
    """Prompt for each editable field, the current value as default."""
    import attrs

    summary = click.prompt("summary", default=candidate.summary)
    trigger = click.prompt("trigger", default=candidate.trigger or "", show_default=True)
    mistake = click.prompt("mistake", default=candidate.mistake)
    fix = click.prompt("fix", default=candidate.fix)
    tags = click.prompt("tags (comma-separated)", default=", ".join(candidate.tags))
    return attrs.evolve(
        candidate,
        summary=summary.strip(),
        trigger=trigger.strip() or None,
        mistake=mistake.strip(),
        fix=fix.strip(),
        tags=tuple(t.strip() for t in tags.split(",") if t.strip()),
    )


def _ask_type_and_scope(candidate: Candidate) -> tuple[str, str]:
    """Ask what an accepted candidate becomes; the proposal is the default (Enter takes it)."""
    lesson_type = click.prompt(
        "type (hint, nudge, guard, protocol, directive)",
        type=click.Choice(["hint", "nudge", "guard", "protocol", "directive"]),
        default="hint",
        show_choices=False,
    )
    project = proposed_scope(candidate)
    if project is None:
        return lesson_type, "global"
    answer = click.prompt(
        f"scope: (p)roject {project}, or (g)lobal",
        type=click.Choice(["p", "g"]),
        default="p",
        show_choices=False,
    )
    return lesson_type, "project" if answer == "p" else "global"


def _split_ids(values: Iterable[str]) -> tuple[str, ...]:
    """``--accept A,B`` and ``--accept A --accept B`` alike."""
    return tuple(part for value in values for part in value.replace(",", " ").split())


@click.command()
@click.argument("more", nargs=-1, metavar="[ID]...")
@click.option("--accept", "accept", multiple=True, metavar="ID", help="Promote these.")
@click.option("--reject", "reject", multiple=True, metavar="ID", help="Reject these.")
@click.option(
    "--json", "as_json", is_flag=True, help="With --accept/--reject: one JSON object per ID."
)
@click.option(
    "--type",
    "lesson_type",
    type=click.Choice(["hint", "nudge", "guard", "protocol", "directive"]),
    default="hint",
    show_default=True,
    help="With --accept: the type of the lessons made.",
)
@_SCOPE_OPTION
@user_errors
def review(
    more: tuple[str, ...],
    accept: tuple[str, ...],
    reject: tuple[str, ...],
    as_json: bool,
    lesson_type: str,
    scope: str,
) -> None:
    """Accept, edit or reject pending candidates.

    In a terminal each pending candidate is shown in turn, and an accepted one is asked its type
    and scope (proposed: a hint, for the project its evidence comes from). With --accept/--reject
    the given candidates are handled without questions (for scripts): `--accept ID ID …`,
    `--reject ID,ID`, or both flags repeated; --type and --scope say what the accepted become.
    """
    from lessons_core import services
    from lessons_core.scan.intake import rejection

    accept, reject = _split_ids(accept), _split_ids(reject)
    if more:
        if accept and reject:
            raise LessonsError("with both --accept and --reject, put a flag before every ID")
        if not (accept or reject):
            raise LessonsError("IDs go after --accept or --reject (or use `lessons promote ID`)")
        if accept:
            accept += _split_ids(more)
        else:
            reject += _split_ids(more)
    with services.open_store() as store:
        if accept or reject:
            with store.transaction():
                promoted = _promote(store, accept, lesson_type=lesson_type, scope=scope)
                rejected = _reject(store, reject)
            if promoted:
                services.rebuild_manifest(store)
            for candidate, lesson in promoted:
                if as_json:
                    shown = {"candidate": candidate.id, "action": "promoted"}
                    click.echo(json_line({**shown, "id": lesson.id, "slug": lesson.slug}))
                else:
                    click.echo(f"Promoted {candidate.id} → {lesson.slug}")
            for candidate in rejected:
                if as_json:
                    click.echo(json_line({"candidate": candidate.id, "action": "rejected"}))
                else:
                    click.echo(f"Rejected {candidate.id}")
            return
        if as_json:
            raise LessonsError(
                "--json goes with --accept ID / --reject ID; the questions of a review "
                "are for a terminal"
            )
        if not _interactive():
            raise LessonsError(
                "review is interactive; in scripts use --accept ID / --reject ID "
                "(see `lessons candidates --json`)"
            )
        _list_offers(_offers(store))
        pending = store.list_candidates(status="pending")
        if not pending:
            click.echo("No pending candidates.")
            return
        changed = False
        for i, candidate in enumerate(pending, 1):
            click.echo(f"\n[{i}/{len(pending)}]")
            click.echo(_describe(candidate))
            choice = click.prompt(
                "(a)ccept, (e)dit, (r)eject, (s)kip, (q)uit",
                type=click.Choice(["a", "e", "r", "s", "q"]),
                default="s",
                show_choices=False,
            )
            if choice == "q":
                break
            if choice == "s":
                continue
            if choice == "r":
                _reject(store, [candidate.id])
                click.echo("rejected")
                continue
            if choice == "e":
                edited = _edit(candidate)
                reason = rejection(edited)
                if reason:
                    click.secho(f"not saved: {reason}", fg="yellow")
                    continue
                candidate = store.update_candidate(edited)
            chosen_type, chosen_scope = _ask_type_and_scope(candidate)
            try:
                ((_, lesson),) = _promote(
                    store, [candidate.id], lesson_type=chosen_type, scope=chosen_scope
                )
            except LessonsError as exc:
                click.secho(f"not saved: {exc}", fg="yellow")
                continue
            changed = True
            where = lesson.scope or "every project"
            click.echo(f"promoted → {lesson.slug} ({lesson.type}, {where})")
        if changed:
            services.rebuild_manifest(store)


# -- stats -------------------------------------------------------------------------------------


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@user_errors
def stats(as_json: bool) -> None:
    """Detections per agent (Tier 1 #lesson blocks vs Tier 2 heuristics), candidates, lessons."""
    from lessons_core import outcomes, services
    from lessons_core.report.capture import compute_stats

    with services.session() as sess:
        outcomes.run(sess)
        figures = compute_stats(sess.store)
        figures["outcomes"] = outcomes.summary(sess.store)
    if as_json:
        click.echo(json.dumps(figures, ensure_ascii=False, sort_keys=True))
        return
    if not figures["agents"]:
        click.echo("No detections yet (run `lessons scan`).")
    for name, agent in sorted(figures["agents"].items()):
        rate = agent["complianceRate"]
        shown = f"{rate:.0%}" if rate is not None else "n/a"
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(agent["candidates"].items()))
        click.echo(
            f"{name}: tier 1 {agent['tier1']}, tier 2 {agent['tier2']}, plugins {agent['plugins']}"
            f" (protocol compliance {shown}); candidates: {statuses}"
        )
    lessons = figures["lessons"]
    sources = ", ".join(f"{k} {v}" for k, v in sorted(lessons["bySource"].items()))
    click.echo(f"lessons: {lessons['total']}" + (f" ({sources})" if sources else ""))
    for line in outcomes.stats_lines(figures["outcomes"]):
        click.echo(line)
