"""Bounds on what a query, a prompt or a JSON-RPC line may cost, the spec's no-hit text, and the
prompt hook's tag rule (issue 28, items 19 to 22)."""

from __future__ import annotations

import json

from .helpers import REPO

PROMPTS = json.loads((REPO / "benchmarks/data/hook_prompts.json").read_text())


def test_the_tag_prompt_sets_are_as_large_as_written() -> None:
    """Item 22's prompts: written and committed before the relevance rule changed, split by
    position into a tuning half and a held-out half."""
    for part in ("tags_tuning", "tags_heldout5"):
        assert len(PROMPTS[f"known_{part}"]) == 16
        assert len(PROMPTS[f"unknown_{part}"]) == 10
