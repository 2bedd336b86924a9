"""Waves as a developer follows a run: each wave with its first and last write and its
counts (artifacts, invalid ones, bytes, ~tokens), in the order the waves happened; every
artifact checked against its contract, each violation placed in the artifact's JSON
(pointer, line, column); filters; and the diff of two artifacts.

`inspect_waves` feeds `foundry blackboard waves` and the TUI's board alike. The order of
writes is the files' modification times: blackboard_write stamps nothing into an artifact
(the spec fixes what it adds), so the file system is the record."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from foundry_tui.core.artefacts.blackboard import Artifact, artifact_names, list_waves, read_artifact
from foundry_tui.core.artefacts.contracts import ContractChecker, load_contract
from foundry_tui.core.artefacts.json_places import first_line_end, line_column, pointer, value_places
from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.paths import Layout

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONObject

VALIDITIES = ("valid", "invalid")


def stamp(moment: float) -> str:
    """A write time as shown to a person: UTC, to the second (`2026-11-30 09:12:04`)."""
    return _dt.datetime.fromtimestamp(moment, _dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def iso_stamp(moment: float) -> str:
    return _dt.datetime.fromtimestamp(moment, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class Violation:
    """One contract violation and its place in the artifact as written: `start`/`end` are
    character offsets of what to highlight (a multi-line value: its first line)."""

    message: str
    pointer: str
    line: int
    column: int
    start: int
    end: int
    rule: str = ""  # the broken rule's path in the contract, as jsonschema gives it

    def where(self) -> str:
        return f"at {self.pointer or '/ (the artifact)'}, line {self.line}, column {self.column}"

    def as_json(self) -> JSONObject:
        return {
            "message": self.message,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
        }


@dataclass
class InspectedArtifact:
    """An artifact with its write time, size on disk and its contract check."""

    artifact: Artifact
    written: float
    size: int
    violations: list[Violation]
    contract_error: str | None = None

    @property
    def key(self) -> str:
        return f"{self.artifact.wave}/{self.artifact.name}"

    @property
    def agent(self) -> str:
        """`producedBy`, else the file's name without `.json` (an unreadable artifact has no producer)."""
        producer = self.artifact.producer
        return producer if producer != "?" else self.artifact.name.removesuffix(".json")

    @property
    def tokens(self) -> int:
        return self.artifact.tokens

    @property
    def valid(self) -> bool:
        return not self.artifact.problem and not self.contract_error and not self.violations

    @property
    def status(self) -> str:
        """`valid`, `unreadable`, `no contract` or `N violation(s)`."""
        if self.artifact.problem:
            return "unreadable"
        if self.contract_error:
            return "no contract"
        if self.violations:
            return _plural(len(self.violations), "violation")
        return "valid"

    def problem_lines(self) -> list[str]:
        """What is wrong with it, one line each (nothing when it is valid)."""
        if self.artifact.problem:
            return [self.artifact.problem]
        if self.contract_error:
            return [self.contract_error]
        return [f"{v.message} {v.where()}" for v in self.violations]

    def line(self) -> str:
        art = self.artifact
        return (
            f"- {art.name} · {art.schema} · by {self.agent} · {self.status} · {self.size} bytes, "
            f"~{self.tokens} tokens · {stamp(self.written)}"
        )

    def as_json(self) -> JSONObject:
        art = self.artifact
        return {
            "name": art.name,
            "agent": self.agent,
            "schema": art.schema,
            "status": self.status,
            "valid": self.valid,
            "written": iso_stamp(self.written),
            "bytes": self.size,
            "tokens": self.tokens,
            "problem": art.problem or self.contract_error,
            "violations": [v.as_json() for v in self.violations],
        }


@dataclass
class Wave:
    name: str
    items: list[InspectedArtifact]

    @property
    def first(self) -> float | None:
        return min((i.written for i in self.items), default=None)

    @property
    def last(self) -> float | None:
        return max((i.written for i in self.items), default=None)

    @property
    def invalid(self) -> int:
        return sum(not i.valid for i in self.items)

    @property
    def size(self) -> int:
        return sum(i.size for i in self.items)

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)

    def span(self) -> str:
        """`written 2026-11-30 09:12:04 to 09:14:10`, the date repeated only when it changes."""
        if self.first is None or self.last is None:
            return "nothing written"
        first, last = stamp(self.first), stamp(self.last)
        if first == last:
            return f"written {first}"
        return f"written {first} to {last[11:] if last[:10] == first[:10] else last}"

    def counts(self) -> str:
        return (
            f"{_plural(len(self.items), 'artifact')}, {self.invalid} invalid, {self.size} bytes, ~{self.tokens} tokens"
        )

    def as_json(self) -> JSONObject:
        return {
            "wave": self.name,
            "firstWrite": None if self.first is None else iso_stamp(self.first),
            "lastWrite": None if self.last is None else iso_stamp(self.last),
            "artifacts": len(self.items),
            "invalid": self.invalid,
            "bytes": self.size,
            "tokens": self.tokens,
            "items": [i.as_json() for i in self.items],
        }


class _Contracts:
    """Contracts made ready once per inspection; one that cannot be used is remembered as its error."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.loaded: dict[str, ContractChecker | FoundryError] = {}

    def get(self, contract_id: str) -> ContractChecker:
        if contract_id not in self.loaded:
            try:
                self.loaded[contract_id] = ContractChecker(load_contract(self.layout, contract_id), contract_id)
            except FoundryError as exc:
                self.loaded[contract_id] = exc
        found = self.loaded[contract_id]
        if isinstance(found, FoundryError):
            raise found
        return found


def inspect_artifact(
    layout: Layout, art: Artifact, contracts: _Contracts | None = None, info: os.stat_result | None = None
) -> InspectedArtifact:
    contracts = contracts or _Contracts(layout)
    try:
        info = info or art.path.stat()
        written, size = info.st_mtime, info.st_size
    except OSError:  # gone since it was read: it still shows, as read
        written, size = 0.0, len(art.text.encode("utf-8"))
    if art.problem:
        return InspectedArtifact(art, written, size, [])
    if not isinstance(art.data, dict) or not isinstance(art.data.get("schema"), str):
        return InspectedArtifact(art, written, size, [], 'it names no contract: the artifact has no "schema" field')
    try:
        found = contracts.get(art.schema).check(art.data)
    except FoundryError as exc:
        return InspectedArtifact(art, written, size, [], str(exc))
    places = value_places(art.text)
    placed = []
    for violation in found:
        where = pointer(violation.path)
        place = places.get(where)
        start = place.start if place else 0
        end = first_line_end(art.text, place) if place else 0
        line, column = line_column(art.text, start)
        placed.append(Violation(violation.message, where, line, column, start, end, pointer(violation.rule)))
    return InspectedArtifact(art, written, size, placed)


class WaveCache:
    """What one inspection learnt, for the next (the board reloads on every change): an
    artifact whose file has the same modification time and size is not read or checked
    again, unless a project contract changed since. One inspection at a time uses it (a
    superseded worker thread may still be running)."""

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()
        self.items: dict[str, tuple[tuple[int, int], InspectedArtifact]] = {}
        self.contracts: tuple[tuple[str, int, int], ...] | None = None


def _contract_files(layout: Layout) -> tuple[tuple[str, int, int], ...]:
    folder = layout.contracts_dir
    if not folder.is_dir():
        return ()
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            info = path.stat()
        except OSError:
            continue
        found.append((path.name, info.st_mtime_ns, info.st_size))
    return tuple(found)


def inspect_waves(layout: Layout, cache: WaveCache | None = None) -> list[Wave]:
    """Every wave, in the order it was first written to (an empty wave last, then by name)."""
    if cache is None:
        return _inspect_waves(layout, None)
    with cache.lock:
        return _inspect_waves(layout, cache)


def _inspect_waves(layout: Layout, cache: WaveCache | None) -> list[Wave]:
    contracts = _Contracts(layout)
    if cache is not None:
        signature = _contract_files(layout)
        if signature != cache.contracts:
            cache.items, cache.contracts = {}, signature
    kept: dict[str, tuple[tuple[int, int], InspectedArtifact]] = {}
    waves = []
    for name in list_waves(layout):
        folder = layout.blackboard_dir / name
        items = []
        for file_name in artifact_names(folder):
            key = f"{name}/{file_name}"
            try:
                info: os.stat_result | None = layout.check_inside(folder / file_name).stat()
            except OSError:  # gone, or a link out of the root: read_artifact says which
                info = None
            signature_of_file = (info.st_mtime_ns, info.st_size) if info else (0, -1)
            known = cache.items.get(key) if cache is not None else None
            item: InspectedArtifact | None
            if info is not None and known is not None and known[0] == signature_of_file:
                item = known[1]
            else:
                art = read_artifact(layout, folder, name, file_name)
                item = None if art is None else inspect_artifact(layout, art, contracts, info)
            if item is not None:
                items.append(item)
                kept[key] = (signature_of_file, item)
        waves.append(Wave(name, sorted(items, key=_by_time)))
    if cache is not None:
        cache.items = kept
    return sorted(waves, key=lambda w: (w.first is None, w.first or 0.0, w.name))


def _by_time(item: InspectedArtifact) -> tuple[float, str]:
    return item.written, item.artifact.name


def _refuse_path(name: str, what: str) -> None:
    """A name to look up among those listed: never joined to a path, but a path-like one is a
    mistake worth naming (it would not be found anyway)."""
    if not name.strip():
        raise InputError(f"the {what} name is empty: give one that `foundry blackboard waves` lists")
    if "/" in name or "\\" in name or name.startswith(".") or "\x00" in name:
        raise InputError(f"{what} '{name}' is a path, not a name: give the name as `foundry blackboard waves` lists it")


def find_wave(waves: list[Wave], wave: str) -> Wave:
    """The wave named `wave` exactly as listed (a path is refused), or a one-line NotFoundError."""
    from foundry_tui.core.reserved import refuse_reserved_wave

    _refuse_path(wave, "wave")
    refuse_reserved_wave(wave)
    for candidate in waves:
        if candidate.name == wave:
            return candidate
    names = ", ".join(w.name for w in waves)
    raise NotFoundError(
        f"no wave '{wave}' on the blackboard: " + (f"the waves are {names}" if names else "it has no waves yet")
    )


def find_artifact(waves: list[Wave], wave: str, agent: str) -> InspectedArtifact:
    """The artifact of `agent` (its file name, with or without `.json`) in `wave`."""
    found = find_wave(waves, wave)
    _refuse_path(agent, "agent")
    name = agent if agent.endswith(".json") else f"{agent}.json"
    for item in found.items:
        if item.artifact.name == name:
            return item
    names = ", ".join(i.artifact.name.removesuffix(".json") for i in found.items)
    raise NotFoundError(f"no artifact of agent '{agent}' in wave '{wave}': its agents are {names or 'none'}")


def waves_text(waves: list[Wave]) -> str:
    """`foundry blackboard waves`: one line per wave, in the order they happened."""
    if not waves:
        return "No waves yet: agents write them with blackboard_write."
    lines = [f"{_plural(len(waves), 'wave')}, in the order they were first written (times in UTC):"]
    width = max(len(w.name) for w in waves)
    for number, wave in enumerate(waves, 1):
        lines.append(f"{number}. {wave.name.ljust(width)}  {wave.counts()}; {wave.span()}")
    return "\n".join(lines)


def wave_text(wave: Wave) -> str:
    """`foundry blackboard waves WAVE`: the wave's line, then its artifacts and their violations."""
    lines = [f"Wave {wave.name}: {wave.counts()}; {wave.span()}{'' if wave.first is None else ' (UTC)'}"]
    for item in wave.items:
        lines.append(item.line())
        lines.extend(f"  - {problem}" for problem in item.problem_lines())
    return "\n".join(lines)


def waves_json(waves: list[Wave]) -> JSONObject:
    return {"waves": [w.as_json() for w in waves]}


@dataclass(frozen=True)
class ArtifactFilter:
    """What the board shows: every field that is set must match (`text`: case-insensitive,
    anywhere in the artifact's JSON as written)."""

    agent: str | None = None
    schema: str | None = None
    validity: str | None = None  # "valid" or "invalid"
    text: str = ""

    def matches(self, item: InspectedArtifact) -> bool:
        if self.agent is not None and item.agent != self.agent:
            return False
        if self.schema is not None and item.artifact.schema != self.schema:
            return False
        if self.validity is not None and item.valid != (self.validity == "valid"):
            return False
        needle = self.text.strip().casefold()
        return not needle or needle in item.artifact.text.casefold()

    @property
    def active(self) -> bool:
        return self != ArtifactFilter()


def filter_choices(waves: list[Wave]) -> tuple[list[str], list[str]]:
    """The agents and the schemas present, sorted: what the filters offer."""
    items = [i for w in waves for i in w.items]
    return sorted({i.agent for i in items}), sorted({i.artifact.schema for i in items})


def previous_of(waves: list[Wave], item: InspectedArtifact) -> InspectedArtifact | None:
    """The same agent's artifact in the nearest wave before this one (waves in the order they happened)."""
    names = [w.name for w in waves]
    if item.artifact.wave not in names:
        return None
    for wave in reversed(waves[: names.index(item.artifact.wave)]):
        for other in wave.items:
            if other.agent == item.agent:
                return other
    return None


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "header", "hunk", "added", "removed" or "same"
    text: str


def _comparable(item: InspectedArtifact) -> list[str]:
    """The JSON with keys sorted and two-space indents, so only what changed differs; an
    unreadable artifact as written."""
    art = item.artifact
    if art.problem:
        return art.text.splitlines()
    return json.dumps(art.data, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def artifact_diff(old: InspectedArtifact, new: InspectedArtifact) -> list[DiffLine]:
    """A unified diff of two artifacts' JSON (keys sorted), headed by their names and write times."""
    import difflib

    lines = [
        DiffLine("header", f"--- {old.key} ({stamp(old.written)} UTC, {old.status})"),
        DiffLine("header", f"+++ {new.key} ({stamp(new.written)} UTC, {new.status})"),
    ]
    body = list(difflib.unified_diff(_comparable(old), _comparable(new), lineterm="", n=3))[2:]
    if not body:
        return [*lines, DiffLine("same", "No difference: the same JSON (keys in any order).")]
    kinds = {"@": "hunk", "+": "added", "-": "removed"}
    lines.extend(DiffLine(kinds.get(text[:1], "same"), text) for text in body)
    return lines


def parse_artifact_ref(ref: str) -> tuple[str, str]:
    """`WAVE/AGENT` (the agent with or without `.json`) → (wave, agent)."""
    wave, slash, agent = ref.partition("/")
    if not slash or not wave or not agent:
        raise InputError(f"'{ref}' does not name an artifact: write WAVE/AGENT, e.g. audit/appsec-reviewer")
    return wave, agent


def diff_artifacts(waves: list[Wave], new_ref: str, old_ref: str | None = None) -> list[DiffLine]:
    """`foundry blackboard diff`: `old_ref` against `new_ref`; without `old_ref`, the same
    agent's artifact in the nearest earlier wave (as `d` on the board)."""
    new = find_artifact(waves, *parse_artifact_ref(new_ref))
    if old_ref is not None:
        return artifact_diff(find_artifact(waves, *parse_artifact_ref(old_ref)), new)
    old = previous_of(waves, new)
    if old is None:
        raise NotFoundError(
            f"no wave before '{new.artifact.wave}' holds an artifact of {new.agent}: name the other artifact too"
        )
    return artifact_diff(old, new)


def diff_text(lines: list[DiffLine]) -> str:
    return "\n".join([*(line.text for line in lines), diff_counts(lines)])


def diff_counts(lines: list[DiffLine]) -> str:
    added = sum(line.kind == "added" for line in lines)
    removed = sum(line.kind == "removed" for line in lines)
    return f"{_plural(added, 'line')} added, {removed} removed"


def contract_text(layout: Layout, contract_id: str) -> str:
    """The contract as indented JSON, for showing beside an artifact (`rule_spans` finds
    the broken rules in it)."""
    return json.dumps(load_contract(layout, contract_id), indent=2, ensure_ascii=False)


def rule_spans(text: str, item: InspectedArtifact) -> list[tuple[int, int]]:
    """Where in the contract's text (`contract_text`) each rule the artifact breaks is:
    character spans, a multi-line rule on its first line. A rule reached through a `$ref`
    is marked where its path leaves the text (the property holding the `$ref`)."""
    places = value_places(text)
    spans = []
    for violation in item.violations:
        rule = violation.rule
        while rule not in places and rule:
            rule = rule.rsplit("/", 1)[0]
        place = places.get(rule)
        if place is not None and rule:  # the whole contract is no place to point at
            spans.append((place.start, first_line_end(text, place)))
    return spans
