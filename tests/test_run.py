"""Whole runs through ``vho.run``: determinism, seeds, readable captures, and the ground
truth re-derived independently from the two captures (tshark as the reader)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

import vho
from vho.capture import flow_sequence, read_tcp

# A WLAN -> GPRS hard handover (half of what is queued is lost) whose instant is drawn in
# [0.3 s, 0.5 s) from the seed, under a Linux-profile download: queue overflows, handover
# flushes, timeouts and spurious retransmissions all happen.
HARD = """\
[run]
seed = 7

[wired]
preset = "lan-100m"
delay = "20 ms"

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"

[mobile]
start = "wlan"

[[handover]]
at = "0.3 s"
window = "0.2 s"
from = "wlan"
to = "gprs"
kind = "hard"
loss = 0.5

[[flow]]
from = "ch"
to = "mh"
size = "300 KB"
tcp = "linux"

[record]
pcap = ["ch", "mh"]
series = true
"""

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (.ci/run installs it)"
)


@pytest.fixture(scope="module")
def hard_run(tmp_path_factory: pytest.TempPathFactory) -> vho.RunResult:
    return vho.run(HARD, out_dir=tmp_path_factory.mktemp("hard"))


def test_same_scenario_and_seed_give_byte_identical_summary_and_captures(
    tmp_path: Path, hard_run: vho.RunResult
) -> None:
    again = vho.run(HARD, out_dir=tmp_path / "again")
    assert hard_run.out_dir is not None and again.out_dir is not None
    for name in ("summary.json", "ch.pcap", "mh.pcap"):
        a = (hard_run.out_dir / name).read_bytes()
        assert a == (again.out_dir / name).read_bytes(), name
        assert len(a) > 1000


def test_another_seed_draws_another_handover_instant(hard_run: vho.RunResult) -> None:
    at = {s: vho.run(HARD, seed=s).summary["handovers"][0]["at_s"] for s in (1, 2, 3)}
    at[7] = hard_run.summary["handovers"][0]["at_s"]
    assert len(set(at.values())) == 4, at
    # Uniform in [t, t + w) (Daniel & Kojo §5: the instant randomised within a window).
    assert all(0.3 <= v < 0.5 for v in at.values()), at
    assert hard_run.summary["run"]["seed"] == 7
    # The replications of one scenario share its hash.
    assert len({vho.run(HARD, seed=s).summary["run"]["scenario_hash"] for s in (1, 2)}) == 1


def test_the_run_conserves_packets_on_every_link(hard_run: vho.RunResult) -> None:
    s = hard_run.summary
    assert s["run"]["conservation_ok"]
    for link in s["links"]:
        dropped = (
            link["dropped_queue_overflow"]
            + link["dropped_handover_flush"]
            + link["dropped_random_loss"]
            # A hard handover loses what is in flight on the old link (issue 33 point 4).
            + link.get("dropped_in_flight", 0)
        )
        assert link["offered"] + link["moved_in"] == (
            link["delivered"] + link["moved_out"] + dropped + link["still_in_network"]
        ), link


def test_the_scenario_is_not_trivial(hard_run: vho.RunResult) -> None:
    f = hard_run.flows[0]
    causes = {d["cause"] for d in f["drops"]}
    assert {"queue_overflow", "handover_flush"} <= causes, f["drops"]
    assert f["completed"] and f["spurious_retransmissions"] > 0 and f["timeouts"] > 0


def test_series_come_back_as_dataframes(hard_run: vho.RunResult) -> None:
    tcp = hard_run.tcp["flow0"]
    assert list(tcp.columns[:1]) == ["t_s"]
    assert {"cwnd", "ssthresh", "srtt_s", "rttvar_s", "rto_s", "flight"} <= set(tcp.columns)
    assert tcp.t_s.is_monotonic_increasing
    # RFC 6298 §2.4 / Linux: the RTO never goes below the 200 ms minimum once measured.
    assert (tcp.rto_s >= 0.2).all()
    q = hard_run.queues
    assert q is not None and set(q.link) == {"wired", "wlan", "gprs"}
    assert (q.packets >= 0).all()


def _tshark_rows(path: Path) -> list[tuple[str, int, int, int, int]]:
    """(source address, IP id, raw sequence number, payload length, flags) per packet."""
    out = subprocess.run(
        [
            TSHARK or "tshark",
            "-r",
            str(path),
            "-T",
            "fields",
            "-E",
            "separator=,",
            "-e",
            "ip.src",
            "-e",
            "ip.id",
            "-e",
            "tcp.seq_raw",
            "-e",
            "tcp.len",
            "-e",
            "tcp.flags",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        src, ipid, seq, ln, flags = line.split(",")
        rows.append((src, int(ipid, 16), int(seq), int(ln), int(flags, 16)))
    return rows


@needs_tshark
def test_tshark_reads_the_captures_without_complaint(hard_run: vho.RunResult) -> None:
    assert hard_run.out_dir is not None
    for name in ("ch.pcap", "mh.pcap"):
        p = subprocess.run(
            [
                TSHARK or "tshark",
                "-r",
                str(hard_run.out_dir / name),
                "-o",
                "tcp.check_checksum:TRUE",
                "-o",
                "ip.check_checksum:TRUE",
                "-Y",
                "_ws.malformed or tcp.checksum.status == 0 or ip.checksum.status == 0",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        assert p.stdout == "", f"{name}: malformed or bad checksums:\n{p.stdout[:2000]}"
        assert "rror" not in p.stderr, p.stderr


@needs_tshark
def test_captures_rederive_the_ground_truth(hard_run: vho.RunResult) -> None:
    """Copies of each data segment are told apart by their IP id: a copy seen at the CH but
    never at the MH was dropped; a copy sent after one that reached the MH was spurious
    (the simulator's definition, record/truth.rs)."""
    assert hard_run.out_dir is not None
    ch = _tshark_rows(hard_run.out_dir / "ch.pcap")
    mh = _tshark_rows(hard_run.out_dir / "mh.pcap")
    mh_ip = ch[0][0]  # the first packet at the CH is the MH's SYN
    ch_ip = next(r[0] for r in ch if r[0] != mh_ip)
    sent = [r for r in ch if r[0] == ch_ip]  # sent by the CH, as captured at the CH
    arrived = {r[1] for r in mh if r[0] == ch_ip}  # IP ids of those that reached the MH
    data = [r for r in sent if r[3] > 0]

    copies: dict[int, list[int]] = defaultdict(list)
    highest = None
    retransmissions = 0
    # A FIN alone takes one sequence number and, resent, is a retransmission as data is.
    for _, ipid, seq, ln, _ in (r for r in sent if r[3] > 0 or r[4] & 1):
        end = seq + max(ln, 1)
        if highest is not None and seq < highest:
            retransmissions += 1
        highest = max(highest or end, end)
        copies[seq].append(ipid)
    spurious = 0
    for ids in copies.values():
        delivered = [i for i, ipid in enumerate(ids) if ipid in arrived]
        if delivered:
            spurious += len(ids) - 1 - delivered[0]
    lost_down = sum(1 for r in sent if r[1] not in arrived)
    acks_sent = [r for r in mh if r[0] == mh_ip]
    acks_arrived = {r[1] for r in ch if r[0] == mh_ip}
    lost_up = sum(1 for r in acks_sent if r[1] not in acks_arrived)

    f = hard_run.flows[0]
    links = hard_run.summary["links"]

    def missing(on_path: object) -> int:
        """Packets dropped or still in the network on the link directions selected."""
        return sum(
            link["dropped_queue_overflow"]
            + link["dropped_handover_flush"]
            + link["dropped_random_loss"]
            + link.get("dropped_in_flight", 0)  # issue 33 point 4
            + link["still_in_network"]
            for link in links
            if on_path(link)  # type: ignore[operator]
        )

    assert len(data) == f["data_packets_sent"]
    assert retransmissions == f["retransmissions"]
    assert spurious == f["spurious_retransmissions"]
    assert lost_down == missing(lambda d: d["from"] == "ch" or d["to"] == "mh")
    assert lost_down == sum(d["packets"] for d in f["drops"]) + sum(
        d["still_in_network"] for d in links if d["from"] == "ch" or d["to"] == "mh"
    )
    assert lost_up == missing(lambda d: d["from"] == "mh" or d["to"] == "ch")


def test_every_data_drop_is_logged_where_and_why_it_happened(hard_run: vho.RunResult) -> None:
    # The simulator's drop log (the time-sequence graph's drop marks, issue 18 item 7): one row
    # per data segment dropped, booked to the same link direction and cause as summary.json
    # counts it, each a segment the sender had sent (in its capture) before the drop.
    drops = hard_run.drops
    assert drops is not None and len(drops) > 0
    assert set(drops.cause) >= {"queue_overflow", "handover_flush"}
    logged = drops.groupby(["link", "from", "to", "cause"]).size().to_dict()
    (flow,) = hard_run.flows
    booked = {(d["link"], d["from"], d["to"], d["cause"]): d["packets"] for d in flow["drops"]}
    # Data goes ch -> mh: every drop on the way is a data segment (or the FIN).
    towards_mh = {k: n for k, n in booked.items() if k[2] in ("mh", "ha", "r")}
    assert {k: logged.get(k, 0) for k in towards_mh} == towards_mh
    assert drops.t_s.is_monotonic_increasing
    assert hard_run.out_dir is not None
    ch = read_tcp(hard_run.out_dir / "ch.pcap")
    sender = ch.groupby(["src", "sport"])["len"].sum().idxmax()
    data, _, _ = flow_sequence(ch, sender)
    first_sent = data.groupby("seq").t_s.min()
    # The FIN (no payload) is not in `data`: a dropped FIN is the one after the last byte.
    fin_seq = int((data.seq + data.len).max())
    for row in drops.itertuples():
        if row.len == 0:
            assert row.seq == fin_seq
            continue
        assert first_sent[row.seq] <= row.t_s
    back = pd.read_parquet(hard_run.out_dir / "series_drops.parquet")
    pd.testing.assert_frame_equal(back, drops)


def test_the_output_directory_is_complete_and_json_is_valid(hard_run: vho.RunResult) -> None:
    assert hard_run.out_dir is not None
    names = sorted(p.name for p in hard_run.out_dir.iterdir())
    assert names == [
        ".vho-output",
        "ch.pcap",
        "mh.pcap",
        "scenario.resolved.toml",
        "series_drops.parquet",
        "series_queues.parquet",
        "series_tcp.parquet",
        "summary.json",
        "timing.json",
    ]
    summary = json.loads((hard_run.out_dir / "summary.json").read_text())
    assert summary == hard_run.summary
    assert "wall_s" in json.loads((hard_run.out_dir / "timing.json").read_text())


def test_the_resolved_scenario_is_written_and_runs_the_same(tmp_path: Path) -> None:
    # Issue 18: every run writes the scenario with every default filled in; `--dry-run`
    # prints it; running that file gives the same run.
    src = Path(__file__).resolve().parent.parent / "scenarios/examples/dk-fig1-wlan-gprs.toml"
    r = vho.run(src, out_dir=tmp_path / "a", overrides=['flow.0.tcp.profile="linux"'])
    written = (tmp_path / "a" / "scenario.resolved.toml").read_text(encoding="utf-8")
    assert 'timeout_ssthresh = "linux"' in written and "[[node]]" in written
    assert written == vho.resolved(src, overrides=['flow.0.tcp.profile="linux"'])
    again = vho.run(tmp_path / "a" / "scenario.resolved.toml")
    for key in ("simulated_s", "events", "ended_by"):
        assert again.summary["run"][key] == r.summary["run"][key]
    assert again.summary["flows"] == r.summary["flows"]


def test_flows_frame_is_one_row_per_flow_with_drops_per_cause(fig1: Path) -> None:
    r = vho.run(fig1)
    df = r.flows_frame()
    assert list(df["name"]) == ["flow0"]
    f = r.flows[0]
    for k in ("bytes", "transfer_time_s", "retransmissions", "spurious_timeouts"):
        assert df.loc[0, k] == f[k]
    # Fig. 1 drops 7 packets, all in the GPRS queue (README's table).
    assert df.loc[0, "drops"] == 7 and df.loc[0, "drops_queue_overflow"] == 7
    assert df.loc[0, "drops_handover_flush"] == 0 and df.loc[0, "drops_random_loss"] == 0
    assert df["adaptation_time_s"].dtype == float  # null in the summary: NaN, not an object
    two = fig1.read_text() + '\n[[flow]]\nname = "b"\nfrom = "ch"\nto = "mh"\nsize = "100 KB"\n'
    assert list(vho.run(two).flows_frame()["name"]) == ["flow0", "b"]


def test_a_run_result_prints_as_one_short_line(fig1: Path, tmp_path: Path) -> None:
    r = vho.run(fig1, out_dir=tmp_path / "out")
    text = repr(r)
    assert text == (
        "RunResult('Daniel & Kojo Fig. 1: WLAN -> GPRS at 0.6 s, 200 KB'; seed 1; simulated "
        "4.414 s, ended by completed; 1 flow (1 complete); 1 handover; series: tcp, queues, "
        f"throughput, drops; in {tmp_path / 'out'})"
    )
