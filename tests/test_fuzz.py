"""Fuzzing with a fixed budget (issue 9, "Done when"): random bytes and random JSON-RPC at
one running MCP server process, which must answer each line (or stay silent for a
notification) and never die; random frontmatter at the fact loader, which must return a
Fact or raise FactFileError, nothing else."""

from __future__ import annotations

import json
import os
import queue
import threading
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foundry_tui.core.memory.model.facts import Fact, FactFileError, parse_fact_text
from foundry_tui.core.memory.storage.store import BrokenFile, read_fact_file
from foundry_tui.mcp.registry import all_tools
from tests.mcp.test_mcp_raw import INIT, RawServer

SERVER_EXAMPLES = int(os.environ.get("FOUNDRY_FUZZ_EXAMPLES", "200"))  # per strategy
LOADER_EXAMPLES = 300  # the loader; the file reader gets a third of it

# Every code point, with lone surrogates (half an emoji: json.dumps escapes it as \ud83d)
# and whole emoji made likely, since uniform code points almost never hit them.
ANY_TEXT = st.lists(
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
    | st.integers(0xD800, 0xDFFF).map(chr)
    | st.sampled_from(["\U0001f600", "\x00", "\u2028", "\\", '"']),
    max_size=30,
).map("".join)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(ANY_TEXT, children, max_size=4),
    max_leaves=20,
)
METHODS = st.sampled_from(
    ["initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read", "resources/templates/list"]
)
TOOL_NAMES = st.sampled_from([tool.name for tool in all_tools()])
ARGUMENT_NAMES = st.sampled_from(
    [
        "query",
        "type",
        "limit",
        "title",
        "body",
        "tags",
        "slug",
        "schema",
        "data",
        "path",
        "wave",
        "agent",
        "full",
        "uri",
    ]
)


@st.composite
def requests(draw: st.DrawFn) -> Any:
    """JSON-RPC-shaped messages: mostly plausible, every field possibly wrong."""
    message: dict[Any, Any] = {}
    if draw(st.booleans()) or draw(st.booleans()):
        message["jsonrpc"] = draw(st.just("2.0") | JSON_VALUES)
    if draw(st.booleans()):
        message["id"] = draw(st.integers() | ANY_TEXT | JSON_VALUES)
    message["method"] = draw(METHODS | ANY_TEXT)
    if draw(st.booleans()):
        arguments = draw(st.dictionaries(ARGUMENT_NAMES | ANY_TEXT, JSON_VALUES, max_size=4))
        params = {"name": draw(TOOL_NAMES | ANY_TEXT), "arguments": arguments}
        message["params"] = draw(st.just(params) | st.dictionaries(ANY_TEXT, JSON_VALUES, max_size=3) | JSON_VALUES)
    return draw(st.just(message) | st.lists(st.just(message), max_size=3) | JSON_VALUES)


# Byte lines built to hit the parser's limits: deep nesting, huge numbers, valid JSON
# spliced with random bytes.
PING_LINE = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":'
HOSTILE_LINES = (
    st.tuples(st.sampled_from(b"[{"), st.integers(1, 100_000)).map(
        lambda t: (b"[" * t[1]) if t[0] == ord("[") else (b'{"a":' * t[1])
    )
    | st.integers(1, 6000).map(lambda n: b'{"jsonrpc":"2.0","id":' + b"9" * n + b',"method":"ping"}')
    | st.integers(1, 3000).map(lambda n: PING_LINE + b"[" * n + b"]" * n + b"}}")
    | st.tuples(st.binary(max_size=20), st.integers(0, len(PING_LINE))).map(
        lambda t: PING_LINE[: t[1]] + t[0] + PING_LINE[t[1] :] + b"1}}"
    )
)


def _encode(value: Any, ascii_only: bool) -> bytes:
    text = json.dumps(value, ensure_ascii=ascii_only)
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes bytes no decoder accepts


class _QueuedServer(RawServer):
    """RawServer whose answers are read by a thread into a queue: two answers that arrive in
    one read would otherwise leave the second in the reader's buffer, where select() cannot
    see it."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.answers.put(line)

    def receive(self, timeout: float = 10.0) -> Any:
        try:
            return json.loads(self.answers.get(timeout=timeout))
        except queue.Empty:
            return None

    def close(self) -> tuple[int, bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=10), b""


class _Session:
    """One server process for a whole run of examples; each line is followed by a ping, so
    every answer before the ping's is the line's own."""

    def __init__(self, root: Path) -> None:
        self.server = _QueuedServer(root)
        self.server.ask(INIT)
        self.next_id = 10_000

    def exchange(self, line: bytes) -> list[Any]:
        self.next_id += 1
        ping = self.next_id
        self.server.send(line.replace(b"\n", b" ").replace(b"\r", b" "))
        self.server.send({"jsonrpc": "2.0", "id": ping, "method": "ping"})
        answers: list[Any] = []
        while True:
            answer = self.server.receive(timeout=20)
            assert answer is not None, f"the server stopped answering after {line[:200]!r}"
            if isinstance(answer, dict) and answer.get("id") == ping and "result" in answer:
                return answers
            answers.append(answer)

    def close(self) -> None:
        code, _rest = self.server.close()
        assert code == 0


def _check_answers(answers: list[Any]) -> None:
    assert len(answers) <= 1
    for answer in answers:
        for item in answer if isinstance(answer, list) else [answer]:
            assert item["jsonrpc"] == "2.0"
            assert ("result" in item) != ("error" in item)
            if "error" in item:
                assert item["error"]["code"] in (-32700, -32600, -32601, -32602, -32603)
                assert "\n" not in item["error"]["message"]


def test_fuzz_the_server_with_random_bytes(demo_root: Path) -> None:
    session = _Session(demo_root)

    @settings(max_examples=SERVER_EXAMPLES, suppress_health_check=list(HealthCheck), database=None)
    @given(st.binary(max_size=300) | HOSTILE_LINES)
    def one(line: bytes) -> None:
        answers = session.exchange(line)
        _check_answers(answers)
        if line.strip().replace(b"\n", b"").replace(b"\r", b""):  # a non-blank line that is not JSON: an error
            assert answers or line.strip().startswith(b"{")  # (a JSON notification would be silent)

    one()
    session.close()


def test_fuzz_the_server_with_random_json(demo_root: Path) -> None:
    session = _Session(demo_root)

    @settings(max_examples=SERVER_EXAMPLES, suppress_health_check=list(HealthCheck), database=None)
    @given(requests(), st.booleans())
    def one(message: Any, ascii_only: bool) -> None:
        answers = session.exchange(_encode(message, ascii_only))
        _check_answers(answers)
        is_request = isinstance(message, dict) and "id" in message
        if is_request:
            assert answers, f"no answer to {message!r}"

    one()
    session.close()


# Text a tool might choke on: path tricks, markup, control characters, long runs.
TOOL_TEXT = ANY_TEXT | st.sampled_from(
    ["..", "../../etc/passwd", "/etc/passwd", ".", "", " ", "a/b", "a\x00b", "[/]", "<script>", "*" * 300, "a-" * 2000]
)


@st.composite
def tool_calls(draw: st.DrawFn) -> dict[str, Any]:
    """tools/call with the tool's own argument names and JSON types, random values: these get
    past the argument check and run the tool itself."""
    tool = draw(st.sampled_from(all_tools()))
    arguments: dict[str, Any] = {}
    for name, spec in tool.schema["properties"].items():
        if name not in tool.schema["required"] and draw(st.booleans()):
            continue
        kind = spec["type"]
        if "enum" in spec and draw(st.booleans()):
            arguments[name] = draw(st.sampled_from(spec["enum"]))
        elif kind == "string":
            arguments[name] = draw(st.sampled_from(["finding.v1", "fact.v1", "deploy-production"]) | TOOL_TEXT)
        elif kind == "integer":
            arguments[name] = draw(st.integers(spec.get("minimum", -5), spec.get("maximum", 30)))
        elif kind == "boolean":
            arguments[name] = draw(st.booleans())
        elif kind == "array":
            arguments[name] = draw(st.lists(TOOL_TEXT, max_size=4))
        else:
            arguments[name] = draw(st.dictionaries(TOOL_TEXT, JSON_VALUES, max_size=4))
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool.name, "arguments": arguments}}


def test_fuzz_the_tools_with_well_typed_random_arguments(demo_root: Path) -> None:
    """Every call is answered with a result (a tool failure is an isError result, spec 002),
    or a request error: never an internal error, never silence."""
    session = _Session(demo_root)

    @settings(max_examples=SERVER_EXAMPLES, suppress_health_check=list(HealthCheck), database=None)
    @given(tool_calls(), st.booleans())
    def one(message: dict[str, Any], ascii_only: bool) -> None:
        answers = session.exchange(_encode(message, ascii_only))
        _check_answers(answers)
        (answer,) = answers
        if "error" in answer:
            assert answer["error"]["code"] in (-32700, -32600, -32602), answer  # -32700: raw surrogate bytes
        else:
            text = answer["result"]["content"][0]["text"]
            assert "internal error" not in text, (message, text)

    one()
    session.close()


# Field values: a smaller recursive strategy keeps generation (not parsing) from dominating.
SMALL_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | ANY_TEXT,
    lambda children: st.lists(children, max_size=2) | st.dictionaries(ANY_TEXT, children, max_size=2),
    max_leaves=4,
)
FIELDS = {
    "id": st.sampled_from(["fact-0001", "fact-1", "fact-00001", ""]) | ANY_TEXT | SMALL_JSON,
    "type": st.sampled_from(["decision", "domain", "risk"]) | ANY_TEXT | SMALL_JSON,
    "title": ANY_TEXT | SMALL_JSON,
    "created": st.sampled_from(["2026-01-01", "2026-02-30", "0000-00-00"]) | st.dates() | SMALL_JSON,
    "expires": st.none() | st.dates() | SMALL_JSON,
    "tags": st.lists(ANY_TEXT | SMALL_JSON, max_size=4) | SMALL_JSON,
    "confidence": st.sampled_from(["high", "low"]) | SMALL_JSON,
    "supersedes": st.none() | st.sampled_from(["fact-0002"]) | SMALL_JSON,
    "merged_from": st.lists(ANY_TEXT, max_size=3) | SMALL_JSON,
}
YAML_SNIPPETS = st.sampled_from(
    [
        "a: &a [1, 2]\nb: [*a, *a]\n",
        "x: &x [1, *x]\n",
        "m: &m {k: *m}\n",
        "a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
        "k: !!python/object:os.system {}\n",
        "k: !!binary aGk=\n",
        "k: 2026-01-01 10:00:00\n",
        "? [a, b]\n: c\n",
        "k: [[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]\n",
        "k: 1e999\n",
        "k: .nan\n",
        "<<: {id: fact-0003}\n",
        "k: |\n  ---\n  x\n",
        "---\n",
        "\t: tab\n",
        "1: one\n",
        "null: nothing\n",
        "[a]: b\n",
    ]
)


VALID = {"id": "fact-0001", "type": "domain", "title": "A title", "created": "2026-01-01"}


@st.composite
def fact_texts(draw: st.DrawFn) -> str:
    """Mostly a valid fact with some fields replaced and unknown keys added (so that what
    follows a successful load is exercised too), sometimes random fields only."""
    fields: dict[Any, Any] = draw(st.fixed_dictionaries({}, optional=FIELDS))
    if draw(st.integers(0, 3)):
        fields = {**VALID, **fields}
    fields.update(draw(st.dictionaries(ANY_TEXT, SMALL_JSON, max_size=2)))
    try:
        head = yaml.safe_dump(fields, allow_unicode=draw(st.booleans()))
    except yaml.YAMLError:
        head = ""
    head += "".join(draw(st.lists(YAML_SNIPPETS, max_size=2)))
    if draw(st.integers(0, 3)) == 0:
        head += draw(ANY_TEXT) + "\n"
    body = draw(ANY_TEXT)
    # Mostly well-formed delimiters, so that what the YAML holds decides the outcome.
    opening = draw(st.sampled_from(["---\n"] * 6 + ["\ufeff---\n", "--- \n", "---", "", "----\n"]))
    closing = draw(st.sampled_from(["---\n"] * 6 + ["...\n", "", "---"]))
    return f"{opening}{head}{closing}{body}"


@settings(max_examples=LOADER_EXAMPLES, database=None)
@given(fact_texts())
def test_fuzz_the_loader_with_random_frontmatter(text: str) -> None:
    try:
        fact = parse_fact_text(text)
    except FactFileError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(fact, Fact)
        json.dumps(fact.to_dict(), default=str)  # the fact can be served
        fact.to_record()


@settings(max_examples=LOADER_EXAMPLES // 3, database=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=400) | fact_texts().map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_fuzz_the_file_reader_with_random_bytes(tmp_path_factory: Any, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "fact-0001.md"
    path.write_bytes(data)
    item = read_fact_file(path)
    assert isinstance(item, (Fact, BrokenFile))
    if isinstance(item, BrokenFile):
        assert "\n" not in item.reason
