"""Keep secrets and personal paths out of what leaves the machine.

Transcripts are full of tokens pasted into shells and config files, and a lesson mined from them
can carry one along; an export is meant to be shared. So the scanner and ``lessons export`` pass
text through :func:`redact` (secrets become ``[REDACTED:<kind>]``) and :func:`normalize_home`
(``/home/alice/src/app`` becomes ``~/src/app``, which also makes lessons comparable across
machines).

The patterns favour precision: each provider's keys have a recognisable prefix and length, and
the generic ``key=value`` rule only fires on secret-sounding names with a value that does not
look like code (``token = os.environ["TOKEN"]`` is left alone). A git sha, a UUID or an ordinary
sentence about "the client secret" must come through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

Replacement = str | Callable[[re.Match[str]], str]


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _keep_group(kind: str, group: int = 1) -> Callable[[re.Match[str]], str]:
    """Keep the label (group ``group``) and redact what follows it."""

    def replace(match: re.Match[str]) -> str:
        return match.group(group) + _tag(kind)

    return replace


_CODE_LIKE = re.compile(
    r"""^(?:
        [$%@{<]                                  # $VAR, %VAR%, @secret, {{ tpl }}, <placeholder>
      | \[REDACTED:                              # already redacted by a specific rule
      | [a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+$ # self.token, os.environ, config.api_key
      | (?:x+|\*+|\.+|-+|none|null|nil|true|false|undefined|redacted|changeme|example|
           your[-_a-z]*|placeholder|secret|password|token)$
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def _assignment(match: re.Match[str]) -> str:
    """``password=hunter2`` → ``password=[REDACTED:password]``, unless the value is code."""
    value = match.group("value")
    if _CODE_LIKE.match(value):
        return match.group(0)
    return match.group("label") + _tag("secret")


# A pattern of secret-sounding names, not a password.
_SENSITIVE_LABEL_RE = (
    r"[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|"
    r"access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|client[_-]?secret)(?:[_-]?key)?"
)


class _Lazy:
    """A pattern compiled on first use: a text is only searched with the rules whose needles it
    holds (see :data:`_NEEDLES`), so most rules are never needed by a given command, and
    compiling all of them up front was most of the cost of importing this module."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def sub(self, replacement: Replacement, text: str) -> str:
        return self.compiled.sub(replacement, text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)


#: (kind, pattern, replacement); applied in order, specific providers before generic rules.
_RULES: list[tuple[str, _Lazy, Replacement]] = [
    (
        "private-key",
        _Lazy(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        ),
        _tag("private-key"),
    ),
    ("anthropic-key", _Lazy(r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,}"), ""),
    ("openai-key", _Lazy(r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"), ""),
    ("openai-key", _Lazy(r"\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?\b"), ""),
    ("github-token", _Lazy(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), ""),
    ("github-token", _Lazy(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"), ""),
    ("gitlab-token", _Lazy(r"\bglpat-[A-Za-z0-9_-]{20,}"), ""),
    ("aws-access-key", _Lazy(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b"), ""),
    (
        "aws-secret-key",
        _Lazy(
            r"(?i)((?:aws)?_?secret_?(?:access)?_?key(?:_id)?[\"']?\s*[:=]\s*[\"']?)"
            r"[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"
        ),
        _keep_group("aws-secret-key"),
    ),
    ("google-api-key", _Lazy(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), ""),
    ("google-oauth-secret", _Lazy(r"\bGOCSPX-[A-Za-z0-9_-]{28}"), ""),
    ("google-oauth-token", _Lazy(r"\bya29\.[0-9A-Za-z_-]{20,}"), ""),
    ("slack-webhook", _Lazy(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), ""),
    ("slack-token", _Lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), ""),
    ("slack-token", _Lazy(r"\bxapp-\d-[A-Za-z0-9-]{10,}"), ""),
    ("stripe-key", _Lazy(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), ""),
    ("stripe-webhook-secret", _Lazy(r"\bwhsec_[A-Za-z0-9]{24,}"), ""),
    ("npm-token", _Lazy(r"\bnpm_[A-Za-z0-9]{36}\b"), ""),
    ("pypi-token", _Lazy(r"\bpypi-AgE[A-Za-z0-9_-]{50,}"), ""),
    ("huggingface-token", _Lazy(r"\bhf_[A-Za-z0-9]{30,}\b"), ""),
    ("sendgrid-key", _Lazy(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"), ""),
    ("twilio-key", _Lazy(r"\bSK[0-9a-f]{32}\b"), ""),
    ("mailgun-key", _Lazy(r"\bkey-[0-9a-f]{32}\b"), ""),
    ("digitalocean-token", _Lazy(r"\bdo[pro]_v1_[a-f0-9]{64}\b"), ""),
    ("shopify-token", _Lazy(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), ""),
    ("databricks-token", _Lazy(r"\bdapi[a-f0-9]{32}(?:-\d)?\b"), ""),
    ("age-secret-key", _Lazy(r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"), ""),
    ("telegram-bot-token", _Lazy(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"), ""),
    (
        "discord-webhook",
        _Lazy(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]+"),
        "",
    ),
    (
        "jwt",
        _Lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "",
    ),
    (
        "azure-storage-key",
        _Lazy(r"(AccountKey=)[A-Za-z0-9+/]{80,}={0,2}"),
        _keep_group("azure-storage-key"),
    ),
    (
        "authorization",
        _Lazy(r"(?i)(\bAuthorization[\"']?\s*[:=]\s*[\"']?(?:Bearer|Basic|token)\s+)[^\s\"']+"),
        _keep_group("authorization"),
    ),
    (
        "bearer-token",
        _Lazy(r"(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*"),
        _keep_group("bearer-token"),
    ),
    (
        "url-credentials",
        _Lazy(r"\b([a-z][a-z0-9+.-]*://)[^\s/:@\"']+:[^\s/@\"']+@"),
        lambda m: f"{m.group(1)}{_tag('url-credentials')}@",
    ),
    (
        "secret",
        _Lazy(
            rf"""(?P<label>["']{_SENSITIVE_LABEL_RE}["']\s*:\s*["'])(?P<value>[^"'\n]{{4,}})(?=["'])""",
            re.IGNORECASE,
        ),
        _assignment,
    ),
    (
        "secret",
        _Lazy(
            rf"""(?P<label>(?<![A-Za-z0-9]){_SENSITIVE_LABEL_RE}\s*[:=]\s*(?P<q>["'])?)"""
            rf"""(?P<value>(?(q)[^"'\n]{{4,}}|(?>[^\s"'`,;(){{}}\[\]<>]{{6,}})(?![(\[])))""",
            re.IGNORECASE,
        ),
        _assignment,
    ),
]


#: Substrings without which a kind's patterns cannot match: most text holds no secret at all, and
#: a substring test is far cheaper than a regex scan (a case-insensitive kind lists lowercase
#: needles, tested against the lowercased text).
_NEEDLES: dict[str, tuple[tuple[str, ...], bool]] = {
    "private-key": (("PRIVATE KEY",), False),
    "anthropic-key": (("sk-ant-",), False),
    "openai-key": (("sk-",), False),
    "github-token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), False),
    "gitlab-token": (("glpat-",), False),
    "aws-access-key": (("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA"), False),
    "aws-secret-key": (("secret",), True),
    "google-api-key": (("AIza",), False),
    "google-oauth-secret": (("GOCSPX-",), False),
    "google-oauth-token": (("ya29.",), False),
    "slack-webhook": (("hooks.slack.com",), False),
    "slack-token": (("xox", "xapp-"), False),
    "stripe-key": (("_live_", "_test_"), False),
    "stripe-webhook-secret": (("whsec_",), False),
    "npm-token": (("npm_",), False),
    "pypi-token": (("pypi-AgE",), False),
    "huggingface-token": (("hf_",), False),
    "sendgrid-key": (("SG.",), False),
    "twilio-key": (("SK",), False),
    "mailgun-key": (("key-",), False),
    "digitalocean-token": (("_v1_",), False),
    "shopify-token": (("shp",), False),
    "databricks-token": (("dapi",), False),
    "age-secret-key": (("AGE-SECRET-KEY-1",), False),
    "telegram-bot-token": ((":AA",), False),
    "discord-webhook": (("discord",), False),
    "jwt": (("eyJ",), False),
    "azure-storage-key": (("AccountKey=",), False),
    "authorization": (("authorization",), True),
    "bearer-token": (("Bearer",), False),
    "url-credentials": (("://",), False),
    "secret": (("pass", "pwd", "secret", "token", "key", "credential"), True),
}


def _active_rules(text: str) -> list[tuple[str, _Lazy, Replacement]]:
    """The rules whose needles occur in ``text`` (all of them for kinds without needles)."""
    low = text.lower()
    active = []
    for rule in _RULES:
        needles, fold = _NEEDLES.get(rule[0], ((), False))
        haystack = low if fold else text
        if not needles or any(needle in haystack for needle in needles):
            active.append(rule)
    return active


def redact(text: str) -> str:
    """Replace every secret we recognise in ``text`` with ``[REDACTED:<kind>]``."""
    for kind, pattern, replacement in _active_rules(text):
        text = pattern.sub(replacement or _tag(kind), text)
    return text


def find_secrets(text: str) -> list[str]:
    """The kinds of secret found in ``text`` (for reports and tests), in rule order."""
    found = []
    for kind, pattern, replacement in _active_rules(text):
        for match in pattern.finditer(text):
            if replacement is _assignment and _CODE_LIKE.match(match.group("value")):
                continue
            found.append(kind)
            text = text.replace(match.group(0), "")
    return found


_GENERIC_HOMES = re.compile(
    r"""(?<![\w./\\-])(?:
        /Users/(?!Shared\b)[^/\s"'`:]+
      | /home/[^/\s"'`:]+
      | [A-Za-z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/)[^\\/\s"'`:]+
    )(?=$|[/\\\s"'`:,;)\]}])""",
    re.VERBOSE,
)


def normalize_home(text: str, home: str | Path | None = None) -> str:
    """Replace the user's home directory, and anything that looks like one, with ``~``.

    ``home`` defaults to the current user's; the generic forms (``/Users/<name>``,
    ``/home/<name>``, ``C:\\Users\\<name>``) catch paths recorded on other machines.
    """
    home_text = str(home if home is not None else Path.home()).rstrip("/\\")
    if home_text and home_text not in ("/", "~"):
        text = re.sub(re.escape(home_text) + r"(?=$|[/\\\s\"'`:,;)\]}])", "~", text)
    return _GENERIC_HOMES.sub("~", text)


def scrub(text: str, home: str | Path | None = None) -> str:
    """Both steps, in the order export and the scanner use."""
    return normalize_home(redact(text), home)
