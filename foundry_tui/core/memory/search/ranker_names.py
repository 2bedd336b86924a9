"""The rankers' names, in the registry's order with the default first: what config.json's
`memoryRetrieval.ranker` may name.

A module of its own, with no imports, because the prompt hook checks the config (session
memory's triggers) before it asks the warm server: importing the registry (rankers.py) would
load the fact model, typing and hashlib on every prompt, about 40 ms of CPU that the served
path never uses. rankers.py builds its registry in this order; a test keeps the two equal."""

RANKER_NAMES = ("spec", "bm25", "hybrid")
DEFAULT_RANKER = RANKER_NAMES[0]
