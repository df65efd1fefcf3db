"""`vho reproduce naoe --quick` (issue 22): Tables II and III from our runs beside the paper's
numbers, mean and sigma; and the issue's claims on the quick trials: APC below NEMO-SHO in
spurious retransmissions and out-of-order deliveries, APC above MBB in goodput 5-15 s, in both
directions (Naoe et al. §VI-A, §VI-B)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from vho.cli import main
from vho.reproduce.naoe_paper import LABELS, SCHEMES, TABLES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("naoe") / "out"
    args = ["reproduce", "naoe", "--quick", "--quiet", "--no-sensitivity", "--out", str(d)]
    assert main(args) == 0
    return d


def test_the_table_holds_every_cell_of_both_tables_with_the_papers_numbers(out: Path) -> None:
    t = pd.read_csv(out / "table.csv")
    assert len(t) == 2 * 3 * 3  # two tables, three schemes, three metrics
    for _, r in t.iterrows():
        assert (r["paper_mean"], r["paper_sd"]) == TABLES[r["direction"]][r["scheme"]][r["metric"]]
        assert r["trials"] == 5  # --quick
        assert r["ours_mean"] == r["ours_mean"]  # a number, not NaN


def test_the_report_shows_both_tables_with_the_papers_columns(out: Path) -> None:
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "**Table II, downward" in text and "**Table III, upward" in text
    for col in ("Out-of-order delivery", "Spurious TCP retransmissions", "Avg. TCP goodput"):
        assert col in text
    for s in SCHEMES:
        rows = [ln for ln in text.splitlines() if ln.startswith(f"| {LABELS[s]} | ")]
        assert len(rows) == 2, s  # a row in each table
        assert all(ln.count(" \\| ") == 3 for ln in rows)  # paper | ours, per metric
    # The paper's printed cells, e.g. Table II NEMO-SHO: 152 (sd 29.0) -> "152 (sd 29)".
    assert "152 (sd 29)" in text and "292 (sd 21.5)" in text


def _mean(t: pd.DataFrame, d: str, s: str, m: str) -> float:
    return float(
        t[(t["direction"] == d) & (t["scheme"] == s) & (t["metric"] == m)]["ours_mean"].iloc[0]
    )


#: Downward this failed until the mobile router released what APC held at the handover's
#: completion (§IV-C): before, the packets tunnelled after 15 s without a PIO overtook copies
#: held up to 2 s, and 91 % of APC's out-of-order deliveries and 72 % of its spurious
#: retransmissions (30 trials) came after 15 s (``apc.rs``'s module doc).
@pytest.mark.parametrize("direction", ["downward", "upward"])
def test_apc_below_nemo_sho_in_spurious_retransmissions_and_reordering(
    out: Path, direction: str
) -> None:
    # §VI: "NEMO-SHO with APC significantly avoided out-of order delivery and succeeded to
    # reduce spurious TCP retransmissions" (Tables II and III).
    t = pd.read_csv(out / "table.csv")
    for m in ("spurious_retransmissions", "out_of_order"):
        apc, sho = _mean(t, direction, "apc", m), _mean(t, direction, "nemo-sho", m)
        assert sho > 0, f"{direction}: NEMO-SHO shows no {m}: the comparison would be vacuous"
        assert apc < sho, f"{direction} {m}: APC {apc} vs NEMO-SHO {sho}"


@pytest.mark.parametrize("direction", ["downward", "upward"])
def test_apc_above_mbb_in_goodput_5_to_15_s(out: Path, direction: str) -> None:
    # §VI: APC "achieve[s] better TCP goodput than Make-Before-Break handover".
    t = pd.read_csv(out / "table.csv")
    apc, mbb = (
        _mean(t, direction, "apc", "goodput_kbps"),
        _mean(t, direction, "mbb", "goodput_kbps"),
    )
    assert mbb > 0
    assert apc > mbb, f"{direction} goodput: APC {apc} kb/s vs MBB {mbb} kb/s"


def test_the_sensitivity_grid_crosses_every_alpha_with_every_initial_t_edelay() -> None:
    # §VII: "APC has two configurable parameters: the initial value of T_eDelay and the filter
    # gain constant alpha"; the grid runs APC at every pair, both directions, with the tables'
    # trials per point (the paper's 30 unless --trials), 2 with --quick.
    from vho.reproduce import naoe

    s = naoe.sensitivity_sweep(30, 1)
    assert s.replications == 30
    got = [(p["mobile.start"], p["nemo.apc_alpha"], p["nemo.apc_initial_delay"]) for p in s.points]
    want = [
        (start, a, f"{d0:g} s")
        for start in ("3g", "wlan")
        for a in naoe.ALPHAS
        for d0 in naoe.INITIAL_DELAYS_S
    ]
    assert got == want
    assert 0.875 in naoe.ALPHAS and {0.0, 1.0} <= set(naoe.INITIAL_DELAYS_S)  # §VI's values
