"""The build with lesson sources: the generic hook, how source lessons meet the store's, and
the repository source through the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from lessons_core.cli.main import cli
from lessons_core.compiler.build import build
from lessons_core.compiler.sources import merge, read_sources, with_sources
from lessons_core.models import Config, Status
from lessons_core.plugin import hookimpl
from lessons_core.plugins.manager import Plugins, get_plugin_manager
from lessons_core.plugins.specs import LessonSourceSpec, SourceLessons
from lessons_core.repomem.repository import write_lesson
from lessons_core.testing import contract_lesson


def test_a_source_lesson_never_stands_in_for_the_users_copy() -> None:
    mine = contract_lesson(1, id="A1", slug="a")
    other = contract_lesson(2, id="B2", slug="b")
    shared = attrs.evolve(mine, scope="github.com/acme/widgets", remediation="the team's")
    merged = merge([mine, other], [shared])
    assert merged.lessons == [mine, other]
    assert len(merged.suggestions) == 1
    assert "asks to rewrite your lesson a (A1)" in merged.suggestions[0]


def test_same_content_under_another_id_is_delivered_once_as_the_user_has_it() -> None:
    mine = contract_lesson(1, id="A1", slug="a")
    theirs = attrs.evolve(mine, id="R9", scope="github.com/acme/widgets")
    assert with_sources([mine], [theirs]) == [mine]
    assert merge([mine], [theirs]).suggestions == ()


def test_a_copy_scoped_to_another_project_is_kept() -> None:
    mine = contract_lesson(1, id="A1", slug="a", scope="github.com/acme/other")
    theirs = attrs.evolve(mine, id="R9", scope="github.com/acme/widgets")
    assert with_sources([mine], [theirs]) == [mine, theirs]


class _Source:
    def __init__(self, name: str, lessons: tuple = (), fail: bool = False):
        self.name, self.lessons, self.fail = name, lessons, fail

    @hookimpl
    def lessons_register_lesson_sources(self, register):
        def load(*, config, home):
            if self.fail:
                raise RuntimeError("the share is offline")
            return SourceLessons(self.lessons, f"rev-{self.name}", (f"{self.name}: a note",))

        register(LessonSourceSpec(name=self.name, load=load))


def _plugins(*sources: _Source) -> Plugins:
    pm = get_plugin_manager({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    for source in sources:
        pm.register(source, name=f"test-{source.name}")
    return Plugins(pm)


def test_sources_are_read_failures_and_clashes_named(home: Path) -> None:
    one = contract_lesson(1, id="S1", slug="s1", scope="p")
    clash = contract_lesson(2, id="S1", slug="s2", scope="p")
    plugins = _plugins(
        _Source("alpha", (one,)), _Source("beta", (clash,)), _Source("gamma", fail=True)
    )
    got = read_sources(plugins, Config(), home)
    assert len(got.lessons) == 1  # the first source called keeps the id
    assert got.revisions["alpha"] == "rev-alpha" and "gamma" not in got.revisions
    text = "\n".join(got.problems)
    assert "'gamma' failed: RuntimeError: the share is offline" in text
    assert "the id is taken by a lesson of source" in text
    assert "alpha: a note" in text


def test_build_compiles_source_lessons_and_records_revisions(home: Path, store) -> None:
    (mine,) = store.add_lessons([contract_lesson(1)])
    theirs = attrs.evolve(mine, scope="github.com/acme/widgets", summary="the team's summary")
    disabled = contract_lesson(3, id="S3", slug="s3", status=Status.DISABLED)
    result = build(store, Config(), home, _plugins(_Source("team", (theirs, disabled))))
    manifest = result.manifest
    assert list(manifest["lessons"]) == [mine.id]
    assert "scope" not in manifest["lessons"][mine.id]  # the user's global copy, unchanged
    assert manifest["sources"]["team"] == "rev-team"
    assert result.source_problems == ("team: a note",)
    assert len(result.source_notices) == 1
    assert "asks to rewrite your lesson" in result.source_notices[0]
    written = json.loads((home / "lesson-manifest.json").read_text())
    assert written["fingerprint"] == manifest["fingerprint"]


def test_no_plugins_no_sources(home: Path, store) -> None:
    store.add_lessons([contract_lesson(1)])
    assert "sources" not in build(store, Config(), home).manifest


# -- the repository source through the CLI --------------------------------------------------------


@pytest.fixture(name="repo")
def fixture_repo(tmp_path: Path) -> Path:
    root = tmp_path / "widgets"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    return root


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_repo_add_list_forget(repo: Path, home: Path, tmp_path: Path) -> None:
    other_home = tmp_path / "teammate"
    write_lesson(repo, contract_lesson(1, id="T1", slug="team-one-ab12"), other_home)
    # A clone is not trusted by being present: nothing is delivered before 'repo add'.
    assert run("build").exit_code == 0
    assert json.loads((home / "lesson-manifest.json").read_text())["lessons"] == {}
    listed = run("repo", "list", str(repo))
    assert listed.exit_code == 0 and "team-one-ab12.md" in listed.output
    added = run("repo", "add", str(repo))
    assert added.exit_code == 0, added.output
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert list(manifest["lessons"]) == ["T1"]
    assert run("repo", "list", "--all").output.count("team-one-ab12") == 1
    assert run("repo", "check", str(repo)).exit_code == 0
    forgot = run("repo", "forget", str(repo))
    assert forgot.exit_code == 0, forgot.output
    assert json.loads((home / "lesson-manifest.json").read_text())["lessons"] == {}


def test_blocking_the_plugin_switches_it_off(repo: Path, home: Path, monkeypatch) -> None:
    write_lesson(repo, contract_lesson(1, id="T1", slug="team-one-ab12"), home)
    monkeypatch.setenv("LESSONS_DISABLED_PLUGINS", "repo_memory")
    assert run("build").exit_code == 0
    assert json.loads((home / "lesson-manifest.json").read_text())["lessons"] == {}


def test_promote_a_candidate_to_the_repo(repo: Path, home: Path, store) -> None:
    from lessons_core.testing import contract_candidate

    candidate = store.add_candidate(contract_candidate(5, summary="step five fails"))
    result = run("promote", candidate.id, "--to-repo", "--repo", str(repo), "--json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)
    assert row["status"] == "created" and Path(row["path"]).is_file()
    assert store.get_candidate(candidate.id).status == "promoted"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("promote", "nothing-here", "--to-repo"), "no lesson or candidate"),
        (("promote", "x", "--repo", "."), "--repo goes with --to-repo"),
    ],
)
def test_promote_errors(repo: Path, home: Path, monkeypatch, args, words) -> None:
    monkeypatch.chdir(repo)
    result = run(*args)
    assert result.exit_code == 1
    assert words in result.output


def test_outside_a_repository(tmp_path: Path, home: Path, monkeypatch) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    for args in (("repo", "list"), ("promote", "x", "--to-repo"), ("repo", "add")):
        result = run(*args)
        assert result.exit_code == 1
        assert "not inside a git repository" in result.output
    result = run("repo", "list", "--all")
    assert result.exit_code == 1 and "no repository is included" in result.output


def test_a_missing_included_repository_is_named(repo: Path, home: Path) -> None:
    assert run("repo", "add", str(repo)).exit_code == 0
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    result = run("build")
    assert result.exit_code == 1
    assert "no longer exists" in result.output


def test_the_source_spec_is_listed_by_plugins(home: Path) -> None:
    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert "repo" in plugins.lesson_sources()
    assert plugins.registered_by("lessons_core.builtin.repo_memory") == {"lesson sources": ["repo"]}


def test_doctor_tells_a_manifest_behind_its_sources(repo: Path, home: Path) -> None:
    import os

    from lessons_core.cli.doctor_cmds import _check_sources

    path = write_lesson(repo, contract_lesson(1, id="T1", slug="team-one-ab12"), home).path
    assert run("build").exit_code == 0
    env = dict(os.environ)
    assert _check_sources(env, home) is None
    path.write_text(path.read_text().replace("do the right thing 1", "merged text"))
    finding = _check_sources(env, home)
    assert finding is not None and finding.status == "fail"
    assert "'repo'" in finding.detail and "run `lessons build`" in finding.fix
    assert run("build").exit_code == 0
    assert _check_sources(env, home) is None


def test_a_build_without_included_repositories_imports_no_yaml(home: Path) -> None:
    """Every build asks the repository source; without a repository it reads no file."""
    import sys

    script = (
        "import sys\n"
        "from lessons_core import services\n"
        "with services.session() as s:\n"
        "    s.rebuild_manifest()\n"
        "print('yaml' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert proc.stdout.strip() == "False"
    assert json.loads((home / "lesson-manifest.json").read_text())["sources"]["repo"]


def test_a_refused_write_leaves_the_earlier_ones_delivered(repo: Path, home: Path, store) -> None:
    first, second = store.add_lessons([contract_lesson(1), contract_lesson(2)])
    (repo / ".lessons").mkdir()
    (repo / ".lessons" / f"{second.slug}.md").write_text("a teammate's file\n")
    result = run("promote", first.slug, second.slug, "--to-repo", "--repo", str(repo))
    assert result.exit_code == 1 and "someone else" in result.output
    assert (repo / ".lessons" / f"{first.slug}.md").is_file()
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert "scope" not in manifest["lessons"][first.id]  # the user's own copy stays in place
    assert "repo" in manifest["sources"]  # and the repository is included
    assert (repo / ".lessons" / f"{second.slug}.md").read_text() == "a teammate's file\n"


def test_a_scan_rebuilds_when_a_repository_changed(repo: Path, home: Path) -> None:
    """The background scan (started by the session-start hook) catches up after a merge."""
    path = write_lesson(repo, contract_lesson(1, id="T1", slug="team-one-ab12"), home).path
    assert run("build").exit_code == 0
    before = json.loads((home / "lesson-manifest.json").read_text())["sources"]["repo"]
    path.write_text(path.read_text().replace("do the right thing 1", "merged text"))
    result = run("scan")  # no transcripts at all: nothing promoted, the sources moved
    assert result.exit_code == 0, result.output
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert manifest["sources"]["repo"] != before  # rebuilt ...
    assert "T1" not in manifest["lessons"]  # ... and the changed file waits for the user
    assert run("repo", "trust", str(repo)).exit_code == 0
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert "merged text" in manifest["lessons"]["T1"]["text"]
