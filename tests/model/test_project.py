"""Project ids from real git repositories made in tmp_path."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import pytest

from lessons_core.hot.project import normalize_remote, project_id

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd, *args):
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )


def path_form(directory) -> str:
    absolute = os.path.abspath(directory)
    return f"{os.path.basename(absolute)}-{hashlib.sha1(absolute.encode()).hexdigest()[:8]}"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "widgets"
    root.mkdir()
    git(root, "init", "-q")
    return root


def test_repo_without_remote_is_named_by_basename_and_path_hash(repo):
    """No origin: the root's basename plus 8 hex of sha1(absolute path)."""
    assert project_id(str(repo)) == path_form(repo)


def test_subdirectories_share_the_root_id(repo):
    """The id is the repository's, wherever in it the agent works."""
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert project_id(str(deep)) == project_id(str(repo))


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/widgets.git",
        "git@github.com:acme/widgets.git",
        "ssh://git@github.com/acme/widgets",
        "https://x-access-token:abc123@GitHub.com/acme/widgets/",
    ],
)
def test_origin_remote_names_the_project(repo, url):
    """https and ssh clones of one repository get the same id, credentials dropped."""
    git(repo, "remote", "add", "origin", url)
    assert project_id(str(repo / ".")) == "github.com/acme/widgets"


def test_other_remotes_do_not_count(repo):
    """Only origin names a project; an upstream alone leaves the path form."""
    git(repo, "remote", "add", "upstream", "https://github.com/other/widgets.git")
    assert project_id(str(repo)) == path_form(repo)


def test_origin_after_other_sections_is_found(repo):
    """The parser walks sections; origin after upstream and a branch section is found."""
    git(repo, "remote", "add", "upstream", "https://github.com/other/widgets.git")
    git(repo, "config", "branch.main.remote", "upstream")
    git(repo, "remote", "add", "origin", "git@gitlab.example.com:group/sub/widgets.git")
    assert project_id(str(repo)) == "gitlab.example.com/group/sub/widgets"


def test_linked_worktree_reads_the_main_repositorys_config(repo, tmp_path):
    """A worktree has a .git *file*; its id comes from the shared config."""
    git(repo, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
    )
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    assert project_id(str(worktree)) == "github.com/acme/widgets"


def test_local_path_remote_falls_back_to_the_path_form(repo, tmp_path):
    """A remote that is a directory on this machine has no host to name the project by."""
    git(repo, "remote", "add", "origin", str(tmp_path / "bare.git"))
    assert project_id(str(repo)) == path_form(repo)


def test_directory_outside_any_repository(tmp_path):
    """Outside git the directory itself is named the path way."""
    plain = tmp_path / "scratch"
    plain.mkdir()
    assert project_id(str(plain)) == path_form(plain)


@pytest.mark.parametrize("cwd", [None, ""])
def test_no_cwd_gives_none(cwd):
    """Nothing to go on: no id."""
    assert project_id(cwd) is None


def test_missing_directory_gives_none(tmp_path):
    """A cwd that does not exist (and is in no repository) has no id."""
    assert project_id(str(tmp_path / "gone")) is None


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/acme/widgets.git", "github.com/acme/widgets"),
        ("http://GITEA.local:3000/acme/Widgets", "gitea.local/acme/Widgets"),
        ("git@github.com:acme/widgets.git", "github.com/acme/widgets"),
        ("ssh://git@github.com:2222/acme/widgets.git/", "github.com/acme/widgets"),
        ("git+ssh://git@host.example/acme/widgets", "host.example/acme/widgets"),
        ("https://user:pass@bitbucket.org/team/repo.git", "bitbucket.org/team/repo"),
        ("https://[::1]:8080/acme/w.git", "[::1]/acme/w"),
        ("file:///srv/git/widgets.git", None),
        ("/srv/git/widgets.git", None),
        ("C:/git/widgets", None),
        ("../widgets", None),
        ("https://github.com/", None),
    ],
)
def test_normalize_remote(url, expected):
    """Scheme, credentials, port, trailing slash and .git go; the host is lower-cased."""
    assert normalize_remote(url) == expected
