"""The cyclic garbage collector, paused while `foundry tui` starts.

Importing Textual and building the first screen allocates hundreds of thousands of objects
that live as long as the app, and the collector scans them again and again meanwhile (about
3% of the instructions before the first frame at 10,000 facts; more of the time, as its
scans miss the caches). `foundry tui` pauses it before it imports Textual; the app resumes
it once the first screen is drawn, after moving everything alive then out of its sight
(`gc.freeze`: later collections skip those objects). Only `cmd_tui` pauses it: an app made
in a test or by another program keeps the collector as it found it.

This module imports no Textual: it runs before Textual is imported.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop automatic collections until `resume` (nothing to do if they are off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Start them again if `pause` stopped them (once; later calls do nothing)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def paused() -> bool:
    return _paused
