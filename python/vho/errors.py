"""Errors of vho. The command line prints a :class:`VhoError` as one line and exits with
status 2 (bad input); anything else is a fault of vho and keeps its traceback."""

from __future__ import annotations


class VhoError(Exception):
    """Base of every error that is the user's input, not a fault of vho."""


class ScenarioError(VhoError):
    """A scenario (or an override) that cannot be run: ``file:line: field: expected ...``."""


class SimulationError(VhoError):
    """A valid scenario that cannot be simulated (a flow with no route, ...)."""


class OutputError(VhoError):
    """An output (directory, capture file) that cannot be written."""


class EmulationError(Exception):
    """An emulation that failed while it ran (a device, a socket, a setup command): not the
    user's input, but not a fault of vho's code either; the command line prints one line and
    exits with status 1."""


class CaptureError(VhoError):
    """A packet capture that cannot be read."""


class NoFlowMatched(VhoError):
    """``vho analyze --flow``: the capture holds no conversation the selection matches."""


class OutsideCapture(VhoError):
    """``vho analyze --handover-at``: an instant after the capture's last packet."""


class SweepError(VhoError):
    """A sweep file that cannot be run."""
