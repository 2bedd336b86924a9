"""`.foundry/config.json`: the index budget, retrieval defaults and profiles."""

from __future__ import annotations

import json
from pathlib import Path

from foundry_tui.core.errors import ConfigError

TYPE_CHECKING = False  # the MCP tool schemas read the limits below: keep typing out of their import
if TYPE_CHECKING:
    from typing import Any

    from foundry_tui.core.paths import Layout

# Shipped profiles: only the index budget differs (spec: 2500 for startup-mvp to 6000 for full).
PROFILES: dict[str, int] = {"startup-mvp": 2500, "standard": 4000, "full": 6000}
DEFAULT_PROFILE = "standard"
DEFAULT_BUDGET = 4000
DEFAULT_MAX_FACTS = 8
DEFAULT_MIN_SCORE = 1.0
MAX_LIMIT = 25
RANKERS = ("spec", "bm25")  # memoryRetrieval.ranker: the spec's scorer (default) or BM25 (core/memory/bm25.py)
DEFAULT_RANKER = "spec"
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
    )

    def __init__(
        self,
        index_token_budget: int = DEFAULT_BUDGET,
        max_facts: int = DEFAULT_MAX_FACTS,
        min_score: float = DEFAULT_MIN_SCORE,
        profile: str | None = None,
        raw: dict[str, Any] | None = None,
        dupe_threshold: float = DEFAULT_DUPE_THRESHOLD,
        ranker: str = DEFAULT_RANKER,
        observation_trigger_tokens: int = DEFAULT_OBSERVATION_TRIGGER,
        reflection_trigger_tokens: int = DEFAULT_REFLECTION_TRIGGER,
    ) -> None:
        self.index_token_budget = index_token_budget
        self.max_facts = max_facts
        self.min_score = min_score
        self.profile = profile
        self.raw = raw
        self.dupe_threshold = dupe_threshold
        self.ranker = ranker
        self.observation_trigger_tokens = observation_trigger_tokens
        self.reflection_trigger_tokens = reflection_trigger_tokens


def profile_config(profile: str) -> dict[str, Any]:
    """The config.json content that `foundry init --profile NAME` writes."""
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile '{profile}': use one of {', '.join(PROFILES)}")
    return {
        "profile": profile,
        "indexTokenBudget": PROFILES[profile],
        "memoryRetrieval": {"maxFacts": DEFAULT_MAX_FACTS, "minScore": 1},
        "sessionMemory": {
            "observationTriggerTokens": DEFAULT_OBSERVATION_TRIGGER,
            "reflectionTriggerTokens": DEFAULT_REFLECTION_TRIGGER,
        },
    }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_config(data: object, where: str = "config.json") -> Config:
    """Validate the decoded JSON of config.json; raise ConfigError naming the bad key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a JSON object at the top level")
    profile = data.get("profile")
    if profile is not None and profile not in PROFILES:
        raise ConfigError(f"{where}: unknown profile '{profile}': use one of {', '.join(PROFILES)}")
    budget = data.get("indexTokenBudget", PROFILES[profile] if profile else DEFAULT_BUDGET)
    if not _is_int(budget) or budget < 1:
        raise ConfigError(f"{where}: indexTokenBudget must be a positive whole number, not {json.dumps(budget)}")
    retrieval = data.get("memoryRetrieval", {})
    if not isinstance(retrieval, dict):
        raise ConfigError(f"{where}: memoryRetrieval must be an object")
    max_facts = retrieval.get("maxFacts", DEFAULT_MAX_FACTS)
    if not _is_int(max_facts) or not 1 <= max_facts <= MAX_LIMIT:
        raise ConfigError(f"{where}: memoryRetrieval.maxFacts must be a whole number from 1 to {MAX_LIMIT}")
    min_score = retrieval.get("minScore", DEFAULT_MIN_SCORE)
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or min_score < 0:
        raise ConfigError(f"{where}: memoryRetrieval.minScore must be a number of 0 or more")
    ranker = retrieval.get("ranker", DEFAULT_RANKER)
    if ranker not in RANKERS:
        raise ConfigError(
            f"{where}: memoryRetrieval.ranker must be one of {', '.join(map(json.dumps, RANKERS))}, not {json.dumps(ranker)}"
        )
    dupes = data.get("nearDuplicates", {})
    if not isinstance(dupes, dict):
        raise ConfigError(f"{where}: nearDuplicates must be an object")
    threshold = dupes.get("threshold", DEFAULT_DUPE_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ConfigError(f"{where}: nearDuplicates.threshold must be a number above 0 and at most 1")
    sessions = data.get("sessionMemory", {})
    if not isinstance(sessions, dict):
        raise ConfigError(f"{where}: sessionMemory must be an object")
    triggers = []
    for key, default in (
        ("observationTriggerTokens", DEFAULT_OBSERVATION_TRIGGER),
        ("reflectionTriggerTokens", DEFAULT_REFLECTION_TRIGGER),
    ):
        value = sessions.get(key, default)
        if not _is_int(value) or value < 1:
            raise ConfigError(f"{where}: sessionMemory.{key} must be a positive whole number of tokens")
        triggers.append(value)
    return Config(budget, max_facts, float(min_score), profile, data, float(threshold), ranker, *triggers)


def load_config(path: Path, layout: Layout | None = None) -> Config:
    """The project's config, or the defaults when the file does not exist. With `layout`,
    a config.json that leads out of the project root is refused, not read."""
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
    return parse_config(data, path.name)
