"""The secret guard: memory and blackboard artifacts are committed to git and loaded
into models, so content that carries a credential is refused before it is written,
and no string it flags is ever written to a file name or a log.

A tested pattern set rather than a detector library: the maintained detectors
(detect-secrets and the like) cost more to import than the MCP server's whole
start-up budget, and these patterns cover the credentials that leak in practice.
The refusal names the kind of secret and where it is, and never echoes it.

Measured on a labelled corpus (tests/data/secrets_corpus.jsonl, tuned on its `tune`
half only; tests/test_secrets_corpus.py reports the `held` half).

Time is bounded (issue 17): every pattern runs over the whole text once, starts only
where a run of its characters starts (a lookbehind), and uses possessive quantifiers
with length caps, so no start position is retried and the work is linear in the
text; a value over MAX_SCAN_CHARS is refused unchecked rather than scanned
(benchmarks/bench_secrets.py: any 1 MB input in well under 50 ms).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping

from foundry_tui.core.errors import InputError

MAX_SCAN_CHARS = 1_048_576  # one value; a longer one is refused, not scanned (it cannot be checked in time)
MAX_CANDIDATES = 1024  # credential-shaped strings one pattern may hand to Python per value; more is refused

# Every pattern starts with a literal, so the regex engine jumps from one occurrence of
# it to the next (a pattern that starts with a class or a lookbehind tries every
# position: 30-200 ms a megabyte each). A left boundary is a lookbehind placed after
# the literal. Case-insensitive patterns run on the lowered text (same length), and
# their value is read from the original at the same place.
# (kind, pattern, on the lowered text, value group or 0: a match whose value group is a
# placeholder or looks unreal is not a finding). Patterns never span lines.
_Rule = tuple[str, "re.Pattern[str]", bool, int]
_TOKEN_RULES: tuple[_Rule, ...] = (
    (
        "a private key block",
        re.compile(r"-----BEGIN (?:(?!PRIVATE )[A-Z0-9]{1,12}+ ){0,3}+PRIVATE KEY(?: BLOCK)?-----"),
        False,
        0,
    ),
    (
        "an AWS access key id",
        re.compile(r"A(?<![A-Za-z0-9]A)((?:KIA|SIA|BIA|CCA)[0-9A-Z]{16})(?![A-Za-z0-9])"),
        False,
        1,
    ),
    (
        "a GitHub or GitLab token",
        re.compile(
            r"g(?<![A-Za-z0-9_-]g)(?:h[pousr]_[A-Za-z0-9]{36,255}+|ithub_pat_[A-Za-z0-9_]{22,255}+|lpat-[A-Za-z0-9_-]{20,255}+)"
        ),
        False,
        0,
    ),
    ("a Slack token", re.compile(r"x(?<![A-Za-z0-9_-]x)(?:ox[abposr]|app)-[A-Za-z0-9-]{10,255}+"), False, 0),
    (
        "a Slack webhook URL",
        re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,255}+"),
        False,
        0,
    ),
    ("a Discord webhook URL", re.compile(r"/api/webhooks/[0-9]{5,30}+/[A-Za-z0-9_-]{20,255}+"), False, 0),
    ("a Google API key", re.compile(r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), False, 0),
    (
        "a Stripe secret key",
        re.compile(r"k_live_(?<=[rs]k_live_)(?<![A-Za-z0-9_].k_live_)[0-9A-Za-z]{20,255}+"),
        False,
        0,
    ),
    (
        "an OpenAI or Anthropic API key",
        re.compile(
            r"sk-(?<![A-Za-z0-9_-]sk-)(?:ant-[A-Za-z0-9_-]{20,255}+|(?:proj-|svcacct-|admin-)?+[A-Za-z0-9_-]{32,255}+)"
        ),
        False,
        0,
    ),
    ("an npm token", re.compile(r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])"), False, 0),
    ("a Hugging Face token", re.compile(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{34,64}+(?![A-Za-z0-9])"), False, 0),
    ("a PyPI token", re.compile(r"pypi-AgE(?<![A-Za-z0-9_-]pypi-AgE)[A-Za-z0-9_-]{50,255}+"), False, 0),
    (
        "a SendGrid API key",
        re.compile(r"SG\.(?<![A-Za-z0-9_.-]SG\.)[A-Za-z0-9_-]{16,32}+\.[A-Za-z0-9_-]{30,64}+"),
        False,
        0,
    ),
    ("a Shopify token", re.compile(r"shp(?<![A-Za-z0-9_]shp)(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])"), False, 0),
    ("a DigitalOcean token", re.compile(r"_v1_(?<=do[por]_v1_)[a-f0-9]{64}(?![A-Za-z0-9])"), False, 0),
    ("a Telegram bot token", re.compile(r":AA(?<=[0-9]{8}:AA)[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"), False, 0),
    (
        "a JSON web token",
        re.compile(
            r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{10,4096}+\.eyJ[A-Za-z0-9_-]{10,4096}+\.[A-Za-z0-9_-]{10,4096}+"
        ),
        False,
        0,
    ),
    ("a bearer token", re.compile(r"bearer(?<![a-z]bearer)[ \t]{1,4}+([a-z0-9._~+/=-]{16,4096}+)"), True, 1),
    ("a basic-auth credential", re.compile(r"basic(?<![a-z]basic)[ \t]{1,4}+([a-z0-9+/]{12,1024}+={0,2}+)"), True, 1),
    # user:password@ after a scheme. No scheme pattern: `[a-z][a-z0-9+.-]*://` before it
    # was the quadratic part (issue 17), and "://" alone marks a URL.
    ("a credential in a URL", re.compile(r"://[^\s:/@]{0,128}+:([^\s:/@]{3,255}+)@"), False, 1),
)

# `key = value` / `key: value` / `"key": "value"` where the key names a credential, and
# a keyword in prose ("the staging password is X", "API key for the sandbox: X"): one
# literal-led pattern per keyword, on the lowered text. The keyword may sit anywhere in
# the key (DB_PASSWORD, PGPASSWORD, AUTH0_CLIENT_SECRET, AccountKey); the whole key is
# read back and judged in Python (_key_kind), as is the value.
_ASSIGN_TAIL = (
    r"(?P<assign>[a-z0-9_.-]{0,32}+[\"']?+[ \t]{0,4}+(?:=>|:=|=(?!=)|:(?!:))[ \t]{0,4}+[\"'`]?+(?=[^\s\"'`,;]{8}))"
)
_PROSE_TAIL = (
    r"(?![a-z])(?:[ \t]++(?!(?:is|was|use|with)[ \t])[a-z]{1,12}+){0,5}+"
    r"(?:[ \t]++(?:is|was|use|with)[ \t]++|:[ \t]++)[`'\"]?+(?=[^\s`'\"]{8})"
)
_KEYWORD_RULES = tuple(
    re.compile(keyword + "(?:" + "|".join(tails) + ")")
    for keyword, tails in (
        ("pass", (_ASSIGN_TAIL, "(?P<prose>(?:word|phrase|wd)" + _PROSE_TAIL + ")")),
        ("pwd", (_ASSIGN_TAIL,)),
        ("secret", (_ASSIGN_TAIL, "(?P<prose>" + _PROSE_TAIL + ")")),
        ("token", (_ASSIGN_TAIL, "(?P<prose>" + _PROSE_TAIL + ")")),
        ("key", (_ASSIGN_TAIL,)),
        ("credential", (_ASSIGN_TAIL,)),
        ("api", ("(?P<prose>[ _-]?key" + _PROSE_TAIL + ")",)),
    )
)
_VALUE = re.compile(r"[^\s\"'`,;]{8,256}+")
_AWS_SECRET = re.compile(r"(?i)(?:aws_?)?secret_?access_?key")
_AWS_SECRET_VALUE = re.compile(r"[A-Za-z0-9/+=]{40}")
_AZURE_KEYS = ("accountkey", "sharedaccesskey")
_PROSE_VALUE = re.compile(r"[^\s`'\"]{8,128}+")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_.-]{1,48}$")
# Words of a name: an acronym before a capitalised word (the O of OAuth, SSH of SSHKey),
# an acronym, a (capitalised) lowercase word, a number.
_KEY_WORDS = re.compile(r"[A-Z]{1,5}(?=[A-Z][a-z])|[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Words that make a credential-sounding key name something else (public_key, key_id, token_ttl).
_NOT_SECRET_WORDS = frozenset(
    {
        "public", "id", "ids", "url", "uri", "urls", "endpoint", "path", "file", "files", "name", "names", "type",
        "header", "format", "length", "len", "count", "ttl", "expire", "expires", "expiry", "timeout", "policy",
        "hash", "hashed", "hasher", "hashers", "min", "max", "used", "limit", "size", "env", "ref", "field",
        "prefix", "version", "kind", "label", "strength", "rotation", "rotate", "hint", "reset",
    }
)  # fmt: skip
_PLACEHOLDER_SHAPE = re.compile(
    r"<.*>|\$\{.*\}?|\$\(.*\)?|\$[A-Z_][A-Z0-9_]*+|\{\{.*\}\}|%\(.*\)s|[xX]{4,}+|\*{3,}+|\.{3,}+", re.DOTALL
)
_PLACEHOLDER_WORDS = (
    "example", "changeme", "change_me", "change-me", "placeholder", "your_", "your-", "redacted", "dummy", "sample",
    "secret_here", "replaceme", "replace_me", "replace-me", "env[", "getenv", "environ", "password", "passw0rd",
    "secrets.", "vault", "fake", "testkey", "test_key", "test-key", "sk_test_",
)  # fmt: skip


def _is_placeholder(value: str) -> bool:
    """`<your-key>`, `${VAR}`, `$VAR`, `{{ x }}`, `xxxx`, `changeme`, … (substring tests: linear)."""
    if _PLACEHOLDER_SHAPE.fullmatch(value):
        return True
    lowered = value.lower()
    return any(word in lowered for word in _PLACEHOLDER_WORDS)


# A value that is code, not a literal: a call, an attribute, an indexed name, or a name
# made of words (reset_link_ttl_minutes, bucket.take(), settings.API_KEY).
# A value that is code, not a literal: a call or an index (`bucket.take()`, `env[name]`),
# an attribute chain from a lowercase name (`settings.API_KEY`, `utils.Buffer`), a name
# of letters and underscores (`reset_link_ttl_minutes`, `c_void_p`), a CamelCase name
# made mostly of words (`Ed25519PrivateKey`), or words between separators with no digit
# (`io.modelcontextprotocol/clientInfo`, `pydantic-mypy-metadata`).
_CALL_OR_INDEX = re.compile(r"[A-Za-z_][\w.]{0,255}+[(\[]")
_ATTRIBUTE_CHAIN = re.compile(r"[a-z_][a-z0-9_]{0,63}+(?:\.[A-Za-z_]\w{0,63}+){1,8}+")
_SNAKE_NAME = re.compile(r"_?+[A-Za-z]{1,64}+(?:_[A-Za-z]{1,64}+){1,12}+_?+")
_NAME_SEPARATORS = frozenset("._-/: ")
_VOWELS = frozenset("aeiouAEIOU")


def _wordy(word: str) -> bool:
    """A word a person wrote: an acronym of up to five capitals, or two to 24 letters with a
    vowel (y counts in lowercase: mypy)."""
    if word.isupper():
        return len(word) <= 5 or any(c in _VOWELS for c in word)
    return 2 <= len(word) <= 24 and (any(c in _VOWELS for c in word) or (word.islower() and "y" in word))


def _reads_as_names(value: str) -> bool:
    """Words (CamelCase, snake_case, dotted, slashed), at most one number, nothing else:
    `ResetLinkTtl`, `Ed25519PrivateKey`, `io.modelcontextprotocol/clientInfo`."""
    if any(not c.isalnum() and c not in _NAME_SEPARATORS for c in value):
        return False
    words = _KEY_WORDS.findall(value)
    letters = [w for w in words if w.isalpha()]
    if not letters or sum(w.isdigit() for w in words) > 1 or sum(w.isupper() for w in letters) > 1:
        return False  # names carry one number and one acronym at most (SSHPrivateKey, PKCS7Padding)
    if sum(map(len, words)) != sum(c.isalnum() for c in value):  # a letter no word took: random case
        return False
    return all(_wordy(w) for w in letters) and sum(map(len, letters)) / len(letters) >= 3


def _entropy(value: str) -> float:
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts)


def _is_code(value: str, words: bool = True) -> bool:
    """A call or an index (`bucket.take()`, `env[name]`), an attribute chain from a lowercase
    name (`settings.API_KEY`, `utils.Buffer`), a snake_case name (`c_void_p`), or words
    (`reset_link_ttl_minutes`, `Ed25519PrivateKey`, `pydantic-mypy-metadata`)."""
    if value.startswith(("$", "%", "(", "[", "{", ":")) or _CALL_OR_INDEX.match(value):
        return True
    head = value.split(")", 1)[0]  # key=get_first_item)[1]: the name before the call closes
    if any(_ATTRIBUTE_CHAIN.fullmatch(v) or _SNAKE_NAME.fullmatch(v) for v in {value, head}):
        return True
    return words and _reads_as_names(value)


# What prose writes after "Password:" or "token =" that is not a credential: a fact id, a
# date, a version or number, a file in the repository ("Secret: see docs/runbooks/vault.md").
_PROSE_REFERENCE = re.compile(r"fact-\d{4,}|\d{4}-\d{2}-\d{2}|\d+(?:\.\d+)*|(?:[\w.-]+/)+[\w.-]+\.[a-z]{1,4}")


def _looks_real(value: str, literal: bool = False) -> bool:
    """A value that is not a placeholder or code and has some entropy (mixed characters).
    A quoted `literal` given to a password or secret is not taken for a name made of
    words: a passphrase of words is still a passphrase."""
    if _is_placeholder(value):
        return False
    value = value.rstrip(".,;:!?)]}>")  # the sentence's own punctuation is not part of a credential
    if _PROSE_REFERENCE.fullmatch(value):
        return False
    if len(value) < 8 or _is_placeholder(value) or len(set(value)) < 5 or _is_code(value, words=not literal):
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and _entropy(value) >= 2.5


def _key_kind(key: str) -> str | None:
    """What a credential key names ("a password", …), or None when it names something else."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if any(w in _NOT_SECRET_WORDS for w in words) or any(w.startswith("tokeniz") for w in words):
        return None
    joined = "".join(words)
    if any(part in w for w in words for part in ("password", "passwd", "passphrase")) or "pass" in words:
        return "a password"
    if "pwd" in words:
        return "a password"
    if "secret" in joined:
        return "a secret"
    if "token" in joined:
        return "a token"
    if "apikey" in joined or "credential" in joined:
        return "an API key" if "apikey" in joined else "a credential"
    if "key" in words:
        return "a key"
    return None


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# One pattern covers two kinds; the first three characters tell them apart.
_REFINED = {
    ("a GitHub or GitLab token", "glp"): "a GitLab token",
    ("a GitHub or GitLab token", "ghp"): "a GitHub token",
    ("a GitHub or GitLab token", "gho"): "a GitHub token",
    ("a GitHub or GitLab token", "ghu"): "a GitHub token",
    ("a GitHub or GitLab token", "ghs"): "a GitHub token",
    ("a GitHub or GitLab token", "ghr"): "a GitHub token",
    ("a GitHub or GitLab token", "git"): "a GitHub token",
}


class _TooMany(Exception):
    """More candidates than MAX_CANDIDATES: refused unchecked (fail closed)."""


def _candidates(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    for count, match in enumerate(pattern.finditer(text), start=1):
        if count > MAX_CANDIDATES:
            raise _TooMany
        yield match


def _lowered(text: str) -> str:
    """`text` lowered with every character in its place (str.lower lengthens a few, e.g. İ)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return text.translate({c: c + 32 for c in range(ord("A"), ord("Z") + 1)})


def _token_secret(text: str, lowered: str) -> tuple[int, str] | None:
    for kind, pattern, on_lowered, group in _TOKEN_RULES:
        for match in _candidates(pattern, lowered if on_lowered else text):
            if group:
                value = text[match.start(group) : match.end(group)]
                if kind == "an AWS access key id":
                    if value.endswith("EXAMPLE"):
                        continue  # the documented example id
                elif _is_placeholder(value) or not _looks_real(value):
                    continue
            if kind == "an OpenAI or Anthropic API key":
                kind = "an Anthropic API key" if match.group(0).startswith("sk-ant-") else "an OpenAI API key"
            return match.start(), _REFINED.get((kind, match.group(0)[:3]), kind)
    return None


def _assignment_secret(text: str, lowered: str) -> tuple[int, str] | None:
    seen: set[int] = set()
    for pattern in _KEYWORD_RULES:
        for match in _candidates(pattern, lowered):
            if match.end() in seen:  # one assignment found through two keywords
                continue
            seen.add(match.end())
            start = match.start()
            if match.groupdict().get("prose") is not None:
                if start > 0 and lowered[start - 1].isalpha():
                    continue
                found = _PROSE_VALUE.match(text, match.end())
                value = found.group(0) if found else ""
                if _looks_real(value) and re.search(r"[0-9]", value) and re.search(r"[A-Za-z]", value):
                    return start, "a credential in prose"
                continue
            left = _KEY_CHARS.search(text, max(0, start - 48), start)
            key = ((left.group(0) if left else "") + text[start : match.end()]).rstrip(" \t\"'`=:>")
            found = _VALUE.match(text, match.end())
            if found is None:
                continue
            value = found.group(0)
            if _AWS_SECRET.fullmatch(key) and _AWS_SECRET_VALUE.fullmatch(value):
                return start, "an AWS secret access key"  # even with EXAMPLE in it: the real ones look the same
            kind = _key_kind(key)
            literal = text[match.end() - 1] in "\"'`" and kind in ("a password", "a secret")
            if kind is not None and _looks_real(value, literal):
                if key.lower() in _AZURE_KEYS:
                    return start, "an Azure storage or service bus key"
                return start, f"{kind} assignment with a real-looking value"
    return None


def find_secret(text: str) -> tuple[str, int] | None:
    """(kind, line number) of the first credential in `text`, or None. A text over
    MAX_SCAN_CHARS, or with more than MAX_CANDIDATES credential-shaped strings for one
    pattern, is reported as a finding rather than scanned further (fail closed)."""
    if len(text) > MAX_SCAN_CHARS:
        return f"a value over {MAX_SCAN_CHARS} characters, too long to check for secrets", 1
    lowered = _lowered(text)
    try:
        found = _token_secret(text, lowered) or _assignment_secret(text, lowered)
    except _TooMany:
        return f"more than {MAX_CANDIDATES} credential-shaped strings, too many to check", 1
    if found is None:
        return None
    pos, kind = found
    return kind, _line_of(text, pos)


def flags_secret(text: str) -> bool:
    """Whether the guard would refuse `text` (for names and logs: never write a flagged string)."""
    return find_secret(text) is not None


REDACTED = "[redacted: looks like a secret]"


def redact(text: str) -> str:
    """`text`, or a redaction marker when the guard flags it (for logs)."""
    return REDACTED if flags_secret(text) else text


def _strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key in value:
            # The key is checked first and never shown if it is itself a secret.
            shown = str(key) if not flags_secret(str(key)) else "(a key)"
            yield f"{path}/{shown} (key)", str(key)
            yield from _strings(value[key], f"{path}/{shown}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}/{i}")


def refuse_secrets(fields: Mapping[str, object]) -> None:
    """Raise InputError naming the kind and place of the first credential among `fields`."""
    for name, value in fields.items():
        for where, text in _strings(value, name):
            found = find_secret(text)
            if found:
                kind, line = found
                at = f"{where}, line {line}" if "\n" in text else where
                raise InputError(
                    f"refused: {at} contains what looks like {kind}; memory is committed to git and read by models, "
                    "so store where the secret lives (a vault path, an env var name), never its value"
                )
