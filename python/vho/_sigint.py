"""Ctrl-C while the ``vho`` command loads: imported first by the package, so that an interrupt
before :func:`vho.cli.main` runs (nothing is written yet) ends the command with one line and
status 130, not a KeyboardInterrupt traceback from an import. Only in the command (its console
script, or ``python -m vho.cli``), never in a program that imports vho; ``main`` puts Python's
own handler back as it starts (it then cleans up on Ctrl-C)."""

from __future__ import annotations

import itertools
import os
import signal
import sys


def the_command() -> bool:
    """Whether this process is the ``vho`` command."""
    if sys.argv and os.path.basename(sys.argv[0]) == "vho":
        return True
    return any(a == "-m" and b == "vho.cli" for a, b in itertools.pairwise(sys.orig_argv))


def interrupted_while_loading(signum: int, frame: object) -> None:
    os.write(2, b"vho: interrupted\n")
    os._exit(128 + signum)


def restore() -> None:
    """Python's own SIGINT handler again, if this module's is in place (``vho.cli.main``)."""
    if signal.getsignal(signal.SIGINT) is interrupted_while_loading:
        signal.signal(signal.SIGINT, signal.default_int_handler)


if the_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, interrupted_while_loading)
