"""Secrets never reach a store or an export.

A corpus of fake secrets — every one generated here from its provider's documented format
(prefix, alphabet, length), obviously fake (seeded filler, "FAKE" where the alphabet allows it)
but shaped like the real thing — is pushed through every write path: the scanner (Tier 1
``#lesson`` blocks and Tier 2 failures, with texts long enough that the old cut-before-redact
order split the token), ``lessons add``, ``lessons import``, ``lessons export``, the compiled
manifest, the hook's delivery log and the deliveries table. No secret, and no 8-character
fragment of one, may come out the other end.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import sqlite3
import string
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import pytest

from lessons_core import privacy
from lessons_core.models import Candidate, Lesson, Triggers
from lessons_core.scan import events, intake

BIN = Path(sys.executable).parent
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


class _Maker:
    """Seeded filler: the same fake secrets on every run, none of them anyone's."""

    def __init__(self, seed: int = 20261201) -> None:
        self.rng = random.Random(seed)

    def __call__(self, n: int, alphabet: str = ALNUM, *, fake: bool = True) -> str:
        head = "FAKE" if fake and set("FAKE") <= set(alphabet) and n > 12 else ""
        return head + "".join(self.rng.choice(alphabet) for _ in range(n - len(head)))


@attrs.frozen
class Fake:
    """One fake secret: ``text`` is how it appears (a line of a shell or a config file);
    ``secret`` the part that must vanish; ``body`` its generated part, whose every 8-character
    window is looked for (the fixed prefix of a format is public knowledge)."""

    kind: str
    text: str
    secret: str
    body: str

    @property
    def token(self) -> str | None:
        """The secret as a bare word (a tag, a path part), when it is recognisable alone: a
        password out of its ``-p`` or ``password=`` context is just a word to anyone."""
        word = self.secret.split()[0]
        return word if privacy.redact(word) != word else None

    @property
    def pattern(self) -> str:
        """A regex trigger holding the secret: the bare token when it stands alone, else the
        line it appears in, escaped (as the scanner builds triggers from commands)."""
        return re.escape(self.token or " ".join(self.text.split()))


def _fakes() -> list[Fake]:
    r = _Maker()
    out: list[Fake] = []

    def add(kind: str, prefix: str, body: str, template: str = "{}") -> None:
        secret = prefix + body
        out.append(Fake(kind, template.format(secret), secret, body))

    def labelled(kind: str, template: str, body: str) -> None:
        out.append(Fake(kind, template.format(body), body, body))

    add("anthropic", "sk-ant-api03-", r(93, URLSAFE) + "AA", "ANTHROPIC_API_KEY={}")
    add("anthropic-admin", "sk-ant-admin01-", r(90, URLSAFE))
    add("openai-project", "sk-proj-", r(156, URLSAFE), "export OPENAI_API_KEY={}")
    add("openai-legacy", "sk-", r(20) + "T3BlbkFJ" + r(20))
    add("openai-service", "sk-svcacct-", r(60, URLSAFE))
    add("github-classic", "ghp_", r(36), "git remote set-url origin https://{}@github.com/x/y")
    add("github-oauth", "gho_", r(36))
    add("github-server", "ghs_", r(36))
    add("github-refresh", "ghr_", r(76))
    add("github-fine-grained", "github_pat_11", r(20) + "_" + r(59))
    add("gitlab-pat", "glpat-", r(20, URLSAFE))
    add("gitlab-trigger", "glptt-", r(40, HEX))
    add("gitlab-deploy", "gldt-", r(20, URLSAFE))
    add("aws-access-key", "AKIA", r(16, string.ascii_uppercase + "234567", fake=False))
    add("aws-session-key", "ASIA", r(16, string.ascii_uppercase + "234567", fake=False))
    labelled("aws-secret", "aws_secret_access_key = {}", r(40, B64))
    add("google-api", "AIza", r(35, URLSAFE), "GOOGLE_MAPS={}")
    add("google-oauth-secret", "GOCSPX-", r(28, URLSAFE))
    add("google-oauth-token", "ya29.", r(120, URLSAFE))
    add("slack-bot", "xoxb-", f"{r(12, string.digits)}-{r(13, string.digits)}-{r(24)}")
    add("slack-user", "xoxp-", f"{r(12, string.digits)}-{r(13, string.digits)}-{r(32, HEX)}")
    add("slack-app", "xapp-1-", f"A{r(10, string.digits)}-{r(13, string.digits)}-{r(64, HEX)}")
    add("slack-webhook", "https://hooks.slack.com/services/", f"T{r(10)}/B{r(10)}/{r(24)}")
    add("stripe-secret", "sk_live_", r(99))
    add("stripe-restricted", "rk_live_", r(99))
    add("stripe-webhook", "whsec_", r(32))
    add("npm", "npm_", r(36), "//registry.npmjs.org/:_authToken={}")
    add("pypi", "pypi-AgEIcHlwaS5vcmc", r(70, URLSAFE), "password = {}")
    add("rubygems", "rubygems_", r(48, HEX))
    add("huggingface", "hf_", r(34))
    add("sendgrid", "SG.", f"{r(22, URLSAFE)}.{r(43, URLSAFE)}")
    add("twilio-api-key", "SK", r(32, HEX))
    add(
        "twilio-auth-token",
        f"AC{r(32, HEX)}:",
        r(32, HEX),
        "curl -X POST https://api.twilio.com/2010-04-01/Accounts -u {}",
    )
    labelled("twilio-env", "TWILIO_AUTH_TOKEN={}", r(32, HEX))
    labelled("twilio-client", f'client = Client("AC{r(32, HEX)}", "{{}}")', r(32, HEX))
    add("mailgun", "key-", r(32, HEX), "curl -s --user 'api:{}' https://api.mailgun.net/v3")
    add("mailgun-private", "", f"{r(32, HEX)}-{r(8, HEX)}-{r(8, HEX)}", "MG={}")
    add("digitalocean", "dop_v1_", r(64, HEX))
    add("shopify", "shpat_", r(32, HEX))
    add("databricks", "dapi", r(32, HEX))
    add("age", "AGE-SECRET-KEY-1", r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"))
    add(
        "telegram-url",
        f"{r(10, string.digits)}:AA",
        r(33, URLSAFE),
        "curl https://api.telegram.org/bot{}/sendMessage -d chat_id=1",
    )
    add("telegram-bare", f"{r(9, string.digits)}:AA", r(33, URLSAFE), "BOT={}")
    add("discord-webhook", f"https://discord.com/api/webhooks/{r(18, string.digits)}/", r(68))
    add(
        "discord-bot",
        "M",
        f"{r(25, URLSAFE)}.{r(6, URLSAFE)}.{r(38, URLSAFE)}",
        "client.run('{}')",
    )
    add("docker-hub", "dckr_pat_", r(27, URLSAFE), "docker login -u me --password-stdin <<< {}")
    add("vault", "hvs.", r(90, URLSAFE))
    add("terraform", f"{r(14)}.atlasv1.", r(67, URLSAFE))
    add("grafana", "glsa_", r(32) + "_" + r(8, HEX))
    add("newrelic", "NRAK-", r(27, string.ascii_uppercase + string.digits))
    add("sentry", "sntrys_", r(90, B64))
    add("postman", "PMAK-", f"{r(24, HEX)}-{r(34, HEX)}")
    add("linear", "lin_api_", r(40))
    add("notion", "ntn_", r(46))
    add("doppler", "dp.pt.", r(43))
    add("supabase", "sbp_", r(40, HEX))
    add("planetscale", "pscale_tkn_", r(43, URLSAFE))
    add("figma", "figd_", r(40, URLSAFE))
    add("pulumi", "pul-", r(40, HEX))
    add("groq", "gsk_", r(52))
    add("replicate", "r8_", r(37))
    add("perplexity", "pplx-", r(48))
    add("xai", "xai-", r(80))
    add("square", "sq0atp-", r(22, URLSAFE))
    add("heroku", "HRKU-", r(60, URLSAFE))
    add("dynatrace", "dt0c01.", f"{r(24, string.ascii_uppercase)}.{r(64, string.ascii_uppercase)}")
    add("buildkite", "bkua_", r(40, HEX))
    add("airtable", "pat", f"{r(14)}.{r(64, HEX)}")
    add("mapbox", "sk.eyJ", f"{r(60, URLSAFE)}.{r(22, URLSAFE)}")
    jwt_body = f"eyJ{r(40, URLSAFE)}.{r(43, URLSAFE)}"
    add("jwt", "eyJhbGciOiJIUzI1NiJ9.", jwt_body, "Cookie: session={}")
    labelled(
        "azure-storage",
        "DefaultEndpointsProtocol=https;AccountName=fake;AccountKey={};EndpointSuffix=core",
        r(86, B64) + "==",
    )
    labelled(
        "azure-service-bus",
        "Endpoint=sb://x/;SharedAccessKeyName=R;SharedAccessKey={}",
        r(43, B64) + "=",
    )
    labelled("authorization-basic", 'curl -H "Authorization: Basic {}" https://x', r(40, B64))
    labelled("authorization-other", "Authorization: SSWS {}", r(42, URLSAFE))
    labelled("bearer", "send it with Bearer {} as the header", r(40, URLSAFE))
    labelled("url-password", "DATABASE_URL=postgres://app:{}@db.example.com:5432/app", r(24))
    labelled("url-password-at", "git clone https://bob:{}@git.example.com/a.git", f"{r(8)}@{r(9)}")
    add(
        "pem-rsa",
        "-----BEGIN RSA PRIVATE KEY-----\n",
        f"MIIEow{r(58, B64)}\n{r(64, B64)}\n{r(40, B64)}==\n-----END RSA PRIVATE KEY-----",
    )
    add(
        "pem-no-end",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
        f"b3BlbnNzaC1rZXktdjEAAAAA{r(46, B64)}\n{r(70, B64)}\n{r(70, B64)}",
    )
    add("pem-escaped", "-----BEGIN PRIVATE KEY-----\\n", f"MIIEvQ{r(60, B64)}\\n{r(60, B64)}")
    labelled("mysql", "mysql -u root -h db -p{} app < dump.sql", r(16))
    labelled("mysqldump", "mysqldump -uroot -p'{}' app", r(14))
    labelled("sshpass", "sshpass -p {} ssh deploy@host", r(14))
    labelled("curl-user", "curl -u admin:{} https://ci.example.com/api", r(18))
    labelled("wget-password", "wget --http-user=me --http-password={} https://x", r(16))
    labelled("netrc-line", "machine api.example.com login me password {}", r(20))
    labelled("netrc-lines", "machine api.example.com\n  login me\n  password {}\n", r(20))
    docker_auth = base64.b64encode(f"fakeuser:{r(24)}".encode()).decode()
    labelled(
        "docker-config",
        '{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{}"}}}}}}',
        docker_auth,
    )
    labelled("password-assign", "export DB_PASSWORD={}", r(18))
    labelled("password-quoted", 'password = "{}"', r(10) + " " + r(6))
    labelled("json-secret", '{{"client_secret": "{}"}}', r(32))
    labelled("token-yaml", "api_token: {}", r(30))
    labelled("entropy-fallback", "DEPLOY_SIGNATURE={}", r(32))
    labelled("entropy-json", '{{"session": "{}"}}', r(40))
    return out


FAKES = _fakes()


def fragments(fake: Fake, size: int = 8) -> Iterator[str]:
    """Every ``size``-character window of the generated part of ``fake``."""
    body = fake.body.replace("\\n", "\n")
    for piece in re.split(r"\s+", body):
        for i in range(max(0, len(piece) - size + 1)):
            yield piece[i : i + size]


def leaks(blob: str) -> list[str]:
    """The kinds of fake secret of which ``blob`` still holds 8+ characters (case-folded too:
    slugs are lower case)."""
    low = blob.lower()
    found = []
    for fake in FAKES:
        if fake.secret in blob or any(f in blob or f.lower() in low for f in fragments(fake)):
            found.append(fake.kind)
    return found


def test_the_corpus_is_large_and_varied():
    """At least fifty kinds, each with enough generated characters to be checked."""
    assert len({f.kind for f in FAKES}) >= 50
    assert all(len(list(fragments(f))) >= 3 for f in FAKES)


@pytest.mark.parametrize("fake", FAKES, ids=[f.kind for f in FAKES])
def test_every_fake_secret_is_redacted(fake: Fake):
    """Each format is recognised in context and nothing of it survives."""
    out = privacy.redact(fake.text)
    assert "[REDACTED:" in out
    assert leaks(out) == [], out


@pytest.mark.parametrize("fake", FAKES, ids=[f.kind for f in FAKES])
def test_redaction_before_any_cut(fake: Fake):
    """Wherever a cut falls, redacting first leaves no fragment: the cut a summary or an error
    line gets (100-200 characters) used to come first and split the token out of its rule."""
    text = "error: deploy failed while " + fake.text
    for limit in range(30, len(text), 7):
        assert leaks(privacy.redact_head(text, limit)[:limit]) == []


def test_a_cut_token_used_to_leak():
    """The defect itself: 33 of a 36-character token's characters once survived a cut."""
    token = "ghp_" + _Maker()(36)
    line = "x" * 167 + " " + token
    assert token[:20] in privacy.redact(line[:200])  # cut first: the rule no longer matches
    assert token[:20] not in privacy.redact_head(line, 200)[:200]


def test_shorten_never_splits_a_token():
    """The readers keep the head and tail of long outputs; the cut moves to a separator."""
    for fake in FAKES:
        text = "log line\n" * 220 + fake.text + "\nmore\n" * 400
        middle = text.index(fake.secret) + len(fake.secret) // 2
        pad = "y" * max(0, 2000 - middle)
        short = events.shorten(pad + text)
        assert leaks(privacy.redact(short)) == [], fake.kind


def test_shorten_redacts_a_blob_without_separators():
    token = "ghp_" + _Maker()(36)
    text = "a" * 1990 + token + "b" * 5000
    assert token[8:16] not in events.shorten("x" + text)


@pytest.mark.parametrize(
    ("pattern", "command"),
    [
        (r"^\s*mysql\s+-u\s+root\s+-pS3cretFAKEpw\b", "mysql -u root -pOtherPassw0rd"),
        (re.escape("curl -u admin:FAKEpassw0rd9 https://x"), "curl -u admin:another https://x"),
        (
            re.escape("git push https://x:ghp_" + "A1b2C3d4" * 4 + "e5f6@github.com/a"),
            "git push https://x:ghp_other@github.com/a",
        ),
    ],
)
def test_secret_inside_a_regex_trigger(pattern: str, command: str):
    """The secret goes, the pattern still compiles and still fires on the same command made
    with another credential."""
    out = privacy.redact_pattern(pattern)
    assert "FAKEpassw0rd9" not in out and "S3cretFAKEpw" not in out and "A1b2C3d4" not in out
    assert re.compile(out).search(command), out


BREAKS = r"(mysql -pFAKEpw9Qz7)Lm2Rt"  # valid; once the password is \S+, "(" never closes


def test_a_trigger_broken_by_redaction_is_refused_with_a_reason():
    """A candidate whose trigger only compiles with the secret in it stays out, saying why."""
    re.compile(BREAKS)
    candidate = Candidate(
        id="",
        tier=1,
        agent="claude",
        tool="Bash",
        trigger=BREAKS,
        mistake="mysql with the password inline shows it to every user in the process list",
        fix="put the password in an option file that only the user can read instead",
    )
    reason = intake.prepare(candidate)
    assert isinstance(reason, str)
    assert "secret" in reason and "FAKEpw9Qz7" not in reason


def test_store_refuses_a_lesson_whose_redacted_pattern_breaks(tmp_path: Path):
    """The store, the last line, refuses too: an error naming the field, not a leak."""
    from lessons_core.errors import ValidationError
    from lessons_core.store.sqlite import SQLiteStore

    lesson = Lesson(
        id="",
        slug="",
        summary="never pass the password on the mysql command line",
        mistake="mysql -p with the password inline shows it in the process list",
        remediation="use an option file readable only by the user",
        triggers=Triggers(command_patterns=(BREAKS,)),
    )
    with SQLiteStore(tmp_path / "l.db") as store:
        with pytest.raises(ValidationError, match="secret") as raised:
            store.add_lessons([lesson])
        assert "FAKEpw9Qz7" not in str(raised.value)
        assert store.list_lessons() == []


# -- every write path, end to end --------------------------------------------------------------


def _lessons(*args: str, env: dict[str, str], stdin: str | None = None) -> str:
    done = subprocess.run(
        [str(BIN / "lessons"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout + done.stderr


def _words(seed: int, n: int = 10) -> str:
    maker = _Maker(seed)
    return " ".join(maker(7, string.ascii_lowercase, fake=False) for _ in range(n))


def _claude_transcript(path: Path, session: str) -> None:
    """A Claude Code session carrying every fake secret: one ``#lesson`` block each (with a
    summary too long to keep whole, the secret across its cut) and one failed call each whose
    error line and long output hold the secret, followed by the call that worked."""
    records: list[dict[str, Any]] = []

    def env(kind: str, message: dict[str, Any], **extra: Any) -> None:
        n = len(records) + 1
        records.append(
            {
                "parentUuid": None,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/home/dev/app",
                "sessionId": session,
                "version": "2.1.33",
                "type": kind,
                "uuid": f"u-{n:05d}",
                "timestamp": f"2026-02-01T10:{n // 3600 % 60:02d}:{n % 60:02d}.000Z",
                "message": message,
                **extra,
            }
        )

    env("user", {"role": "user", "content": "please deploy"})
    for i, fake in enumerate(FAKES):
        one_line = " ".join(fake.text.split())
        summary = "w" * (120 - 10) + " " + one_line
        words = _words(i)  # distinct texts, or intake folds them together as repeats
        block = (
            "Noted:\n\n#lesson\ntool: Bash\n"
            f"trigger: deploy-{i} --auth {fake.pattern}\n"
            f"summary: {summary}\n"
            f"mistake: {words} failed because the credential {one_line} was passed inline\n"
            f"fix: {_words(i + 500)} reads the credential from the environment, never {one_line}\n"
            f"tags: deploy, {fake.token or 'secrets'}\n#/lesson\n"
        )
        env(
            "assistant",
            {"id": f"msg_a{i}", "role": "assistant", "content": [{"type": "text", "text": block}]},
        )
        call = f"toolu_{i:03d}"
        command = f"tool{i} push --verbose {one_line}"
        # An option the command does not know (a mistake Tier 2 keeps), the secret across the
        # 200-character cut of an error line.
        prefix = "error: unrecognized arguments: --verbose "
        error = prefix + "e" * (200 - len(prefix) - 12) + " " + one_line
        output = f"Exit code 1\n{error}\n" + "noise\n" * 500 + one_line + "\n" + "tail\n" * 500
        env(
            "assistant",
            {
                "id": f"msg_c{i}",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}
                ],
            },
        )
        env(
            "user",
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call,
                        "content": output,
                        "is_error": True,
                    }
                ],
            },
            toolUseResult=f"Error: {output}",
        )
        fixed = f"tool{i} push --from-env"
        env(
            "assistant",
            {
                "id": f"msg_f{i}",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call + "f",
                        "name": "Bash",
                        "input": {"command": fixed},
                    }
                ],
            },
        )
        env(
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call + "f", "content": "pushed"}
                ],
            },
            toolUseResult={"stdout": "pushed", "stderr": ""},
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")


def _lesson_json(i: int, fake: Fake) -> dict[str, Any]:
    """A lesson for ``lessons add`` / ``import`` with the secret in every field that takes text."""
    text = " ".join(fake.text.split())
    token = fake.pattern
    return {
        "summary": f"{'s' * 90} {text}",
        "mistake": f"{_words(i)} passed {text} on the command line, where every process sees it",
        "remediation": f"{_words(i + 500)} keeps {text} in the keyring for the tool to read",
        "injection": f"Never type {text} again",
        "triggers": {
            "toolNames": ["Bash"],
            "commandPatterns": [rf"\bdeploy{i}\b.*{token}"],
            "contentPatterns": [rf"token\s*=\s*{token}"],
            "pathPatterns": [f"**/{fake.token or 'conf'}/*.env"],
        },
        "tags": [f"secret:{fake.token or 'none'}"],
        "scope": None,
    }


def _store_dump(db: Path) -> str:
    with closing(sqlite3.connect(db)) as conn, conn:
        return "\n".join(conn.iterdump())


@pytest.fixture(name="env")
def fixture_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "LESSONS_HOME": str(tmp_path / "lessons-home"),
        "LESSONS_STATE_DIR": str(tmp_path / "state"),
        "LESSONS_AUTO_SCAN": "0",
    }


def _everything_written(lessons_home: Path, *extra: Path) -> str:
    """The text of every file under LESSONS_HOME (the SQLite store dumped) and of ``extra``."""
    parts = []
    for path in sorted(lessons_home.rglob("*")):
        if not path.is_file():
            continue
        if path.name == "lessons.db":
            parts.append(_store_dump(path))
        elif path.suffix in ("", ".json", ".jsonl", ".txt", ".log"):
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    parts.extend(p.read_text(encoding="utf-8") for p in extra)
    return "\n".join(parts)


def test_scan_stores_no_secret(env: dict[str, str], tmp_path: Path):
    """Tier 1 blocks and Tier 2 failures full of secrets: the store, candidates and lessons
    alike, and the manifest hold none of them."""
    session = "5f0c2a8e-2222-4c3b-9d7e-000000000009"
    transcript = Path(env["HOME"]) / ".claude" / "projects" / "-home-dev-app" / f"{session}.jsonl"
    _claude_transcript(transcript, session)
    _lessons("scan", env=env)
    _lessons("build", env=env)
    db = Path(env["LESSONS_HOME"]) / "lessons.db"
    with closing(sqlite3.connect(db)) as conn, conn:
        tiers = dict(conn.execute("SELECT tier, count(*) FROM candidates GROUP BY tier"))
        lessons = conn.execute("SELECT count(*) FROM lessons").fetchone()[0]
    assert tiers.get(1, 0) >= len(FAKES) // 2, tiers  # the blocks came through ...
    assert tiers.get(2, 0) >= 5, tiers  # ... and the failures
    assert lessons >= len(FAKES) // 2
    blob = _everything_written(Path(env["LESSONS_HOME"]))
    assert "[REDACTED:" in blob
    assert leaks(blob) == []
    exported = tmp_path / "export.jsonl"
    _lessons("export", str(exported), env=env)
    assert leaks(exported.read_text(encoding="utf-8")) == []


def test_add_import_export_manifest_and_delivery_log_hold_no_secret(
    env: dict[str, str], tmp_path: Path
):
    """``lessons add`` and ``lessons import`` of lessons with a secret in every field, the
    manifest they compile, the export, and the hook's delivery log of a call full of secrets."""
    added = [_lesson_json(i, f) for i, f in enumerate(FAKES[: len(FAKES) // 2])]
    hooked = FAKES[0]
    added.append(
        {
            "summary": f"deploy-hook takes {hooked.text} from the keyring",
            "mistake": f"deploy-hook was given {hooked.text} on its command line",
            "remediation": "let deploy-hook read its credential from the keyring",
            "triggers": {
                "toolNames": ["Bash"],
                "commandPatterns": [rf"\bdeploy-hook\b.*{re.escape(hooked.secret)}"],
            },
        }
    )
    # A pattern that spells a secret is judged as it is stored, redacted; some are refused
    # then (the redaction leaves a pattern the compiler refuses), and --partial skips them.
    out = _lessons("add", "-", "--partial", env=env, stdin=json.dumps(added))
    skipped = out.count("skipped: ")
    header = {"type": "lessons-export", "version": 1, "count": 0}
    imported = [_lesson_json(i + 1000, f) for i, f in enumerate(FAKES[len(FAKES) // 2 :])]
    source = tmp_path / "incoming.jsonl"
    source.write_text(
        "\n".join(json.dumps(x) for x in [header, *imported]) + "\n", encoding="utf-8"
    )
    try:
        out = _lessons("import", str(source), "--json", env=env)
    except AssertionError:
        # The export header is optional for plain JSON Lines; import without it.
        source.write_text("\n".join(json.dumps(x) for x in imported) + "\n", encoding="utf-8")
        out = _lessons("import", str(source), "--json", env=env)
    skipped += len(json.loads(out.splitlines()[0])["rejected"])
    home = Path(env["LESSONS_HOME"])
    with closing(sqlite3.connect(home / "lessons.db")) as conn, conn:
        stored = conn.execute("SELECT count(*) FROM lessons").fetchone()[0]
    assert stored == len(FAKES) + 1 - skipped
    assert skipped < len(FAKES) // 4
    manifests = [p for p in home.rglob("*.json") if "manifest" in p.name]
    assert manifests, "the manifest was compiled"
    # A hook call whose command and payload are full of secrets, matching a stored lesson.
    fake = FAKES[0]
    command = f"deploy-hook {fake.secret} " + " ".join(f.secret.split()[0] for f in FAKES[:20])
    payload = {
        "session_id": f"s-{fake.body[:4]}",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "deploy"},
        "tool_use_id": "toolu_hook1",
    }
    (tmp_path / "t.jsonl").write_text("", encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "lessons-claude-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    log = home / "deliveries.jsonl"
    assert log.exists() and log.read_text(encoding="utf-8").strip(), done.stdout
    assert leaks(done.stdout) == []  # what the hook showed the agent came from the manifest
    _lessons("stats", env=env)  # ingests the log into the deliveries table
    exported = tmp_path / "export.jsonl"
    _lessons("export", str(exported), env=env)
    blob = _everything_written(home, exported)
    assert "[REDACTED:" in blob
    assert leaks(blob) == []


def test_importing_the_same_file_twice_changes_nothing(env: dict[str, str], tmp_path: Path):
    """Redaction happens before the content hash is compared, so a re-import is a no-op."""
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(json.dumps(_lesson_json(i, f)) for i, f in enumerate(FAKES[:5])) + "\n",
        encoding="utf-8",
    )
    _lessons("import", str(source), env=env)
    again = _lessons("import", str(source), env=env)
    assert "added 0, merged 0, unchanged 5" in again


# -- false positives on real text --------------------------------------------------------------


@pytest.mark.corpus
def test_real_transcripts_keep_their_ordinary_text(shared_dir: Path):
    """Over the real corpus's text (paths, commit shas, ids, code), the rules added for this
    release — the high-entropy fallback, command-line passwords, netrc, Docker auths — fire
    not once: there is no secret in it, and everything else must come through unchanged."""
    root = shared_dir / "corpus" / "real"
    if not root.is_dir():
        pytest.skip("no real corpus")
    new_kinds = {
        "high-entropy",
        "command-password",
        "netrc-password",
        "docker-auth",
        "discord-bot-token",
        "telegram-bot-token",
        "mailgun-key",
        "twilio-auth-token",
    }
    budget = 3_000_000
    fired: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            budget -= len(line)
            for kind in privacy.find_secrets(line):
                if kind in new_kinds:
                    fired.setdefault(kind, []).append(path.name)
            if budget <= 0:
                break
        if budget <= 0:
            break
    assert fired == {}


def test_exported_statistics_are_redacted_to_the_last_nested_string():
    """Delivery statistics leave the machine with the lessons: every string in them is redacted."""
    from lessons_core.transfer import jsonl

    fake = next(f for f in FAKES if f.kind == "github-classic")
    row = {
        "type": "lesson-deliveries",
        "lessonId": "01KNH2FRACBQMQWX29GPYE47D8",
        "deliveries": [{"session": fake.text, "agent": "claude", "event": "pre_tool_use:hint"}],
    }
    lines = jsonl.export_lines([], statistics=[row])
    assert leaks("\n".join(lines)) == []
    assert json.loads(lines[-1])["deliveries"][0]["agent"] == "claude"


def test_lessons_add_refuses_a_pattern_broken_by_redaction(env: dict[str, str]):
    """The CLI says which field, without the secret, and exits 1 without a traceback."""
    lesson = {
        "summary": "never pass the password on the mysql command line",
        "mistake": "mysql -p with the password inline shows it in the process list",
        "remediation": "use an option file readable only by the user",
        "triggers": {"commandPatterns": [BREAKS]},
    }
    done = subprocess.run(
        [str(BIN / "lessons"), "add", "-"],
        input=json.dumps(lesson),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("Error:") and "commandPatterns" in done.stderr
    assert "Traceback" not in done.stderr and "FAKEpw9Qz7" not in done.stderr + done.stdout
