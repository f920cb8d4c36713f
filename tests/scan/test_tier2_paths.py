"""Where things live: a path the agent guessed, the one the project keeps the file at, and the
pattern that fires on the wrong one only (``tier2/paths.py``)."""

from __future__ import annotations

import pytest

from lessons_core.scan import events as ev
from lessons_core.scan import intake
from lessons_core.scan.detectors import tier2, triggers
from lessons_core.scan.detectors.tier2 import paths
from lessons_core.scan.detectors.tier2.finding import Finding

ERR = ev.ERROR


@pytest.mark.parametrize(
    ("wrong", "right", "same"),
    [
        ("src/utils/config.ts", "src/config/config.ts", True),  # the name, elsewhere
        ("lib/config.js", "lib/config.ts", True),  # the stem, another extension
        ("src/config.ts", "src/config.ts", False),  # the same path is no other place
        ("src/config.ts", "src/settings.ts", False),  # another file
        ("Makefile", "build/Makefile.am", False),  # no extension: the name must match
        ("docs/", "src/", False),  # two folders of other names
        ("/", ".", False),  # no name at all: nothing to compare
    ],
)
def test_the_same_file_looked_for_in_two_places(wrong, right, same):
    assert paths.alike(wrong, right) is same


@pytest.mark.parametrize(
    ("path", "project", "cwd", "relative"),
    [
        ("/w/app/src/a.ts", "/w/app", None, "src/a.ts"),
        ("/w/app/src/a.ts", "/w/app/", None, "src/a.ts"),
        ("./src/a.ts", "/w/app", None, "src/a.ts"),
        ("src/a.ts", "/w/app", "/w/app/web", "web/src/a.ts"),
        ("./src/a.ts", "/w/app", "/w/app/web/", "web/src/a.ts"),
        ("/etc/hosts", "/w/app", None, "/etc/hosts"),  # outside the project: as given
        ("/w/application/a.ts", "/w/app", None, "/w/application/a.ts"),  # a longer name
    ],
)
def test_a_path_from_the_projects_root(path, project, cwd, relative):
    assert paths.relative(path, project, cwd) == relative


@pytest.mark.parametrize(
    ("command", "wrong", "right", "pattern", "fires", "quiet"),
    [
        # The shortest tail that the right path does not end with.
        ("cat x", "src/utils/config.ts", "src/config/config.ts",
         r"(?<![\w.-])utils/config\.ts(?![\w.-])", "cat web/src/utils/config.ts",
         "cat src/config/config.ts"),
        # Two places that end alike: the tail must go further up.
        (None, "src/utils/config.ts", "lib/utils/config.ts", "**/src/utils/config.ts",
         None, None),
        # A bare name the right path ends with too: nothing to tell them apart.
        ("cat x", "config.ts", "src/config.ts", None, None, None),
        # Never a name alone, even where it differs: it would fire in every folder.
        ("cat x", "src/utils/settings.js", "src/utils/settings.ts",
         r"(?<![\w.-])utils/settings\.js(?![\w.-])", "cat utils/settings.js", "cat settings.ts"),
        # Outside the project, up to the root and still alike: no pattern from the root.
        ("cat x", "/etc/tool.conf", "/usr/local/etc/tool.conf", None, None, None),
    ],
)  # fmt: skip
def test_the_pattern_fires_on_the_wrong_path_only(command, wrong, right, pattern, fires, quiet):
    call = ev.Event(ev.TOOL_CALL, agent="claude", tool="Bash" if command else "Read",
                    command=command)  # fmt: skip
    found = paths.guessed_trigger(call, wrong, right)
    assert found == pattern
    if fires:
        assert triggers.matches(found, fires)
        assert not triggers.matches(found, quiet)
        assert not triggers.matches(found, "cat src/myutils/config.ts")


def test_a_file_call_without_a_path_on_either_side_tells_no_place(script):
    """A refused Read paired with a call that names no file (as another detector could pair
    them) says nothing of where the file is, and neither does a Read of no path."""
    script.file("Read", "/p/src/hooks/use-list.ts", "File does not exist.", failure=ERR)
    script.call("Read", "listed")
    read, _refused, no_path, _listed = script.events
    assert paths.guessed(read, no_path, "File does not exist.") is None
    assert paths.guessed(no_path, read, "File does not exist.") is None


def test_a_read_of_the_file_where_it_really_is(script):
    """Claude Code's Read of a file that is not there, a Glob, then the Read where it is: a
    guessed path, with a glob of the wrong path as its trigger and the project's paths in its
    words. A Read of another file in between is the next step, not the fix."""
    script.file("Read", "/p/src/hooks/use-list.ts", "File does not exist.", failure=ERR)
    script.file("Read", "/p/package.json", '{"name": "app"}')
    script.file("Glob", "/p/src/**/use-list.ts", "/p/src/ui/use-list.ts")  # a search, no read
    script.file("Read", "/p/src/ui/use-list.ts", "1\texport function useList() {}")
    (candidate,) = tier2.detect(script.events)
    assert candidate.summary == "Read: `use-list.ts` is at `src/ui/use-list.ts`"
    assert candidate.trigger == "**/hooks/use-list.ts"
    assert intake.RECURS_TAG in candidate.tags
    assert candidate.fix.startswith(
        "Look for `use-list.ts` at `src/ui/use-list.ts` in this project"
    )


def test_a_command_names_the_missing_path_in_its_own_words(script):
    """``ls`` says "cannot access"; the fix lists the file in another folder. The path the
    error names must be one the command was given, and the fix's path one it was not."""
    script.run("ls -la src/hooks/use-list.ts", "ls: cannot access 'src/hooks/use-list.ts': No such"
               " file or directory", failure=ERR, code=2)  # fmt: skip
    script.run("ls -la src/ui/use-list.ts", "-rw-r--r-- 1 u u 30 src/ui/use-list.ts")
    (candidate,) = tier2.detect(script.events)
    assert candidate.summary == "ls: `use-list.ts` is at `src/ui/use-list.ts`"


@pytest.mark.parametrize(
    ("error", "fixed"),
    [
        # The error names a path the command was not given (a file it read on its way).
        ("cat: /p/tsconfig.base.json: No such file or directory", "cat src/ui/use-list.ts"),
        # The fix gave the same path again, or another file.
        ("cat: src/hooks/use-list.ts: No such file or directory", "cat src/hooks/use-items.ts"),
    ],
)
def test_no_place_is_learned_from_what_the_calls_do_not_show(script, error, fixed):
    script.run("cat src/hooks/use-list.ts", error, failure=ERR, code=1)
    script.run(fixed, "export {}")
    assert all(intake.RECURS_TAG not in c.tags for c in tier2.detect(script.events))


def test_a_guess_no_pattern_can_tell_from_its_fix_is_no_lesson(script):
    """``config.ts`` read at the root, then in ``src/``: every pattern of the wrong path fires
    on the right one too, and a lesson with no pattern would come with every Read."""
    script.file("Read", "/p/config.ts", "File does not exist.", failure=ERR)
    script.file("Read", "/p/src/config.ts", "1\texport {}")
    assert list(tier2.detect(script.events)) == []


@pytest.mark.parametrize(
    ("failing", "error", "fixed", "right"),
    [
        # A path the error names that the command was not given: a file it read on its way.
        ("bash run.sh", "run.sh: line 3: src/hooks/use-list.ts: No such file or directory",
         "bash run.sh src/ui/use-list.ts", None),
        # The fix only swapped two paths the failing call had.
        ("cp src/hooks/use-list.ts src/ui/use-list.ts",
         "cp: src/hooks/use-list.ts: No such file or directory",
         "cp src/ui/use-list.ts src/hooks/use-list.ts", None),
        # An option's value is no path the file was found at.
        ("ls src/hooks/use-list.ts", "ls: src/hooks/use-list.ts: No such file or directory",
         "ls --hide=src/ui/use-list.ts src/lib/use-list.ts", "src/lib/use-list.ts"),
    ],
)  # fmt: skip
def test_the_paths_the_calls_themselves_give(script, failing, error, fixed, right):
    script.run(failing, error, failure=ERR, code=1)
    script.run(fixed, "ok")
    found = [c for c in tier2.detect(script.events) if intake.RECURS_TAG in c.tags]
    assert [c.summary.rsplit("`", 2)[-2] for c in found] == ([right] if right else [])


def test_a_guess_after_a_change_to_the_code_is_no_place(script):
    """The file was created between the failure and the call that worked: it did not live
    elsewhere, it did not exist yet."""
    script.run("cat src/hooks/use-list.ts", "cat: src/hooks/use-list.ts: No such file or directory",
               failure=ERR, code=1)  # fmt: skip
    script.file("Write", "/p/src/ui/use-list.ts", "ok")
    script.run("cat src/ui/use-list.ts", "export {}")
    assert all(intake.RECURS_TAG not in c.tags for c in tier2.detect(script.events))


# -- a file the program looked for on its own ---------------------------------------------------


def test_a_file_the_program_looked_for_itself_is_no_guess(script):
    """``aws`` could not start its pager (``less`` is not there): no path the call gave was
    missing, so the failure is how the program is called here, not a file of the project that
    lives elsewhere; the fix's option is the lesson, recalled when the error comes back."""
    bad, good = "aws logs describe-log-groups", "aws --no-cli-pager logs describe-log-groups"
    script.run(bad, "Unable to redirect output to pager. Received the following error when "
               "opening pager:\n[Errno 2] No such file or directory: 'less'",
               failure=ERR, code=255)  # fmt: skip
    script.run(good, "/ecs/checkout-api")
    (candidate,) = tier2.detect(script.events)
    assert candidate.summary == "aws logs: it worked with `--no-cli-pager`"
    assert candidate.fix.startswith(f"Run `{good}` instead")
    assert intake.RECURS_TAG not in candidate.tags


@pytest.mark.parametrize(
    ("failing", "error", "given"),
    [
        # Nothing the call gave: the program's own pager, its own configuration.
        ("aws logs tail app", "[Errno 2] No such file or directory: 'less'", False),
        ("sqlc generate", "sqlc.(yaml|yml) or sqlc.json: file does not exist", False),
        ("git -C . log", "error: cannot run less: No such file or directory", False),
        # A word of the call inside a longer one is not that word (``tsc``, ``tsconfig``).
        ("npx tsc --build", "error TS5058: The specified path does not exist: 'tsconfig.json'",
         False),
        # The call's argument, whole, by its last part, or one letter long.
        ("cat a", "cat: a: No such file or directory", True),
        ("tar -xzf dist/app.tar.gz", "tar: app.tar.gz: Cannot open: No such file or directory",
         True),
        # An option's value, the program given by its path, a folder of a longer path.
        ("terraform plan -var-file=prod.tfvars",
         "Given variables file prod.tfvars does not exist.", True),
        ("./run.sh --fast", "bash: ./run.sh: No such file or directory", True),
        ("cd /w/shop && npm run build",
         "npm error enoent no such file or directory, open '/w/shop/package.json'", True),
        # No line says a path is missing: nothing to tell.
        ("aws logs tail app", "An error occurred (AccessDenied)", True),
    ],
)  # fmt: skip
def test_a_missing_path_the_call_gave_or_not(script, failing, error, given):
    script.run(failing, error, failure=ERR, code=1)
    script.run("true", "ok")
    call, result, fix, _ = script.events
    finding = Finding(call, result)
    finding.fix = fix
    assert paths.not_given(finding) is not given


def test_a_missing_path_needs_a_command_on_both_sides(script):
    script.run("aws logs tail app", "[Errno 2] No such file or directory: 'less'",
               failure=ERR, code=1)  # fmt: skip
    script.file("Read", "/p/a.txt", "ok")
    call, result, read, _ = script.events
    finding = Finding(call, result)
    assert paths.not_given(finding) is False  # no fix yet
    finding.fix = read
    assert paths.not_given(finding) is False  # a fix with no command line


@pytest.mark.parametrize(
    ("failing", "error", "fixed"),
    [
        ("terraform plan -var-file=prod.tfvars",
         "Error: Failed to read variables file\n\nGiven variables file prod.tfvars does not exist.",
         "terraform plan -var-file=envs/prod.tfvars"),
        ("./run.sh --fast", "bash: ./run.sh: No such file or directory",
         "bash scripts/run.sh --fast"),
    ],
)  # fmt: skip
def test_a_path_the_call_gave_stays_a_guess(script, failing, error, fixed):
    """Where the missing path is one the call named, nothing tells a habit of the program from
    a guess at where a file lives: no lesson of how to call it."""
    script.run(failing, error, failure=ERR, code=1)
    script.run(fixed, "ok")
    assert list(tier2.detect(script.events)) == []


def test_a_one_off_at_the_other_end_of_the_output_still_counts(script):
    """The pager was the program's own file, but the long output ends on a permission the
    call lacked: that end names a one-off, and the lesson is not recalled by the error."""
    bad, good = "aws logs describe-log-groups", "aws --no-cli-pager logs describe-log-groups"
    error = "[Errno 2] No such file or directory: 'less'\n" + "log line\n" * 300
    script.run(bad, error + "open /p/out.json: permission denied", failure=ERR, code=255)
    script.run(good, "/ecs/checkout-api")
    assert list(tier2.detect(script.events)) == []
