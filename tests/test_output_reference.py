"""The output reference (`docs/output-reference.md`, issue 37 item 5) is held to the code: every
key `vho run` writes in `summary.json` for the bundled examples is documented, and the document
is what `python3 -m vho.outputs` prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import vho
from vho import outputs

ROOT = Path(__file__).resolve().parent.parent


def _paths(d: Any, pre: str, into: set[str]) -> None:
    if isinstance(d, dict):
        for k, v in d.items():
            _paths(v, f"{pre}.{k}" if pre else k, into)
    elif isinstance(d, list):
        for x in d:
            _paths(x, pre + "[]", into)
    else:
        into.add(pre)


def test_every_key_of_the_examples_summaries_is_documented() -> None:
    seen: set[str] = set()
    for scenario in sorted((ROOT / "scenarios" / "examples").glob("*.toml")):
        r = vho.run(scenario, overrides=['run.stop="20 s"'])
        _paths(r.summary, "", seen)
    # A probe's detections are documented as one entry (their fields listed in it).
    seen = {p for p in seen if not p.startswith("flows[].probe.detections[].")}
    missing = sorted(p for p in seen if not outputs.documented(p))
    assert not missing, missing
    assert len(seen) > 100


def test_the_reference_document_is_what_vho_outputs_prints() -> None:
    doc = (ROOT / "docs" / "output-reference.md").read_text()
    assert doc == outputs.markdown(), (
        "regenerate: python3 -m vho.outputs > docs/output-reference.md"
    )


def test_an_undocumented_key_is_caught() -> None:
    assert outputs.documented("flows[].retransmissions")
    assert outputs.documented("node_functions[].counters.advertisements")
    assert not outputs.documented("flows[].no_such_key")
    assert not outputs.documented("node_functions[].counters.no_such_counter")
