"""Triggers derived from failing calls: generalised, escaped, and matching the right calls."""

from __future__ import annotations

import re

import pytest

from lessons_core.scan.detectors import failures, triggers


@pytest.mark.parametrize(
    ("failing", "fix", "pattern"),
    [
        ("pytest tests/test_x.py -k slow", None, r"\bpytest\b"),
        ("cd /srv && python -m pytest -q", "uv run pytest", r"\bpytest\b"),
        ("uv run pytest -x", None, r"\bpytest\b"),
        ("sudo FOO=1 npm run build", None, r"\bnpm\b[^|;&\n]*?\brun\b \bbuild\b"),
        (
            "pip install --user requests",
            "pip install requests",
            r"\bpip\b[^|;&\n]*?\binstall\b(?=[^|;&\n]*?\s--user(?:[\s=]|$))",
        ),
        ("git -C repo push --force origin main", "git push origin feature", None),
        ("./gradlew build", None, r"\bgradlew\b[^|;&\n]*?\bbuild\b"),
        ("python3 manage.py migrate --fake", None, r"\bmanage\.py\b[^|;&\n]*?\bmigrate\b"),
    ],
)
def test_command_trigger_shapes(failing, fix, pattern):
    """Executable, subcommand and the flag the fix dropped; prefixes and runners are skipped."""
    got = triggers.command_trigger(failing, fix)
    if pattern is not None:
        assert got == pattern
    assert got is not None
    assert re.search(got, failing)


@pytest.mark.parametrize(
    ("failing", "fix", "flag"),
    [
        ("pip install --user -q requests", "pip install requests", "--user"),
        ("prettier --check --write src", "prettier --write src", "--check"),
        ("git -C repo push --force origin main", "git push origin main", "--force"),
        ("npm --prefix ui test", "npm test", None),  # moved the command: no flag of it
        ("pytest -x tests", "pytest -x -q tests", None),  # dropped nothing
        ("ruff format --check src", "black --check src", None),  # another executable
        ("ruff check --fix src", "black src", None),  # another's flags are not the dropped ones
        ("pip install -q requests", "", None),  # a fix with no command to compare
        ("", "pip install requests", None),  # nor a failing one
    ],
)
def test_the_flag_the_fix_dropped(failing, fix, flag):
    """The first flag of the failing command its fix, the same executable, went without."""
    assert triggers.dropped_flag(failing, fix) == flag


def test_every_generated_trigger_passes_the_compilers_safety_check():
    """No nested repeats: the manifest compiler must accept what the scanner proposes."""
    from lessons_core.patterns.regex_safety import check_pattern

    for failing, fix in [
        ("git -C x push --force origin main", "git push origin main"),
        ("npm run lint -- --fix", None),
        ("pip install --user a", "pip install a"),
        ("python3 manage.py migrate --fake", None),
        ("./gradlew build", None),
    ]:
        assert check_pattern(triggers.command_trigger(failing, fix)) is None


def test_trigger_matches_the_kind_of_call_not_others():
    """A push --force lesson fires for other force pushes, not for a plain push or a status."""
    pattern = triggers.command_trigger("git push --force origin main", "git push origin main")
    assert re.search(pattern, "git push origin dev --force")
    assert not re.search(pattern, "git push origin dev")
    assert not re.search(pattern, "git status")


def test_script_runners_keep_the_script_name():
    """``npm run lint`` is not ``npm run build``: the script is part of the trigger."""
    pattern = triggers.command_trigger("npm run lint -- --max-warnings=0")
    assert re.search(pattern, "npm run lint")
    assert not re.search(pattern, "npm run build")


def test_trigger_escapes_regex_characters():
    """Characters special to regexes in an executable are escaped."""
    pattern = triggers.command_trigger("g++ main.cpp -o main")
    assert re.search(pattern, "g++ other.cpp")
    assert not re.search(pattern, "gxx other.cpp")


def test_path_triggers_and_tags():
    """Files become extension globs; tags name the tool and the language."""
    assert triggers.path_trigger("/a/b/models.py") == "**/*.py"
    assert triggers.path_trigger("/a/Makefile") == "**/Makefile"
    assert triggers.tags_for("Bash", "cargo test --offline") == ("tool:cargo", "lang:rust")
    assert triggers.tags_for("Edit", None, ("/x/y.ts",)) == ("tool:edit", "lang:typescript")


def test_segments_split_compound_commands():
    """``&&``, ``||``, ``;`` and pipes separate simple commands; quotes stay whole."""
    assert triggers.segments("cd a && make 'x && y' | tee log; echo done") == [
        ["cd", "a"],
        ["make", "x && y"],
        ["tee", "log"],
        ["echo", "done"],
    ]


def test_a_comment_ends_at_its_line():
    """A ``#`` line ends where its line does: the commands on the lines after it are still
    commands, quoted words or not."""
    assert triggers.segments("# build it, then 'list'\nmake -j4") == [["make", "-j4"]]
    # A comment after a quoted command ends at its line too: the next line is a command.
    assert triggers.segments("git commit -m 'x' # done\ngit push") == [
        ["git", "commit", "-m", "x"],
        ["git", "push"],
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # its text, headings, quotes and operators included, is one word of its command
        ("cat > b.md <<'EOF'\n## Summary `x`\nit's a && b\nEOF\ngh pr edit 5 --body-file b.md",
         [["cat", ">", "b.md", "<<", "## Summary `x`\nit's a && b\n"],
          ["gh", "pr", "edit", "5", "--body-file", "b.md"]]),
        ('python3 - <<"PY" && make\nprint(1); import os\nPY\nls',
         [["python3", "-", "<<", "print(1); import os\n"], ["make"], ["ls"]]),
        # ``<<-`` lets its closing line be indented with tabs
        ("cat <<-END\n\tx; y\n\tEND\necho hi", [["cat", "<<", "\tx; y\n"], ["echo", "hi"]]),
        # the delimiter closes only as a line of its own
        ("cat <<EOF\nEOF2\n EOF\nEOF\nrm x", [["cat", "<<", "EOF2\n EOF\n"], ["rm", "x"]]),
        # never closed: the rest of the line is its text
        ("cat <<EOF\na; b", [["cat", "<<", "a; b"]]),
        # a here-string, or a heredoc on one line with nothing after it, is no text cut out
        ("grep x <<< 'a; b'", [["grep", "x", "<<<", "a; b"]]),
        ("grep x <<< word\nls", [["grep", "x", "<<<", "word"], ["ls"]]),
        ("cat <<EOF", [["cat", "<<", "EOF"]]),
    ],
)  # fmt: skip
def test_a_heredocs_text_is_a_word_of_its_command(command, expected):
    assert triggers.segments(command) == expected


def test_inline_code_that_writes_a_file_is_an_edit():
    """A script handed to an interpreter in a heredoc or after ``-c`` that writes a file is an
    edit of the code, as ``sed -i`` is; one that only reads is not."""
    writes = "python3 - <<'EOF'\np = 'a.scala'\nopen(p, 'w').write(s)\nEOF\nsbt test"
    assert triggers.writes_a_file(writes)
    assert triggers.writes_a_file(
        "python3 -c \"from pathlib import Path; Path('a').write_text('')\""
    )
    assert triggers.writes_a_file("node -e \"require('fs').writeFileSync('a', '')\"")
    assert not triggers.writes_a_file("python3 - <<'EOF'\nprint(open('a').read())\nEOF")
    assert not triggers.writes_a_file("grep -rn '.write(' src")  # (no interpreter runs it)
    assert triggers.step_first("sbt test", writes) is None  # an edit is no step first
    # unless the failing call's error asked for it
    fixed = "npx biome migrate --write && npx biome check ."
    assert triggers.step_first("npx biome check .", fixed) is None
    asked = "× The configuration is outdated. Run the command biome migrate to update it."
    assert triggers.step_first("npx biome check .", fixed, asked) == "npx biome migrate --write"


def test_output_written_to_a_scratch_file_is_no_edit():
    """A redirection to ``/tmp`` or a device keeps the code as it was; one into the project
    changes it."""
    assert not triggers.writes_a_file("circleci config process c.yml > /tmp/p.yml")
    assert not triggers.writes_a_file("make 2> /dev/null")
    assert triggers.writes_a_file("circleci config process c.yml > p.yml")
    assert triggers.writes_a_file("echo x >> /tmpdir/notes.txt")


# -- tokenizing quoted commands without shlex ----------------------------------------------------


def _shlex(command: str) -> list[str] | None:
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


@pytest.mark.parametrize(
    "command",
    [
        """git commit -m "fix: don't \\"crash\\"" && git push""",
        "python -c 'import sys; print(sys.argv)' a\\ b",
        """echo "a\\tb \\\\ c" 'x"y' ""''z""",
        "cat > out.txt <<'EOF'\nline one\nline two\nEOF",
        """grep -rn "foo|bar" src/ 2>&1 | head -5; echo $?""",
        """bash -lc "cd /srv && npm test -- --grep 'api (v2)'" """,
        "find . -name '*.py' -exec ruff check {} \\;",
        """printf '%s\\n' "$HOME"/x`date`""",
        "ls -la # list it ; echo 'after # the comment'",
        "echo a#b 'c#d' \\#e \"f # g\" # h",
    ],
)
def test_quoted_commands_split_as_shlex_splits_them(command):
    assert triggers._quoted_tokens(command) == _shlex(command)


@pytest.mark.parametrize("command", ["echo 'unclosed", 'echo "unclosed', "trailing \\"])
def test_what_shlex_refuses_is_left_to_shlex(command):
    assert triggers._quoted_tokens(command) is None
    assert triggers._tokens(command) == command.split()


def test_every_real_command_splits_as_shlex_splits_it():
    """Every command of the real corpus (when present) and of our fixtures."""
    import json

    from tests.scan.conftest import CORPUS, FIXTURES

    found: list[str] = []
    for root in (CORPUS, FIXTURES):
        for path in sorted(root.rglob("*.json*")) if root.is_dir() else ():
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in re.finditer(r'"command":\s*("(?:[^"\\]|\\.)*")', text):
                value = json.loads(m.group(1))
                if isinstance(value, str):
                    found.append(value.replace("\n", " ; "))
    assert found
    for command in found:
        fast = triggers._quoted_tokens(command)
        if fast is not None:
            assert fast == _shlex(command), command
        else:
            assert _shlex(command) is None, command


def test_random_commands_split_as_shlex_splits_them():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    alphabet = st.sampled_from(list("ab -_./=$`'\"\\;|&()<>#\t\r\n*?~é"))

    @settings(max_examples=800, deadline=None)
    @given(st.text(alphabet, max_size=40))
    def check(command: str) -> None:
        fast = triggers._quoted_tokens(command)
        assert fast == _shlex(command) if fast is not None else _shlex(command) is None

    check()


@pytest.mark.parametrize(
    "command",
    [
        'echo "' + "ab" * 5000,
        "x'" + "ab" * 5000,
        'git commit -m "' + "fix the parser " * 500,
        '=*="b\t<)"\t#*~&=~\n#)*"*<_é<#$\n=.>é>/#_b)',
    ],
    ids=["unclosed-double", "unclosed-single", "unclosed-message", "found-by-hypothesis"],
)
def test_an_unclosed_quote_is_split_in_linear_time(command):
    """A word with an unclosed quote made the tokenizer backtrack exponentially in its length
    (twenty characters took a quarter of a second, forty would take days): a scan met such a
    command and never ended. Now it is one pass, and agrees with ``shlex``."""
    import time

    start = time.perf_counter()
    fast = triggers._quoted_tokens(command)
    assert time.perf_counter() - start < 1.0
    assert fast == _shlex(command) if fast is not None else _shlex(command) is None


# -- narrowing a trigger until it misses the fix -----------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "bare"),
    [
        (r"\bls\b", True),
        (r"\bruff\b", True),
        (r"\bmanage\.py\b", True),
        (r"^\s*\bpytest\b", False),
        (r"\bgit\b[^|;&\n]*?\badd\b", False),
        (None, False),
    ],
)
def test_bare_executable(pattern, bare):
    """A pattern that is nothing but one executable's word is bare."""
    assert triggers.is_bare_executable(pattern) is bare


@pytest.mark.parametrize(
    ("error", "command", "flag"),
    [
        ("error: unknown option `dry-run'", "git gc --auto --dry-run", "--dry-run"),
        ("error: unrecognized arguments: --colour", "pytest --colour=yes", "--colour"),
        ("Error: unknown flag: --watchh", "vitest run --watchh", "--watchh"),
        ("flag provided but not defined: -racy", "go test -racy ./...", "-racy"),
        ("Error: `--apply` is not expected in this context", "biome check --apply", "--apply"),
        ("error: unknown option `dry-run'", "git gc --auto", None),
        ('The option "--no-dev" does not exist', "poetry install --no-dev", "--no-dev"),
        ('The "--env" option does not exist.', "php artisan migrate --env=ci", "--env"),
    ],
)
def test_option_named_by_the_error(error, command, flag):
    """The flag the error says does not exist, spelled as the command spelled it; the error is
    read as an option refused, not a path missing."""
    assert triggers.option_named(error, command) == flag
    assert failures.mistake_class(error).name == failures.UNKNOWN_OPTION


def test_tight_trigger_ends_at_the_subcommand():
    """``npm test`` but not ``npm run test:unit`` nor ``npm testing``."""
    pattern = triggers.tight_trigger("npm test -- --watch")
    assert pattern is not None
    assert triggers.matches(pattern, "npm test")
    assert not triggers.matches(pattern, "npm run test:unit")
    assert not triggers.matches(pattern, "npm test:e2e")
    assert triggers.tight_trigger("ls -la") is None


def test_anchored_and_flag_lookarounds():
    """Bare from PATH, with a flag, without a flag."""
    base = triggers.base_trigger("pip install requests")
    assert base is not None
    bare = triggers.anchored(base)
    assert triggers.matches(bare, "pip install requests")
    assert not triggers.matches(bare, "source .venv/bin/activate && pip install requests")
    flagged = triggers.with_flag(base, "--user")
    assert triggers.matches(flagged, "pip install --user x")
    assert not triggers.matches(flagged, "pip install x")
    missing = triggers.without_flag(base, "--break-system-packages")
    assert triggers.matches(missing, "pip install x")
    assert not triggers.matches(missing, "pip install --break-system-packages x")


def test_a_one_letter_option_is_given_in_a_cluster_too():
    """``git commit -am 'x'`` gives ``-m``, so a trigger on a commit without it is quiet."""
    base = triggers.base_trigger("git commit")
    assert base is not None
    missing = triggers.without_flag(base, "-m")
    assert triggers.matches(missing, "git commit")
    assert triggers.matches(missing, "git commit -a")
    assert triggers.matches(missing, "git commit --amend")  # (a long option is no cluster)
    assert not triggers.matches(missing, "git commit -m 'x'")
    assert not triggers.matches(missing, "git commit -am 'x'")


@pytest.mark.parametrize(
    ("failing", "quoted"),
    [
        ("sed -n '1,9p' app/(auth)/page.tsx", "sed -n '1,9p' 'app/(auth)/page.tsx'"),
        ("git add src/app/[id]/route.ts", 'git add "src/app/[id]/route.ts"'),
    ],
)
def test_unquoted_path_trigger_misses_the_quoted_fix(failing, quoted):
    """The word must start unquoted; a subshell or ``$( … )`` is not a path."""
    pattern = triggers.unquoted_path_trigger(failing)
    assert pattern is not None
    assert triggers.matches(pattern, failing)
    assert not triggers.matches(pattern, quoted)
    assert not triggers.matches(pattern, "(source .venv/bin/activate && pytest)")
    assert not triggers.matches(pattern, 'git commit -m "$(cat msg)"')


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("cd test && uv run pytest", "test"),
        ("cd ../lib; make", "../lib"),
        ("cd /abs/dir && ls", None),
        ("(cd sub && make)", None),
        ("uv run pytest", None),
    ],
)
def test_top_level_cd(command, target):
    """A ``cd`` that stays in force in a persistent shell: relative, outside a subshell."""
    assert triggers.top_level_cd(command) == target
    if target is not None:
        assert triggers.matches(triggers.RELATIVE_CD, command)


def test_narrowing_helpers_pass_the_compilers_safety_check():
    """Every shape the narrowing helpers build is accepted by the manifest compiler."""
    from lessons_core.patterns.regex_safety import check_pattern

    base = triggers.base_trigger("npm run build")
    assert base is not None
    patterns = [
        triggers.anchored(base),
        triggers.with_flag(base, "--prod"),
        triggers.without_flag(base, "--prod"),
        triggers.tight_trigger("npm test"),
        triggers.unquoted_path_trigger("ls a/(b)/c"),
        triggers.RELATIVE_CD,
    ]
    for pattern in patterns:
        assert pattern is not None
        assert check_pattern(pattern) is None, pattern


def test_nested_wrappers_are_peeled_one_layer_at_a_time():
    """Each wrapper of a nest is reported with what it runs; a script runner's own
    subcommand (``bun run test``) wraps nothing."""

    def layers(command: str) -> list[tuple[str, str, str | None]]:
        return [(name, shape.exe, shape.sub) for name, shape in triggers.wrapped(command)]

    assert layers("corepack pnpm exec vitest run a.test.ts") == [
        ("corepack", "pnpm", "exec vitest"),
        ("pnpm", "vitest", None),
    ]
    assert layers("rtk bun run test") == [("rtk", "bun", "run test")]
    assert layers("npm test") == []


def test_a_value_option_the_fix_dropped_is_kept_with_its_value():
    """``make -C docs html`` fixed by ``make html``: the option and its value, in either
    spelling; nothing when the fix kept the option or ran another executable."""
    pattern = triggers.value_flag_trigger("make -C docs html", "make html")
    assert pattern is not None
    assert triggers.matches(pattern, "make -C docs html")
    assert not triggers.matches(pattern, "make html")
    assert not triggers.matches(pattern, "make -C docsite html")
    assert triggers.value_flag_trigger("make -C docs html", "make -C docs all") is None
    assert triggers.value_flag_trigger("npm --prefix=web test", "pnpm test") is None
    moved = triggers.value_flag_trigger("npm --prefix=web test", "npm test")
    assert moved is not None and triggers.matches(moved, "npm --prefix web test")


# -- the shapes of a command, and the commands a wrapper runs ----------------------------------


@pytest.mark.parametrize(("end", "found"), [(1500, "python"), (1501, None)])
def test_missing_program_reads_the_first_1500_characters(end, found):
    """The error's head is read, where a shell puts its complaint: one that ends at the 1,500th
    character is read, one that ends past it is not."""
    line = "bash: python: command not found"
    error = "x" * (end - len(line) - 1) + "\n" + line
    assert len(error) == end
    assert triggers.missing_program("python x.py", error) == found


@pytest.mark.parametrize(
    ("command", "exe", "sub"),
    [
        ("git -C repo status --short", "git", "status"),
        ("timeout 5s pytest -x", "pytest", None),
        ("timeout pytest -x", "pytest", None),
        ("cd src", "cd", None),
        # an environment manager's own options, and the value of one that takes it
        ("uv run --group docs mkdocs build --strict", "mkdocs", "build"),
        ("uv run --with 'nbconvert[webpdf]' --frozen jupyter nbconvert", "jupyter", None),
        ("poetry run -C sub pytest -x", "pytest", None),
        ("uv run -- pytest -q", "pytest", None),
        ("uv run --frozen", "uv", "run"),  # nothing run: the tool's own command
        # a tool's own short option with a value, before its subcommand; not another tool's
        ("adb -s emulator-5554 install -r app.apk", "adb", "install"),
        ("kubectl -n web get pods", "kubectl", "get"),
        ("make -n build", "make", "build"),
        ("aws --profile staging sqs list-queues", "aws", "sqs"),
        ("mvn -q -pl claims-api -am install", "mvn", "install"),
        ("pnpm --filter @acme/api test", "pnpm", "test"),
        ("uv run flask --app inventory routes", "flask", "routes"),
        ("celery -A proj worker -l info", "celery", "worker"),
        # a subcommand quoted with its arguments, as sbt wants them
        ("sbt 'testOnly com.acme.DiscountSpec'", "sbt", "testOnly"),
        ("tmux new-session -d -s build", "tmux", "new-session"),
    ],
)
def test_main_shape_skips_what_comes_before_the_work(command, exe, sub):
    """A value flag's value is not the subcommand (the word after it is); a timeout's duration
    is not the executable; a command line that only sets up is still its own shape."""
    shape = triggers.main_shape(command)
    assert shape is not None
    assert (shape.exe, shape.sub) == (exe, sub)


@pytest.mark.parametrize(
    ("command", "exe", "flags"),
    [
        ("node --inspect scripts/build.js", "build.js", ("--inspect",)),
        ("python -u train.py --epochs 3", "train.py", ("-u", "--epochs")),
        ("python3 -W error x.py", "x.py", ("-W",)),  # (the option's value is no script)
        ("node -r dotenv/config app.js", "app.js", ("-r",)),
        ("bash -x deploy.sh", "deploy.sh", ("-x",)),
        ('python -c "import x.py"', "python", ("-c",)),  # code given inline: no script
        ("node -e 'require(1)' a.js", "node", ("-e",)),
        # a pattern of files is no script the interpreter runs
        ("node --test 'test/**/*.test.js'", "node", ("--test",)),
        ("node --test test/a.test.js", "a.test.js", ("--test",)),
    ],
)
def test_an_interpreters_own_options_are_read_past_to_its_script(command, exe, flags):
    """``node --inspect app.js`` runs ``app.js`` as ``node app.js`` does: one command, with the
    interpreter's options among its flags."""
    shape = triggers.main_shape(command)
    assert shape is not None
    assert (shape.exe, shape.flags) == (exe, flags)


@pytest.mark.parametrize(
    ("failing", "fixed", "step"),
    [
        ("npm run build", "npm install && npm run build", "npm install"),
        ("terraform plan", "terraform init && terraform plan", "terraform init"),
        ("go build ./...", "go mod tidy; go build ./...", "go mod tidy"),
        ("make", "mkdir -p out && ./configure && make", "mkdir -p out && ./configure"),
        ("go test ./...", "cd api && go test ./...", None),  # a folder below: read elsewhere
        ("pytest", "source .venv/bin/activate && pytest", None),  # an environment
        ("pytest", "CI=1 pytest", None),
        ("npm run build", "npm install && npm run build -- --prod", None),  # changed too
        ("npm run build", "npm run build", None),
        ("pytest", "PYTHONPATH=src; pytest", None),  # a variable set: an environment
        ("", "npm install", None),
        ("./deploy.sh", "chmod +x deploy.sh && ./deploy.sh", None),  # (for good: a one-off)
        # an edit of the code in front of the command: a change, not a step
        ("npm test", "sed -i 's/a/b/' src/x.ts && npm test", None),
        ("npm test", "perl -pi -e 's/a/b/' x.ts && npm test", None),
        ("npm test", "sed --in-place 's/a/b/' x.ts && npm test", None),
        ("npm test", "sed --in-place=.bak 's/a/b/' x.ts && npm test", None),
        ("npm test", "sed -Ei 's/a+/b/' x.ts && npm test", None),
        # (a module named, no edit: a step)
        ("npm test", "perl -MList::Util -e 1 && npm test", "perl -MList::Util -e 1"),
        ("npm test", "sed -n /in/p VERSION && npm test", "sed -n /in/p VERSION"),
        ("npm test", "cat ci.env > .env.test && npm test", None),
        ("npm test", "cat ci.env >> .env.test && npm test", None),
        ("npm test", "sed -n 1p VERSION && npm test", "sed -n 1p VERSION"),  # (reads only)
        ("npm test", "git checkout -- src && npm test", None),
        ("npm test", "patch -p1 < fix.diff && npm test", None),
        ("npm test", "npm run build > /dev/null && npm test", "npm run build"),  # (quietly)
        ("npm test", "git checkout main && npm test", "git checkout main"),
        # a formatter or linter that rewrote the code; one that only checked is a step
        ("go build", "gofmt -w x.go && go build", None),
        ("npm test", "npx eslint --fix src && npm test", None),
        ("cargo test", "cargo fmt && cargo test", None),
        ("npm test", "black . && npm test", None),
        ("cargo test", "cargo fmt --check && cargo test", "cargo fmt --check"),
        ("go build", "gofmt -l . && go build", "gofmt -l ."),
        # a look in front is no step
        ("actionlint", "git diff --stat && actionlint", None),
        ("make", "git status && npm ci && make", "npm ci"),
    ],
)
def test_step_first(failing, fixed, step):
    assert triggers.step_first(failing, fixed) == step


@pytest.mark.parametrize(
    ("failing", "fixed", "step"),
    [
        # a tail or head given no file cuts the output before it, wherever it stands
        (
            "docker build .",
            "docker builder prune -af | tail -1 && docker build . 2>&1 | tail -3",
            "docker builder prune -af",
        ),
        ("make", "./configure | head -n 20 && make", "./configure"),
        ("make", "./configure | tail +2 && make", "./configure"),
        # one given a file reads that file: a step of its own
        ("make", "./configure && tail -5 config.log && make", "./configure && tail -5 config.log"),
        # an echo in the middle may be the next command's input: not left out, and a line
        # that sets up its input that way names no step
        ("make", "echo y | ./configure && make", None),
        # steps piped into one another are named as the fix wrote them, not as two steps
        ("./gradlew build", "yes | sdkmanager --licenses > /dev/null && ./gradlew build",
         "yes | sdkmanager --licenses > /dev/null"),
        ("./gradlew build", "yes | sdkmanager --licenses; ./gradlew build",
         "yes | sdkmanager --licenses"),
        ("make", "yes | conf && makeinfo x && make", "yes && conf && makeinfo x"),
        ("make", "false || conf && make", "false || conf"),
    ],
)  # fmt: skip
def test_step_first_through_what_cuts_the_output(failing, fixed, step):
    assert triggers.step_first(failing, fixed) == step


@pytest.mark.parametrize(
    ("failing", "fixed", "added"),
    [
        # a look at what the command made, last on the line, is no part of the fix
        ("comm -13 a b > out", "LC_ALL=C comm -13 a b > out && wc -l out", ["LC_ALL=C"]),
        (
            "openssl pkcs12 -in a.p12",
            "openssl pkcs12 -legacy -in a.p12 && grep -c BEGIN a.pem",
            ["-legacy"],
        ),
        ("bun install -f", "bun install -f --no-save && git status --short", ["--no-save"]),
        ("make out", "make -B out && ls out", ["-B"]),
        ("make out", "make -B out && cat out/log.txt", ["-B"]),
        # a one-digit option is an option (psql -1, xargs -0, ls -1)
        ("psql -v X=1 -f m.sql", "psql -1 -v X=1 -f m.sql", ["-1"]),
        # a filter that only drops lines of the output (noise) is a look too
        ("make out", "make -B out 2>&1 | grep -vE ' (INFO|WARN) '", ["-B"]),
        ("make out", "make -B out | grep --invert-match warn", ["-B"]),
        # a filter of the output, a cat with options of its own, a search that writes: a change
        ("make out", "make -B out | grep warn", []),
        ("make out", "make -B out | grep --count warn", []),
        ("make out", "make -B out | grep --devices=skip warn", []),
        ("make out", "make -B out | grep overflow", []),
        ("make out", "make -B out | awk -v n=1 '{print $n}'", []),
        ("make out", "make -B out && cat -A out/log.txt", []),
        ("make out", "make -B out && grep -c x a > n.txt", []),
        ("make out", "make -B out && git commit -m x", []),
        # a number of two digits or more is a value, not an option
        ("seq 5", "seq -10 5", []),
    ],
)
def test_options_added_past_a_look_at_the_result(failing, fixed, added):
    assert triggers.options_added(failing, fixed, with_values=True) == added


def test_ssh_to_https_and_its_trigger():
    failing = "git clone git@github.com:acme/widgets.git"
    assert triggers.ssh_to_https(failing, "git clone https://github.com/acme/widgets") == (
        "github.com"
    )
    assert triggers.ssh_to_https(failing, "git clone https://gitlab.com/acme/widgets.git") is None
    assert triggers.ssh_to_https(failing, "git clone https://github.com/acme/other.git") is None
    # (another change beside the address: what made it work is not told)
    assert (
        triggers.ssh_to_https(failing, "git clone --depth 1 https://github.com/acme/widgets")
        is None
    )
    assert triggers.ssh_to_https(failing, failing) is None
    two = "git clone git@github.com:acme/widgets.git w"
    assert triggers.ssh_to_https(two, "git clone https://github.com/acme/widgets.git v") is None
    pattern = triggers.ssh_url_trigger(failing, "github.com")
    assert pattern is not None
    for hit in (
        failing,
        "git submodule add ssh://git@github.com/a/b",
        "git remote add o git@github.com:a/b",
    ):
        assert triggers.matches(pattern, hit), hit
    for miss in ("git clone https://github.com/a/b", "git clone git@gitlab.com:a/b", "git log"):
        assert not triggers.matches(pattern, miss), miss


def test_option_stand_in():
    error = "readlink: illegal option -- f\nusage: readlink [-n] [file ...]"
    assert triggers.option_stand_in("readlink -f ./b", "realpath ./b", error) == ("-f", "realpath")
    assert triggers.option_stand_in("readlink -f ./b", "realpath ./c", error) is None
    assert triggers.option_stand_in("readlink -f ./b", "readlink ./b", error) is None
    assert triggers.option_stand_in("readlink -f ./b", "cd x && realpath ./b", error) is None
    assert triggers.option_stand_in("readlink -f ./b", "realpath ./b", "no such file") is None
    assert triggers.option_stand_in("readlink -f ./b", "echo ./b", error) is None  # (no job)
    ruff = "error: unexpected argument '--fix' found"
    assert triggers.option_stand_in("ruff format --fix .", "ruff check --fix .", ruff) == (
        "--fix",
        "ruff check",
    )
    assert triggers.option_stand_in("ruff format --fix .", "ruff check --fix src", ruff) is None
    # the same program with its pattern changed: no other subcommand did the job
    grep = "grep: invalid option -- P"
    assert triggers.option_stand_in(r"grep -P '\d+' a.md", "grep -E '[0-9]+' a.md", grep) is None
    # the refused option is another stage's than the one the fix changed
    sort = "sort: illegal option -- V"
    assert (
        triggers.option_stand_in("sort -V a.txt | head -1", "sort -V a.txt | tail -1", sort) is None
    )


def test_verb_trigger():
    """A program's first word that is no option names what it was asked to do."""
    pattern = triggers.verb_trigger("ruff format --check .")
    assert pattern is not None
    assert triggers.matches(pattern, "ruff --quiet format src")
    assert not triggers.matches(pattern, "ruff check --fix .")
    assert triggers.verb_trigger("ruff --version") is None


def test_empty_value_added():
    failing = "sed -i 's/a/b/' f.txt"
    assert triggers.empty_value_added(failing, "sed -i '' 's/a/b/' f.txt") == "-i"
    assert triggers.empty_value_added(failing, "sed -i '' 's/a/c/' f.txt") is None
    assert triggers.empty_value_added("sed 's/a/b/' f.txt", "sed '' 's/a/b/' f.txt") is None
    assert triggers.empty_value_added("ls -l", "'' ls -l") is None
    pattern = triggers.empty_value_trigger(failing, "-i")
    assert pattern is not None
    assert triggers.matches(pattern, "sed -i -e 's/x/y/' g")  # (BSD takes "-e" for the suffix)
    assert not triggers.matches(pattern, "sed -i '' 's/x/y/' g")
    assert not triggers.matches(pattern, 'sed -i "" s/x/y/ g')
    assert not triggers.matches(pattern, "sed -n 1p g")


@pytest.mark.parametrize("command", ["timeout", "sudo timeout", "FOO=1 timeout"])
def test_a_timeout_with_nothing_to_run_has_no_shape(command):
    """A ``timeout`` that ends the command runs nothing: no shape, rather than a look past the
    last word for a duration."""
    assert triggers.shapes(command) == ()
    assert triggers.main_shape(command) is None
    assert [shape.exe for shape in triggers.shapes(f"cd src && {command}")] == ["cd"]


def test_segment_of_finds_the_last_segment_of_a_kind():
    """The executable and subcommand name the segment; a segment without a subcommand is
    found by ``None``."""
    command = "git push origin dev && cd x && git push origin main"
    assert triggers.segment_of(command, "git", "push") == "git push origin main"
    assert triggers.segment_of(command, "git", "pull") is None
    assert triggers.segment_of("cd x && ls -la", "ls", None) == "ls -la"


def test_wrapped_names_the_wrapper_and_what_it_runs():
    """Every segment's wrapper counts, after a shell's ``-c`` too; a command that only names
    another (``which``) or sets up does not wrap it."""
    found = triggers.wrapped("bash -c 'pytest -x' && mise exec -- ruff check")
    assert [(wrapper, shape.exe) for wrapper, shape in found] == [
        ("bash", "pytest"),
        ("mise", "ruff"),
    ]
    assert triggers.wrapped("which bash") == ()
    assert triggers.wrapped("echo pytest") == ()
    # a path right after a program is what it works on, not a program it runs
    found = triggers.wrapped("git mv scripts/gen.js scripts/gen.cjs")
    assert "gen.js" not in [shape.exe for _, shape in found]
    assert triggers.wrapped("mv scripts/gen.js scripts/gen.cjs") == ()
    # a redirection is no word of the command inside: ``show`` runs no ``parquet-tools``
    found = triggers.wrapped("pip show parquet-tools 2>/dev/null")
    assert "parquet-tools" not in [shape.exe for _, shape in found]
    found = triggers.wrapped("corepack pnpm 2>&1")
    assert "pnpm" in [shape.exe for _, shape in found]  # (a known tool needs no words)


def test_a_program_is_run_bare_when_what_it_is_handed_to_comes_first():
    """``perl script/send.pl`` runs the script bare, ``carton exec -- perl script/send.pl``
    through a wrapper; a program is bare when it comes first itself, or its runner does."""
    pattern = triggers.leading_trigger("send.pl", "cd /p && perl script/send.pl --dry-run")
    assert triggers.matches(pattern, "perl -Ilib script/send.pl")
    assert not triggers.matches(pattern, "carton exec -- perl script/send.pl")
    assert not triggers.matches(pattern, "cat script/send.pl")
    bare = triggers.leading_trigger("vitest", "vitest run")
    assert triggers.matches(bare, "cd web && vitest run")
    assert not triggers.matches(bare, "pnpm exec vitest run")
    # a runner first is the bare form too; a variable set in front is no program
    run = triggers.leading_trigger("playwright", "cd web && npx playwright test --headed")
    assert triggers.matches(run, "npx playwright test a.spec.ts")
    assert not triggers.matches(run, "xvfb-run -a npx playwright test")
    plain = triggers.leading_trigger("pytest")
    assert triggers.leading_trigger("pytest", "CI=1 pytest -x") == plain


def test_first_word_trigger_leaves_set_up_words_out():
    """``. env.sh`` sources a file: its first word is set-up, whatever the file is called."""
    assert triggers.first_word_trigger(". env.sh && python x.py") is None
    assert triggers.first_word_trigger("python x.py") == r"^\s*\bpython\b"


@pytest.mark.parametrize("command", ["", "   "])
def test_first_word_trigger_of_no_command_is_none(command):
    """A command line of no word has no first word to anchor: no trigger, and no error."""
    assert triggers.first_word_trigger(command) is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python3 -m pytest tests", r"^\s*\bpython3\b(?=[^|;&\n]*?\bpytest\b)"),
        # a script keeps the interpreter's own trigger; no interpreter, no module: none
        ("python x.py", None),
        ("pytest -q", None),
        (". env.sh && python3 -m pytest", None),
    ],
)
def test_interpreter_trigger_names_the_module_it_ran(command, expected):
    assert triggers.interpreter_trigger(command) == expected
    if expected is not None:
        assert triggers.matches(expected, command)
        assert not triggers.matches(expected, "python3 -m http.server")


@pytest.mark.parametrize(
    ("command", "error", "expected"),
    [
        ("python x.py", "bash: python: command not found", "python"),
        ("python x.py", "bash: line 1: python: command not found", "python"),
        ("python x.py", "zsh:1: command not found: python", "python"),
        ("python x.py", "zsh: command not found: python", "python"),
        ("cd a && tsc -p .", "sh: 1: tsc: not found", "tsc"),
        ("timeout 5 make", "/bin/sh: timeout: not found", "timeout"),
        ("docker run img", 'exec: "docker": executable file not found in $PATH', "docker"),
        # a program the command line does not start, and a set-up word: none
        ("make build", "bash: cc: command not found", None),
        ("cd x && ls", "bash: cd: command not found", None),
        ("python x.py", "everything is fine", None),
    ],
)
def test_missing_program_is_the_word_a_command_starts_with(command, error, expected):
    assert triggers.missing_program(command, error) == expected


@pytest.mark.parametrize(
    ("command", "exe", "sub"),
    [
        ("sudo -u deploy make build", "make", "build"),
        ("sudo -E apt-get install -y jq", "apt-get", "install"),
        ("nice -n 10 cargo build", "cargo", "build"),
    ],
)
def test_a_prefix_and_its_options_are_not_the_command(command, exe, sub):
    shape = triggers.main_shape(command)
    assert shape is not None and (shape.exe, shape.sub) == (exe, sub)


@pytest.mark.parametrize(
    ("failing", "fixed", "expected"),
    [
        ("docker build -t app .", "sudo docker build -t app .", True),
        ("docker build -t app .", "sudo -E docker build -t app .", True),
        ("cd web && docker build .", "cd web && sudo docker build .", True),
        # more changed than sudo; sudo already there; no sudo
        ("docker build -t app .", "sudo docker build -t app2 .", False),
        ("sudo docker build .", "sudo docker build .", False),
        ("docker build .", "docker build --pull .", False),
    ],
)
def test_through_sudo_is_the_same_command_with_sudo_and_nothing_else(failing, fixed, expected):
    assert triggers.through_sudo(failing, fixed) is expected


@pytest.mark.parametrize(
    ("failing", "fixed", "expected"),
    [
        ("./scripts/release.sh --dry-run", "bash scripts/release.sh --dry-run",
         "./scripts/release.sh"),
        ("tools/gen.py", "python3 -X dev tools/gen.py", "tools/gen.py"),
        # any version of Python, and the interpreters pairing reads a script past
        ("bin/seed.py", "python3.12 bin/seed.py", "bin/seed.py"),
        ("./admin/cron.php", "php admin/cron.php", "./admin/cron.php"),
        ("./tools/report.pl", "perl tools/report.pl", "./tools/report.pl"),
        # no interpreter in the fix; no script run by its path
        ("./deploy.sh", "chmod +x deploy.sh && ./deploy.sh", None),
        ("make release", "bash -c 'make release'", None),
        ("./x.sh", "bash", None),  # (an interpreter given nothing to run)
    ],
)  # fmt: skip
def test_script_run_by_path_needs_an_interpreter_in_the_fix(failing, fixed, expected):
    assert triggers.script_run_by_path(failing, fixed) == expected


@pytest.mark.parametrize(
    ("command", "exe"),
    [
        ("python3.12 tools/gen.py --all", "gen.py"),
        ("perl tools/report.pl", "report.pl"),
        ("zsh scripts/setup.zsh", "setup.zsh"),
        ("php artisan migrate", "php"),  # (no script: the interpreter is the command)
        ("pythonic tools/gen.py", "pythonic"),
    ],
)
def test_a_script_handed_to_an_interpreter_is_the_command(command, exe):
    """Pairing and the lessons know a script by its name, whichever interpreter ran it."""
    shape = triggers.main_shape(command)
    assert shape is not None and shape.exe == exe


def test_option_named_prefers_the_main_commands_spelling():
    """A set-up segment's flag of the same name is not the one the error is about."""
    error = "error: unknown option: --n"
    assert triggers.option_named(error, "echo -n x | mytool --n") == "--n"


def test_option_named_found_in_another_segment_than_the_main_one():
    """``cat -A`` at the end of a pipeline whose main command is ``sed``: the error names
    ``cat``'s flag, which the main command does not carry, and it is still the one named."""
    assert triggers.main_shape("sed -n 1p x | cat -A").exe == "sed"
    assert triggers.option_named("cat: illegal option -- A", "sed -n 1p x | cat -A") == "-A"


# -- syntax the error quotes, dashes and globs -------------------------------------------------


def test_culprit_trigger_takes_quoted_syntax_not_names():
    r"""``"\n"`` is syntax the fix dropped; ``'maine'`` is a misspelt name, a one-off."""
    error = 'error: the literal "\\n" is not allowed in a regex'
    pattern = triggers.culprit_trigger(error, r"rg 'a\nb' src", "rg -U 'a.b' src")
    assert pattern == r"\brg\b.*\\n"
    named = "error: pathspec 'maine' did not match any file(s) known to git"
    assert triggers.culprit_trigger(named, "git checkout maine", "git checkout main") is None


@pytest.mark.parametrize("quote", ["'", '"'])
def test_dash_argument_trigger_takes_either_quote(quote):
    """A quoted argument starting with ``-`` in single or double quotes; ``-e`` fixes it."""
    failing = f"grep {quote}-x{quote} notes.txt"
    pattern = triggers.dash_argument_trigger(failing, f"grep -e {quote}-x{quote} notes.txt")
    assert pattern is not None
    assert triggers.matches(pattern, failing)
    assert triggers.dash_argument_trigger("grep -x notes.txt", "grep x notes.txt") is None


def test_dash_argument_trigger_needs_the_failing_call_alone_to_hold_one():
    """A fix that still passes a quoted ``-`` argument did not get past that mistake, and a
    failing call whose quoted ``-`` follows ``-e`` never had it: no trigger either way."""
    assert triggers.dash_argument_trigger("grep '-x' notes.txt", "grep '-x' other.txt") is None
    assert triggers.dash_argument_trigger("grep -e '-x' notes.txt", "grep x notes.txt") is None


@pytest.mark.parametrize(
    "fixed",
    ['grep -rn -e "--no-cache" docs', 'grep -rn -- "--no-cache" docs',
     'grep -rn --regexp="--no-cache" docs'],
)  # fmt: skip
def test_a_pattern_starting_with_two_dashes_is_one_when_the_fix_marked_it(fixed):
    """``grep "--no-cache"`` is refused as an unknown option; the fix passes the same text as
    the pattern. A quoted ``--word`` the fix dropped instead was an option in quotes, not a
    pattern: no trigger."""
    failing = 'grep -rn "--no-cache" docs'
    pattern = triggers.dash_argument_trigger(failing, fixed)
    assert pattern is not None
    assert triggers.matches(pattern, failing) and not triggers.matches(pattern, fixed)
    assert triggers.dash_argument_trigger(failing, "grep -rn no-cache docs") is None
    assert triggers.dash_argument_trigger('npm test "--watch"', "npm test") is None
    # one dash: a pattern whatever the fix did with it (here, dropped the dash)
    assert triggers.dash_argument_trigger('rg -n "- name: x" .', 'rg -n "name: x" .') is not None
    # ... whatever follows it in the quotes, an apostrophe too
    assert triggers.dash_argument_trigger("""grep "-don't" a""", 'grep -e "-don\'t" a') is not None


def test_glob_trigger_finds_the_globbing_segment():
    """Past a segment that is only an assignment; not when the fix looked elsewhere."""
    failing = "LC_ALL=C; ls src/*.tmp"
    pattern = triggers.glob_trigger(failing, "ls src/")
    assert pattern == r"\bls\b[^|;&\n]*?" + r"""\s[^\s'"|;&]*[*?\[^]"""
    assert triggers.matches(pattern, failing)
    assert triggers.glob_trigger(failing, "ls build/") is None
    assert triggers.glob_trigger("ls src/", "ls src/a") is None


def test_glob_trigger_where_the_fix_quoted_the_words_around_the_glob():
    """``adb shell 'ls /sdcard/*.jpg'``: the glob is inside the fix's quotes, so the trigger
    asks for no quote opened before it in the simple command."""
    failing = "adb shell ls -l /sdcard/captures/*.jpg"
    fixed = "adb shell 'ls -l /sdcard/captures/*.jpg'"
    pattern = triggers.glob_trigger(failing, fixed)
    assert pattern is not None
    assert triggers.matches(pattern, failing)
    assert not triggers.matches(pattern, fixed)
    assert not triggers.matches(pattern, 'adb shell "ls /sdcard/*.png"')
    assert triggers.matches(pattern, "adb shell ls /sdcard/*.png")


@pytest.mark.parametrize(
    ("failing", "fixed", "word"),
    [
        ("sdkmanager platforms;android-35", 'sdkmanager "platforms;android-35"',
         "platforms;android-35"),
        ("grep -E warn|error log.txt", "grep -E 'warn|error' log.txt", "warn|error"),
        ("curl -s https://x.test/a?b=1&c=2", "curl -s 'https://x.test/a?b=1&c=2'",
         "https://x.test/a?b=1&c=2"),
        # more than the quotes changed; a word with a space; an operator doubled
        ("sdkmanager platforms;android-35", 'sdkmanager --install "platforms;android-35"', None),
        ("git commit -m fix it", 'git commit -m "fix it"', None),
        ("make&&make install", "'make&&make' install", None),
    ],
)  # fmt: skip
def test_operator_quoted_is_the_word_the_shell_cut(failing, fixed, word):
    assert triggers.operator_quoted(failing, fixed) == word


def test_operator_word_trigger_fires_on_a_bare_word_with_an_operator():
    pattern = triggers.operator_word_trigger('sdkmanager "platforms;android-35"')
    assert pattern is not None
    assert triggers.matches(pattern, "sdkmanager platforms;android-34")
    assert triggers.matches(pattern, "sdkmanager --install build-tools;35.0.0")
    assert not triggers.matches(pattern, 'sdkmanager "platforms;android-34"')
    assert not triggers.matches(pattern, "sdkmanager --list; ls")
    assert not triggers.matches(pattern, "avdmanager create a;b")
    assert triggers.matches(pattern, "avdmanager list; sdkmanager a;b")
    assert not triggers.matches(pattern, "which sdkmanager a;b")


@pytest.mark.parametrize(
    ("failing", "fixed", "glob"),
    [
        ("ffmpeg -pattern_type glob -i renders/*.png out.mp4",
         "ffmpeg -hide_banner -pattern_type glob -i 'renders/*.png' out.mp4 2>&1 | tail -n 2",
         "renders/*.png"),
        ("find . -name *.py", 'find . -name "*.py"', "*.py"),
        # another glob, more changed, no quotes
        ("find . -name *.py", "find . -name '*.pyi'", None),
        ("find . -name *.py", "find src -name '*.py'", None),
        ("ls *.py", "ls src/*.py", None),
        ("ls src", "ls 'src'", None),
        ("ls -v 'a/*.py'", "ls 'a/*.py'", None),  # (quoted before as well)
    ],
)  # fmt: skip
def test_bare_glob_is_the_glob_the_program_was_to_read(failing, fixed, glob):
    assert triggers.bare_glob(failing, fixed) == glob


def test_bare_glob_trigger_fires_on_an_unquoted_glob_only():
    failing = "ffmpeg -pattern_type glob -i renders/*.png out.mp4"
    pattern = triggers.bare_glob_trigger(failing, "ffmpeg -i 'renders/*.png' out.mp4")
    assert pattern is not None
    assert triggers.matches(pattern, "ffmpeg -i shots/*.jpg x.mp4")
    assert not triggers.matches(pattern, "ffmpeg -i 'shots/*.jpg' x.mp4")
    assert not triggers.matches(pattern, "ffmpeg -i in.mp4 out.mp4")


def test_glob_trigger_on_a_query_string_whatever_the_fix_looked_at():
    """A query string's ``?`` is no probe: the trigger stands whichever way the fix went, and
    fires on an unquoted ``*``, ``?`` or ``[`` in the command, never on a quoted word."""
    failing = "gh api repos/o/r/contents/a.yml?ref=main --jq .content"
    pattern = triggers.glob_trigger(failing, "curl -fsSL https://raw.example/o/r/main/a.yml")
    assert pattern is not None
    assert triggers.matches(pattern, "gh api repos/o/r/issues?state=open")
    assert triggers.matches(pattern, "gh api repos/o/r/pulls --jq .[0]")
    assert not triggers.matches(pattern, "gh api 'repos/o/r/contents/a.yml?ref=main'")
    assert triggers.query_string("a.yml?ref=main")
    assert not triggers.query_string("src/*.tm?")


def test_a_caret_is_a_glob_character_of_zsh():
    """zsh's ``extendedglob`` reads ``^`` as a pattern (``no matches found: 1200x630^``): the
    trigger fires on it unquoted, in any command of the program, and not quoted."""
    failing = "magick in.jpg -resize 1200x630^ -extent 1200x630 out.jpg"
    pattern = triggers.glob_trigger(failing, "magick in.jpg -resize '1200x630^' out.jpg")
    assert pattern is not None
    assert triggers.matches(pattern, "magick a.png -resize 64x64^ b.png")
    assert not triggers.matches(pattern, "magick a.png -resize '64x64^' b.png")
    assert not triggers.matches(pattern, "magick a.png -resize 64x64 b.png")


@pytest.mark.parametrize(
    ("command", "error", "found"),
    [
        ("node --test 'test/**/*.test.js'", "Could not find '/p/test/**/*.test.js'",
         "test/**/*.test.js"),
        ('eslint "src/**/*.ts"', 'No files matching the pattern "src/**/*.ts" were found.',
         "src/**/*.ts"),
        # a path in quotes, no glob; a glob the error does not name; a glob left to the shell
        ("cat 'docs/setup.md'", "cat: docs/setup.md: No such file or directory", None),
        ("cp 'notes 2.txt' out/*", "cp: notes 2.txt: No such file or directory", None),
        ("node --test 'test/*.js'", "# fail 2", None),
        ("ls test/*.js", "ls: test/*.js: No such file or directory", None),
    ],
)  # fmt: skip
def test_quoted_glob_is_a_pattern_in_quotes_the_error_names(command, error, found):
    assert triggers.quoted_glob(command, error) == found


@pytest.mark.parametrize(
    ("failing", "fixed", "task"),
    [
        ("npx next lint", "pnpm lint", "pnpm lint"),
        ("go test ./... -run X", "make test GOFLAGS=-count=1", "make test"),
        ("cargo clippy", "npm run clippy -- --fix", "npm run clippy"),
        ("go test ./...", "make check", None),
        ("npm test", "make test", None),  # a runner's own task
        ("go test ./...", 'just "test unit"', None),  # a task's name in quotes with another
        ("bun test", "bun run test", "bun run test"),  # the runner's own subcommand
        ("deno test", "deno task test", None),  # (its task is no subcommand of its own here)
        ("bun test", "bun run test:unit", None),
        (
            "cd x && django-admin check --deploy",
            "cd x && python manage.py check --deploy",
            "python manage.py check",
        ),
        ("git log -3", "hg log -3", "hg log"),  # another program, the same job
        ("git log -3", "hg log -5", None),  # other arguments: not the same job
        ("rails db:migrate", "bin/rails db:migrate", None),  # the program itself: a wrapper
        ("kubectl get pods", "kubectl get pods -A", None),  # the same program
        ("pip3 install rich", ". .venv/bin/activate && pip install rich", None),  # its name
    ],
)
def test_project_task_is_the_task_named_for_the_subcommand(failing, fixed, task):
    assert triggers.project_task(failing, fixed) == task


@pytest.mark.parametrize(
    ("before", "again", "moved"),
    [
        ("cd x && VERSION=v2 make package", "cd x && make package VERSION=v2",
         ("VERSION", True)),
        ("A=1 VERSION=2 make", "A=1 make VERSION=2", ("VERSION", True)),
        ("VERSION=2 make build", "make VERSION=2 build", ("VERSION", True)),
        ("npm test DEBUG=1", "DEBUG=1 npm test", ("DEBUG", False)),
        ("VERSION=2 make", "make VERSION=3", None),  # another value: not only moved
        ("make", "make VERSION=2", None),  # set, not moved
        ("VERSION=2 make", "VERSION=2 make", None),
        ("make VERSION=2 x", "make x VERSION=2", None),  # an argument either way
        ("VERSION=2 make", "make VERSION=2 && make test", None),  # more than moved
    ],
)  # fmt: skip
def test_assignment_moved_is_a_variable_given_on_the_other_side(before, again, moved):
    assert triggers.assignment_moved(before, again) == moved


@pytest.mark.parametrize(
    ("command", "name", "in_front", "fires", "quiet"),
    [
        ("VERSION=2 make package", "VERSION", True, "CGO=0 VERSION=3 make", "make VERSION=3"),
        ("npm test DEBUG=1", "DEBUG", False, "npm run x DEBUG=*", "DEBUG=1 npm test"),
    ],
)
def test_assignment_trigger_fires_on_that_side_only(command, name, in_front, fires, quiet):
    pattern = triggers.assignment_trigger(command, name, in_front)
    assert triggers.matches(pattern, command) and triggers.matches(pattern, fires)
    assert not triggers.matches(pattern, quiet)


@pytest.mark.parametrize(
    ("failing", "fixed", "error", "folder"),
    [
        ("ormolu -i src/", "ormolu -i $(git ls-files '*.hs')",
         "ormolu: src/: withBinaryFile: inappropriate type (is a directory)", "src/"),
        ("clang-format -i src", "clang-format -i src/*.c", "clang-format: src: Is a directory",
         "src"),
        ("shfmt -w bin", "find bin -type f | xargs shfmt -w", "bin: Is a directory", None),
        ("cat docs", "cat docs/README.md", "cat: docs: Is a directory", None),  # one file
        ("clang-format -i src", "clang-format -i src/*.c", "error: lib: Is a directory", None),
        ("clang-format -i src", "clang-format -i src *.c", "clang-format: src: Is a directory",
         None),  # the folder still given
    ],
)  # fmt: skip
def test_folder_given_is_the_folder_the_error_names_the_fix_gave_files_for(
    failing, fixed, error, folder
):
    assert triggers.folder_given(failing, fixed, error) == folder


def test_folder_trigger_fires_on_the_folder_as_a_word():
    pattern = triggers.folder_trigger("ormolu -i src/", "src/")
    assert triggers.matches(pattern, "ormolu --mode check src")
    assert triggers.matches(pattern, "cd x && ormolu -i src/ && git diff")
    assert not triggers.matches(pattern, "ormolu -i src/Main.hs")
    assert not triggers.matches(pattern, "ormolu -i $(git ls-files '*.hs')")


@pytest.mark.parametrize(
    ("failing", "fixed", "output", "task"),
    [
        ("nomad job run deploy/api.hcl", "make deploy-staging",
         "nomad job run \\\n  -var-file=deploy/vars/staging.hcl deploy/api.hcl\n==> Monitoring",
         "make deploy-staging"),
        ("go test ./...", "npm run test:go", "> app@1.0.0 test:go\n> go test -count=1 ./...\nok",
         "npm run test:go"),
        # no subcommand: every word of the command echoed, not a banner of the program's name
        ("hugo --minify", "make site", "hugo --minify --baseURL /\nTotal in 812 ms",
         "make site"),
        ("hugo --minify", "make site", "hugo v0.139.3+extended linux/amd64\nTotal in 812 ms",
         None),
        ("hugo", "make site", "hugo\nTotal in 812 ms", None),  # (the name alone)
        ("hugo server", "mise exec -- hugo server", "hugo server v0.139", None),  # a wrapper
        ("nomad job run a.hcl", "make deploy", "Monitoring evaluation", None),  # no echo
        ("terraform apply", "make deploy", "terraform plan -out x", None),  # another action
        ("npm test", "make test", "npm test\nok", None),  # a runner's own task
    ],
)  # fmt: skip
def test_task_that_ran_is_a_task_that_echoed_the_command(failing, fixed, output, task):
    assert triggers.task_that_ran(failing, fixed, output) == task


@pytest.mark.parametrize(
    ("failing", "fixed", "version"),
    [
        ("cd x && clang-format --dry-run src/a.cc", "cd x && clang-format-17 --dry-run src/a.cc",
         "clang-format-17"),
        ("python3 -m venv .venv", "python3.12 -m venv .venv", "python3.12"),
        ("gcc-12 -O2 a.c", "gcc-13 -O2 a.c", "gcc-13"),
        ("pip3 install rich", "pip install rich", None),  # another name, no version
        ("clang-format a.cc", "clang-format-17 b.cc", None),  # on another file
        ("md5 notes.txt", "md5sum notes.txt", None),  # a name of its own
        ("2>&1", "clang-format-17 a.cc", None),  # a command of a redirection alone
    ],
)  # fmt: skip
def test_other_version_is_the_program_by_another_version(failing, fixed, version):
    assert triggers.other_version(failing, fixed) == version


@pytest.mark.parametrize(
    ("name", "kind"),
    [("clang-format-17", "clang-format"), ("python3.12", "python"), ("pip3", "pip"),
     ("md5", "md5"), ("base64", "base64"), ("gradlew", "gradle")],
)  # fmt: skip
def test_program_kind_drops_the_version_and_the_other_name(name, kind):
    assert triggers.program_kind(name) == kind


@pytest.mark.parametrize(
    ("failing", "fixed", "other"),
    [
        ("cd x && vcpkg install fmt spdlog",
         "cd x && vcpkg add port fmt spdlog && vcpkg install 2>&1 | tail -3", "vcpkg add port"),
        ("yarn install lodash", "yarn add lodash", "yarn add"),
        ("npm test --watch", "npm run dev --watch", None),  # no operand: another job
        ("yarn install lodash", "yarn add lodash@4", None),  # not the same arguments
        ("kubectl get web", "kubectl logs -f --tail=50 web", None),  # more than one word more
        ("git push origin main", "git pull origin main && git push origin main", None),
        ("yarn install lodash", "pnpm add lodash", None),  # another program
    ],
)  # fmt: skip
def test_other_subcommand_took_the_same_arguments(failing, fixed, other):
    assert triggers.other_subcommand(failing, fixed) == other


def test_operand_given_trigger_needs_an_operand_after_the_subcommand():
    pattern = triggers.operand_given_trigger("vcpkg install fmt spdlog")
    assert triggers.matches(pattern, "cd x && vcpkg install zlib")
    assert not triggers.matches(pattern, "vcpkg install")
    assert not triggers.matches(pattern, "vcpkg install --dry-run")
    assert not triggers.matches(pattern, "vcpkg install 2>&1 | tail -3")
    assert not triggers.matches(pattern, "vcpkg add port zlib")


@pytest.mark.parametrize(
    ("failing", "fixed", "path"),
    [
        ("sudo echo 1 > /proc/sys/vm/drop_caches", "echo 1 | sudo tee /proc/sys/vm/drop_caches",
         "/proc/sys/vm/drop_caches"),
        ("sudo printf 'a' >> /etc/hosts", "printf 'a' | sudo tee -a /etc/hosts", "/etc/hosts"),
        ("echo 1 > /etc/x", "echo 1 | sudo tee /etc/x", None),  # no sudo: another lesson
        ("sudo echo 1 > /etc/x", "echo 1 | sudo tee /etc/y", None),  # another file
        ("sudo echo 1 > /etc/x", "echo 1 | nice tee /etc/x", None),  # no sudo to write it
    ],
)  # fmt: skip
def test_sudo_redirect_is_the_file_the_fix_wrote_through_tee(failing, fixed, path):
    assert triggers.sudo_redirect(failing, fixed) == path


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ("sudo echo x > /etc/foo.conf", True),
        ("cd /srv && sudo cat a >> /etc/hosts", True),
        ("echo x | sudo tee /etc/foo.conf", False),
        ("sudo cat a > /tmp/b", False),
        ("sudo ls /root > /home/dev/list.txt", False),
        ("sudo make install 2>&1 | tee build.log", False),
        ("echo x > /etc/foo.conf", False),
    ],
)
def test_sudo_redirect_fires_on_a_file_sudo_cannot_reach(command, fires):
    assert triggers.matches(triggers.SUDO_REDIRECT, command) is fires


@pytest.mark.parametrize(
    ("failing", "fixed", "given"),
    [
        ("cd cmd/x && go run main.go --version", "cd cmd/x && go run . --version", True),
        ("go build -o bin/x main.go", "go build -o bin/x ./cmd/x", True),
        ("go test a_test.go", "go test ./pkg/a", True),
        ("go run main.go", "go run main.go config.go", False),  # files still
        ("go run main.go", "go run main.go ./cmd/x", False),  # a file among them
        ("go run main.go", "go build .", False),  # another subcommand
        ("go vet ./...", "go vet .", False),  # no file given
    ],
)
def test_go_files_given_is_files_where_the_package_was_meant(failing, fixed, given):
    assert triggers.go_files_given(failing, fixed) is given


def test_go_files_trigger_fires_on_a_file_given_to_the_subcommand():
    pattern = triggers.go_files_trigger("go run main.go --version")
    assert triggers.matches(pattern, "cd cmd/api && go run main.go")
    assert not triggers.matches(pattern, "go run . --version")
    assert not triggers.matches(pattern, "go test ./... && vim main.go")


def test_a_redirection_is_part_of_its_command():
    """``2>&1`` and ``>&2`` are words of their command, as ``shlex`` reads them, never a ``1``
    run after a command sent to the background: the last part of ``a && b 2>&1`` is ``b``."""
    assert triggers.segments("npm test 2>&1 | tail -5") == [
        ["npm", "test", "2", ">&", "1"],
        ["tail", "-5"],
    ]
    assert triggers.segments("echo x >&2") == [["echo", "x", ">&", "2"]]
    assert triggers.segments("make &>log && ls") == [["make", "&>", "log"], ["ls"]]
    assert triggers.segments("sleep 5 & ls") == [["sleep", "5"], ["ls"]]


@pytest.mark.parametrize(
    ("word", "pattern"),
    [("./...", True), ("internal/...", True), ("./cmd/api/...", True), ("...", True),
     ("./gen...go", False),
     ("a...b", False), ("./...x", False), (".", False)],
)  # fmt: skip
def test_a_package_pattern_is_a_last_part_of_three_dots(word, pattern):
    """The ``go`` command's "every package below" (``./...``, ``pkg/...``), not a name that
    holds three dots."""
    assert triggers.package_pattern(word) is pattern


@pytest.mark.parametrize("failing", ["gofmt ./...", "gofmt -l ./...", "cd svc && gofmt -l ./..."])
def test_pattern_path_trigger_fires_on_the_package_pattern(failing):
    """The command given a package pattern, as its first argument or a later one, in whichever
    simple command of the line holds it; never a word that goes on past its three dots."""
    pattern = triggers.pattern_path_trigger(failing, "gofmt -l .")
    assert pattern is not None
    assert triggers.matches(pattern, failing)
    assert not triggers.matches(pattern, "gofmt -l .")
    assert not triggers.matches(pattern, "gofmt -l ./...x")


def test_pattern_path_trigger_needs_a_pattern_the_fix_dropped():
    """No trigger when the fix still gives a package pattern, when the failing call's pattern
    is quoted (the trigger would not fire on that call), or when no word is a package pattern
    (an ellipsis inside a quoted search)."""
    assert triggers.pattern_path_trigger("gofmt -l ./...", "gofmt -l internal/...") is None
    assert triggers.pattern_path_trigger("gofmt -l './...'", "gofmt -l .") is None
    assert triggers.pattern_path_trigger('grep -rn "a ... b" .', 'grep -rn "a.*b" .') is None


@pytest.mark.parametrize(
    ("command", "fires", "silent"),
    [
        ("gh pr create --base main", "gh pr create --fill", "gh pr view 12"),
        ("cd app && gh pr create", "gh  pr  create", "gh pr createx"),
        ("git commit", "git commit -m x", "git commit-tree x"),
        ("docker run -it img sh", "docker run img", "docker runner"),
    ],
)
def test_the_action_trigger_names_a_command_to_its_action_word(command, fires, silent):
    """Executable, subcommand and the plain word after it, when there is one."""
    pattern = triggers.action_trigger(command)
    assert pattern is not None
    assert triggers.matches(pattern, command) and triggers.matches(pattern, fires)
    assert not triggers.matches(pattern, silent)


def test_an_option_handed_on_after_the_dashes():
    assert triggers.passed_on("cargo test -- --nocapture", "--nocapture")
    assert triggers.passed_on("cargo test -- --test-threads=1", "--test-threads")
    assert not triggers.passed_on("cargo test --nocapture", "--nocapture")
    assert not triggers.passed_on("cargo test --nocapture -- x", "--nocapture")
    given = triggers.before_dashes(triggers.base_trigger("cargo test --nocapture"), "--nocapture")
    assert given is not None
    assert triggers.matches(given, "cargo test --release --nocapture")
    assert not triggers.matches(given, "cargo test --release -- --nocapture")
    assert not triggers.matches(given, "cargo test | grep --nocapture")


def test_an_option_the_command_line_does_not_hold_came_from_elsewhere():
    refused = "pytest: error: unrecognized arguments: --cov=src"
    assert triggers.option_from_elsewhere(refused, "pytest -x tests")
    assert not triggers.option_from_elsewhere(refused, "pytest --cov=src tests")
    assert not triggers.option_from_elsewhere("grep: invalid option -- P", "grep -P x f")
    assert not triggers.option_from_elsewhere("error: unexpected argument 'foo' found", "x foo")
    assert not triggers.option_from_elsewhere("no such file", "pytest")


def test_a_shell_given_no_command_wraps_nothing():
    """``bash -c`` with nothing after it is no wrapper, and reading it is no error."""
    assert triggers.wrapped("bash -c") == ()
    assert [(w, s.exe) for w, s in triggers.wrapped("bash -lc 'pnpm test'")] == [("bash", "pnpm")]


def test_a_wrapper_around_a_two_word_command_is_one():
    """``mise exec -- fmtcheck src``: a program of its own and one argument is a command
    the wrapper runs (one word alone is so only for a program known to be run that way)."""
    ((wrapper, shape),) = triggers.wrapped("mise exec -- fmtcheck src")
    assert (wrapper, shape.exe) == ("mise", "fmtcheck")
    assert triggers.wrapped("mise exec -- fmtcheck") == ()


def test_a_setup_step_is_never_the_command_that_refused_a_subcommand():
    """``cd bun && rtk bun test`` told ``unrecognized subcommand 'bun'``: rtk refused it, not
    the ``cd`` whose folder has the same name."""
    found = triggers.refused_subcommand(
        "cd bun && rtk bun test", "error: unrecognized subcommand 'bun'"
    )
    assert found is not None and found[0][0] == "rtk" and found[1] == 1


@pytest.mark.parametrize(
    ("error", "name"),
    [
        ("error: Environment variable not found: DATABASE_URL.", "DATABASE_URL"),
        ("KeyError: 'OPENAI_API_KEY'", "OPENAI_API_KEY"),
        ("Error: STRIPE_SECRET_KEY is not set", "STRIPE_SECRET_KEY"),
        ("error: GH_TOKEN environment variable is required", "GH_TOKEN"),
        ("Missing required environment variable: SENTRY_DSN", "SENTRY_DSN"),
        ("KeyError: 'name'", None),  # a dictionary's key, not the environment's
        ("Error: PATH is not set", None),  # (one word: a sentence's, as often as a variable's)
        ("the build is not set up", None),
    ],
)
def test_missing_variable_is_named_by_the_error(error, name):
    assert triggers.missing_variable(error) == name


@pytest.mark.parametrize(
    ("failing", "fixed", "loads"),
    [
        ("npx prisma migrate dev", "npx dotenv -e .env.local -- prisma migrate dev", True),
        ("python3 a.py", "API_KEY=x python3 a.py", True),
        ("python3 a.py", "export API_KEY=x; python3 a.py", True),
        ("python3 a.py", "set -a && . ./.env && python3 a.py", True),
        ("node a.js", "node --env-file=.env a.js", True),
        ("python3 a.py", "find . -name '*.env' && python3 a.py", False),  # ``.`` as a path
        ("python3 a.py", "OTHER=x python3 a.py", False),
        ("source .env && python3 a.py", "source .env && python3 b.py", False),  # loaded already
    ],
)
def test_loads_variable_when_the_fix_gives_it(failing, fixed, loads):
    assert triggers.loads_variable(failing, fixed, "API_KEY") is loads


def test_an_env_file_loader_runs_the_command_after_its_dashes():
    shape = triggers.main_shape("npx dotenv -e .env.local -- prisma migrate dev")
    assert shape is not None and shape.exe == "prisma"
    shape = triggers.main_shape("dotenv -e .env")  # (nothing to run: the loader itself)
    assert shape is not None and shape.exe == "dotenv"


def test_assignments_are_the_variables_a_command_sets_for_itself():
    assert triggers.assignments("CI=1 FORCE_COLOR=0 npm test && X=2 make") == [
        "CI",
        "FORCE_COLOR",
        "X",
    ]
    assert triggers.assignments("npm test X=1") == []  # (an argument, not an assignment)


@pytest.mark.parametrize(
    ("error", "command", "letter"),
    [
        ("grep: invalid option -- P", "grep -rnP x src", "P"),
        ("grep: invalid option -- P", "grep -P x src", None),  # given alone: named as it is
        ("grep: invalid option -- P", "grep -rn x src", None),  # (not given: a config's)
        ("sed: illegal option -- r", "sed -nr p f", "r"),
        ("error: unknown option '--pretty'", "python3 -m json.tool --pretty", None),
    ],
)
def test_clustered_option_is_the_letter_given_only_in_a_cluster(error, command, letter):
    assert triggers.clustered_option(error, command) == letter


@pytest.mark.parametrize(
    ("failing", "fixed", "folder"),
    [
        ("go test ./...", "cd backend && go test ./...", "backend"),
        ("make", "cd ./engine/ && make", "engine"),
        ("go test ./...", "cd backend && go test -v ./...", None),  # the command changed too
        ("go test ./...", "cd /srv/app && go test ./...", None),  # another place, not below
        ("go test ./...", "cd .. && go test ./...", None),
        ("go test ./...", "cd . && go test ./...", None),
        ("go test ./...", "cd backend && make && go test ./...", None),
        # the project's folder first, then a folder below it
        ("cd /p/mail && vagrant ssh", "cd /p/mail/deploy/vagrant/ && vagrant ssh",
         "deploy/vagrant"),
        ("cd /p/mail && vagrant ssh", "cd /p/mailer && vagrant ssh", None),  # a sibling
        ("cd /p/mail && vagrant ssh", "cd /p/mail/vm && vagrant up", None),
        ("cd /p/mail && vagrant ssh", "cd /p && vagrant ssh", None),  # above
        # the option that pointed the command at the folder, dropped once it ran there
        ("cargo build --manifest-path firmware/Cargo.toml", "cd firmware && cargo build",
         "firmware"),
        ("cargo build --manifest-path=./firmware/Cargo.toml --release",
         "cd firmware && cargo build --release", "firmware"),
        ("make -C engine all", "cd engine && make all", "engine"),
        ("make -C engine/ all", "cd engine && make all", "engine"),
        ("make -C engine all && ls", "cd engine && make all && ls", "engine"),
        # another option, or one pointed elsewhere, or more changed
        ("cargo build --manifest-path firmware/Cargo.toml", "cd tools && cargo build", None),
        ("cargo build --manifest-path firmware/Cargo.toml",
         "cd firmware && cargo build --release", None),
        ("cargo build --release firmware", "cd firmware && cargo build --release", None),
        ("make -C engine all && ls", "cd engine && make all && ls -a", None),
        ("rg TODO src/app", "cd src && rg", None),  # (an operand, not an option)
    ],
)  # fmt: skip
def test_subfolder_run_is_the_same_command_from_a_folder_below(failing, fixed, folder):
    assert triggers.subfolder_run(failing, fixed) == folder


@pytest.mark.parametrize(
    ("before", "again", "added"),
    [
        ("git stash", "git stash -u", ["-u"]),
        ("npm install --omit=dev", "npm install --omit=dev --include=dev", ["--include=dev"]),
        ("git stash", "git stash pop", []),  # a word, not an option
        ("git stash -k", "git stash -u", []),  # one option taken away
        ("git stash", "git stash -u && git pull", []),  # (more than the one command)
        ("git stash", "git stash -u && git status", ["-u"]),  # (and a look at what it did)
    ],
)
def test_options_added_is_all_that_changed(before, again, added):
    assert triggers.options_added(before, again) == added


@pytest.mark.parametrize(
    ("before", "again", "added"),
    [
        ("npx vitest", "npx vitest run", ["run"]),
        ("git push", "git push -u origin feature/x", ["-u", "origin", "feature/x"]),
        (
            "cd app && dotnet test",
            "cd app && dotnet test Orders.sln 2>&1 | tail -5",
            ["Orders.sln"],
        ),
        ("make a b", "make a x b y", ["x", "y"]),
        # something taken away, put in another order, or the same: no words added
        ("git push --force", "git push origin main", []),
        ("make a b", "make b a x", []),
        ("make a", "make a", []),
        ("make a", "make a && make b", []),
    ],
)
def test_words_added_with_nothing_taken_away(before, again, added):
    assert triggers.words_added(before, again) == added


@pytest.mark.parametrize(
    ("step", "moves"),
    [
        ("git stash", True),
        ("git -C app switch main", True),
        ("rm -rf out", True),
        ("git pull --rebase && npm ci", True),
        ("npx prettier --write src", True),
        ("bin/spring stop", False),
        ("git status && git fetch", False),
        ("php artisan config:clear", False),
    ],
)
def test_what_moves_the_code_a_step_runs_in_front_of(step, moves):
    assert triggers.moves_the_tree(step) is moves


def test_assignments_added_in_front():
    assert triggers.assignments_added("go test", "GOCACHE=/tmp/g go test") == ["GOCACHE=/tmp/g"]
    assert triggers.assignments_added("CI=1 npm test", "CI=1 HOME=/tmp npm test") == ["HOME=/tmp"]
    assert triggers.assignments_added("CI=1 npm test", "HOME=/tmp npm test") == []  # (one gone)
    assert triggers.assignments_added("go test ./...", "GOCACHE=/tmp/g go test ./x") == []
    assert triggers.assignments_added("go test", "go test") == []
    assert triggers.assignments_added("a && b", "X=1 a && b") == []  # (one command only)


@pytest.mark.parametrize(
    ("before", "again", "added"),
    [
        ("docker run app", "docker run --platform linux/arm64 app", ["--platform", "linux/arm64"]),
        ("kubectl get pods", "kubectl --context stg get pods", ["--context", "stg"]),
        ("git stash", "git stash -u", ["-u"]),
        ("git stash", "git stash pop", []),  # a word after no added option
        ("ls -l", "ls -l x", []),  # after an option the command had already
        ("git log", "git log x --oneline", []),  # before the option, not its value
        ("docker run app", "docker run --platform linux x app", []),  # a word after a value
        ("make install", "make install PREFIX=/x", ["PREFIX=/x"]),  # a make-style variable
    ],
)
def test_an_option_added_with_its_value(before, again, added):
    """A summary tells the option a fix added with the word it took; a trigger is built from
    the options alone, so without ``with_values`` a value is another change."""
    assert triggers.options_added(before, again, with_values=True) == added
    options_only = all(w.startswith("-") for w in added)
    assert triggers.options_added(before, again) == (added if options_only else [])


_NO_DIST = "ERROR: No matching distribution found for opencv"


@pytest.mark.parametrize(
    ("failing", "fixed", "error", "renamed"),
    [
        ("pip install opencv", "pip install opencv-python", _NO_DIST, ("opencv", "opencv-python")),
        # a name two characters longer is another name, not a slip
        ("pip install yaml", "pip install pyyaml", "No matching distribution found for yaml",
         ("yaml", "pyyaml")),
        # a requirements file, a constraint and an editable folder are no package names
        ("pip install -r req.txt -c c.txt -e . opencv", "pip install -r req.txt opencv-python",
         _NO_DIST, ("opencv", "opencv-python")),
        ("pip install -c c.txt opencv", "pip install -c c.txt opencv-python", _NO_DIST,
         ("opencv", "opencv-python")),
        # not the registry's words
        ("pip install opencv", "pip install opencv-python", "ERROR: opencv failed to build", None),
        # another program or subcommand
        ("pip install opencv", "uv add opencv-python", _NO_DIST, None),
        # the error names none of what was swapped
        ("pip install opencv", "pip install opencv-python",
         "No matching distribution found for numpy", None),
        # two swapped at once, though the error names one of them
        ("pip install opencv tensorflow-gpu", "pip install opencv-python tensorflow", _NO_DIST,
         None),
    ],
)  # fmt: skip
def test_package_renamed_is_one_name_the_registry_did_not_know(failing, fixed, error, renamed):
    assert triggers.package_renamed(failing, fixed, error) == renamed


def test_a_runners_options_and_their_values_are_read_past():
    shape = triggers.main_shape("npx -p typescript --yes tsc --init")
    assert shape is not None and shape.exe == "tsc"
    assert "--yes" in shape.flags
    assert triggers.option_ahead("npx --yes create-vite web", "--yes")
    assert not triggers.option_ahead("npx create-vite web --yes", "--yes")
    assert triggers.option_ahead("git --no-pager diff HEAD", "--no-pager")
    assert not triggers.option_ahead("git diff --stat", "--stat")


def test_single_quoted_is_a_word_the_shell_read_into_inside_double_quotes():
    assert triggers.single_quoted('awk "{print $2}" f', "awk '{print $2}' f") == "{print $2}"
    assert triggers.single_quoted('grep -rn "TODO" src', "grep -rn 'TODO' src") is None
    # a backtick the shell ran; an option added beside (the first commit had gone in)
    bad, good = 'git commit -m "a `b`"', "git commit --amend -m 'a `b`'"
    assert triggers.single_quoted(bad, good) == "a `b`"
    assert triggers.single_quoted(bad, "git commit -m 'a `b` c'") is None  # (words changed)
    # double quotes put inside, for the remote shell that now reads the variable
    bad, good = 'ssh h "cd $ROOT/app && ls"', "ssh h 'cd \"$ROOT/app\" && ls'"
    assert triggers.single_quoted(bad, good) == 'cd "$ROOT/app" && ls'
    assert triggers.single_quoted(bad, "ssh h 'cd \"$ROOT/web\" && ls'") is None


@pytest.mark.parametrize(
    ("failing", "fixed", "word"),
    [
        ('terraform state show a.this["logs"]', "terraform state show 'a.this[\"logs\"]'",
         'a.this["logs"]'),
        ("jq .env['HOME'] x.json", "jq '.env[\"HOME\"]' x.json", None),  # another key form
        ("terraform state show a.this", "terraform state show 'a.this'", None),  # no key
        ('terraform state show a.this["logs"]', "terraform state rm 'a.this[\"logs\"]'", None),
    ],
)  # fmt: skip
def test_bare_key_is_a_word_with_a_quoted_key_the_fix_quoted_whole(failing, fixed, word):
    assert triggers.bare_key(failing, fixed) == word


def test_bare_key_trigger_fires_on_the_bare_word_only():
    pattern = triggers.bare_key_trigger('terraform state show a.this["logs"]')
    assert triggers.matches(pattern, 'terraform import aws_s3_bucket.b["x"] bucket-x')
    assert not triggers.matches(pattern, "terraform state show 'a.this[\"logs\"]'")
    assert not triggers.matches(pattern, 'terraform apply -var="region=eu-west-1"')


@pytest.mark.parametrize(
    ("failing", "fixed", "found"),
    [
        ("python3 app/cli.py x", "python3 -m app.cli x", ("app/cli.py", "python3 -m app.cli")),
        (
            "python ./src/pkg/run.py",
            "python -m src.pkg.run",
            ("./src/pkg/run.py", "python -m src.pkg.run"),
        ),
        ("python3 cli.py x", "python3 -m cli x", None),  # (at the top: no package)
        ("python3 app/cli.py x", "python3 -m app.cli y", None),  # (its words changed too)
        ("python3 app/cli.py x", "python3 -m app.main x", None),  # (another module)
        ("python3 app/cli.py x", "python3.12 -m app.cli x", None),  # (another Python)
        ("node app/cli.js x", "node -m app.cli x", None),
    ],
)
def test_as_module(failing, fixed, found):
    assert triggers.as_module(failing, fixed) == found


def test_case_swapped_is_one_letter_option():
    assert triggers.case_swapped("scp -p 22 a h:", "scp -P 22 a h:") == "-p"
    assert triggers.case_swapped("tool --Verbose x", "tool --verbose x") is None


@pytest.mark.parametrize(
    ("failing", "fixed", "error", "folder"),
    [
        ("go build", "go build ./cmd/app", "no Go files in /w/app", "cmd/app"),
        # not the words of a folder without a project
        ("go build", "go build ./cmd/app", "./main.go:3: undefined: x", None),
        # a folder given without ``./`` may be a package name
        ("go build", "go build cmd/app", "no Go files in /w/app", None),
        # Go's pattern of every package here made one package, not a pattern of a folder below
        ("go test ./...", "go test ./svc", "go.mod file not found", None),
        ("go test ./...", "go test ./svc/...", "go.mod file not found", "svc"),
        # a folder option beside another change
        ("make test", "make -C backend lint", "No rule to make target 'test'", None),
        ("make test", "make -C backend test", "No rule to make target 'test'", "backend"),
    ],
)  # fmt: skip
def test_subfolder_operand_is_the_same_command_pointed_below(failing, fixed, error, folder):
    assert triggers.subfolder_operand(failing, fixed, error) == folder


def test_backgrounded_is_the_same_command_sent_to_the_background():
    assert triggers.backgrounded("npm run dev", "nohup npm run dev > dev.log 2>&1 &")
    assert not triggers.backgrounded("npm run dev", "npm run dev --host &")
    assert not triggers.backgrounded("npm run dev", "npm run dev > dev.log")


def test_assignment_is_the_variable_as_set_in_front():
    assert triggers.assignment("CGO_ENABLED=1 go test -race ./...", "CGO_ENABLED") == (
        "CGO_ENABLED=1"
    )
    # a word after the program that looks like one is an argument, not a variable set
    assert triggers.assignment("make CGO_ENABLED=1", "CGO_ENABLED") == "CGO_ENABLED"


@pytest.mark.parametrize(
    ("error", "fixed", "named"),
    [
        (
            "Please update your lock file with `npm install` before continuing.",
            "npm install",
            "npm install",
        ),
        (
            "hint: run cargo update to refresh the lock file",
            "cargo update -p serde",
            "cargo update",
        ),
        ("use 'yarn install --check-files'", "yarn install --check-files", "yarn install"),
        ("npm ERR! missing script: test", "npm run build", None),
        ("npm install failed, see the log", "npm install --force", None),  # (said, not asked)
        ("run `make`", "make", None),  # one word: said by errors that do not ask for it
        # the two words the error named, of three the fix ran
        ("consider using 'yarn dlx' or a plugin", "yarn dlx serve -s dist", "yarn dlx"),
        ("try `git lfs pull origin`", "git lfs pull origin main", "git lfs pull"),
    ],
)
def test_command_named(error, fixed, named):
    assert triggers.command_named(error, fixed) == named


@pytest.mark.parametrize(
    ("failing", "fixed", "error", "took"),
    [
        ("cmake --build b --target unit_test", "cmake --build b --target unit_tests",
         "ninja: error: unknown target 'unit_test', did you mean 'unit_tests'?", True),
        ("cargo biuld", "cargo build", "error: no such command: `biuld`\n\n\tDid you mean `build`?",
         True),
        ("gh prr list", "gh pr list", 'unknown command "prr" for "gh"\n\nDid you mean this?\n\tpr',
         True),
        ("git stauts", "git status",
         "git: 'stauts' is not a git command.\n\nThe most similar command is\n\tstatus", True),
        # another word than the one suggested, or more changed than the one word
        ("cargo biuld", "cargo check", "Did you mean `build`?", False),
        ("npm run lint:fix", "npm run lint -- --fix",
         'Missing script: "lint:fix"\n\nDid you mean one of these?\n  npm run lint', False),
        ("cargo biuld", "cargo build", "error: no such command: `biuld`", False),
        # the corrected call, then more work after it; never the suggestion given elsewhere
        ("cmake --build b --target unit_test",
         "cmake --build b --target unit_tests && ./b/tests/unit_tests",
         "ninja: error: unknown target 'unit_test', did you mean 'unit_tests'?", True),
        ("cd b && cmake --build . --target unit_test",
         "cmake --build b --target unit_tests && ./b/tests/unit_tests",
         "ninja: error: unknown target 'unit_test', did you mean 'unit_tests'?", False),
    ],
)  # fmt: skip
def test_took_suggestion_is_a_slip_the_tool_set_right(failing, fixed, error, took):
    assert triggers.took_suggestion(failing, fixed, error) is took


@pytest.mark.parametrize(
    ("failing", "fixed", "was", "now", "form"),
    [
        pytest.param(
            "pytest tests/x.py:88", "pytest tests/x.py::test_a", "tests/x.py:88",
            "tests/x.py::test_a", r"""\w:\d+(?=$|[\s'"])""", id="a line number at the end",
        ),
        pytest.param(
            "pytest 'tests/x.py:88' -q", "pytest 'tests/x.py::test_a' -q", "tests/x.py:88",
            "tests/x.py::test_a", r"""\w:\d+(?=$|[\s'"])""", id="quoted, a word after it",
        ),
        pytest.param(
            "gradle test --tests 'billing.Tax#up'", "gradle test --tests 'billing.Tax.up'",
            "billing.Tax#up", "billing.Tax.up", r"\w\#\w", id="a sign between two names",
        ),
        pytest.param(
            "pip install httpx@0.27", "pip install httpx==0.27", "httpx@0.27", "httpx==0.27",
            r"\w@\w", id="a sign for another",
        ),
        pytest.param(
            "git show HEAD~2", "git show HEAD^^", "HEAD~2", "HEAD^^",
            r"""\w\~\d+(?=$|[\s'"])""", id="a sign and a number",
        ),
        pytest.param(
            "mvn -Dtest=TaxTest#up test", "mvn -Dtest=TaxTest.up test", "-Dtest=TaxTest#up",
            "-Dtest=TaxTest.up", r"\w\#\w", id="in an option's value",
        ),
        pytest.param(
            "tool --only=core:api", "tool --only=core::api", "--only=core:api",
            "--only=core::api", r"\w:\w", id="a sign added beside one",
        ),
    ],
)  # fmt: skip
def test_an_argument_in_another_form_and_the_pattern_of_the_wrong_one(
    failing, fixed, was, now, form
):
    assert triggers.argument_form(failing, fixed) == (was, now, form)
    assert re.search(form, failing) and not re.search(form, fixed)


@pytest.mark.parametrize(
    ("failing", "fixed"),
    [
        ("cat src/util.ts", "cat src/lib/util.ts"),  # another folder
        ("cat src/a:b.txt", "cat src/a/b.txt"),  # a sign became a folder
        ("pytest tests/x.py::Cart::test_b", "pytest tests/x.py::Cart"),  # cut off
        ("pytest tests/x.py", "pytest tests/x.py::test_a"),  # added: no wrong form to see
        ("ls foo-bar", "ls foo_bar"),  # no sign
        ("git tag 'v $(cat V)'", "git tag 'v 1.2'"),  # a shell expansion
        ("deploy app$ENV", "deploy app_ENV"),  # a variable, not a sign
        ("echo 'ab $HOME'", "echo 'ab:HOME'"),  # a word less
        ("go test -run 'T/a b'", "go test -run 'T/a_b'"),  # a space
        ("git tag release:v1", "git tag release::v2"),  # two places changed
        ("docker run redis:6", "docker run redis:7"),  # another version: no sign changed
        ("pip install ab@1", "pip install ab==1"),  # too little named the same
        ("tool x@abc", "tool x==abc"),  # what both name is after the change
        ("make --target=x86", "make --arch=x86"),  # an option's own name
        ("tool --only:core", "tool --only::core"),  # an option, no value
        ("cp a b", "cp a b c"),  # not one word swapped
        ("python -c 'import x" + "y" * 200 + ":1'", "python -c 'import x" + "y" * 200 + "::1'"),
    ],
)
def test_what_is_no_other_form_of_the_argument(failing, fixed):
    assert triggers.argument_form(failing, fixed) is None


def test_the_form_trigger_names_the_command_too():
    pattern = triggers.argument_form_trigger("pytest t/x.py:88", r"""\w:\d+(?=$|[\s'"])""")
    assert pattern is not None
    assert triggers.matches(pattern, "python -m pytest t/y.py:12")
    assert not triggers.matches(pattern, "curl localhost:8000")


@pytest.mark.parametrize(
    ("command", "beside", "step"),
    [
        ("cd /a && go mod tidy 2>&1 | tail -3", "cd /a && go test ./...", "go mod tidy"),
        ("cd /b && go mod tidy", "cd /a && go test ./...", "cd /b && go mod tidy"),  # elsewhere
        ("cargo install x; echo \"exit: $?\"", "cargo x", "cargo install x"),
        ("npm run build >/dev/null", "npm test", "npm run build"),
        ("curl -fsSL https://x.sh | sh", "x", "curl -fsSL https://x.sh | sh"),  # a command after
        ("ls | grep -i lint", "x", "ls | grep -i lint"),  # a search is part of the work
    ],
)  # fmt: skip
def test_as_step(command, beside, step):
    assert triggers.as_step(command, beside) == step


@pytest.mark.parametrize(
    ("before", "again", "swapped"),
    [
        ("kubectl apply -f k8s/app/", "kubectl apply -k k8s/app", (["-f"], ["-k"])),
        ("tar -xzf a.tar.xz", "tar -xJf a.tar.xz", (["-xzf"], ["-xJf"])),
        ("cd /p && jest --testPathPattern x", "cd /p && jest --testPathPatterns x 2>&1 | tail",
         (["--testPathPattern"], ["--testPathPatterns"])),
        ("kubectl apply -f a/", "kubectl apply -f b/", None),  # an operand
        ("cmake --build build -j8", "cmake -S . -B build", None),  # called anew
        ("git push", "git push --force", None),  # only added
        ("cd /a && x -f y", "cd /b && x -k y", None),  # another folder
    ],
)  # fmt: skip
def test_options_swapped(before, again, swapped):
    assert triggers.options_swapped(before, again) == swapped


@pytest.mark.parametrize(
    ("before", "again", "moved"),
    [
        ("pg_dump -d x", "/opt/pg16/bin/pg_dump -d x", "/opt/pg16/bin/pg_dump"),
        ("pg_dump -d x", "/opt/pg16/bin/pg_dump -d y", None),
        ("pg_dump -d x", "/opt/pg16/bin/pg_restore -d x", None),
        ("pg_dump -d x", "pg_dump -d x", None),
    ],
)
def test_program_moved(before, again, moved):
    assert triggers.program_moved(before, again) == moved


@pytest.mark.parametrize(
    ("before", "again", "added"),
    [
        ("cd /p && go test ./...", "cd /p && CGO_ENABLED=1 go test ./... 2>&1 | tail -2",
         ["CGO_ENABLED=1"]),
        ("go test ./... >/dev/null 2>&1", "CGO_ENABLED=1 go test ./...", ["CGO_ENABLED=1"]),
        ("cd /p && go test ./...", "cd /q && CGO_ENABLED=1 go test ./...", []),
        ("go test ./a", "CGO_ENABLED=1 go test ./b", []),
    ],
)  # fmt: skip
def test_assignments_added_through_what_surrounds_the_command(before, again, added):
    assert triggers.assignments_added(before, again) == added


@pytest.mark.parametrize(
    ("command", "edits"),
    [
        ("sed -i 's/a/b/' f.py", True),
        ("cd /p && perl -pi -e 's/a/b/' f", True),
        ("patch -p1 < x.diff", True),
        ("sed -n 1,5p f.py", False),
        ("grep -rn sed src", False),
        ("git apply x.diff", False),  # (read by the write check, not as an in-place edit)
        # a script handed to an interpreter that rewrites a source file
        ("python3 - <<'EOF'\nfrom pathlib import Path\nPath('a.swift').write_text('x')\nEOF", True),
        ("python3 -c \"open('a.py', 'w').write('x')\"", True),
        ("python3 -c \"print(open('a.py').read())\"", False),
        ("grep -rn write_text src", False),  # (the words, not code run)
    ],
)
def test_edits_in_place(command, edits):
    assert triggers.edits_in_place(command) is edits


def test_an_error_that_names_the_file_a_step_made():
    error = "Database file at path [/srv/desk/database/database.sqlite] does not exist."
    assert triggers.step_makes_named(error, "touch database/database.sqlite")
    assert not triggers.step_makes_named(error, "touch database/other.sqlite")
    assert not triggers.step_makes_named(error, "php artisan migrate --path=x")


def test_a_time_limit_put_in_front_is_no_change_of_the_command():
    added = triggers.assignments_added(
        "cd /p && go test ./...", "cd /p && GOCACHE=/tmp/g timeout 300 go test ./..."
    )
    assert added == ["GOCACHE=/tmp/g"]
    assert triggers.options_added("go test ./x", "timeout 5m go test -count=1 ./x") == ["-count=1"]
    assert triggers.options_added("go test ./x", "timeout 300 go test -count=1 ./x") == ["-count=1"]


@pytest.mark.parametrize(
    ("failing", "fixed", "changed"),
    [
        ("jupyter nbconvert --to pdf a.ipynb", "jupyter nbconvert --to webpdf a.ipynb",
         ("--to", "pdf", ["webpdf"])),
        ("cd /p && semgrep scan --config=auto src/",
         "cd /p && semgrep scan --config p/python --config 'rules.yml' src/ | tail -3",
         ("--config", "auto", ["p/python", "rules.yml"])),
        # one of two values dropped: no value given in its place
        ("semgrep scan --config a --config b src/", "semgrep scan --config b src/", None),
        # a short option's next word may be an operand, not its value
        ("tool -x a.txt", "tool -x b.txt", None),
        ("tool --color always a.txt", "tool --color never a.txt", None),  # how it prints
        ("semgrep --config 'a b.yml' src/", "semgrep --config c.yml src/",
         ("--config", "a b.yml", ["c.yml"])),
        ("jupyter nbconvert --to pdf a.ipynb", "pandoc --to pdf a.md", None),  # another program
        ("jupyter nbconvert --to pdf a.ipynb", "jupyter nbconvert --to pdf b.ipynb", None),
    ],
)  # fmt: skip
def test_value_changed(failing, fixed, changed):
    assert triggers.value_changed(failing, fixed) == changed


@pytest.mark.parametrize(
    ("command", "heads"),
    [
        ("npm run build 2>&1 | tail -4 && npm publish",
         [["npm", "run", "build"], ["npm", "publish"]]),
        ('cd /p && git commit -m "a b"', [["cd", "/p"], ["git", "commit", "-m", "a b"]]),
        ("npm run build", []),  # no chain
        ("npm run build; npm publish", []),
        ("make || make clean && make", []),
        ("make && (cd web && npm test)", []),
        ("make &&\nmake install", []),
        ("make && && make install", []),  # a part with nothing in it
    ],
)  # fmt: skip
def test_chain_heads(command, heads):
    assert triggers.chain_heads(command) == heads


def test_programs_named():
    error = "bash: cd: src: No such file or directory\nfatal: not a git repository\nnpm error x"
    assert triggers.programs_named(error) >= {"cd", "fatal"}
    assert "npm" not in triggers.programs_named(error)


def test_an_environment_managers_options_count_among_the_commands_flags():
    """As a runner's do (``npx --yes``): ``uv run --with x`` is how this run was called."""
    shape = triggers.main_shape("uv run --with 'nbconvert[webpdf]' jupyter nbconvert --to pdf")
    assert shape is not None and shape.flags == ("--with", "--to")


@pytest.mark.parametrize(
    ("failing", "fixed", "loaded"),
    [
        ("cd /p && uv run airflow dags test etl",
         "cd /p && source .envrc && uv run airflow dags test etl 2>&1 | tail -4", "source .envrc"),
        ("celery -A app worker", "set -a && . ./.env && set +a && celery -A app worker",
         "set -a && . ./.env && set +a"),
        ("pytest -x", "source .venv/bin/activate && pytest -x", None),  # an environment
        ("pytest -x", "export A=1 && source .env && pytest -x", None),  # more than the file
        ("pytest -x", "source .env && pytest -q", None),  # the command changed too
        ("source .env && pytest -x", "source .env && pytest -x", None),
    ],
)  # fmt: skip
def test_env_loaded_first(failing, fixed, loaded):
    assert triggers.env_loaded_first(failing, fixed) == loaded


@pytest.mark.parametrize(
    ("failing", "fixed", "name"),
    [
        ("X=1; make", "export X=1 && make", "X"),
        ("cd /p && X='a b' && make", "X='a b' make", "X"),  # set in front of it
        ("X=1; make", "X=1; export X; make", None),  # (exported apart: a step, not the rule)
        ("X=1; make", "make X=1", None),  # an argument of make's: another lesson
        ("X=1 make", "export X=1 && make", None),  # it was in front already
        ("X=1 make lint; make test", "export X=1 && make lint; make test", None),
        ("make; X=1", "export X=1 && make", None),  # set after the command, for nothing
        ("make", "export X=1 && make", None),  # nothing set before
    ],
)
def test_a_variable_set_on_its_own_then_exported(failing, fixed, name):
    assert triggers.unexported(failing, fixed) == name


def test_the_trigger_of_a_variable_set_on_its_own():
    pattern = triggers.unexported_trigger("X")
    for fires in ("X=1; make", 'cd /p && X="a b" && make', "(X=1; make)"):
        assert triggers.matches(pattern, fires)
    for quiet in ("export X=1 && make", "X=1 make", "MAX=1; make", "X=1"):
        assert not triggers.matches(pattern, quiet)


@pytest.mark.parametrize(
    ("fixed", "pair"),
    [
        ("podman run docker.io/library/postgres:16",
         ("postgres:16", "docker.io/library/postgres:16")),
        ("podman run registry.example.com:5000/pg:16", None),  # another name, not a full one
        ("podman run docker.io/library/postgres:17", None),  # another version
        ("podman run myorg/postgres:16", None),  # an organisation's image, no registry's host
    ],
)  # fmt: skip
def test_a_short_name_given_by_its_full_name(fixed, pair):
    assert triggers.registry_added("podman run postgres:16", fixed) == pair


def test_a_name_with_a_path_is_no_short_name():
    fixed = "podman run docker.io/library/postgres:16"
    assert triggers.registry_added("podman run library/postgres:16", fixed) is None


def test_a_word_quoted_for_its_glob_is_no_spaced_word():
    """``adb shell 'ls /sdcard/*.jpg'`` quoted the remote command for its glob, though it holds
    spaces: the glob is the lesson (the class of the shell's glob), not the spaces."""
    assert triggers.space_quoted("adb shell ls /x/*.jpg", "adb shell 'ls /x/*.jpg'") is None
    assert triggers.space_quoted("adb shell ls /x/a.jpg", "adb shell 'ls /x/a.jpg'") == (
        "ls /x/a.jpg"
    )


@pytest.mark.parametrize(
    ("failing", "fixed", "slip"),
    [
        # a path or a name a letter off, nothing else changed
        (
            "cd ~/src/nb && git submodule update --init thirdparty/libuv",
            "cd ~/src/nb && git submodule update --init third_party/libuv",
            triggers.LETTERS,
        ),
        ("npm run biuld", "npm run build 2>&1 | tail -5", triggers.KEYS),
        # two neighbouring letters put back in their order, however short the word
        ("git switch mian", "git switch main", triggers.KEYS),
        ("cd /p && make tset", "cd /p && make test 2>&1 | tail -3", triggers.KEYS),
        ("train.py --epcohs 30", "train.py --epochs 30", triggers.KEYS),
        ("make txet", "make test", None),  # two letters wrong in a short word, not swapped
        ("make build", "gmake build", None),  # another program
        ("npm run ab", "npm run ba", None),  # too short to tell
        ("make tset", "make test lint", None),
        ("cd /a && make tset", "cd /b && make test", None),
        # an option's value retyped
        (
            "clang-tidy --checks=-*,bugprone-use-after-mov a.cpp",
            "clang-tidy --checks=-*,bugprone-use-after-move a.cpp",
            triggers.LETTERS,
        ),
        # an option is another option, whatever its letters
        ("tar -xzf a.tar", "tar -xf a.tar", None),
        ("jest --testPathPattern x", "jest --testPathPatterns x", None),
        ("scp -p 2222 a h:", "scp -P 2222 a h:", None),
        ("x --mode=fats", "x --mod=fast", None),
        # a number is another thing: an interpreter, a port, a version
        ("tox -e py311", "tox -e py312", None),
        # a name in another case, more than a letter or two of it
        ("cat Readme.md", "cat README.md", None),
        # more than a letter or two, or more than one word
        ("git checkout feat-login", "git checkout feature/login", None),
        ("npm run biuld -- --watch", "npm run build -- --watch=false", None),
        ("git push --lease=topic:abc123 o", "git push --lease=topic:def456 o", None),
        # three letters of a long name: another value, however close the rest
        ("kubectl logs api-rollout-eu1", "kubectl logs api-rollout-uk2", None),
        # a sign changed: another form of the word, not a slip
        ("pip install httpx@0.27", "pip install httpx==0.27", None),
        ("gradle test --tests a.B#c", "gradle test --tests a.B.c", None),
        # a letter more or less of a name
        ("npm run tests", "npm run test", triggers.LETTERS),
        ("pip install yaml", "pip install pyyaml", None),  # two more: another name
        ("make checkk", "make check", triggers.LETTERS),  # a letter typed twice
        # a word added: not the same words retyped
        ("npm run build", "npm run build --silent", None),
    ],
)
def test_retyped_is_one_word_a_letter_or_two_amiss(failing, fixed, slip):
    """A word typed anew with two letters swapped, or a letter or two of a name amiss, is a
    slip of this call; an option, a program, a number, a case or a sign is another thing."""
    assert triggers.retyped(failing, fixed) == slip
