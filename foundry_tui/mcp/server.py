"""The Foundry MCP server: stdio, newline-delimited JSON-RPC 2.0, protocol 2025-06-18.

It starts on every agent session, so nothing heavy is imported before the
initialize reply: the engine is loaded after it, in a background thread that also
starts the word index and the file watcher. Nothing but protocol messages goes to
stdout; diagnostics go to stderr.

A request line may be at most MAX_LINE_BYTES (16 MiB, the largest file Foundry reads)
before its newline. A longer one is never held whole: the server reads it in chunks,
drops it up to its newline, answers a JSON-RPC error (-32600 Invalid Request, id null:
the line was not parsed) and goes on with the next line.
"""

from __future__ import annotations

import collections.abc  # noqa: F401  # loaded here, once: Python 3.13.0 can hand a thread importing it concurrently a half-built module
import contextlib
import json
import sys
import threading

TYPE_CHECKING = False  # typing is not imported at start-up: it costs a few ms
if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Iterator
    from pathlib import Path
    from typing import IO

    from foundry_tui.core.json_types import JSONObject, JSONValue
    from foundry_tui.core.memory.project import Project
    from foundry_tui.core.paths import Layout
    from foundry_tui.core.sessions.store import SessionStore
    from foundry_tui.core.trust.principal import Caller
    from foundry_tui.mcp.local_server import SocketListener

PROTOCOL_VERSION = "2025-06-18"  # the latest this server speaks
# Versions whose server side this server implements (MCP lifecycle, "Version Negotiation":
# answer the client's version when supported, else the latest). Their differences for a
# server with tools and resources: 2025-03-26 alone requires receiving JSON-RPC batches.
SUPPORTED_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
BATCH_VERSION = "2025-03-26"
INSTRUCTIONS = (
    "Foundry memory and contracts. Prefer memory_search over reading .foundry files. Consult runbook_list before "
    "recurring tasks. Hand work between agents with blackboard_write, returning only the artifact path and a short summary."
)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
SOCKET_OPEN_WAIT = 1.0  # seconds the warm-up waits for the answer after initialize's before opening the socket
# What the server searches once, before it opens the hooks' socket, to load the prompt search.
WARM_UP_PROMPT = "how do we deploy the service and run the database migrations"
NOTIFICATIONS = {
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
}


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class FoundryServer:
    """Answers one JSON-RPC message at a time; `serve` runs the stdio loop."""

    def __init__(self, root: Path, today: str | None = None, caller: Caller | None = None) -> None:
        self.root = root
        self.today_arg = today
        self.caller = caller  # the principal, fixed at start (core/trust/principal.py)
        self._project: Project | None = None
        self._project_lock = threading.Lock()
        self._warmup: threading.Thread | None = None
        self._warm_after_reply = False
        self._tool_calls = 0
        # Inside `serve`, a tool call's event is logged once its reply is on its way (the first
        # one imports the secret guard, ~10 ms); a caller of `handle` gets it logged at once.
        self._defer_events = False
        self._events: list[tuple[Layout, str, dict[str, object]]] = []
        self._session_store: SessionStore | None = None
        self._store_lock = threading.Lock()
        # The hooks' local socket (core/local_socket.py), opened once the memory is warm.
        self._listener: SocketListener | None = None
        self._listener_lock = threading.RLock()  # re-entered by the SIGTERM handler, on the main thread
        self._stopping = False
        self._prepare_lock = threading.Lock()
        self._next_answered = threading.Event()  # set once a request after initialize has been answered
        self.protocol_version = PROTOCOL_VERSION

    # ---- the engine, loaded after initialize ---------------------------------------------

    def project(self) -> Project:
        with self._project_lock:
            if self._project is None:
                from foundry_tui.core.memory.project import Project

                self._project = Project(self.root)
                self._project.semantic_wait = False  # hybrid: rank lexically while the model loads
            return self._project

    def _warm(self) -> None:
        """Load the facts off the request path. The word index and a watcher thread (where
        the kernel's queue is not available) start after the first tool call has been
        answered, so that call never competes with them for the interpreter."""
        try:
            project = self.project()
            # The kernel's queue of changes in place before the scan (Linux): the first tool
            # call then reads the queue instead of statting every file a second time.
            project.watch(kernel_only=True)
            project.sync()
        except Exception as exc:  # the first real call will report the problem properly
            print(f"foundry mcp: warm-up skipped: {exc}", file=sys.stderr)
        self._hold_session_store()
        # The socket's warm-up search would compete with the client's next request (tools/list,
        # right after initialize): it waits for that answer, or a second at most.
        self._next_answered.wait(SOCKET_OPEN_WAIT)
        self.open_socket()

    # ---- the hooks' local socket (core/local_socket.py) -----------------------------------------

    def open_socket(self) -> None:
        """Answer the prompt hook's searches on the root's local socket (off with FOUNDRY_NO_SOCKET=1)."""
        from foundry_tui.core.local_socket import socket_enabled, socket_path

        if not socket_enabled():
            return
        from foundry_tui.mcp.local_server import SocketListener

        # One search first, off the request path: the ranker's modules and figures are then
        # loaded before a hook, with its 40 ms deadline, asks.
        with contextlib.suppress(Exception):
            self.prompt_search(WARM_UP_PROMPT, self.today(), 1)
        with self._listener_lock:  # a server stopping meanwhile opens none
            if self._stopping or self._listener is not None:
                return
            listener = SocketListener(socket_path(self.root), self.prompt_facts, self.prepare_searches)
            if listener.open():
                self._listener = listener

    def close_socket(self) -> None:
        """Stop answering on the socket and remove it (when it is still this server's)."""
        with self._listener_lock:
            self._stopping = True
            listener, self._listener = self._listener, None
        self._next_answered.set()  # a warm-up waiting to open the socket stops waiting, and opens none
        if listener is not None:
            listener.close()

    def prompt_facts(self, request: JSONObject) -> str:
        """A socket's prompt_facts request (checked: local_server.request_problem) answered as the
        hook would answer it itself: the same function on the same memory, kept warm here."""
        import datetime as _dt
        import os

        if request["root"] != os.path.realpath(self.root):
            raise ValueError(f"this server serves {os.path.realpath(self.root)}")
        prompt, limit = request["prompt"], request["limit"]
        assert isinstance(prompt, str) and isinstance(limit, int)
        return self.prompt_search(prompt, _dt.date.fromisoformat(str(request["today"])), limit)

    def prompt_search(self, prompt: str, today: _dt.date, limit: int) -> str:
        from foundry_tui.core.memory.search.reply import prompt_facts_text

        project = self.project()
        if not project.layout.facts_dir.is_dir():
            return ""
        return prompt_facts_text(project, prompt, today, limit)

    def _close_socket_on_signals(self) -> None:
        """On SIGTERM or SIGHUP, remove the socket, then die of the signal as before (main thread only)."""
        import signal

        if threading.current_thread() is not threading.main_thread():
            return

        def stop(signum: int, _frame: object) -> None:
            self.close_socket()
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

        for signum in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, stop)

    def _hold_session_store(self) -> None:
        """Keep one idle connection to the session store while the server runs. The agent's
        hooks then never close its last connection, which would checkpoint the WAL with an
        fsync on every prompt (about 10 to 30 ms here; 0.5 ms without). The server never
        creates the store (its agent's first hook does): it tries again after each tool call."""
        with self._store_lock:  # the warm-up thread and the loop may both try
            if self._session_store is None:
                self._session_store = self._open_session_store()

    def _open_session_store(self) -> SessionStore | None:
        try:
            from foundry_tui.core.sessions.store import SessionStore

            store = SessionStore(self.project().layout)
            if store.exists():
                store.hold()
                return store
        except Exception:  # a corrupt store: the memory tools report it when called
            pass
        return None

    @staticmethod
    def _prepare_ranker(project: Project) -> None:
        """Build what the configured ranker keeps for later searches (bm25: its postings of the
        facts, for the next start too: postings.py)."""
        with contextlib.suppress(Exception):  # a bad config.json: the tools report it when called
            project.prepare_ranker()

    def prepare_searches(self) -> None:
        """After the first answer (a tool call's, or the hooks' socket's): the ranker's data, the
        watcher and the word index (each a no-op once started)."""
        project = self._project
        if project is None:
            return
        with self._prepare_lock:
            self._prepare_ranker(project)  # first: the word index lets go of the snapshot
            project.watch()
            if not project.building_postings():  # one build at a time: the index after them
                project.use_search_index(background=True)

    def start_warmup(self) -> None:
        if self._warmup is None:
            self._warmup = threading.Thread(target=self._warm, name="foundry-warmup", daemon=True)
            self._warmup.start()

    def today(self) -> _dt.date:
        from foundry_tui.core.paths import resolve_today

        return resolve_today(self.today_arg)

    # ---- JSON-RPC ----------------------------------------------------------------------------

    def handle_line(self, line: bytes | str) -> JSONObject | list[JSONObject] | None:
        """One line in, at most one response out. No line, however hostile, stops the loop:
        what the JSON parser or the checks below refuse becomes a JSON-RPC error."""
        given_text = isinstance(line, str)  # from a caller, not stdin: it may hold raw surrogates
        if isinstance(line, bytes):
            # Strict UTF-8 (what MCP's stdio transport carries): json.loads would guess UTF-16
            # or UTF-32 from the first bytes, and decodes UTF-8 with 'surrogatepass', which
            # lets the bytes of a lone surrogate through unescaped.
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                return _error(None, PARSE_ERROR, "Parse error: the line is not UTF-8 text")
        try:
            message = json.loads(line)
        except RecursionError:
            return _error(None, PARSE_ERROR, f"Parse error: JSON nested deeper than {MAX_DEPTH} levels")
        except json.JSONDecodeError as exc:
            return _error(None, PARSE_ERROR, f"Parse error: {exc}")
        except ValueError as exc:  # an integer past the interpreter's digit limit, and the like
            return _error(None, PARSE_ERROR, f"Parse error: {_number_problem(exc)}")
        # From stdin only an escape (\\ud800) can put a lone surrogate into a string: raw
        # surrogate bytes do not decode.
        problem = _shape_problem(message, check_surrogates=given_text or "\\u" in line)
        if problem is not None:
            msg_id = message.get("id") if isinstance(message, dict) else None
            if not _plain_id(msg_id) or (isinstance(msg_id, str) and not _is_unicode(msg_id)):
                msg_id = None
            code = INVALID_PARAMS if problem is _TOO_DEEP else INVALID_REQUEST
            return _error(msg_id, code, problem)
        return self.handle(message)

    def handle(self, message: JSONValue) -> JSONObject | list[JSONObject] | None:
        if isinstance(message, list) and message and self.protocol_version == BATCH_VERSION:
            answers = [self.handle_one(item) for item in message]
            return [answer for answer in answers if answer is not None] or None
        return self.handle_one(message)

    def handle_one(self, message: JSONValue) -> JSONObject | None:
        if not isinstance(message, dict):
            kind = "a batch (array)" if isinstance(message, list) else type(message).__name__
            return _error(None, INVALID_REQUEST, f"Invalid Request: expected a JSON-RPC object, got {kind}")
        msg_id = message.get("id")
        method = message.get("method")
        if method is None and ("result" in message or "error" in message):
            return None  # a response to nothing we asked: ignore
        bad_id = "id" in message and (not isinstance(msg_id, (str, int)) or isinstance(msg_id, bool))
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str) or bad_id:
            return _error(
                msg_id if isinstance(msg_id, (str, int)) else None,
                INVALID_REQUEST,
                'Invalid Request: need jsonrpc "2.0", a string method and a string or number id',
            )
        if "id" not in message:  # a notification: never answered
            return None
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return _error(msg_id, INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            result = self.dispatch(method, params)
        except RpcError as exc:
            return _error(msg_id, exc.code, exc.message)
        except Exception as exc:  # a bug: answer, keep serving
            print(f"foundry mcp: internal error in {method}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return _error(msg_id, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}: {exc}")
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def dispatch(self, method: str, params: JSONObject) -> JSONObject:
        if method == "initialize":
            from foundry_tui import __version__

            self._warm_after_reply = True  # the engine loads once this reply is on its way
            asked = params.get("protocolVersion")
            self.protocol_version = asked if asked in SUPPORTED_VERSIONS else PROTOCOL_VERSION
            return {
                "protocolVersion": self.protocol_version,
                "capabilities": {
                    "tools": {"listChanged": False},
                    "resources": {"subscribe": False, "listChanged": False},
                },
                "serverInfo": {"name": "foundry", "version": __version__},
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            from foundry_tui.mcp.registry import all_tools

            return {"tools": [tool.listing(self.protocol_version) for tool in all_tools()]}
        if method == "tools/call":
            return self.call_tool(params)
        if method == "resources/list":
            return {"resources": self.list_resources()}
        if method == "resources/templates/list":
            return {"resourceTemplates": []}  # every resource is listed by its own uri
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise RpcError(INVALID_PARAMS, "Invalid params: resources/read needs a string uri")
            return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": self.read_resource(uri)}]}
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    # ---- tools ---------------------------------------------------------------------------------

    def call_tool(self, params: JSONObject) -> JSONObject:
        from foundry_tui.core.errors import FoundryError, os_error_text
        from foundry_tui.mcp.registry import TOOL_NAMES, answer_tool, tool_named
        from foundry_tui.mcp.tool import STRUCTURED_FROM, check_arguments, drop_identity_arguments

        name = params.get("name")
        if not isinstance(name, str) or name not in TOOL_NAMES:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
        tool = tool_named(name)
        given = params.get("arguments") or {}
        if not isinstance(given, dict):  # check_arguments says why
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for {tool.name}: {check_arguments(tool, given)}")
        args, ignored = drop_identity_arguments(tool, given)
        problem = check_arguments(tool, args)
        if problem:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for {tool.name}: {problem}")
        project = self.project()
        structured = None
        more: list[str] = []
        try:
            text, fields, structured, more = answer_tool(project, tool.name, args, self.today(), self.caller)
            is_error = fields.get("written") is False  # a tool that refused to write says so in its fields
        except FoundryError as exc:
            text, fields, is_error = f"{tool.name} failed: {exc}", {"error": True}, True
        except OSError as exc:  # the disk refused: the model reads why (spec 002), the server goes on
            text, fields, is_error = f"{tool.name} failed: {os_error_text(exc, self.root)}", {"error": True}, True
        except Exception as exc:  # a bug: still a tool failure for the model, with the details on stderr
            print(f"foundry mcp: internal error in {tool.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            text = f"{tool.name} failed: internal error ({type(exc).__name__}): please report it"
            fields, is_error = {"error": True}, True
        if ignored:
            text += f"\nNote: ignored the argument{'s' if len(ignored) > 1 else ''} {', '.join(ignored)}: {self.caller_note()}"
        if self._defer_events:
            self._events.append((project.layout, tool.name, fields))
        else:
            from foundry_tui.core.events import record_event

            record_event(project.layout, tool.name, **fields)
        self._tool_calls += 1
        content: list[JSONValue] = [{"type": "text", "text": text}]
        # Further items after the reply text, never in it: the first item stays the spec's text.
        if not is_error:
            content += [{"type": "text", "text": extra} for extra in more]
        result: JSONObject = {"content": content, "isError": is_error}
        # Beside the text, never instead of it: the reply a model reads stays the spec's. An error
        # result carries none (its schema describes what the tool returns when it succeeds).
        if structured is not None and not is_error and self.protocol_version >= STRUCTURED_FROM:
            result["structuredContent"] = structured
        return result

    def _resolved_caller(self) -> Caller:
        """The server's principal; resolved from the environment when none was given."""
        if self.caller is None:
            from foundry_tui.core.trust.principal import resolve_caller

            self.caller = resolve_caller()
        return self.caller

    def caller_note(self) -> str:
        who = self.caller.principal if self.caller is not None else "the principal of its environment"
        return f"this server acts for {who}, fixed when it started (FOUNDRY_PRINCIPAL), never for a tool argument."

    # ---- resources -----------------------------------------------------------------------------

    def list_resources(self) -> list[JSONValue]:
        from foundry_tui.core.artefacts.runbooks import list_runbooks

        resources: list[JSONValue] = [
            {
                "uri": "foundry://memory/index",
                "name": "Memory index",
                "mimeType": "text/markdown",
                "description": "The generated one-line-per-fact index (.foundry/memory/INDEX.md)",
            },
            {
                "uri": "foundry://contracts",
                "name": "I/O contracts",
                "mimeType": "text/markdown",
                "description": "Every available contract id",
            },
        ]
        for book in list_runbooks(self.project().layout):
            entry: JSONObject = {
                "uri": f"foundry://runbooks/{book.slug}",
                "name": f"Runbook: {book.title}",
                "mimeType": "text/markdown",
            }
            if book.trigger:
                entry["description"] = book.trigger
            resources.append(entry)
        return resources

    def read_resource(self, uri: str) -> str:
        from foundry_tui.core.errors import FoundryError, InputError, NotFoundError, os_error_text

        project = self.project()
        layout = project.layout
        try:
            if uri == "foundry://memory/index":
                from foundry_tui.core.memory.reports.index_file import served_index

                if not layout.index_path.exists():  # spec 002: "built on demand if missing"
                    from foundry_tui.core.ops.actor import Actor
                    from foundry_tui.core.ops.facts import index_if_missing

                    index_if_missing(Actor(project, self._resolved_caller(), self.today()))
                return served_index(project, self.today())  # today's, not INDEX.md as it was
            if uri == "foundry://contracts":
                from foundry_tui.core.artefacts.contracts import describe_contracts

                return describe_contracts(layout)
            if uri.startswith("foundry://runbooks/"):
                from foundry_tui.core.artefacts.runbooks import get_runbook

                return get_runbook(layout, uri.removeprefix("foundry://runbooks/"))
        except (InputError, NotFoundError):
            pass  # a bad or unknown name: the resource does not exist
        except FoundryError as exc:  # it exists but cannot be served (a runbook over the size limit, say)
            raise RpcError(INVALID_PARAMS, f"Cannot read {uri}: {exc}") from None
        except OSError as exc:
            raise RpcError(INTERNAL_ERROR, f"Cannot read {uri}: {os_error_text(exc, self.root)}") from None
        raise RpcError(INVALID_PARAMS, f"Unknown resource: {uri}")

    # ---- the stdio loop --------------------------------------------------------------------------

    def record_events(self) -> None:
        """Log the events of the tool calls answered since the last call (before the next line is read)."""
        if self._events:
            from foundry_tui.core.events import record_event

            events, self._events = self._events, []
            for layout, kind, fields in events:
                record_event(layout, kind, **fields)

    def serve(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        try:
            self._serve(stdin, stdout)
        finally:  # stdin closed, Ctrl-C, a broken pipe: the socket goes with the server
            self.close_socket()

    def _serve(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self._defer_events = True
        for line in _lines(stdin):
            if line is not None and not line.strip():
                continue
            try:
                response = _error(None, INVALID_REQUEST, _TOO_LONG) if line is None else self.handle_line(line)
            except Exception as exc:  # a bug: answer it, keep serving
                print(f"foundry mcp: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
                response = _error(None, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")
            if response is not None:
                stdout.write(_encode(response))
                stdout.flush()
                if self._warmup is not None:  # an answer after initialize's: the socket may open
                    self._next_answered.set()
            self.record_events()
            if self._warm_after_reply:
                self._warm_after_reply = False
                self._close_socket_on_signals()
                # The tools' modules (a few ms), here, before the warm-up's scan starts: tools/list,
                # the client's next request, reads them, and imports that compete with the scan
                # for the interpreter took 40 ms more.
                from foundry_tui.mcp.registry import all_tools

                all_tools()
                # typing too: the warm-up's scan and a request's handler each import it first
                # at once otherwise, and the import system's deadlock check can hand one of them
                # the half-built module ("partially initialized module 'typing'", seen in CI).
                import typing  # noqa: F401

                self.start_warmup()
            if self._project is not None and self._tool_calls:
                self.prepare_searches()
                self._hold_session_store()  # once the agent's first hook has made the store
        self.close_socket()  # first: no hook waits on a server that is stopping
        project = self._project
        if project is not None:
            # A build under way gets a few seconds to finish, for the next server (a client waits
            # for its server to stop); cut short, it leaves no file and the next one builds them.
            project.postings_built(timeout=POSTINGS_EXIT_WAIT)
            project.close()
        if self._session_store is not None:
            self._session_store.close()


MAX_LINE_BYTES = 16 * 1024 * 1024  # a request line, before its newline (see the module's docstring)
DISCARD_CHUNK_BYTES = 1024 * 1024  # what an oversize line's rest is read (and dropped) by
_TOO_LONG = f"Invalid Request: the line is over {MAX_LINE_BYTES} bytes, the most this server reads; it was dropped"


def _lines(stdin: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of `stdin`, each read with at most MAX_LINE_BYTES + 1 bytes held; None for a
    line over MAX_LINE_BYTES, whose rest is read in chunks and dropped up to its newline."""
    while True:
        line = stdin.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):  # at most MAX_LINE_BYTES and its newline
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = stdin.readline(DISCARD_CHUNK_BYTES)
        yield None


POSTINGS_EXIT_WAIT = 5.0  # seconds a stopping server waits for bm25's postings (postings.py)
MAX_DEPTH = 100  # JSON nesting a request may have: deeper data would reach the interpreter's recursion limit
_TOO_DEEP = f"Invalid params: JSON nested deeper than {MAX_DEPTH} levels"
_SURROGATE = "Invalid Request: a string holds a lone UTF-16 surrogate (half of an emoji?): send valid Unicode"


def _plain_id(msg_id: object) -> bool:
    return isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shape_problem(message: object, *, check_surrogates: bool) -> str | None:
    """What makes a parsed message unsafe to handle: nesting past MAX_DEPTH, or (when the
    line had a \\u escape) a lone surrogate, which no reply could encode. Iterative, so
    that checking deep data does not itself recurse."""
    stack: list[tuple[object, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                return _TOO_DEEP
            for key, item in value.items():
                if check_surrogates and not _is_unicode(key):
                    return _SURROGATE
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                return _TOO_DEEP
            stack.extend((item, depth + 1) for item in value)
        elif check_surrogates and isinstance(value, str) and not _is_unicode(value):
            return _SURROGATE
    return None


def _number_problem(exc: ValueError) -> str:
    text = str(exc)
    if "integer string conversion" in text:
        return "a number has more digits than this server reads (4300)"
    return text.split(";")[0]


def _encode(response: JSONObject | list[JSONObject]) -> bytes:
    """One response line. Replies never carry a lone surrogate (requests with one are refused),
    but should one slip through, it becomes U+FFFD rather than an exception that ends the loop."""
    text = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "replace") + b"\n"


def _error(msg_id: JSONValue, code: int, message: str) -> JSONObject:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def run(root: Path, today: str | None = None) -> int:
    from foundry_tui.core.errors import FoundryError
    from foundry_tui.core.trust.principal import resolve_caller

    try:
        caller = resolve_caller()  # who this server acts for, fixed now: never from a tool argument
    except FoundryError as exc:
        sys.stderr.write(f"foundry: error: {exc}\n")
        return exc.exit_code
    server = FoundryServer(root, today, caller)
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        server.serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0
