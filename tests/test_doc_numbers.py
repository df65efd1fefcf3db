"""Every number the README quotes between ``<!--n:NAME-->`` marks is what the code computes now
(`scripts/doc_numbers.py`): a behaviour change that moves one fails here until the README is
rewritten with ``python3 scripts/doc_numbers.py --write README.md``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _doc_numbers():
    spec = importlib.util.spec_from_file_location(
        "doc_numbers", ROOT / "scripts" / "doc_numbers.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_readmes_numbers_are_the_codes() -> None:
    d = _doc_numbers()
    text = (ROOT / "README.md").read_text()
    assert d.MARK.search(text), "the README quotes no computed number"
    assert d.stale(text) == []


def test_a_changed_number_is_caught() -> None:
    d = _doc_numbers()
    text = "T_n <!--n:cottingham.t_n-->0.001<!--/n--> s"
    ((name, written, computed),) = d.stale(text)
    assert (name, written) == ("cottingham.t_n", "0.001") and computed != written
