"""vho compare's Multipath TCP contenders (issue 39 item 5): ``mptcp`` and ``mptcp-backup`` turn
the scenario's TCP flow into an MPTCP connection (RFC 8684) over the mobile's interfaces, the
same bytes, direction and handover; a scenario that cannot host one is skipped with its reason
(not an error); the TCP sender's counts are not reported as zeros; reruns are byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from vho import compare, sweep
from vho.cli import main
from vho.compare import stats
from vho.compare.variants import MPTCP, MPTCP_BACKUP, Interfaces, backup_endpoints, parse
from vho.errors import VhoError

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"  # WLAN -> GPRS
FIG2 = ROOT / "scenarios" / "examples" / "dk-fig2-gprs-wlan.toml"  # GPRS -> WLAN
MIPV6 = ROOT / "scenarios" / "examples" / "cottingham-wlan-gprs.toml"  # [mipv6]

ONE_LINK = """
[run]
seed = 1
stop = "60 s"
[wired]
preset = "lan-100m"
[access.wlan]
preset = "dk-wlan"
[mobile]
start = "wlan"
[[flow]]
from = "ch"
to = "mh"
size = "100 KB"
"""

# Fig. 1 with its handover while the transfer runs (0.3 s: 200 KB over WLAN take 0.66 s).
ARGS = [
    "compare",
    "--scenario", str(FIG1),
    "--scenario", str(FIG2),
    "--variant", "mptcp",
    "--variant", "mptcp-backup",
    "--replications", "2",
    "--set", 'handover.0.at="0.3 s"',
    "--set", 'handover.0.window="0.2 s"',
    "--quiet",
]  # fmt: skip


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("mptcp") / "out"
    assert main([*ARGS, "--out", str(d)]) == 0
    return d


def _runs(d: Path) -> pd.DataFrame:
    return pd.concat([sweep.results(r) for r in sorted((d / "runs").iterdir())])


def test_the_variant_runs_the_flow_as_mptcp_with_the_same_bytes_and_handover(out: Path) -> None:
    df = _runs(out)
    fig1 = df[df["scenario"] == FIG1.stem]
    mp = fig1[fig1["variant"].isin(["mptcp", "mptcp-backup"])]
    assert len(mp) == 4 and mp["error"].isna().all()
    assert (mp["kind"] == "mptcp").all()
    assert (fig1.loc[fig1["variant"] == "plain", "kind"] == "tcp").all()
    # The same bytes, and (common seeds) the same handover instant per replication.
    assert mp["bytes"].nunique() == 1 and mp["bytes"].iloc[0] == 200_000
    assert (mp["bytes_delivered"] == 200_000).all()
    at = fig1.groupby("replication")["handover.0.at_s"].nunique()
    assert (at == 1).all()
    # Both subflows' interfaces, the handover lost WLAN (summary's flows[].mptcp).
    rec = json.loads(mp[mp["variant"] == "mptcp"]["mptcp"].iloc[0])
    assert {s["interface"] for s in rec["subflows"]} == {"wlan", "gprs"}
    assert rec["handovers"][0]["lost"] == "wlan"


def test_mptcp_backup_makes_the_cellular_interface_a_backup(out: Path) -> None:
    """ip-mptcp(8)'s backup flag on the cellular (slowest) interface: RFC 8684 §3.2's B bit on
    its MP_JOIN; the scheduler uses it only when no other subflow is active
    (mptcp_subflow_get_send)."""
    df = _runs(out)
    row = df[(df["scenario"] == FIG1.stem) & (df["variant"] == "mptcp-backup")].iloc[0]
    subflows = {s["interface"]: s for s in json.loads(row["mptcp"])["subflows"]}
    assert subflows["gprs"]["backup"] and not subflows["wlan"]["backup"]
    # A cellular initial interface is a backup endpoint itself, the other a subflow one.
    assert backup_endpoints(Interfaces(("gprs", "wlan"), "gprs", "gprs")) == {
        "gprs": ["backup"],
        "wlan": ["subflow"],
    }
    assert backup_endpoints(Interfaces(("gprs", "wlan"), "wlan", "gprs")) == {
        "gprs": ["subflow", "backup"]
    }


def test_tcp_sender_counts_are_not_reported_as_zero_for_mptcp(out: Path) -> None:
    t = pd.read_csv(out / "compare.csv")
    mp = t[(t["scenario"] == FIG1.stem) & t["variant"].isin(["mptcp", "mptcp-backup"])]
    assert mp["transfer_time_s_mean"].notna().all() and mp["distance_mean"].notna().all()
    for m in ("spurious_retransmissions_mean", "spurious_timeouts_mean", "timeouts_mean"):
        assert mp[m].isna().all(), m
    assert mp["mptcp_bytes_retrans_mean"].notna().all()
    tcp = t[t["variant"] == "plain"]
    assert tcp["mptcp_bytes_retrans_mean"].isna().all()
    md = (out / "compare.md").read_text()
    assert "## Multipath TCP beside the best TCP remedy and the oracle" in md
    assert "n/a, not zero" in md


def test_a_scenario_that_cannot_host_mptcp_is_skipped_with_its_reason(
    out: Path, tmp_path: Path
) -> None:
    man = json.loads((out / "compare.json").read_text())
    assert man["skipped"] == [] and man["complete"] and man["failed_runs"] == 0
    # [mipv6]: the resolver refuses an MPTCP flow; one interface: no multipath.
    one = tmp_path / "one-link.toml"
    one.write_text(ONE_LINK)
    p = compare.plan(
        variants=["mptcp"], scenarios=[str(MIPV6), str(one)], reference="plain", replications=1
    )
    assert "[mipv6]" in p.skipped[(MIPV6.stem, "mptcp")]
    assert "one interface" in p.skipped[(one.stem, "mptcp")]
    t = pd.read_csv(
        _compare(tmp_path / "skip", [str(MIPV6)]) / "compare.csv", keep_default_na=False
    )
    row = t[(t["scenario"] == MIPV6.stem) & (t["variant"] == "mptcp")].iloc[0]
    assert row["replications"] == 0 and "[mipv6]" in row["skipped"]
    assert "**Skipped**" in (tmp_path / "skip" / "compare.md").read_text()


def _compare(d: Path, scenarios: list[str], variants: tuple[str, ...] = ("mptcp",)) -> Path:
    argv = ["compare", "--replications", "1", "--quiet", "--out", str(d)]
    for v in variants:
        argv += ["--variant", v]
    for s in scenarios:
        argv += ["--scenario", s]
    assert main(argv) == 0
    return d


def test_a_slow_to_fast_scenario_hosts_mptcp_its_new_interface_opening_at_the_handover(
    out: Path,
) -> None:
    """Issue 39: GPRS -> WLAN (Fig. 2) hosts the MPTCP variants; WLAN is down until the
    handover brings it up, so no WLAN subflow opens before the handover instant
    (`handover::appearing`). Here the handover (0.3-0.5 s) comes before the connection is
    fully established over GPRS, with no `subflow` endpoint at its creation: Linux opens no
    subflow for WLAN then (`mptcp_pm_data_reset`'s work_pending), and GPRS is gone."""
    df = _runs(out)
    mp = df[(df["scenario"] == FIG2.stem) & df["variant"].isin(["mptcp", "mptcp-backup"])]
    assert len(mp) == 4 and mp["error"].isna().all() and (mp["kind"] == "mptcp").all()
    for _, r in mp.iterrows():
        rec = json.loads(r["mptcp"])
        assert all(s["interface"] != "wlan" for s in rec["subflows"]), rec
        assert pd.isna(r["transfer_time_s"])


def test_rerun_is_byte_identical(out: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert main([*ARGS, "--out", str(again)]) == 0
    assert (again / "compare.csv").read_bytes() == (out / "compare.csv").read_bytes()


def test_variant_names() -> None:
    assert parse("mptcp") == MPTCP and parse("mptcp-backup") == MPTCP_BACKUP
    assert MPTCP.name == "mptcp" and MPTCP_BACKUP.name == "mptcp-backup"
    with pytest.raises(VhoError, match="'mptcp'"):
        parse("mptcpp")
    assert MPTCP in compare.DEFAULT_VARIANTS and MPTCP_BACKUP in compare.DEFAULT_VARIANTS


def test_a_variant_skipped_somewhere_is_ranked_after_those_run_everywhere(
    tmp_path: Path,
) -> None:
    """The goal is one combination for every scenario (issue 19 item 5): a variant some
    scenario cannot host is no answer to it, however close it comes where it runs."""
    d = _compare(tmp_path / "c", [str(FIG1), str(MIPV6)], ("mptcp", "mptcp-backup"))
    t = pd.read_csv(d / "compare.csv", keep_default_na=False, na_values=[""])
    t["skipped"] = t["skipped"].fillna("")
    c = stats.closest(t, {"oracle", "oracle-system"})
    assert set(c["variant"].iloc[-2:]) == {"mptcp", "mptcp-backup"}
    assert (c.set_index("variant").loc[["mptcp", "mptcp-backup"], "skipped"] == 1).all()
    assert c.iloc[0]["variant"] == "plain" and c.iloc[0]["skipped"] == 0
