"""The cyclic garbage collector held off while many long-lived objects are built.

Loading the store, building the word index, a near-duplicate scan, the TUI's start-up and
its index rows each allocate objects that live on and hold no cycles: the collector would
only re-scan them. Each takes a hold (`with held():`, or `hold()` / `release()`), and the
collector runs again when the last hold ends, if it was running when the first began. One
lock keeps the count: when each place kept its own "was it on?", a thread that read "off"
while another held it could turn it off after the other had turned it on, and leave it off.

Only the end of `foundry tui`'s start-up freezes (tui/collector.py: once a process). A hold
around a load or a reload never does: `gc.freeze` puts every object alive at that moment out
of the collector's reach for good, garbage cycles awaiting collection with them, and a TUI or
server that froze on every reload leaked a few thousand objects each time.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_holds = 0
_was_enabled = False


def hold() -> None:
    """Stop automatic collections until the matching `release`."""
    global _holds, _was_enabled
    with _lock:
        if _holds == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holds += 1


def release(*, freeze: bool = False) -> None:
    """End one hold; `freeze` first moves every object alive now out of the collector's sight
    (`gc.freeze`: they live as long as the process, and later passes skip them). For the end
    of start-up only, never a reload (see the module's doc)."""
    global _holds
    with _lock:
        if _holds == 0:  # unbalanced: nothing held
            return
        if freeze:
            gc.freeze()
        _holds -= 1
        if _holds == 0 and _was_enabled:
            gc.enable()


@contextlib.contextmanager
def held() -> Iterator[None]:
    """The collector held off for the block."""
    hold()
    try:
        yield
    finally:
        release()
