"""SIGTERM and SIGHUP (its terminal closed) end the app the way `q` does.

A Python signal handler that raises wherever the main thread is (`signals_end_the_program`
in commands/servers.py) can land inside Textual's event loop, in the middle of a redraw or
of the input thread's shutdown; the loop's clean-up then waits on tasks that never finish,
and the process outlives the signal. So while the app runs, the signals are the loop's
own: each asks the app to exit, with the exit status a shell reports for the signal, and
`run_until_ended` puts back the handlers that were there before, so the `finally` blocks
around the app (the demo's copy) still run when a signal comes after it.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from textual.app import App

ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def end_on_signals(app: App[Any]) -> None:
    """From now on (the app is mounted: its loop runs), each ending signal exits the app."""
    loop = asyncio.get_running_loop()
    for signum in ENDING_SIGNALS:
        loop.add_signal_handler(signum, app.exit, None, 128 + signum)


def run_until_ended(app: App[Any]) -> int:
    """Run the app; its exit status (0, or 128 + the signal that ended it). The loop drops
    its signal handlers when it closes (to the default, which kills): the previous ones come back."""
    previous = {signum: signal.getsignal(signum) for signum in ENDING_SIGNALS}
    try:
        app.run()
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, left as the loop left it
                signal.signal(signum, handler)
    return app.return_code or 0
