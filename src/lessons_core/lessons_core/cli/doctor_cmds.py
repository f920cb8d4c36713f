"""``lessons doctor``: is everything in place for the hooks to deliver lessons?

Checks, in the order a failure would explain the next one: the configuration parses; the store
opens (and at which schema version); the manifest the hooks read exists, parses, was compiled
from the store's current revision and reads back whole (its indexes name only its lessons, and
the marshal copy the hooks load agrees with the JSON, see ``lessons_core.compiler.verify``);
the hooks' per-session state directory is private (the hooks refuse it otherwise); and, for
every agent in use here (its binary, its transcripts, its settings or our hooks are found),
whether its hooks are registered, with which command, and how long that command takes on a
no-op call (the median of five runs, measured as a whole process because that is what the agent
waits for). An adapter whose agent is not used here is named once, not warned about.

Each finding is ``ok``, ``warn`` or ``fail``; any ``fail`` makes the exit status 1, and every
non-``ok`` finding carries one line saying what to do.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import click

from lessons_core import installing
from lessons_core.cli.common import user_errors
from lessons_core.errors import LessonsError
from lessons_core.hot import homecheck, paths
from lessons_core.models import Status

OK, WARN, FAIL = "ok", "warn", "fail"
#: A hook answering slower than this is worth a look (the agents wait for it on every call).
SLOW_HOOK_MS = 150.0
PROBE_RUNS = 5


@attrs.frozen
class Finding:
    """One line of the report."""

    check: str
    status: str
    detail: str
    fix: str | None = None
    data: Mapping[str, Any] = attrs.field(factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "status": self.status, "detail": self.detail}
        if self.fix:
            out["fix"] = self.fix
        out.update(self.data)
        return out


def _check_config(home: Path) -> Finding:
    from lessons_core.services import load_config

    config_file = home / paths.CONFIG_NAME
    if not config_file.exists():
        return Finding("config", OK, f"{config_file} absent: defaults in use")
    try:
        load_config(home)
    except LessonsError as exc:
        return Finding("config", FAIL, str(exc), f"fix or remove {config_file}")
    return Finding("config", OK, f"{config_file} is valid")


def _check_store(environ: Mapping[str, str]) -> tuple[Finding, int | None]:
    """The store opens; returns the finding and its revision (``None`` when unusable)."""
    from lessons_core.services import open_store

    try:
        with open_store(environ) as store:
            revision = store.revision()
            counts_fn = getattr(store, "counts", None)
            counts: dict[str, int] = (
                dict(counts_fn()) if callable(counts_fn) else {"lessons": len(store.list_lessons())}
            )
            schema = getattr(store, "schema_version", None)
            where = getattr(store, "path", None)
    except LessonsError as exc:
        return Finding(
            "store",
            FAIL,
            str(exc),
            "run `lessons doctor --repair`: it keeps the broken file, starts a new store and "
            "saves the lessons that can still be read",
        ), None
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}"
        return Finding("store", FAIL, detail, "check LESSONS_HOME and the store file"), None
    parts = [f"{counts.get('lessons', 0)} lessons", f"{counts.get('candidates', 0)} candidates"]
    if schema is not None:
        parts.append(f"schema {schema}")
    parts.append(f"revision {revision}")
    detail = (f"{where}: " if where else "") + ", ".join(parts)
    data = {"revision": revision, "counts": counts, "schema_version": schema}
    return Finding("store", OK, detail, data=data), revision


def _check_outcomes(environ: Mapping[str, str]) -> list[Finding]:
    """A warning when delivered lessons turn out noisy or keep failing (the outcome loop)."""
    from lessons_core import outcomes
    from lessons_core.services import open_store

    try:
        with open_store(environ) as store:
            line = outcomes.doctor_line(store)
    except Exception:  # the figures are advice; the store check reports real failures
        return []
    if line is None:
        return []
    return [Finding("outcomes", WARN, line, "edit, retrigger or remove those lessons")]


def _verdicts_since(manifest: Mapping[str, Any], environ: Mapping[str, str] | None) -> int:
    """How many outcome verdicts the store holds beyond those the manifest was built on (0
    when it cannot tell: a manifest from before the count, or a store that will not say)."""
    built_on = manifest.get("verdicts")
    if environ is None or not isinstance(built_on, int):
        return 0
    from lessons_core.services import open_store
    from lessons_core.verdicts import stats

    try:
        with open_store(environ) as store:
            per = stats.figures_or_none(store)
    except Exception:  # the store check reports a store that cannot be opened
        return 0
    return max(0, stats.verdicts(per) - built_on) if per is not None else 0


def _check_manifest(
    home: Path, revision: int | None, lessons: int, environ: Mapping[str, str] | None = None
) -> Finding:
    manifest_file = home / paths.MANIFEST_NAME
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if lessons == 0:
            return Finding("manifest", OK, f"{manifest_file} absent (no lessons yet)")
        return Finding(
            "manifest",
            FAIL,
            f"{manifest_file} is missing: the hooks see no lessons",
            "run `lessons build`",
        )
    except (OSError, ValueError) as exc:
        return Finding(
            "manifest", FAIL, f"{manifest_file} is unreadable: {exc}", "run `lessons build`"
        )
    if not isinstance(manifest, dict) or manifest.get("type") != "lessons-manifest":
        return Finding(
            "manifest", FAIL, f"{manifest_file} is not a lessons manifest", "run `lessons build`"
        )
    compiled = manifest.get("lessons")
    count = len(compiled) if isinstance(compiled, (dict, list)) else 0
    built_from = manifest.get("storeRevision")
    data = {"path": str(manifest_file), "lessons": count, "storeRevision": built_from}
    if revision is not None and built_from != revision:
        detail = f"stale: built from store revision {built_from}, the store is at {revision}"
        return Finding("manifest", FAIL, detail, "run `lessons build`", data)
    behind = _verdicts_since(manifest, environ)
    if behind:
        detail = (
            f"stale: {behind} outcome verdict(s) recorded since it was built, which the hooks "
            "do not act on yet"
        )
        return Finding("manifest", FAIL, detail, "run `lessons build`", data)
    # Read both files as the hook will, whole: a damaged index makes the hook deliver nothing
    # without a word (it fails open), so only a check here can tell.
    from lessons_core.compiler import verify

    try:
        verify.check_json(manifest_file, manifest)
        note = verify.check_cache(manifest_file, manifest)
    except verify.Problem as exc:
        return Finding("manifest", FAIL, str(exc), "run `lessons build`", data)
    detail = f"{manifest_file}: {count} lessons compiled, fresh"
    if note is not None and "another version" in note:
        return Finding("manifest", WARN, f"{detail}; {note}", "run `lessons build`", data)
    if note is not None:
        detail += f"; {note}"
    return Finding("manifest", OK, detail, data=data)


def _check_left_out(environ: Mapping[str, str]) -> Finding:
    """Active lessons the manifest leaves out because a pattern is refused: they never fire."""
    from lessons_core.compiler.entries import refusals
    from lessons_core.services import open_store

    try:
        with open_store(environ) as store:
            found = refusals(store.list_lessons(status=Status.ACTIVE))
    except Exception as exc:
        return Finding("patterns", WARN, f"could not check the lessons' patterns: {exc}")
    if not found:
        return Finding("patterns", OK, "every active lesson's patterns are accepted")
    shown = "; ".join(r.message() for r in found)
    return Finding(
        "patterns",
        FAIL,
        f"{len(found)} active lesson(s) left out of the manifest: {shown}",
        "rewrite or remove them (`lessons build` lists the rule each breaks)",
        {"refused": [r.lesson_id for r in found]},
    )


def _check_state(environ: Mapping[str, str]) -> Finding:
    """The hooks refuse a state dir others could write to; then nudges and dedup stop working."""
    from lessons_core.hot import claims

    root = Path(paths.state_dir(environ))
    if not root.exists() and not root.is_symlink():
        return Finding("state", OK, f"{root} will be created (0700) on the first hook call")
    try:
        claims.check_state_dir(str(root))
    except claims.UnsafeStateDir as exc:
        fix = f"remove {root} (it is recreated safely) or make it yours with mode 0700"
        return Finding("state", FAIL, f"{exc}: nudges and once-per-session delivery are off", fix)
    except OSError as exc:
        return Finding("state", FAIL, f"{root}: {exc.strerror}", f"check {root}")
    return Finding("state", OK, f"{root} is private")


def _check_agent(
    name: str, installer: Any, environ: Mapping[str, str], found: str | None = None
) -> Finding | None:
    """The agent's hooks, or ``None`` for an agent this machine does not use.

    An adapter ships with ``lessons[all]`` whether or not its agent is here, so an agent earns
    a finding only when it is in use: ``found`` (its binary on PATH or its transcripts, see
    :func:`installing.detect_agents`), its settings file exists, or our hooks are in it.
    """
    check = f"hooks:{name}"
    try:
        status: installing.InstallStatus = installer.status(environ)
    except LessonsError as exc:
        return Finding(check, FAIL, str(exc), f"run `lessons install {name}`")
    data: dict[str, Any] = status.as_dict()
    if status.error:
        return Finding(check, FAIL, status.error, f"fix {status.path}", data)
    if not status.registered:
        if found is None and not status.exists:
            return None
        why = f" ({found})" if found else ""
        return Finding(
            check,
            WARN,
            f"{name} is used here{why} but its hooks are not registered in {status.path}",
            f"run `lessons install {name}`",
            data,
        )
    if status.missing:
        detail = f"partly registered in {status.path}: missing {', '.join(status.missing)}"
        return Finding(check, FAIL, detail, f"run `lessons install {name}`", data)
    notes = status.notes()
    command = status.commands[0]
    # What the hook will see: the agent's environment rarely carries LESSONS_HOME, so only what
    # the command pins counts, not this shell's variables.
    hook_env = {k: v for k, v in environ.items() if k not in installing.PINNED_ENV}
    hook_env.update(installing.command_env(command))
    hook_home, here = paths.lessons_home(hook_env), paths.lessons_home(environ)
    data["hook_home"] = hook_home
    try:
        median, runs, _ = installing.time_command(command, runs=PROBE_RUNS, env=hook_env)
    except LessonsError as exc:
        detail = f"registered command fails: {exc}"
        return Finding(check, FAIL, detail, f"run `lessons install {name}` again", data)
    data["latency_ms"] = round(median, 1)
    data["latency_runs_ms"] = [round(t, 1) for t in runs]
    detail = f"registered in {status.path}; hook answers in {median:.0f} ms (median of {len(runs)})"
    if Path(hook_home).absolute() != Path(here).absolute():
        detail += f"; but the hook reads lessons from {hook_home}, not from {here}"
        fix = (
            f"run `lessons install {name}` in this shell to pin {here} in the command, "
            f"or use LESSONS_HOME={hook_home}"
        )
        return Finding(check, WARN, detail, fix, data)
    # Agent-specific gates an installer may report (Codex: trust review; Gemini: hooksConfig).
    if data.get("trusted") is False:
        fix = str(data.get("note") or f"trust the hooks in {name}")
        return Finding(
            check, WARN, detail + "; not trusted yet, so the agent skips them", fix, data
        )
    if data.get("enabled") is False:
        fix = f"enable hooks (and ours) in {status.path} under hooksConfig"
        return Finding(check, WARN, detail + "; hooks are disabled", fix, data)
    if notes:
        return Finding(check, WARN, detail + "; " + "; ".join(notes), notes[0], data)
    if not status.current:
        fix = f"run `lessons install {name}` to register the current command"
        return Finding(
            check, WARN, detail + "; the registered command is not the current one", fix, data
        )
    if median > SLOW_HOOK_MS:
        return Finding(
            check, WARN, detail + " — slow", "see docs/agents for the fastest command", data
        )
    return Finding(check, OK, detail, data=data)


def _check_skills(home: Path) -> Finding | None:
    """Skills of ours changed by hand: never overwritten, so they may fall behind the store."""
    from lessons_core import skills

    if skills.load_record(home) is None:
        return None
    changed = skills.edited(home)
    if not changed:
        return Finding("skills", OK, "the generated skills are as written")
    return Finding(
        "skills",
        WARN,
        f"{len(changed)} skill file(s) edited by hand, no longer updated: "
        + ", ".join(str(p) for p in changed),
        "delete a file to have `lessons skills` regenerate it",
        {"edited": [str(p) for p in changed]},
    )


def _check_sources(env: Mapping[str, str], home: Path) -> Finding | None:
    """Whether each lesson source (``lessons_register_lesson_sources``) still has the revision
    the manifest was built from: a merge or a checkout changes lesson files without a build."""
    from lessons_core.compiler.sources import sources_changed
    from lessons_core.services import load_config, load_plugins

    if not (home / paths.MANIFEST_NAME).is_file():
        return None  # the manifest check says so
    try:
        plugins = load_plugins(env)
        config = load_config(home)
    except Exception:  # the config and plugin checks report what is wrong
        return None
    try:
        changed = sources_changed(plugins, config, home)
    except Exception as exc:
        return Finding("sources", WARN, f"a lesson source failed: {type(exc).__name__}: {exc}")
    if not changed:
        return None
    return Finding(
        "sources",
        FAIL,
        f"the lessons of {', '.join(repr(n) for n in changed)} changed since the manifest was "
        "built (a merge, a pull or a checkout)",
        "run `lessons build`",
        {"changed": changed},
    )


def _check_source_files(env: Mapping[str, str], home: Path) -> Finding | None:
    """Lesson files a source leaves out (bad front matter, a link, a refused pattern): named
    with what to fix, since rebuilding leaves them out again."""
    from lessons_core.compiler.sources import read_sources
    from lessons_core.repomem import registry
    from lessons_core.services import load_config, load_plugins

    if not (home / registry.NAME).is_file():
        return None  # no repository included: nothing to read
    try:
        sourced = read_sources(load_plugins(env), load_config(home), home)
    except Exception:  # the config and plugin checks report what is wrong
        return None
    if not sourced.problems:
        return None
    shown = "; ".join(sourced.problems[:3])
    more = len(sourced.problems) - 3
    return Finding(
        "sources",
        WARN,
        f"{len(sourced.problems)} lesson file(s) left out: {shown}"
        + (f" (and {more} more)" if more > 0 else ""),
        "fix or remove each named file as its message says (`lessons repo check` lists them); "
        "the rest are delivered",
        {"leftOut": list(sourced.problems)},
    )


def shared_report(env: Mapping[str, str], home: Path) -> dict[str, Any] | None:
    """What the lesson sources contribute now, what waits, what they ask of the user's own
    lessons, and what they left out; ``None`` without any source lesson or note."""
    from lessons_core.compiler.sources import merge, read_sources
    from lessons_core.services import load_config, load_plugins, open_store

    plugins = load_plugins(env)
    config = load_config(home)
    sourced = read_sources(plugins, config, home)
    if not (sourced.lessons or sourced.problems or sourced.waiting):
        return None
    with open_store(env) as store:
        merged = merge(store.list_lessons(), sourced.lessons)
    delivered = {lesson.id for lesson in merged.lessons}
    return {
        "contributed": sum(1 for lesson in sourced.lessons if lesson.id in delivered),
        "waiting": list(sourced.waiting),
        "suggestions": list(merged.suggestions),
        "problems": list(sourced.problems),
    }


def _check_shared(env: Mapping[str, str], home: Path) -> Finding | None:
    """What shared sources (included repositories) add, and what they asked to change."""
    try:
        report = shared_report(env, home)
    except Exception as exc:
        return Finding("shared", WARN, f"could not read the lesson sources: {exc}")
    if report is None:
        return None
    # Left-out files are the `sources` finding's, with what to fix in each.
    notes = report["waiting"] + report["suggestions"]
    detail = f"{report['contributed']} lesson(s) from repositories delivered"
    if not notes:
        return Finding("shared", OK, detail, data=report)
    detail += "; " + "; ".join(notes)
    fix = (
        "'lessons repo list DIR' shows a repository's files, 'lessons repo trust DIR' delivers "
        "the new or changed ones; your own lessons are never changed by a repository"
    )
    return Finding("shared", WARN, detail, fix, report)


#: Team rows a sync could not use (written by the team store plugin, see docs/team.md).
TEAM_QUARANTINE_NAME = "team-quarantine.jsonl"


def _check_waiting(env: Mapping[str, str], home: Path) -> Finding | None:
    """Lessons a shared source brought that wait for the user (``candidate`` lessons), and team
    rows a sync quarantined."""
    from lessons_core.services import open_store

    notes: list[str] = []
    data: dict[str, Any] = {}
    try:
        with open_store(env) as store:
            waiting = store.list_lessons(status=Status.CANDIDATE)
    except Exception:  # the store check reports it
        waiting = []
    if waiting:
        data["waiting"] = [lesson.slug for lesson in waiting]
        shown = ", ".join(f"{lesson.slug} ({lesson.type})" for lesson in waiting[:5])
        more = f" and {len(waiting) - 5} more" if len(waiting) > 5 else ""
        notes.append(f"{len(waiting)} lesson(s) wait for you to accept them: {shown}{more}")
    try:
        quarantined = (home / TEAM_QUARANTINE_NAME).read_text(encoding="utf-8").splitlines()
    except OSError:
        quarantined = []
    if quarantined:
        data["quarantined"] = len(quarantined)
        notes.append(
            f"{len(quarantined)} team row(s) could not be used and were left on the team store "
            f"(named in {home / TEAM_QUARANTINE_NAME})"
        )
    if not notes:
        return None
    fix = (
        "'lessons show SLUG' then 'lessons enable SLUG' to accept a lesson; ask a quarantined "
        f"row's author to fix it, then remove {TEAM_QUARANTINE_NAME}"
    )
    return Finding("waiting", WARN, "; ".join(notes), fix, data)


def run_checks(environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Every check, in order."""
    env = dict(os.environ if environ is None else environ)
    home = Path(paths.lessons_home(env))
    untrusted = homecheck.check(str(home))
    if untrusted is not None:  # nothing in it is read: each check would only repeat this
        return [Finding("home", FAIL, untrusted[0], untrusted[1])]
    findings = [_check_config(home)]
    if findings[0].status == FAIL:
        store, revision = Finding("store", WARN, "skipped: the configuration is broken"), None
    else:
        store, revision = _check_store(env)
    findings.append(store)
    if revision is not None:
        findings.extend(_check_outcomes(env))
    lessons = int(store.data.get("counts", {}).get("lessons", 0))
    findings.append(_check_manifest(home, revision, lessons, env if revision is not None else None))
    sources = _check_sources(env, home)
    if sources is not None:
        findings.append(sources)
    left_out = _check_source_files(env, home)
    if left_out is not None:
        findings.append(left_out)
    shared = _check_shared(env, home) if findings[0].status != FAIL else None
    if shared is not None:
        findings.append(shared)
    waiting = _check_waiting(env, home) if revision is not None else None
    if waiting is not None:
        findings.append(waiting)
    if revision is not None:
        findings.append(_check_left_out(env))
    findings.append(_check_state(env))
    skills = _check_skills(home)
    if skills is not None:
        findings.append(skills)
    try:
        known = installing.agents(env)
    except Exception as exc:
        findings.append(
            Finding("plugins", FAIL, f"{type(exc).__name__}: {exc}", "run `lessons plugins`")
        )
        known = {}
    if not known:
        findings.append(
            Finding(
                "hooks",
                WARN,
                "no agent adapter installed",
                "pip install 'lessons[<agent>]' for the agent you use (or 'lessons[all]')",
            )
        )
    try:
        found = installing.detect_agents(known, env)
    except Exception:  # an adapter's transcript roots failed: its status still speaks
        found = {}
    unused: list[str] = []
    for name in sorted(known):
        spec = known[name]
        if spec.installer is None:
            continue
        agent = _check_agent(name, spec.installer(), env, found.get(name))
        if agent is None:
            unused.append(name)
        else:
            findings.append(agent)
    if unused:
        findings.append(
            Finding(
                "agents",
                OK,
                f"not used on this machine, not checked: {', '.join(unused)}",
                data={"unused": unused},
            )
        )
    agent_findings = [f for f in findings if f.check.startswith("hooks:")]
    if known and not any(f.data.get("registered") for f in agent_findings):
        findings.append(
            Finding(
                "hooks",
                WARN,
                "no agent has the hooks registered: lessons are stored but never delivered",
                "run `lessons install <agent>`",
            )
        )
    return findings


_MARK = {OK: ("ok", "green"), WARN: ("warn", "yellow"), FAIL: ("FAIL", "red")}


def _repair() -> dict[str, Any]:
    """Repair a broken SQLite store (see :mod:`lessons_core.store.repair`); what was done."""
    from lessons_core import services
    from lessons_core.store import repair

    home = services.home_dir()
    path = home / paths.STORE_NAME
    problem = repair.check(path)
    if problem is None:
        return {"repaired": False, "store": str(path), "detail": "the store reads cleanly"}
    compiled = _manifest_ids(home)  # before the rebuild: the last lessons the hooks knew
    try:
        done = repair.repair(path)
    except OSError as exc:
        raise LessonsError(f"cannot repair {path}: {exc.strerror or exc}") from None
    with services.open_store() as store:
        saved_ids = {lesson.id for lesson in store.list_lessons()}
        services.rebuild_manifest(store)
    return {
        "lost": sorted(compiled - saved_ids),
        "repaired": True,
        "store": str(path),
        "problem": problem,
        "kept": str(done.kept),
        "saved": done.saved,
        "unreadable": done.unreadable,
        "how": done.how,
    }


def _manifest_ids(home: Path) -> set[str]:
    try:
        manifest = json.loads((home / paths.MANIFEST_NAME).read_text(encoding="utf-8"))
        return {str(key) for key in manifest["lessons"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def _repair_lines(result: dict[str, Any]) -> list[str]:
    if not result["repaired"]:
        return [f"{result['store']}: {result['detail']}; nothing to repair."]
    lines = [
        f"The store {result['store']} was broken ({result['problem']}).",
        f"Kept it as {result['kept']}; a new store is in its place.",
        f"Saved {result['saved']} lesson(s) ({result['how']})"
        + (f"; {result['unreadable']} row(s) could not be read." if result["unreadable"] else "."),
    ]
    if result["lost"]:
        lines.append(
            f"{len(result['lost'])} lesson(s) the hooks last delivered could not be saved "
            "(listed under `lost` with --json); the kept file still holds whatever is left."
        )
    lines += [
        "Candidates and scan offsets start afresh: the next `lessons scan` reads the "
        "transcripts again.",
    ]
    return lines


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object with every finding.")
@click.option(
    "--repair",
    "repair",
    is_flag=True,
    help="Set a broken store aside (kept), start a new one, save the lessons still readable.",
)
@user_errors
def doctor(as_json: bool, repair: bool) -> None:
    """Check config, store, manifest freshness and each agent's hooks (with measured latency)."""
    repaired = _repair() if repair else None
    if repaired is not None and not as_json:
        for line in _repair_lines(repaired):
            click.echo(line)
    findings = run_checks()
    failed = any(f.status == FAIL for f in findings)
    if as_json:
        report: dict[str, Any] = {"ok": not failed, "findings": [f.as_dict() for f in findings]}
        if repaired is not None:
            report["repair"] = repaired
        click.echo(json.dumps(report, indent=2))
    else:
        for finding in findings:
            label, colour = _MARK[finding.status]
            click.echo(
                f"{click.style(f'[{label:>4}]', fg=colour)} {finding.check}: {finding.detail}"
            )
            for command in finding.data.get("commands", ()):
                click.echo(f"       command: {command}")
            if finding.fix:
                click.echo(f"       → {finding.fix}")
        problems = sum(f.status == FAIL for f in findings)
        warnings = sum(f.status == WARN for f in findings)
        if problems:
            click.echo(f"{problems} problem(s) found; fix them as suggested above.")
        elif warnings:
            click.echo(f"No problems; {warnings} warning(s) worth a look.")
        else:
            click.echo("Everything needed for delivering lessons is in place.")
    if failed:
        raise SystemExit(1)
