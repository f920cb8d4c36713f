"""Intake: quality checks, scrubbing, duplicates folded into counts, Tier 1 promotion."""

from __future__ import annotations

import attrs
import pytest
import structlog

from lessons_core import scope_offers, services
from lessons_core.models import Candidate, Config, Evidence, Status
from lessons_core.scan import intake
from lessons_core.scan.intake import DUPLICATE, NEW, PROMOTED, REJECTED, Intake


def _candidate(**kw) -> Candidate:
    base = {
        "id": "",
        "tier": 2,
        "agent": "claude",
        "tool": "Bash",
        "trigger": r"\bpytest\b",
        "mistake": "`pytest tests/` failed (exit 127): pytest: command not found",
        "fix": "Run `.venv/bin/python -m pytest tests/` instead.",
        "summary": "pytest: command not found",
        "evidence": (Evidence("/t/a.jsonl", 5, "c1", "s1"),),
        "project": "/home/dev/app",
    }
    base.update(kw)
    return Candidate(**base)


@pytest.fixture(name="store")
def fixture_store():
    with services.open_store() as store:
        yield store


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"mistake": "too short"}, "shorter than"),
        ({"fix": "Use <the right command> instead of that one"}, "placeholder"),
        ({"fix": "Run the tests through the virtualenv and then..."}, "ellipsis"),
        ({"trigger": "running tests"}, "prose"),
        ({"trigger": r"\bpytest(\b"}, "regular expression"),
        ({"trigger": r"\bnpm\b\s+(?:\S+\s*)*?\btest\b"}, "refused by the manifest compiler"),
    ],
)
def test_quality_checks_reject(change, why):
    """Short, placeholder, cut-off, prose-trigger and broken-regex candidates are refused."""
    reason = intake.rejection(_candidate(**change))
    assert reason is not None
    assert why in reason


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("Run the tests and then...", True),
        ("Run the tests and then…  \n", True),
        ("Run the tests and then....", True),
        ("Run go test ./...", False),
        ("Run go test ./... \u00a0\n", False),
        ("Run it... then check", False),
        ("Ends with two dots..", False),
    ],
)
def test_an_ellipsis_is_judged_at_the_very_end(text, cut):
    """Only a text that ends (but for whitespace) in an ellipsis is cut off; Go's ``./...``
    package pattern is not one."""
    assert intake._ends_with_ellipsis(text) is cut


def test_a_good_candidate_passes():
    """The shape a detector produces passes the checks."""
    assert intake.rejection(_candidate()) is None


@pytest.mark.parametrize(
    "text",
    [
        "Edit failed: <tool_use_error>String to replace not found in file.</tool_use_error>",
        'python -c failed: File "<string>", line 3, in <module>: ImportError',
    ],
)
def test_tool_markup_is_not_a_placeholder(text):
    """Angle brackets the tools print themselves are not a template's blank."""
    assert intake.rejection(_candidate(mistake=text)) is None
    assert "placeholder" in (intake.rejection(_candidate(mistake=text + " <your path>")) or "")


def test_scrub_redacts_secrets_and_home_paths():
    """Secrets and home directories never reach the store."""
    dirty = _candidate(
        mistake="`curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123' "
        "https://x` failed in /home/alice/project",
        evidence=(Evidence("/home/alice/.claude/projects/x.jsonl", 5, "c1", "s1"),),
    )
    clean = intake.scrub(dirty, home="/home/alice")
    assert "sk-ant-api03" not in clean.mistake
    assert "/home/alice" not in clean.mistake
    assert clean.evidence[0].file == "~/.claude/projects/x.jsonl"


def test_new_candidate_is_stored_pending(store):
    """A Tier 2 candidate waits for review."""
    outcome = Intake(store, Config()).admit(_candidate())
    assert outcome.status == NEW
    (stored,) = store.list_candidates(status="pending")
    assert stored.id == outcome.candidate.id


def test_repeat_in_another_session_merges_and_adds_the_bonus(store):
    """A near-duplicate adds its evidence and the multi-session bonus instead of a new row."""
    first = Intake(store, Config()).admit(_candidate(confidence=0.55))
    again = _candidate(
        mistake="`pytest -x tests/` failed (exit 127): pytest: command not found",
        evidence=(Evidence("/t/b.jsonl", 9, "c7", "s2"),),
        confidence=0.55,
    )
    outcome = Intake(store, Config()).admit(again)
    assert outcome.status == DUPLICATE
    (stored,) = store.list_candidates(status="pending")
    assert stored.id == first.candidate.id
    assert [e.session_id for e in stored.evidence] == ["s1", "s2"]
    assert stored.confidence == pytest.approx(0.65)


def test_deferred_repeats_are_written_once_at_the_flush(store, monkeypatch):
    """A scan merges many repeats into one candidate: with ``defer_merges`` the candidate is
    written once, when the scanner flushes, with every repeat's evidence."""
    scan = Intake(store, Config(), defer_merges=True)
    first = scan.admit(_candidate(confidence=0.55))
    writes: list[str] = []
    update = store.update_candidate
    monkeypatch.setattr(store, "update_candidate", lambda c: writes.append(c.id) or update(c))
    for n in range(2, 6):
        again = _candidate(evidence=(Evidence(f"/t/{n}.jsonl", n, f"c{n}", f"s{n}"),))
        assert scan.admit(again).status == DUPLICATE
    (stored,) = store.list_candidates(status="pending")
    assert [e.session_id for e in stored.evidence] == ["s1"]  # nothing written yet
    scan.flush()
    (stored,) = store.list_candidates(status="pending")
    assert writes == [first.candidate.id]
    assert [e.session_id for e in stored.evidence] == ["s1", "s2", "s3", "s4", "s5"]
    scan.flush()
    assert writes == [first.candidate.id]  # nothing left to write


def test_rejected_candidate_is_not_stored(store):
    """Rejections leave the store untouched."""
    outcome = Intake(store, Config()).admit(_candidate(fix="TODO"))
    assert outcome.status == REJECTED
    assert store.list_candidates() == []


def test_prepare_is_the_store_free_half_of_admit(store):
    """The scanner checks and scrubs while reading (in parallel); admitting the prepared
    candidate then stores exactly what admitting the raw one would."""
    assert intake.prepare(_candidate(fix="TODO"), home="/home/alice") == (
        "fix shorter than 20 characters"
    )
    raw = _candidate(mistake="`pytest` failed in /home/alice/app: pytest: command not found")
    ready = intake.prepare(raw, home="/home/alice")
    assert isinstance(ready, Candidate) and "/home/alice" not in ready.mistake
    outcome = Intake(store, Config(), home="/home/alice").admit(ready, prepared=True)
    assert outcome.status == NEW
    (stored,) = store.list_candidates()
    assert stored.mistake == intake.scrub(raw, "/home/alice").mistake


def test_tier1_is_promoted_to_an_active_lesson(store):
    """A #lesson block that passes becomes an active lesson at once."""
    block = _candidate(tier=1, confidence=0.85, detector="tier1")
    outcome = Intake(store, Config()).admit(block)
    assert outcome.status == PROMOTED
    (lesson,) = store.list_lessons()
    assert lesson.status == Status.ACTIVE
    assert lesson.triggers.tool_names == ("Bash",)
    assert lesson.triggers.command_patterns == (r"\bpytest\b",)
    assert lesson.remediation == block.fix
    assert lesson.provenance.source == "scan:tier1"
    assert store.get_candidate(outcome.candidate.id).status == "promoted"


def test_repeat_of_a_lesson_bumps_its_counts(store):
    """Seen again in another session and project: occurrences, sessions, projects, bonus."""
    gate = Intake(store, Config())
    gate.admit(_candidate(tier=1, confidence=0.85))
    repeat = _candidate(
        tier=2,
        evidence=(Evidence("/t/c.jsonl", 3, "c9", "s3"),),
        project="/home/dev/other",
    )
    outcome = Intake(store, Config()).admit(repeat)
    assert outcome.status == DUPLICATE
    (lesson,) = store.list_lessons()
    assert lesson.provenance.occurrences == 2
    assert set(lesson.provenance.sessions) == {"s1", "s3"}
    assert len(lesson.provenance.projects) == 2
    assert lesson.confidence == pytest.approx(0.95)


def test_file_tool_candidate_promotes_to_a_path_pattern(store):
    """Edit/Write/Read triggers are globs and land in path patterns."""
    edit = _candidate(
        tool="Edit",
        trigger="**/*.py",
        mistake="Edit on src/app.py failed: File has not been read yet.",
        fix="Read src/app.py first, then retry the Edit.",
    )
    lesson = Intake(store, Config()).promote(store.add_candidate(edit))
    assert lesson.triggers.path_patterns == ("**/*.py",)
    assert lesson.triggers.command_patterns == ()


@pytest.mark.parametrize(
    ("tier", "error_lines", "gate"),
    [
        (2, ("File has not been read yet.",), ()),  # detected, recalled by its error line
        (4, ("File has not been read yet.",), ()),
        (2, (), ("Edit",)),  # nothing to recall it by: the tool is all there is
        (1, ("File has not been read yet.",), ("Edit",)),  # the agent chose the tool gate
        (5, ("File has not been read yet.",), ("Edit",)),
    ],
)
def test_a_detected_lesson_without_a_trigger_has_no_tool_gate(tier, error_lines, gate):
    """A tool gate alone fires on every call of the tool: a detector's lesson whose mistake
    the call does not show is left to failure-time recall instead."""
    edit = attrs.evolve(_candidate(tool="Edit", trigger=None), tier=tier, error_lines=error_lines)
    triggers = intake.to_lesson(edit).triggers
    assert triggers.tool_names == gate
    assert (triggers.command_patterns, triggers.path_patterns) == ((), ())


def test_the_first_scope_tag_is_the_lessons_scope():
    """A candidate that names two projects (tags merged from two findings) is scoped to the
    first it named; the tags that carried the scopes stay out of the lesson's tags."""
    lesson = intake.to_lesson(_candidate(tags=("scope:alpha", "tool:pytest", "scope:beta")))
    assert lesson.scope == "alpha"
    assert lesson.tags == ("tool:pytest",)


def test_to_lesson_counts_evidence():
    """Provenance reflects every piece of evidence."""
    many = attrs.evolve(
        _candidate(),
        evidence=(Evidence("/a", 1, None, "s1"), Evidence("/b", 2, None, "s2")),
    )
    lesson = intake.to_lesson(many)
    assert lesson.provenance.occurrences == 2
    assert lesson.provenance.sessions == ("s1", "s2")


def test_heuristic_finding_of_a_reported_lesson_is_a_duplicate(store):
    """Tier 2 finding the mistake the agent already wrote a #lesson about (same session,
    same trigger) folds into that lesson, whatever the wording."""
    gate = Intake(store, Config())
    gate.admit(
        _candidate(
            tier=1,
            mistake="bare pytest is not on PATH here; it lives in the virtualenv",
            fix="run python -m pytest through the virtualenv's interpreter",
        )
    )
    outcome = gate.admit(_candidate(evidence=(Evidence("/t/a.jsonl", 9, "c2", "s1"),)))
    assert outcome.status == DUPLICATE
    assert len(store.list_lessons()) == 1
    assert store.list_candidates(status="pending") == []


@pytest.mark.parametrize("with_plugin", [True, False])
def test_alike_lessons_about_other_executables_are_not_folded(store, with_plugin):
    """``npm test`` and ``yarn test`` lessons share nearly every word; the executable in their
    triggers tells them apart, with the dedup plugin or the built-in similarity alike."""
    from lessons_core.builtin.dedup import find_duplicate

    sink = Intake(store, Config(), dedup=find_duplicate if with_plugin else None)
    words = "test runs jest in watch mode and never exits in a non-interactive shell"
    npm = _candidate(
        tier=1,
        trigger=r"\bnpm\b[^|;&\n]*?\btest\b",
        mistake=f"npm {words}",
        fix="pass --watchAll=false so jest runs once and exits",
    )
    yarn = attrs.evolve(
        npm,
        trigger=r"\byarn\b[^|;&\n]*?\btest\b",
        mistake=f"yarn {words}",
        evidence=(Evidence("/t/a.jsonl", 6, None, "s1"),),
    )
    again = attrs.evolve(npm, evidence=(Evidence("/t/b.jsonl", 3, None, "s2"),))
    assert sink.admit(npm).status == PROMOTED
    assert sink.admit(yarn).status == PROMOTED
    assert sink.admit(again).status == DUPLICATE  # the same executable still folds


@pytest.mark.parametrize("defer", [False, True])
def test_repeats_add_their_evidence_once_and_count_their_sessions(store, defer):
    """Hundreds of repeats merge into one candidate as they come (its evidence's keys and
    sessions kept between merges): each place is added once, and the bonus for a second
    session is given once, whether the merges are written at once or at the flush."""
    intake_ = Intake(store, Config(), defer_merges=defer)
    assert intake_.admit(_candidate()).status == NEW  # seen at line 5, call c1, session s1
    places = [
        (5, "c1", "s1"),
        (9, "c9", "s1"),
        (12, "c12", "s2"),
        (12, "c12", "s2"),
        (20, "c20", "s3"),
    ]
    for line, call, session in places:
        repeat = _candidate(evidence=(Evidence("/t/a.jsonl", line, call, session),))
        assert intake_.admit(repeat).status == DUPLICATE
    intake_.flush()
    (merged,) = store.list_candidates(status="pending")
    assert [(e.line, e.session_id) for e in merged.evidence] == [
        (5, "s1"),
        (9, "s1"),
        (12, "s2"),
        (20, "s3"),
    ]
    weights = Config().scoring
    assert merged.confidence == round(
        min(0.5 + weights.multi_session_bonus, weights.max_confidence), 3
    )


def test_texts_without_words_are_never_folded_by_the_built_in_similarity(store):
    """Two findings whose texts hold no word the measure reads (here, Japanese) are alike to
    nothing: two empty word sets are equal, but they give no evidence of the same lesson."""
    first = _candidate(
        summary="テストが見つからない",
        mistake="テストを実行したがコマンドが見つからなかった。仮想環境を使うこと。",
        fix="仮想環境の中から実行する。グローバルなコマンドは使わない。",
    )
    other = attrs.evolve(
        first,
        summary="依存関係が壊れている",
        mistake="ビルドが依存関係の不一致で失敗した。ロックファイルを更新すること。",
        fix="ロックファイルを作り直してから、もう一度ビルドする。",
        evidence=(Evidence("/t/b.jsonl", 9, "c7", "s2"),),
    )
    sink = Intake(store, Config())
    assert intake.rejection(first) is None and intake.rejection(other) is None
    assert sink.admit(first).status == NEW
    assert sink.admit(other).status == NEW
    assert len(store.list_candidates(status="pending")) == 2


def test_a_repeat_adds_where_it_was_seen_to_the_lesson(store):
    """A #lesson block seen again in another session and project: the lesson keeps both places
    (file, line, call, session, project), and a store opened again reads them back."""
    gate = Intake(store, Config())
    first = _candidate(tier=1, confidence=0.85, detector="tier1")
    assert gate.admit(first).status == PROMOTED
    repeat = _candidate(
        tier=1,
        confidence=0.85,
        detector="tier1",
        evidence=(Evidence("/t/b.jsonl", 7, None, "s2"),),
        project="/home/dev/other",
    )
    outcome = gate.admit(repeat)
    assert outcome.status == DUPLICATE
    (lesson,) = store.list_lessons()
    assert [
        (s.file, s.line, s.call_id, s.session_id, s.project) for s in lesson.provenance.evidence
    ] == [
        ("/t/a.jsonl", 5, "c1", "s1", "~/app"),
        ("/t/b.jsonl", 7, None, "s2", "~/other"),
    ]
    assert lesson.provenance.occurrences == 2
    assert outcome.lesson == lesson


def test_the_same_block_again_in_one_session_adds_no_place_and_no_offer(store):
    """A sub-agent replaying its parent (the same session, here from another directory) is not
    the mistake happening again: no count, no place, no project, no offer of every project."""
    gate = Intake(store, Config())
    assert gate.admit(_candidate(tier=1, confidence=0.85, detector="tier1")).status == PROMOTED
    (lesson,) = store.list_lessons()
    store.update_lesson(attrs.evolve(lesson, scope="app-1a2b3c4d"))
    replay = _candidate(
        tier=1,
        confidence=0.85,
        detector="tier1",
        evidence=(Evidence("/t/a/subagents/agent-1.jsonl", 3, None, "s1"),),
        project="/home/dev/app/docs",
    )
    outcome = Intake(store, Config()).admit(replay)
    assert outcome.status == DUPLICATE
    assert not outcome.offer
    (after,) = store.list_lessons()
    assert after.provenance.occurrences == 1
    assert after.provenance.projects == ("~/app",)
    assert [(s.file, s.line) for s in after.provenance.evidence] == [("/t/a.jsonl", 5)]


def test_a_scoped_lesson_seen_in_a_second_project_is_offered_for_every_project(store, tmp_path):
    """Scoped to one project and seen in another, the lesson is offered for every project; a
    repeat from the project it is scoped to offers nothing. Nothing is rescoped."""
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    gate = Intake(store, Config())
    first = _candidate(tier=1, confidence=0.85, detector="tier1", project=str(alpha))
    assert gate.admit(first).status == PROMOTED
    (lesson,) = store.list_lessons()
    from lessons_core.hot.project import project_id

    scope = project_id(str(alpha))
    store.update_lesson(attrs.evolve(lesson, scope=scope))
    gate = Intake(store, Config())
    same_project = _candidate(
        tier=1,
        detector="tier1",
        evidence=(Evidence("/t/c.jsonl", 2, None, "s3"),),
        project=str(alpha),
    )
    assert not gate.admit(same_project).offer
    other = _candidate(
        tier=1,
        detector="tier1",
        evidence=(Evidence("/t/b.jsonl", 7, None, "s2"),),
        project=str(beta),
    )
    outcome = gate.admit(other)
    assert outcome.status == DUPLICATE
    assert outcome.offer
    assert outcome.lesson is not None
    assert scope_offers.command(outcome.lesson) == f"lessons rescope {lesson.id} --global"
    (after,) = store.list_lessons()
    assert after.scope == scope
    assert scope_offers.offers(store.list_lessons()) == [after]


def test_one_lesson_found_with_a_fix_that_worked_and_one_that_failed_next_is_one_candidate(store):
    """The same tool, trigger and summary fold into one candidate however far the texts drift
    apart, and the surer finding's words are kept."""
    trigger = r"\brtk\b[^|;&\n]*?\bbun\b"
    common = {"tool": "Bash", "trigger": trigger, "summary": "bun: run it without `rtk`"}
    mistake = "`rtk bun run test` failed: `rtk` could not run `bun` (unrecognized subcommand)."
    failed_next = _candidate(
        **common,
        mistake=mistake,
        fix="Run `bun` without `rtk`: `bun run test` got past it (and then failed for a reason "
        "of its own: “[Parser] Multi-file validation warning: Issue Untitled missing file "
        "reference in multi-file context; the evaluator skipped seventeen fixtures”).",
        confidence=0.65,
        evidence=(Evidence("/t/a.jsonl", 5, "c1", "s1"),),
    )
    worked = _candidate(
        **common,
        mistake=mistake,
        fix="Run `bun` without `rtk`: `bun run test` worked.",
        confidence=0.75,
        evidence=(Evidence("/t/b.jsonl", 9, "c7", "s2"),),
    )
    sink = Intake(store, Config())
    assert sink.admit(failed_next).status == NEW
    outcome = sink.admit(worked)
    assert outcome.status == DUPLICATE
    (stored,) = store.list_candidates(status="pending")
    assert stored.fix == worked.fix
    assert [e.session_id for e in stored.evidence] == ["s1", "s2"]
    other = _candidate(**{**common, "summary": "bun: something else"}, mistake=mistake)
    assert Intake(store, Config()).admit(other).status == NEW


def test_a_trigger_the_compiler_would_refuse_is_named_unsafe():
    """What keeps an unsafe Tier 1 block from going live: a refused pattern or a broken glob."""
    assert intake.unsafe_trigger(_candidate(tier=1)) is None
    assert intake.unsafe_trigger(_candidate(tier=1, trigger="  ")) is None
    refused = _candidate(tier=1, trigger=r"\bnpm\b\s+(?:\S+\s*)*?\btest\b")
    assert intake.unsafe_trigger(refused) is not None
    broken = _candidate(tier=1, tool="Edit", trigger="src/[abc")
    assert "unclosed '['" in (intake.unsafe_trigger(broken) or "")


def test_a_new_candidate_offers_nothing(store):
    """Only a repeat from another project can offer a lesson for every project."""
    assert not Intake(store, Config()).admit(_candidate()).offer


def test_a_lesson_already_offered_is_not_offered_again_by_a_repeat_from_a_known_project(
    store, tmp_path
):
    """Seen in two projects, a scoped lesson is offered once: a repeat adding no project is not
    another offer."""
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    gate = Intake(store, Config())
    assert gate.admit(_candidate(tier=1, detector="tier1", project=str(alpha))).status == PROMOTED
    (lesson,) = store.list_lessons()
    from lessons_core.hot.project import project_id

    store.update_lesson(attrs.evolve(lesson, scope=project_id(str(alpha))))
    gate = Intake(store, Config())
    seen = (Evidence("/t/b.jsonl", 7, None, "s2"),)
    assert gate.admit(_candidate(tier=1, detector="tier1", evidence=seen, project=str(beta))).offer
    again = (Evidence("/t/d.jsonl", 4, None, "s4"),)
    outcome = gate.admit(_candidate(tier=1, detector="tier1", evidence=again, project=str(beta)))
    assert outcome.status == DUPLICATE
    assert not outcome.offer


def test_a_lesson_gains_each_bonus_once_at_its_second_session_and_project(store):
    """The session bonus comes with a second session, the project bonus with a second project;
    a repeat in the same session and project adds neither."""
    gate = Intake(store, Config())
    gate.admit(_candidate(tier=1, confidence=0.5))
    same = _candidate(evidence=(Evidence("/t/a.jsonl", 9, "c2", "s1"),))
    assert Intake(store, Config()).admit(same).status == DUPLICATE
    assert store.list_lessons()[0].confidence == pytest.approx(0.5)
    other_session = _candidate(evidence=(Evidence("/t/b.jsonl", 3, "c3", "s2"),))
    Intake(store, Config()).admit(other_session)
    assert store.list_lessons()[0].confidence == pytest.approx(0.6)
    other_project = _candidate(
        evidence=(Evidence("/t/c.jsonl", 3, "c4", "s2"),), project="/home/dev/other"
    )
    Intake(store, Config()).admit(other_project)
    assert store.list_lessons()[0].confidence == pytest.approx(0.7)


def test_the_same_finding_as_sure_as_the_first_keeps_the_first_words(store):
    """Only a surer finding of the same lesson replaces its words; an equal one adds evidence."""
    sink = Intake(store, Config())
    sink.admit(_candidate(confidence=0.5))
    other = _candidate(
        mistake="`pytest -k slow` failed (exit 127): pytest: command not found at all",
        fix="Call `.venv/bin/pytest -k slow` from the project root.",
        evidence=(Evidence("/t/a.jsonl", 9, "c2", "s1"),),
        confidence=0.5,
    )
    assert sink.admit(other).status == DUPLICATE
    (stored,) = store.list_candidates(status="pending")
    assert stored.mistake == _candidate().mistake
    assert stored.fix == _candidate().fix


def test_a_merged_confidence_keeps_three_decimals(store):
    """A candidate's confidence is rounded to thousandths, as the lesson's is, not hundredths."""
    sink = Intake(store, Config())
    sink.admit(_candidate(confidence=0.555))
    sink.admit(_candidate(evidence=(Evidence("/t/a.jsonl", 9, "c2", "s1"),), confidence=0.555))
    (stored,) = store.list_candidates(status="pending")
    assert stored.confidence == 0.555
    # A finer confidence is cut to thousandths when merged.
    sink.admit(_candidate(summary="other", trigger=r"\btox\b", confidence=0.61237))
    sink.admit(_candidate(summary="other", trigger=r"\btox\b", confidence=0.61237,
                          evidence=(Evidence("/t/a.jsonl", 12, "c3", "s1"),)))  # fmt: skip
    finer = next(c for c in store.list_candidates(status="pending") if c.summary == "other")
    assert finer.confidence == 0.612


def test_alike_candidates_with_other_summaries_fold_by_their_text(store):
    """Two findings of one mistake, summed up differently, fold by the similarity of their
    texts when tool and trigger agree."""
    sink = Intake(store, Config())
    sink.admit(_candidate())
    reworded = _candidate(
        summary="bare pytest is not installed",
        evidence=(Evidence("/t/b.jsonl", 2, "c5", "s2"),),
    )
    outcome = sink.admit(reworded)
    assert outcome.status == DUPLICATE
    assert outcome.reason.startswith("repeats candidate")
    assert len(store.list_candidates(status="pending")) == 1


def test_a_candidate_another_scan_stored_meanwhile_is_merged_into(store):
    """Two scans at once: the one that did not see the other's candidate adds its evidence to
    that row, and says so, rather than counting a new candidate."""
    late = Intake(store, Config())
    unrelated = _candidate(
        tool="Read",
        trigger="**/*.lock",
        mistake="Read a lock file that is generated and never edited by hand",
        fix="Edit the manifest and run the lock command to regenerate it.",
        summary="lock files are generated",
    )
    assert late.admit(unrelated).status == NEW  # loads what the store held then
    assert Intake(store, Config()).admit(_candidate()).status == NEW
    outcome = late.admit(_candidate(evidence=(Evidence("/t/b.jsonl", 2, "c5", "s2"),)))
    assert outcome.status == DUPLICATE
    assert outcome.reason == "merged into an equal candidate"


def test_a_text_half_alike_to_a_lesson_repeats_it(store):
    """Similarity is counted from one half up: a repeat sharing half of the words repeats it."""
    words = {
        "summary": "alpha bravo",
        "mistake": "charlie delta echo foxtrot",
        "fix": "golf hotel india juliet kilo lima",
    }
    Intake(store, Config()).admit(_candidate(tier=1, **words))
    half = _candidate(
        summary="alpha bravo",
        mistake="charlie delta echo foxtrot",
        fix="alpha bravo charlie delta echo foxtrot",
        evidence=(Evidence("/t/b.jsonl", 2, "c5", "s2"),),
    )
    outcome = Intake(store, Config()).admit(half)
    assert outcome.status == DUPLICATE
    assert outcome.reason.startswith("repeats lesson")


def test_a_lesson_is_scoped_as_its_tags_say_unless_a_scope_is_chosen():
    """A detector's scope tag scopes the lesson; a scope chosen in review replaces it."""
    tagged = _candidate(tags=("scope:p-1234", "python"))
    assert intake.to_lesson(tagged).scope == "p-1234"
    assert intake.to_lesson(tagged, scope=None).scope is None
    assert intake.to_lesson(tagged, scope="p-9").scope == "p-9"
    assert intake.to_lesson(tagged).tags == ("python",)


def test_a_broken_dedup_plugin_is_logged_with_its_traceback():
    """The scan goes on with the built-in similarity, and the log says where the plugin broke."""

    class Broken:
        def dedup(self):
            raise RuntimeError("index missing")

    with structlog.testing.capture_logs() as logs:
        assert intake.dedup_backend(Broken()) is None
    (entry,) = [e for e in logs if e["event"] == "intake.dedup_unavailable"]
    assert entry["exc_info"] is True


#: A token of the shape a GitHub personal access token has (made up).
_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_trigger_unsafe_only_once_its_secret_is_redacted_is_refused_for_that() -> None:
    """Redaction can turn a safe pattern into an unsafe one (the secret's literal becomes a
    repeat inside a repeated group): what would be stored is judged, and the refusal says the
    secret was the cause. A trigger without a secret is left to the intake's own check."""
    from lessons_core.testing import contract_candidate

    base = attrs.evolve(contract_candidate(1), tool="Bash")
    secret = attrs.evolve(base, trigger=r"(?:\w+" + _TOKEN + r")+x")
    said = intake.scrubbed_or_refused(secret)
    assert isinstance(said, str)
    assert said.startswith("trigger held a secret, and once redacted would be refused")
    plain = attrs.evolve(base, trigger=r"(?:\w+y)+x")  # unsafe, but nothing was redacted
    kept = intake.scrubbed_or_refused(plain)
    assert isinstance(kept, Candidate) and kept.trigger == plain.trigger


# -- findings that wait to come back --------------------------------------------------------------


def _guess(session: str, line: int = 5, **kw) -> Candidate:
    """A guessed path: a lesson only once the same guess comes back in another session."""
    base = {
        "trigger": r"(?<![\w.-])hooks/use\-list\.ts(?![\w.-])",
        "mistake": "`sed -n 1,20p src/hooks/use-list.ts` failed: the path was guessed.",
        "fix": "Look for `use-list.ts` at `src/ui/hooks/use-list.ts` in this project.",
        "summary": "sed: `use-list.ts` is at `src/ui/hooks/use-list.ts`",
        "tags": (intake.RECURS_TAG,),
        "evidence": (Evidence(f"/t/{session}.jsonl", line, f"c{line}", session),),
    }
    base.update(kw)
    return _candidate(**base)


@pytest.mark.parametrize("defer", [False, True])
def test_a_guess_waits_out_of_review_until_it_comes_back_in_another_session(store, defer):
    """Seen once, or again in the same session, the guess waits, listed under its own status
    and not offered for review. From another session of the same project it merges and
    becomes pending, reported as new; from another project it is a guess of its own."""
    sink = Intake(store, Config(), defer_merges=defer)
    first = sink.admit(_guess("s1"))
    assert (first.status, first.candidate.status) == (intake.WAITING, intake.WAITING)
    assert sink.admit(_guess("s1", line=9)).status == DUPLICATE
    elsewhere = sink.admit(_guess("s9", project="/srv/other"))
    assert elsewhere.status == intake.WAITING
    sink.flush()
    assert store.list_candidates(status="pending") == []
    assert len(store.list_candidates(status=intake.WAITING)) == 2

    back = sink.admit(_guess("s2"))
    assert back.status == NEW
    assert back.candidate.status == "pending"
    sink.flush()
    (pending,) = store.list_candidates(status="pending")
    assert pending.id == first.candidate.id
    assert [e.session_id for e in pending.evidence] == ["s1", "s1", "s2"]
    (still,) = store.list_candidates(status=intake.WAITING)
    assert still.project == "/srv/other"


def test_a_guess_and_an_ordinary_finding_never_fold_into_each_other(store):
    """Even with the same words, a finding that waits and one that does not are two: the one
    must not reach review on the other's evidence, nor the other wait on the first's."""
    sink = Intake(store, Config())
    assert sink.admit(_guess("s1")).status == intake.WAITING
    assert sink.admit(_guess("s2", tags=())).status == NEW
    assert sink.admit(_guess("s3", tags=())).status == DUPLICATE
    assert sink.admit(_guess("s1", line=8)).status == DUPLICATE
    (pending,) = store.list_candidates(status="pending")
    assert [e.session_id for e in pending.evidence] == ["s2", "s3"]
    (waiting,) = store.list_candidates(status=intake.WAITING)
    assert [e.session_id for e in waiting.evidence] == ["s1", "s1"]
