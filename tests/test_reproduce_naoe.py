"""`vho reproduce naoe --quick` (issue 22, issue 35): Tables II and III from our runs beside the
paper's numbers, mean and sigma, judged by the rule; the paper's claims tested paired over the
trials' common random numbers (Naoe et al. §VI-A, §VI-B); §VII's delays with a row that says
why vho does not measure them; and a report that follows its runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import reproduce_checks

from vho.cli import main
from vho.reproduce import naoe
from vho.reproduce.naoe import design as naoe_design
from vho.reproduce.naoe import paper as naoe_paper
from vho.reproduce.naoe.report import metric


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("naoe") / "out"
    assert main(["reproduce", "naoe", "--quick", "--quiet", "--out", str(d)]) == 0
    return d


def test_every_cell_of_both_tables_and_its_sigma_has_a_row(out: Path) -> None:
    t = pd.read_csv(out / "table.csv").set_index("key")
    runs = pd.read_csv(out / "runs.csv")
    assert list(t.index) == [n.key for n in naoe.NUMBERS]
    for direction, schemes in naoe.TABLES.items():
        for scheme, metrics in schemes.items():
            for m, (mu, sigma) in metrics.items():
                key = f"{direction}.{scheme}.{m}"
                assert (t.loc[key, "paper"], t.loc[key, "paper_sd"]) == (mu, sigma)
                assert t.loc[f"{key}.sd", "paper"] == sigma
                x = metric(runs, direction, scheme, m)
                assert len(x) == naoe_design.QUICK_TRIALS
                assert t.loc[key, "ours"] == pytest.approx(x.mean())
                assert t.loc[f"{key}.sd", "ours"] == pytest.approx(x.std(ddof=1))
    # §VII's delays: measured on Fig. 6's trial of APC at the mobile router, one trial each
    # as the paper's, judged as numbers without spread (102 ms as stated, 1.1 s "about").
    for key, variant in (
        ("downward.first_slow_copy_delay_s", "apc"),
        ("downward.two_sessions.first_slow_copy_delay_s", naoe_design.FIG6_TWO_SESSIONS),
    ):
        row = t.loc[key]
        x = runs[(runs["case"] == naoe_design.FIG6) & (runs["variant"] == variant)]
        assert row["verdict"] in ("agrees", "differs") and row["n"] == 1
        assert row["ours"] == pytest.approx(float(x["first_duplicate_delay_s"].iloc[0]))
        assert "mobile router" in row["note"]


def test_the_report_shows_both_tables_with_the_papers_columns(out: Path) -> None:
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "**Table II, downward" in text and "**Table III, upward" in text
    for s in naoe.SCHEMES:
        rows = [ln for ln in text.splitlines() if ln.startswith(f"| {naoe.LABELS[s]} | ")]
        assert len(rows) == 2, s  # a row in each table
        assert all(ln.count(" \\| ") == 3 for ln in rows)  # paper | ours, per metric
    assert "152 (sd 29) \\|" in text and "292 (sd 21.5) \\|" in text
    for scheme in naoe.SCHEMES:
        assert (out / "figures" / f"fig6_{scheme}.png").stat().st_size > 0
    assert (out / "figures" / "sensitivity.png").stat().st_size > 0


@pytest.mark.parametrize("direction", ["downward", "upward"])
def test_the_claims_are_tested_paired_over_the_trials(out: Path, direction: str) -> None:
    # §VI: APC below NEMO-SHO in spurious retransmissions and reordering, above MBB in
    # goodput; the verdict is the paired test's, not a comparison of means.
    t = pd.read_csv(out / "table.csv").set_index("key")
    runs = pd.read_csv(out / "runs.csv")
    for key, m, other in (
        ("apc_fewer_spurious", "spurious_retransmissions", "nemo-sho"),
        ("apc_less_reordering", "out_of_order", "nemo-sho"),
        ("apc_above_mbb", "goodput_kbps", "mbb"),
    ):
        row = t.loc[f"{direction}.{key}"]
        a, b = metric(runs, direction, "apc", m), metric(runs, direction, other, m)
        assert row["ours"] == pytest.approx(float(np.mean(a - b)))
        assert row["test"].startswith("paired t")
        assert row["verdict"] in ("holds", "reversed", "not significant")


def test_apc_above_mbb_in_goodput_5_to_15_s(out: Path) -> None:
    # §VI: APC "achieve[s] better TCP goodput than Make-Before-Break handover", in every
    # quick trial of both directions.
    runs = pd.read_csv(out / "runs.csv")
    for direction in ("downward", "upward"):
        apc = metric(runs, direction, "apc", "goodput_kbps")
        mbb = metric(runs, direction, "mbb", "goodput_kbps")
        assert (mbb > 0).all() and (apc > mbb).all(), (direction, apc, mbb)


def test_the_report_follows_its_runs(out: Path, tmp_path: Path) -> None:
    grid = len(naoe_design.ALPHAS) * len(naoe_design.INITIAL_DELAYS_S) * 2
    stay = reproduce_checks.numbers_that_stay(
        naoe.REPRODUCTION, out, tmp_path, naoe_paper, naoe_design, extra=(grid,)
    )
    assert stay == []


def test_only_fig6s_trials_are_captured_and_kept(out: Path) -> None:
    kept = sorted(str(p.relative_to(out / "runs")) for p in out.glob("runs/*/*/rep-*"))
    fig6 = (*naoe.SCHEMES, naoe_design.FIG6_TWO_SESSIONS)
    assert kept == sorted(f"fig6/{s}/rep-0" for s in fig6)
    assert all((out / "runs" / k / "lfn.pcap").exists() for k in kept)
    assert all((out / "runs" / k / "mr.pcap").exists() for k in kept)


def test_the_sensitivity_grid_crosses_every_alpha_with_every_initial_t_edelay() -> None:
    # §VII: "APC has two configurable parameters: the initial value of T_eDelay and the filter
    # gain constant alpha"; the grid runs APC at every pair, both directions.
    from vho.reproduce.study import Options

    d = naoe.REPRODUCTION.design(Options())
    grid = [p for p in d.points if p.variant.startswith("grid-")]
    assert {p.replications for p in grid} == {naoe.TRIALS}
    got = {(p.case, p.variant) for p in grid}
    want = {
        (direction, f"grid-alpha{a:g}-d{d0:g}")
        for direction in ("downward", "upward")
        for a in naoe.ALPHAS
        for d0 in naoe.INITIAL_DELAYS_S
    }
    assert got == want
    assert 0.875 in naoe.ALPHAS and {0.0, 1.0} <= set(naoe.INITIAL_DELAYS_S)  # §VI's values


def test_a_wlan_that_loses_copies_makes_nemo_sho_reorder(tmp_path: Path) -> None:
    # Naoe et al. §III: the MR "forwards only the packet copy arrived earlier", so "a packet
    # lost on a fast link often causes out-of order delivery". Downward the WLAN leads; with
    # one attempt a frame instead of the preset's 7 it loses copies whose 3G twins come later
    # (benches/naoe_reorder.py: 44.3 against 3.3 a trial on seeds 1-10). Why the WLAN's retry
    # limit is an open value of both calibration files.
    import json

    from vho.runner import run

    def counts(retry: int) -> tuple[int, int]:
        lost = reordered = 0
        for seed in (1, 2):
            d = tmp_path / f"r{retry}-{seed}"
            sets = (
                *naoe_design.direction_overrides("downward"),
                *naoe.SCHEME_OVERRIDES["nemo-sho"],
                f"link.4.retry_limit={retry}",
            )
            run(naoe.study_path(), seed=seed, overrides=sets, out_dir=d, force=True)
            s = json.loads((d / "summary.json").read_text())
            (wlan,) = [x for x in s["links"] if x["link"] == "wlan" and x["to"] == "mr"]
            lost += wlan["dropped_link_layer_discard"]
            reordered += s["flows"][0]["reordered_deliveries"]
        return lost, reordered

    (lost7, reordered7), (lost1, reordered1) = counts(7), counts(1)
    assert lost1 > 10 * max(lost7, 1)
    assert reordered1 > 5 * max(reordered7, 1)


def test_the_first_duplicate_delay_is_the_old_links_copy_after_the_new_ones(
    tmp_path: Path,
) -> None:
    # Naoe et al. §VII: "the first duplicate packet (TCP seq. 60) from the 3G link arrived at
    # the MR only 102 ms later than the WLAN link". Read from the MR's capture: the first
    # packet with a Packet Identifier Option (Fig. 3) that came over both links, its copy to
    # the old link's care-of address (where the tunnel sent before bicasting) less its copy
    # to the new one's. Checked against the combiner's own account: the same run's copies
    # and the link each came over, paired by the PIO's sequence number.
    from vho.reproduce.naoe.measure import first_duplicate_delay, pio_seq, records
    from vho.runner import run

    d = tmp_path / "apc"
    sets = (
        *naoe_design.direction_overrides("downward"),
        *naoe.SCHEME_OVERRIDES["apc"],
        'record.pcap=["mr"]',
    )
    run(naoe.study_path(), seed=1, overrides=sets, out_dir=d, force=True)
    pkts = list(records(d / "mr.pcap"))
    tunnelled = [p for _, p in pkts if p[6] == 41]
    old = tunnelled[0][24:40]  # the 3G care-of address: the tunnel before 5 s
    first = {}
    for t, p in pkts:
        s = pio_seq(p)
        if s is not None:
            first.setdefault(s, {}).setdefault(p[24:40], t)
    pio_times = [t for t, p in pkts if pio_seq(p) is not None]
    assert min(pio_times) >= 5.0  # bicasting from 5 s (§V-C)
    both = [s for s in first if len(first[s]) == 2]
    s0 = both[0]
    (new,) = [a for a in first[s0] if a != old]
    assert first_duplicate_delay(d / "mr.pcap") == first[s0][old] - first[s0][new]
    # A run without bicasting (Make-Before-Break) has none.
    mbb = tmp_path / "mbb"
    mbb_sets = (*naoe_design.direction_overrides("downward"), 'record.pcap=["mr"]')
    run(naoe.study_path(), seed=1, overrides=mbb_sets, out_dir=mbb, force=True)
    assert first_duplicate_delay(mbb / "mr.pcap") is None
