"""The Rust core (PyO3). Private: use :mod:`vho`."""

from collections.abc import Iterator
from typing import Any

__version__: str

def presets() -> list[dict[str, Any]]: ...
def check_scenario(label: str, text: str, overrides: list[str]) -> str: ...
def run_scenario(
    label: str,
    text: str,
    overrides: list[str],
    seed: int | None = None,
    pcap_dir: str | None = None,
) -> dict[str, Any]: ...
def read_tcp(path: str, flow: tuple[str, int, str, int] | None = None) -> dict[str, Any]: ...

class FlowStream:
    def __iter__(self) -> Iterator[str]: ...
    def __next__(self) -> str: ...
    def summary(self) -> str: ...

def analyze_flows(
    path: str,
    handover_at_s: float | None = None,
    capture_point: str | None = None,
    ta_mean: str | None = None,
) -> FlowStream: ...
