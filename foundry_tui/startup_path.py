"""The start-up path: every module that `foundry mcp` and `foundry hook EVENT` may import
before they answer. Both start on every agent session and every prompt, so this list is
a budget: a new import on it costs every agent turn. `tests/test_startup_path.py` runs
each command for real and fails when it imports a project module not listed here or any
heavy third-party package. Extend the list only with a measurement (benchmarks/)."""

# Project modules, by command; "foundry_tui.*" names only.
MCP_BEFORE_INITIALIZE = (
    "foundry_tui",
    "foundry_tui.launcher",
    "foundry_tui.core",
    "foundry_tui.core.hook_events",
    "foundry_tui.core.errors",
    "foundry_tui.core.paths",
    "foundry_tui.mcp",
    "foundry_tui.mcp.server",
    # The principal is fixed before the server answers (a malformed one stops it): os and re only.
    "foundry_tui.core.trust",
    "foundry_tui.core.trust.principal",
)
# `foundry hook user-prompt-submit` when the warm server answers (issue 29): with a session id,
# as Claude Code sends every prompt, it checks the config's triggers, runs session memory and asks
# the socket; the memory itself (the fact model, the rankers, typing, hashlib) is never loaded.
# About 27 ms of CPU less per prompt than when the config check imported the rankers' registry
# (benchmarks/bench_hook_socket.py --baseline: docs/benchmarks.md, "A served prompt with a session id").
HOOK_PROMPT_SERVED = (
    "foundry_tui",
    "foundry_tui.launcher",
    "foundry_tui.hooks",
    "foundry_tui.core",
    "foundry_tui.core.hook_events",
    "foundry_tui.core.errors",
    "foundry_tui.core.paths",
    "foundry_tui.core.config",
    "foundry_tui.core.memory",
    "foundry_tui.core.memory.search",
    "foundry_tui.core.memory.search.ranker_names",  # the names alone, no imports
    "foundry_tui.core.tokens",
    # Session memory (SessionStart and UserPromptSubmit with a session_id; stdlib sqlite3, imported lazily).
    # Measured with benchmarks/bench_session_hook.py against the commit before it: see docs/benchmarks.md, "Session memory".
    "foundry_tui.core.sessions",
    "foundry_tui.core.sessions.agents",
    "foundry_tui.core.sessions.context",
    "foundry_tui.core.sessions.ledger",
    "foundry_tui.core.sessions.store",
    "foundry_tui.core.sessions.transcript",
    # UserPromptSubmit asks a running MCP server first (issue 29): os, json and stat at import,
    # socket (~7 ms here) only when a socket file is there; see benchmarks/bench_hook_socket.py.
    "foundry_tui.core.local_socket",
)
# Every hook, served or not: the served prompt's modules and the rest.
HOOKS = (
    *HOOK_PROMPT_SERVED,
    # The other agents' hooks (--agent codex|cursor|gemini): their event and answer formats,
    # the standard library only; and the after-edit notice, which imports nothing.
    "foundry_tui.hook_dialects",
    "foundry_tui.core.edit_notice",
    "foundry_tui.core.atomic",
    "foundry_tui.core.events",
    "foundry_tui.core.names",
    "foundry_tui.core.artefacts",
    "foundry_tui.core.artefacts.runbooks",
    "foundry_tui.core.memory.project",
    # Issue 27 split the memory by concern; the same code, in these modules (each package's
    # __init__.py is empty).
    "foundry_tui.core.memory.model",
    "foundry_tui.core.memory.model.facts",
    "foundry_tui.core.memory.model.fields",
    "foundry_tui.core.memory.model.hits",
    "foundry_tui.core.memory.reports",
    "foundry_tui.core.memory.reports.index_file",
    "foundry_tui.core.memory.search.rankers",
    "foundry_tui.core.memory.search.reply",
    "foundry_tui.core.memory.search.spec",
    "foundry_tui.core.memory.storage",
    "foundry_tui.core.memory.storage.cache",
    "foundry_tui.core.memory.storage.snapshot",
    "foundry_tui.core.memory.storage.store",
    "foundry_tui.core.memory.storage.watchers",
    # The store's loads hold the cyclic collector off through it: one lock and a count, 0.2 ms
    # (python -X importtime -c "import contextlib, threading, foundry_tui.core.memory.storage.store", self time).
    "foundry_tui.core.collector_hold",
    # SessionStart injects the person's preferences: these four import in ~1.2 ms together
    # (median of 5 fresh interpreters with the standard library loaded; see the trust report).
    "foundry_tui.core.trust",
    "foundry_tui.core.trust.principal",
    "foundry_tui.core.trust.preferences",
    "foundry_tui.core.reserved",
    "foundry_tui.core.memory.model.vocabulary",  # constants only, no imports: ~0.3 ms (python -X importtime)
    # SessionStart bounds the runbooks' frontmatter (alias bombs): ~0.3 ms of import
    # (python -X importtime -c "import foundry_tui.core.yaml_bounds", self time).
    "foundry_tui.core.yaml_bounds",
    # Only when the read gate denies a call: the denial is logged, and the secret guard
    # redacts what it logs (issue 9). About 35 ms of pattern compiling, once, on a denial,
    # as the guard cost before it was rewritten (python -X importtime).
    "foundry_tui.core.secrets",
    # pre-tool-use: the read gate's judgement (issue 9); fnmatch and re, a few ms.
    "foundry_tui.core.read_gate",
    # Stop words: one frozenset, imported with the spec ranker (0.3 ms: python -X importtime -c "import foundry_tui.core.memory.search.spec").
    "foundry_tui.core.memory.search.stopwords",
    # The bm25 ranker, only when memoryRetrieval.ranker is "bm25" (3 ms on a machine at load 10, same command).
    "foundry_tui.core.memory.search.bm25",
    # bm25's persisted postings, read by a bm25 search of an unchanged parse cache (marshal, zlib,
    # array, os: already loaded; the module itself is small, see benchmarks/ bench_retrieval's hook row).
    "foundry_tui.core.memory.search.postings",
    # The spec ranker's persisted word postings (issue 33), read by a spec search of an unchanged
    # parse cache: bisect, marshal, zlib, array, os already loaded, no pattern compiled at import;
    # 0.4 ms self with its bytecode cached (python -X importtime, PYTHONPYCACHEPREFIX set, median of 3).
    "foundry_tui.core.memory.search.word_postings",
    # Facts grounded in the code (issue 30), only when an active fact has refs: the after-edit
    # notice reads them, the session start marks stale facts. os and re (subprocess where git
    # runs): 0.8 ms and 0.2 ms self (python -X importtime -c "import foundry_tui.core.paths,
    # foundry_tui.core.code_refs, foundry_tui.core.memory.reports.grounding", bytecode cached, median of 3).
    "foundry_tui.core.code_refs",
    "foundry_tui.core.memory.reports.grounding",
)
# Third-party packages none of them may import (each costs tens to hundreds of ms).
HEAVY = (
    "yaml",
    "frontmatter",
    "jsonschema",
    "textual",
    "rich",
    "watchfiles",
    "mcp",
    "argparse",
    # The sentence model (issue 29): loaded in a thread of a long-lived process, never at start.
    "numpy",
    "tokenizers",
    "safetensors",
    "onnxruntime",
)
# SessionStart lists the runbooks, whose frontmatter is parsed with PyYAML on every start
# (they have no parse cache yet): the one heavy import allowed on a start-up path.
SESSION_START_ALSO = ("yaml", "frontmatter")
