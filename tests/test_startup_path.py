"""The start-up path (`foundry_tui/startup_path.py`): what `foundry mcp` and each hook import
before they answer, measured in a real subprocess at the moment of the first byte written;
and that a plain `foundry tui` reaches its app without argparse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foundry_tui import startup_path

# Runs the launcher with stdout wrapped, so that the modules loaded when the first answer is
# written (not later, when the MCP server loads the engine in the background) are recorded.
PROBE = r"""
import json, sys
seen = {}
real = sys.stdout

def record():
    if "mods" not in seen:
        seen["mods"] = sorted(sys.modules)

class Buffer:
    def write(self, data):
        record()
        return real.buffer.write(data)
    def flush(self):
        real.buffer.flush()

class Text:
    buffer = Buffer()
    def write(self, text):
        record()
        return real.write(text)
    def flush(self):
        real.flush()

sys.stdout = Text()
from foundry_tui.launcher import main
try:
    main(sys.argv[1:])
finally:
    sys.stderr.write("MODULES " + json.dumps(seen.get("mods")) + "\n")
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
# As Claude Code sends them: with the session id and the transcript (session memory reads both).
SESSION = {"session_id": "5c1b8f7e-3a2d-4e61-9d0b-7f4e2a9c1d33", "transcript_path": "/nonexistent/transcript.jsonl"}
HOOK_EVENTS = {
    "session-start": {"hook_event_name": "SessionStart", "source": "startup", **SESSION},
    "user-prompt-submit": {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do we run database migrations?",
        **SESSION,
    },
    "pre-tool-use": {
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": ".foundry/memory/facts/fact-0001.md"},
    },
}


def _modules_at_first_answer(root: Path, args: list[str], stdin: str) -> list[str]:
    """The modules loaded when the command first answered, on its second run: the first
    fills the parse cache (files a few seconds old), as any session after the first finds it."""
    old = time.time() - 60
    for path in (root / ".foundry" / "memory" / "facts").iterdir():
        os.utime(path, (old, old))
    subprocess.run(
        [sys.executable, "-m", "foundry_tui", "--root", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return _probed_modules(PROBE, root, args, stdin)


def _probed_modules(probe: str, root: Path, args: list[str], stdin: str) -> list[str]:
    """The modules a probe script (PROBE, WARMUP_PROBE) recorded, running the launcher with `args`."""
    proc = subprocess.run(
        [sys.executable, "-c", probe, "--root", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    modules = json.loads(line.removeprefix("MODULES "))
    assert modules is not None, f"{args}: nothing recorded: {proc.stderr}"
    return list(modules)


def _check(modules: list[str], allowed: tuple[str, ...], heavy_allowed: tuple[str, ...] = ()) -> None:
    ours = sorted(m for m in modules if m.split(".")[0] == "foundry_tui")
    assert [m for m in ours if m not in allowed] == [], "add it to foundry_tui/startup_path.py only with a measurement"
    heavy = sorted({m.split(".")[0] for m in modules} & (set(startup_path.HEAVY) - set(heavy_allowed)))
    assert heavy == []


def test_mcp_imports_only_its_start_up_path_before_initialize(demo_root: Path) -> None:
    modules = _modules_at_first_answer(demo_root, ["mcp"], json.dumps(INITIALIZE) + "\n")
    _check(modules, startup_path.MCP_BEFORE_INITIALIZE)


@pytest.mark.parametrize("event", sorted(HOOK_EVENTS))
def test_hooks_import_only_their_start_up_path(demo_root: Path, event: str) -> None:
    modules = _modules_at_first_answer(demo_root, ["hook", event], json.dumps(HOOK_EVENTS[event]))
    _check(modules, startup_path.HOOKS, startup_path.SESSION_START_ALSO if event == "session-start" else ())


def test_a_prompt_the_warm_server_answers_never_loads_the_memory(demo_root: Path) -> None:
    """With a server running, the prompt hook (session id and all, as Claude Code sends it)
    imports only HOOK_PROMPT_SERVED: the rankers, the fact model, typing and hashlib stay out."""
    from foundry_tui.core.local_socket import socket_path

    server = subprocess.Popen(
        [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(demo_root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        for message in (INITIALIZE, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}):
            server.stdin.write((json.dumps(message) + "\n").encode())
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == message["id"]
        path = socket_path(demo_root)
        deadline = time.monotonic() + 30
        while not path.exists():  # the server opens it once its memory is loaded
            assert time.monotonic() < deadline, "the server never opened its socket"
            time.sleep(0.05)
        event = json.dumps(HOOK_EVENTS["user-prompt-submit"])
        patient = {"FOUNDRY_DEBUG": "1", "FOUNDRY_SOCKET_DEADLINE_MS": "1000", "FOUNDRY_SOCKET_REPLY_MS": "5000"}
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, "--root", str(demo_root), "hook", "user-prompt-submit"],
            input=event,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=demo_root,
            env={**os.environ, **patient},
        )
    finally:
        server.kill()
        server.wait(timeout=30)
    assert f"foundry hook: facts from the server at {path}" in proc.stderr
    assert "Foundry memory: facts that may bear on this prompt." in proc.stdout
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    modules = json.loads(line.removeprefix("MODULES "))
    _check(modules, startup_path.HOOK_PROMPT_SERVED)
    assert {"typing", "hashlib", "struct", "foundry_tui.core.memory.search.rankers"}.isdisjoint(modules)


# The other agents' dialects (foundry_tui/hook_dialects.py), on their own documented payloads.
AGENT_PAYLOADS = {
    ("codex", "user-prompt-submit"): "codex/user-prompt-submit.json",
    ("codex", "pre-tool-use"): "codex/pre-tool-use-apply-patch.json",
    ("cursor", "pre-tool-use"): "cursor/before-read-file.json",
    ("cursor", "post-tool-use"): "cursor/after-file-edit.json",
    ("gemini", "session-start"): "gemini/session-start.json",
    ("gemini", "pre-tool-use"): "gemini/before-tool-shell.json",
}


@pytest.mark.parametrize(("agent", "event"), sorted(AGENT_PAYLOADS))
def test_each_dialect_imports_only_the_hooks_start_up_path(demo_root: Path, agent: str, event: str) -> None:
    data = Path(__file__).parent / "data" / "agents" / AGENT_PAYLOADS[agent, event]
    payload = json.loads(data.read_text(encoding="utf-8").replace("{root}", str(demo_root)))["payload"]
    modules = _modules_at_first_answer(demo_root, ["hook", event, "--agent", agent], json.dumps(payload))
    _check(modules, startup_path.HOOKS, startup_path.SESSION_START_ALSO if event == "session-start" else ())


# Runs the launcher's `foundry tui …` up to the app's run (not run: there is no terminal),
# recording the modules loaded by then and what cmd_tui was given.
TUI_PROBE = r"""
import builtins, gc, json, sys

real_import = builtins.__import__
textual_with_gc = []

def run(self, *args, **kwargs):
    sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\n")
    sys.stderr.write(f"COLLECTING {gc.isenabled()}\n")
    sys.stderr.write(f"TEXTUAL IMPORTED COLLECTING {textual_with_gc[:1]}\n")

def probe(name, *args, **kwargs):
    # Whether the collector ran when Textual was first imported; FoundryApp.run replaced
    # once its module is loaded (the launcher imports it itself, as for real).
    if name.split(".")[0] == "textual" and "textual" not in sys.modules:
        textual_with_gc.append(gc.isenabled())
    module = real_import(name, *args, **kwargs)
    app = sys.modules.get("foundry_tui.tui.app")
    if app is not None and hasattr(app, "FoundryApp") and app.FoundryApp.run is not run:
        app.FoundryApp.run = run
    return module

builtins.__import__ = probe
from foundry_tui.launcher import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "args", [["tui"], ["--root", "{root}", "tui", "--no-watch"], ["tui", "--today=2026-11-30", "--root={root}"]]
)
def test_a_plain_tui_imports_no_argparse_before_the_app_runs(demo_root: Path, args: list[str]) -> None:
    """A plain `foundry tui` (cli._plain_tui) reaches the app without argparse (nor gettext,
    which only argparse imports); anything else still goes through argparse, errors included."""
    argv = [arg.replace("{root}", str(demo_root)) for arg in args]
    proc = subprocess.run(
        [sys.executable, "-c", TUI_PROBE, *argv], capture_output=True, text=True, timeout=60, cwd=demo_root
    )
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    modules = json.loads(line.removeprefix("MODULES "))
    assert "foundry_tui.tui.preload" in modules and "foundry_tui.cli" in modules
    assert "argparse" not in modules and "gettext" not in modules
    # The cyclic collector is paused before Textual is imported, until the first screen is
    # drawn (tui/collector.py).
    assert "COLLECTING False" in proc.stderr.splitlines()
    assert "TEXTUAL IMPORTED COLLECTING [False]" in proc.stderr.splitlines()
    # Not plain: argparse makes the same one-line errors and exit codes as before.
    bad = subprocess.run(
        [sys.executable, "-c", TUI_PROBE, "tui", "--root"], capture_output=True, text=True, timeout=60, cwd=demo_root
    )
    assert (bad.returncode, bad.stderr) == (
        2,
        "foundry tui: error: argument --root: expected one argument (see `foundry tui --help`)\n",
    )


# Records the modules loaded when the server starts its warm-up thread.
WARMUP_PROBE = r"""
import json, sys, threading
seen = {}
start = threading.Thread.start

def recording_start(self):
    if self.name == "foundry-warmup":
        seen["mods"] = sorted(sys.modules)
    return start(self)

threading.Thread.start = recording_start
from foundry_tui.launcher import main
try:
    main(sys.argv[1:])
finally:
    sys.stderr.write("MODULES " + json.dumps(seen.get("mods")) + "\n")
"""


def test_the_modules_both_threads_import_first_are_loaded_before_the_warm_up_starts(demo_root: Path) -> None:
    """Two threads importing a module for the first time at once can hand one of them the
    half-built module (CI saw "partially initialized module 'typing'" in resources/list while
    the warm-up scanned): the server loads them on its own thread before the warm-up starts."""
    modules = _probed_modules(WARMUP_PROBE, demo_root, ["mcp"], json.dumps(INITIALIZE) + "\n")
    assert {"typing", "collections.abc", "foundry_tui.mcp.registry"} <= set(modules)
