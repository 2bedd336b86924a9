"""core.collector_hold: one count of holds on the cyclic collector, so that threads taking
and ending holds at once (the store's loads, the word index, a scan, the TUI's start) never
leave it off, and a collector that was off stays off."""

from __future__ import annotations

import gc
import threading

from foundry_tui.core import collector_hold
from foundry_tui.core.collector_hold import held, hold, release


def test_holds_nest_and_the_last_release_turns_it_back_on() -> None:
    assert gc.isenabled()
    hold()
    with held():
        assert not gc.isenabled()
    assert not gc.isenabled(), "the outer hold still stands"
    before = gc.get_freeze_count()
    _ = [[] for _ in range(100)]  # something alive and tracked, to be frozen
    release(freeze=True)
    assert gc.isenabled()
    assert gc.get_freeze_count() > before
    release()  # unbalanced: ignored
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with held():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_threads_holding_and_releasing_at_once_leave_it_on() -> None:
    """The race the separate "was it on?" reads allowed: a thread that saw it off (held by
    another) turned it off again after the other had turned it on."""
    start = threading.Barrier(9)

    def worker() -> None:
        start.wait()
        for _ in range(2000):
            with held():
                pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    start.wait()
    for _ in range(2000):  # the main thread's own holds, as the TUI's pause and resume
        hold()
        release(freeze=True)
    for thread in threads:
        thread.join()
    assert collector_hold._holds == 0
    assert gc.isenabled()
