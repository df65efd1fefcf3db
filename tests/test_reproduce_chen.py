"""`vho reproduce chen --quick` (issue 23 point 5, issue 35): every number and claim of Chen et
al. §5 judged by the rule beside the paper's, Figs. 6-9, replications that draw what a rerun
of the paper's simulation would move, and a report that follows its runs (quick mode: the
handoff at 60 s plus the drawn phase, 2 replications)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import reproduce_checks

import vho
from vho.cli import main
from vho.reproduce import chen
from vho.reproduce.chen import design as chen_design
from vho.reproduce.chen import paper as chen_paper

ROOT = Path(__file__).resolve().parent.parent
SEED_TEXT = ROOT.parent / "shared" / "seeds" / "004_131556780010e7f2.txt"
if not SEED_TEXT.exists():
    SEED_TEXT = Path("/work/shared/seeds/004_131556780010e7f2.txt")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("chen") / "out"
    assert main(["reproduce", "chen", "--quick", "--quiet", "--workers", "2", "--out", str(d)]) == 0
    return d


def _runs(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "runs.csv")


def test_every_variant_runs_in_every_replication(out: Path) -> None:
    runs = _runs(out)
    want = {(c.name, v.name) for c in chen.CASES for v in chen.variants(c)}
    want |= {(case, name) for case, name, _, _, _ in chen_design.SENSITIVITY}
    got = runs.groupby(["case", "variant"]).size()
    assert set(got.index) == want
    assert (got == chen_design.QUICK_REPLICATIONS).all()


def test_a_replication_draws_the_start_and_the_handoffs_phase(out: Path) -> None:
    # Issue 35 point 4: the seed alone drew only cross traffic that never reaches the last
    # hop. Replication r draws the flow's start and the handoff's instant, the same at every
    # point (common random numbers), within one run of the probe's pairs after 60 s.
    runs = _runs(out)
    per_rep = runs.groupby("replication")["draws"].nunique()
    assert (per_rep == 1).all() and runs["draws"].nunique() == len(per_rep)
    at = runs.groupby("replication")["handoff_s"].first()
    lo = chen_design.QUICK_HANDOFF_S
    assert at.between(lo, lo + chen_design.HANDOFF_PHASE_S).all()
    for d in runs["draws"]:
        assert re.fullmatch(r'flow\.0\.start="[\d.]+ s"; handover\.0\.at="[\d.]+ s"', d), d
    # And the replications differ: TCP's runs were identical seed to seed before.
    tcp = runs[(runs["case"] == "low-high-tcp") & (runs["variant"] == "original")]
    assert tcp["delivered_after_bytes"].nunique() == len(tcp)


def test_every_number_of_the_paper_has_a_row_judged_by_the_rule(out: Path) -> None:
    t = pd.read_csv(out / "table.csv")
    assert list(t["key"]) == [n.key for n in chen_paper.NUMBERS]
    lost = t.set_index("key")
    assert lost.loc["high-low-tfrc.original_lost", "paper"] == 650
    assert lost.loc["high-low-tfrc.ehn_a_lost", "paper"] == 400
    assert lost.loc["high-low-tfrc.ehn_b_lost", "paper"] == 200
    assert lost.loc["high-low-tfrc.second_cut", "verdict"] == "not measured"
    # The mean and its interval are those of the runs (t with 1 degree of freedom).
    runs = _runs(out)
    v = runs[(runs["case"] == "high-low-tfrc") & (runs["variant"] == "original")]["lost_window"]
    assert lost.loc["high-low-tfrc.original_lost", "ours"] == pytest.approx(v.mean())
    half = 12.706 * v.std(ddof=1) / 2**0.5
    assert lost.loc["high-low-tfrc.original_lost", "ours_hi"] == pytest.approx(
        v.mean() + half, rel=1e-3
    )
    report = (out / "report.md").read_text()
    ok = int((t["agrees"] == "yes").sum())
    judged = int(t["agrees"].isin(["yes", "no"]).sum())
    assert f"**{ok} of {judged} paper numbers agree by the rule**" in report.splitlines()[2]


def test_the_paper_numbers_are_in_its_text() -> None:
    # Each number's words are quoted from the line its source names.
    if not SEED_TEXT.exists():
        pytest.skip("the seed paper's text is not beside this checkout")
    lines = SEED_TEXT.read_text(encoding="utf-8").splitlines()
    for n in chen_paper.NUMBERS:
        first = int(re.match(r"l\.(\d+)", n.source).group(1))
        words = n.words.split(" ... ")[0].split(" [")[0]
        assert words[:60] in " ".join(lines[first - 1 : first + 5]), n.key


def test_the_report_shows_the_tables_and_figures(out: Path) -> None:
    report = (out / "report.md").read_text()
    for section in (
        "## IHN's detection lag (LOW-to-HIGH)",
        "## Packets lost during the HIGH-to-LOW handoff (Fig. 9)",
        "## LOW-to-HIGH: what FRA buys (Figs. 6(b), 7(b))",
        "## Every number of the paper",
    ):
        assert section in report
    for stem in (
        "fig6-low-high-tfrc",
        "fig7-low-high-tcp",
        "fig8-high-low-tfrc",
        "fig9-packets-lost",
    ):
        for ext in ("png", "svg"):
            p = out / "figures" / f"{stem}.{ext}"
            assert p.stat().st_size > 10_000, p
        assert f"(figures/{stem}.png)" in report


def test_the_report_follows_its_runs(out: Path, tmp_path: Path) -> None:
    stay = reproduce_checks.numbers_that_stay(
        chen.REPRODUCTION, out, tmp_path, chen_paper, chen_design
    )
    assert stay == []


def test_ehn_b_and_ehn_a_lose_fewer_packets_than_the_original(out: Path) -> None:
    # l.189 (Fig. 9): the original suffered the most losses; in every replication here.
    runs = _runs(out)
    lost = runs[runs["case"] == "high-low-tfrc"].pivot_table(
        index="replication", columns="variant", values="lost_window"
    )
    assert (lost["original"] > 0).all()
    assert (lost["ehn-b"] < lost["original"]).all(), lost
    assert (lost["ehn-a"] < lost["original"]).all(), lost


def test_ihn_detects_both_handoff_directions(out: Path) -> None:
    # §3.3: IHN cannot see a handoff before it happens (l.102): each detection comes after
    # the handoff, and EHN(b)'s notice one OWD (44 ms) before it.
    runs = _runs(out)
    for case, variant in (
        ("low-high-tfrc", "ihn-fra"),
        ("low-high-tcp", "ihn-fra"),
        ("high-low-tfrc", "original"),
    ):
        g = runs[(runs["case"] == case) & (runs["variant"] == variant)]
        assert g["ihn_s"].notna().all() and (g["ihn_s"] > 0).all(), (case, g["ihn_s"].tolist())
    b = runs[(runs["case"] == "high-low-tfrc") & (runs["variant"] == "ehn-b")]["ehn_s"]
    assert b.to_numpy() == pytest.approx(-chen_design.EHN_B_OFFSET_MS / 1000)


def test_only_the_runs_the_figures_read_are_kept(out: Path) -> None:
    kept = sorted(str(p.relative_to(out / "runs")) for p in out.glob("runs/*/*/rep-*"))
    assert kept == sorted(f"{c.name}/{v.name}/rep-0" for c in chen.CASES for v in chen.variants(c))
    assert (out / "runs" / "high-low-tfrc" / "original" / "rep-0" / "received.parquet").exists()


def test_ihn_watching_alone_changes_nothing() -> None:
    # The original runs "ihn" with no response so that its lag is known: the run is the same
    # as "probe" alone, but for the detection it records.
    over = ['run.stop="40 s"', 'handover.0.at="20 s"']
    a = vho.run(chen.study_path(), seed=3, overrides=[*over, 'flow.0.remedies=["probe"]'])
    b = vho.run(chen.study_path(), seed=3, overrides=[*over, 'flow.0.remedies=["probe","ihn"]'])
    fa, fb = a.summary["flows"][0], b.summary["flows"][0]
    assert fb["probe"]["detections"] and not fa["probe"]["detections"]
    fa["probe"]["detections"] = fb["probe"]["detections"] = []
    assert json.dumps(fa, sort_keys=True) == json.dumps(fb, sort_keys=True)
    assert a.summary["run"]["events"] == b.summary["run"]["events"]


def test_tfrc_probe_loses_at_high_to_low_what_ns2_tfrc_loses() -> None:
    # Chen et al. ran ns-2 (§5, l.127), so TFRC Probe is ns-2's Agent/TFRC with pairs
    # (design.TFRC). ns-2.35's own Agent/TFRC on the study's world, the handoff HIGH-to-LOW
    # at 60 s, drops 289 packets at the last hop in [59 s, 90 s) (seed 1:
    # `ns benches/ns2/chen.tcl high-low 1 91 60 59 90`; 282 and 289 on seeds 2 and 3). The
    # study's original TFRC Probe loses that within 20 % (261); RFC 5348's TFRC lost 523.
    sets = chen_design.point_overrides("high-low-tfrc", "original", 91.0, 60.0)
    sets = [s for s in sets if not s.startswith("record.")] + ["record.series=true"]
    r = vho.run(chen.study_path(), overrides=sets, seed=1)
    t = r.drops[r.drops["flow"] == "app"]["t_s"]
    lost = int(((t >= 59.0) & (t < 90.0)).sum())
    assert abs(lost - 289) <= 0.2 * 289, lost
