"""The one worker path. Every worker runs with `exit_on_error=False`, is named for what
did not happen if it fails ("Not written"), and returns its result as a Message. When
it ends, the node that started it passes the state change here: a success delivers the
message (a cancelled, superseded worker delivers nothing), a failure becomes one
notification of one line, and the app stays up."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from foundry_tui.core.errors import FoundryError


def failure_line(worker: Worker[object]) -> str:
    """`<what did not happen>: <why>`, on one line."""
    error = worker.error
    # Anything but a refusal of the core or a disk error is a bug: name it, so it can be reported.
    expected = isinstance(error, FoundryError | OSError)
    reason = str(error) if expected else f"{type(error).__name__}: {error}"
    lines = reason.strip().splitlines() or [type(error).__name__]
    return f"{worker.name}: {lines[0]}"


def worker_state_changed(node: Widget | App[Any], event: Worker.StateChanged) -> None:
    """Deliver a finished worker's result message to `node`, or report its failure."""
    worker = event.worker
    if event.state is WorkerState.SUCCESS and isinstance(worker.result, Message):
        node.post_message(worker.result)
    elif event.state is WorkerState.ERROR:
        node.notify(failure_line(worker), severity="error", timeout=8)
