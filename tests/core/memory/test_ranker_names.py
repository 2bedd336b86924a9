"""The rankers' names (core/memory/search/ranker_names.py) are the registry's, in its order:
the prompt hook checks a config's ranker against the names without importing the registry."""

from __future__ import annotations

import pytest

from foundry_tui.core.config import parse_config
from foundry_tui.core.errors import ConfigError
from foundry_tui.core.memory.search.ranker_names import DEFAULT_RANKER, RANKER_NAMES
from foundry_tui.core.memory.search.rankers import RANKERS


def test_the_names_are_the_registrys_in_its_order_with_the_spec_first() -> None:
    assert RANKER_NAMES == tuple(RANKERS) == ("spec", "bm25", "hybrid")
    assert DEFAULT_RANKER == "spec"


def test_a_config_naming_another_ranker_is_refused_by_the_names_alone() -> None:
    assert parse_config({"memoryRetrieval": {"ranker": "bm25"}}, rankers=RANKER_NAMES).ranker == "bm25"
    with pytest.raises(ConfigError) as caught:
        parse_config({"memoryRetrieval": {"ranker": "vector"}}, rankers=RANKER_NAMES)
    assert (
        str(caught.value) == 'config.json: memoryRetrieval.ranker must be one of "spec", "bm25", "hybrid", not "vector"'
    )
