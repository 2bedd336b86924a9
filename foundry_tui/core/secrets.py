"""The secret guard: memory and blackboard artifacts are committed to git and loaded
into models, so content that carries a credential is refused before it is written.

A tested pattern set rather than a detector library: the maintained detectors
(detect-secrets and the like) cost more to import than the MCP server's whole
start-up budget, and these patterns cover the credentials that leak in practice.
The refusal names the kind of secret and where it is, and never echoes it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from typing import Any

from foundry_tui.core.errors import InputError

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a private key block", re.compile(r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    (
        "an AWS secret access key",
        re.compile(r"(?i)aws_?secret_?access_?key\W{0,4}[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"),
    ),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("a Stripe secret key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{20,}")),
    ("an Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("an OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,}")),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("a credential in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s:/@]{6,})@")),
)
_ASSIGNMENT = re.compile(
    r"(?i)\b(password|passwd|pwd|secret|client_?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|"
    r"private[_-]?key|token)\b[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{8,})"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<.*>|\$\{.*\}|\$[A-Z_][A-Z0-9_]*|\{\{.*\}\}|%\(.*\)s|x{4,}|\*{3,}|\.{3,}|"
    r".*(?:example|changeme|placeholder|your[_-]|redacted|dummy|sample|secret_here|env\[|getenv|environ).*)$"
)


# Values that prose puts after "token:" or "password =", not credentials: a fact id, a date,
# a file in the repository ("Secret: see fact-0042", "API token: 2026-12-31",
# "Secret: docs/runbooks/vault.md"), and words (see _is_word).
_PROSE_VALUE = re.compile(r"fact-\d{4,}|\d{4}-\d{2}-\d{2}|(?:[\w.-]+/)+[\w.-]+\.[a-z]{1,4}")
_SENTENCE_PUNCTUATION = ".,:;!?)"


def _is_word(value: str) -> bool:
    """Letters whose case changes at most three times: a word or a name as prose writes it
    ("Refreshed", "PostgreSQL", "GitHub"), unlike random letters ("xKqPzWmT")."""
    if not (value.isascii() and value.isalpha()):
        return False
    return sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(value)) <= 3


def _looks_real(value: str) -> bool:
    """A value that is not a placeholder or prose and has some entropy (mixed characters, not one repeated)."""
    value = value.rstrip(_SENTENCE_PUNCTUATION)  # the sentence's own punctuation is not part of a credential
    if _PLACEHOLDER.match(value) or _PROSE_VALUE.fullmatch(value) or _is_word(value) or len(set(value)) < 5:
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    counts = [value.count(c) for c in set(value)]
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts)
    return classes >= 2 and entropy >= 2.5


def find_secret(text: str) -> tuple[str, int] | None:
    """(kind, line number) of the first credential in `text`, or None."""
    for number, line in enumerate(text.splitlines() or [text], start=1):
        for kind, pattern in _PATTERNS:
            if pattern.search(line):
                return kind, number
        for match in _ASSIGNMENT.finditer(line):
            if _looks_real(match.group(2)):
                return f"a {match.group(1).lower()} assignment with a real-looking value", number
    return None


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(str(key), f"{path}/{key} (key)")
            yield from _strings(item, f"{path}/{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}/{i}")


def refuse_secrets(fields: dict[str, Any]) -> None:
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
