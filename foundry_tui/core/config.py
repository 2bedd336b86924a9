"""`.foundry/config.json`: the index budget, retrieval defaults and profiles."""

from __future__ import annotations

import json
import math
from pathlib import Path

from foundry_tui.core.errors import ConfigError

TYPE_CHECKING = False  # the MCP tool schemas read the limits below: keep typing out of their import
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias, TypeGuard

    from foundry_tui.core.json_types import JSONObject
    from foundry_tui.core.paths import Layout

    # A key's rule: its test, and how an error describes the value it needs; a nested schema is an object's.
    _Rule: TypeAlias = tuple[Callable[[object], bool], str]
    _Schema: TypeAlias = dict[str, "_Rule | _Schema"]

# Shipped profiles: only the index budget differs (spec: 2500 for startup-mvp to 6000 for full).
PROFILES: dict[str, int] = {"startup-mvp": 2500, "standard": 4000, "full": 6000}
DEFAULT_PROFILE = "standard"
DEFAULT_BUDGET = 4000
DEFAULT_MAX_FACTS = 8
DEFAULT_MIN_SCORE = 1.0  # the spec's, on its ranker's scale (each ranker's: core/memory/search/rankers.py)
MAX_LIMIT = 25
# The limits the MCP tools' schemas state (tools/list reads them: no module behind them is imported).
MAX_TOKENS = 1_000_000  # the largest budget a search page may be given (a budget, not a size anyone needs)
MAX_CURSOR_CHARS = 64  # what core/memory/search/cursor.py writes is at most 48 characters
MAX_REFS = 32  # refs on one fact: a ref list of hundreds is refused (given) or cut (cited in the body)
MAX_REF_CHARS = 300  # the longest ref accepted (a path inside the repository, maybe `::Name`)
DEFAULT_DUPE_THRESHOLD = 0.5  # near-duplicate score (core/curation/neardup.py); chosen on tests/data/neardup_pairs.py
DEFAULT_OBSERVATION_TRIGGER = 30_000  # spec 004 §3: session memory's triggers, in tokens
DEFAULT_REFLECTION_TRIGGER = 40_000


class Config:
    """The settings the engine reads; every field has the spec's default."""

    __slots__ = (
        "dupe_threshold",
        "index_token_budget",
        "max_facts",
        "min_score",
        "observation_trigger_tokens",
        "profile",
        "ranker",
        "raw",
        "reflection_trigger_tokens",
        "semantic",
    )

    def __init__(
        self,
        index_token_budget: int = DEFAULT_BUDGET,
        max_facts: int = DEFAULT_MAX_FACTS,
        min_score: float | None = None,
        profile: str | None = None,
        raw: JSONObject | None = None,
        dupe_threshold: float = DEFAULT_DUPE_THRESHOLD,
        ranker: str | None = None,
        observation_trigger_tokens: int = DEFAULT_OBSERVATION_TRIGGER,
        reflection_trigger_tokens: int = DEFAULT_REFLECTION_TRIGGER,
        semantic: bool = True,
    ) -> None:
        self.index_token_budget = index_token_budget
        self.max_facts = max_facts
        self.min_score = min_score  # None: left out of config.json (each ranker's default applies)
        self.profile = profile
        self.raw = raw
        self.dupe_threshold = dupe_threshold
        self.ranker = ranker  # None: left out of config.json (the default ranker, core/memory/search/rankers.py)
        self.observation_trigger_tokens = observation_trigger_tokens
        self.reflection_trigger_tokens = reflection_trigger_tokens
        # memoryRetrieval.semantic: false turns the sentence model off (issue 29; so does FOUNDRY_SEMANTIC=0).
        self.semantic = semantic


def profile_config(profile: str) -> JSONObject:
    """The config.json content that `foundry init --profile NAME` writes."""
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile '{profile}': use one of {', '.join(PROFILES)}")
    return {
        "profile": profile,
        "indexTokenBudget": PROFILES[profile],
        # No minScore: each ranker's default applies until a project sets one.
        "memoryRetrieval": {"maxFacts": DEFAULT_MAX_FACTS},
        "sessionMemory": {
            "observationTriggerTokens": DEFAULT_OBSERVATION_TRIGGER,
            "reflectionTriggerTokens": DEFAULT_REFLECTION_TRIGGER,
        },
    }


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite(value: object) -> TypeGuard[int | float]:
    """A JSON number that is not NaN or ±Infinity (Python's json reads both)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# The schema of config.json: for each known key, its test and how an error describes the
# value it needs. Nested dicts are objects. Unknown keys are left for the subsystems that
# read them.
_RETRIEVAL_SCHEMA: _Schema = {
    "maxFacts": (lambda v: _is_int(v) and 1 <= v <= MAX_LIMIT, f"a whole number from 1 to {MAX_LIMIT}"),
    "minScore": (lambda v: _is_finite(v) and v >= 0, "a number of 0 or more"),
    # The names are the rankers' registry's (core/memory/search/rankers.py), which the callers
    # that search pass in (`rankers`): a base module imports no room.
    "ranker": (lambda v: isinstance(v, str), "a string"),
    "semantic": (lambda v: isinstance(v, bool), "true or false"),
}
SCHEMA: _Schema = {
    "profile": (lambda v: isinstance(v, str) and v in PROFILES, f"one of {', '.join(PROFILES)}"),
    "indexTokenBudget": (lambda v: _is_int(v) and v >= 1, "a positive whole number"),
    "memoryRetrieval": _RETRIEVAL_SCHEMA,
    "nearDuplicates": {
        "threshold": (lambda v: _is_finite(v) and 0 < v <= 1, "a number above 0 and at most 1"),
    },
    "sessionMemory": {
        "observationTriggerTokens": (lambda v: _is_int(v) and v >= 1, "a positive whole number of tokens"),
        "reflectionTriggerTokens": (lambda v: _is_int(v) and v >= 1, "a positive whole number of tokens"),
    },
}


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(data: JSONObject, schema: _Schema, where: str, prefix: str = "") -> None:
    for key, rule in schema.items():
        if key not in data:
            continue
        value, name = data[key], prefix + key
        if isinstance(rule, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: {name} must be an object, not {_shown(value)}")
            _check(value, rule, where, name + ".")
        elif not rule[0](value):
            raise ConfigError(f"{where}: {name} must be {rule[1]}, not {_shown(value)}")


def _schema_for(rankers: Sequence[str]) -> _Schema:
    """SCHEMA, with memoryRetrieval.ranker one of `rankers` when they are given."""
    if not rankers:
        return SCHEMA
    names = tuple(rankers)
    retrieval: _Schema = {
        **_RETRIEVAL_SCHEMA,
        "ranker": (lambda v: isinstance(v, str) and v in names, f"one of {', '.join(map(json.dumps, names))}"),
    }
    return {**SCHEMA, "memoryRetrieval": retrieval}  # the same keys in the same order: the same first error


def parse_config(data: object, where: str = "config.json", rankers: Sequence[str] = ()) -> Config:
    """Check the decoded JSON of config.json against SCHEMA (memoryRetrieval.ranker against
    `rankers`, when given); raise a one-line ConfigError naming the first bad key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a JSON object at the top level, not {_shown(data)}")
    _check(data, _schema_for(rankers), where)
    profile = data.get("profile")
    retrieval = data.get("memoryRetrieval", {})
    sessions = data.get("sessionMemory", {})
    return Config(
        data.get("indexTokenBudget", PROFILES[profile] if profile else DEFAULT_BUDGET),
        retrieval.get("maxFacts", DEFAULT_MAX_FACTS),
        float(retrieval["minScore"]) if "minScore" in retrieval else None,
        profile,
        data,
        float(data.get("nearDuplicates", {}).get("threshold", DEFAULT_DUPE_THRESHOLD)),
        retrieval.get("ranker"),
        sessions.get("observationTriggerTokens", DEFAULT_OBSERVATION_TRIGGER),
        sessions.get("reflectionTriggerTokens", DEFAULT_REFLECTION_TRIGGER),
        retrieval.get("semantic", True),
    )


def load_config(path: Path, layout: Layout | None = None, rankers: Sequence[str] = ()) -> Config:
    """The project's config, or the defaults when the file does not exist. With `layout`,
    a config.json that leads out of the project root is refused, not read; with `rankers`,
    memoryRetrieval.ranker must be one of them."""
    try:
        text = layout.read_text(path) if layout is not None else path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"{path.name}: cannot be read ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path.name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); fix it or delete it to use the defaults"
        ) from None
    except (ValueError, RecursionError) as exc:  # the interpreter's digit and nesting limits
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        raise ConfigError(f"{path.name}: not valid JSON ({reason}); fix it or delete it to use the defaults") from None
    return parse_config(data, path.name, rankers)
