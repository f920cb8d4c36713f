"""Secret redaction and home-path normalisation.

The fake secrets are assembled at run time from a prefix and filler, so this file does not itself
look like a leak to secret scanners.
"""

from __future__ import annotations

from typing import Any

import pytest

from lessons_core import privacy
from lessons_core.errors import ValidationError
from lessons_core.models import Lesson, Provenance, Sighting, Triggers
from lessons_core.privacy import find_secrets, normalize_home, redact, scrub

A = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC"  # 32 mixed alphanumerics
HEX = "0123456789abcdef"


def fill(n: int, alphabet: str = A) -> str:
    return (alphabet * (n // len(alphabet) + 1))[:n]


PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"
    + fill(60)
    + "\n"
    + fill(40)
    + "\n-----END RSA PRIVATE KEY-----"
)
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fill(43)

#: (kind, text containing the secret, the secret itself)
SECRETS = [
    ("openai-key", "OPENAI key sk-" + fill(48), "sk-" + fill(48)),
    ("openai-key", "key: sk-proj-" + fill(60), "sk-proj-" + fill(60)),
    ("openai-key", "sk-svcacct-" + fill(40), "sk-svcacct-" + fill(40)),
    ("anthropic-key", "sk-ant-api03-" + fill(90), "sk-ant-api03-" + fill(90)),
    ("anthropic-key", "sk-ant-admin01-" + fill(60), "sk-ant-admin01-" + fill(60)),
    ("github-token", "token ghp_" + fill(36), "ghp_" + fill(36)),
    ("github-token", "gho_" + fill(36), "gho_" + fill(36)),
    ("github-token", "ghs_" + fill(36), "ghs_" + fill(36)),
    ("github-token", "github_pat_11ABCDEFG0" + fill(70, A + "_"), "github_pat_11ABCDEFG0"),
    ("gitlab-token", "glpat-" + fill(20), "glpat-" + fill(20)),
    ("aws-access-key", "AKIA" + "IOSFODNN7EXAMPL1", "AKIAIOSFODNN7EXAMPL1"),
    ("aws-access-key", "ASIA" + "Y34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    ("aws-secret-key", "aws_secret_access_key = " + fill(40, A + "/+"), fill(40, A + "/+")),
    ("google-api-key", "AIza" + fill(35), "AIza" + fill(35)),
    ("google-oauth-secret", "GOCSPX-" + fill(28), "GOCSPX-" + fill(28)),
    ("google-oauth-token", "ya29." + fill(60), "ya29." + fill(60)),
    ("slack-token", "xoxb-1234567890-" + fill(24), "xoxb-1234567890-" + fill(24)),
    ("slack-token", "xoxp-" + fill(30, HEX), "xoxp-" + fill(30, HEX)),
    ("slack-webhook", "https://hooks.slack.com/services/T000/B000/" + fill(24), fill(24)),
    ("stripe-key", "sk_live_" + fill(24), "sk_live_" + fill(24)),
    ("stripe-key", "rk_test_" + fill(24), "rk_test_" + fill(24)),
    ("stripe-webhook-secret", "whsec_" + fill(32), "whsec_" + fill(32)),
    ("npm-token", "//registry.npmjs.org/:_authToken=npm_" + fill(36), "npm_" + fill(36)),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + fill(60), "pypi-AgEIcHlwaS5vcmc"),
    ("huggingface-token", "hf_" + fill(34), "hf_" + fill(34)),
    ("sendgrid-key", "SG." + fill(22) + "." + fill(43), "SG." + fill(22)),
    ("twilio-key", "SK" + fill(32, HEX), "SK" + fill(32, HEX)),
    ("mailgun-key", "key-" + fill(32, HEX), "key-" + fill(32, HEX)),
    ("digitalocean-token", "dop_v1_" + fill(64, HEX), "dop_v1_" + fill(64, HEX)),
    ("shopify-token", "shpat_" + fill(32, HEX), "shpat_" + fill(32, HEX)),
    ("databricks-token", "dapi" + fill(32, HEX), "dapi" + fill(32, HEX)),
    (
        "age-secret-key",
        "AGE-SECRET-KEY-1" + fill(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
        "AGE-SECRET-KEY-1",
    ),
    ("telegram-bot-token", "123456789:AA" + fill(33), ":AA" + fill(33)),
    ("discord-webhook", "https://discord.com/api/webhooks/123456/" + fill(60), fill(60)),
    ("jwt", "cookie=" + JWT, JWT),
    ("azure-storage-key", "AccountKey=" + fill(86) + "==", fill(86)),
    ("authorization", 'curl -H "Authorization: Bearer ' + fill(40) + '"', fill(40)),
    ("authorization", "Authorization: Basic " + fill(24) + "==", fill(24)),
    ("bearer-token", "use Bearer " + fill(30) + " for it", fill(30)),
    ("url-credentials", "postgres://admin:" + "Pa55w0rd!x" + "@db.internal:5432/app", "Pa55w0rd!x"),
    ("url-credentials", "https://user:" + fill(12) + "@github.com/acme/x.git", fill(12)),
    ("private-key", PEM, "MIIEowIBAAKCAQEA"),
    ("secret", 'password = "' + "hunter2hunter" + '"', "hunter2hunter"),
    ("secret", '{"password": "' + "c0rrect-h0rse" + '"}', "c0rrect-h0rse"),
    ("secret", "export DB_PASSWORD=" + "s3cr3tValue9", "s3cr3tValue9"),
    ("secret", "client_secret: " + fill(20), fill(20)),
    ("secret", 'SECRET_KEY="django-insecure-' + fill(20) + '"', fill(20)),
    ("secret", "api_key=" + fill(16), fill(16)),
]


def test_at_least_thirty_kinds_are_covered():
    """The catalogue below spans the major providers and the generic forms."""
    assert len({kind for kind, _, _ in SECRETS}) >= 30


@pytest.mark.parametrize(
    ("kind", "text", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SECRETS)]
)
def test_secret_is_redacted_with_its_kind(kind, text, secret):
    """The secret disappears and the placeholder names what it was."""
    out = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert kind in find_secrets(text)


def test_labels_around_secrets_survive():
    """Only the value goes: the reader still sees which setting held a secret."""
    assert redact("export DB_PASSWORD=s3cr3tValue9") == "export DB_PASSWORD=[REDACTED:secret]"
    assert redact('curl -H "Authorization: Bearer ' + fill(40) + '" x') == (
        'curl -H "Authorization: Bearer [REDACTED:authorization]" x'
    )
    assert redact("git clone https://bob:" + fill(12) + "@github.com/a/b") == (
        "git clone https://[REDACTED:url-credentials]@github.com/a/b"
    )


KEEP = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Store client_id and client_secret as separate credentials.",
    "the webhook secret is missing, fail fast with 401",
    "token = os.environ['GITHUB_TOKEN']",
    'password = getpass.getpass("Password: ")',
    "api_key = settings.api_key",
    'token="${TOKEN}"',
    "password: <your password here>",
    "AKIA is the prefix of AWS access key ids",
    "Run python -m pytest -p no:cacheprovider -x",
    "skip-worktree and sk-learn are not keys",
    "https://github.com/acme/widgets.git",
    "ssh git@github.com:acme/widgets.git",
    "Authorization header must be set",
    "01KNH2FRACBQMQWX29GPYE47D8",
    "The session token expired; refresh it.",
]


@pytest.mark.parametrize("text", KEEP)
def test_ordinary_text_survives(text):
    """Shas, UUIDs, code reading secrets from elsewhere and prose about secrets stay intact."""
    assert redact(text) == text
    assert find_secrets(text) == []


def test_redaction_is_idempotent():
    """Redacting twice changes nothing more (export may see already-scrubbed text)."""
    text = " ".join(t for _, t, _ in SECRETS)
    once = redact(text)
    assert redact(once) == once


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/home/alice/src/app/main.py", "~/src/app/main.py"),
        ("/Users/bob/Library/x", "~/Library/x"),
        ("C:\\Users\\carol\\repo\\a.py", "~\\repo\\a.py"),
        ("C:/Users/carol/repo", "~/repo"),
        ('"cwd": "/home/dave"', '"cwd": "~"'),
        ("cd /home/erin && ls", "cd ~ && ls"),
        ("/var/home/x/y", "/var/home/x/y"),
        ("/Users/Shared/data", "/Users/Shared/data"),
        ("relative/home/x", "relative/home/x"),
    ],
)
def test_normalize_home_generic_forms(text, expected):
    """Home directories of any user and OS become ~; look-alikes inside other paths do not."""
    assert normalize_home(text, home="/nonexistent-home") == expected


def test_normalize_home_uses_the_given_home_first(tmp_path):
    """A home outside the usual roots (e.g. /srv/users/x) is normalised too, on a boundary."""
    home = "/srv/users/frank"
    assert normalize_home(f"{home}/proj and {home}x/other", home=home) == (
        f"~/proj and {home}x/other"
    )


def test_normalize_home_defaults_to_the_current_user(monkeypatch, tmp_path):
    """Without a home argument the user's own home is used."""
    monkeypatch.setenv("HOME", str(tmp_path))
    assert normalize_home(f"{tmp_path}/a") == "~/a"


def test_scrub_does_both():
    """Export and the scanner use one call."""
    assert scrub("/home/gina/.netrc has password=" + fill(12), home="/x") == (
        "~/.netrc has password=[REDACTED:secret]"
    )


# -- what the mutants of privacy.py changed ------------------------------------------------------

ANTHROPIC = "sk-ant-api03-" + fill(90)


@pytest.mark.parametrize(
    ("pattern", "redacted"),
    [
        (r"sk\-ant\-api03\-" + fill(90), r"\S+"),
        (r"sk\-ant\-api03\-" + fill(90) + r"\-", r"\S+"),
        (ANTHROPIC + "\\", "\\S+\\"),
        (
            r"\bgit\s+push\s+https://user:Pa55w0rd!x@github\.com\b",
            r"\bgit\s+push\s+https://\S+@github\.com\b",
        ),
        (r"curl\s-u\suser:Pa55w0rd!x\shttps://x", r"curl\s-u\suser:\S+\shttps://x"),
    ],
)
def test_a_secret_inside_an_escaped_pattern_becomes_a_wildcard(pattern, redacted):
    """Escapes are read through (``\\-`` as ``-``, ``\\s+`` as one separator, a last escape and
    a trailing backslash included); only the secret's own characters are replaced."""
    assert privacy.redact_pattern(pattern) == redacted


def test_generated_values_under_unknown_names():
    """The high-entropy fallback: one slash is no path, one digit is not generated enough, and
    an agent's own call id stays under any name."""
    assert redact("DEPLOY_SIG=" + A[:15] + "/" + A[15:30]) == "DEPLOY_SIG=[REDACTED:high-entropy]"
    assert redact("DEPLOY_SIG=aBcDeFgHiJkLmNoPqRsTuVw7") == "DEPLOY_SIG=aBcDeFgHiJkLmNoPqRsTuVw7"
    assert redact("parent: toolu_01ABcdEFgh12IJkl34MNop") == "parent: toolu_01ABcdEFgh12IJkl34MNop"


def test_redact_head_searches_up_to_the_whitespace_after_its_margin():
    """With a small limit the margin is 1024 characters: a token that starts right after the
    margin's end is still whole in the window, and redacted."""
    text = "x" * 1033 + " " + ANTHROPIC + " " + "y" * 3000
    assert privacy.redact_head(text, 10) == "x" * 1033 + " [REDACTED:anthropic-key]"


def test_long_texts_are_redacted_but_not_remembered():
    """Tool outputs of megabytes stay out of memory; short texts are remembered."""
    privacy._redact_memo.cache_clear()
    long_text = "log line\n" * 1000 + ANTHROPIC
    assert redact(long_text).endswith("[REDACTED:anthropic-key]")
    assert privacy._redact_memo.cache_info().currsize == 0
    assert redact("short " + ANTHROPIC) == "short [REDACTED:anthropic-key]"
    assert privacy._redact_memo.cache_info().currsize == 1


def _lesson(**fields: Any) -> Lesson:
    values: dict[str, Any] = {
        "id": "01PRIVACY00000000000000001",
        "slug": "quiet-pytest",
        "summary": "Quiet pytest",
        "mistake": "m",
        "remediation": "r",
    }
    values.update(fields)
    return Lesson(**values)


def test_redact_lesson_covers_triggers_slug_and_sightings():
    """A command pattern keeps its regex form, a slug that is a secret is made anew, a
    sighting's session is kept, and a lesson with nothing to redact comes back as it was."""
    lesson = _lesson(
        slug="key-" + HEX * 2,
        triggers=Triggers(command_patterns=(r"curl\s+-H\s+x-api-key:\s*" + ANTHROPIC,)),
        provenance=Provenance(
            evidence=(
                Sighting(file="t.jsonl", line=3, session_id="s-1"),
                Sighting(file="u.jsonl", line=4),
            )
        ),
    )
    cleaned = privacy.redact_lesson(lesson)
    assert cleaned.triggers.command_patterns == (r"curl\s+-H\s+x-api-key:\s*\S+",)
    assert cleaned.slug.startswith("quiet-pytest")
    assert [s.session_id for s in cleaned.provenance.evidence] == ["s-1", None]
    assert privacy.redact_lesson(_lesson(scope="~/src/app")).scope == "~/src/app"
    clean = _lesson()
    assert privacy.redact_lesson(clean) is clean


@pytest.mark.parametrize("slug", ["unter2x-login", "login-refused"])
def test_a_slug_sharing_under_8_characters_with_a_secret_is_kept(slug):
    """Only 8 characters of a secret in a row make a slug a leak."""
    lesson = _lesson(slug=slug, summary="password=hunter2x is refused")
    cleaned = privacy.redact_lesson(lesson)
    assert cleaned.summary == "password=[REDACTED:secret] is refused"
    assert cleaned.slug == slug
    leaky = privacy.redact_lesson(_lesson(slug="hunter2x-login", summary=lesson.summary))
    assert "hunter2x" not in leaky.slug


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("SIG=" + A[:20], "SIG=[REDACTED:high-entropy]"),
        ("SIG==" + A[:19], "SIG==" + A[:19]),
        ("request_id=" + fill(24), "request_id=" + fill(24)),
        ("SIG=aaBB11ccDD22aaBB11ccDD22", "SIG=aaBB11ccDD22aaBB11ccDD22"),
        ("SIG=" + A[:10] * 2, "SIG=" + A[:10] * 2),
    ],
)
def test_high_entropy_edges(text, redacted):
    """20 characters is long enough, 19 is not (after the ``=`` of the label); an id's name
    keeps its value; six characters four times, or ten twice, are not random enough."""
    assert redact(text) == redacted


def test_an_uppercase_aws_secret_is_named_as_such():
    """The rule's needle is compared with the lowercased text."""
    assert find_secrets("AWS_SECRET_ACCESS_KEY=" + fill(40, A + "/+")) == ["aws-secret-key"]


def test_redact_head_margin_grows_with_the_limit():
    """Four times the limit past it, when that exceeds 1024."""
    text = "x" * 1400 + " " + ANTHROPIC + " " + "y" * 3000
    assert privacy.redact_head(text, 300) == "x" * 1400 + " [REDACTED:anthropic-key]"


def test_long_texts_are_not_remembered_by_normalize_home():
    privacy._normalized.cache_clear()
    assert normalize_home("/home/alice/x " * 1000, home="/home/bob").startswith("~/x ~/x")
    assert privacy._normalized.cache_info().currsize == 0
    assert normalize_home("/home/alice/x", home="/home/bob") == "~/x"
    assert privacy._normalized.cache_info().currsize == 1


def test_a_pattern_broken_by_redaction_is_refused():
    """A trigger whose secret spans a bracket no longer compiles once redacted: refused."""
    lesson = _lesson(triggers=Triggers(command_patterns=("https://user:pa(ss@host)",)))
    with pytest.raises(ValidationError, match="no longer a valid regular expression"):
        privacy.redact_lesson(lesson)


def test_a_random_looking_value_with_two_slashes_is_a_path_not_a_secret() -> None:
    """Two slashes make a path of it, kept readable; one slash is not enough to tell."""
    assert redact("key=Ab3dEf9hIjQ/Kl2nOp7rX/St5vWxY8z") == "key=Ab3dEf9hIjQ/Kl2nOp7rX/St5vWxY8z"
    assert redact("key=Ab3dEf9hIjQ/Kl2nOp7rXSt5vWxY8z") == "key=[REDACTED:high-entropy]"
