"""The blackboard: validated artifacts that agents hand each other within a run,
at `.foundry/blackboard/<wave>/<agent>.json`. Not memory: it never enters context wholesale."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from foundry_tui.core.artefacts.contracts import load_contract, violations
from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.errors import InputError
from foundry_tui.core.names import sanitise
from foundry_tui.core.paths import Layout
from foundry_tui.core.secrets import find_secret, refuse_secrets
from foundry_tui.core.tokens import estimate_tokens

if TYPE_CHECKING:
    from foundry_tui.core.json_types import JSONValue

SUMMARY_LIMIT = 400
FIREWALL = "Return to your caller ONLY this path and a summary of at most 300 tokens."


@dataclass
class WriteOutcome:
    written: bool
    text: str
    path: Path | None = None


def blackboard_write(layout: Layout, wave: str, agent: str, schema: str, data: object) -> WriteOutcome:
    """Validate and write one artifact; on failure nothing is written.

    `producedBy` is the agent name as given, so a different name that sanitises to the
    same file (`a/b`, `a b`) is refused instead of overwriting that agent's artifact."""
    for what, name in (("wave", wave), ("agent", agent)):
        found = find_secret(name) if isinstance(name, str) else None
        if found:  # checked before anything echoes the name
            raise InputError(
                f"refused: the {what} name looks like {found[0]}; names become committed file names and producedBy, "
                "so use a role or step name such as 'reviewer'"
            )
    if isinstance(agent, str) and any(ord(c) < 32 or ord(c) == 127 for c in agent):
        raise InputError("the agent name contains a control character (a newline, a tab …): use a plain name")
    from foundry_tui.core.reserved import refuse_reserved_wave

    refuse_reserved_wave(wave, layout)  # only the trust policy parks proposals there (by name or through a link)
    wave_name = sanitise(wave, "wave")
    agent_name = sanitise(agent, "agent")
    if not isinstance(data, dict):
        raise InputError("data must be a JSON object (the artifact)")
    refuse_secrets({"data": data})
    path = layout.blackboard_dir / wave_name / f"{agent_name}.json"
    from foundry_tui.core.reserved import refuse_reserved_path

    refuse_reserved_path(layout, path, layout.relative(path))  # the wave folder checked at once: no race to win
    _check_wave_owner(layout, wave, wave_name)
    owner = _producer_of(layout, path)
    if owner is not None and owner != agent:
        raise InputError(
            f"agent '{agent}' would be written to {layout.relative(path)}, which holds the artifact of agent "
            f"'{owner}': use a name that differs in letters, digits, '.', '_' or '-'"
        )
    artifact = {**data, "schema": schema, "producedBy": agent}
    problems = violations(load_contract(layout, schema), artifact, schema)
    if problems:
        text = "\n".join(
            [f"Rejected: artifact does not satisfy {schema}.", *(f"- {p}" for p in problems), "Fix and call again."]
        )
        return WriteOutcome(False, text)
    body = json.dumps(artifact, indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, body, inside=layout)
    if wave != wave_name:  # remember the name as given, so another that sanitises here is refused
        atomic_write(path.parent / WAVE_NAME_FILE, wave + "\n", inside=layout)
    size = len(body.encode("utf-8"))
    rel = layout.relative(path)
    return WriteOutcome(True, f"Wrote {rel} ({size} bytes, ~{estimate_tokens(body)} tokens).\n{FIREWALL}", path)


WAVE_NAME_FILE = ".wave-name"  # hidden: never listed as an artifact
RESERVED_LINK = "a link into a reserved folder (memory proposals or user preferences): not read"


def _check_wave_owner(layout: Layout, wave: str, wave_name: str) -> None:
    """Refuse a wave name that sanitises onto a folder another wave name made. A folder made
    by a plain name (one sanitising leaves as is) has no `.wave-name`; one made by any other
    name records it there."""
    folder = layout.blackboard_dir / wave_name
    try:
        owner: str | None = layout.read_text(folder / WAVE_NAME_FILE).rstrip("\n")
    except (OSError, UnicodeDecodeError):
        owner = wave_name if folder.is_dir() else None
    if owner is not None and owner != wave:
        raise InputError(
            f"wave '{wave}' would be written to {layout.relative(folder)}/, which holds wave '{owner}': "
            "use a name that differs in letters, digits, '.', '_' or '-'"
        )


def _producer_of(layout: Layout, path: Path) -> str | None:
    """The `producedBy` of the artifact at `path`, or None (no file, or none to be read)."""
    try:
        data = json.loads(layout.read_text(path))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    producer = data.get("producedBy") if isinstance(data, dict) else None
    return producer if isinstance(producer, str) else None


@dataclass
class Artifact:
    """One artifact as blackboard_read and the TUI see it."""

    wave: str
    name: str
    path: Path
    text: str
    data: JSONValue  # as json.loads read it (None when it could not be read)
    problem: str | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    @property
    def schema(self) -> str:
        return str(self.data.get("schema", "?")) if isinstance(self.data, dict) else "?"

    @property
    def producer(self) -> str:
        return str(self.data.get("producedBy", "?")) if isinstance(self.data, dict) else "?"

    def summary(self) -> str:
        """summary, else title, else goal, cut at 400 characters; `(no summary field)` when none."""
        found = self.summary_field()
        return "(no summary field)" if found is None else found

    def summary_field(self) -> str | None:
        """summary, else title, else goal, on one line and cut at 400 characters; None when none."""
        if isinstance(self.data, dict):
            for key in ("summary", "title", "goal"):
                value = self.data.get(key)
                if value not in (None, ""):
                    return " ".join(str(value).split())[:SUMMARY_LIMIT]
        return None

    def header(self) -> str:
        if self.problem:
            return f"- **{self.name}** · unreadable: {self.problem}"
        return f"- **{self.name}** · schema {self.schema} · by {self.producer} · ~{self.tokens} tokens"


def list_waves(layout: Layout) -> list[str]:
    """The waves a general reader sees: the reserved proposals wave is not one of them."""
    from foundry_tui.core.reserved import is_reserved_wave

    folder = layout.blackboard_dir
    if not folder.is_dir() or not layout.is_inside(folder):
        return []
    return sorted(
        p.name
        for p in folder.iterdir()
        if p.is_dir() and not p.name.startswith(".") and layout.is_inside(p) and not is_reserved_wave(p.name, layout)
    )


def read_artifacts(layout: Layout, wave: str, agent: str | None = None) -> list[Artifact]:
    from foundry_tui.core.reserved import refuse_reserved_wave

    refuse_reserved_wave(wave, layout)
    wave_name = sanitise(wave, "wave")
    folder = layout.blackboard_dir / wave_name
    if not folder.is_dir():
        return []
    layout.check_inside(folder)
    names = [f"{sanitise(agent, 'agent')}.json"] if agent is not None else artifact_names(folder)
    artifacts = []
    for name in names:
        art = read_artifact(layout, folder, wave_name, name)
        if art is not None:
            artifacts.append(art)
    return artifacts


def artifact_names(folder: Path) -> list[str]:
    """The artifact files of a wave's folder, sorted (hidden files are not artifacts)."""
    return sorted(p.name for p in folder.glob("*.json") if not p.name.startswith("."))


def read_artifact(layout: Layout, folder: Path, wave_name: str, name: str) -> Artifact | None:
    """One artifact file; None when it is gone, and one that cannot be used says why."""
    if name.startswith("."):
        return None
    path = folder / name
    from foundry_tui.core.reserved import is_reserved_path

    if is_reserved_path(layout, path):  # an artifact file linked to a proposal
        return Artifact(wave_name, name, path, "", None, RESERVED_LINK)
    try:
        text = layout.read_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return Artifact(wave_name, name, path, "", None, f"cannot be read ({exc})")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Artifact(wave_name, name, path, text, None, f"not valid JSON (line {exc.lineno}: {exc.msg})")
    except (ValueError, RecursionError) as exc:  # a file from the repository may be hostile
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"
        return Artifact(wave_name, name, path, text, None, f"not valid JSON ({reason})")
    return Artifact(wave_name, name, path, text, data)


def blackboard_read(layout: Layout, wave: str, agent: str | None = None, full: bool = False) -> str:
    """The blackboard_read reply: summary lines by default, verbatim JSON blocks with `full`."""
    return render_read(read_artifacts(layout, wave, agent), wave, agent, full)


def render_read(artifacts: list[Artifact], wave: str, agent: str | None = None, full: bool = False) -> str:
    """The blackboard_read reply for `artifacts`, read from `wave` (and `agent`, if given)."""
    if not artifacts:
        who = f" from agent '{agent}'" if agent is not None else ""
        return f"No artifacts in wave '{sanitise(wave, 'wave')}'{who}."
    parts = []
    for art in artifacts:
        if full and not art.problem:
            parts.append(f"{art.header()}\n```json\n{art.text.rstrip()}\n```")
        elif art.problem:
            parts.append(art.header())
        else:
            parts.append(f"{art.header()}\n  {art.summary()}")
    return ("\n\n" if full else "\n").join(parts)


def blackboard_tokens(layout: Layout) -> int:
    total = 0
    for wave in list_waves(layout):
        for art in read_artifacts(layout, wave):
            total += art.tokens
    return total
