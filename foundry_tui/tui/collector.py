"""The cyclic garbage collector, paused while `foundry tui` starts.

Importing Textual and building the first screen allocates hundreds of thousands of objects
that live as long as the app, and the collector scans them again and again meanwhile (about
3% of the instructions before the first frame at 10,000 facts; more of the time, as its
scans miss the caches). `foundry tui` pauses it before it imports Textual; the app resumes
it once the first screen is drawn, after moving everything alive then out of its sight
(`gc.freeze`: later collections skip those objects). That is the only freeze: a load or a
reload never freezes (core/collector_hold.py says why). Only `cmd_tui` pauses it: an app made
in a test or by another program keeps the collector as it found it. The pause is one hold
of `core.collector_hold`, which the store's loads and the index rows take too, so that
threads holding and releasing it at once never leave it off.

This module imports no Textual: it runs before Textual is imported.
"""

from __future__ import annotations

from foundry_tui.core import collector_hold

_paused = False


def pause() -> None:
    """Hold automatic collections off until `resume` (once; later calls do nothing)."""
    global _paused
    if not _paused:
        _paused = True
        collector_hold.hold()


def resume() -> None:
    """End the pause, freezing what is alive now (once; later calls do nothing)."""
    global _paused
    if _paused:
        _paused = False
        collector_hold.release(freeze=True)


def paused() -> bool:
    return _paused
