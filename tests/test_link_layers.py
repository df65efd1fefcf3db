"""Link layers from the Python side (`link_layer`, issue 22 point 3): a run over Naoe et al.'s
3G bearer and 802.11b link (the presets umts-384-rlc and wlan-11b-1m) reports the link layer's
discards under their own cause in summary.json, conserves packets and reruns byte-identically;
the example scenario runs; a bad link layer is one line from the CLI with exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

import vho
from vho.cli import main
from vho.runner import DROP_CAUSES

ROOT = Path(__file__).resolve().parent.parent

# A download over the 3G bearer at a high BLER (residual SDU loss 1 - (1 - 0.3^5)^38 = 8.8 %,
# link::rlc_am) with the WLAN beside it at BER 1e-4 (the mobile's acknowledgements would cross
# neither: both links are access links, the mobile starts on umts).
BOTH = """\
[run]
seed = 5
stop = "20 s"

[access.umts]
preset = "umts-384-rlc"
bler = 0.3

[access.wlan]
preset = "wlan-11b-1m"
ber = 1e-4

[mobile]
start = "umts"

[[flow]]
from = "ch"
to = "mh"
size = "5 MB"
"""


def test_a_run_over_both_presets_reports_link_layer_discards(tmp_path: Path) -> None:
    assert "link_layer_discard" in DROP_CAUSES
    r = vho.run(BOTH, out_dir=tmp_path / "a")
    s = r.summary
    assert s["run"]["conservation_ok"]
    down = next(d for d in s["links"] if d["link"] == "umts" and d["to"] == "mh")
    assert down["dropped_link_layer_discard"] > 0
    assert down["link_layer"]["kind"] == "rlc-am"
    assert down["link_layer"]["discarded"] == down["dropped_link_layer_discard"]
    wlan = [d for d in s["links"] if d["link"] == "wlan"]
    assert all(d["link_layer"]["kind"] == "dcf" for d in wlan)
    # A direction without a link layer has no such column (as dropped_early_drop).
    wired = next(d for d in s["links"] if d["link"] == "wired")
    assert "dropped_link_layer_discard" not in wired
    dropped = sum(down[f"dropped_{c}"] for c in DROP_CAUSES if f"dropped_{c}" in down)
    assert down["offered"] + down["moved_in"] == (
        down["delivered"] + down["moved_out"] + dropped + down["still_in_network"]
    )
    frame = r.flows_frame()
    assert frame.loc[0, "drops_link_layer_discard"] >= down["dropped_link_layer_discard"]
    again = vho.run(BOTH, out_dir=tmp_path / "b")
    assert r.out_dir is not None and again.out_dir is not None
    summary = "summary.json"
    assert (r.out_dir / summary).read_bytes() == (again.out_dir / summary).read_bytes()


def test_the_naoe_links_example_runs(tmp_path: Path) -> None:
    r = vho.run((ROOT / "scenarios/examples/naoe-links.toml").read_text(), out_dir=tmp_path)
    s = r.summary
    assert s["run"]["conservation_ok"]
    down = next(d for d in s["links"] if d["link"] == "umts" and d["to"] == "mh")
    # The ramp reaches BLER 0.3: the bearer retransmits.
    assert down["link_layer"]["retransmissions"] > 0
    assert r.flows[0]["bytes_delivered"] > 0


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "bler = 0.3",
            'link_layer = "hspa"',
            '7: access.umts.link_layer: expected one of plain, rlc-am, dcf, got "hspa"',
        ),
        ("ber = 1e-4", "ber = 1.0", "11: access.wlan.ber: expected a bit error rate in [0, 1)"),
        (
            "ber = 1e-4",
            "bler = 0.1",
            '11: access.wlan.bler: expected link_layer = "rlc-am" beside it',
        ),
    ],
)
def test_a_bad_link_layer_is_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, expected: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(BOTH.replace(old, new))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{path}:{expected}"), err
