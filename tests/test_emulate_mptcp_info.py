"""`vho emulate --multipath` writes each subflow as the kernel reports it (issue 39 item 3):
`series_mptcp.parquet` with `vho run`'s exact columns and types, and `flows[].mptcp` with the
simulator's keys the kernel gives, from `getsockopt(SOL_MPTCP, MPTCP_FULL_INFO)` at the data
sender (`vho-emu`'s `mptcp_info`). Needs root and `ip` (iproute2); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from key_paths import add_paths
from mptcp_scenarios import HARD

from vho import _native, outputs

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="needs root and ip (iproute2)",
)


def _vho(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vho.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The WLAN -> GPRS hard handover of a 300 KB download (tests/mptcp_scenarios.py) through
    the kernel and, as a `kind = "mptcp"` flow, through the model."""
    tmp = tmp_path_factory.mktemp("mptcp_info")
    scenario = tmp / "h.toml"
    scenario.write_text(HARD)
    before = {n for n, alive in _native.emulate_namespaces() if not alive}
    emu, sim = tmp / "emu", tmp / "sim"
    r = _vho("emulate", str(scenario), "--out", str(emu), "--multipath")
    left = {n for n, alive in _native.emulate_namespaces() if not alive} - before
    assert not left, f"namespaces left behind: {left}"
    assert r.returncode == 0, r.stderr
    (tmp / "emu.stdout").write_text(r.stdout)
    r = _vho(
        "run", str(scenario), "--out", str(sim),
        "--set", 'flow.0.kind="mptcp"', "--set", "record.series=true",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return emu, sim


def test_the_series_has_the_simulators_columns_and_types(runs: tuple[Path, Path]) -> None:
    emu, sim = runs
    a = pq.read_schema(emu / "series_mptcp.parquet")
    b = pq.read_schema(sim / "series_mptcp.parquet")
    assert a.names == b.names
    assert a.equals(b), f"{a}\n!=\n{b}"


def test_subflow_ids_are_stable_distinct_and_the_simulators(runs: tuple[Path, Path]) -> None:
    emu, sim = runs
    t = pq.read_table(emu / "series_mptcp.parquet").to_pandas()
    # One interface per id and one id per interface: the initial subflow over the WLAN, the
    # join over GPRS (ip mptcp endpoint ... subflow), numbered by creation as in the model.
    assert t.groupby("subflow")["interface"].nunique().max() == 1
    assert t.groupby("interface")["subflow"].nunique().max() == 1
    ids = dict(t.groupby("subflow")["interface"].first())
    assert ids == {0: "wlan", 1: "gprs"}
    e = json.loads((emu / "summary.json").read_text())["flows"][0]["mptcp"]
    s = json.loads((sim / "summary.json").read_text())["flows"][0]["mptcp"]
    assert [(x["id"], x["interface"]) for x in e["subflows"]] == [
        (x["id"], x["interface"]) for x in s["subflows"]
    ]
    assert e["subflows_created"] == len(e["subflows"]) == 2
    # The kernel's own ids (subflow_id, from 1 per connection) follow creation too.
    kernel = [x["kernel_id"] for x in e["subflows"]]
    assert kernel == sorted(kernel) and len(set(kernel)) == 2 and min(kernel) >= 1


def test_byte_counts_never_go_back_and_the_summary_holds_the_last(
    runs: tuple[Path, Path],
) -> None:
    emu, _ = runs
    t = pq.read_table(emu / "series_mptcp.parquet").to_pandas()
    summary = json.loads((emu / "summary.json").read_text())
    flow = summary["flows"][0]
    assert flow["completed"]
    for sid, g in t.groupby("subflow"):
        # tcpi_bytes_acked and tcpi_bytes_sent only grow (tcp_snd_una_update,
        # tcp_event_data_sent).
        assert g["bytes_acked"].is_monotonic_increasing
        assert g["bytes_sent"].is_monotonic_increasing
        assert (g["bytes_acked"] <= g["bytes_sent"]).all()
        (life,) = [x for x in flow["mptcp"]["subflows"] if x["id"] == sid]
        last = g.iloc[-1]
        assert (life["bytes_sent"], life["bytes_acked"]) == (last.bytes_sent, last.bytes_acked)
        # An open=false row comes once, the last of its subflow (a closed subflow never
        # comes back: its id is not reused).
        assert (~g["open"]).sum() <= 1
        assert g["open"].iloc[:-1].all()
        assert (life["closed_s"] is None) == bool(last.open)


def test_every_data_byte_came_over_some_subflow_and_the_rest_is_duplicates(
    runs: tuple[Path, Path],
) -> None:
    # The receiver's subflows' tcpi_bytes_received (at its DATA_FIN) cover the transfer: each
    # data byte arrived over some subflow; beyond it, copies got twice (reinjections), which
    # the summary counts as duplicate_bytes, as the model's.
    emu, _ = runs
    flow = json.loads((emu / "summary.json").read_text())["flows"][0]
    m = flow["mptcp"]
    received = [x["bytes_received"] for x in m["subflows"]]
    assert None not in received
    assert sum(received) >= flow["bytes"]
    assert m["duplicate_bytes"] == sum(received) - flow["bytes"]
    # A subflow's ACK covers only what its receiver got (the receiver acknowledges rcv_nxt),
    # and one more: the sequence number a SYN or FIN takes, which tcpi_bytes_acked counts once
    # acknowledged (tcp_snd_una_update; an upload's subflows, opened by the sender, showed
    # received + 1).
    for x in m["subflows"]:
        assert x["bytes_acked"] <= x["bytes_received"] + 1, x
    # The data level acknowledged everything before the sender shut its side (bulk.rs,
    # SIOCOUTQ), and a DATA_ACK rides on a subflow's ACK: bytes no subflow acknowledged were
    # delivered over the lost WLAN, whose ACKs died with it, so the shortfall is at most what
    # the WLAN subflow sent and never saw acknowledged.
    acked = sum(x["bytes_acked"] for x in m["subflows"])
    (wlan,) = [x for x in m["subflows"] if x["interface"] == "wlan"]
    assert flow["bytes"] - (wlan["bytes_sent"] - wlan["bytes_acked"]) <= acked
    assert m["bytes_retrans"] is not None


def test_the_handover_has_a_time_to_resume_and_no_failback(runs: tuple[Path, Path]) -> None:
    # The model's definitions (agent/mptcp/summary.rs) on the receiver's readings: in-order
    # data moved on again over GPRS after the WLAN was lost; the WLAN never came back.
    emu, sim = runs
    e = json.loads((emu / "summary.json").read_text())["flows"][0]["mptcp"]["handovers"]
    s = json.loads((sim / "summary.json").read_text())["flows"][0]["mptcp"]["handovers"]
    assert [(h["at_s"], h["lost"], h["taken"]) for h in e] == [
        (h["at_s"], h["lost"], h["taken"]) for h in s
    ]
    (h,) = e
    assert h["resume_s"] is not None and h["resume_s"] > 0
    assert h["failback_s"] is None


def test_the_wlan_subflow_stays_listed_after_the_hard_handover(runs: tuple[Path, Path]) -> None:
    # What the kernel does: the emulator leaves the WLAN's endpoint in place, so the path
    # manager removes nothing; the subflow only loses its path, backs off its RTO and is
    # found stale (after net.mptcp.stale_loss_cnt RTOs), still in msk->conn_list to the end.
    # Its rows stay open; once the GPRS join is up its sent bytes still grow (RTO
    # retransmissions into the dead link) while its acknowledged ones have stopped.
    emu, _ = runs
    t = pq.read_table(emu / "series_mptcp.parquet").to_pandas()
    mptcp = json.loads((emu / "summary.json").read_text())["flows"][0]["mptcp"]
    (gprs,) = [x for x in mptcp["subflows"] if x["interface"] == "gprs"]
    w = t[t["interface"] == "wlan"]
    assert w["open"].all()
    after = w[w["t_s"] >= gprs["opened_s"]]
    assert after["bytes_sent"].iloc[-1] > after["bytes_sent"].iloc[0]
    assert after["bytes_acked"].nunique() == 1


def test_every_mptcp_key_the_emulator_writes_is_documented(runs: tuple[Path, Path]) -> None:
    emu, _ = runs
    seen: set[str] = set()
    add_paths(json.loads((emu / "summary.json").read_text())["flows"][0]["mptcp"], "", seen)
    missing = sorted(p for p in seen if not outputs.documented(f"flows[].mptcp.{p}"))
    assert not missing, missing


def test_vho_emulate_prints_each_subflow(runs: tuple[Path, Path]) -> None:
    emu, _ = runs
    out = (emu.parent / "emu.stdout").read_text()
    assert "subflow 0 over wlan" in out and "subflow 1 over gprs" in out, out
    assert "wlan lost at 0.300 s: resumed in" in out, out
