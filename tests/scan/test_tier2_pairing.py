"""Tier 2's backbone: a failing call paired with the later call of the same command that worked,
and the lesson drawn from what changed between them (a flag, a wrapper, the quoting, the
working directory, the sandbox's permissions), whether or not a failure class knows the error.

Every transcript here is written for the test: the shapes are the agents', the words ours.
"""

from __future__ import annotations

import json

import pytest

from lessons_core.scan import events as ev
from lessons_core.scan import intake
from lessons_core.scan.detectors import failures, tier2, triggers
from lessons_core.scan.detectors.tier2 import calls, pairing, recall
from lessons_core.scan.detectors.tier2.finding import Finding

ERR = ev.ERROR


def _detect(script):
    return list(tier2.detect(script.events))


def _bash(command: str) -> ev.Event:
    """A Bash call of ``command``, for the helpers that read one call."""
    return ev.Event(kind=ev.TOOL_CALL, agent="claude", tool="Bash", command=command)


def _one(script):
    found = _detect(script)
    assert len(found) == 1, found
    return found[0]


def _fires(candidate, failing: str, fixed: str) -> None:
    """The trigger fires on the wrong call and not on its fix."""
    assert candidate.trigger is not None
    assert triggers.matches(candidate.trigger, failing), candidate.trigger
    assert not triggers.matches(candidate.trigger, fixed), candidate.trigger


def _reaches(candidate, others=(), not_others=()) -> None:
    """The trigger fires on each of ``others`` too, and on none of ``not_others``."""
    for other in others:
        assert triggers.matches(candidate.trigger, other), other
    for other in not_others:
        assert not triggers.matches(candidate.trigger, other), other


def _teaches(
    script, bad, error, good, *, summary=None, others=(), not_others=(), failure=ERR, code=1
):
    """The failing call and its fix teach one lesson (with ``summary``), whose trigger fires on
    the failing call and ``others``, and not on the fix or ``not_others``."""
    script.run(bad, error, failure=failure, code=code)
    script.run(good, "ok")
    candidate = _one(script)
    if summary is not None:
        assert candidate.summary == summary
    _fires(candidate, bad, good)
    _reaches(candidate, others, not_others)
    return candidate


# -- wrappers -----------------------------------------------------------------------------------


def test_a_wrapper_that_cannot_run_the_command_is_dropped_by_the_fix(script):
    """``rtk bun …`` refused (the wrapper has no ``bun``), ``bun …`` alone worked: the lesson
    names the wrapper around the command, and never fires on the command alone. ``which bash
    zsh`` names commands without running them: a later ``bash`` is no fix of it."""
    script.run("which bash zsh", "/bin/bash\nzsh not found", failure=ERR, code=1)
    script.run("bash -c 'echo $SHELL'", "/bin/bash")
    bad, good = "rtk bun run test 2>&1", "bun run test 2>&1"
    script.run(
        bad, "error: unrecognized subcommand 'bun'\nUsage: rtk [OPTIONS]", failure=ERR, code=2
    )
    script.run(good, "12 pass\n0 fail")
    candidate = _one(script)
    assert candidate.summary == "bun: `rtk` has no `bun` subcommand"
    assert "`rtk` has no `bun` subcommand (“error: unrecognized subcommand" in candidate.mistake
    assert candidate.fix.startswith("Run `bun` without `rtk` (or through a runner subcommand")
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "bun test")
    # The other way out of the same refusal (the wrapper's own runner) is no mistake.
    assert not triggers.matches(candidate.trigger, "rtk test bun run test")


def test_a_refusal_of_another_word_is_not_the_wrapper_refusing_the_command(script):
    """``rtk gain bun test`` refused ``gain``, not ``bun``: whatever the fix dropped, the lesson
    does not say the wrapper has no ``bun`` subcommand."""
    script.run("rtk gain bun test", "error: unrecognized subcommand 'gain'", failure=ERR, code=2)
    script.run("bun test", "12 pass")
    candidate = _one(script)
    assert "no `bun` subcommand" not in candidate.summary + candidate.mistake


def test_the_wrapper_refused_the_command_only_for_a_finding_with_that_wrapper(script):
    """``wrapper_refused`` asks whether the wrapper a fix dropped is the one that refused the
    command as its subcommand: the same refusal says nothing without a wrapper, nor for a
    call with no command line, nor for a wrapper around another command."""
    script.run("rtk bun run test", "error: unrecognized subcommand 'bun'", failure=ERR, code=2)
    script.call("Skill", "error: unrecognized subcommand 'bun'", failure=ERR)
    call, result, skill, refusal = script.events
    finding = Finding(call, result)
    assert recall.wrapper_refused(finding) is False
    finding.wrapper = ("dropped", "rtk", "bun")
    assert recall.wrapper_refused(finding) is True
    finding.wrapper = ("dropped", "rtk", "node")
    assert recall.wrapper_refused(finding) is False
    no_command = Finding(skill, refusal)
    no_command.wrapper = ("dropped", "rtk", "bun")
    assert recall.wrapper_refused(no_command) is False


def test_a_wrapper_that_runs_commands_through_a_subcommand_of_its_own(script):
    """``rtk bun …`` refused (``bun`` is no subcommand of the wrapper), ``rtk test bun …``
    worked: the wrapper stayed and its runner subcommand went in before the command. The
    lesson names that runner; its trigger is the command right after the wrapper, never the
    fix nor the command alone."""
    bad, good = "rtk bun run test 2>&1", "rtk test bun run test 2>&1"
    script.run(
        bad, "error: unrecognized subcommand 'bun'\nUsage: rtk [OPTIONS]", failure=ERR, code=2
    )
    script.run(good, "12 pass\n0 fail")
    candidate = _one(script)
    # The same lesson as the wrapper dropped instead: one mistake, two ways out.
    assert candidate.summary == "bun: `rtk` has no `bun` subcommand"
    assert "`rtk` has no `bun` subcommand" in candidate.mistake
    assert candidate.fix.startswith("Run `bun` through `rtk test` (or without `rtk`)")
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "bun run test")

    # A runner word the other call's command line holds with its other words changed is
    # another command, not the refused one run through the runner.
    other = type(script)(session="s2")
    other.run(bad, "error: unrecognized subcommand 'bun'", failure=ERR, code=2)
    other.run("rtk lint bun run lint 2>&1", "ok")
    assert all("rtk lint" not in c.summary for c in _detect(other))


def test_a_runner_word_the_fix_put_before_the_refused_subcommand(script):
    """``uv pytest`` refused as an unknown subcommand, ``uv run pytest`` worked: the runner's
    word went in, all else kept. An error that does not quote the word is not about it."""
    bad, good = "uv pytest -x tests", "uv run pytest -x tests"
    script.run(bad, "error: unrecognized subcommand 'pytest'", failure=ERR, code=2)
    script.run(good, "3 passed")
    candidate = _one(script)
    assert candidate.summary == "pytest: `uv` has no `pytest` subcommand"
    _fires(candidate, bad, good)

    unquoted = type(script)(session="s2")
    unquoted.run(bad, "error: unrecognized subcommand", failure=ERR, code=2)
    unquoted.run(good, "3 passed")
    assert all("through `uv run`" not in c.summary for c in _detect(unquoted))


_GRAPHQL = (
    "GraphQL: Projects (classic) is being deprecated in favor of the new Projects experience."
    " (repository.pullRequest.projectCards)"
)


def test_a_gh_command_failing_on_its_own_graphql_query_fixed_through_gh_api(script):
    """``gh pr edit 12`` failed on a GraphQL field of gh's own, twice; the pull request was
    read, then changed with ``gh api`` on ``pulls/12``: the lesson is the REST call, recalled
    by gh's GraphQL line (nothing in ``gh pr edit`` tells the failing repository). ``gh pr
    view`` in between reads the pull request: it is not the fix."""
    bad = "gh pr edit 12 --body-file body.md"
    script.run(bad, _GRAPHQL, failure=ERR, code=1)
    script.run("gh pr view 12 --json body", '{"body": "old"}')
    script.run(bad, _GRAPHQL, failure=ERR, code=1)
    script.run('gh api repos/o/r/pulls/12 -X PATCH -f body="$(cat body.md)"', '{"number": 12}')
    candidate = _one(script)
    assert (
        candidate.summary == "gh pr edit: use `gh api` when it fails on a GraphQL query of its own"
    )
    assert [e.call_id for e in candidate.evidence] == ["c1", "c5"]
    assert candidate.trigger is None
    assert candidate.error_lines == (_GRAPHQL,)
    assert candidate.mistake.startswith(f"`{bad}` failed")
    assert "gh api repos/o/r/pulls/12 -X PATCH" in candidate.fix


@pytest.mark.parametrize(
    ("failing", "fixed"),
    [
        ("gh pr edit 12 --add-label x", "gh api repos/o/r/pulls/13 -X PATCH -f title=y"),
        ("gh issue edit 12 --add-label x", "gh api repos/o/r/pulls/12 -X PATCH -f title=y"),
        ("gh pr edit --add-label x", "gh api repos/o/r/pulls/12 -X PATCH -f title=y"),
    ],
)
def test_a_gh_api_call_on_another_number_or_kind_is_no_fix(script, failing, fixed):
    """Another number, an issue's number in the pulls collection, or a command that named no
    number: the ``gh api`` call is another task, and no GraphQL lesson is drawn."""
    script.run(failing, _GRAPHQL, failure=ERR, code=1)
    script.run(fixed, "{}")
    assert all("GraphQL" not in c.summary for c in _detect(script))


def test_a_gh_command_that_worked_again_without_gh_api_is_no_graphql_lesson(script):
    """The same ``gh pr edit`` with other options worked: gh's query was no obstacle to route
    around, whatever its GraphQL line said."""
    script.run("gh pr edit 12 --add-project Roadmap", _GRAPHQL, failure=ERR, code=1)
    script.run("gh pr edit 12 --add-label roadmap", "https://github.com/o/r/pull/12")
    assert all("GraphQL" not in c.summary for c in _detect(script))


def test_the_error_is_read_for_a_configured_option_up_to_1500_characters(script):
    """An option the command line holds, named at the very end of the part of the error that
    is read, is the command's own: a trigger on it, not a lesson recalled at the error."""
    tail = "pytest: error: unrecognized arguments: --cov"
    error = "x" * (1500 - len(tail) - 1) + "\n" + tail
    script.run("pytest --cov tests", error, failure=ERR, code=4)
    script.run("pytest tests", "5 passed")
    candidate = _one(script)
    assert candidate.trigger is not None and triggers.matches(candidate.trigger, "pytest --cov x")


def test_a_failing_call_that_loaded_the_env_file_already_is_no_environment_lesson(script):
    script.run("source .env && python3 app.py", "KeyError: 'APP_MODE'", failure=ERR)
    script.run("APP_MODE=dev python3 app.py", "ok")
    assert not any("is not set" in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "code", "good", "summary"),
    [
        ("docker compose up -d", "docker: 'compose' is not a docker command.", 1,
         "docker-compose up -d", "docker compose: a subcommand or script that does not exist"),
        ("git lfs pull", "git: 'lfs' is not a git command. See 'git --help'.", 1,
         "git-lfs pull", "git lfs: a subcommand or script that does not exist"),
        ("docker-compose up -d", "bash: docker-compose: command not found", 127,
         "docker compose up -d", "docker-compose up: the command is not on PATH"),
        # A program Debian installs under another name.
        ("fd -e ts src", "bash: fd: command not found", 127, "fdfind -e ts src",
         "fd: the command is not on PATH"),
        # A plugin whose own name holds a dash: the CLI's name is the part before the first.
        ("kubectl node-shell web", 'error: unknown command "node-shell" for "kubectl"', 1,
         "kubectl-node-shell web", "kubectl node-shell: a subcommand or script that does not"
         " exist"),
    ],
)  # fmt: skip
def test_a_cli_plugin_by_its_other_name(script, bad, error, code, good, summary):
    """A CLI's plugin goes by two names (``docker compose``, ``docker-compose``), and a machine
    has one of them: the failing form corrected into the other is one call, whose lesson fires
    on the failing form only. A program not on PATH at all is named where it starts the
    command, not anywhere in it."""
    script.run(bad, error, failure=ERR, code=code)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert f"`{good}` worked" in candidate.fix
    _fires(candidate, bad, good)


def test_another_name_is_no_other_command_with_a_dash(script):
    """``docker compose`` refused, then ``docker-buildx build``: a plugin of another name is
    another task. So is ``npm-check`` after ``npm run check`` failed."""
    script.run("docker compose up -d", "docker: 'compose' is not a docker command.", failure=ERR,
               code=1)  # fmt: skip
    script.run("docker-buildx build .", "ok")
    script.run("npm run check:all", 'npm error Missing script: "check:all"', failure=ERR, code=1)
    script.run("npm-check --skip-unused", "ok")
    assert _detect(script) == []


def test_a_tool_only_reachable_through_a_wrapper(script):
    """A failure no class knows (npm's placeholder ``tsc``), fixed by the same command through
    ``pnpm exec``: the trigger is the tool run bare, first in its command."""
    bad, good = "tsc --noEmit", "pnpm exec tsc --noEmit"
    script.run(bad, "This is not the tsc command you are looking for", failure=ERR, code=1)
    script.run(good, "")
    candidate = _one(script)
    assert candidate.summary == "tsc: run it through `pnpm`"
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "cd web && tsc -p .")


def test_a_command_with_a_subcommand_run_through_a_wrapper_past_a_shared_cd(script):
    """The global ``serverless`` refused to run; the project's own one, through ``npx``, did.
    Both lines start with the same ``cd``, and ``serverless deploy`` wraps no ``deploy``."""
    bad = "cd /p/orders && serverless deploy --stage dev"
    good = "cd /p/orders && npx serverless deploy --stage dev"
    script.run(
        bad,
        "✖ You must sign in or use a license key with Serverless Framework V.4 and later "
        'versions. Please use "serverless login".',
        failure=ERR,
        code=1,
    )
    script.run("cd /p/orders && which serverless && serverless --version", "Framework 4.4.7")
    script.run(good, "✔ Service deployed to stack orders-dev (87s)")
    candidate = _one(script)
    assert candidate.summary == "serverless: run it through `npx`"
    _fires(candidate, bad, good)


@pytest.mark.parametrize(
    ("failing", "fixed", "added"),
    [
        ("cd app && tsc -p .", "cd app && pnpm exec tsc -p .", ("added", "pnpm", "tsc")),
        ("rake db:migrate", "bundle exec rake db:migrate", ("added", "bundle", "rake")),
        # more changed than the wrapper: another folder, a step in front, other words
        ("cd app && tsc -p .", "cd web && pnpm exec tsc -p .", None),
        ("tsc -p .", "pnpm i && pnpm exec tsc -p .", None),
        ("tsc -p .", "pnpm exec tsc -p tsconfig.json", None),
        # a variable set in front, whose value holds a space, is no wrapper
        (
            "node s.mjs https://x",
            'NODE_EXTRA_CA_CERTS="$(mkcert -CAROOT)/rootCA.pem" node s.mjs https://x',
            None,
        ),
    ],
)
def test_a_wrapper_added_in_front_of_the_same_words(failing, fixed, added):
    assert calls._wrapper_added(_bash(failing), _bash(fixed)) == added


@pytest.mark.parametrize("edited", [False, True])
def test_a_build_that_fails_until_run_through_a_version_manager(script, edited):
    """A compile error, then the same build through ``mise exec --`` with no file edited: the
    toolchain the wrapper picks was the difference, not the code. With an edit between, the
    code was."""
    bad, good = "zig build test", "mise exec -- zig build test --summary all"
    script.run(bad, "build.zig.zon:2:13: error: expected string literal", failure=ERR, code=1)
    if edited:
        script.file("Edit", "/p/build.zig.zon", "ok")
    script.run(good, "Build Summary: 3/3 steps succeeded")
    found = _detect(script)
    if edited:
        assert found == []
    else:
        (candidate,) = found
        assert candidate.summary == "zig: run it through `mise`"
        _fires(candidate, bad, good)


def test_a_script_that_works_through_a_wrapper_around_its_interpreter(script):
    """``perl script/send.pl`` lacked the modules only ``carton exec`` puts on ``@INC``."""
    bad = "perl script/send.pl --dry-run"
    script.run(bad, "Can't locate Mojo/UserAgent.pm in @INC (you may need to install the "
               "Mojo::UserAgent module)", failure=ERR, code=2)  # fmt: skip
    script.run(f"carton exec -- {bad}", "[dry-run] would send 14 reminders")
    candidate = _one(script)
    assert candidate.summary == "send.pl: run it through `carton`"
    _fires(candidate, bad, f"carton exec -- {bad}")


def test_a_glob_in_quotes_taken_for_a_path(script):
    """Node 20's test runner expands no pattern: given one in quotes, it looked for a file of
    that name. The lesson is recalled before any call of the program with a glob in quotes."""
    bad = "cd /p/web && node --test 'test/**/*.test.js'"
    script.run(bad, "Could not find '/p/web/test/**/*.test.js'", failure=ERR, code=1)
    script.run("cd /p/web && node --test test/ 2>&1 | tail -3", "# pass 31\n# fail 0")
    candidate = _one(script)
    assert candidate.summary == "node: it does not expand a glob in quotes"
    _fires(candidate, bad, "cd /p/web && node --test test/")
    assert triggers.matches(candidate.trigger, 'node --test "src/*.spec.js"')


@pytest.mark.parametrize(
    ("error", "fixed"),
    [
        # the error names no such path: the tests failed
        ("# fail 2\nnot ok 1 - formats dates", "node --test test/"),
        # the fix still gives the pattern: it was right
        ("Could not find '/p/web/test/**/*.test.js'", "node --test 'test/**/*.test.js' --watch"),
    ],
)
def test_a_glob_in_quotes_not_named_or_kept_is_no_such_lesson(script, error, fixed):
    script.run("node --test 'test/**/*.test.js'", error, failure=ERR, code=1)
    script.run(fixed, "# pass 31")
    assert all("glob in quotes" not in c.summary for c in _detect(script))


def test_a_glob_in_quotes_then_an_edit_is_the_codes(script):
    script.run("node --test 'test/**/*.test.js'", "Could not find '/p/test/**/*.test.js'",
               failure=ERR, code=1)  # fmt: skip
    script.file("Edit", "/p/package.json", "ok")
    script.run("node --test test/", "# pass 31")
    assert all("glob in quotes" not in c.summary for c in _detect(script))


def test_a_path_in_quotes_is_no_glob(script):
    """A guessed file in quotes is still a guessed file."""
    script.run("cat 'docs/setup.md'", "cat: docs/setup.md: No such file or directory",
               failure=ERR, code=1)  # fmt: skip
    script.run("cat docs/SETUP.md", "# Setup")
    assert all("glob in quotes" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("cd /p/site && npx next lint",
         "Invalid project directory provided, no such directory: /p/site/lint",
         "cd /p/site && pnpm lint", "next lint: this project runs it as `pnpm lint`"),
        ("go test ./...", "# example.com/svc\nundefined: sqlite3.Open",
         "make test 2>&1 | tail -3", "go test: this project runs it as `make test`"),
        ("cargo clippy", "error: could not find `Cargo.toml` in `/p` or any parent directory",
         "npm run clippy", "cargo clippy: this project runs it as `npm run clippy`"),
        # the runner's own subcommand, where the project's script of that name was meant
        ("bun test", "TypeError: vi.hoisted is not a function.", "bun run test 2>&1 | tail",
         "bun test: this project runs it as `bun run test`"),
        # another program given the very subcommand and arguments
        ("uv run django-admin makemessages -l de",
         "django.core.exceptions.ImproperlyConfigured: Requested setting USE_I18N, but "
         "settings are not configured.", "uv run python manage.py makemessages -l de",
         "django-admin makemessages: this project runs it as "
         "`uv run python manage.py makemessages`"),
    ],
)  # fmt: skip
def test_the_projects_own_task_of_that_name(script, bad, error, good, summary):
    """The command failed where the project's task named for its subcommand worked, nothing
    edited between: how this project runs it, recalled before the bare command."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    _fires(candidate, bad, good)


def test_a_command_that_worked_from_a_folder_below_the_project(script):
    """The line went into the project first, then, unchanged, into a folder below it: that
    folder holds what the command works on."""
    bad = "cd /p/mail && vagrant ssh -c 'systemctl is-active postfix'"
    script.run(bad, "A Vagrant environment or target machine is required to run this command.",
               failure=ERR, code=1)  # fmt: skip
    script.run("cd /p/mail && find . -maxdepth 3 -name Vagrantfile", "./deploy/vagrant/Vagrantfile")
    script.run("cd /p/mail/deploy/vagrant && vagrant ssh -c 'systemctl is-active postfix'",
               "active")  # fmt: skip
    candidate = _one(script)
    assert candidate.summary == "vagrant ssh: run it in `deploy/vagrant`, where its project is"


@pytest.mark.parametrize(
    ("wanted", "command", "holds"),
    [
        ({"show", 'a.this[x]'}, "terraform state show 'a.this[\"x\"]'", True),
        ({"-e", "SELECT 1 FROM t WHERE a='x'"}, "mysql -e 'SELECT 1 FROM t WHERE a=\"x\"'", True),
        ({"show", "a.this[x]"}, "terraform state list", False),
    ],
)  # fmt: skip
def test_a_later_call_holds_the_words_whatever_their_quotes(wanted, command, holds):
    assert pairing._holds(wanted, command) is holds


def test_a_listing_between_is_a_look_when_the_quoted_fix_comes_later(script):
    """``terraform state list`` looked around; the same address given whole in single quotes,
    its quotes the shell had dropped, is the fix, and the lesson is the quoting's."""
    bad = 'terraform state show module.b.aws_s3_bucket.this["audit-logs"]'
    script.run(bad, "Error parsing instance address: module.b.aws_s3_bucket.this[audit-logs]",
               failure=ERR, code=1)  # fmt: skip
    script.run("terraform state list | grep aws_s3_bucket.this",
               'module.b.aws_s3_bucket.this["audit-logs"]')  # fmt: skip
    good = "terraform state show 'module.b.aws_s3_bucket.this[\"audit-logs\"]'"
    script.run(good, 'resource "aws_s3_bucket" "this" {')
    candidate = _one(script)
    assert candidate.summary.startswith("terraform state: single-quote the whole word")
    _fires(candidate, bad, good)


def test_a_variable_in_double_quotes_read_by_the_local_shell(script):
    """Over ``ssh``, ``"cd $APP_ROOT/current"`` was expanded here, to ``/current``; in single
    quotes the remote shell read it. The missing folder was the quotes' doing."""
    bad = 'ssh deploy@app1 "cd $APP_ROOT/current && git log -1 --oneline"'
    script.run(bad, "bash: line 1: cd: /current: No such file or directory", failure=ERR,
               code=1)  # fmt: skip
    script.run("ssh deploy@app1 'echo $APP_ROOT'", "/srv/storefront")
    good = "ssh deploy@app1 'cd \"$APP_ROOT/current\" && git log -1 --oneline'"
    script.run(good, "c71a0b3 Add coupon stacking rules")
    candidate = _one(script)
    assert candidate.summary.startswith("ssh: single-quote it")
    _fires(candidate, bad, good)


@pytest.mark.parametrize(
    ("bad", "error", "look", "good", "printed", "summary", "quiet"),
    [
        # ``go run main.go`` built main.go alone; the failing call asked for the version, and
        # so did its fix: the same flag is no look at the manual
        pytest.param(
            "cd /p/cmd/ledgerd && go run main.go --version",
            "# command-line-arguments\n./main.go:24:12: undefined: loadConfig",
            "cd /p/cmd/ledgerd && ls", "cd /p/cmd/ledgerd && go run . --version", "ledgerd dev",
            "go run: give it the package (`.`), not its files", "go run . --version",
            id="go-files",
        ),
        # the shell opens the file for ``>`` as the user; ``sudo tee`` wrote it
        pytest.param(
            "sudo echo 'fs.inotify.max_user_watches=524288' > /etc/sysctl.d/60-inotify.conf",
            "bash: /etc/sysctl.d/60-inotify.conf: Permission denied", None,
            "echo 'fs.inotify.max_user_watches=524288' | sudo tee /etc/sysctl.d/60-inotify.conf",
            "fs.inotify.max_user_watches=524288",
            "sudo: it does not reach the shell's `>`; write through `sudo tee`",
            "sudo cat a > /tmp/b", id="sudo-redirect",
        ),
        # in manifest mode ``vcpkg install`` takes no port; ``vcpkg add port`` took them
        pytest.param(
            "vcpkg install fmt spdlog",
            "error: In manifest mode, `vcpkg install` does not support individual package "
            "arguments.", None, "vcpkg add port fmt spdlog && vcpkg install 2>&1 | tail -3",
            "All requested installations completed successfully",
            "vcpkg install: `vcpkg add port` does this", "vcpkg install", id="other-subcommand",
        ),
        # the version on PATH refused the configuration; the one the CI pins took it
        pytest.param(
            "clang-format --dry-run -Werror $(git ls-files '*.cpp')",
            "/p/.clang-format:31:1: error: unknown key 'InsertNewlineAtEOF'",
            "clang-format --version; ls /usr/bin/clang-format-*",
            "clang-format-17 --dry-run -Werror $(git ls-files '*.cpp') && echo clean", "clean",
            "clang-format: run it as `clang-format-17` here", "clang-format-17 -i src/a.cpp",
            id="other-version",
        ),
        # a task of another name whose echo shows it ran the failed command
        pytest.param(
            "nomad job run deploy/api.nomad.hcl",
            'Error getting job struct: Unset variable "image_tag"',
            "grep -n -A3 '^deploy-staging:' Makefile", "make deploy-staging",
            "nomad job run \\\n  -var image_tag=3f9c2ab deploy/api.nomad.hcl\n==> Monitoring",
            "nomad job: this project runs it as `make deploy-staging`", None, id="task-echo",
        ),
        # a command of no subcommand whose every word the task echoed: the very run, not the
        # program's every use
        pytest.param(
            "rpmbuild -bs pkg.spec", "error: Bad source: /root/rpmbuild/SOURCES/pkg-2.1.tar.gz",
            None, "make srpm",
            "git archive -o pkg-2.1.tar.gz HEAD\nrpmbuild -bs pkg.spec\nWrote: x",
            "rpmbuild: this project runs it as `make srpm`", "rpmbuild -ba pkg.spec",
            id="task-echo-whole",
        ),
        # the cluster of letters held one the command does not have: the program's, past ``--``
        pytest.param(
            "docker compose exec api curl -sS localhost:8000/health",
            "unknown shorthand flag: 's' in -sS", None,
            "docker compose exec api -- curl -sS localhost:8000/health", '{"ok": true}',
            "docker compose: an option of the program it runs goes after `--`",
            "docker compose exec -T api -- curl -sS x", id="cluster-passed-on",
        ),
        # a query language's function the shell took for a subshell
        pytest.param(
            "buck2 uquery deps(//app:server)", "bash: syntax error near unexpected token `('",
            None, "buck2 uquery 'deps(//app:server)'", "//app:server\n//lib:db",
            "buck2 uquery: quote words the shell would read as syntax",
            "buck2 uquery 'kind(rust_library, //...)'", id="parenthesised-word",
        ),
        # the double quotes inside are the program's; the single ones kept the word whole
        pytest.param(
            "mix run priv/seed.exs --opts {tenant: acme}",
            "** (ArgumentError) unexpected argument: acme}", None,
            "mix run priv/seed.exs --opts '{tenant: \"acme\"}'", "seeded 40 rows",
            "mix run: quote `{tenant: acme}`, it holds a space", None, id="space-inner-quotes",
        ),
        # a registry's address read as a repository's name
        pytest.param(
            "helm show values registry.example.com/charts/api", "Error: repo registry.example.com "
            "not found", None, "helm show values oci://registry.example.com/charts/api",
            "replicaCount: 2", "helm show: give the address with `oci://` in front",
            "helm show values bitnami/nginx", id="scheme-added",
        ),
        # the file that defines it given where its name was wanted
        pytest.param(
            "brew test Formula/ripgrep-all.rb",
            "Error: Calling `brew test [path ...]` is disabled! Use `brew test [name ...]`.",
            None, "brew test acme/tap/ripgrep-all", "==> Testing acme/tap/ripgrep-all",
            "brew test: give it the name (`acme/tap/ripgrep-all`), not the file's path",
            "brew test acme/tap/fd", id="name-for-path",
        ),
        # a variable set on its own stays in the shell; exported, the program saw it
        pytest.param(
            'cd /p && SENTRY_DSN="https://k@o1.ingest.example/2"; sentry-cli releases list',
            "error: An organization ID or slug is required", None,
            'cd /p && export SENTRY_DSN="https://k@o1.ingest.example/2" && sentry-cli releases '
            "list", "| Released | Version |",
            "sentry-cli: export `SENTRY_DSN`; set on its own, it stays in the shell",
            "SENTRY_DSN=x sentry-cli releases list", id="not-exported",
        ),
        # the GNU build a Mac installs beside its own under a ``g`` name
        pytest.param(
            "cd /p && sed -i 's/v1/v2/' VERSION", "sed: 1: \"VERSION\": invalid command code V",
            None, "cd /p && gsed -i 's/v1/v2/' VERSION", "", "sed: run it as `gsed` here",
            "gsed -n 1p VERSION", id="gnu-name",
        ),
        pytest.param(
            "make dist", "Makefile:4: *** missing separator.  Stop.", "make --version",
            "gmake dist", "tar czf dist.tgz build", "make dist: run it as `gmake` here",
            "gmake test", id="gnu-make",
        ),
        # a short name the command does not resolve, given by its full name
        pytest.param(
            "podman pull redis:7", 'Error: short-name "redis:7" did not resolve to an alias',
            None, "podman pull docker.io/library/redis:7", "Writing manifest to image destination",
            "podman pull: give `redis:7` by its full name, `docker.io/library/redis:7`",
            "podman pull docker.io/library/redis:7", id="full-name",
        ),
        # the option named as the setting it sets
        pytest.param(
            "mysql -h db shop < dump.sql",
            "ERROR 2020 (HY000): Got packet bigger than 'max_allowed_packet' bytes", None,
            "mysql -h db --max-allowed-packet=1G shop < dump.sql", "",
            "mysql: give it `--max-allowed-packet`, as its error says",
            "mysql -h db --max-allowed-packet=64M shop", id="option-as-setting",
        ),
        # the runner's option the fix added, before the program it runs
        pytest.param(
            "uv run sphinx-build docs out",
            "error: Failed to spawn: `sphinx-build`\n  Caused by: No such file or directory",
            None, "uv run --group docs sphinx-build docs out", "build succeeded.",
            "sphinx-build: the command is not on PATH",
            "uv run --group docs sphinx-build -b html docs out", id="runner-option",
        ),
        # a word the shell cut at its ``;``: the error names the piece after the cut
        pytest.param(
            "sdkmanager platforms;android-35", "Warning: Failed to find package 'platforms'\n"
            "bash: android-35: command not found", None, 'sdkmanager "platforms;android-35"',
            "[====] 100% Unzipping...",
            "sdkmanager: quote `platforms;android-35`, the shell cuts a command at its `;`",
            'sdkmanager "build-tools;35.0.0"', id="operator-word",
        ),
        # a glob the shell expanded into files before the program read it as its pattern
        pytest.param(
            "ffmpeg -pattern_type glob -i shots/*.png out.mp4",
            "File 'shots/0002.png' already exists. Overwrite? [y/N] Not overwriting - exiting",
            None, "ffmpeg -hide_banner -pattern_type glob -i 'shots/*.png' out.mp4", "frame= 240",
            "ffmpeg: quote `shots/*.png`, or the shell expands it before the program reads it",
            "ffmpeg -i 'clips/*.mov' x.mp4", id="expanded-glob",
        ),
    ],
)  # fmt: skip
def test_what_two_command_lines_tell_by_themselves(
    script, bad, error, look, good, printed, summary, quiet
):
    """Nothing edited between the failure and the call that worked: the difference between the
    two lines is the lesson, recalled before the wrong form and not before ``quiet``."""
    script.run(bad, error, failure=ERR, code=1)
    if look:
        script.run(look, "ok")
    script.run(good, printed)
    candidate = _one(script)
    assert candidate.summary == summary
    _fires(candidate, bad, good)
    if quiet:
        assert not triggers.matches(candidate.trigger, quiet)


@pytest.mark.parametrize(
    ("bad", "error", "look", "good", "summary"),
    [
        # the option that pointed the command at its folder, dropped once it ran there
        ("cargo build --manifest-path firmware/Cargo.toml",
         "error: linking with `cc` failed: exit status: 1", "cat firmware/.cargo/config.toml",
         "cd firmware && cargo build", "cargo build: run it in `firmware`, where its project is"),
        # what a run looked for and did not find states its error
        ("flutter build ios --release", "No valid code signing certificates were found",
         "flutter build ios -h", "flutter build ios --release --no-codesign",
         "flutter build: it worked with `--no-codesign`"),
    ],
)  # fmt: skip
def test_what_two_lines_tell_that_comes_back_at_its_error(script, bad, error, look, good, summary):
    """The command line does not show the mistake (the folder it ran in; a machine without
    what the run looked for): the lesson has no trigger, and is recalled at its error."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(look, "ok")
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None
    assert candidate.error_lines == (error,)


def test_a_test_run_that_failed_is_no_job_of_another_subcommand(script):
    script.run("cargo test parser", "test parser::tokens ... FAILED\n"
               "test result: FAILED. 3 passed; 1 failed", failure=ERR, code=101)  # fmt: skip
    script.run("cargo build parser && cargo test", "ok")
    assert all("does this" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "between", "good"),
    [
        ("go test ./...", None, "make check"),  # a task of another name
        ("npm test", None, "make test"),  # a runner's own task, then another's
        ("go test ./...", "/p/store.go", "make test"),  # the code changed between
        ("bun test", None, "bun run test:unit"),  # a script of another name
        ("django-admin migrate", None, "python manage.py migrate --fake"),  # another job
        ("django-admin migrate", "/p/app/models.py", "python manage.py migrate"),
    ],
)
def test_no_task_of_the_same_name_or_an_edit_between(script, bad, between, good):
    script.run(bad, "--- FAIL: TestOpen (0.00s)", failure=ERR, code=1)
    if between:
        script.file("Edit", between, "ok")
    script.run(good, "ok")
    assert all("this project runs it as" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("cd /p && VERSION=v1.8.0 make package",
         "check-version: refusing to package non-release version 'v1.7.3-dirty'\n"
         "make: *** [Makefile:27: package] Error 1", "cd /p && make package VERSION=v1.8.0",
         "make package: give `VERSION=` as an argument, not in the environment"),
        ("npm test DEBUG=1", "Error: Cannot find module '/p/DEBUG=1'",
         "DEBUG=1 npm test", "npm test: set `DEBUG=` in front of it, not as an argument"),
    ],
)  # fmt: skip
def test_a_variable_on_the_wrong_side_of_its_program(script, bad, error, good, summary):
    """Nothing changed but which side of the program a variable was given on: make's own
    assignment beats the environment, and a program takes an argument for an operand."""
    script.run(bad, error, failure=ERR, code=2)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    _fires(candidate, bad, good)


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        ("ormolu --mode inplace src/",
         "ormolu: src/: withBinaryFile: inappropriate type (is a directory)",
         "ormolu --mode inplace $(git ls-files '*.hs')"),
        ("clang-format -i src", "clang-format: error: src: Is a directory",
         "clang-format -i src/*.c src/*.h"),
    ],
)  # fmt: skip
def test_a_folder_given_to_a_program_that_takes_files(script, bad, error, good):
    """Given files by the set where it had been given their folder, the program worked: it
    does not walk folders, a fact of the program for every project."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary.endswith(": it takes files, not a folder")
    assert "`src" in candidate.mistake
    _fires(candidate, bad, good)


def test_a_file_of_the_folder_read_next_is_a_look(script):
    """``cat docs`` → ``cat docs/README.md``: the folder was a look around, not a program's
    habit worth a lesson."""
    script.run("cat docs", "cat: docs: Is a directory", failure=ERR, code=1)
    script.run("cat docs/README.md", "# Docs")
    assert all("not a folder" not in c.summary for c in _detect(script))


def test_a_file_renamed_is_no_other_program_doing_the_job(script):
    """``git mv`` readies the script for another run; it does no job of the script's."""
    script.run("node scripts/gen.js", "ReferenceError: require is not defined in ES module "
               "scope, you can use import instead", failure=ERR, code=1)  # fmt: skip
    script.run("git mv scripts/gen.js scripts/gen.cjs && node scripts/gen.cjs", "Wrote 48 icons")
    assert _detect(script) == []


def test_command_not_found_fixed_by_mise_exec(script):
    """``mise exec --`` is a wrapper: the fix of a command that is not on PATH."""
    bad, good = "pytest -q", "mise exec -- pytest -q"
    script.run(bad, "bash: pytest: command not found", failure=ERR, code=127)
    script.run(good, "3 passed")
    candidate = _one(script)
    assert candidate.summary == "pytest: the command is not on PATH"
    _fires(candidate, bad, good)


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "trigger"),
    [
        # The interpreter is what is missing, not the script it was to run.
        ("python scripts/gen.py", "bash: python: command not found", "python3 scripts/gen.py",
         "python: the command is not on PATH", r"^\s*\bpython\b"),
        ("python tools/x.py", "zsh:1: command not found: python", "python3 tools/x.py",
         "python: the command is not on PATH", r"^\s*\bpython\b"),
        # A wrapper that is missing, around a command that is not (Homebrew's ``gtimeout``).
        ("timeout 30 npm test", "bash: timeout: command not found", "gtimeout 30 npm test",
         "timeout: the command is not on PATH", r"^\s*\btimeout\b"),
        # dash's words, the program later in the line.
        ("cd web && tsc --noEmit", "sh: 1: tsc: not found", "cd web && npx tsc --noEmit",
         "tsc: the command is not on PATH", r"(?:^|[;&|(])\s*\btsc\b"),
        # a program the line substitutes (``nproc`` is GNU's: a Mac has ``sysctl``)
        ("make -j$(nproc)", "bash: nproc: command not found\nmake: *** No targets specified.",
         "make -j$(sysctl -n hw.ncpu)", "nproc: not on PATH here; `sysctl` does its job",
         r"(?:^|[;&|(])\s*\bnproc\b"),
    ],
)  # fmt: skip
def test_the_program_not_on_path_is_the_lesson_whatever_it_ran(
    script, bad, error, good, summary, trigger
):
    """The shell names the program it could not find: the lesson is about that program, on
    every line it starts, not about the script or command it was to run (the failing form of
    ``python scripts/gen.py`` is every bare ``python``)."""
    script.run(bad, error, failure=ERR, code=127)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger == trigger
    _fires(candidate, bad, good)


def test_a_command_not_on_path_keeps_its_subcommand(script):
    """``pip install`` not found: the program is the command itself, and the lesson keeps its
    subcommand in the summary and the trigger, as an agent's own lesson about it would."""
    bad, good = "pip install requests", "python3 -m pip install requests"
    script.run(bad, "bash: pip: command not found", failure=ERR, code=127)
    script.run(good, "Successfully installed requests")
    candidate = _one(script)
    assert candidate.summary == "pip install: the command is not on PATH"
    assert candidate.trigger == r"^\s*\bpip\b[^|;&\n]*?\binstall\b"


def test_a_look_at_sizes_is_no_look_at_the_help(script):
    """``df -h`` prints sizes: the call that worked after ``df`` refused an option is its fix."""
    script.run("df --human", "df: unrecognized option '--human'", failure=ERR, code=1)
    script.run("df -h", "Filesystem  Size  Used")
    candidate = _one(script)
    assert "`df -h` worked" in candidate.fix


def test_a_module_missing_from_the_bare_interpreter_names_the_module(script):
    """``python3 -m pytest`` without pytest, then the project's interpreter: the lesson fires
    on the bare interpreter running pytest, not on every ``python3`` (``--version``, ``-c``)."""
    bad, good = "python3 -m pytest tests", ".venv/bin/python -m pytest tests"
    script.run(bad, "/usr/bin/python3: No module named pytest", failure=ERR, code=1)
    script.run(good, "5 passed")
    candidate = _one(script)
    assert candidate.summary == "pytest: run it in the project's environment"
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "python3 --version")
    assert not triggers.matches(candidate.trigger, "python3 -c 'import sys'")


@pytest.mark.parametrize(
    "fixed",
    ["PGPASSWORD=app psql -h localhost -U app -c 'select 1'",
     "psql -h localhost -U app -W -c 'select 1'"],
)  # fmt: skip
def test_a_fix_carrying_dash_h_is_no_look_at_the_help(script, fixed):
    """``-h`` asks for help only as the last word of a command: ``psql -h localhost`` names a
    host, and the call that gave the password is the fix of the one that did not."""
    bad = "psql -h localhost -U app -c 'select 1'"
    script.run(bad, "psql: error: fe_sendauth: no password supplied", failure=ERR, code=2)
    script.run(fixed, " ?column? \n----------\n        1")
    candidate = _one(script)
    assert candidate.summary == "psql: authenticate the way this place can"
    assert f"`{fixed}` worked" in candidate.fix


def test_a_look_at_the_help_is_still_no_fix(script):
    """``tool sub -h`` and ``tool --help`` only read how the command is called; ``df -h`` is
    no help at all, but neither is it the failing command corrected."""
    script.run("rg --hidden-files foo", "error: unexpected argument '--hidden-files' found",
               failure=ERR, code=2)  # fmt: skip
    script.run("rg -h", "Usage: rg [OPTIONS] PATTERN")
    script.run("df -h", "Filesystem  Size  Used")
    script.run("rg --hidden foo", "src/a.py:1:foo")
    candidate = _one(script)
    assert "`rg --hidden foo` worked" in candidate.fix


@pytest.mark.parametrize(
    "look", ["cat .tflint.hcl && tflint --version", "cd infra && ls && tflint --help"]
)
def test_a_line_that_only_reads_and_asks_is_no_fix(script, look):
    """Reading a file beside asking the program its version is a look, wherever the ask stands
    on the line: the fix is the call that then did the work."""
    script.run("tflint --recursive", 'Failed to initialize plugins; Plugin "aws" not found. '
               'Did you run "tflint --init"?', failure=ERR, code=1)  # fmt: skip
    script.run(look, "TFLint version 0.54.0")
    script.run("tflint --init && tflint --recursive", 'Installed "aws"')
    candidate = _one(script)
    assert candidate.summary == "tflint: run `tflint --init` first"


@pytest.mark.parametrize(
    ("command", "asks"),
    [
        ("cat .tflint.hcl && tflint --version", True),
        ("cd infra && ls && tflint --help", True),
        ("tflint --version", True),
        # work beside the ask (an install, then the version it installed) is no mere look
        ("npm i -g typescript && tsc --version", False),
        # the manual of a subcommand's subcommand, as the AWS CLI has it
        ("aws s3 cp help | grep -A3 -- '--recursive (boolean)'", True),
        ("gh help", True),
        ("cat .tflint.hcl && tflint --recursive", False),
        ("cat .tflint.hcl && ls", False),
    ],
)
def test_what_only_asks_how_a_command_is_called(command, asks):
    call = ev.Event(kind=ev.TOOL_CALL, agent="claude", tool="Bash", command=command)
    assert calls._asks_for_help(call) is asks


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("docker build -t app .",
         "permission denied while trying to connect to the Docker daemon socket at "
         "unix:///var/run/docker.sock", "sudo docker build -t app .",
         "docker build: it needs root here"),
        ("apt-get install -y jq",
         "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)",
         "sudo -E apt-get install -y jq", "apt-get install: it needs root here"),
    ],
)  # fmt: skip
def test_a_command_that_needs_root_on_this_machine(script, bad, error, good, summary):
    """Not permitted, then the same command through ``sudo``: a fact of the machine. Which of a
    program's calls need root the error says, so the lesson comes back with it."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "done")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.fix == f"Run it through `sudo`: `{good}` worked."
    assert candidate.trigger is None


def test_a_script_without_its_execute_bit_run_through_its_interpreter(script):
    """A script run by its path that the shell may not execute, then handed to ``bash``: its
    trigger is the script run by its path, with or without its folder."""
    bad, good = "./scripts/release.sh --dry-run", "bash scripts/release.sh --dry-run"
    script.run(bad, "bash: ./scripts/release.sh: Permission denied", failure=ERR, code=126)
    script.run(good, "dry run ok")
    candidate = _one(script)
    assert candidate.summary == "release.sh: the script is not executable"
    assert candidate.fix.startswith("Run it through its interpreter (or make it executable")
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "cd scripts && release.sh")
    assert not triggers.matches(candidate.trigger, "sh scripts/release.sh")


def test_an_option_before_the_subcommand_keeps_the_call_of_its_kind(script):
    """``kubectl --context prod get pods`` is a ``kubectl get`` like the call that failed: the
    option's value is no subcommand, and the call is the fix."""
    bad, good = "kubectl get pods", "kubectl --context prod get pods"
    script.run(bad, "The connection to the server localhost:8080 was refused", failure=ERR,
               code=1)  # fmt: skip
    script.run(good, "NAME   READY")
    candidate = _one(script)
    assert candidate.summary.startswith("kubectl get: ")
    assert f"`{good}`" in candidate.fix


def test_a_program_the_runner_failed_to_spawn_is_not_on_path(script):
    """uv's "Failed to spawn" names a program that is not there, not a path the call gave."""
    assert failures.mistake_class(
        "error: Failed to spawn: `ruff`\n  Caused by: No such file or directory (os error 2)"
    ) is failures.mistake_class("bash: ruff: command not found")


def test_not_permitted_fixed_otherwise_is_a_one_off(script):
    """A path the user may not write, then another path; a script made executable for good;
    a command whose fix changed more than ``sudo``: nothing to remember."""
    script.run("touch /etc/x.conf", "touch: cannot touch '/etc/x.conf': Permission denied",
               failure=ERR, code=1)  # fmt: skip
    script.run("touch /tmp/x.conf", "")
    script.run("./deploy.sh staging", "bash: ./deploy.sh: Permission denied", failure=ERR,
               code=126)  # fmt: skip
    script.run("chmod +x deploy.sh && ./deploy.sh staging", "deployed")
    script.run("cat /var/log/app.log", "cat: /var/log/app.log: Permission denied", failure=ERR,
               code=1)  # fmt: skip
    script.run("sudo tail -n 50 /var/log/app.log", "log")
    script.run("docker build -t app .", "connect: permission denied", failure=ERR, code=1)
    script.run("sudo docker build -t app2 .", "built")
    assert _detect(script) == []


# -- failures no class knows ---------------------------------------------------------------------


def test_an_unknown_failure_fixed_by_dropping_a_flag_the_error_does_not_name(script):
    """``git checkout -b`` of a branch that exists, then ``git checkout`` of it: no class knows
    the error, and the error says nothing of ``-b``, the plain way to make a branch. A trigger
    on the dropped flag would fire on every new branch: the lesson comes back when git says the
    branch exists. A rerun on other files, another URL or another name changed what it worked
    on: that failure was a fact of its target (a failing test, a missing branch), not a misuse,
    and yields nothing."""
    script.run("pytest -x tests/test_a.py", "1 failed, 3 passed", failure=ERR, code=1)
    script.run("pytest tests/test_b.py", "4 passed")
    script.run("curl -fsSL -o /tmp/l.zip https://h/x/logs", "curl: (56) 403", failure=ERR, code=56)
    script.run("curl -fsSL https://h/y/raw", "ok")
    script.run(
        "git checkout feat/tpyo",
        "error: pathspec 'feat/tpyo' did not match any file(s) known to git",
        failure=ERR,
        code=1,
    )
    script.run("git checkout feat/typo", "Switched to branch 'feat/typo'")
    bad = "git checkout main && git checkout -b feat/mfa"
    good = "git checkout feat/mfa"
    script.run(bad, "fatal: a branch named 'feat/mfa' already exists", failure=ERR, code=128)
    script.run(good, "Switched to branch 'feat/mfa'")
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.error_lines == ("fatal: a branch named 'feat/mfa' already exists",)
    assert "git checkout feat/mfa" in candidate.fix


def test_an_unknown_failure_fixed_by_dropping_a_flag_the_error_names(script):
    """``prettier --check --write`` refused, its error naming ``--check``; the same call
    without it worked: the flag is what the failure is about, so the trigger needs it. The
    runner's echo of its command line names a flag too, but is no line of the error: a
    ``vitest run --bail 1`` that could not reach its database and then passed without the flag
    says nothing of it."""
    echo = "> vitest run --bail 1 src\n\nError: connect ECONNREFUSED 127.0.0.1:5432"
    script.run("vitest run --bail 1 src", echo, failure=ERR, code=1)
    script.run("vitest run src", "Test Files 4 passed (4)")
    bad, good = "prettier --check --write src", "prettier --write src"
    script.run(bad, "[error] Cannot use --check and --write together.", failure=ERR, code=2)
    script.run(good, "src/a.ts 12ms")
    candidate = _one(script)
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "prettier --write src")


def test_an_unknown_failure_fixed_on_the_same_target_is_recalled_at_its_error(script):
    """``git push --force-with-lease`` refused as stale, then the same push with an explicit
    lease and the remote spelled out: no class knows the error and nothing in the first command
    line tells it from a push that works, so the lesson has no trigger and comes back when
    the refusal does, with the error's own lines to be found by: the ``! [rejected]`` line that
    says why first, the one the mistake quotes."""
    bad = "git push --force-with-lease"
    good = "git push --force-with-lease=refs/heads/b:abc123 https://h/o/r.git HEAD:refs/heads/b"
    refusal = " ! [rejected]        b -> b (stale info)\nerror: failed to push some refs to 'h'"
    script.run(bad, refusal, failure=ERR, code=1)
    script.run(good, " + 1..2 HEAD -> b (forced update)")
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.summary == "git push: needed another way"
    assert candidate.error_lines == (
        "! [rejected] b -> b (stale info)",
        "error: failed to push some refs to 'h'",
    )
    assert "(“! [rejected] b -> b (stale info)”)" in candidate.mistake
    assert good in candidate.fix


def test_a_one_off_in_the_middle_of_a_long_output_does_not_make_it_one(script):
    """Only the two ends of a failure's output say whether it was a one-off: a path missing in
    a hook's message halfway through a long push's remote output (neither in its first nor in
    its last 1,500 characters) is not why the push was refused, and the lesson stays."""
    bad = "git push --force-with-lease"
    good = "git push --force-with-lease=refs/heads/b:abc123 https://h/o/r.git HEAD:refs/heads/b"
    refusal = " ! [rejected]        b -> b (stale info)\nerror: failed to push some refs to 'h'\n"
    filler = "".join(f"remote: checking object {i:05d}\n" for i in range(70))
    missing = "remote: hooks/post-receive: line 3: /srv/notify: No such file or directory\n"
    output = refusal + filler + missing + filler
    assert 1500 < output.index(missing) < len(output) - 1500 - len(missing)
    script.run(bad, output, failure=ERR, code=1)
    script.run(good, " + 1..2 HEAD -> b (forced update)")
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.summary == "git push: needed another way"


def test_a_variable_the_fix_no_longer_set_is_no_target_it_dropped(script):
    """``MIX_ENV=test`` hid a task the project only has in dev; the same task without it
    worked. A variable set in front names nothing the call worked on, so the fix kept the
    target and the lesson is recalled at its error (which says nothing of the variable)."""
    bad, good = "cd /p && MIX_ENV=test mix credo --strict", "cd /p && mix credo --strict"
    script.run(bad, '** (Mix) The task "credo" could not be found', failure=ERR, code=1)
    script.run(
        good + " 2>&1 | tail -9", "Analysis took 1.2 seconds\n41 mods/funs, found no issues."
    )
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.summary == "mix credo: it worked without `MIX_ENV=test`"


def test_a_call_that_wanted_a_terminal_is_recalled_at_its_error_when_no_pattern_tells(script):
    """``gh run view`` asks which run when it has a terminal; here it said so and stopped. The
    fix gave the run's number: no pattern tells every call without one from the fix (the
    number is an operand), so the lesson has no trigger and comes back with the error."""
    bad = "gh run view --log-failed"
    script.run(
        bad,
        "run or job ID required when not running interactively\n\nUsage:  gh run view "
        "[<run-id>] [flags]",
        failure=ERR,
        code=1,
    )
    script.run("gh run list --branch fix/csv --limit 3", "completed\tfailure\tCI\t11328840217")
    script.run("gh run view 11328840217 --log-failed", "test (3.12)\tRun pytest\t…")
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.summary == "gh run: it wanted a terminal this shell does not have"
    assert candidate.error_lines[0].startswith("run or job ID required when not running")


_OFFLINE = (
    "> Task :api:compileJava FAILED\n\nFAILURE: Build failed with an exception.\n\n"
    "* What went wrong:\nExecution failed for task ':api:compileJava'.\n"
    "> Could not resolve all files for configuration ':api:compileClasspath'.\n"
    "   > No cached version of com.github.ben-manes.caffeine:caffeine:3.1.8 available for "
    "offline mode.\n"
)


@pytest.mark.parametrize(
    ("bad", "output", "found"),
    [
        ("./gradlew --offline :api:test", _OFFLINE, True),
        # the option named as the command line spells it, in a line that states the error
        ("./gradlew --offline :api:test",
         _OFFLINE.replace("offline mode", "this build") + "error: --offline needs a cache\n",
         True),
        # a short name is a word of any output; two dropped, and the error spoke of one
        ("./gradlew --scan :api:test", _OFFLINE.replace("offline mode", "scan mode"), False),
        ("./gradlew --offline --parallel :api:test", _OFFLINE, False),
        # the error says nothing of the option: it may be innocent
        ("./gradlew --offline :api:test", _OFFLINE.replace("offline mode", "this build"),
         False),
        # the runner echoed the command line it ran: no word of the error
        ("./gradlew --offline :api:test",
         _OFFLINE.replace("offline mode", "this build") + "Ran: gradlew --offline :api:test\n",
         False),
        # the name inside a longer word, or in capitals
        ("./gradlew --offline :api:test", _OFFLINE.replace("offline mode", "offlineMode"), False),
        ("./gradlew --offline :api:test", _OFFLINE.replace("offline mode", "OFFLINE mode"), True),
    ],
)  # fmt: skip
def test_a_build_that_worked_without_the_option_its_error_spoke_of(script, bad, output, found):
    """``--offline`` resolves only what the caches hold; once a dependency was added, the same
    build without it worked. The build failed before any test did and the error named the
    mode the option sets, so how it is called here was the difference, not the code."""
    good = "./gradlew :api:test 2>&1 | tail -4"
    script.run(bad, output, failure=ERR, code=1)
    script.run(good, "BUILD SUCCESSFUL in 41s")
    if not found:
        assert _detect(script) == []
        return
    candidate = _one(script)
    assert "`--offline`" in candidate.summary


_MOCHA_TIMEOUT = (
    "  Workspace Probe\n    1) enables a repository\n  3 passing (2s)\n  1 failing\n\n"
    "  1) Workspace Probe\n     Error: Timeout of 2000ms exceeded. For async tests and hooks, "
    'ensure "done()" is called.\n'
)


def test_a_test_failure_the_wider_run_did_not_repeat_is_a_flake(script):
    """A focused run (``--grep``) failed on a test timing out; with nothing edited, the whole
    suite then passed, that test included. The failure came and went: the lesson says so and
    to rerun first, and comes back at the timeout, never on a focused run (the dropped
    ``--grep`` was innocent)."""
    bad, good = 'pnpm test -- --grep "Checkpoint UI"', "pnpm test"
    script.run(bad, _MOCHA_TIMEOUT, failure=ERR, code=1)
    script.run(good, "  44 passing (9s)")
    candidate = _one(script)
    assert candidate.trigger is None
    assert candidate.summary == "pnpm test: a failure the wider run did not repeat"
    assert "the wider run `pnpm test` then passed with nothing changed: a flaky" in (
        candidate.mistake
    )
    assert candidate.fix == "Rerun `pnpm test` before looking for a cause: it passed."
    assert candidate.error_lines[0].startswith("Error: Timeout of 2000ms exceeded.")


def test_a_long_wider_run_is_quoted_up_to_160_characters_in_the_flakes_fix(script):
    """The wider run the fix says to repeat is quoted on one line, its first 159 characters
    and an ellipsis."""
    good = "pnpm test " + " ".join(
        f"--reporter-option=output=reports/run-{k}.xml" for k in range(6)
    )
    script.run(good + ' -- --grep "Checkpoint UI"', _MOCHA_TIMEOUT, failure=ERR, code=1)
    script.run(good, "  44 passing (9s)")
    candidate = _one(script)
    assert candidate.fix == f"Rerun `{good[:159]}…` before looking for a cause: it passed."


def test_a_flake_has_no_trigger_even_when_its_error_names_the_dropped_flag(script):
    """The runner's failure line mentions ``--bail``, the option the wider run dropped; the
    failure still came and went, so no trigger on every ``pnpm test -- --bail``."""
    output = _MOCHA_TIMEOUT + "Error: 1 test failed (stopped early: --bail)\n"
    script.run("pnpm test -- --bail", output, failure=ERR, code=1)
    script.run("pnpm test", "  44 passing (9s)")
    candidate = _one(script)
    assert candidate.summary == "pnpm test: a failure the wider run did not repeat"
    assert candidate.trigger is None


def test_a_focused_run_that_hung_is_no_flake(script):
    """A focused run the harness killed for taking too long, its output holding a failed test,
    then the wider run passing: the run hung, which is the lesson."""
    output = _MOCHA_TIMEOUT + "Command timed out after 120s"
    script.run('pnpm test -- --grep "UI"', output, failure=ev.TIMEOUT, code=124)
    script.run("pnpm test", "  44 passing (9s)")
    candidate = _one(script)
    assert candidate.summary == "pnpm test: it hung"


def test_a_test_failure_is_no_flake_when_the_rerun_was_not_wider_or_the_code_changed(script):
    """A rerun that dropped a file it ran (``pytest a.py b.py`` then ``pytest b.py``), or one
    made after an edit, or a wider run that failed as well, says the tests that failed were
    not run again or were fixed: no lesson."""
    script.run("pytest tests/a.py tests/b.py", "1 failed, 3 passed in 0.2s", failure=ERR, code=1)
    script.run("pytest tests/b.py", "3 passed in 0.1s")
    script.run('pnpm test -- --grep "UI"', _MOCHA_TIMEOUT, failure=ERR, code=1)
    script.file("Edit", "/p/src/probe.ts", "ok", edit=("a", "b"))
    script.run("pnpm test", "  44 passing (9s)")
    script.run('npm test -- --grep "UI"', _MOCHA_TIMEOUT, failure=ERR, code=1)
    script.run("npm test", "  40 passing (9s)\n  2 failing", failure=ERR, code=1)
    assert _detect(script) == []


@pytest.mark.parametrize(
    ("failing", "fixed", "wider"),
    [
        ('pnpm test -- --grep "Checkpoint UI"', "pnpm test", True),
        ("npm test -- tests/a.test.ts", "npm test", True),
        ("pytest -x -k probe tests", "pytest tests", True),
        ('pnpm test -- --grep "UI" extra', "pnpm test", False),  # an operand dropped
        ("pytest tests/a.py tests/b.py", "pytest tests/b.py", False),
        ("pytest -x tests", "pytest -x tests", False),  # the same run again
        ("pytest -x tests", "pytest -q tests", False),  # an option added
        ("pnpm test -- --grep UI", "pnpm lint", False),  # another command
        ("pytest tests -x", "pytest -x", False),  # in its place, another word
        ("pytest -x tests extra", "pytest tests", False),  # an operand after a kept word
        ("npm run test -- --grep UI", "npm run lint", False),  # another script
    ],
)
def test_a_wider_rerun_only_drops_options_and_their_values(failing, fixed, wider):
    assert recall.flaky_run(failing, fixed, "1 failed") is wider
    assert recall.flaky_run(failing, fixed, "Tests: 3 passed") is False


def test_a_push_without_a_usable_key_is_recalled_at_the_refusal(script):
    """``git push origin`` refused for want of an SSH key, then the push to the HTTPS URL with
    the CLI's credential helper: the same push works wherever a key is loaded, so the lesson is
    recalled at the refusal, and says to use the credentials the place has."""
    bad = "git push -u origin feat/x"
    script.run(bad, "git@github.com: Permission denied (publickey).\nfatal: Could not read "
               "from remote repository.", failure=ERR, code=128)  # fmt: skip
    script.run("gh auth setup-git", "")
    script.run("git push -u https://github.com/o/r.git feat/x", "* [new branch] feat/x")
    candidate = _one(script)
    assert candidate.summary == "git push: authenticate the way this place can"
    assert candidate.trigger is None
    assert candidate.error_lines[0] == "git@github.com: Permission denied (publickey)."
    assert "https://github.com/o/r.git" in candidate.fix


_NO_KEY = (
    "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository."
)


def test_a_remote_reached_by_its_url_after_a_refused_key_is_the_fix(script):
    """``git fetch origin`` refused for want of an SSH key; the agent then asked the same
    repository by its HTTPS URL with ``git ls-remote``, which answered. Another subcommand, but
    the same remote reached the way this place can: the fix of the refusal."""
    script.run("git fetch origin feat/x", _NO_KEY, failure=ERR, code=128, cwd="/p")
    script.run("git status --short", "", cwd="/p")
    fixed = "git ls-remote https://github.com/o/r.git refs/heads/feat/x"
    script.run(fixed, "0a1b2c3\trefs/heads/feat/x", cwd="/p")
    candidate = _one(script)
    assert candidate.summary == "git fetch: authenticate the way this place can"
    assert candidate.trigger is None
    assert f"`{fixed}` worked" in candidate.fix


@pytest.mark.parametrize(
    ("failing", "later", "where"),
    [
        ("git fetch origin", "git ls-remote origin", "/p"),  # the same remote the same way
        ("git push https://github.com/o/r.git", "git ls-remote https://github.com/o/r.git", "/p"),
        ("git fetch origin", "git ls-remote https://github.com/o/q.git", "/q"),  # elsewhere
        ("git fetch origin", "git status --short", "/p"),  # no remote reached
    ],
)
def test_a_remote_reached_no_other_way_is_no_fix_of_a_refused_key(script, failing, later, where):
    """After the refusal, the remote reached by its name again, by a URL the failing call gave
    already, or another repository's from its own directory, or no remote at all: nothing the
    refused call could not do, so none of them is its fix."""
    script.run(failing, _NO_KEY, failure=ERR, code=128, cwd="/p")
    script.run(later, "0a1b2c3\tHEAD", cwd=where)
    assert _detect(script) == []


def test_a_refused_login_of_another_program_is_fixed_by_no_other_call(script):
    """Only git's talk to a remote is reached another way (by its URL): a publish the
    registry refused, followed by a look at the package, has no fix and is no lesson."""
    refusal = "npm error code E401\nnpm error 401 Unauthorized - PUT https://registry.npmjs.org/x"
    script.run("npm publish", refusal, failure=ERR, code=1)
    script.run("cat package.json", "{}")
    assert _detect(script) == []


def test_a_failure_met_while_following_one_that_came_to_nothing_is_judged_on_its_own(script):
    """A lint run failed on the code; the agent then gave it an option it does not have, which
    failed too; ``npm run fix`` and the plain run worked. The first failure is no lesson (the
    same run worked later), and the second, counted as its repeat while it was followed, is
    judged on its own instead of being lost with it."""
    script.run("npm run check", "a.ts:3 lint/style/useConst\nFound 2 errors.", failure=ERR, code=1)
    bad = "npm run check -- --write"
    script.run(bad, "error: unknown option '--write'", failure=ERR, code=1)
    script.run("npm run fix", "Fixed 2 files.")
    script.run("npm run check", "Checked 40 files. No fixes applied.")
    candidate = _one(script)
    assert candidate.summary == "npm run check: an option the command does not have"
    assert [e.call_id for e in candidate.evidence] == ["c3"]
    _fires(candidate, bad, "npm run check")


_TYPE_ERROR = "src/probe.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."


def test_the_same_run_failing_again_after_an_edit_is_judged_on_its_own(script):
    """A focused run failed on a type error; the code was edited and the same run made again,
    which failed anew, on a test timing out; with nothing edited since, the wider run passed.
    The first failure was the code's (no lesson), and the rerun, counted as its repeat while
    it was followed, is a failure of its own: the wider run did not repeat it."""
    focused = 'pnpm test -- --grep "UI"'
    script.run(focused, _TYPE_ERROR, failure=ERR, code=2)
    script.file("Edit", "/p/src/probe.ts", "ok", edit=("a", "b"))
    script.run(focused, _MOCHA_TIMEOUT, failure=ERR, code=1)
    script.run("pnpm test", "  44 passing (9s)")
    candidate = _one(script)
    assert candidate.summary == "pnpm test: a failure the wider run did not repeat"
    assert [e.call_id for e in candidate.evidence] == ["c5"]


def test_an_unknown_failure_is_no_lesson_when_its_fix_was_no_call_of_it(script):
    """Failures no class knows whose fix tells nothing about the call stay silent: a fix that
    rewrote a file on its way (the code was the problem), a run whose output ends in a lint
    report, and a pipeline whose named command the fix dropped."""
    script.run("node gen.js --out a", "error: bad input at 3", failure=ERR, code=1)
    script.run("sed -i 's/x/y/' in.txt && node gen.js --out a --strict", "ok")
    script.run("npm run check --x", "checking…\n" * 400 + "Found 5 errors.", failure=ERR, code=1)
    script.run("npm run check --x --fix", "ok")
    script.run("curl -s h | jq -r .a", "jq: error (at <stdin>:1): cannot index", failure=ERR)
    script.run("curl -s -L h | head -5", "{}")
    # The end of a long output names a file that is not there: a fact of this checkout.
    listing = "throw new Error('bad input')\n" + "const a = 1;\n" * 200
    bad = "sed -n 1,400p src/a.ts && sed -n 1,50p src/gone.ts"
    script.run(bad, listing + "sed: src/gone.ts: No such file or directory", failure=ERR, code=1)
    script.run(bad.replace("-n 1,50p", "-n -e 1,50p"), listing)
    assert _detect(script) == []


def test_an_unknown_failure_fixed_by_dropping_the_syntax_the_error_quotes(script):
    r"""``rg`` refuses a literal ``\n``; the fix searched without it. A fix that only added a
    flag would give a trigger firing on every plain call of its command (every ``go build``
    without ``-tags``): that one has none, and is recalled at its error alone."""
    script.run("go build ./...", "build constraints exclude all Go files", failure=ERR, code=1)
    script.run("go build -tags dev ./...", "")
    bad = r'rg -n "aggregator:\n\s*type" docs'
    good = r'rg -n "type:\s*code" docs'
    script.run(bad, 'rg: the literal "\\n" is not allowed in a regex', failure=ERR, code=2)
    script.run(good, "docs/a.md:3:type: code")
    tags, candidate = _detect(script)
    assert tags.trigger is None
    assert tags.error_lines == ("build constraints exclude all Go files",)
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "rg -n foo docs")


def test_a_pipeline_is_blamed_on_the_command_its_error_names(script):
    """``tr -Q`` at the end of a pipeline failed (``tr: illegal option -- Q``): the lesson is
    about ``tr``, its trigger needs ``tr -Q`` and never fires on the ``printf`` before it; a
    later ``curl … | jq`` whose error names ``jq`` while the fix dropped ``jq`` and only
    changed ``curl``'s flags blames nothing."""
    bad = "printf '%s\\n' a b | tr -Q a-z A-Z"
    good = "printf '%s\\n' a b | tr a-z A-Z"
    script.run(bad, "tr: illegal option -- Q\nusage: tr [-Ccsu] string1 string2", failure=ERR)
    script.run(good, "A\nB")
    script.run(
        "curl -sSL https://h/i/9 | jq -r '.items[]'",
        "jq: error (at <stdin>:4): Cannot iterate over null",
        failure=ERR,
        code=5,
    )
    script.run("curl -s https://h/i/9 | head -n 20", '{"n": 0}')
    candidate = _one(script)
    assert candidate.summary == "tr: an option the command does not have"
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "tr -Q x y")
    assert not triggers.matches(candidate.trigger, "printf '%s' a | sed -n 1p")


def test_a_known_failure_of_a_later_command_of_the_line_is_blamed_on_it(script):
    """``sed … | cat -A``: the error names ``cat``, not the line's main command; its fix
    gave ``cat`` another flag. The trigger is built on ``cat`` against the fix's ``cat``."""
    bad = "sed -n 1,5p notes.txt | cat -A"
    good = "sed -n 1,5p notes.txt | cat -v"
    script.run(bad, "cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]", failure=ERR)
    script.run(good, "a$\nb$")
    candidate = _one(script)
    assert candidate.summary == "cat: an option the command does not have"
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "sed -n 1,5p notes.txt")


@pytest.mark.parametrize(
    ("bad", "error", "good", "others"),
    [
        ("grep -rnP 'v\\d+' src", "grep: invalid option -- P\nusage: grep [-abcDEFGHhIiLlnqRrsv]",
         "grep -rnE 'v[0-9]+' src", ("grep -P x f", "grep -Pr x .")),
        ("sed -nr 's/(a)/\\1/p' notes.txt", "sed: illegal option -- r\nusage: sed script [-Ealnru]",
         "sed -nE 's/(a)/\\1/p' notes.txt", ("sed -r 's/a/b/' f",)),
    ],
)  # fmt: skip
def test_an_option_refused_inside_a_cluster_is_the_letter_in_any_cluster(
    script, bad, error, good, others
):
    """BSD ``grep``/``sed`` refuse ``-P``/``-r`` on a Mac: the lesson is the letter, given
    alone or with others, not the cluster this call happened to write."""
    script.run(bad, error, failure=ERR, code=2)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary.endswith(": an option the command does not have")
    _fires(candidate, bad, good)
    _reaches(candidate, others)
    assert not triggers.matches(candidate.trigger, bad.replace("-", "--", 1))  # a long option


# -- the classes of the misses ----------------------------------------------------------------


def test_a_pattern_starting_with_a_dash_is_read_as_an_option(script):
    bad = 'rg -n "- name: mock" .agentv'
    good = 'rg -n -e "- name: mock" .agentv'
    script.run(bad, "rg: unrecognized flag -", failure=ERR, code=2)
    script.run(good, ".agentv/a.yaml:4:- name: mock")
    candidate = _one(script)
    assert candidate.summary == "rg: a pattern starting with `-` is read as an option"
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, 'rg -n -- "- name" .')


def test_zsh_unmatched_glob_fixed_by_listing_the_folder(script):
    """zsh stops at a glob that matches nothing; listing the folder worked. A glob that found
    nothing, followed by a look in another folder, was a probe: nothing was fixed. The glob was
    meant for files, so the lesson says to look in the folder first, not to quote it (a quoted
    ``*-PLAN.md`` names no file either)."""
    script.run("ls ~/Library/Agents/*git* 2>&1", "zsh: no matches found: ~/Library/Agents/*git*",
               failure=ERR, code=1)  # fmt: skip
    script.run("ls /p/.git/objects/pack/", "pack-1.idx")
    # A glob in another folder failed just before the mistake: the listing of ``plans`` is no
    # fix of it, and dropping it leaves the next failure to be judged on its own.
    script.run("ls /p/debug/*.md 2>/dev/null", "zsh: no matches found: /p/debug/*.md",
               failure=ERR, code=1)  # fmt: skip
    bad = "ls -1 /p/plans/*-PLAN.md 2>/dev/null | wc -l"
    good = "ls /p/plans/"
    script.run(bad, "(eval):1: no matches found: /p/plans/*-PLAN.md\n0", failure=ERR, code=1)
    script.run(good, "README.md")
    candidate = _one(script)
    assert candidate.summary == "ls: a glob that matches no file stops zsh"
    assert "zsh stops the whole command" in candidate.mistake
    assert candidate.fix.startswith("Look in the folder first") and "Quote" not in candidate.fix
    assert [e.call_id for e in candidate.evidence] == ["c7"]
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "ls -la /p")


@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_glob_meant_for_the_program_is_quoted(script, quote):
    """zsh refused a pattern meant for Redis, not for files; the fix gave the very word in
    quotes, twice on one line. The lesson is the quoting, and the corrected call on the line is
    no step in front of the command."""
    bad = "redis-cli -n 1 --scan --pattern session:*"
    quoted = f"redis-cli -n 1 --scan --pattern {quote}session:*{quote}"
    good = f"{quoted} | head -3 && {quoted} | wc -l"
    script.run(bad, "zsh: no matches found: session:*", failure=ERR, code=1)
    script.run(good, "session:9f1c\n1876")
    candidate = _one(script)
    assert candidate.summary == "redis-cli: quote words the shell would read as syntax"
    _fires(candidate, bad, good)


def test_zsh_refused_a_query_string_and_the_file_was_fetched_another_way(script):
    """zsh reads the ``?`` of an unquoted query string as a glob and stops before the command
    runs; the file was then fetched by another address that names it. A ``?`` that opens a
    query (``?ref=``) is never a file pattern, so this is no probe that found nothing: the
    lesson is the quoting, recalled on an unquoted glob character in a ``gh`` call and never
    on the quoted one."""
    word = "repos/o/r/contents/.github/workflows/ci.yml?ref=abc123"
    bad = f"gh api {word} --jq .content"
    script.run(bad, f"zsh:1: no matches found: {word}", failure=ERR, code=1)
    good = "curl -fsSL https://raw.githubusercontent.com/o/r/abc123/.github/workflows/ci.yml"
    script.run(good, "name: ci")
    candidate = _one(script)
    assert candidate.summary == "gh api: quote words the shell would read as syntax"
    assert "Quote" in candidate.fix
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, f"gh api '{word}' --jq .content")
    assert triggers.matches(candidate.trigger, "gh api repos/o/r/pulls?state=open")


def test_a_refused_query_string_is_not_fixed_by_a_call_on_another_target(script):
    """What worked after the refusal must name the file the refused word asked for: a call
    that fetched something else is the next task, not the same file reached another way."""
    word = "repos/o/r/contents/.github/workflows/ci.yml?ref=abc123"
    script.run(f"gh api {word}", f"zsh:1: no matches found: {word}", failure=ERR, code=1)
    script.run("curl -fsSL https://raw.githubusercontent.com/o/r/abc123/README.md", "# r")
    script.run("cat .github/workflows/release.yml", "name: release")
    assert _detect(script) == []


def test_a_refused_query_string_of_a_folder_and_a_file_is_fetched_by_both(script):
    """A refused word of two parts, a folder and a file, is enough to name the file that was
    then fetched another way."""
    word = "workflows/ci.yml?ref=abc123"
    script.run(f"gh api {word}", f"zsh:1: no matches found: {word}", failure=ERR, code=1)
    fetched = "curl -fsSL https://raw.githubusercontent.com/o/r/abc123/.github/workflows/ci.yml"
    script.run(fetched, "name: ci")
    assert _one(script).summary == "gh api: quote words the shell would read as syntax"


@pytest.mark.parametrize(
    ("word", "later"),
    [
        # no folder: a single word names no file
        ("user?fields=login", "curl -s https://api.github.com/user"),
        # a number last: an issue, not a file
        ("repos/o/r/issues/123?per_page=5", "curl -s https://api.github.com/repos/o/r/issues/123"),
    ],
)
def test_a_refused_query_string_that_names_no_file_has_no_fix_another_way(script, word, later):
    """The refused word must end in a folder and a file name (with a letter in it) for a
    later call to be the same file reached another way; anything else is no such fix."""
    script.run(f"gh api {word}", f"zsh:1: no matches found: {word}", failure=ERR, code=1)
    script.run(later, "{}")
    assert _detect(script) == []


def test_zsh_unmatched_brackets_of_a_package_extra(script):
    """``pip install -e .[dev]``: zsh reads the brackets as a glob; the quoted word worked.
    The trigger is an unquoted word with a bracket in a ``pip`` call."""
    bad, good = "pip install -e .[dev]", "pip install -e '.[dev]'"
    script.run(bad, "zsh:1: no matches found: .[dev]", failure=ERR, code=1)
    script.run(good, "Successfully installed p-0.1")
    candidate = _one(script)
    assert candidate.summary == "pip install: quote words the shell would read as syntax"
    _fires(candidate, bad, good)
    assert triggers.compiler_accepts(candidate.trigger)


SPAWN_FAILED = "ENOENT: no such file or directory, posix_spawn '/h/.local/share/cli/versions/2.1.4'"


def test_a_search_tool_that_cannot_start_is_done_through_the_shell(script):
    """Glob could not start its search program (the CLI was updated under the session), twice;
    ``ls`` in the shell found the file. The call was fine and the same Glob works once the CLI
    restarts: the lesson has no trigger, comes back at the error, and says to search with the
    shell."""
    script.call("Glob", SPAWN_FAILED, failure=ERR)
    script.call("Glob", SPAWN_FAILED, failure=ERR)
    script.run("ls *.md 2>/dev/null", "CHANGELOG.md\nREADME.md")
    candidate = _one(script)
    assert candidate.summary == "Glob: search with the shell while the tool cannot start"
    assert candidate.tool == "Glob"
    assert candidate.trigger is None
    assert candidate.error_lines == (SPAWN_FAILED,)
    assert candidate.fix.startswith("Do the same search through the shell")
    assert [e.call_id for e in candidate.evidence] == ["c1", "c3"]


@pytest.mark.parametrize(
    ("error", "later"),
    [
        (SPAWN_FAILED, None),  # the same Glob worked again: the tool came back
        (SPAWN_FAILED, "cat README.md"),  # no search: the next task
        ("ENOENT: no such file or directory, scandir '/p/docs'", "ls /p"),  # a missing folder
    ],
)
def test_a_search_tool_that_could_start_or_no_shell_search_is_no_lesson(script, error, later):
    script.call("Glob", error, failure=ERR)
    if later is None:
        script.call("Glob", "/p/CHANGELOG.md")
    else:
        script.run(later, "text")
    assert _detect(script) == []


def test_a_command_whose_output_says_a_spawn_failed_is_not_a_broken_tool(script):
    """The words of a program the command ran (a script spawning a missing binary) say nothing
    of the agent's tools: such a failure is judged as a command's."""
    script.run("node build.js", "Error: spawn esbuild ENOENT", failure=ERR, code=1)
    script.run("ls node_modules/.bin", "tsc")
    assert _detect(script) == []


def test_a_skill_the_project_does_not_define_is_done_in_the_shell(script):
    """Asked to commit, the agent called a ``commit`` skill the project does not have, then
    committed with git (through a wrapper, after looking at the changes). No hook sees a
    skill's name before the call, so the lesson comes back at the refusal, which names it; the
    summary names the skill, so each unknown skill is a lesson of its own."""
    script.user("commit")
    script.call("Skill", "<tool_use_error>Unknown skill: commit</tool_use_error>",
                failure=ev.VALIDATION)  # fmt: skip
    script.run("git status", "M src/a.ts")
    script.file("Read", "/p/src/a.ts", "1\ta")  # no command: not the skill's job either
    script.run("git diff", "+a")
    script.run('rtk git add src/a.ts && rtk git commit -m "Fix a"', "ok")
    candidate = _one(script)
    assert candidate.summary == "Skill `commit`: no such skill here, do its job in the shell"
    assert candidate.tool == "Skill"
    assert candidate.trigger is None
    assert candidate.error_lines == ("Unknown skill: commit",)
    assert "rtk git commit" in candidate.fix
    assert [e.call_id for e in candidate.evidence] == ["c2"]


@pytest.mark.parametrize(
    "later",
    [
        None,  # the same skill worked on a second try
        "git status",  # the shell, but not the skill's job
        "git log --oneline -5 | grep commit",  # the name, as a word of another command
    ],
)
def test_an_unknown_skill_not_done_in_the_shell_is_no_lesson(script, later):
    script.call("Skill", "<tool_use_error>Unknown skill: commit</tool_use_error>",
                failure=ev.VALIDATION)  # fmt: skip
    if later is None:
        script.call("Skill", "Launching skill: commit")
    else:
        script.run(later, "text")
    assert _detect(script) == []


_NO_TTY = (
    "[ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY] Aborted removal of modules directory due to"
    " no TTY\n    at getFinalError (file:///opt/pnpm/dist/pnpm.mjs:34109:14)"
)


def test_a_job_another_program_then_did_on_the_same_target(script):
    """``node --run wrangler:check`` failed on the package manager it called; the agent read
    the scripts and ran ``corepack pnpm run wrangler:check``, which worked. The fix is another
    program on the same script, and nothing in the failed command line tells it from one that
    works: the lesson is recalled at the error, which it quotes (not the stack frame under
    it). A script's name with no mark in it (``check``) names too little to count."""
    script.run("node --run wrangler:check", _NO_TTY, failure=ERR, code=1)
    script.run("cat package.json", '{"scripts": {"wrangler:check": "wrangler check"}}')
    script.run("corepack pnpm run wrangler:check", "ok")
    candidate = _one(script)
    assert candidate.summary == "node: `pnpm` did the job on `wrangler:check`"
    assert candidate.trigger is None
    assert candidate.error_lines[0].startswith("[ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY]")
    assert "`pnpm` then did it (“[ERR_PNPM_ABORTED" in candidate.mistake
    assert candidate.fix == "Do it with `pnpm`: `corepack pnpm run wrangler:check` worked."
    assert [e.call_id for e in candidate.evidence] == ["c1"]


@pytest.mark.parametrize(
    "looks",
    [
        ["grep -n '\"type\"' package.json", "grep -n tsx package.json"],
        ["npx tsx --help", "node --help"],  # help pages
        ["npm run seed --dry-run", "make -n seed"],  # dry runs
    ],
)
def test_the_files_read_to_find_the_other_program_are_no_step_of_the_job(script, looks):
    """``npx ts-node`` refused a ``.ts`` file; reads of the manifest (or a help page, a dry run)
    showed ``tsx``, which then ran the script. Reading does no job, so the reads do not use up
    the few commands after a failure that may have done its job another way."""
    script.run(
        "npx ts-node scripts/seed.ts",
        'TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for /p/seed.ts',
        failure=ERR,
        code=1,
    )
    for command in looks:
        script.run(command, '31:    "tsx": "^4.10.2",')
    script.run("npx tsx scripts/seed.ts", "Seeded 3 organisations")
    assert _one(script).summary == "ts-node: `tsx` did the job on `seed.ts`"


def test_an_option_whose_value_the_program_reads_only_after_an_equals_sign(script):
    """valgrind refused ``--leak-check full``; ``--leak-check=full`` worked, nothing else
    changed. The lesson is the ``=``, and its trigger fires on the option given a separate
    value, not on the joined form nor on the plain command."""
    _teaches(
        script,
        "valgrind --leak-check full --track-origins yes ./jsonq a.json",
        "valgrind: Bad option: --leak-check",
        "valgrind --leak-check=full --track-origins=yes ./jsonq a.json",
        summary="valgrind: write `--leak-check=full`: the option takes its value after `=`",
        not_others=["valgrind ./jsonq a.json", "valgrind --leak-check --verbose ./jsonq"],
    )


@pytest.mark.parametrize(
    ("failing", "fixed", "joined"),
    [
        ("grep --color always -n x f", "grep --color=always -n x f", "--color=always"),
        ("a --x 1 --y 2", "a --x=1 --y=2", "--x=1"),
        ("a --x 1", "a --x=1 --quiet", None),  # more than the join changed
        ("a --x 1 b.txt", "a --x=1", None),  # a word dropped as well
        ("a -x 1", "a -x=1", None),  # a short option's value is the next word or glued
        ("a --x 1", "a --x 1", None),
    ],
)
def test_option_joined_is_a_value_joined_by_equals_and_nothing_else(failing, fixed, joined):
    assert triggers.option_joined(failing, fixed) == joined


def test_a_pattern_read_as_options_that_took_a_file(script):
    """``git grep "-fno-exceptions"`` read ``-f no-exceptions`` and found no such file; the
    same search with ``-e`` worked. The file was never a guess: the dash was the mistake."""
    bad = 'git grep -n "-fno-exceptions"'
    good = 'git grep -n -e "-fno-exceptions"'
    script.run(bad, "fatal: cannot open 'no-exceptions': No such file or directory",
               failure=ERR, code=128)  # fmt: skip
    script.run(good, "CMakeLists.txt:41:  -fno-exceptions")
    candidate = _one(script)
    assert candidate.summary == "git grep: a pattern starting with `-` is read as an option"
    _fires(candidate, bad, good)


def test_a_path_retyped_a_letter_off_is_a_slip_and_no_lesson(script):
    """The submodule's path was typed without its ``_``; the same command with the path right
    worked. The error names the path, but a slip of this call is nothing to remember."""
    script.run(
        "git submodule update --init thirdparty/libuv",
        "error: pathspec 'thirdparty/libuv' did not match any file(s) known to git",
        failure=ERR,
        code=1,
    )
    script.run("git submodule update --init third_party/libuv", "Submodule path checked out")
    assert _detect(script) == []


def test_a_run_id_reached_through_another_client(script):
    """A run's logs refused to ``curl``, then ``gh run view`` of the same run id: the same
    target (the id inside the URL) reached another way."""
    script.run(
        "curl -fsSL https://api.github.com/repos/o/r/actions/runs/28574/logs",
        "curl: (22) The requested URL returned error: 403",
        failure=ERR,
        code=22,
    )
    script.run("gh run view 28574 --log", "build  Run tests  ok")
    candidate = _one(script)
    assert candidate.summary == "curl: `gh` did the job on `28574`"
    assert candidate.error_lines == ("curl: (22) The requested URL returned error: 403",)


@pytest.mark.parametrize(
    ("between", "later"),
    [
        # A look at the target is a step towards a fix, not one.
        ([], "cat /tmp/report-2024.md"),
        # Another target: the next task.
        ([], "corepack pnpm run lint:fix"),
        # The same program again: a corrected form of the call, judged as such elsewhere.
        ([], "node --run check:all"),
        # Further than the next two commands that worked: a later step naming it again.
        (["git status", "git diff --stat"], "corepack pnpm run check:types"),
        # A change to the code on the way: the code was the problem.
        (["EDIT"], "corepack pnpm run check:types"),
    ],
)
def test_what_is_not_the_job_done_another_way(script, between, later):
    failing = "node --run check:types /tmp/report-2024.md"
    script.run(failing, "error: the check failed to start", failure=ERR, code=1)
    for command in between:
        if command == "EDIT":
            script.file("Edit", "/p/src/a.ts", "ok")
        else:
            script.run(command, "ok")
    script.run(later, "ok")
    assert all("did the job" not in c.summary for c in _detect(script))


def _wrangler(script, later, *, output=_NO_TTY, cd=""):
    script.run(f"{cd}node --run wrangler:check", output, failure=ERR, code=1)
    for command, code in later:
        script.run(f"{cd}{command}", "ok" if code == 0 else "error: it failed", code=code,
                   failure=ERR if code else None)  # fmt: skip
    return [c for c in _detect(script) if "did the job" in c.summary]


def test_the_first_other_program_that_did_the_job_is_the_fix(script):
    """Two other programs did the job in turn: the first is the fix. From a folder a ``cd``
    put the shell in (a Codex habit), the ``cd`` is no program the two lines share."""
    (candidate,) = _wrangler(
        script,
        [("corepack pnpm run wrangler:check", 0), ("bun run wrangler:check", 0)],
        cd="cd web && ",
    )
    assert "`cd web && corepack pnpm run wrangler:check` worked" in candidate.fix


def test_a_corrected_form_of_the_same_program_comes_before_another_one(script):
    """Another program did the job, then the failed command worked corrected: the lesson is
    the correction of the command itself, however late in the window it came."""
    script.run("wrangler check:types", "bash: wrangler: command not found", failure=ERR,
               code=127)  # fmt: skip
    script.run("corepack pnpm run build check:types", "ok")
    script.run("npx wrangler check:types", "ok")
    (candidate,) = _detect(script)
    assert candidate.summary == "wrangler check:types: the command is not on PATH"
    assert "`npx wrangler check:types` worked" in candidate.fix


@pytest.mark.parametrize(
    ("later", "found"),
    [
        # Another program that failed as well did no job.
        ([("corepack pnpm run wrangler:check", 1)], None),
        # A look at how the other program is called is no fix; the call after it is.
        (
            [
                ("corepack pnpm run wrangler:check --help", 0),
                ("corepack pnpm run wrangler:check", 0),
            ],
            "`corepack pnpm run wrangler:check` worked",
        ),
    ],
)
def test_only_another_program_that_worked_did_the_job(script, later, found):
    candidates = _wrangler(script, later)
    assert [found in c.fix for c in candidates] == ([True] if found else [])


@pytest.mark.parametrize(
    ("failing", "fixed", "target"),
    [
        # An id of three digits or more; a name with a dot, a colon or an underscore.
        ("curl -fsSL https://x.dev/api/runs/285/log", "gh run view 285 --log", "285"),
        ("node --run check_types", "corepack pnpm run check_types", "check_types"),
        # Of two shared parts, the longer is said.
        (
            "curl -fsSL https://api.github.com/repos/acme/web.site/actions/runs/28574/logs",
            "gh run view 28574 --log --repo acme/web.site",
            "web.site",
        ),
        # Two digits name too little: a line count, a small number of anything.
        ("curl -fsSL https://x.dev/api/runs/42/log", "gh run view 42 --log", None),
    ],
)
def test_the_part_of_the_target_both_commands_name(script, failing, fixed, target):
    script.run(failing, "error: the request was refused", failure=ERR, code=22)
    script.run(fixed, "ok")
    candidates = [c for c in _detect(script) if "did the job" in c.summary]
    assert [c.summary.rsplit("`", 2)[-2] for c in candidates] == ([target] if target else [])


@pytest.mark.parametrize(
    "output",
    [
        # No line that states an error: nothing to recall the lesson by.
        "the job ended",
        # A file that was not there: a one-off, whatever did the job next.
        "node: report-2024.json: No such file or directory",
        # A run that failed on the code, said first ...
        "1 failed, 3 passed\n" + "log line\n" * 400 + "error: see above",
        # ... or last, after a long log.
        "error: see below\n" + "log line\n" * 400 + "Tests: 1 failed, 3 passed",
    ],
)
def test_what_another_program_did_is_no_lesson_after(script, output):
    script.run("node --run wrangler:check report-2024.json", output, failure=ERR, code=1)
    script.run("corepack pnpm run wrangler:check report-2024.json", "ok")
    assert all("did the job" not in c.summary for c in _detect(script))


def test_another_program_given_more_permissions_is_no_job_done_another_way(tmp_path):
    """Codex: ``gh run view`` refused in the sandbox, then ``curl`` of the same run escalated,
    then ``gh run view`` escalated: the permission made the difference, so the other program
    that also needed it is no fix; the same ``gh`` command escalated is."""
    sandboxed = "error connecting to api.github.com"
    escalated = {"sandbox_permissions": "require_escalated"}
    events = _codex(
        tmp_path,
        [
            ("a", "gh run view 28574 --log", {}, sandboxed, 1),
            ("b", "curl -fsSL https://api.github.com/repos/o/r/actions/runs/28574", escalated,
             "{}", 0),
            ("c", "gh run view 28574 --log", escalated, "ok", 0),
        ],
    )  # fmt: skip
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "gh run: ask for escalated permissions"
    assert "`gh run view 28574 --log` worked" in candidate.fix
    # Without the same command escalated, the other program is no fix either.
    alone = _codex(tmp_path, [(cid, cmd, extra, text, code) for cid, cmd, extra, text, code in
                              [("a", "gh run view 28574 --log", {}, sandboxed, 1),
                               ("b", "curl -fsSL https://api.github.com/repos/o/r/actions/runs/"
                                "28574", escalated, "{}", 0)]])  # fmt: skip
    assert list(tier2.detect(alone)) == []


def test_a_read_over_the_size_limit_fixed_with_offset_and_limit(script):
    """Read refused for its size, then read in parts: a failure-time lesson without trigger."""
    script.file(
        "Read",
        "/p/src/big.ts",
        "<tool_use_error>File content (41234 tokens) exceeds maximum allowed tokens (25000). "
        "Please use offset and limit parameters to read specific portions of the file, or use "
        "the GrepTool to search for specific content.</tool_use_error>",
        failure=ev.VALIDATION,
    )
    script.file("Read", "/p/src/big.ts", "1\texport const a = 1")
    candidate = _one(script)
    assert candidate.summary == "Read: read a large file in parts"
    assert candidate.trigger is None
    assert "offset and limit" in candidate.fix
    assert candidate.error_lines and "exceeds maximum allowed tokens" in candidate.error_lines[0]


def test_an_edit_the_tool_refused_made_by_a_script_on_the_same_file(script):
    """The text to replace never matched (tabs), and a script rewrote the file instead. A
    command that only read the file is no fix."""
    script.file(
        "Edit",
        "/p/src/List.tsx",
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        failure=ev.VALIDATION,
    )
    script.run("cat -A /p/src/List.tsx | head", "\t\tA$")
    script.file(
        "Edit",
        "/p/src/Card.tsx",
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        failure=ev.VALIDATION,
    )
    script.run(
        "python3 - <<'EOF'\np = '/p/src/Card.tsx'\ns = open(p).read()\n"
        "open(p, 'w').write(s.replace('\\t\\tA', '\\t\\tB'))\nEOF",
        "",
    )
    candidate = _one(script)
    assert candidate.summary == "Edit: copy the text to replace from the file as it is now"
    assert candidate.trigger is None
    assert "open(p, 'w')" in candidate.fix


def test_a_fix_on_several_files_is_named_by_its_first(script):
    """A refused edit, fixed by a call on two files (a patch): the fix names the first file
    it was given, the one the refused edit was on."""
    script.file("Edit", "/p/src/a.py", _STALE, failure=ev.VALIDATION)
    script._add(ev.TOOL_CALL, tool="Edit", paths=("/p/src/a.py", "/p/src/b.py"), call_id="x1")
    script._add(ev.TOOL_RESULT, tool="Edit", call_id="x1", text="ok")
    assert _one(script).fix.endswith("; the Edit call on a.py then worked.")


def test_a_refused_edit_of_several_files_is_made_by_a_script_on_its_first(script):
    """An edit of two files (a patch) refused for its text, then a script that rewrote the
    first of them: the refused edit made another way."""
    script._add(ev.TOOL_CALL, tool="Edit", paths=("/p/src/a.py", "/p/src/b.py"), call_id="x1")
    script._add(ev.TOOL_RESULT, tool="Edit", call_id="x1", text=_STALE, failure=ev.VALIDATION)
    script.run(
        "python3 - <<'EOF'\np = 'src/a.py'\ns = open(p).read()\n"
        "open(p, 'w').write(s.replace('a', 'b'))\nEOF",
        "",
    )
    assert _one(script).summary == "Edit: copy the text to replace from the file as it is now"


_STALE = "<tool_use_error>String to replace not found in file.</tool_use_error>"


@pytest.mark.parametrize(("between", "advice"), [
    (None, "Read the lines again and copy the text to replace exactly"),
    ("Grep", "Read the lines again and copy the text to replace exactly"),
    ("Read", "Read the file again before the Edit"),
])  # fmt: skip
def test_only_a_read_of_the_file_between_tells_the_fix_to_read_it_again(script, between, advice):
    """An edit of stale text, fixed by the next edit of the file: the advice to read the file
    again comes from a Read of it in between, never from the fixing edit itself or a search
    in the file."""
    stale = "<tool_use_error>String to replace not found in file.</tool_use_error>"
    script.file("Edit", "/p/src/app.js", stale, failure=ev.VALIDATION)
    if between is not None:
        script.file(between, "/p/src/app.js", "1\tconst port = 3000;")
    script.file("Edit", "/p/src/app.js", "updated")
    candidate = _one(script)
    assert candidate.fix.startswith(advice), candidate.fix


@pytest.mark.parametrize(("between", "found"), [(tier2.WINDOW - 1, 1), (tier2.WINDOW, 0)])
def test_a_failures_fix_comes_within_the_window(script, between, found):
    """The call that fixed a failure must come within ``WINDOW`` events of its result: the
    last event of the window still counts, the one after it does not."""
    script.run("pytest tests/", "bash: pytest: command not found", failure=ERR, code=127)
    for _ in range(between):
        script.say("Looking at the layout.")
    script.run(".venv/bin/python -m pytest tests/", "12 passed")
    assert len(_detect(script)) == found


def test_a_flag_beside_a_fix_by_another_tool_is_no_trigger(script):
    """``cargo clippy`` is missing until ``rustup`` adds it: the fixing call is another tool's
    (its main command is ``rustup``), so the flag the cargo run carried there
    (``--all-targets``) is no difference between the wrong call and its fix, and yields no
    trigger, nor a lesson."""
    script.run("cargo clippy", "error: no such command: `clippy`", failure=ERR, code=101)
    script.run("rustup component add clippy && cargo clippy --all-targets", "Finished")
    assert _detect(script) == []


# -- working directories ---------------------------------------------------------------------


def test_drift_fixed_by_going_back_to_the_root_is_a_lesson_of_the_root(script):
    """An earlier ``cd web`` stayed; ``npm run lint`` then ran in ``web``. The fix went back
    to the repository by its absolute path. The lesson is the drift, and its project is the
    repository, not the folder the shell drifted into."""
    script.run("cd web && npm run build", "built", persistent_shell=True)
    script.run(
        "npm run lint",
        'npm ERR! Missing script: "lint"',
        failure=ERR,
        code=1,
        persistent_shell=True,
        project="/w/app/web",
    )
    script.run("cd /w/app && npm run lint", "ok", persistent_shell=True, project="/w/app")
    candidate = _one(script)
    assert (
        candidate.summary
        == "npm run lint: the working directory stayed where an earlier cd left it"
    )
    assert candidate.project == "/w/app"
    assert candidate.trigger == triggers.RELATIVE_CD


def test_drift_into_a_folder_is_a_lesson_of_the_folder_above_it(script):
    """``cd tests`` stayed, and the failed call was recorded in ``/w/app/tests``; the fix gave
    the file by its absolute path, with no ``cd`` back to name the repository. The lesson's
    project is the recorded one with the folder the shell drifted into taken off."""
    script.run("cd tests && uv run pytest -q", "3 passed", persistent_shell=True)
    script.run(
        "ruff check src/app/render.py",
        "src/app/render.py:1:1: E902 No such file or directory",
        failure=ERR,
        code=1,
        persistent_shell=True,
        project="/w/app/tests",
    )
    script.run(
        "ruff check /w/app/src/app/render.py",
        "All checks passed!",
        persistent_shell=True,
        project="/w/app/tests",
    )
    candidate = _one(script)
    assert candidate.summary == "ruff: the working directory stayed where an earlier cd left it"
    assert candidate.project == "/w/app"


def test_paths_given_from_a_folder_below_keep_the_calls_project(script):
    """The shell was in ``packages/api`` (no earlier ``cd`` put it there), the call gave
    ``packages/api/src/app.ts`` as if from the repository's root, and the fix went up to
    ``packages`` by its absolute path. The lesson is the working directory, and its project
    is the call's: only a drift an earlier ``cd`` caused is moved to the folder the fix went
    back to."""
    script.run(
        "sed -n 1,40p packages/api/src/app.ts",
        "sed: packages/api/src/app.ts: No such file or directory",
        failure=ERR,
        code=1,
        persistent_shell=True,
        project="/w/mono/packages/api",
    )
    script.run(
        "cd /w/mono/packages && sed -n 1,40p api/src/app.ts",
        "export const app = 1",
        persistent_shell=True,
        project="/w/mono/packages/api",
    )
    candidate = _one(script)
    assert candidate.summary == "sed: run it from the folder its paths are relative to"
    assert candidate.project == "/w/mono/packages/api"


def test_a_failure_that_names_no_missing_path_is_not_put_on_an_earlier_cd(script):
    """An earlier ``cd web`` stayed and the fix gave the script by its absolute path, but the
    error was a syntax error, not a path that could not be found (nor a set-up step that
    failed): the working directory explains nothing, and no lesson says it does."""
    script.run("cd web && bun install", "done", persistent_shell=True)
    script.run("bun run scripts/build.ts", "SyntaxError: Unexpected token '}'", failure=ERR,
               code=1, persistent_shell=True)  # fmt: skip
    script.run("bun run /w/app/scripts/build.ts", "built", persistent_shell=True)
    assert _detect(script) == []


def _codex(tmp_path, calls):
    """A Codex rollout from ``(call id, command, arguments, output, exit code)``."""
    from lessons_codex import reader

    rows = [{"type": "session_meta", "payload": {"id": "s", "cwd": "/w/app"}}]
    for cid, cmd, extra, text, code in calls:
        args = json.dumps({"cmd": cmd, **extra})
        rows.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": args,
                    "call_id": cid,
                },
            }
        )
        rows.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": cid,
                    "output": f"Process exited with code {code}\nOutput:\n{text}",
                },
            }
        )
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("".join(json.dumps({"timestamp": "t", **r}) + "\n" for r in rows))
    return list(reader.read(path, progress=ev.Progress()))


def test_codex_sandbox_refusal_fixed_by_escalating(tmp_path):
    """The same command failed in the sandbox and worked once it asked for escalated
    permissions: the lesson is the escalation, on that command's kind. The same command with
    the same permissions working later was a passing failure, not a mistake."""
    events = _codex(
        tmp_path,
        [
            ("f1", "gh pr view 7", {}, "error connecting to api.github.com", 1),
            ("f2", "gh pr view 7", {}, "ok", 0),
            ("a", "gh run view 42 --log", {}, "error connecting to api.github.com", 1),
            ("b", "gh run view 42 --log", {"sandbox_permissions": "require_escalated"}, "ok", 0),
        ],
    )
    call = next(e for e in events if e.kind == ev.TOOL_CALL and e.call_id == "b")
    assert call.escalated and call.cwd is None
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "gh run: ask for escalated permissions"
    assert "escalated" in candidate.fix
    assert triggers.matches(candidate.trigger, "gh run view 42 --log")
    assert not triggers.matches(candidate.trigger, "gh pr view 7")


def test_codex_paths_given_from_the_wrong_workdir(tmp_path):
    """Relative paths of one repository searched from another's ``workdir``; the same search in
    the right ``workdir`` worked. Nothing in the command line tells them apart, so the lesson
    comes back when the failure does (no trigger). A missing file fixed by another name in the
    same ``workdir`` is a one-off."""
    events = _codex(
        tmp_path,
        [
            ("m1", "sed -n 1,40p src/apps.ts", {"workdir": "/w/app"},
             "sed: src/apps.ts: No such file or directory", 1),
            ("m2", "sed -n 1,40p src/app.ts", {"workdir": "/w/app"}, "x", 0),
            ("a", "rg -n audience src test", {"workdir": "/w/app"},
             "rg: src: No such file or directory (os error 2)", 2),
            ("b", "rg -n audience src test", {"workdir": "/w/action"}, "src/a.ts:1:audience", 0),
        ],
    )  # fmt: skip
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "rg: run it from the folder its paths are relative to"
    assert candidate.trigger is None
    assert "`/w/app`" in candidate.mistake


def test_codex_path_of_the_other_workdir_dropped_by_the_fix(tmp_path):
    """A session working in two repositories: ``workers`` searched from the action's
    ``workdir``, where only the service (whose ``workdir`` an earlier search used it from) has
    it; the same search without it worked, finding nothing. The path belonged to the other
    folder: the lesson is the working directory, and the fix did not fail (``rg`` found no
    line). Without the earlier use from the other folder, a missing path is a one-off."""
    wrong = ("a", "rg -n audience README.md workers src", {"workdir": "/w/action"},
             "rg: workers: No such file or directory (os error 2)", 2)  # fmt: skip
    fixed = ("b", "rg -n audience README.md src", {"workdir": "/w/action"}, "", 1)
    used = ("u", "rg -n audience workers test", {"workdir": "/w/service"}, "workers/a.ts:1:x", 0)
    (candidate,) = tier2.detect(_codex(tmp_path, [used, wrong, fixed]))
    assert candidate.summary == "rg: run it from the folder its paths are relative to"
    assert "`/w/action`" in candidate.mistake
    assert candidate.fix.endswith("`rg -n audience README.md src` worked.")
    assert candidate.trigger is None

    (tmp_path / "alone").mkdir()
    assert list(tier2.detect(_codex(tmp_path / "alone", [wrong, fixed]))) == []


def test_codex_path_that_repeats_the_workdir(tmp_path):
    events = _codex(
        tmp_path,
        [
            ("a", "sed -n 1,40p packages/api/src/app.test.ts", {"workdir": "/w/packages/api/src"},
             "sed: packages/api/src/app.test.ts: No such file or directory", 1),
            ("b", "sed -n 1,40p app.test.ts", {"workdir": "/w/packages/api/src"}, "x", 0),
        ],
    )  # fmt: skip
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "sed: run it from the folder its paths are relative to"


def test_a_fix_that_then_failed_for_its_own_reason_still_fixed_the_mistake(script):
    """``bun run test`` ran the tests where ``rtk bun run test`` could not start them; a test
    failing then is another matter, and the wrapper is still the lesson."""
    bad, good = "rtk bun run test", "bun run test"
    script.run(bad, "error: unrecognized subcommand 'bun'", failure=ERR, code=2)
    script.run(good, "src/a.test.ts:\n(fail) parses\n 1 fail", failure=ERR, code=1)
    candidate = _one(script)
    assert candidate.summary == "bun: `rtk` has no `bun` subcommand"
    _fires(candidate, bad, good)


def test_a_later_call_failing_the_same_way_is_a_repeat_not_the_fix(script):
    """``ls --colour`` refused, then ``ls --colr`` refused for the same reason, then ``ls
    --color`` ran: the second call did not get past the mistake, so it is counted as a repeat
    and the call that ran is the fix."""
    bad, good = "ls --colour", "ls --color"
    script.run(bad, "ls: unrecognized option '--colour'", failure=ERR, code=2)
    script.run("ls --colr", "ls: unrecognized option '--colr'", failure=ERR, code=2)
    script.run(good, "a.txt  b.txt")
    candidate = _one(script)
    assert [e.call_id for e in candidate.evidence] == ["c1", "c3"]
    assert candidate.fix == "Drop or replace the option: `ls --color` worked."
    assert "got past it" not in candidate.fix
    _fires(candidate, bad, good)


def test_drift_after_an_absolute_cd_into_a_subdirectory(script):
    """``cd /w/app/web && …`` stayed too; the fix went back to ``/w/app``. Nothing in the
    command line tells the drifted call from a right one, so the lesson has no trigger and
    comes back with the failure; its project is the repository."""
    script.run("cd /w/app/web && bun run build:css", "done", persistent_shell=True)
    script.run(
        "bun run lint",
        'error: Script not found "lint"',
        failure=ERR,
        code=1,
        persistent_shell=True,
        project="/w/app/web",
    )
    script.run(
        "cd /w/app && bun run lint",
        "Checked 40 files\nFound 1 error.",
        failure=ERR,
        code=1,
        persistent_shell=True,
        project="/w/app",
    )
    candidate = _one(script)
    assert candidate.summary.endswith("the working directory stayed where an earlier cd left it")
    assert candidate.trigger is None
    assert candidate.project == "/w/app"

    # An absolute ``cd`` to an unrelated folder, then a missing script fixed by another one:
    # no drift of this shell.
    other = type(script)(session="s2")
    other.run("cd /w/other && ls", "x", persistent_shell=True)
    other.run("cd /w/app && bun run lint", 'error: Script not found "lint"', failure=ERR, code=1,
              persistent_shell=True)  # fmt: skip
    other.run("cd /w/app && bun run check", "ok", persistent_shell=True)
    assert all("earlier cd" not in c.summary for c in _detect(other))


def test_the_same_difference_in_two_sessions_is_one_candidate(home, script):
    """Two sessions that make the same mistake and fix it the same way give one candidate,
    seen in both, more confident than either."""
    from lessons_core import services
    from lessons_core.models import Config
    from lessons_core.scan.intake import Intake

    found = []
    for session, args in (("s1", "run test"), ("s2", "test src/")):
        one = type(script)(session=session, project=f"/w/{session}")
        if session == "s2":
            one.say("Running the tests.")  # (both scripts write one file name)
        one.run(f"rtk bun {args}", "error: unrecognized subcommand 'bun'", failure=ERR, code=2)
        one.run(f"bun {args}", "3 pass")
        found += tier2.detect(one.events)
    assert len(found) == 2
    with services.open_store() as store:
        intake = Intake(store, Config())
        outcomes = [intake.admit(c) for c in found]
        assert [o.status for o in outcomes] == ["new", "duplicate"]
        (stored,) = [c for c in store.list_candidates(status=None) if c.tier == 2]
    assert {e.session_id for e in stored.evidence} == {"s1", "s2"}
    assert stored.confidence > max(c.confidence for c in found)


def test_a_step_the_error_named_then_the_same_command(script):
    """``pnpm run typecheck`` refused until ``pnpm install`` ran, as its error said; then the
    same command worked. Nothing in the command line tells the early call from the later one:
    the lesson comes back with the failure. The same command working again without any step
    between is still a passing failure, not a mistake."""
    script.run("git fetch origin", "Could not resolve host", failure=ERR, code=128)
    script.run("git fetch origin", "ok")
    error = (
        "ERR_PNPM_VERIFY_DEPS_BEFORE_RUN The installed dependencies in the modules directory "
        'is not up-to-date with the lockfile in /w/app.\n\nRun "pnpm install" to update them.'
    )
    script.run("corepack pnpm run typecheck", error, failure=ERR, code=1)
    script.run("corepack pnpm install --frozen-lockfile", "Done in 2.1s")
    script.run("corepack pnpm run typecheck", "")
    candidate = _one(script)
    assert candidate.summary == "pnpm run typecheck: run `pnpm install` first"
    assert candidate.trigger is None
    assert "`pnpm install`" in candidate.mistake and "`pnpm install`" in candidate.fix
    assert candidate.error_lines[0].startswith("ERR_PNPM_VERIFY_DEPS_BEFORE_RUN")
    assert candidate.error_lines[-1] == 'Run "pnpm install" to update them.'


@pytest.mark.parametrize("between", ["pnpm install", "npm install-test", "npm installer"])
def test_a_named_step_is_run_only_as_whole_words(script, between):
    """``Run "npm install"`` is not followed by a ``pnpm install`` (another tool) or an ``npm
    install-test``: the words of the step must stand alone in the call between."""
    error = 'npm ERR! missing: left-pad@1.3.0\nRun "npm install" to fix it.'
    script.run("npm run build", error, failure=ERR, code=1)
    script.run(between, "done")
    script.run("npm run build", "built")
    found = list(tier2.detect(script.events))
    assert all("`npm install` first" not in c.summary for c in found)


@pytest.mark.parametrize(
    ("command", "error", "step", "summary"),
    [
        ("gh pr create --fill",
         "aborted: you must first push the current branch to a remote, or use the --head flag",
         "git push -u origin HEAD", "gh pr: run `git push` first"),
        ("git rebase origin/main",
         "error: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.",
         "git stash", "git rebase: run `git stash` first"),
    ],
)  # fmt: skip
def test_a_step_the_error_asks_for_in_words(script, command, error, step, summary):
    """An error that asks for a step in words, not as a command ("must first push", "commit or
    stash them"), and the one call between whose subcommand is that word: the step, named by
    its executable and subcommand."""
    script.run(command, error, failure=ERR, code=1)
    script.run(step, "ok")
    script.run(command, "done")
    candidate = _one(script)
    assert candidate.summary == summary
    named = " ".join(step.split()[:2])
    assert f"Run `{named}` first, then the command again" in candidate.fix
    assert candidate.trigger is None


def test_a_word_the_error_only_mentions_is_no_step(script):
    """A check that lists what it would format, a ``format`` run, then the check passing: the
    code was changed, nothing was asked for. Two calls between: which made the difference is
    a guess (a call that only looked, ``git log``, would not count). A step that failed did
    nothing; a short word ("add") is too common to be read as one."""
    script.run("npm run check", "x Some errors were emitted.\nsrc/a.ts: format would change it",
               failure=ERR, code=1)  # fmt: skip
    script.run("npm run format", "Formatted 3 files")
    script.run("npm run check", "ok")
    script.run("gh pr create --fill", "aborted: you must first push the current branch",
               failure=ERR, code=1)  # fmt: skip
    script.run("git push -u origin HEAD", "ok")
    script.run("npm run build", "built in 2s")
    script.run("gh pr create --fill", "https://x/pull/1")
    script.run("gh pr create --draft", "aborted: you must first push the current branch",
               failure=ERR, code=1)  # fmt: skip
    script.run("git push -u origin HEAD", "rejected", failure=ERR, code=1)
    script.run("gh pr create --draft", "https://x/pull/2")
    script.run("git commit -m x", "nothing to commit; please add files first", failure=ERR,
               code=1)  # fmt: skip
    script.run("git add -A", "")
    script.run("git commit -m x", "[main 1] x")
    assert _detect(script) == []


def test_the_line_naming_the_step_is_kept_after_five_error_lines(script):
    """An output with five error lines and the advice after them: the lesson keeps four of
    them and the line that names the step, five in all, which recall matches it by."""
    errors = "\n".join(f"error: dependency number {n} is out of date" for n in range(6))
    script.run("pnpm run build", f'{errors}\nRun "pnpm install" to update them.', failure=ERR,
               code=1)  # fmt: skip
    script.run("pnpm install", "Done")
    script.run("pnpm run build", "built")
    (candidate,) = _detect(script)
    assert candidate.error_lines == (
        *(f"error: dependency number {n} is out of date" for n in range(4)),
        'Run "pnpm install" to update them.',
    )


# -- call ids used again -------------------------------------------------------------------------


def test_a_call_id_used_again_names_the_call_just_before_its_result(script):
    """Some models number their calls per answer, so ``functions.bash:0`` names many calls of
    one session. Each result is the result of the latest call of its id before it: the failure
    is paired with the command that failed, not with a later call that reused its id."""
    bad, good = "cargo bench --quick", "cargo bench"
    script.run("ls", "Cargo.toml", cid="functions.bash:0")
    script.run(
        bad,
        "error: unexpected argument '--quick' found",
        failure=ERR,
        code=2,
        cid="functions.bash:0",
    )
    script.run(good, "bench: 12 ns/iter", cid="functions.bash:0")
    candidate = _one(script)
    assert "`cargo bench --quick` failed" in candidate.mistake
    assert candidate.evidence[0].line == 4
    _fires(candidate, bad, good)


def test_an_option_a_cli_says_is_not_expected_in_this_context(script):
    """Biome (and CLIs built on its argument parser) refuse an option it does not have with
    ``--apply is not expected in this context`` (the flag in backticks): an unknown option,
    whose trigger names the refused flag and not the command alone."""
    bad, good = "npx @biomejs/biome check --apply src", "npx @biomejs/biome check --write src"
    script.run(bad, "Error: `--apply` is not expected in this context", failure=ERR, code=1)
    script.run(good, "Checked 12 files in 40ms. Fixed 1 file.")
    candidate = _one(script)
    assert candidate.summary == "biome: an option the command does not have"
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "npx @biomejs/biome check src")


# -- stale generated output ----------------------------------------------------------------------


STALE_TYPES = "build/gen/routes.d.ts(4,9): error TS1005: ';' expected.\n"


def test_an_error_in_generated_output_fixed_by_deleting_its_folder(script):
    """A type check failed in a file under a generated folder; the folder was deleted and the
    same check passed. Nothing in the command tells the stale run from the good one: the
    lesson names the folder and comes back with the failure."""
    script.run("npx tsc --noEmit", STALE_TYPES, failure=ERR, code=2)
    script.run("rm -rf build/gen/", "")
    script.run("npx tsc --noEmit", "")
    candidate = _one(script)
    assert candidate.summary == "tsc: delete the stale generated folder and run it again"
    assert candidate.trigger is None
    assert "`build/gen`" in candidate.mistake and "Delete `build/gen`" in candidate.fix
    assert any("TS1005" in line for line in candidate.error_lines)


def test_the_folder_deleted_in_the_fixing_call_itself(script):
    """``rm -rf out && tsc -b`` clears the folder and runs the check in one call."""
    script.run(
        "tsc -b",
        "out/types/api.d.ts(1,1): error TS1128: Declaration expected.",
        failure=ERR,
        code=1,
    )
    script.run("rm -rf out && tsc -b", "")
    candidate = _one(script)
    assert candidate.summary.endswith("delete the stale generated folder and run it again")
    assert "`out`" in candidate.mistake


def test_a_deletion_that_failed_on_the_way_is_passed_over(script):
    """Another ``rm`` failed between the failure and the folder deleted: the folder deleted
    after it is still what cleared the stale output."""
    script.run("npx tsc --noEmit", STALE_TYPES, failure=ERR, code=2)
    script.run("rm -rf .turbo", "rm: .turbo: Operation not permitted", failure=ERR, code=1)
    script.run("rm -rf build/gen/", "")
    script.run("npx tsc --noEmit", "")
    candidate = _one(script)
    assert candidate.summary == "tsc: delete the stale generated folder and run it again"
    assert "Delete `build/gen`" in candidate.fix


def test_deleting_another_folder_or_the_named_file_is_no_stale_output(script):
    """The deleted folder must hold the file the error named; deleting that file itself is
    changing the sources, and a folder the error never named explains nothing."""
    script.run("npx tsc --noEmit", STALE_TYPES, failure=ERR, code=2)
    script.run("rm -rf dist", "")
    script.run("npx tsc --noEmit", "")
    script.run("npx tsc --noEmit", STALE_TYPES, failure=ERR, code=2)
    script.run("rm build/gen/routes.d.ts", "")
    script.run("npx tsc --noEmit", "")
    # ``gen/…`` from here is not inside ``build/gen``, though the folder's name ends in it.
    script.run("npx tsc --noEmit", "gen/routes.d.ts(4,9): error TS1005: ';' expected.\n",
               failure=ERR, code=2)  # fmt: skip
    script.run("rm -rf build/gen", "")
    script.run("npx tsc --noEmit", "")
    assert _detect(script) == []


def test_a_file_rm_could_not_find_then_its_folder_deleted_is_no_stale_output(script):
    """``rm`` of a file that was not there names the path it was told to delete, not output a
    build read: deleting its folder next is the same cleanup done wider, no lesson."""
    script.run("rm build/gen/app.js.map", "rm: build/gen/app.js.map: No such file or directory",
               failure=ERR, code=1)  # fmt: skip
    script.run("rm -rf build/gen/", "")
    assert _detect(script) == []


# -- arguments the tool refused ------------------------------------------------------------------


SCHEMA_REFUSAL = (
    "The bash tool was called with invalid arguments: SchemaError(Missing key\n"
    '  at ["description"]).\nPlease rewrite the input so it satisfies the expected schema.'
)


def test_a_shell_call_whose_arguments_the_tool_refused(script):
    """The tool refused the call's arguments (a required key missing) before anything ran; the
    same command with them right worked. The command line does not show the mistake: the
    lesson is the tool's, without a trigger, and its error line names the missing key."""
    script.run("ls -la src", SCHEMA_REFUSAL, failure=ev.VALIDATION)
    script.run("ls -la src", "total 0")
    candidate = _one(script)
    assert candidate.summary == "Bash: call the tool with its own parameter names"
    assert candidate.trigger is None
    assert any('["description"]' in line for line in candidate.error_lines)
    assert "(`description` was missing): `ls -la src` worked" in candidate.fix


_TYPE_REFUSALS = {
    "claude": "<tool_use_error>InputValidationError: Read failed due to the following issue:\n"
    "The parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>",
    "zod": 'InputValidationError: [\n  {\n    "expected": "number",\n    "code": "invalid_type",\n'
    '    "path": [\n      "offset"\n    ],\n    "message": "Invalid input"\n  }\n]',
}


@pytest.mark.parametrize("refusal", _TYPE_REFUSALS.values(), ids=_TYPE_REFUSALS)
def test_a_parameter_of_the_wrong_type_is_named_in_the_fix(script, refusal):
    """A Read refused for a parameter's type (a range given as a string): the fix says which
    parameter and what it must be, as the error did, in Claude Code's words or a zod issue's.
    Nothing in the file's path shows the mistake: no trigger (one on ``.tsx`` paths would fire
    on every Read of such a file), recalled at the refusal."""
    script.file("Read", "/p/src/app.tsx", refusal, failure=ev.VALIDATION)
    script.file("Read", "/p/src/app.tsx", "280\tconst x = 1")
    candidate = _one(script)
    assert candidate.summary == "Read: call the tool with its own parameter names"
    assert "(`offset` must be a number); the Read call on app.tsx then worked" in candidate.fix
    assert candidate.trigger is None
    if "`offset` type" in refusal:  # the line that names the parameter is what recall matches
        assert candidate.error_lines == (refusal.split("\n")[1].split("<")[0],)


def test_a_command_that_printed_the_words_and_passed_next_time_is_flaky(script):
    """The same words printed by a command that failed (not a refusal by the tool), then the
    same command working, are a second try that passed: no lesson."""
    script.run("./check-schema.sh", SCHEMA_REFUSAL, failure=ERR, code=1)
    script.run("./check-schema.sh", "ok")
    assert _detect(script) == []


def test_a_wrapper_inside_a_wrapper(script):
    """``corepack pnpm exec vitest``: corepack runs pnpm, which runs vitest. The fix of a bare
    ``vitest`` that is not on PATH is the innermost wrapper, and the trigger is vitest run
    bare."""
    bad, good = "vitest run test/a.test.ts", "corepack pnpm exec vitest run test/a.test.ts"
    script.run(bad, "zsh:1: command not found: vitest", failure=ERR, code=127)
    script.run(good, "Test Files  1 passed (1)")
    candidate = _one(script)
    assert candidate.summary == "vitest: the command is not on PATH"
    assert "pnpm" in candidate.fix
    _fires(candidate, bad, good)


# -- an option that moved the command elsewhere ---------------------------------------------------


def test_a_script_missing_where_an_option_sent_the_command(script):
    """``npm --prefix web test``: the package in ``web`` has no ``test`` script; the same
    script from the root ran (and its tests then failed on their own). The trigger is the
    option with its value and the script, never every ``npm test``."""
    bad, good = "npm --prefix web test -- run", "npm test -- web/tests/"
    script.run(bad, 'npm error Missing script: "test"', failure=ERR, code=1)
    script.run(good, "Tests  2 failed | 9 passed", failure=ERR, code=1)
    candidate = _one(script)
    assert candidate.summary == "npm test: a subcommand or script that does not exist"
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "npm --prefix=web test")
    assert not triggers.matches(candidate.trigger, "npm --prefix web run build")
    assert not triggers.matches(candidate.trigger, "cd web && npm test")


def test_the_outer_wrapper_dropped_from_a_nest(script):
    """``fnm exec … corepack pnpm test`` refused by fnm, ``corepack pnpm test`` worked: the
    dropped wrapper is fnm, not the corepack the fix kept."""
    bad, good = "fnm exec --using=99 corepack pnpm test", "corepack pnpm test"
    script.run(bad, "error: Requested version 99 is not currently installed", failure=ERR, code=1)
    script.run(good, "12 passed")
    candidate = _one(script)
    assert candidate.summary == "pnpm: run it without `fnm`"
    _fires(candidate, bad, good)


def test_a_step_named_on_two_lines_keeps_the_first_of_them(script):
    """With no line an error word marks, the line that names the step is what recall matches:
    the first one, not every line that repeats it."""
    error = (
        "The modules directory is older than the lockfile.\n"
        'Run "pnpm install" to bring it up to date.\n'
        'After a pull, "pnpm install" again.'
    )
    script.run("pnpm run typecheck", error, failure=ERR, code=1)
    script.run("pnpm install", "Done in 2.1s")
    script.run("pnpm run typecheck", "")
    candidate = _one(script)
    assert candidate.error_lines == ('Run "pnpm install" to bring it up to date.',)


# -- the error a lesson quotes ------------------------------------------------------------------


def test_the_mistake_quotes_the_line_that_says_what_failed(script):
    """A coloured warning printed first is not the error: the lesson quotes the line that says
    why the call failed, without the terminal's colour codes."""
    bad, good = "vitest run test/a.test.ts", "pnpm exec vitest run test/a.test.ts"
    output = (
        "\x1b[33m▲ [WARNING]\x1b[0m Missing required secrets: API_KEY.\n"
        "zsh:1: command not found: vitest"
    )
    script.run(bad, output, failure=ERR, code=127)
    script.run(good, "1 passed")
    candidate = _one(script)
    assert "(“zsh:1: command not found: vitest”)" in candidate.mistake, candidate.mistake
    assert "\x1b" not in candidate.mistake and "WARNING" not in candidate.mistake
    assert candidate.error_lines[0] == "zsh:1: command not found: vitest"


@pytest.mark.parametrize(("word", "folder"), [("./...", "."), ("internal/...", "internal")])
def test_a_package_pattern_taken_for_a_path(script, word, folder):
    """``gofmt -l ./...`` looked for a file named ``...`` (only the ``go`` command expands the
    pattern); ``gofmt -l .`` worked. No file was guessed, so this is no one-off missing path:
    the lesson fires on the pattern given to ``gofmt``, never on the folder or on ``go vet``."""
    bad, good = f"gofmt -l {word}", f"gofmt -l {folder}"
    script.run(bad, f"stat {word}: no such file or directory", failure=ERR, code=2)
    script.run(good, "")
    candidate = _one(script)
    assert candidate.summary == "gofmt: it takes folders, not a `./...` pattern"
    assert "Give it a folder" in candidate.fix and f"`{good}` worked" in candidate.fix
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "go vet ./...")
    assert triggers.compiler_accepts(candidate.trigger)


def test_a_guessed_path_replaced_by_the_right_one_is_no_package_pattern(script):
    """A path that names a file (``./src/main.go``) and was not there is a fact of one
    repository: where the file lives, kept until the same guess comes back, never a package
    pattern."""
    script.run("gofmt -l ./src/main.go", "stat ./src/main.go: no such file or directory",
               failure=ERR, code=2)  # fmt: skip
    script.run("gofmt -l ./cmd/main.go", "")
    # A name with dots in it is a file too, not a pattern.
    script.run("gofmt -l ./gen...go", "stat ./gen...go: no such file or directory",
               failure=ERR, code=2)  # fmt: skip
    script.run("gofmt -l ./gen.go", "")
    (candidate,) = _detect(script)
    assert candidate.summary == "gofmt: `main.go` is at `cmd/main.go`"
    assert intake.RECURS_TAG in candidate.tags


@pytest.mark.parametrize(
    "deny",
    [
        # a guard's deny as Claude Code, OpenCode and Kilo record it: the lesson's text
        '## Lesson: json.tool has no --pretty\njson.tool fails with "error: unrecognized '
        'arguments: --pretty"\n**Fix**: Use --indent 2.',
        # Gemini CLI puts its words before the hook's reason
        "Tool execution blocked: ## Lesson: json.tool has no --pretty\nerror: unrecognized "
        "arguments\n**Fix**: Use --indent 2.",
        # the short form, when the full text did not fit the budget; a nudge's retry note
        "Lesson: json.tool has no --pretty — Fix: Use --indent 2.\n\nIf this does not apply "
        "here, run the same call again.",
    ],
)
def test_a_call_a_stored_lesson_stopped_is_no_mistake(script, deny):
    """The deny of a guard or nudge is a lesson already kept doing its work: learning from it
    would make the lesson again (or a teammate's guard the user's own), however much its text
    reads like an error."""
    script.run("python3 -m json.tool --pretty data.json", deny, failure=ERR, code=1)
    script.run("python3 -m json.tool --indent 2 data.json", '{\n  "b": 1\n}')
    assert _detect(script) == []


def test_a_failure_that_only_prints_a_lesson_heading_later_is_still_a_mistake(script):
    """The lesson's heading must open the result: a command that failed and printed one on a
    later line (a lessons file it was reading) failed for a reason of its own."""
    script.run(
        "python3 -m json.tool --pretty notes.md",
        "usage: python -m json.tool [-h] [--sort-keys]\npython -m json.tool: error: "
        "unrecognized arguments: --pretty\n## Lesson: kept in notes.md",
        failure=ERR,
        code=2,
    )
    script.run("python3 -m json.tool --indent 2 data.json", '{\n  "b": 1\n}')
    assert _one(script).summary == "json.tool: an option the command does not have"


# -- a command that wanted a terminal ------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "error", "good", "head", "silent"),
    [
        ("gh pr create --base main",
         "must provide `--title` and `--body` (or `--fill` or `fill-first` or `--fillverbose`) "
         "when not running interactively", "gh pr create --base main --fill", "gh pr",
         "gh pr create --fill"),
        ("git commit",
         "hint: Waiting for your editor to close the file... error: cannot run vi: No such file "
         "or directory\nerror: unable to start editor 'vi'\nPlease supply the message using "
         "either -m or -F option.", "git commit -m 'Add the login form'", "git commit",
         "git commit -m x"),
        # the flag that asked for the terminal, not the absence of the one the fix kept
        ("docker run -it --rm app make test", "the input device is not a TTY",
         "docker run -i --rm app make test", "docker run", "docker run --rm app ls"),
    ],
)  # fmt: skip
def test_a_command_that_wanted_a_terminal_learns_to_do_without(
    script, bad, error, good, head, silent
):
    """An agent's shell has no terminal: a command that prompts, opens an editor or asks for a
    TTY fails, and the fix gives on the command line what it would have asked for (or asks
    for no TTY). The lesson names the command to its action word, with the flag the fix
    dropped or without the one it added, so it neither fires on the fix nor on another
    action of the same command (``gh pr view``)."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "done")
    candidate = _one(script)
    assert candidate.summary == f"{head}: it wanted a terminal this shell does not have"
    assert f"`{good}` worked" in candidate.fix
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "gh pr view 12")
    assert not triggers.matches(candidate.trigger, silent)
    assert intake.pattern_problem(candidate.trigger) is None


def test_a_terminal_lesson_needs_a_trigger_its_whole_fix_does_not_fire(script):
    """A fix whose line holds the same command again, without the flag, gives no pattern that
    tells the two apart: the lesson has no trigger, rather than one that fires on its own fix,
    and comes back with the error."""
    script.run(
        "git commit",
        "error: unable to start editor 'vi'\nPlease supply the message using either -m or -F",
        failure=ERR,
        code=1,
    )
    script.run("git commit -m 'wip' && git commit --amend --no-edit", "[main 1a2b3c4] wip")
    candidate = _one(script)
    assert "terminal" in candidate.summary and candidate.trigger is None
    assert candidate.error_lines == ("error: unable to start editor 'vi'",)


def test_a_one_off_failure_fixed_under_another_package_manager_is_no_project_fact(script):
    """A permission refused is a one-off of that place, whichever manager ran next."""
    script.run(
        "npm install",
        "npm ERR! code EACCES\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/x'",
        failure=ERR,
        code=243,
    )
    script.run("pnpm install", "Done in 3.2s")
    assert all("package manager" not in c.summary for c in _detect(script))


def test_a_credential_prompt_git_could_not_show_is_no_terminal_lesson(script):
    """git's "terminal prompts disabled" is a credential this place lacks, which another remote
    or a login fixes: the authentication lesson, not a missing terminal."""
    script.run(
        "git push origin main",
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        failure=ERR,
        code=128,
    )
    script.run("git push git@github.com:o/r.git main", "To github.com:o/r.git")
    assert "terminal this shell" not in _one(script).summary


@pytest.mark.parametrize(
    ("bad", "good", "error", "also_bad", "also_good"),
    [
        (
            "cargo test --test-threads=1",
            "cargo test -- --test-threads=1",
            "error: unexpected argument '--test-threads' found\n\n  tip: to pass "
            "'--test-threads' as a value, use '-- --test-threads'",
            "cargo test --release --test-threads 2",
            "cargo test --release -- --test-threads 2",
        ),
        # npm ran the script without the option, warned, and the lint then failed: the
        # lesson is still the ``--``, though the output was the linter's errors
        (
            "npm run lint --fix",
            "npm run lint -- --fix",
            'npm warn Unknown cli config "--fix". This will stop working in the next major'
            " version of npm.\n\n/p/src/a.ts\n  22:9  error  'x' is never reassigned  "
            "prefer-const\n\n✖ 1 problem (1 error, 0 warnings)",
            "npm run lint --quiet --fix",
            "npm run lint --quiet -- --fix",
        ),
    ],
)
def test_an_option_for_the_program_a_command_runs_goes_after_the_dashes(
    script, bad, good, error, also_bad, also_good
):
    """``cargo test`` refuses an option of the test binary's (``npm run`` takes one of the
    script's for its own config); given after ``--``, it is handed on. The lesson is the
    ``--``, not dropping the option, and its trigger fires on the option given before any
    ``--`` only."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "test result: ok. 4 passed")
    candidate = _one(script)
    head = bad.split(" --")[0]  # (the command, without its options)
    assert candidate.summary == f"{head}: an option of the program it runs goes after `--`"
    assert candidate.fix.startswith("Pass it after `--`")
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, also_bad)
    assert not triggers.matches(candidate.trigger, also_good)
    assert intake.pattern_problem(candidate.trigger) is None


def test_an_option_dropped_by_the_fix_is_still_an_unknown_option(script):
    """The same refusal fixed by leaving the option out is the option the command lacks."""
    script.run("cargo build --watch", "error: unexpected argument '--watch' found", failure=ERR,
               code=1)  # fmt: skip
    script.run("cargo build", "Finished")
    assert _one(script).summary == "cargo build: an option the command does not have"


def test_a_job_done_through_the_project_s_own_package_manager(script):
    """``npm install`` refuses a pnpm workspace's versions; ``pnpm install`` does the same job.
    The lesson is the project's package manager, back at every bare ``npm`` there."""
    script.run(
        "npm install",
        'npm ERR! code EUNSUPPORTEDPROTOCOL\nnpm ERR! Unsupported URL Type "workspace:": '
        "workspace:*",
        failure=ERR,
        code=1,
    )
    script.run("pnpm install", "Done in 3.2s")
    candidate = _one(script)
    assert candidate.summary == "npm install: the project uses another package manager"
    assert "`pnpm install` worked" in candidate.fix
    _fires(candidate, "npm install", "pnpm install")
    assert triggers.matches(candidate.trigger, "cd web && npm run build")
    assert not triggers.matches(candidate.trigger, "pnpm exec npm-check")


def test_a_test_run_that_failed_then_passed_under_another_manager_is_no_lesson(script):
    """A test run that failed on the code is no wrong package manager, whichever ran it next."""
    script.run("npm test", "FAIL src/a.test.ts\nTests: 1 failed, 3 passed", failure=ERR, code=1)
    script.run("pnpm test", "Tests: 4 passed")
    assert _detect(script) == []


def test_a_typescript_file_given_to_plain_node_is_not_a_failing_run(script):
    """Node's coded ``TypeError [ERR_UNKNOWN_FILE_EXTENSION]`` says how the file was run, not
    that its code failed: ``tsx`` then running the same file is the lesson, recalled at that
    error."""
    script.run(
        "node scripts/seed.ts",
        'TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for '
        "/p/scripts/seed.ts",
        failure=ERR,
        code=1,
    )
    script.run("npx tsx scripts/seed.ts", "seeded 4 rows")
    candidate = _one(script)
    assert "`tsx`" in candidate.summary and candidate.trigger is None
    assert "ERR_UNKNOWN_FILE_EXTENSION" in candidate.error_lines[0]


def test_a_type_error_of_the_code_is_still_a_failing_run(script):
    """A plain ``TypeError`` is the code's: another runner passing next teaches nothing."""
    script.run("node scripts/seed.js", "TypeError: rows.map is not a function", failure=ERR,
               code=1)  # fmt: skip
    script.run("npx tsx scripts/seed.js", "seeded 4 rows")
    assert _detect(script) == []


def test_a_glob_bash_expanded_before_find_could_read_it(script):
    """bash expands an unquoted ``*.py`` to the files it matches, and ``find`` then refuses the
    second one: the quoted pattern is the fix, and the lesson fires on an unquoted glob only."""
    bad, good = "find . -name *.py -newer setup.cfg", "find . -name '*.py' -newer setup.cfg"
    script.run(
        bad,
        "find: paths must precede expression: `b.py'\nfind: possible unquoted pattern after "
        "predicate `-name'?",
        failure=ERR,
        code=1,
    )
    script.run(good, "./a.py")
    candidate = _one(script)
    assert (
        candidate.summary
        == "find: quote `*.py`, or the shell expands it before the program reads it"
    )
    _fires(candidate, bad, good)


def test_backslashes_the_shell_dropped_from_a_windows_path(script):
    """bash reads each backslash of a bare ``C:\\Users\\ana\\notes.md`` as an escape and drops
    it, and the error names the word as it was read: the lesson is the quoting, whatever the
    fix did (single quotes here), and its trigger fires on such a word given bare only."""
    _teaches(
        script,
        "cat C:\\Users\\ana\\notes.md",
        "cat: C:Usersananotes.md: No such file or directory",
        "cat '/mnt/c/Users/ana/notes.md'",
        summary="cat: quote `C:\\Users\\ana\\notes.md` in single quotes, or the shell drops its"
        " backslashes",
        others=["cat -n --file=C:\\Users\\a.md"],
        not_others=["cat 'C:\\Users\\ana\\notes.md'", "cat C:/Users/ana/notes.md"],
    )


def test_an_option_value_that_lost_its_backslashes():
    error = "tool: cannot open C:Tempa.md"
    assert triggers.eaten_backslashes("tool --in=C:\\Temp\\a.md", error) == "C:\\Temp\\a.md"


@pytest.mark.parametrize(
    ("command", "error"),
    [
        # the error names the word as written: the program got the backslashes
        ("cat 'C:\\Users\\a.md'", "cat: 'C:\\Users\\a.md': No such file or directory"),
        # the word the shell read is not in the error: nothing says it was read so
        ("cat C:\\Users\\a.md", "cat: a.md: Permission denied"),
        # a space escaped on purpose: the shell was meant to read it so
        ("cd my\\ notes", "bash: cd: my notes: No such file or directory"),
        # a regex escape the shell read as a letter: too short a word to tell
        ("grep \\d x.txt", "grep: d: No such file or directory"),
    ],
)
def test_backslashes_no_word_shows_the_shell_dropped(command, error):
    """Only a word given bare loses its backslashes; what the error names tells."""
    assert triggers.eaten_backslashes(command, error) is None


def test_an_option_a_configuration_file_added_is_recalled_at_its_error(script):
    """pytest refuses ``--cov`` that its ``addopts`` added (pytest-cov is missing): nothing in
    the command line shows it, so the lesson has no trigger and comes back with the error."""
    script.run(
        "pytest -x tests/unit",
        "ERROR: usage: pytest [options] [file_or_dir]\npytest: error: unrecognized arguments: "
        "--cov=src --cov-report=term\n  inifile: /p/pytest.ini",
        failure=ERR,
        code=4,
    )
    script.run("pytest -x -p no:cacheprovider -o addopts='' tests/unit", "12 passed")
    candidate = _one(script)
    assert candidate.trigger is None
    assert "unrecognized arguments: --cov=src" in candidate.error_lines[0]


def test_an_option_already_handed_on_is_no_lesson_about_the_dashes(script):
    """An option the failing call already passed after ``--`` was refused by the program it
    ran: moving it is no lesson of the ``--``."""
    script.run("cargo test -- --nocapture --exact", "error: Unrecognized option: 'exact'",
               failure=ERR, code=101)  # fmt: skip
    script.run("cargo test -- --nocapture --exact=true", "test result: ok")
    assert all("after `--`" not in c.summary for c in _detect(script))


def test_a_package_manager_that_worked_after_an_edit_is_no_project_fact(script):
    """A file edited between the two runs: the code was the problem, whatever ran next."""
    script.run("npm run build", 'npm ERR! Missing script: "build"', failure=ERR, code=1)
    script.file("Edit", "/p/package.json", "ok", edit=('"dev":', '"build": "vite build",\n"dev":'))
    script.run("pnpm run build", "built in 2.1s")
    assert all("package manager" not in c.summary for c in _detect(script))


def test_a_command_substitution_the_shell_tool_refused_is_recalled_at_the_refusal(script):
    """Gemini CLI's shell refuses ``$(…)``; the value read and written in is the fix. Other
    agents run such commands, so the lesson has no trigger: it comes back with the refusal."""
    script.run(
        'echo "release $(cat VERSION)"',
        "Command injection detected: command substitution syntax ($(), backticks, <() or >()) "
        "found in command arguments. This is a security risk and the command was blocked.",
        failure=ev.VALIDATION,
    )
    script.run("cat VERSION", "1.2.3")
    script.run('echo "release 1.2.3"', "release 1.2.3")
    candidate = _one(script)
    assert candidate.summary == "Bash: this agent's shell refuses command substitution"
    assert candidate.trigger is None
    assert candidate.fix.endswith('`echo "release 1.2.3"` worked.')


def test_a_hang_cured_by_running_one_file_is_no_lesson_about_that_file(script):
    """The whole suite hung, one file then passed: a narrower run, not a corrected call. No
    trigger names the file the fix ran."""
    script.run("pytest", "collecting ...", failure=ev.TIMEOUT)
    script.run("pytest tests/unit/test_a.py", "3 passed")
    assert all(c.trigger is None or "test_a" not in c.trigger for c in _detect(script))


def test_a_cd_dash_could_not_make_is_a_drift_in_dash_s_words(script):
    """dash words a ``cd`` into a folder that is not there "can't cd to sub", which names no
    missing path: the set-up step failed all the same, and the shell had drifted there."""
    script.run("cd sub && pwd", "/p/sub", persistent_shell=True)
    script.run(
        "cd sub && ls", "/bin/sh: 1: cd: can't cd to sub", failure=ERR, code=2,
        persistent_shell=True,
    )  # fmt: skip
    script.run("ls", "notes.txt", persistent_shell=True)
    assert _one(script).summary.endswith("the working directory stayed where an earlier cd left it")


def test_a_query_string_zsh_refused_is_no_glob_meant_for_files(script):
    """``a.yml?ref=main``: the ``?`` opens a query string, and quoting it is the fix, not a
    look elsewhere."""
    bad, good = (
        "gh api repos/o/r/contents/a.yml?ref=main",
        "gh api 'repos/o/r/contents/a.yml?ref=main'",
    )
    script.run(bad, "zsh:1: no matches found: repos/o/r/contents/a.yml?ref=main", failure=ERR,
               code=1)  # fmt: skip
    script.run(good, '{"name": "a.yml"}')
    assert _one(script).summary == "gh api: quote words the shell would read as syntax"


def test_a_trigger_that_misses_its_own_call_is_no_trigger(script, monkeypatch):
    """Whatever rule built it (some are built on one command of the line), a trigger that does
    not fire on the call it was learned from would never come back where the mistake does."""
    from lessons_core.scan.detectors.tier2 import lesson

    monkeypatch.setattr(lesson, "_trigger", lambda finding: r"^\s*\bnproc\b")
    script.run("make -j$(nproc)", "bash: nproc: command not found", failure=ERR, code=127)
    script.run("make -j$(sysctl -n hw.ncpu)", "cc -o app")
    # (without it, nothing else tells this call from its fix: no lesson at all)
    assert _detect(script) == []


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others"),
    [
        ("md5sum dist/app.js", "zsh: command not found: md5sum", "md5 dist/app.js",
         "md5sum: not on PATH here; `md5` does its job", ("md5sum a b", "ls | md5sum")),
        ("sha256sum release.tar.gz", "bash: sha256sum: command not found",
         "shasum -a 256 release.tar.gz", "sha256sum: not on PATH here; `shasum` does its job",
         ("cd out && sha256sum *.whl",)),
    ],
)  # fmt: skip
def test_a_program_the_machine_lacks_whose_job_another_did(
    script, bad, error, good, summary, others
):
    """GNU's ``md5sum`` on a Mac: a fact of the machine, recalled before any line that starts
    the missing program, whatever it is given (it is not the file that was the problem)."""
    script.run(bad, error, failure=ERR, code=127)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    _fires(candidate, bad, good)
    _reaches(candidate, others)
    assert not triggers.matches(candidate.trigger, "echo md5sum sha256sum")


def test_bsd_finds_unknown_primary_is_an_option_it_does_not_have(script):
    bad = "find . -name '*.log' -printf '%s %p\\n'"
    good = "find . -name '*.log' -exec stat -f '%z %N' {} +"
    script.run(bad, "find: -printf: unknown primary or operator", failure=ERR)
    script.run(good, "10 ./a.log")
    candidate = _one(script)
    assert candidate.summary == "find: an option the command does not have"
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "find src -type f -printf '%p\\n'")


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("npx prisma migrate dev",
         "Error code: P1012\nerror: Environment variable not found: DATABASE_URL.\n"
         "  -->  prisma/schema.prisma:10", "npx dotenv -e .env.local -- prisma migrate dev",
         "prisma migrate: `DATABASE_URL` is not set in the agent's shell"),
        ("python3 scripts/summarize.py",
         'Traceback (most recent call last):\n  File "scripts/summarize.py", line 4, in <module>\n'
         "    key = os.environ[\"OPENAI_API_KEY\"]\nKeyError: 'OPENAI_API_KEY'",
         "set -a && source .env && python3 scripts/summarize.py",
         "summarize.py: `OPENAI_API_KEY` is not set in the agent's shell"),
        ("gh release list", "error: GH_TOKEN environment variable is required",
         "GH_TOKEN=$(cat ~/.config/tok) gh release list",
         "gh release: `GH_TOKEN` is not set in the agent's shell"),
    ],
)  # fmt: skip
def test_a_variable_the_agents_shell_did_not_set(script, bad, error, good, summary):
    """The command needed a variable of the project's env file: the lesson names it, and comes
    back at the error (whether a later shell has it, no command line shows)."""
    script.run(bad, error, failure=ERR)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None
    assert f"`{good}` worked" in candidate.fix


def test_a_variable_set_by_changing_the_code_is_no_environment_lesson(script):
    """The code changed before the variable was given: which of the two fixed it is a guess."""
    script.run("python3 app.py", "KeyError: 'APP_MODE'", failure=ERR)
    script.file("Edit", "/p/app.py")
    script.run("APP_MODE=dev python3 app.py", "ok")
    assert not any("is not set" in c.summary for c in _detect(script))


def test_a_variable_that_stands_in_for_the_editor_is_what_the_trigger_looks_for(script):
    """``git rebase -i`` could not open an editor; the same rebase with the sequence editor set
    in front worked: the lesson fires on an interactive rebase without that variable."""
    bad, good = "git rebase -i HEAD~3", "GIT_SEQUENCE_EDITOR=true git rebase -i HEAD~3"
    error = "error: cannot run vi: No such file or directory\nerror: unable to start editor 'vi'"
    script.run(bad, error, failure=ERR)
    script.run(good, "Successfully rebased and updated refs/heads/feat.")
    candidate = _one(script)
    assert candidate.summary == "git rebase: it wanted a terminal this shell does not have"
    _fires(candidate, bad, good)
    assert triggers.matches(candidate.trigger, "git rebase -i --autosquash main")
    assert not triggers.matches(candidate.trigger, "git rebase main")
    assert not triggers.matches(candidate.trigger, "GIT_SEQUENCE_EDITOR=: git rebase -i main")


@pytest.mark.parametrize(
    "error",
    [
        "/w/app/scripts/seed.js:1\nimport fs from 'node:fs';\n^^^^^^\n\n"
        "SyntaxError: Cannot use import statement outside a module",
        "file:///w/app/scripts/seed.js:2\nconst fs = require('fs');\n\n"
        "ReferenceError: require is not defined in ES module scope, you can use import instead",
    ],
)
def test_a_module_of_the_other_kind_is_how_it_was_run_not_its_code(script, error):
    """Node refusing an ES ``import`` run as CommonJS (or ``require`` in an ES module) says how
    the file was run; another runner then ran it unchanged: a lesson, not a code failure."""
    script.run("node scripts/seed.js", error, failure=ERR)
    script.run("npx tsx scripts/seed.js", "seeded")
    candidate = _one(script)
    assert "`npx tsx scripts/seed.js` worked" in candidate.fix


def test_a_syntax_error_in_the_code_is_still_the_code(script):
    script.run("node scripts/seed.js", "SyntaxError: Unexpected token '}'", failure=ERR)
    script.run("npx tsx scripts/seed.js", "seeded")
    assert _detect(script) == []


def test_a_missing_program_the_error_does_not_name_is_another_way_only(script):
    """uv's "Failed to spawn" says a program is missing without the shell's words for which:
    the lesson is the other program that did the job, recalled at the error, with no claim
    about what is on PATH."""
    error = "error: Failed to spawn: `ruff`\n  Caused by: No such file or directory (os error 2)"
    script.run("uv run ruff check src/app.py", error, failure=ERR, code=2)
    script.run("flake8 src/app.py", "")
    candidate = _one(script)
    assert candidate.summary == "ruff: `flake8` did the job on `app.py`"
    assert candidate.trigger is None


def test_a_clustered_option_the_fix_gave_too_makes_no_trigger(script):
    """GNU grep by its path took the same ``-rP``: a trigger on the letter would fire on the
    fix as well, so there is none (and nothing else tells the two apart)."""
    script.run("grep -rP 'v\\d+' src", "grep: invalid option -- P\nusage: grep [-rv]", failure=ERR)
    script.run("/usr/local/opt/grep/libexec/gnubin/grep -rP 'v\\d+' src", "src/a.py:v1")
    assert _detect(script) == []


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("go test ./internal/...",
         "pattern ./internal/...: directory prefix internal does not contain main module",
         "cd backend && go test ./internal/...",
         "go test: run it in `backend`, where its project is"),
        ("npm run build", 'npm error Missing script: "build"', "cd web/ && npm run build",
         "npm run build: run it in `web`, where its project is"),
    ],
)  # fmt: skip
def test_a_command_that_worked_unchanged_from_a_folder_below(script, bad, error, good, summary):
    """The module, crate or package lives in a folder below: a fact of this project, recalled
    at the error (which folder a shell is in, no command line shows)."""
    script.run(bad, error, failure=ERR)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None
    assert candidate.fix.startswith("Run it from `")


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        ("mvn test", "./mvnw test"),
        ("gradle build", "./gradlew build"),
    ],
)
def test_a_build_tool_not_on_path_is_run_through_the_projects_own_script(script, bad, good):
    script.run(bad, f"bash: {bad.split()[0]}: command not found", failure=ERR, code=127)
    script.run(good, "BUILD SUCCESS")
    candidate = _one(script)
    assert candidate.summary == f"{bad}: the command is not on PATH"
    _fires(candidate, bad, good)


def test_a_project_in_a_folder_below_is_scoped_to_the_project(script, tmp_path):
    here = type(script)(project=str(tmp_path))
    here.run("go test ./...", "go: cannot find main module", failure=ERR)
    here.run("cd backend && go test ./...", "ok")
    candidate = _one(here)
    assert intake.scope_tag(str(tmp_path)) in candidate.tags
    assert intake.RECURS_TAG not in candidate.tags  # (told once, it is a lesson already)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("FAILED tests/test_api.py::test_get - assert 500 == 200\n1 failed, 4 passed", 1),
        ("touch: cannot touch 'out.log': Permission denied", 1),  # a one-off's class
    ],
)
def test_what_failed_for_its_own_reasons_is_no_project_below(script, error, code):
    """A failing test run (the code's) or a one-off's class that then worked from a folder
    below says nothing of where the project lives."""
    script.run("pytest", error, failure=ERR, code=code)
    script.run("cd backend && pytest", "5 passed")
    assert all("where its project is" not in c.summary for c in _detect(script))


def test_a_cloud_cli_without_credentials_is_an_authentication_lesson(script):
    error = (
        'Unable to locate credentials. You can configure credentials by running "aws configure".'
    )
    script.run("aws s3 ls", error, failure=ERR, code=255)
    script.run("aws s3 ls --profile dev", "2024-01-01 bucket")
    assert _one(script).summary == "aws s3: authenticate the way this place can"


def test_a_cloud_cli_that_wanted_a_pager_is_named_to_its_action(script):
    bad, good = "aws ec2 describe-instances", "aws ec2 describe-instances --no-cli-pager"
    script.run(bad, "Inappropriate ioctl for device", failure=ERR, code=255)
    script.run(good, "{}")
    candidate = _one(script)
    assert candidate.summary == "aws ec2: it wanted a terminal this shell does not have"
    _fires(candidate, bad, good)
    assert not triggers.matches(candidate.trigger, "aws ec2 describe-vpcs")


def test_a_step_that_needed_an_option_for_what_came_next(script):
    """``git stash`` leaves untracked files behind: the checkout then refused to overwrite
    them, ``git stash -u`` took them, and the checkout worked. The lesson is the stash's,
    before it runs without ``-u``; its evidence is the refused checkout."""
    script.run("git stash", "Saved working directory and index state WIP on feat: 1a2b wip")
    refused = (
        "error: The following untracked working tree files would be overwritten by checkout:\n"
        "\tsrc/new.py\nPlease move or remove them before you switch branches.\nAborting"
    )
    script.run("git checkout main", refused, failure=ERR)
    script.run("git stash -u", "Saved working directory and index state WIP on feat: 1a2b wip")
    script.run("git checkout main", "Switched to branch 'main'")
    candidate = _one(script)
    assert candidate.summary == "git stash: give it `-u`: `git checkout` needed it"
    _fires(candidate, "git stash", "git stash -u")
    assert triggers.matches(candidate.trigger, "git stash -m wip && git checkout main")
    assert not triggers.matches(candidate.trigger, "git stash pop")  # another action of it
    assert [e.call_id for e in candidate.evidence] == ["c3"]  # (the checkout)
    assert candidate.fix == "Run it with `-u`: `git stash -u` worked."
    assert candidate.mistake.startswith("`git stash`: it worked, but left undone")


@pytest.mark.parametrize(
    ("before", "between"),
    [
        (["pytest"], ["pytest -x"]),  # another program's step
        (["git stash"], ["git stash -u", "git status"]),  # two calls: which one did it?
        ([], ["git stash --keep-index"]),  # the step had not run before
    ],
)
def test_a_later_command_that_worked_again_is_no_step_lesson_otherwise(script, before, between):
    for command in before:
        script.run(command, "ok")
    script.run("git checkout main", "error: untracked files would be overwritten", failure=ERR)
    for command in between:
        script.run(command, "ok")
    script.run("git checkout main", "Switched to branch 'main'")
    assert _detect(script) == []


def test_a_step_that_had_failed_itself_is_its_own_finding_not_a_redone_step(script):
    script.run("git stash", "error: could not write index", failure=ERR)
    script.run("git checkout main", "error: untracked files would be overwritten", failure=ERR)
    script.run("git stash -u", "Saved working directory")
    script.run("git checkout main", "Switched to branch 'main'")
    assert all("needed it" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "trigger"),
    [
        # npm says which options would get past a peer conflict; the fix gave one
        ("npm install react-router@7",
         "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree\n"
         "npm error Fix the upstream dependency conflict, or retry\n"
         "npm error this command with --force or --legacy-peer-deps",
         "npm install react-router@7 --legacy-peer-deps",
         "npm install: give it `--legacy-peer-deps`, as its error says", True),
        # of the options it named, the one the failing call did not give already
        ("npm install --legacy-peer-deps react-router@7",
         "npm error ERESOLVE could not resolve\nnpm error retry with --legacy-peer-deps or --force",
         "npm install --legacy-peer-deps --force react-router@7",
         "npm install: give it `--force`, as its error says", True),
        # a short option counts too
        ("git clean -d", "fatal: clean.requireForce is true; use -f to clean", "git clean -d -f",
         "git clean: give it `-f`, as its error says", True),
        # cargo asks for ``--bin`` where a package has several binaries
        ("cargo run", "error: `cargo run` could not determine which binary to run. Use the"
         " `--bin` option to specify a binary, or the `default-run` manifest key.",
         "cargo run --bin server", "cargo run: give it `--bin`, as its error says", True),
        # pip names the ``--user`` it cannot honour in a virtualenv; the fix dropped it
        ("pip install --user black",
         "ERROR: Can not perform a '--user' install. User site-packages are not visible in this"
         " virtualenv.", "pip install black", "pip install: not with `--user`, as its error says",
         True),
        # the fix added ``--prefer-offline``; the error named only ``--force``: no such claim
        ("npm install lodash", "npm error network timeout\nnpm error retry with --force",
         "npm install lodash --prefer-offline",
         "npm install: it worked with `--prefer-offline`", False),
    ],
)  # fmt: skip
def test_an_option_its_error_names_is_the_summary(script, bad, error, good, summary, trigger):
    """The option the error named, which the fix gave or dropped, says what the mistake was
    better than "needed another way", and is the trigger: the command without the option the
    error asked for, or with the one it refused. An option the error did not name gives no
    trigger (every plain call of the command lacks it)."""
    script.run(bad, error, failure=ERR)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    if trigger:
        _fires(candidate, bad, good)
    else:
        assert candidate.trigger is None


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others"),
    [
        ("pip install opencv", "ERROR: No matching distribution found for opencv",
         "pip install opencv-python", "pip install: `opencv` is published as `opencv-python`",
         ("pip install numpy opencv==4.8", "uv pip install opencv")),
        ("sudo apt-get install -y fd", "E: Unable to locate package fd",
         "sudo apt-get install -y fd-find", "apt-get install: `fd` is published as `fd-find`",
         ("apt-get install fd ripgrep",)),
        ("npm i -D react-testing-library",
         "npm error 404 Not Found - GET https://registry.npmjs.org/react-testing-library",
         "npm i -D @testing-library/react",
         "npm i: `react-testing-library` is published as `@testing-library/react`",
         ("npm install react-testing-library@9",)),
    ],
)  # fmt: skip
def test_a_package_the_registry_publishes_under_another_name(
    script, bad, error, good, summary, others
):
    """A registry's name for a package is a fact of the registry: the lesson comes before any
    install that names the package so again, with a version or not, and never with the name
    that works (which may start with the other)."""
    candidate = _teaches(script, bad, error, good, summary=summary, others=others)
    assert not triggers.matches(
        candidate.trigger, bad.replace("install", "show").replace(" i ", " view ")
    )


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        # a slip of the keys is no name to remember
        ("pip install reqeusts", "ERROR: No matching distribution found for reqeusts",
         "pip install requests"),
        # the index was not updated yet: the same name, once it was
        ("apt-get install -y ripgrep", "E: Unable to locate package ripgrep",
         "apt-get install -y ripgrep"),
        # two names changed: which of them the registry lacked, the fix does not say
        ("pip install opencv tensorflow-gpu",
         "ERROR: No matching distribution found for tensorflow-gpu",
         "pip install opencv-python tensorflow"),
        # the error does not name the one swapped
        ("pip install opencv", "ERROR: Could not install packages due to an OSError",
         "pip install opencv-python"),
    ],
)  # fmt: skip
def test_no_package_name_lesson_otherwise(script, bad, error, good):
    script.run(bad, error, failure=ERR)
    if bad == good:
        script.run("apt-get update", "Reading package lists... Done")
    script.run(good, "ok")
    found = list(tier2.detect(script.events))
    assert not any("is published as" in c.summary for c in found), [c.summary for c in found]


@pytest.mark.parametrize(
    ("bad", "error", "good", "others", "not_others"),
    [
        ("apt-get install jq", "Do you want to continue? [Y/n] Abort.", "apt-get install -y jq",
         ("apt-get install ripgrep fd-find",), ("apt-get update",)),
        ("npx create-vite@latest web", "Need to install the following packages:\n"
         "create-vite@5.2.0\nOk to proceed? (y) \nnpm error canceled",
         "npx --yes create-vite@latest web", ("npx create-vite@latest other",), ("npx -y x",)),
        ("ssh-keygen -t ed25519 -f deploy_key",
         "Enter passphrase (empty for no passphrase): \nerror: read passphrase: no tty",
         "ssh-keygen -t ed25519 -f deploy_key -N ''", ("ssh-keygen -f k2",), ()),
        ("git merge origin/main", "error: Terminal is dumb, but EDITOR unset\n"
         "Not committing merge; use 'git commit' to complete the merge.",
         "git merge --no-edit origin/main", ("git merge feat",), ("git log",)),
        # a pager with no terminal to page on; the answer given before the subcommand
        ("git diff", "WARNING: terminal is not fully functional\nPress RETURN to continue",
         "git --no-pager diff", ("git diff --stat",), ("git --no-pager diff HEAD~1",)),
    ],
)  # fmt: skip
def test_a_prompt_that_read_the_end_of_its_input(script, bad, error, good, others, not_others):
    """apt's and npx's questions, ssh-keygen's passphrase and git's editor, each answered on
    the command line by the fix: a no-terminal lesson on the command without that answer
    (a runner's option, given before the command it runs, counts; an installer's package
    does not name the lesson)."""
    candidate = _teaches(script, bad, error, good, others=others, not_others=not_others)
    assert candidate.summary.endswith("it wanted a terminal this shell does not have")


def test_a_command_that_did_not_end_is_named_to_its_action(script):
    """``docker compose up`` in the foreground until the time limit, then ``-d``: the lesson
    comes with ``up``, not with ``docker compose logs``."""
    _teaches(
        script,
        "docker compose up",
        "Command timed out after 2m 0s\nAttaching to api-1",
        "docker compose up -d",
        others=("docker compose up api",),
        not_others=("docker compose logs api",),
        failure=ev.TIMEOUT,
    )


def test_a_database_user_the_client_took_from_the_shell_is_authentication(script):
    script.run(
        "psql -d app -c 'select 1'",
        'psql: error: connection to server failed: FATAL:  role "root" does not exist',
        failure=ERR,
        code=2,
    )
    script.run("psql -U postgres -d app -c 'select 1'", "1")
    assert _one(script).summary == "psql: authenticate the way this place can"


def test_a_top_level_await_outside_a_module_is_how_node_was_run(script):
    bad = "node -e \"const r = await fetch('http://localhost:3000')\""
    script.run(
        bad,
        "SyntaxError: await is only valid in async functions and the top level bodies of modules",
        failure=ERR,
    )
    script.run(bad.replace("node -e", "node --input-type=module -e"), "200")
    assert _one(script).summary == "node: it worked with `--input-type=module`"


@pytest.mark.parametrize(
    ("bad", "error", "good", "folder"),
    [
        ("go build", "no Go files in /w/app", "go build ./cmd/app", "cmd/app"),
        ("pip install -e .", "ERROR: file:///w/app does not appear to be a Python project: "
         "neither 'setup.py' nor 'pyproject.toml' found.", "pip install -e ./backend", "backend"),
        ("go test ./...", "pattern ./...: go.mod file not found in current directory or any "
         "parent directory", "go test ./services/api/...", "services/api"),
        # an option that runs the command from there says so itself
        ("make test", "make: *** No rule to make target 'test'.  Stop.", "make -C backend test",
         "backend"),
        ("npm test", "npm error enoent Could not read package.json: Error: ENOENT: no such file"
         " or directory, open '/w/app/package.json'", "npm --prefix web test", "web"),
        ("terraform plan", "Error: No configuration files", "terraform -chdir=infra plan",
         "infra"),
    ],
)  # fmt: skip
def test_a_command_pointed_at_a_folder_below_where_its_project_is(script, bad, error, good, folder):
    """The same command pointed at a folder below, after its tool said this one holds no
    project of its kind: the project lives there, as with ``cd folder && …``."""
    script.run(bad, error, failure=ERR)
    script.run(good, "ok")
    candidate = _one(script)
    assert (
        candidate.summary
        == f"{bad.split()[0]} {bad.split()[1]}: run it in `{folder}`, where its project is"
    )


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        # a narrower run after failing tests is no project elsewhere
        ("pytest", "FAILED tests/test_a.py::test_x - assert 1 == 2\n1 failed, 3 passed",
         "pytest ./tests/unit"),
        # a folder above, or one that is not a plain relative path
        ("go build", "no Go files in /w/app/cmd", "go build ../", ),
        ("go build", "no Go files in /w/app", "go build $PKG"),
        # a folder given beside another change
        ("pip install -e .", "does not appear to be a Python project",
         "pip install --no-deps -e ./backend"),
        # options that say where to put files, not where a project is
        ("tar xf a.tar", "tar: out: Cannot open: No such file or directory", "tar xf a.tar -C out"),
        ("pip install x", "ERROR: Could not install packages due to an OSError",
         "pip install --prefix build x"),
        ("npm test", "npm error Missing script: test", "npm --prefix ../web test"),
    ],
)  # fmt: skip
def test_a_folder_the_fix_pointed_at_is_no_project_below_otherwise(script, bad, error, good):
    script.run(bad, error, failure=ERR)
    script.run(good, "ok")
    assert not any("where its project is" in c.summary for c in _detect(script))


def test_a_stage_of_the_line_done_by_another_program(script):
    """``jq`` is not on this machine, and ``python3 -m json.tool`` did its job in the same place
    of the pipeline: a fact of the machine, before any line that runs ``jq``."""
    _teaches(
        script,
        "curl -s localhost:3000/health | jq .status",
        "bash: jq: command not found",
        "curl -s localhost:3000/health | python3 -m json.tool",
        summary="jq: not on PATH here; `json.tool` does its job",
        others=("jq -r .name package.json",),
        code=127,
    )


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        ("cat a.json | jq .x", "cat a.json | ~/.local/bin/jq -r .x"),  # found it after all
        ("cat a.json | jq .x", "cat b.json | python3 -m json.tool"),  # two stages changed
    ],
)
def test_no_stand_in_where_the_fix_found_the_program_or_changed_more(script, bad, good):
    script.run(bad, "bash: jq: command not found", failure=ERR, code=127)
    script.run(good, "{}")
    assert not any("does its job" in c.summary for c in _detect(script))


def test_an_option_the_projects_environment_has_a_plugin_for(script):
    """``pytest -n`` refused run bare, accepted through ``uv run``: the option was right and the
    place was not, so the lesson is the project's environment, before every bare ``pytest``."""
    script.run("pytest -n auto", "pytest: error: unrecognized arguments: -n", failure=ERR, code=4)
    script.run("uv run pytest -n auto", "40 passed")
    candidate = _one(script)
    assert candidate.summary.startswith("pytest: run it in the project's environment")
    _fires(candidate, "pytest -n auto", "uv run pytest -n auto")
    assert triggers.matches(candidate.trigger, "pytest tests/unit")


@pytest.mark.parametrize(
    "good", ["sudo pytest -n auto", "CI=1 pytest -n auto", "pytest -n auto -p xdist"]
)
def test_an_option_fixed_otherwise_is_no_environment_lesson(script, good):
    script.run("pytest -n auto", "pytest: error: unrecognized arguments: -n", failure=ERR, code=4)
    script.run(good, "40 passed")
    assert not any("environment" in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "good", "others", "not_others"),
    [
        # the flag that kept it running, which the fix dropped
        ("tail -f logs/app.log", "tail -n 50 logs/app.log", ("tail -f other.log",),
         ("tail -n 5 a.log",)),
        # a server in the foreground, then sent to the background
        ("python3 -m http.server 8000", "python3 -m http.server 8000 &",
         ("python3 -m http.server 9000 > log 2>&1", "cd site && python3 -m http.server"),
         ("nohup python3 -m http.server 8000 > log 2>&1 &",)),
        ("npm run dev", "nohup npm run dev > dev.log 2>&1 &", ("npm run dev -- --port 3001",),
         ("npm run dev &", "npm run build")),
        # a variable set in front that let it end
        ("psql -d app -c 'select * from users'", "PAGER=cat psql -d app -c 'select * from users'",
         ("psql -d app -c 'select 1'",), ("PAGER=cat psql -c 'select 2'",)),
    ],
)  # fmt: skip
def test_a_command_that_did_not_end(script, bad, good, others, not_others):
    error = "Command timed out after 2m 0s"
    _teaches(script, bad, error, good, others=others, not_others=not_others, failure=ev.TIMEOUT)


@pytest.mark.parametrize(
    ("bad", "error", "good", "others", "not_others"),
    [
        ('awk "{print $2}" data.txt', "awk: cmd. line:1: {print }\nawk: syntax error",
         "awk '{print $2}' data.txt", ('awk -F, "{print $1}" x.csv',),
         ("awk '{print $1}' x", 'awk -v n="$N" \'{print n}\' x')),
        ('python3 -c "import json; print(json.load(open("a.json")))"',
         "SyntaxError: invalid syntax",
         "python3 -c 'import json; print(json.load(open(\"a.json\")))'",
         ('python3 -c "open("b.txt").read()"',), ('python3 app.py "$INPUT"',)),
        # a backticked word the shell ran, not "not on PATH" of git; the commit was amended
        ('git commit -m "Use `fetch` in the client"', "bash: fetch: command not found",
         "git commit --amend -m 'Use `fetch` in the client'", ('git commit -m "Drop `axios`"',),
         ("git commit -m 'Drop `axios`'", 'git commit -m "Drop \\`axios\\`"',
          'git commit -m "Drop axios"')),
    ],
)  # fmt: skip
def test_an_argument_the_shell_read_inside_double_quotes(
    script, bad, error, good, others, not_others
):
    """The same command with one argument single-quoted instead: the shell had expanded ``$2``
    in it, or an inner ``"`` had ended it. The lesson comes before the command is given such a
    double-quoted word again, not before a variable quoted on purpose."""
    script.run(bad, error, failure=ERR, code=2)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary.endswith(
        'single-quote it; in double quotes the shell reads `$`, backticks and `"`'
    )
    _fires(candidate, bad, good)
    _reaches(candidate, others, not_others)


def test_quotes_swapped_with_nothing_the_shell_reads_into_are_no_such_lesson(script):
    script.run('grep -rn "TODO" src', "grep: src: No such file or directory", failure=ERR, code=2)
    script.run("grep -rn 'TODO' src", "src/a.py:1: # TODO")
    assert not any("single-quote" in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        ("cargo build", "error: failed to get `serde`\nCaused by:\n  Could not resolve host: "
         "index.crates.io", "cargo build --offline"),
        ("uv sync", "error: Failed to fetch: `https://pypi.org/simple/httpx/`\n  Caused by: dns "
         "error: failed to lookup address information", "uv sync --offline"),
        ("npm install", "npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org"
         "/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org", "npm install --offline"),
    ],
)  # fmt: skip
def test_no_network_where_it_ran_is_recalled_at_its_error(script, bad, error, good):
    """A place without network (a sandbox, a machine offline) is a fact of where the agent
    runs, not of the command: the same command works elsewhere, so the lesson is recalled when
    the resolver's error comes back, with what worked here."""
    script.run(bad, error, failure=ERR, code=101)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary.endswith(": no network where it ran")
    assert candidate.trigger is None
    assert f"`{good}` worked" in candidate.fix


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others", "not_others"),
    [
        ("go test -v -race ./...",
         "go: error: -race requires cgo; enable cgo by setting CGO_ENABLED=1",
         "CGO_ENABLED=1 go test -v -race ./pkg/...",
         "go test: give it `CGO_ENABLED=1`, as its error says", ("go test -race ./x",),
         ("go test ./...", "CGO_ENABLED=1 go test -race ./x")),
        ("python3 -m pytest",
         "E   django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but"
         " settings are not configured. You must either define the environment variable"
         " DJANGO_SETTINGS_MODULE or call settings.configure()",
         "DJANGO_SETTINGS_MODULE=app.settings python3 -m pytest",
         "pytest: give it `DJANGO_SETTINGS_MODULE=app.settings`, as its error says",
         ("python3 -m pytest tests/test_views.py",), ()),
    ],
)  # fmt: skip
def test_a_variable_its_error_names_set_in_front(
    script, bad, error, good, summary, others, not_others
):
    """The fix set in front the variable the error asked for: the lesson names it and comes
    before the command without it (with the option the error named too, where it did)."""
    _teaches(script, bad, error, good, summary=summary, others=others, not_others=not_others)


def test_quotes_changed_along_with_the_code_are_no_quoting_lesson(script):
    script.run('awk "{print $2}" data.txt', "awk: syntax error", failure=ERR, code=2)
    script.file("Edit", "/p/data.txt", "The file has been updated.", edit=("a b", "a  b"))
    script.run("awk '{print $2}' data.txt", "b")
    assert not any("single-quote" in c.summary for c in _detect(script))


def test_a_one_letter_option_in_the_other_case(script):
    """``scp`` takes the port as ``-P``; ``-p`` keeps the times. Nothing else changed, so the
    letter's case was the mistake."""
    _teaches(
        script,
        "scp -p 2222 a.txt deploy@host:/tmp/",
        "ssh: connect to host host port 22: Connection refused",
        "scp -P 2222 a.txt deploy@host:/tmp/",
        summary="scp: `-P`, not `-p`",
    )


def test_a_letter_in_the_other_case_beside_another_change_is_no_such_lesson(script):
    script.run("scp -p 2222 a.txt host:/tmp/", "Connection refused", failure=ERR)
    script.run("scp -P 2222 b.txt host:/tmp/", "")
    assert not any("not `-p`" in c.summary for c in _detect(script))


def test_a_revision_git_does_not_know_is_a_one_off(script):
    """``HEAD~1`` in a repository of one commit: the state of this repository, not a mistake
    to warn of wherever ``HEAD~1`` is written."""
    script.run(
        "git diff HEAD~1",
        "fatal: ambiguous argument 'HEAD~1': unknown revision or path not in the working tree.",
        failure=ERR,
        code=128,
    )
    script.run("git diff --cached", "diff --git a/x b/x")
    assert _detect(script) == []


# -- what changed, when no class explains it; facts of the machine ------------------------------


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        (
            "npm run build",
            "> vite build\nsh: 1: vite: not found",
            "npm install && npm run build",
            "npm run build: run `npm install` first",
        ),
        (
            "terraform plan",
            "Error: Inconsistent dependency lock file\n  terraform init",
            "terraform init && terraform plan",
            "terraform plan: run `terraform init` first",
        ),
        (
            "git rebase main",
            "error: cannot rebase: You have unstaged changes.",
            "git rebase --autostash main",
            "git rebase: it worked with `--autostash`",
        ),
        # a variable set in front, nothing else changed
        (
            "pytest",
            "E   ImportError while loading conftest '/w/tests/conftest.py'.",
            "PYTHONPATH=src pytest",
            "pytest: it worked with `PYTHONPATH=src`",
        ),
        # where it may not write, a variable gave it a place of its own (a sandbox)
        (
            "go test ./...",
            "failed to initialize build cache at /home/u/.cache/go-build: mkdir /home/u/.cache/"
            "go-build: operation not permitted",
            "GOCACHE=$PWD/.cache/go-build go test ./...",
            "go test: `GOCACHE` is not set in the agent's shell",
        ),
        # a variable set in front that names a path: no wrapper of that name
        (
            "mvn -q compile",
            "[ERROR] Fatal error compiling: error: release version 21 not supported",
            "JAVA_HOME=/usr/lib/jvm/java-21 mvn -q compile",
            "mvn compile: it worked with `JAVA_HOME=/usr/lib/jvm/java-21`",
        ),
        # a CLI's own "INSTALLATION FAILED" is no failed run of the code
        (
            "helm install redis bitnami/redis",
            "Error: INSTALLATION FAILED: repo bitnami not found",
            "helm repo add bitnami https://charts.bitnami.com/bitnami && helm install redis"
            " bitnami/redis",
            "helm install: run `helm repo add bitnami https://charts.bitnami.com/bitnami` first",
        ),
        # a failed test run whose error asked for the step
        (
            "npx vitest run src/orders",
            " FAIL  src/orders/a.test.ts\nError: @prisma/client did not initialize yet. Please run"
            ' "prisma generate" and try to import it again.\n Test Files  1 failed (1)',
            "npx prisma generate && npx vitest run src/orders",
            "vitest: run `npx prisma generate` first",
        ),
        # an option added with its value
        (
            "docker run --rm app:latest",
            "exec /usr/local/bin/app: exec format error",
            "docker run --rm --platform linux/arm64 app:latest",
            "docker run: it worked with `--platform linux/arm64`",
        ),
        (
            "kubectl get pods",
            'error: the server doesn\'t have a resource type "pods"',
            "kubectl --context staging get pods",
            "kubectl get: it worked with `--context staging`",
        ),
        # an interpreter's option: the same script run, not another program doing its job
        (
            "node scripts/build.js",
            "SyntaxError: Cannot use import statement outside a module",
            "node --experimental-default-type=module scripts/build.js",
            "build.js: it worked with `--experimental-default-type=module`",
        ),
        # a step in front of the very same command outranks the error's class (a module
        # missing, an option refused): that step, not a trigger on every call
        (
            "python3 -m pip install requests",
            "/usr/bin/python3: No module named pip",
            "python3 -m ensurepip --user && python3 -m pip install requests",
            "pip install: run `python3 -m ensurepip --user` first",
        ),
        (
            "pytest --cov=app",
            "pytest: error: unrecognized arguments: --cov=app",
            "pip install pytest-cov && pytest --cov=app",
            "pytest: run `pip install pytest-cov` first",
        ),
        # where it may not write, or a module the environment lacks: a fact of the place
        (
            "git config --global user.email a@b.c",
            "error: could not lock config file /home/u/.gitconfig: Permission denied",
            "git config user.email a@b.c",
            "git config: not permitted there; it worked without `--global`",
        ),
        (
            "make install",
            "install: cannot create regular file '/usr/local/bin/fq': Permission denied\n"
            "make: *** [Makefile:24: install] Error 1",
            "make install PREFIX=$HOME/.local",
            "make install: not permitted there; it worked with `PREFIX=$HOME/.local`",
        ),
        (
            "python setup.py build_ext --inplace",
            'Traceback (most recent call last):\n  File "/w/setup.py", line 1, in <module>\n'
            "    from distutils.core import setup\nModuleNotFoundError: No module named "
            "'distutils'",
            "pip install setuptools && python setup.py build_ext --inplace",
            "setup.py build_ext: run `pip install setuptools` first",
        ),
    ],
)
def test_what_the_fix_did_is_the_summary(script, bad, error, good, summary):
    """A fix no class explains is still told by what it did: a step it ran first, an option it
    added; recalled at the error, since the same command works once the step is done. So is a
    fact of the place (where it may not write, a module the environment lacks): the same call
    works elsewhere."""
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others", "not_others"),
    [
        pytest.param(
            "git clone git@github.com:acme/widgets.git",
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote"
            " repository.",
            "git clone https://github.com/acme/widgets.git",
            "git clone: the HTTPS address, not SSH (no SSH key here)",
            ["git submodule add git@github.com:acme/lib.git vendor/lib"],
            ["git clone https://github.com/acme/lib.git", "git clone git@gitlab.com:a/b"],
            id="no SSH key: any git command given an SSH address of the host",
        ),
        pytest.param(
            "readlink -f ./build",
            "readlink: illegal option -- f\nusage: readlink [-n] [file ...]",
            "realpath ./build",
            "readlink: no `-f` here; `realpath` does its job",
            ["readlink -f /tmp/x"],
            ["readlink link", "realpath -f x"],
            id="an option another program has here",
        ),
        pytest.param(
            "ruff format --fix .",
            "error: unexpected argument '--fix' found\n\nUsage: ruff format [OPTIONS] [FILES]...",
            "ruff check --fix .",
            "ruff: no `--fix` here; `ruff check` does its job",
            ["ruff format src --fix"],
            ["ruff format .", "ruff check --fix src"],
            id="an option another subcommand has",
        ),
        pytest.param(
            "sed -i 's/foo/bar/' config.yml",
            'sed: 1: "config.yml": invalid command code c',
            "sed -i '' 's/foo/bar/' config.yml",
            "sed: `-i` takes an argument here (`-i ''`)",
            ["sed -i 's/a/b/g' x.txt"],
            ["sed -n '1,5p' x.txt", "sed -i '' 's/a/b/' y"],
            id="BSD sed -i takes the next word for its backup suffix",
        ),
        pytest.param(
            "python3 app/cli.py sync --dry-run",
            'Traceback (most recent call last):\n  File "/w/app/cli.py", line 3, in <module>\n'
            "    from .config import load\nImportError: attempted relative import with no known"
            " parent package",
            "python3 -m app.cli sync --dry-run",
            "cli.py sync: run it as a module, `python3 -m app.cli`",
            ["python3 app/cli.py export", "python3 -u ./app/cli.py"],
            ["python3 -m app.cli export", "cat app/cli.py", "python3 tools/app/cli.py"],
            id="a script that imports its own package runs as a module",
        ),
    ],
)
def test_a_fact_of_the_machine_the_fix_showed(
    script, bad, error, good, summary, others, not_others
):
    """What this machine (or this project's layout) lacks or wants, shown by a fix that
    changed only that: the lesson comes before any call that would meet it again, not before
    the plain command."""
    _teaches(script, bad, error, good, summary=summary, others=others, not_others=not_others)


def test_a_wrapper_in_a_step_in_front_is_no_wrapper_of_the_command(script):
    """``npx prisma generate && vitest run``: npx wraps the step, not the command that failed."""
    script.run("vitest run", "Error: @prisma/client did not initialize yet.", failure=ERR, code=1)
    script.run("npx prisma generate && vitest run", "Tests  3 passed")
    assert _one(script).summary == "vitest: run `npx prisma generate` first"


def test_a_wrapper_around_a_wrapped_command_is_not_read_as_one(script):
    """The failing call ran through a wrapper already: which of the two made it work is not
    told, and a trigger on the outer one's program would fire on every call of it."""
    script.run("uv run pytest", "E   KeyError: 'DATABASE_URL'", failure=ERR, code=1)
    script.run("dotenv run -- uv run pytest", "3 passed")
    assert not any("run it through" in c.summary for c in _detect(script))


def test_a_traceback_is_quoted_by_its_exception_not_its_heading(script):
    script.run(
        "python3 app/cli.py sync",
        'Traceback (most recent call last):\n  File "/w/app/cli.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'app'",
        failure=ERR,
        code=1,
    )
    script.run("python3 -m app.cli sync", "synced")
    assert "(“ModuleNotFoundError: No module named 'app'”)" in _one(script).mistake


def test_a_step_in_front_after_an_edit_is_no_step(script):
    script.run("npm run build", "sh: 1: vite: not found", failure=ERR, code=127)
    script.file("Edit", "/p/package.json", "The file has been updated.", edit=("a", "b"))
    script.run("npm install && npm run build", "built")
    assert not any("first" in c.summary for c in _detect(script))


_NPM_CI = (
    "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json"
    " are in sync. Please update your lock file with `npm install` before continuing."
)


def test_another_subcommand_the_error_named(script):
    """``npm ci`` refused a lockfile out of sync and said to run ``npm install``, which worked:
    recalled at that error (once the lockfile is in sync, ``npm ci`` works again)."""
    script.run("npm ci", _NPM_CI, failure=ERR, code=1)
    script.run("npm install", "added 120 packages")
    candidate = _one(script)
    assert candidate.summary == "npm ci: `npm install` instead, as its error says"
    assert candidate.trigger is None
    assert "`npm install`" in candidate.fix


def test_another_subcommand_the_error_did_not_name_is_no_fix(script):
    script.run("npm ci", _NPM_CI, failure=ERR, code=1)
    script.run("npm update", "updated 3 packages")
    assert _detect(script) == []


def test_the_subcommand_the_error_named_not_the_first_that_worked(script):
    script.run("npm ci", _NPM_CI, failure=ERR, code=1)
    script.run("npm update", "updated 3 packages")
    script.run("npm install", "added 120 packages")
    candidate = _one(script)
    assert candidate.summary == "npm ci: `npm install` instead, as its error says"


def test_another_program_the_error_named_is_the_project_managers(script):
    """The error named a command of another program (the project's package manager): that
    lesson, not "another subcommand"."""
    script.run(
        "npm ci",
        'npm ERR! Use "pnpm install" for installation in this project.',
        failure=ERR,
        code=1,
    )
    script.run("pnpm install", "Done in 2.1s")
    assert _one(script).summary == "npm ci: the project uses another package manager"


_PAGED = "Command timed out after 120000ms\ncommit 4f2a9c1\nAuthor: A <a@b.c>\n\n    Round up\n:"


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others", "not_others"),
    [
        pytest.param(
            "git log -p -3",
            _PAGED,
            "git --no-pager log -p -3",
            "git log: it hung; it ended with `--no-pager`",
            ["git log --stat"],
            ["git --no-pager log --stat", "git --no-pager log -p -3 -- src"],
            id="an option before the subcommand ended it: looked for on the whole line",
        ),
        pytest.param(
            "npm init",
            "Command timed out after 120000ms\nThis utility will walk you through creating a"
            " package.json file.\npackage name: (app) ",
            "npm init -y",
            "npm init: it hung; it ended with `-y`",
            ["npm init"],
            ["npm init -y", "npm install"],
            id="a prompt answered by -y: no noise where the call waited on one",
        ),
    ],
)
def test_a_command_that_hung_and_what_ended_it(
    script, bad, error, good, summary, others, not_others
):
    _teaches(
        script, bad, error, good, summary=summary, others=others, not_others=not_others,
        failure=ev.TIMEOUT, code=None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others", "not_others"),
    [
        pytest.param(
            "git add docs/API Reference.md",
            "fatal: pathspec 'docs/API' did not match any files",
            'git add "docs/API Reference.md"',
            "git add: quote `docs/API Reference.md`, it holds a space",
            ["cat docs/API Reference.md"],
            ["cat 'docs/API Reference.md'", "cat docs/API\\ Reference.md", "cat docs/API.md"],
            id="a path with a space, split by the shell",
        ),
        pytest.param(
            'curl -u "admin:s3cr!tPass" http://localhost:15672/api/queues',
            "bash: !tPass: event not found",
            "curl -u 'admin:s3cr!tPass' http://localhost:15672/api/queues",
            'curl: single-quote it; in double quotes the shell reads `$`, backticks and `"`',
            ['curl -u "u:p!ss" http://h'],
            ["curl -u 'u:p!ss' http://h", 'curl -d "done!" http://h'],
            id="a history ! in double quotes",
        ),
    ],
)
def test_quoting_the_shell_wanted(script, bad, error, good, summary, others, not_others):
    _teaches(script, bad, error, good, summary=summary, others=others, not_others=not_others)


@pytest.mark.parametrize(
    "good",
    [
        "goimports -w internal/api/handler.go && go build ./...",
        "gofmt -w main.go && go build ./...",
        "npx prettier --write src/a.ts && go build ./...",
    ],
)
def test_a_formatter_that_rewrote_the_code_in_front_is_no_step(script, good):
    script.run(
        "go build ./...", "internal/api/handler.go:9:2: undefined: json", failure=ERR, code=1
    )
    script.run(good, "ok")
    assert list(tier2.detect(script.events)) == []


def test_a_command_fed_its_input_by_the_fix_gets_no_trigger_on_its_runner(script):
    """``printf … | npx wrangler secret put`` fed the prompt that hung: how the command was run
    did not change, so no trigger on every bare ``npx``."""
    script.run(
        "npx wrangler secret put KEY",
        "Command timed out after 120000ms\n? Enter a secret value: ",
        failure=ev.TIMEOUT,
        code=None,
    )
    script.run('printf %s "$KEY" | npx wrangler secret put KEY', "Success! Uploaded secret KEY")
    assert not any(
        c.trigger and triggers.matches(c.trigger, "npx vitest run") for c in _detect(script)
    )


def test_a_go_test_that_failed_is_still_the_codes(script):
    script.run(
        "go test ./internal/parser",
        "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2",  # (the head)
        failure=ERR,
        code=1,
    )
    script.run("go generate ./... && go test ./internal/parser", "ok")
    assert list(tier2.detect(script.events)) == []


def test_a_slip_the_tool_set_right_is_no_lesson(script):
    """ninja said which target was meant, and the fix took it: a typo, a one-off."""
    script.run(
        "cmake --build build --target unit_test",
        "ninja: error: unknown target 'unit_test', did you mean 'unit_tests'?",
        failure=ERR,
        code=1,
    )
    script.run("cmake --build build --target unit_tests", "ok")
    assert list(tier2.detect(script.events)) == []


# -- an argument in another form -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "others", "not_others"),
    [
        pytest.param(
            "pytest tests/test_cart.py:41",
            "collected 0 items\n\nno tests ran in 0.01s\n"
            "ERROR: file or directory not found: tests/test_cart.py:41",
            "pytest tests/test_cart.py::test_empty_total",
            "pytest: write `tests/test_cart.py::test_empty_total`, not `tests/test_cart.py:41`",
            ["python -m pytest tests/test_api.py:7 -x"],
            ["pytest tests/test_api.py::TestApi::test_get -x", "pytest tests/test_api.py"],
            id="a line number where pytest takes a test's name",
        ),
        pytest.param(
            "./gradlew test --tests 'billing.TaxTest#roundsDown'",
            "> Task :test FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "> No tests found for given includes: [billing.TaxTest#roundsDown](--tests filter)",
            "./gradlew test --tests 'billing.TaxTest.roundsDown'",
            "gradlew test: write `billing.TaxTest.roundsDown`, not `billing.TaxTest#roundsDown`",
            ["./gradlew test --tests 'CartTest#addsItem'"],
            ["./gradlew test --tests 'CartTest.addsItem'", "mvn test -Dtest='CartTest#addsItem'"],
            id="the error names the form, though the run says FAILED",
        ),
        pytest.param(
            "pip install httpx@0.27",
            "ERROR: Invalid requirement: 'httpx@0.27'",
            "pip install httpx==0.27",
            "pip install: write `httpx==0.27`, not `httpx@0.27`",
            ["pip install ruff@0.5 -q"],
            ["pip install ruff==0.5", "pip install ruff"],
            id="another ecosystem's version pin",
        ),
    ],
)
def test_an_argument_the_command_takes_in_another_form(
    script, bad, error, good, summary, others, not_others
):
    """The fix wrote one word otherwise by a separator or a sign, naming the same thing: the
    form is the tool's, met each time it is written so again."""
    _teaches(script, bad, error, good, summary=summary, others=others, not_others=not_others)


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        pytest.param(
            "cat src/util.ts",
            "cat: src/util.ts: No such file or directory",
            "cat src/lib/util.ts",
            id="another folder: a guessed path",
        ),
        pytest.param(
            "pytest tests/test_cart.py::TestCart::test_total",
            "FAILED tests/test_cart.py::TestCart::test_total - assert 3 == 4\n1 failed",
            "pytest tests/test_cart.py::TestCart",
            id="a narrower run cut off",
        ),
        pytest.param(
            "pytest tests/test_cart.py",
            "FAILED tests/test_cart.py::test_total - assert 3 == 4\n1 failed",
            "pytest tests/test_cart.py::test_other",
            id="a test picked out: nothing of the first form to look for",
        ),
        pytest.param(
            "npx vitest run cart#total",
            "FAIL src/cart.test.ts > total\nAssertionError: expected 3 to be 4",
            "npx vitest run cart.total",
            id="a run that failed on the code, its error not naming the word",
        ),
        pytest.param(
            "make build --target=x86",
            "make: unrecognized option '--target=x86'",
            "make build --arch=x86",
            id="an option itself written otherwise",
        ),
    ],
)
def test_what_is_no_other_form_of_the_same_argument(script, bad, error, good):
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "ok")
    assert not any(" not `" in c.summary for c in _detect(script))


# -- a look around is no fix ---------------------------------------------------------------------


def test_the_fix_is_the_work_done_not_the_look_around_before_it(script):
    """Between the failure and its fix the agent looked: a listing of the same program with
    another subcommand, a dry run. Neither is the fix; the call that did the failed work is."""
    script.run(
        "docker compose up -d web", "no configuration file provided: not found", failure=ERR, code=1
    )
    script.run("ls", "compose.local.yml\nsrc")
    script.run("docker compose -f compose.local.yml config --services", "db\nweb")
    script.run("docker compose -f compose.local.yml up --detach web", "Container app-web-1 Started")
    candidate = _one(script)
    assert "up --detach web" in candidate.fix and "config" not in candidate.fix


def test_a_later_run_of_the_failed_words_that_failed_again_leaves_the_fix_as_it_was(script):
    script.run("npm run test:unit", 'npm error Missing script: "test:unit"', failure=ERR, code=1)
    script.run("npm test", "Tests: 12 passed")
    script.run("npm run test:unit", 'npm error Missing script: "test:unit"', failure=ERR, code=1)
    assert "`npm test`" in _one(script).fix


def test_a_dry_run_is_a_look_not_the_fix(script):
    script.run("make lint", "make: *** No rule to make target 'lint'.  Stop.", failure=ERR, code=2)
    script.run("make -n -C server lint", "ruff check .")
    script.run("make -C server lint", "All checks passed!")
    candidate = _one(script)
    assert "`make -C server lint`" in candidate.fix and "-n" not in candidate.fix


@pytest.mark.parametrize(
    ("failing", "other", "looks"),
    [
        ("crontab -e", "crontab -l", True),
        ("unzip dist.zip -d out", "unzip -l dist.zip", True),
        ("make lint", "make -n -C server lint", True),
        # another run of the program on the line does the work the look fed
        ("crontab -e", "(crontab -l 2>/dev/null; echo '0 * * * * job') | crontab -", False),
        (
            "kubectl create secret generic k --from-literal=a=b",
            "kubectl create secret generic k --from-literal=a=b --dry-run=client -o yaml"
            " | kubectl apply -f -",
            False,
        ),
        # a line that never runs the failing program: its main command tells
        ("gh release create v1.8.0", "git tag --list 'v1*' && git ls-remote --tags origin", True),
        # ``-l`` elsewhere is a long listing, a login shell, a count of lines
        ("bash run.sh", "bash -l run.sh", False),
        # the failing call looked the same way: not a look taken since
        ("make -n deploy", "make -n -C ops deploy", False),
        # a failing call with no command to read: the look's own options tell
        ("", "make -n lint", True),
    ],
)
def test_what_only_looks_at_what_a_command_would_do(failing, other, looks):
    assert calls._probes(_bash(other), _bash(failing)) is looks


def test_a_listing_fed_into_the_program_that_installs_it_is_the_fix_not_a_look(script):
    script.run(
        "crontab -e",
        "Vim: Warning: Output is not to a terminal\nVim: Error reading input, exiting...\n"
        'crontab: "/usr/bin/sensible-editor" exited with status 1',
        failure=ERR,
        code=1,
    )
    script.run("crontab -l", "no crontab for deploy")
    script.run("(crontab -l 2>/dev/null; echo '*/5 * * * * ./pull.sh') | crontab -", "")
    candidate = _one(script)
    assert "| crontab -`" in candidate.fix and "`-l`" not in candidate.summary


def test_a_collect_only_run_is_a_look_and_the_quoted_expression_the_fix(script):
    script.run(
        "pytest -k checkout and not flaky",
        "ERROR: file or directory not found: and\n\nno tests ran in 0.02s",
        failure=ERR,
        code=4,
    )
    script.run("pytest --collect-only -q -k checkout", "tests/test_shop.py::test_checkout")
    script.run("pytest -k 'checkout and not flaky'", "1 passed, 40 deselected")
    candidate = _one(script)
    assert candidate.summary == "pytest: quote `checkout and not flaky`, it holds a space"


def test_a_program_searched_for_by_name_is_not_run_through_the_search(script):
    """``grep -i eslint`` names eslint as text to find: it does not run eslint, so it is no
    wrapper of the failed call and no fix of it."""
    script.run("tsc", "bash: tsc: command not found", failure=ERR, code=127)
    script.run("ls node_modules/.bin | grep tsc", "tsc\ntsserver")
    script.run("npx tsc", "")
    candidate = _one(script)
    assert "`npx tsc`" in candidate.fix and "grep" not in candidate.fix


# -- a step first, named below the error or by what it made ----------------------------------------


@pytest.mark.parametrize(
    ("command", "error", "between", "summary"),
    [
        pytest.param(
            "bin/rails test test/models/cart_test.rb",
            "Migrations are pending. To resolve this issue, run:\n\n        bin/rails db:migrate"
            "\n\nYou have 1 pending migration:",
            ["bundle install", "bin/rails db:migrate"],
            "rails test: run `bin/rails db:migrate` first",
            id="the step on a line of its own below 'run:', another call beside it",
        ),
        pytest.param(
            "bin/rails test test/models/cart_test.rb",
            "ActiveRecord::StatementInvalid: SQLite3::SQLException: no such table: carts",
            ["bin/rails db:migrate:status", "bin/rails db:migrate"],
            "rails test: run `bin/rails db:migrate` first",
            id="named nowhere, a look of the same program between",
        ),
        pytest.param(
            "poetry run alembic upgrade head",
            "FAILED: Multiple head revisions are present for given argument 'head'",
            ["poetry run alembic heads", "poetry run alembic merge heads"],
            "alembic upgrade: run `poetry run alembic merge heads` first",
            id="named nowhere, through a wrapper",
        ),
        pytest.param(
            "npm test",
            'error Lockfile out of date.\nRun "yarn install" to update it',
            ["ls", "corepack pnpm install"],
            "npm test: run `corepack pnpm install` first",
            id="the error's advice not taken: the call that made something",
        ),
        pytest.param(
            "npx playwright test",
            "Error: browserType.launch: Executable doesn't exist\n"
            "\u2551 Please run the following command to download new browsers: \u2551\n"
            "\u2551                                                             \u2551\n"
            "\u2551     npx playwright install                                  \u2551",
            ["npm ci", "npx playwright install"],
            "playwright: run `npx playwright install` first",
            id="the step inside a box",
        ),
        pytest.param(
            "poetry install",
            "pyproject.toml changed significantly since poetry.lock was last generated. "
            "Run `poetry lock [--no-update]` to fix the lock file.",
            ["cat pyproject.toml", "poetry lock --no-update"],
            "poetry install: run `poetry lock` first",
            id="an optional part in brackets; a look between is no second step",
        ),
        pytest.param(
            "dotnet ef database update",
            "Could not execute because the specified command or file was not found.",
            ["cat .config/dotnet-tools.json", "dotnet tool list", "dotnet tool restore"],
            "dotnet ef: run `dotnet tool restore` first",
            id="named nowhere: the one call between that made something",
        ),
        pytest.param(
            "gh pr create --fill",
            "aborted: you must first push the current branch to a remote",
            ["git status -sb", "git push -u origin HEAD"],
            "gh pr: run `git push` first",
            id="asked in words, a look between",
        ),
    ],
)
def test_a_step_the_command_needed_first(script, command, error, between, summary):
    script.run(command, error, failure=ERR, code=1)
    for call in between:
        script.run(call, "ok")
    script.run(command, "ok")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None  # (recalled at the error: the line is the same)


def test_a_file_read_between_is_no_second_step(script):
    script.run("dotnet ef database update", "Could not execute: dotnet-ef", failure=ERR, code=1)
    script.file("Read", "/p/.config/dotnet-tools.json", '{"tools": {"dotnet-ef": {}}}')
    script.run("dotnet tool restore", "Restore was successful.")
    script.run("dotnet ef database update", "Done.")
    assert _one(script).summary == "dotnet ef: run `dotnet tool restore` first"


@pytest.mark.parametrize(
    "between", [["sleep 5"], ["ping -c1 db"], ["npm install", "npm run build"]]
)
def test_what_made_nothing_or_two_things_is_no_step(script, between):
    """A pause or a probe of the network before the same command worked tells of a passing
    failure; two calls that made something leave which one mattered a guess."""
    script.run("npm test", "Error: connect ECONNREFUSED 127.0.0.1:5432", failure=ERR, code=1)
    for call in between:
        script.run(call, "ok")
    script.run("npm test", "12 passed")
    assert _detect(script) == []


_NO_CGO = (
    "--- FAIL: TestCreateUser (0.00s)\n"
    "    store_test.go:21: open db: Binary was compiled with 'CGO_ENABLED=0', go-sqlite3 "
    "requires cgo to work. This is a stub\n"
    "FAIL\nFAIL\tgithub.com/acme/ledger/internal/store\t0.012s"
)


def test_a_run_that_worked_once_a_variable_was_set_is_the_machines(script):
    """Every test failed the same way, and the same run with ``CGO_ENABLED=1`` in front of it
    passed, no file edited between: the machine's default did not suit the project, however
    much the output read like tests failing on the code. Nothing in the command line tells the
    shell's setting: the lesson comes back with the error."""
    script.run("go test ./internal/store/...", _NO_CGO, failure=ERR, code=1)
    script.run("go env CGO_ENABLED", "0")
    script.run("CGO_ENABLED=1 go test ./internal/store/...", "ok  \tgithub.com/acme/ledger")
    candidate = _one(script)
    assert candidate.summary == "go test: run it with `CGO_ENABLED=1`"
    assert candidate.fix.startswith("Set `CGO_ENABLED=1` in front of the command")
    assert candidate.trigger is None


@pytest.mark.parametrize(
    "fixed",
    [
        "CGO_ENABLED=1 go test ./internal/api/...",  # another package: the code may differ
        "go test ./internal/store/...",  # the same run passing again: code or chance
    ],
)
def test_a_run_that_changed_more_than_a_variable_is_no_setting(script, fixed):
    script.run("go test ./internal/store/...", _NO_CGO, failure=ERR, code=1)
    script.run(fixed, "ok")
    assert all("run it with" not in c.summary for c in tier2.detect(script.events))


def test_a_variable_set_after_the_code_changed_is_no_setting(script):
    script.run("go test ./internal/store/...", _NO_CGO, failure=ERR, code=1)
    script.file("Edit", "/p/internal/store/db.go", "ok", edit=("sqlite3", "sqlite"))
    script.run("CGO_ENABLED=1 go test ./internal/store/...", "ok")
    assert list(tier2.detect(script.events)) == []


_NO_TARGET = (
    "error[E0463]: can't find crate for `core`\n"
    "  = note: the `x86_64-unknown-linux-musl` target may not be installed\n"
    "  = help: consider downloading the target with `rustup target add x86_64-unknown-linux-musl`"
)


def test_a_step_the_error_quotes_in_its_own_words(script):
    """The error asks for no "run"; it quotes the command ("consider downloading the target with
    `rustup target add …`"), a call between ran it, then the same build worked. A look between
    (``rustup target list``) is passed over."""
    build = "cargo build --release --target x86_64-unknown-linux-musl"
    script.run(build, _NO_TARGET, failure=ERR, code=101)
    script.run("rustup target list --installed", "x86_64-unknown-linux-gnu")
    script.run("rustup target add x86_64-unknown-linux-musl", "info: installing component")
    script.run(build, "Finished `release` profile")
    candidate = _one(script)
    step = "rustup target add x86_64-unknown-linux-musl"
    assert candidate.summary == f"cargo build: run `{step}` first"


@pytest.mark.parametrize(
    "between",
    [
        "echo rustup target add x86_64-unknown-linux-musl",  # only words of a command
        "rustup target add wasm32-unknown-unknown",  # another target
    ],
)
def test_a_quoted_command_is_a_step_only_where_a_call_starts_with_it(script, between):
    build = "cargo build --release --target x86_64-unknown-linux-musl"
    script.run(build, _NO_TARGET, failure=ERR, code=101)
    script.run(between, "ok")
    script.run(build, "Finished `release` profile")
    assert all("rustup target add x86_64" not in c.summary for c in tier2.detect(script.events))


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("kubectl apply -f k8s/overlays/staging/",
         'error: error validating "k8s/overlays/staging/kustomization.yaml": error validating '
         "data: [apiVersion not set, kind not set]",
         "kubectl apply -k k8s/overlays/staging",
         "kubectl apply: it worked with `-k`, not `-f`"),
        ("gcloud run deploy notifier --source . --region europe-west1",
         "ERROR: (gcloud.run.deploy) The required property [project] is not currently set.",
         "gcloud run deploy notifier --source . --configuration=staging --quiet",
         "gcloud run: it worked with `--configuration=staging --quiet`, not `--region "
         "europe-west1`"),
        ("pg_dump -h db.internal -d orders -f /tmp/o.dump",
         "pg_dump: error: aborting because of server version mismatch",
         "/opt/homebrew/opt/postgresql@16/bin/pg_dump -h db.internal -d orders -f /tmp/o.dump",
         "pg_dump: it worked run as `/opt/homebrew/opt/postgresql@16/bin/pg_dump`"),
        ("dotnet test",
         "MSBUILD : error MSB1011: Specify which project or solution file to use because this "
         "folder contains "
         "more than one project or solution file.",
         "dotnet test Orders.sln",
         "dotnet test: it worked with `Orders.sln` added"),
    ],
)  # fmt: skip
def test_options_given_in_place_of_others_or_the_program_by_its_path(
    script, bad, error, good, summary
):
    """What the fix changed is how the command was called, on the same target: options (and
    the value of one it dropped) in place of others, or the same program from another path.
    The lesson says which; nothing in the command line separates them, so it comes back with
    the error."""
    script.run(bad, error, failure=ERR, code=1)
    script.run("ls", "k8s")
    script.run(good, "done")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None


@pytest.mark.parametrize(
    "good",
    [
        "kubectl apply -f k8s/overlays/prod/",  # another folder: a fact of its target
        "gcloud run deploy mailer --source . --configuration=staging",  # another service
        "gcloud run deploy notifier --source . --region us-east1",  # the option kept, its value not
    ],
)
def test_a_fix_on_another_target_is_no_way_of_calling(script, good):
    bad = good.split(" ", 3)[:3]
    failing = {
        "kubectl": "kubectl apply -f k8s/overlays/staging/",
        "gcloud": "gcloud run deploy notifier --source . --region europe-west1",
    }[bad[0]]
    script.run(failing, "error: the server said no", failure=ERR, code=1)
    script.run(good, "done")
    assert list(tier2.detect(script.events)) == []


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary", "trigger_hits"),
    [
        ("semgrep scan --config auto --error src/",
         "Cannot create auto config when metrics are off. Please allow metrics or run with a "
         "specific config.",
         "semgrep scan --config p/python --config .semgrep/rules.yml --error src/",
         "semgrep: it worked with `--config p/python`, not `--config auto`",
         "semgrep scan --config=auto src/"),
        ("report-tool export --format=yaml out/",
         "Error: yaml output needs the optional writer, which is not installed",
         "report-tool export --format json out/",
         "report-tool: it worked with `--format json`, not `--format=yaml`",
         "report-tool export --format 'yaml' other/"),
    ],
)  # fmt: skip
def test_an_option_given_another_value_the_error_named(script, bad, error, good, summary,
                                                       trigger_hits):  # fmt: skip
    """The fix kept the option and gave it another value, and the error named the old one:
    the lesson is the value, and its trigger fires on the old value alone, not on the
    program with any other."""
    script.run(bad, error, failure=ERR, code=2)
    script.run("env | grep -i report", "")
    script.run(good, "done")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is not None
    assert triggers.matches(candidate.trigger, trigger_hits)
    assert not triggers.matches(candidate.trigger, good)
    assert not triggers.matches(candidate.trigger, bad.split(" --")[0])


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        ("cargo run --bin import_csv", "error: no bin target named `import_csv`.\n"
         "Available bin targets:\n    csv_import", "cargo run --bin csv_import"),
        ("cargo test --test api", "error: no test target named `api`",
         "cargo test --test http_api"),
        ("tool deploy --env stagin", "Error: environment 'stagin' not found",
         "tool deploy --env staging"),
    ],
)  # fmt: skip
def test_a_value_the_tool_looked_up_and_did_not_find_is_a_guess(script, bad, error, good):
    """A name the tool looked for and did not find ("no bin target named `x`", "'stagin' not
    found") was guessed or mistyped: a one-off, not a way of calling the program."""
    script.run(bad, error, failure=ERR, code=101)
    script.run(good, "done")
    assert list(tier2.detect(script.events)) == []


def test_a_command_called_anew_is_no_option_given_in_place_of_another(script):
    """``cmake --build build`` failed for want of a configured tree, and ``cmake -S . -B
    build`` configured one: another job of the program, not ``-S . -B`` in place of
    ``--build``."""
    script.run("cmake --build build -j8", "Error: not a CMake build directory (missing "
               "CMakeCache.txt)", failure=ERR, code=1)  # fmt: skip
    script.run("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", "-- Build files have been written")
    assert all(", not `" not in c.summary for c in tier2.detect(script.events))


def test_a_file_edited_in_the_shell_between_is_an_edit(script):
    """``sed -i`` on the script between its failure and the run that worked changed the code,
    as an Edit would have: no lesson of how to call it."""
    script.run("./scripts/check.sh", "==> checking changelog", failure=ERR, code=1)
    script.run("bash -x ./scripts/check.sh", "+ set -euo pipefail\n+ grep -c Unreleased "
               "CHANGELOG.md\n+ pending=0", failure=ERR, code=1)  # fmt: skip
    script.run("grep -n 'grep -c' scripts/check.sh", "6:pending=$(grep -c Unreleased CHANGELOG.md)")
    script.run("sed -i '6s/md)/md || true)/' scripts/check.sh", "")
    script.run("./scripts/check.sh", "==> ok")
    assert list(tier2.detect(script.events)) == []


def test_a_source_rewritten_by_a_script_between_is_an_edit(script):
    """A Python heredoc that rewrites the code under test is an edit too: the test that passes
    after it was fixed by the code, not by how it was run."""
    run = "cd /p/kit && swift test --filter SemVerTests"
    script.run(run, "SemVerTests.swift:21: error: XCTAssertTrue failed", failure=ERR, code=1)
    script.run(
        "cd /p/kit && python3 - <<'EOF'\nfrom pathlib import Path\n"
        "p = Path('Sources/SemVer.swift')\np.write_text(p.read_text().replace('a', 'b'))\nEOF",
        "",
    )
    script.run(f"{run} 2>&1 | grep Executed", "Executed 2 tests, with 0 failures")
    assert list(tier2.detect(script.events)) == []


def test_a_step_between_is_named_without_the_cd_and_the_tail_around_it(script):
    """Agents write ``cd <project> && … 2>&1 | tail -5``. What reads the output at the end
    makes no other command of the rerun, and the step is named as the work it did."""
    run = "cd /p/tiler && cargo nextest run --workspace"
    script.run(run, "error: no such command: `nextest`", failure=ERR, code=101)
    script.run("cd /p/tiler && cargo install cargo-nextest --locked 2>&1 | tail -3", "Installed")
    script.run(f"{run} 2>&1 | tail -5", "Summary [ 3.1s] 212 tests run: 212 passed")
    candidate = _one(script)
    assert candidate.summary == "cargo nextest: run `cargo install cargo-nextest --locked` first"


def test_an_option_added_is_told_through_the_cd_and_the_tail_around_it(script):
    bad = "cd /p/sdk && docker run --rm -v $PWD:/src ghcr.io/acme/codegen:1.4 generate"
    good = (
        "cd /p/sdk && docker run --rm --platform linux/amd64 -v $PWD:/src "
        "ghcr.io/acme/codegen:1.4 generate 2>&1 | tail -5"
    )
    error = (
        "1.4: Pulling from acme/codegen\ndocker: no matching manifest for linux/arm64/v8 in "
        "the manifest list entries.\nSee 'docker run --help'."
    )
    script.run(bad, error, failure=ERR, code=125)
    script.run(good, "generated 14 files")
    candidate = _one(script)
    assert candidate.summary == "docker run: it worked with `--platform linux/amd64`"


def test_a_variable_set_in_front_is_the_lesson_where_nothing_else_tells_the_calls_apart(script):
    """The import failed, and the same run with ``PYTHONPATH=src`` in front worked: no trigger
    tells the two calls apart, but the variable is what this project needs."""
    bad = "cd /p/invoicer && python -m pytest tests/test_totals.py -q"
    error = "E   ModuleNotFoundError: No module named 'invoicer'"
    script.run(bad, error, failure=ERR, code=2)
    script.run("cd /p/invoicer && ls", "pyproject.toml\nsrc\ntests")
    script.run(bad.replace("&& python", "&& PYTHONPATH=src python"), "3 passed in 0.04s")
    candidate = _one(script)
    assert candidate.summary == "pytest: run it with `PYTHONPATH=src`"
    assert candidate.trigger is None


def test_a_fix_that_only_changed_how_the_output_looks_is_no_fix(script):
    """``git status`` failed to read an object, then ``git status --short`` worked: the same
    call working again. (``2>&1`` on either is no file written.)"""
    script.run("git status 2>&1", "fatal: unable to read e53647ba1f1e", failure=ERR, code=128)
    script.run("git status --short 2>&1 | head -20", " M src/app.py")
    assert list(tier2.detect(script.events)) == []


def test_a_step_put_in_front_is_read_through_the_cd_and_the_tail(script):
    """``cd app && bundle install`` refused, then ``cd app && bundle config set … && bundle
    install 2>&1 | tail -4``: the step ran in front of the same command, on the same line."""
    script.run("cd /p/shop && bundle install", "Bundler::PermissionError: There was an error "
               "while trying to write to `/var/lib/gems/3.1.0`.", failure=ERR, code=23)  # fmt: skip
    script.run(
        "cd /p/shop && bundle config set --local path vendor/bundle && bundle install 2>&1 "
        "| tail -4",
        "Bundle complete! 42 Gemfile dependencies, 118 gems now installed.",
    )
    candidate = _one(script)
    assert (
        candidate.summary
        == "bundle install: run `bundle config set --local path vendor/bundle` first"
    )


def test_a_run_whose_error_named_the_file_the_step_made_failed_for_the_step(script):
    """The tests failed, but on a database file their error said did not exist, and the same
    run worked once a ``touch`` made it: the step, not the code."""
    error = (
        "FAILED  Tests\\Feature\\TicketTest > it assigns  QueryException\n"
        "Database file at path [/p/desk/database/database.sqlite] does not exist.\n"
        "Tests:    2 failed (0 assertions)"
    )
    run = "cd /p/desk && php artisan test --filter=TicketTest"
    script.run(run, error, failure=ERR, code=1)
    script.run(run.replace("&& php", "&& touch database/database.sqlite && php"), "2 passed")
    candidate = _one(script)
    assert candidate.summary.endswith("run `touch database/database.sqlite` first")


def test_a_step_that_made_no_file_the_error_named_leaves_a_failed_run_the_codes(script):
    error = "FAILED tests/test_cart.py::test_total - assert 3 == 4\n1 failed in 0.2s"
    script.run("cd /p/shop && pytest -q", error, failure=ERR, code=1)
    script.run("cd /p/shop && touch tests/conftest.py && pytest -q", "4 passed")
    assert list(tier2.detect(script.events)) == []


def test_a_search_path_set_in_front_is_the_lesson_of_a_file_not_found(script):
    error = "src/wave.c:3:10: fatal error: sndfile.h: No such file or directory\nmake: *** Error 1"
    script.run("cd /p/wavetool && make", error, failure=ERR, code=2)
    script.run("ls ~/.local/lib/pkgconfig", "sndfile.pc")
    script.run("cd /p/wavetool && PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig make", "cc -o wave")
    candidate = _one(script)
    assert candidate.summary == "make: run it with `PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig`"


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        ("make tset", "make: *** No rule to make target 'tset'.  Stop.", "make test"),
        ("cd /p && git chekcout -b fix/x", "git: 'chekcout' is not a git command.",
         "cd /p && git checkout -b fix/x 2>&1 | tail -2"),
    ],
)  # fmt: skip
def test_two_letters_typed_the_wrong_way_round_are_a_slip(script, bad, error, good):
    script.run(bad, error, failure=ERR, code=2)
    script.run(good, "ok")
    assert list(tier2.detect(script.events)) == []


def test_a_listing_of_what_a_program_has_is_no_fix_of_a_subcommand_it_lacks(script):
    """``cargo --list`` only showed what cargo has; the call that did the work came after it,
    and it was ``cargo test``, the slip set right."""
    script.run("cd /p && cargo tset -p core", "error: no such command: `tset`", failure=ERR,
               code=101)  # fmt: skip
    script.run("cargo --list | grep -E test", "    test   Execute all unit and integration tests")
    script.run("cd /p && cargo test -p core 2>&1 | tail -8", "test result: ok. 12 passed")
    assert list(tier2.detect(script.events)) == []


_DJANGO_UNSET = (
    "==================================== ERRORS ====================================\n"
    "_____________ ERROR collecting apps/appointments/tests/test_slots.py _____________\n"
    "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but "
    "settings are not configured.\n"
    "=========================== short test summary info ============================\n"
    "ERROR apps/appointments/tests/test_slots.py - django.core.exceptions.ImproperlyConfigured\n"
    "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
)
_NO_MODULE = (
    "/src/App/APIClient.swift:2:8: error: no such module 'Alamofire'\nimport Alamofire\n"
    "** BUILD FAILED **\n"
)


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("cd /p && .venv/bin/pytest apps/appointments -q", _DJANGO_UNSET,
         "cd /p && .venv/bin/pytest --ds=config.settings.test apps/appointments -q",
         "pytest: it worked with `--ds=config.settings.test`"),
        ("cd /p && xcodebuild -project App.xcodeproj -scheme App build 2>&1 | tail -12; "
         "exit ${PIPESTATUS[0]}", _NO_MODULE,
         "cd /p && xcodebuild -workspace App.xcworkspace -scheme App build 2>&1 | tail -3",
         "xcodebuild: it worked with `-workspace App.xcworkspace`, not `-project App.xcodeproj`"),
    ],
)  # fmt: skip
def test_a_run_that_failed_before_any_test_and_worked_called_otherwise(
    script, bad, error, good, summary
):
    """A build or test run that failed before any test ran (settings its collection could not
    load, a module its build could not find), then worked with nothing changed but its
    options and no file edited: how the project is built or tested here."""
    script.run(bad, error, failure=ERR, code=2)
    script.run("ls", "App.xcodeproj App.xcworkspace config")
    script.run(good, "14 passed in 1.87s")
    candidate = _one(script)
    assert candidate.summary == summary


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        # tests failed: a narrower run passing is no fix
        ("pytest tests", "FAILED tests/test_a.py::test_x\n2 failed, 12 passed in 1.2s",
         "pytest tests -k 'not test_x'"),
        # an option past the check
        ("git commit -m wip", "src/a.ts:3:1: error no-unused-vars\n3 errors\nhusky - pre-commit "
         "hook exited with code 1", "git commit --no-verify -m wip"),
        ("tsc -p .", "node_modules/@types/x/index.d.ts:3:1 - error TS2300: Duplicate identifier",
         "tsc -p . --skipLibCheck"),
    ],
)  # fmt: skip
def test_a_run_that_failed_on_its_tests_or_got_past_a_check_is_no_lesson(script, bad, error, good):
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "ok")
    assert list(tier2.detect(script.events)) == []


_SPRING_STALE = (
    "Running via Spring preloader in process 90412\nRun options: --seed 5521\n\n# Running:\n\nE\n\n"
    "Error:\nTicketEscalatorTest#test_escalates: NameError: uninitialized constant "
    "TicketEscalator\n\n1 runs, 0 assertions, 0 failures, 1 errors, 0 skips\n"
)


def test_a_test_run_that_worked_once_a_step_ran_in_front_needed_the_step(script):
    """The run failed like the code's, but no file was edited and the same run worked with a
    step in front: the code was the same, so the step was what it needed."""
    test = "cd /p && bin/rails test test/services/ticket_escalator_test.rb"
    script.run(test, _SPRING_STALE, failure=ERR, code=1)
    script.run("cd /p && ls app/services/ && bin/spring status", "ticket_escalator.rb\nrunning")
    script.run("cd /p && bin/spring stop && " + test.removeprefix("cd /p && "), "1 runs, 0 errors")
    candidate = _one(script)
    assert candidate.summary == "rails test: run `bin/spring stop` first"


@pytest.mark.parametrize(
    "step", ["git stash", "git switch main", "git pull --rebase", "sed -i 's/a/b/' app/x.rb"]
)
def test_a_step_that_moved_the_code_is_no_step_a_failed_run_needed(script, step):
    test = "bin/rails test test/services/ticket_escalator_test.rb"
    script.run(test, _SPRING_STALE, failure=ERR, code=1)
    script.run(f"{step} && {test}", "1 runs, 0 errors")
    assert all("first" not in c.summary for c in tier2.detect(script.events))


@pytest.mark.parametrize(
    ("command", "holds"),
    [
        ('mysql crm -e "LOAD DATA x; SELECT COUNT(*) FROM t"', True),  # (a check put after)
        ("mysql --local-infile=1 crm -e 'LOAD DATA x'", True),
        ("mysql crm -e 'SHOW VARIABLES'", False),
        ("mysql -e 'LOAD DATA x'", False),
    ],
)
def test_a_later_call_holds_the_failing_calls_words(command, holds):
    """What a fuller call later in the window must hold of the failing one: each word, or one
    that goes on from it."""
    assert pairing._holds({"mysql", "crm", "LOAD DATA x"}, command) is holds


_E402 = (
    "npm error code E402\n"
    "npm error 402 Payment Required - PUT https://registry.npmjs.org/@acme%2ftokens - You must "
    "sign up for private packages"
)
_NO_IDENTITY = (
    "*** Please tell me who you are.\n\nRun\n\n  git config --global user.email "
    "\"you@example.com\"\n\nfatal: unable to auto-detect email address (got 'dev@box.(none)')"
)


@pytest.mark.parametrize(
    ("bad", "error", "good", "summary"),
    [
        ("cd /p && npm run build && npm publish", _E402,
         "cd /p && npm pkg set publishConfig.access=public && npm publish 2>&1 | tail -2",
         "npm publish: run `npm pkg set publishConfig.access=public` first"),
        ('cd /p && git add a.py && git commit -m "Add parser"', _NO_IDENTITY,
         'cd /p && git -c user.name="A B" -c user.email=a@b.dev commit -m "Add parser"',
         "git commit: it worked with `-c user.name=A B -c user.email=a@b.dev`"),
    ],
)  # fmt: skip
def test_a_chain_is_judged_by_its_later_command_the_fix_ran(script, bad, error, good, summary):
    """In ``a && b`` the later command ran only once the earlier had worked; when the first
    call that worked ran ``b`` and not ``a``, ``b`` is what failed, and the lesson is about
    it, not about ``a``."""
    script.run(bad, error, failure=ERR, code=1)
    script.run("cd /p && cat package.json | head -5", "{")
    script.run(good, "done")
    candidate = _one(script)
    assert candidate.summary == summary
    assert candidate.trigger is None or triggers.matches(candidate.trigger, bad)


def test_a_chain_whose_main_command_comes_back_first_is_judged_whole(script):
    script.run("cd /p && npm run build && npm publish", _E402, failure=ERR, code=1)
    script.run("cd /p && npm run build", "built")
    script.run("cd /p && npm pkg set publishConfig.access=public && npm publish", "+ @acme/t")
    assert all("npm publish" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "error", "good"),
    [
        # the error names the ``cd`` in front: the later commands never ran
        ("cd src && grep -rn TODO . | head -30", "bash: cd: src: No such file or directory",
         "pwd && ls | head"),
        # not a chain of ``&&`` alone: which part failed is not plain
        ("npm run build; npm publish", _E402, "npm pkg set x=1 && npm publish"),
    ],
)  # fmt: skip
def test_a_chain_is_not_narrowed_where_the_later_command_may_not_have_run(script, bad, error,
                                                                           good):  # fmt: skip
    script.run(bad, error, failure=ERR, code=1)
    script.run(good, "done")
    assert all(not c.summary.startswith(("head", "npm publish")) for c in _detect(script))


def test_a_host_named_otherwise_is_no_lesson_of_the_network(script):
    """ "Could not resolve hostname" reads like a network the place lacks; when the fix named
    another host, the name was the slip."""
    script.run("rsync -az dist/ web-prod01:/var/www/",
               "ssh: Could not resolve hostname web-prod01: Name or service not known\n"
               "rsync: connection unexpectedly closed", failure=ERR, code=255)  # fmt: skip
    script.run("grep -A4 '^Host web' ~/.ssh/config", "Host web-prod-01")
    script.run("rsync -az --stats dist/ web-prod-01:/var/www/", "sent 1,024 bytes")
    assert _detect(script) == []


def _narrowed(script):
    """The failing call of ``script`` (its second event) as pairing narrows it, or ``None``."""
    return pairing._failed_later(script.events, 1, script.events[0])


@pytest.mark.parametrize(
    ("bad", "error", "later", "narrowed"),
    [
        # the later command the fix ran, with the ``cd`` in front
        ("cd /p && npm run build && npm publish", _E402, "npm pkg set a=b && npm publish",
         "cd /p && npm publish"),
        # of two later commands the fix ran, the last: it ran only once the other had worked
        ("npm run build && npm test && npm publish", _E402,
         "npm pkg set a=b && npm test && npm publish", "npm publish"),
        # the chain's main command came back first
        ("npm run build && npm publish", _E402, "npm run build", None),
        # the error names the earlier program: the later one never ran
        ("make gen && npm publish", "make: *** No rule to make target 'gen'.  Stop.",
         "npm publish", None),
        # a later ``cd`` is no command that failed
        ("make && cd web && npm test", "build failed", "cd web && ls", None),
    ],
)  # fmt: skip
def test_failed_later(script, bad, error, later, narrowed):
    script.run(bad, error, failure=ERR, code=1)
    script.run(later, "done")
    found = _narrowed(script)
    assert (found.command if found is not None else None) == narrowed


def test_a_sub_agents_call_does_not_narrow_its_parents_chain(script):
    script.run("npm run build && npm publish", _E402, failure=ERR, code=1)
    script.run("npm pkg set a=b && npm publish", "done", sidechain=True)
    assert _narrowed(script) is None
    script.run("npm publish --access public", "done")
    assert _narrowed(script).command == "npm publish"


def test_a_run_that_worked_once_the_env_file_was_read_needed_it_first(script):
    """The project keeps its settings in an env file the agent's shell never reads (direnv's
    ``.envrc``): the error need not name a variable (Airflow falls back to another folder and
    finds no DAG)."""
    script.run("cd /p && uv run airflow dags test etl_daily 2024-06-10",
               "airflow.exceptions.AirflowException: Dag 'etl_daily' could not be found; either "
               "it does not exist or it failed to parse.", failure=ERR, code=1)  # fmt: skip
    script.run("cd /p && cat .envrc", "export AIRFLOW_HOME=$PWD/airflow")
    script.run("cd /p && source .envrc && uv run airflow dags test etl_daily 2024-06-10", "ok")
    assert _one(script).summary == "airflow: run `source .envrc` first"


def test_an_env_file_written_before_it_was_read_is_the_works_change(script):
    script.run("cd /p && uv run airflow dags test etl_daily 2024-06-10",
               "Dag 'etl_daily' could not be found", failure=ERR, code=1)  # fmt: skip
    script.file("Write", "/p/.envrc", "ok", edit=("", "export AIRFLOW_HOME=$PWD/airflow"))
    script.run("cd /p && source .envrc && uv run airflow dags test etl_daily 2024-06-10", "ok")
    assert all("source .envrc" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("looked", "good", "printed", "summary"),
    [
        ("grep -n hadolint Makefile", "make lint-docker",
         "docker run --rm -i hadolint/hadolint:v2.12.0 < Dockerfile\nDL3008 warning",
         "hadolint: not on PATH here; `make lint-docker` does its job"),
        ("ls", "make", "docker run --rm -i hadolint/hadolint < Dockerfile",
         "hadolint: not on PATH here; `make` does its job"),  # (its default target)
        ("cat package.json", "npm run lint:docker",
         "> app@1.0.0 lint:docker\n> hadolint Dockerfile\n",
         "hadolint: not on PATH here; `npm run lint:docker` does its job"),
        ("ls", "docker run --rm -i hadolint/hadolint < Dockerfile", "",
         "hadolint: the command is not on PATH"),  # (a wrapper put around it)
    ],
)  # fmt: skip
def test_a_missing_program_the_projects_task_runs(script, looked, good, printed, summary):
    """``hadolint`` is not installed, and the project's task runs it (its runner prints the
    recipe at work), or a container does: where this project keeps the tool. A look that only
    found its name (``grep``) is no fix."""
    script.run("hadolint Dockerfile", "bash: hadolint: command not found", failure=ERR, code=127)
    script.run(looked, "Makefile:18:\tdocker run --rm -i hadolint/hadolint < Dockerfile")
    script.run(good, printed)
    assert _one(script).summary == summary


@pytest.mark.parametrize(
    ("good", "printed"),
    [
        ("make lint", "ruff check .\nAll checks passed!"),  # another tool's task
        ("make lint", "make: hadolint: Command not found"),  # the task lacks it too
        ("npm install", "added 1 package"),  # no task, and silent of it
        ("make lint", "yamllint .hadolintrc.yaml"),  # its name inside another word
        ("docker build -t app .", "naming to docker.io/library/hadolint"),  # no run
    ],
)
def test_a_task_that_did_not_run_the_missing_program_is_no_fix(script, good, printed):
    script.run("hadolint Dockerfile", "bash: hadolint: command not found", failure=ERR, code=127)
    script.run(good, printed)
    assert not any("does its job" in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("bad", "good"),
    [
        # a check put after the query, or a statement in front of it: the query still ran
        ("mysql -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t\" db",
         "mysql --local-infile=1 -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t; "
         "SELECT COUNT(*) FROM t\" db"),
        ("mysql -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t\" db",
         "mysql --local-infile=1 -e \"SET NAMES utf8mb4; LOAD DATA LOCAL INFILE 'a.csv' "
         "INTO TABLE t\" db"),
        ("mysql -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t;\" db",
         "mysql --local-infile=1 -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t; "
         "SELECT COUNT(*) FROM t\" db"),
    ],
)  # fmt: skip
def test_a_query_run_with_another_statement_is_still_the_query(script, bad, good):
    error = "ERROR 3948 (42000) at line 1: Loading local data is disabled; this must be enabled"
    script.run(bad, error, failure=ERR)
    script.run(good, "1250")
    assert _one(script).fix.count("LOAD DATA") == 1


@pytest.mark.parametrize(
    "good",
    [
        "mysql --local-infile=1 -e \"LOAD DATA LOCAL INFILE 'b.csv' INTO TABLE t\" db",
        'mysql --local-infile=1 -e "SELECT COUNT(*) FROM t" db',
        # another option's value of several words is a query too, not an option's value
        'mysql --local-infile=1 --execute "SELECT 1" db',
    ],
)
def test_a_query_changed_is_another_target(script, good):
    bad = "mysql -e \"LOAD DATA LOCAL INFILE 'a.csv' INTO TABLE t\" db"
    error = "ERROR 3948 (42000) at line 1: Loading local data is disabled; this must be enabled"
    script.run(bad, error, failure=ERR)
    script.run(good, "1250")
    assert _detect(script) == []


def test_a_program_missing_inside_a_script_is_not_the_scripts_own(script):
    """The shell could not find ``hadolint`` inside a script the call ran: the call did not
    start it, so no task is its stand-in (the script is what the lesson would be about)."""
    error = "./scripts/lint.sh: line 3: hadolint: command not found"
    script.run("./scripts/lint.sh", error, failure=ERR, code=127)
    script.run("make lint-docker", "docker run --rm -i hadolint/hadolint < Dockerfile")
    assert not any("does its job" in c.summary for c in _detect(script))


def test_a_fix_with_a_look_after_it_is_judged_by_the_first_of_its_kind(script):
    """``tofu workspace select -or-create x && tofu workspace show``: the second command only
    shows what the first did. The fix kept the failing call's target, and what changed is in
    the first."""
    bad = "tofu workspace select staging-eu"
    script.run(bad, 'Workspace "staging-eu" doesn\'t exist.', failure=ERR)
    script.run("tofu workspace select -or-create staging-eu && tofu workspace show", "staging-eu")
    assert _one(script).summary == "tofu workspace: it worked with `-or-create`"


def test_a_fix_with_a_step_of_its_kind_in_front_is_not_said_to_drop_an_option(script):
    """``adb uninstall … && adb install …`` did a step first: that the install dropped ``-r``
    is not what changed (only the first command of the kind is compared)."""
    error = "adb: failed to install a.apk: Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE]"
    script.run("adb install -r a.apk", error, failure=ERR)
    script.run("adb uninstall com.x && adb install a.apk", "Success")
    assert all("without `-r`" not in c.summary for c in _detect(script))


def test_a_programs_short_complaint_is_the_error_its_lesson_comes_back_at(script):
    script.run("adb install -r a.apk", "adb: more than one device/emulator", failure=ERR)
    script.run("adb devices -l", "emulator-5554 device")
    script.run("adb -s emulator-5554 install -r a.apk", "Success")
    candidate = _one(script)
    assert candidate.summary == "adb install: it worked with `-s emulator-5554`"
    assert candidate.error_lines == ("adb: more than one device/emulator",)


def test_a_fix_that_wrote_a_scratch_file_on_its_way_did_not_edit_the_code(script):
    """``circleci config process … > /tmp/p.yml && circleci local execute -c /tmp/p.yml``:
    writing to ``/tmp`` changed no code, so the failure is a lesson of how to call it."""
    error = "Error:\nYou attempted to run a local build with version '2.1' of configuration."
    script.run("circleci local execute --job test", error, failure=ERR, code=255)
    fix = (
        "circleci config process .circleci/config.yml > /tmp/p.yml && "
        "circleci local execute -c /tmp/p.yml --job test"
    )
    script.run(fix, "Success!")
    assert "circleci config process" in _one(script).fix


def test_a_script_in_a_heredoc_that_edits_the_code_is_no_step_first(script):
    """``python3 - <<'EOF'`` that rewrites a source file, then the tests again: the code was
    changed, so the failure was the code's, not a step the tests needed first."""
    script.run(
        'sbt "testOnly a.B"', "==> X a.B.spans two tiers\n[error] Failed: Total 3", failure=ERR
    )
    edit = "python3 - <<'EOF'\np = 'src/B.scala'\nopen(p, 'w').write(s)\nEOF\n"
    script.run(edit + 'sbt "testOnly a.B"', "[info] Passed: Total 3, Failed 0")
    assert _detect(script) == []


def test_a_step_that_rewrites_a_file_is_a_step_first_when_the_error_asked_for_it(script):
    """``biome check`` refused a configuration of the old version and said to run ``biome
    migrate``; ``biome migrate --write && biome check .`` worked. The step rewrote a file, but
    the tool asked for it: the lesson is the step, not an edit of the code."""
    bad = "npx biome check ."
    script.run(bad, "! The configuration schema version does not match the CLI version 2.1.2\n"
               "ℹ Run the command biome migrate to migrate the configuration file.\n"
               "× Found an unknown key `ignore`.", failure=ERR)  # fmt: skip
    script.run("npx biome migrate --write && npx biome check .", "Checked 143 files")
    candidate = _one(script)
    assert candidate.summary == "biome: run `npx biome migrate --write` first"


def test_a_step_that_rewrites_a_file_unasked_is_an_edit(script):
    """The same rewrite in front, where the error named no step: an edit of the code (a
    formatter run before the linter), no step the linter needs."""
    script.run("npx eslint src", "src/a.ts\n  3:1  error  Delete `··`  prettier/prettier",
               failure=ERR)  # fmt: skip
    script.run("npx prettier --write src && npx eslint src", "")
    assert _detect(script) == []


def test_a_fix_whose_first_command_of_the_kind_works_on_another_target_is_not_compared(script):
    script.run("git rm -q --cached b.ico", "fatal: pathspec 'b.ico' did not match", failure=ERR)
    script.run("git rm -qf a.wxs && git rm -qf b.ico && git status --short", "D a.wxs")
    assert all("a.wxs`, not" not in c.summary for c in _detect(script))


@pytest.mark.parametrize(
    ("command", "text", "expected"),
    [
        ("adb install a.apk", "adb: more than one device/emulator\n",
         ("adb: more than one device/emulator",)),
        ("cd /p && adb install a.apk", "Performing install\nadb: more than one device",
         ("adb: more than one device",)),
        # a longer output, a line another name starts, or none, is no complaint of its own
        ("adb install a.apk", "a\nb\nadb: more than one device/emulator", ()),
        ("make stats", "stats: err_count = 0", ()),
        ("adb install a.apk", "adb\n", ()),
        ("adb install a.apk", "more than one device/emulator", ()),
        # all it said, a sentence of four words or more
        ("java -jar target/app.jar", "no main manifest attribute, in target/app.jar\n",
         ("no main manifest attribute, in target/app.jar",)),
        ("java -jar target/app.jar", "no manifest, in target/app.jar", ()),
        ("java -jar target/app.jar", "NO MAIN MANIFEST ATTRIBUTE", ()),
        ("java -jar target/app.jar", "no main manifest attribute\nin target/app.jar", ()),
        # the usual error lines come first
        ("adb install a.apk", "adb: failed to install: x", ("adb: failed to install: x",)),
    ],
)  # fmt: skip
def test_a_programs_own_complaint_in_a_short_output_is_its_error(command, text, expected):
    call = ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=command)
    assert recall.own_error_lines(call, text) == expected


def test_a_run_that_wrote_a_file_on_its_way_and_failed_is_no_witness(script):
    """``cat << 'EOF' > a.test.tsx … EOF`` then ``npm run check``, which failed on what it
    checked: the option error is gone, but the line changed the code. The later run that
    worked is the fix."""
    script.run("npm run check -- --write", "error: unknown option '--write'", failure=ERR)
    wrote = "cat << 'EOF' > a.test.tsx\nit('x')\nEOF\nnpm run check"
    script.run(wrote, "× Some errors were emitted while running checks.", failure=ERR)
    script.run("npm run check", "Checked 12 files")
    assert _one(script).fix == "Drop or replace the option: `npm run check` worked."


@pytest.mark.parametrize(
    ("bad", "good", "changed"),
    [
        # a look after the fix, or a cd in front of it
        ("systemctl restart w", "systemctl --user restart w && systemctl --user status w | head",
         "it worked with `--user`"),
        ("curl -sS https://localhost:8443/s", "cd /p && curl -sS --cacert ca.pem https://localhost:8443/s",
         "it worked with `--cacert ca.pem`"),
        # a step in front is what changed, not the options of the command after it
        ("git status", "git config --global --add safe.directory /p && git -C /p status --short",
         "needed another way"),
        # nor is a command of the kind given another target
        ("git rm -q --cached b.ico", "git rm -qf a.wxs && git rm -qf b.ico", "needed another way"),
        # nor a look whose listing a later run of the kind took in
        ("crontab -e", "(crontab -l; echo '0 * * * * x') | crontab -", "needed another way"),
        # a look the failing call took as well is no look taken since
        ("make -n deploy", "make -n -C ops deploy && make -C ops deploy",
         "it worked with `-C ops`"),
    ],
)  # fmt: skip
def test_what_changed_is_read_from_the_fixs_first_command_of_the_kind(bad, good, changed):
    from lessons_core.scan.detectors.tier2 import lesson

    call = ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=bad)
    fix = ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=good)
    assert lesson._changed(call, fix) == changed


def test_what_changed_is_not_read_from_one_command_where_others_changed_too():
    """``find … | xargs …`` failed in ``xargs``, and the fix changed both: the option ``find``
    was given is not what made it work."""
    from lessons_core.scan.detectors.tier2 import lesson

    bad, good = "find . -type f | xargs -I {} cat {}", "find . -type f -size +2k | xargs cat"
    call = ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=bad)
    fix = ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=good)
    assert lesson._changed(call, fix) == "needed another way"


def test_an_error_names_a_long_option_by_the_setting_it_sets():
    error = "ERROR 2020 (HY000): Got packet bigger than 'max_allowed_packet' bytes"
    assert recall._names_flag(error, "--max-allowed-packet")
    assert recall._names_flag("setting 'fail_fast' is set twice", "-fail-fast")
    assert not recall._names_flag(error, "--max")
    assert not recall._names_flag(error, "--max-packet")
