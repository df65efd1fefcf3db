"""Link schedules from the Python side (`[[schedule]]`, issue 21 point 5): a blackhole's
losses reach summary.json under their own cause and the per-cause frames, the run conserves
packets and reruns byte-identically, and a bad schedule is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

import vho
from vho.cli import main
from vho.runner import DROP_CAUSES

# A 300 KB download over WLAN whose downlink is blackholed for 0.2 s from 0.3 s: everything
# that ends its serialisation then is lost (link::change), TCP repairs it.
BLACKHOLE = """\
[run]
seed = 3

[access.wlan]
preset = "dk-wlan"

[mobile]
start = "wlan"

[[schedule]]
link = "wlan"
direction = "down"
at = "0.3 s"
until = "0.5 s"
state = "blackhole"

[[flow]]
from = "ch"
to = "mh"
size = "300 KB"
"""


def test_a_blackhole_books_link_state_drops_and_conserves_packets(tmp_path: Path) -> None:
    r = vho.run(BLACKHOLE, out_dir=tmp_path / "a")
    s = r.summary
    assert s["run"]["conservation_ok"] and r.flows[0]["completed"]
    down = next(d for d in s["links"] if d["link"] == "wlan" and d["to"] == "mh")
    up = next(d for d in s["links"] if d["link"] == "wlan" and d["to"] != "mh")
    assert down["dropped_link_state"] > 0
    # Only a direction a schedule gives a state has the column.
    assert "dropped_link_state" not in up
    dropped = sum(down[f"dropped_{c}"] for c in DROP_CAUSES if f"dropped_{c}" in down)
    assert down["offered"] + down["moved_in"] == (
        down["delivered"] + down["moved_out"] + dropped + down["still_in_network"]
    )
    assert r.flows_frame().loc[0, "drops_link_state"] == down["dropped_link_state"]
    again = vho.run(BLACKHOLE, out_dir=tmp_path / "b")
    assert r.out_dir is not None and again.out_dir is not None
    summary = "summary.json"
    assert (r.out_dir / summary).read_bytes() == (again.out_dir / summary).read_bytes()


@pytest.mark.parametrize(
    "old,new,expected",
    [
        ('link = "wlan"', 'link = "lte"', "11: schedule.link: expected a link: one of wired, wlan"),
        ('until = "0.5 s"', 'until = "0.2 s"', "14: schedule.until: expected a time after `at`"),
        (
            'state = "blackhole"',
            "loss = [0, 1.5]",
            "15: schedule.loss: expected a probability from 0 to 1, got [0, 1.5]",
        ),
    ],
)
def test_a_bad_schedule_is_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, expected: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(BLACKHOLE.replace(old, new))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{path}:{expected}"), err
