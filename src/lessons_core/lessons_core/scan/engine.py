"""Incremental scanning: find transcripts, read only what is new, run every detector, admit.

A scan runs in four steps, each in its own module: :mod:`~lessons_core.scan.discovery` lists the
files, :mod:`~lessons_core.scan.planning` decides where each changed one is read from (and how
the reading is shared between processes), :mod:`~lessons_core.scan.reading` runs the detectors
over the new events, and :mod:`~lessons_core.scan.committing` writes what was found with the new
offsets. This module drives them, one scan at a time under :mod:`~lessons_core.scan.lock`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger
from lessons_core.models import Config
from lessons_core.plugins.specs import AgentSpec, DetectorSpec
from lessons_core.scan import committing, discovery, lock, planning, reading, trigger_checks
from lessons_core.scan.intake import Intake, dedup_backend

log = get_logger()


def active_detectors(detectors: Mapping[str, DetectorSpec], config: Config) -> list[DetectorSpec]:
    """The detectors a scan runs: none named in ``offDetectors``; ``deep`` ones only in a deep
    scan, and then instead of the detectors they replace.

    A deep scan without any deep detector is refused: the user asked for something that is
    not installed, and a plain scan in its place would look as if it had worked.
    """
    specs = [spec for spec in detectors.values() if spec.name not in config.off_detectors]
    if not config.deep.enabled:
        return [spec for spec in specs if not spec.deep]
    deep = [spec for spec in specs if spec.deep]
    if not deep:
        raise LessonsError(
            "a deep scan needs the lessons-llm plugin, which is not installed: "
            "pip install 'lessons[llm]' (or set deep.enabled to false in config.json)"
        )
    replaced = {name for spec in deep for name in spec.replaces}
    return [spec for spec in specs if spec.name not in replaced]


class Scanner:
    """One scan: the store, configuration, detectors and the report being filled."""

    def __init__(
        self,
        store: Any,
        config: Config,
        agents: Mapping[str, AgentSpec],
        detectors: Mapping[str, DetectorSpec] | Callable[[], Mapping[str, DetectorSpec]],
        *,
        dedup: Callable[..., Any] | None = None,
        home_dir: str | None = None,
        workers: int | None = None,
        lessons_home: Path | None = None,
    ) -> None:
        self.store = store
        self.lessons_home = lessons_home
        self.config = config
        self.agents = agents
        self._detector_source = detectors
        self._detectors: list[DetectorSpec] | None = None
        self.intake = Intake(store, config, dedup=dedup, home=home_dir, defer_merges=True)
        self.report = committing.Report()
        self.workers = workers
        self.planner = planning.Planner(store, agents)
        self.committer = committing.Committer(store, self.intake, self.report)

    @property
    def prepared(self) -> list[DetectorSpec]:
        """The detectors collected for this scan so far (none when nothing needed reading)."""
        return self._detectors or []

    @property
    def detectors(self) -> list[DetectorSpec]:
        """Collected on first use: a scan with nothing new never imports the detectors.

        Those with a ``prepare`` step are prepared here, in this process, before any helper
        is forked.
        """
        if self._detectors is None:
            source = self._detector_source
            chosen = active_detectors(source() if callable(source) else source, self.config)
            for spec in chosen:
                if spec.prepare is not None:
                    spec.prepare(config=self.config, home=self.lessons_home)
            self._detectors = chosen
        return self._detectors

    # -- planning ---------------------------------------------------------------------------

    def plan(self, agent: str, path: str | os.PathLike[str]) -> planning.Job | None:
        """A job for ``path``, or ``None`` when it is unchanged since the last scan."""
        return self.planner.plan(agent, path)

    def _processes(self, jobs: Sequence[planning.Job]) -> tuple[int, bool]:
        return planning.processes(jobs, self.workers)

    # -- running ----------------------------------------------------------------------------

    def scan_files(
        self,
        files: Iterable[tuple[str, str | Path]],
        *,
        on_file: Callable[[str, int], None] | None = None,
        on_plan: Callable[[int], None] | None = None,
        alongside: Callable[[], None] | None = None,
    ) -> committing.Report:
        """Plan every file (``on_plan`` hears how many bytes are to be read), read the changed
        ones (in worker processes when there is a lot to read), and commit the results in
        groups: one transaction per file would cost more than reading a small transcript, and a
        group is still atomic (offsets move with their candidates).

        ``alongside`` is work that does not depend on what is read (the first manifest of a new
        home): it is done once, while the helpers read when there are any, else before reading.
        """
        jobs: list[planning.Job] = []
        for agent, path in files:
            self.report.files_seen += 1
            try:
                job = self.plan(agent, path)
            except OSError as exc:
                self.report.errors += 1
                log.warning("scan.file_error", path=os.fspath(path), error=str(exc))
                job = None
            if job is None:
                self.report.files_skipped += 1
                if on_file is not None:
                    on_file(os.fspath(path), 0)
                continue
            jobs.append(job)
        if self.planner.moved:
            with self.store.transaction():
                for key, state in self.planner.moved:
                    self.store.set_scan_state(key, state)
            self.planner.moved.clear()
        if on_plan is not None:
            on_plan(sum(j.todo for j in jobs))
        if not jobs:
            if alongside is not None:
                alongside()
            return self.report
        size, use_pool = self._processes(jobs)
        if size > 1:
            jobs = planning.cut_pieces(jobs, size, self.agents)
            size = min(size, len(jobs))
        assembly = reading.Assembly(jobs)
        # Results are committed in groups, each in one short write transaction taken only once
        # the group is read: reading never holds the store's write lock, so hooks and other
        # commands are not kept waiting by a long scan.
        pending = committing.Pending(self._commit_group)
        results: Iterable[reading.FileResult | reading.ReadFailure]
        if size > 1:
            from lessons_core.scan import split

            _ = self.detectors  # collected (and imported) once, before the helpers fork
            if use_pool:
                results = split.read_pooled(jobs, self._read_one, size, on_forked=alongside)
            else:
                # What is read is committed while the helpers may still be reading.
                results = split.read_split(
                    jobs, self._read_one, size, on_forked=alongside, on_own_done=pending.flush
                )
        else:
            if alongside is not None:
                alongside()
            results = (self._read_one(job) for job in jobs)
        try:
            for part in results:
                result = assembly.add(part)
                if result is None:
                    continue  # a piece of a file whose other pieces are still being read
                if isinstance(result, reading.ReadFailure):
                    self.report.errors += 1
                    log.warning("scan.file_error", path=result.key, error=result.error)
                    continue
                if on_file is not None:
                    on_file(result.key, result.read)
                pending.add(result)
            pending.flush()
        finally:
            # Left early (Ctrl-C, an error): stop the helpers now, not whenever the generator
            # is collected. What was committed stays; the rest is read again next time.
            close = getattr(results, "close", None)
            if close is not None:
                close()
        return self.report

    def _commit_group(self, group: list[reading.FileResult]) -> None:
        if not group:
            return
        with self.store.transaction():
            for result in group:
                self.commit(result)
            self.intake.flush()

    def _read_one(self, job: planning.Job) -> reading.FileResult | reading.ReadFailure:
        try:
            return reading.read_file(
                job, self.agents, self.detectors, self.config, self.intake.home
            )
        except Exception as exc:  # one unreadable file must not end the scan; its offset stays
            return reading.ReadFailure(str(job.path), f"{type(exc).__name__}: {exc}", job.piece)

    def scan_file(self, agent: str, path: str | Path) -> int:
        """Scan one transcript now; returns the number of new bytes read (0 when unchanged).

        Context re-read from before the old offset is not counted.
        """
        job = self.plan(agent, path)
        if job is None:
            self.report.files_skipped += 1
            return 0
        result = reading.read_file(job, self.agents, self.detectors, self.config, self.intake.home)
        with self.store.transaction():
            self.commit(result)
            self.intake.flush()
        return result.read

    def commit(self, result: reading.FileResult) -> None:
        """Admit a file's candidates and move its offset, in the caller's transaction."""
        self.committer.commit(result)


def run_scan(
    session: Any,
    *,
    paths: Sequence[Path] = (),
    agent: str | None = None,
    wait: bool = True,
    on_file: Callable[[str, int], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
    files: Sequence[tuple[str, str | Path]] | None = None,
    workers: int | None = None,
    on_wait: Callable[[], None] | None = None,
) -> committing.Report:
    """Scan under the lock with a :class:`lessons_core.services.Session`; rebuild the manifest
    when Tier 1 blocks were promoted."""
    environ = session.environ if session.environ is not None else os.environ
    agents = session.plugins.agents()
    if agent is not None and agent not in agents:
        known = ", ".join(sorted(agents)) or "none"
        raise LessonsError(f"no agent plugin named {agent!r} is installed (installed: {known})")
    if workers is None and environ.get("LESSONS_SCAN_WORKERS", "").strip().isdigit():
        workers = max(1, int(environ["LESSONS_SCAN_WORKERS"]))
    with (
        lock.scan_lock(session.home, wait=wait, on_wait=on_wait),
        trigger_checks.remembered(session.home),
    ):
        todo = (
            files
            if files is not None
            else discovery.discover(agents, environ, paths, agent, extra=session.config.scan_paths)
        )
        scanner = Scanner(
            session.store,
            session.config,
            agents,
            session.plugins.detectors,
            dedup=dedup_backend(session.plugins),
            home_dir=environ.get("HOME"),
            workers=workers,
            lessons_home=session.home,
        )
        if session.config.deep.enabled:
            _ = scanner.detectors  # a deep scan that cannot run says so before reading anything
        early = _EarlyBuild(session) if _sources_changed(session) else None
        report = scanner.scan_files(todo, on_file=on_file, on_plan=on_plan, alongside=early)
        committing.hold_back(session.store, report, session.config.max_candidates_per_scan)
        for spec in scanner.prepared:
            line = spec.summary() if spec.summary is not None else ""
            if line:
                report.notes.append(line)
        if report.promoted or (early is not None and not early.built):
            session.rebuild_manifest()
    return report


class _EarlyBuild:
    """The rebuild a changed lesson source calls for, done while the scan reads: it does not
    depend on what is read, and a first scan (a new home has no manifest) would otherwise end
    with it while every helper sits idle. When it fails, the scan goes on and the rebuild is
    tried again at the end, where its error is reported as before."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.built = False

    def __call__(self) -> None:
        try:
            self.session.rebuild_manifest()
        except Exception:
            log.warning("scan.early_build_failed", exc_info=True)
            return
        self.built = True


def _sources_changed(session: Any) -> bool:
    """Whether a lesson source changed since the last build (a repository's lesson files after
    a merge): the background scan then rebuilds, so the hooks catch up without a command."""
    from lessons_core.compiler.sources import sources_changed

    try:
        return bool(sources_changed(session.plugins, session.config, session.home))
    except Exception:  # a source that fails is named by `lessons build`; a scan goes on
        log.warning("scan.sources_check_failed", exc_info=True)
        return False
