"""The one worker path. Every worker runs with `exit_on_error=False` and is named for
what did not happen if it fails ("Not written"). At its end, the thread posts the
message carrying its result straight to its node (`post_message` is thread-safe: one
trip through the node's queue, no call_from_thread) unless it was cancelled, being
superseded by a newer one, and returns the message too (`await worker.wait()`). A
failure reaches the node as Worker.StateChanged and becomes one notification of one
line here; the app stays up."""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker

from foundry_tui.core.errors import FoundryError
from foundry_tui.tui.common.text import shown

MessageType = TypeVar("MessageType", bound=Message)


def deliver(node: Widget | App[Any], message: MessageType) -> MessageType:
    """From a worker's thread: post its result to `node`, unless the worker was cancelled."""
    if not get_current_worker().is_cancelled:
        node.post_message(message)
    return message


def failure_line(worker: Worker[object]) -> str:
    """`<what did not happen>: <why>`, on one line."""
    error = worker.error
    # Anything but a refusal of the core or a disk error is a bug: name it, so it can be reported.
    expected = isinstance(error, FoundryError | OSError)
    reason = str(error) if expected else f"{type(error).__name__}: {error}"
    lines = reason.strip().splitlines() or [type(error).__name__]
    return f"{worker.name}: {shown(lines[0])}"


def worker_state_changed(node: Widget | App[Any], event: Worker.StateChanged) -> None:
    """Report a failed worker of `node` as one error notification."""
    if event.state is WorkerState.ERROR:
        # An error may quote what the user wrote (a tag `[/]`): never markup.
        node.notify(failure_line(event.worker), severity="error", timeout=8, markup=False)
