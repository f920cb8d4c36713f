r"""Keep secrets and personal paths out of what leaves the machine.

Transcripts are full of tokens pasted into shells and config files, and a lesson mined from them
can carry one along; an export is meant to be shared. So every write path passes text through
:func:`redact` (secrets become ``[REDACTED:<kind>]``) and the scanner and ``lessons export`` also
through :func:`normalize_home` (``/home/alice/src/app`` becomes ``~/src/app``, which also makes
lessons comparable across machines). Three rules keep that true:

* **redact, then cut**: a token cut in half no longer matches its rule, so a summary or an error
  line is shortened only after :func:`redact` (:func:`redact_head` redacts just the part a cut
  keeps);
* **whole objects**: :func:`redact_lesson` and :func:`redact_candidate` cover every field (tags,
  projects, slugs, triggers), and the store calls them on every write;
* **patterns stay patterns**: a secret inside a regex trigger is replaced with ``\S+``
  (:func:`redact_pattern`), and a trigger that no longer compiles is refused, never stored.

The patterns favour precision: each provider's keys have a recognisable prefix and length, and
the generic ``key=value`` rule only fires on secret-sounding names with a value that does not
look like code (``token = os.environ["TOKEN"]`` is left alone). Values under other names are
redacted only when they look generated (the high-entropy fallback). A git sha, a UUID, a path or
an ordinary sentence about "the client secret" must come through unchanged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.patterns import kept_programs


class _Lazy:
    """A pattern compiled on first use: a text is only searched with the rules whose needles it
    holds, so most rules are never needed by a given command, and compiling all of them up front
    was most of the cost of importing this module."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = kept_programs.compile(self.source, self.flags)
        return self._compiled


_CODE_LIKE = _Lazy(
    r"""^(?:
        [$%@{<]                                  # $VAR, %VAR%, @secret, {{ tpl }}, <placeholder>
      | \[REDACTED:                              # already redacted by a specific rule
      | [a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+$ # self.token, os.environ, config.api_key
      | (?:x+|\*+|\.+|-+|none|null|nil|true|false|undefined|redacted|changeme|example|
           your[-_a-z]*|placeholder|secret|password|token)$
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _not_code(match: re.Match[str]) -> bool:
    """A value after a secret-sounding label is a secret unless it reads as code or a template
    (``token = os.environ["TOKEN"]``, ``password: <your password>``)."""
    return not _CODE_LIKE.compiled.match(match.group("s"))


def _authorization_value(match: re.Match[str]) -> bool:
    """``Authorization: Basic dXNlcjpwYXNz`` is a credential; ``Authorization: required`` is
    prose. A value after a scheme name, or one holding a digit or 16+ characters, counts."""
    value = match.group("s")
    if _CODE_LIKE.compiled.match(value):
        return False
    return bool(match.group("scheme")) or len(value) >= 16 or any(c.isdigit() for c in value)


_HEX = frozenset("0123456789abcdefABCDEF")
#: Names of identifiers and digests, whose values are random-looking by design and not secret
#: (``"id": "toolu_01…"``, ``request_id=…``, ``sha: …``).
_ID_SUFFIXES = ("_id", "-id", ".id", "_ids", "uuid", "guid", "hash", "sha", "sha1", "sha256",
                "digest", "etag")  # fmt: skip
#: Prefixes of the agents' own message, call and request ids.
_ID_PREFIXES = ("toolu_", "srvtoolu_", "msg_", "call_", "req_", "resp_", "chatcmpl-", "fc_", "rs_")


def _id_like(label: str) -> bool:
    low = label.lower()
    return low in ("id", "ids") or low.endswith(_ID_SUFFIXES) or label.endswith(("Id", "ID"))


def _random_looking(match: re.Match[str]) -> bool:
    """Whether an assigned value looks generated rather than written: long, mixing upper case,
    lower case and digits, with high per-character entropy, and not a path, a URL, a dotted
    name, a hex digest (git shas and checksums stay readable) or a version string."""
    value = match.group("s").strip("=")
    if _id_like(match.group("label")) or value.startswith(_ID_PREFIXES):
        return False
    if len(value) < 20 or _CODE_LIKE.compiled.match(value) or set(value) <= _HEX:
        return False
    if value.startswith(("/", ".", "-")) or value.count("/") >= 2 or ".." in value:
        return False
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if upper < 2 or lower < 2 or digits < 2:
        return False
    if re.fullmatch(r"[A-Za-z][a-z]{2,}(?:[A-Z][a-z]{2,}|[._-]?\d+)+", value):
        return False  # CamelCase identifiers and names with version numbers
    return _entropy(value) >= ENTROPY_BITS


#: Bits per character above which a mixed-case alphanumeric value counts as generated. Random
#: base62 text of 20+ characters scores 4.0-5.0; identifiers and words rarely pass 3.7.
ENTROPY_BITS = 3.9


def _entropy(text: str) -> float:
    from math import log2

    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    size = len(text)
    return -sum(n / size * log2(n / size) for n in counts.values())


class _Rule:
    """One kind of secret: a pattern whose group ``s`` (or, without one, the whole match) is the
    secret; labels around it (``password=``, ``https://``) stay. ``needles`` are substrings
    without which the pattern cannot match (lowercase and tested against the lowercased text
    when ``fold``); a substring test is far cheaper than a regex scan, and most text holds no
    secret at all. ``check`` vetoes a match that is not a secret after all."""

    __slots__ = ("check", "fold", "kind", "needles", "pattern")

    def __init__(
        self,
        kind: str,
        source: str,
        needles: tuple[str, ...] = (),
        *,
        fold: bool = False,
        flags: int = 0,
        check: Callable[[re.Match[str]], bool] | None = None,
    ) -> None:
        self.kind = kind
        self.pattern = _Lazy(source, flags)
        self.needles = needles
        self.fold = fold
        self.check = check

    def hits(self, text: str) -> Iterator[tuple[int, int]]:
        """The ``(start, end)`` of each secret this rule finds in ``text``."""
        search = self.pattern.compiled.search
        pos = 0
        while (match := search(text, pos)) is not None:
            if self.check is not None and not self.check(match):
                # Not a secret; a label further on may still be inside this match
                # (``token = password = "…"``), so look again from the next character.
                pos = match.start() + 1
                continue
            pos = max(match.end(), match.start() + 1)
            span = match.span("s") if "s" in match.re.groupindex else match.span()
            if span[0] < span[1] and not text.startswith("[REDACTED:", span[0]):
                yield span


_B64 = r"A-Za-z0-9+/"
_WORD_END = r"(?![A-Za-z0-9_-])"

# A pattern of secret-sounding names, not a password.
_SENSITIVE_LABEL_RE = (
    r"[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|"
    r"access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|client[_-]?secret)(?:[_-]?key)?"
)

#: The rules, applied in order: specific providers first (their tags say what leaked), then
#: command-line and file formats, then the generic assignment rules. The formats are the
#: providers' documented ones (prefix, alphabet, length).
_RULES: list[_Rule] = [
    _Rule(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        # A key whose END line was cut off (or never pasted): everything that reads as its
        # body — base64 lines, "Proc-Type:" headers, JSON's escaped "\n" — goes with it.
        rf"|(?:(?:\s|\\[nr])*(?:[{_B64}=]+|[A-Za-z-]+:[^\n\\]*))*)",
        ("PRIVATE KEY",),
    ),
    _Rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    _Rule("openai-key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}", ("sk-",)),
    _Rule("openai-key", r"\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?\b", ("sk-",)),
    _Rule(
        "github-token",
        r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    _Rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", ("github_pat_",)),
    _Rule(
        "gitlab-token",
        r"\bgl(?:pat|ptt|dt|rt|cbt|imt|oas|ft|soat|agent)-[A-Za-z0-9_-]{20,}",
        ("gl",),
    ),
    _Rule(
        "aws-access-key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA"),
    ),
    _Rule(
        "aws-secret-key",
        r"(?i)(?:aws)?_?secret_?(?:access)?_?key(?:_id)?[\"']?\s*[:=]\s*[\"']?"
        r"(?P<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("secret",),
        fold=True,
    ),
    _Rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ("AIza",)),
    _Rule("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}", ("GOCSPX-",)),
    _Rule("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}", ("ya29.",)),
    _Rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
        ("hooks.slack.com",),
    ),
    _Rule("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", ("xox",)),
    _Rule("slack-token", r"\bxapp-\d-[A-Za-z0-9-]{10,}", ("xapp-",)),
    _Rule("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", ("_live_", "_test_")),
    _Rule("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9]{24,}", ("whsec_",)),
    _Rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    _Rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-AgE",)),
    _Rule("rubygems-token", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    _Rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b", ("hf_",)),
    _Rule("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", ("SG.",)),
    _Rule("twilio-key", r"\bSK[0-9a-f]{32}\b", ("SK",)),
    # An Account SID with its auth token (``-u AC…:token``, ``https://AC…:token@api…``).
    _Rule("twilio-auth-token", r"\bAC[0-9a-f]{32}:(?P<s>[0-9a-f]{32})\b", ("AC",)),
    # The SDKs' clients take the Account SID, then the token: ``Client("AC…", "token")``,
    # ``new Twilio('AC…', 'token')``, ``Client(username="AC…", password="token")``.
    _Rule(
        "twilio-auth-token",
        r"\bAC[0-9a-f]{32}[\"']\s*,\s*(?:[A-Za-z_]\w*\s*[:=]\s*)?[\"'](?P<s>[0-9a-f]{32})\b",
        ("AC",),
    ),
    _Rule(
        "twilio-auth-token",
        r"(?i)\btwilio[\w.-]*?(?:auth[_-]?)?token[\"']?\s*[:=,]\s*[\"']?(?P<s>[0-9a-f]{32})\b",
        ("twilio",),
        fold=True,
    ),
    _Rule("mailgun-key", r"(?<![A-Za-z0-9])(?:pub)?key-[0-9a-f]{32}\b", ("key-",)),
    _Rule("mailgun-key", r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", ("-",)),
    _Rule("digitalocean-token", r"\bdo[pro]_v1_[a-f0-9]{64}\b", ("_v1_",)),
    _Rule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ("shp",)),
    _Rule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    _Rule("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", ("AGE-SECRET-KEY-1",)),
    _Rule(
        "telegram-bot-token",
        # Bare, or in a Bot API URL (``https://api.telegram.org/bot<token>/sendMessage``).
        rf"(?:\b|(?<=bot))\d{{8,10}}:[A-Za-z0-9_-]{{35}}{_WORD_END}",
        (":",),
    ),
    _Rule(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]+",
        ("discord",),
    ),
    _Rule(
        "discord-bot-token",
        rf"\b[MNO][A-Za-z0-9_-]{{23,27}}\.[A-Za-z0-9_-]{{6}}\.[A-Za-z0-9_-]{{27,38}}{_WORD_END}",
        (".",),
    ),
    _Rule("docker-hub-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}", ("dckr_",)),
    _Rule("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr.")),
    _Rule("terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", (".atlasv1.",)),
    _Rule("grafana-token", r"\bgl(?:c|sa)_[A-Za-z0-9+/_=-]{32,}", ("glc_", "glsa_")),
    _Rule("newrelic-key", r"\bNR(?:AK|AA|II|JS)-[A-Za-z0-9]{27,}", ("NRAK-", "NRAA-", "NRII-")),
    _Rule("sentry-token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}", ("sntry",)),
    _Rule("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",)),
    _Rule("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b", ("lin_",)),
    _Rule(
        "notion-token", r"\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b", ("ntn_", "secret_")
    ),
    _Rule(
        "doppler-token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
        ("dp.",),
    ),
    _Rule("supabase-token", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    _Rule("planetscale-token", r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.-]{32,}", ("pscale_",)),
    _Rule("figma-token", r"\bfig[dhu]_[A-Za-z0-9_-]{40,}", ("fig",)),
    _Rule("pulumi-token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    _Rule("groq-key", r"\bgsk_[A-Za-z0-9]{48,}\b", ("gsk_",)),
    _Rule("replicate-token", r"\br8_[A-Za-z0-9]{37,}\b", ("r8_",)),
    _Rule("perplexity-key", r"\bpplx-[A-Za-z0-9]{48,}\b", ("pplx-",)),
    _Rule("xai-key", r"\bxai-[A-Za-z0-9]{70,}\b", ("xai-",)),
    _Rule("square-token", r"\b(?:sq0atp|sq0csp)-[A-Za-z0-9_-]{22,}", ("sq0",)),
    _Rule("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{40,}", ("HRKU-",)),
    _Rule("dynatrace-token", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", ("dt0c01.",)),
    _Rule("buildkite-token", r"\bbkua_[a-f0-9]{40}\b", ("bkua_",)),
    _Rule("airtable-token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",)),
    _Rule("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{100,}", ("ATATT3",)),
    _Rule("mapbox-token", r"\b[sp]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", ("k.eyJ",)),
    _Rule("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyJ",)),
    _Rule(
        "azure-storage-key",
        rf"(?i)\b(?:Account|SharedAccess)Key\s*=\s*(?P<s>[{_B64}]{{20,}}={{0,2}})",
        ("accountkey", "sharedaccesskey"),
        fold=True,
    ),
    _Rule(
        "docker-auth",
        # ``~/.docker/config.json``: ``"auths": {"host": {"auth": "<base64 user:password>"}}``.
        rf"(?i)\"(?:auth|identitytoken|registrytoken)\"\s*:\s*\"(?P<s>[{_B64}=._-]{{8,}})\"",
        ('"auth"', '"identitytoken"', '"registrytoken"'),
        fold=True,
    ),
    _Rule(
        "authorization",
        r"(?i)\b(?:Proxy-)?Authorization[\"']?\s*[:=]\s*[\"']?"
        r"(?P<scheme>(?:Bearer|Basic|Digest|token|Token|SSWS|ApiKey|Key|Negotiate)\s+)?"
        r"(?P<s>[^\s\"',;]{6,})",
        ("authorization",),
        fold=True,
        check=_authorization_value,
    ),
    _Rule("bearer-token", r"\bBearer\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)", ("Bearer",)),
    _Rule(
        "url-credentials",
        # The password may hold ``@``: the credentials end at the last ``@`` before the host.
        r"\b[a-z][a-z0-9+.-]*://(?P<s>[^\s/:@\"'<>]*:[^\s/\"'<>]+)@(?=[^\s/@\"'<>]+(?:[/?#\s\"'<>]|$))",
        ("://",),
    ),
    _Rule(
        "command-password",
        # mysql/mariadb take the password glued to -p (``-pS3cret``, ``-p'S3cret'``).
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b"
        r"[^\n|;&]*?\s-p(?P<q>[\"'])?(?P<s>(?(q)[^\"'\n]+|[^\s\"']+))",
        ("mysql", "mariadb"),
    ),
    _Rule(
        "command-password",
        r"\bsshpass\s+(?:-[A-Za-z]\s*\S*\s+)*?-p\s*(?P<q>[\"'])?(?P<s>(?(q)[^\"'\n]+|[^\s\"']+))",
        ("sshpass",),
    ),
    _Rule(
        "command-password",
        # ``curl -u user:password``, ``--user=user:password``, ``--proxy-user``.
        r"\bcurl\b[^\n|;&]*?\s(?:-u|--user|--proxy-user|-U)(?:\s+|=)?(?P<q>[\"'])?"
        r"[^\s:\"']*:(?P<s>(?(q)[^\"'\n]+|[^\s\"']+))",
        ("curl",),
    ),
    _Rule(
        "command-password",
        # ``wget --password=…``, ``--http-password``, ``--ftp-password``, ``-P`` is a directory.
        r"--(?:http-|ftp-|proxy-)?password[= ](?P<q>[\"'])?(?P<s>(?(q)[^\"'\n]+|[^\s\"']+))",
        ("--",),
        check=_not_code,
    ),
    _Rule(
        "netrc-password",
        # ``machine host login user password secret``, on one line or one field a line.
        r"\b(?:machine|login|default)\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?P<s>[^\s]+)",
        ("password",),
        check=_not_code,
    ),
    _Rule(
        "secret",
        rf"""["']{_SENSITIVE_LABEL_RE}["']\s*:\s*["'](?P<s>[^"'\n]{{4,}})(?=["'])""",
        ("pass", "pwd", "secret", "token", "key", "credential"),
        fold=True,
        flags=re.IGNORECASE,
        check=_not_code,
    ),
    _Rule(
        "secret",
        rf"""(?<![A-Za-z0-9]){_SENSITIVE_LABEL_RE}\s*[:=]\s*(?P<q>["'])?"""
        rf"""(?P<s>(?(q)[^"'\n]{{4,}}|(?>[^\s"'`,;(){{}}\[\]<>]{{6,}})(?![(\[])))""",
        ("pass", "pwd", "secret", "token", "key", "credential"),
        fold=True,
        flags=re.IGNORECASE,
        check=_not_code,
    ),
    _Rule(
        "high-entropy",
        # The fallback for names no rule knows (``DEPLOY_SIG=…``, ``"session": "…"``): an
        # assigned value that looks generated (see :func:`_random_looking`).
        r"""(?<![A-Za-z0-9])(?P<label>[A-Za-z_][A-Za-z0-9_.-]{0,40})["']?[ \t]*[:=][ \t]*["']?"""
        r"""(?P<s>[A-Za-z0-9+/_.=-]{20,})""",
        ("=", ":"),
        check=_random_looking,
    ),
]


def _flat_needles() -> tuple[tuple[tuple[str, bool, int], ...], frozenset[int]]:
    """Every rule's needles as one flat ``(needle, fold, rule index)`` list, and the rules that
    have none: one comprehension over it costs a quarter of a generator per rule."""
    flat = tuple((n, rule.fold, i) for i, rule in enumerate(_RULES) for n in rule.needles)
    return flat, frozenset(i for i, rule in enumerate(_RULES) if not rule.needles)


_NEEDLES: tuple[tuple[tuple[str, bool, int], ...], frozenset[int]] | None = None


def _active_rules(text: str) -> list[_Rule]:
    """The rules whose needles occur in ``text`` (all of them for rules without needles), in
    rule order."""
    global _NEEDLES
    if _NEEDLES is None:
        _NEEDLES = _flat_needles()
    flat, always = _NEEDLES
    low = text.lower()
    hit = {i for n, fold, i in flat if n in (low if fold else text)} | always
    return [_RULES[i] for i in sorted(hit)]


def _replace(text: str, spans: list[tuple[int, int]], tag: str) -> str:
    out, last = [], 0
    for start, end in spans:
        if start < last:
            continue
        out.append(text[last:start])
        out.append(tag)
        last = end
    out.append(text[last:])
    return "".join(out)


def redact(text: str) -> str:
    """Replace every secret we recognise in ``text`` with ``[REDACTED:<kind>]``.

    Redact before cutting: a token cut in half no longer matches its rule, so every cut of a
    text that may hold a secret (summaries, error lines) must come after this call.

    Remembered for the last few thousand texts: a scan meets the same mistake again and again
    (each repeat is redacted by the detector, the intake and the store), and the answer
    depends on the text alone.
    """
    if len(text) <= _MEMO_MAX_CHARS:
        return _redact_memo(text)
    return _redact(text)


#: Texts longer than this are not remembered (tool outputs of megabytes stay out of memory).
_MEMO_MAX_CHARS = 8192


@functools.lru_cache(maxsize=4096)
def _redact_memo(text: str) -> str:
    return _redact(text)


def _redact(text: str) -> str:
    for rule in _active_rules(text):
        spans = list(rule.hits(text))
        if spans:
            text = _replace(text, spans, _tag(rule.kind))
    return text


def find_secrets(text: str) -> list[str]:
    """The kinds of secret found in ``text`` (for reports and tests), in rule order."""
    found: list[str] = []
    for rule in _active_rules(text):
        spans = list(rule.hits(text))
        if spans:
            found.extend(rule.kind for _ in spans)
            text = _replace(text, spans, "")
    return found


def redact_pattern(source: str, *, glob: bool = False) -> str:
    """``source`` (a regular expression, or a glob when ``glob``) with each secret in it
    replaced by ``\\S+`` (``*`` in a glob): the trigger keeps firing on the same command, with
    whatever credential, and holds none.

    Secrets are looked for in the pattern read as text, escapes undone (``sk\\-ant\\-…``): a
    trigger built from a command by escaping it must not hide the command's token. The caller
    checks the result still compiles (see :func:`lessons_core.scan.intake.scrub`).
    """
    replacement = "*" if glob else r"\S+"
    for _ in range(64):  # each round removes one secret; a pattern holds a handful at most
        plain, starts, ends = (source, None, None) if glob else _unescape(source)
        hit = _first_hit(plain)
        if hit is None:
            return source
        start, end = hit
        if starts is not None and ends is not None:
            start, end = starts[start], ends[end - 1]
        source = source[:start] + replacement + source[end:]
    return source


_QUANTIFIER = _Lazy(r"(?:[*+?]|\{\d*,?\d*\})[?+]?")


def _unescape(source: str) -> tuple[str, list[int], list[int]]:
    """The pattern as plain text, with where each plain character came from: ``\\.`` reads as
    ``.``, a class escape (``\\s``, ``\\d``, ``\\b``) as a space, which no secret holds."""
    plain: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            stop = i + 2
            if nxt.isalnum():
                # A class escape with its quantifier (``\s+``) is one separator.
                quantifier = _QUANTIFIER.compiled.match(source, stop)
                stop = quantifier.end() if quantifier else stop
            plain.append(" " if nxt.isalnum() else nxt)
            starts.append(i)
            ends.append(stop)
            i = stop
            continue
        plain.append(char)
        starts.append(i)
        ends.append(i + 1)
        i += 1
    return "".join(plain), starts, ends


def _first_hit(text: str) -> tuple[int, int] | None:
    for rule in _active_rules(text):
        for span in rule.hits(text):
            return span
    return None


_SPACE = _Lazy(r"\s")


def redact_head(text: str, limit: int) -> str:
    """``text`` redacted as far as its first ``limit`` characters go, for a caller about to cut
    it there (the order matters, see :func:`redact`). Only a window a little longer than
    ``limit``, ending on whitespace so no token is split, is searched: a tool output of
    megabytes cut to a 200-character line must not cost a scan of it all."""
    margin = max(4 * limit, 1024)
    if len(text) > limit + margin:
        stop = _SPACE.compiled.search(text, limit + margin)
        text = text[: stop.start()] if stop else text
    return redact(text)


_GENERIC_HOMES = _Lazy(
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
    if len(text) <= _MEMO_MAX_CHARS:
        return _normalized(text, home_text)
    return _normalize(text, home_text)


@functools.lru_cache(maxsize=4096)
def _normalized(text: str, home_text: str) -> str:
    """:func:`_normalize`, remembered: a scan replaces the home in the same transcript paths
    and the same repeated mistakes over and over, and the answer depends on these two alone."""
    return _normalize(text, home_text)


def _normalize(text: str, home_text: str) -> str:
    if home_text and home_text not in ("/", "~") and home_text in text:
        text = _home_pattern(home_text).sub("~", text)
    return _GENERIC_HOMES.compiled.sub("~", text)


@functools.lru_cache(maxsize=8)
def _home_pattern(home_text: str) -> re.Pattern[str]:
    """The home directory as a path prefix (compiled once: a scan asks for every field of
    every candidate)."""
    return re.compile(re.escape(home_text) + r"(?=$|[/\\\s\"'`:,;)\]}])")


def scrub(text: str, home: str | Path | None = None) -> str:
    """Both steps, in the order export and the scanner use."""
    return normalize_home(redact(text), home)


# -- lessons and candidates ---------------------------------------------------------------------
#
# Every write path (the scanner's intake, ``lessons add``, ``lessons import``, the store itself,
# the export) passes whole objects through these, so no field is forgotten: a secret in a tag, a
# project name, a slug or a trigger leaks as surely as one in the summary.

#: Tools whose trigger is a path glob rather than a command regex.
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})


def secrets_in(text: str) -> list[str]:
    """The secret substrings :func:`redact` removes from ``text`` (for slug checks and tests)."""
    found: list[str] = []
    for rule in _active_rules(text):
        spans = list(rule.hits(text))
        if spans:
            found.extend(text[start:end] for start, end in spans)
            text = _replace(text, spans, _tag(rule.kind))
    return found


def broken_pattern(pattern: str) -> str | None:
    """Why a redacted regular expression can no longer be used, or ``None``."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"it held a secret and is no longer a valid regular expression once redacted ({exc})"
    return None


def _patterns(patterns: tuple[str, ...], field: str, *, glob: bool = False) -> tuple[str, ...]:
    out = tuple(redact_pattern(p, glob=glob) for p in patterns)
    if not glob:
        for before, after in zip(patterns, out, strict=True):
            if before != after and (problem := broken_pattern(after)):
                from lessons_core.errors import ValidationError

                raise ValidationError(f"pattern {after!r} is refused: {problem}", field=field)
    return out


def _strings(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(redact(v) for v in values)


def _slug_leaks(slug: str, summary: str) -> bool:
    """Whether ``slug`` (made from ``summary``) carries 8+ characters of a secret in it."""
    from lessons_core.ids import slug_stem

    for secret in secrets_in(summary):
        stem = slug_stem(secret)
        if any(stem[i : i + 8] in slug for i in range(max(1, len(stem) - 7))) and len(stem) >= 8:
            return True
    return False


if TYPE_CHECKING:
    from lessons_core.models import Candidate, Lesson


def redact_lesson(lesson: Lesson) -> Lesson:
    """``lesson`` with a secret in any field redacted: texts, error lines, tags, scope, projects,
    sessions, where it was seen, the slug (made anew when it spelled a secret) and the triggers (see
    :func:`redact_pattern`). Raises :class:`~lessons_core.errors.ValidationError` when a
    redacted regular expression no longer compiles."""
    import attrs

    t = lesson.triggers
    triggers = attrs.evolve(
        t,
        command_patterns=_patterns(t.command_patterns, "commandPatterns"),
        content_patterns=_patterns(t.content_patterns, "contentPatterns"),
        model_patterns=_patterns(t.model_patterns, "modelPatterns"),
        path_regexes=_patterns(t.path_regexes, "pathRegexes"),
        path_patterns=_patterns(t.path_patterns, "pathPatterns", glob=True),
    )
    summary = redact(lesson.summary)
    slug = lesson.slug
    leaks = summary != lesson.summary and _slug_leaks(slug, lesson.summary)
    if slug and (leaks or redact(slug) != slug):
        from lessons_core.ids import make_slug

        slug = make_slug(summary)
    prov = lesson.provenance
    cleaned = attrs.evolve(
        lesson,
        slug=slug,
        summary=summary,
        mistake=redact(lesson.mistake),
        remediation=redact(lesson.remediation),
        injection=None if lesson.injection is None else redact(lesson.injection),
        scope=None if lesson.scope is None else redact(lesson.scope),
        tags=_strings(lesson.tags),
        error_lines=_strings(lesson.error_lines),
        triggers=triggers,
        provenance=attrs.evolve(
            prov,
            sessions=_strings(prov.sessions),
            projects=_strings(prov.projects),
            evidence=tuple(
                attrs.evolve(
                    s,
                    file=redact(s.file),
                    session_id=None if s.session_id is None else redact(s.session_id),
                    project=None if s.project is None else redact(s.project),
                )
                for s in prov.evidence
            ),
        ),
    )
    return lesson if cleaned == lesson else cleaned


def redact_candidate(candidate: Candidate) -> Candidate:
    """``candidate`` with a secret in any text field or its trigger redacted (see
    :func:`redact_lesson`); raises the same error for a trigger broken by redaction."""
    import attrs

    trigger = candidate.trigger
    if trigger:
        glob = candidate.tool in FILE_TOOLS
        (trigger,) = _patterns((trigger,), "trigger", glob=glob)
    cleaned = attrs.evolve(
        candidate,
        mistake=redact(candidate.mistake),
        fix=redact(candidate.fix),
        summary=redact(candidate.summary),
        trigger=trigger,
        tags=_strings(candidate.tags),
        error_lines=_strings(candidate.error_lines),
        project=None if candidate.project is None else redact(candidate.project),
    )
    return candidate if cleaned == candidate else cleaned
