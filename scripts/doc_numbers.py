"""Numbers the docs quote, each computed by the run that shows it.

In a Markdown file a computed number is written ``<!--n:NAME-->VALUE<!--/n-->`` (the comments do
not show when the file is rendered). Each NAME belongs to a *source* below: a function that makes
one run (or a few) and returns the values of its names as the text the docs print. So a doc that
disagrees with the code fails a test (``tests/test_doc_numbers.py`` runs ``--check`` on the
README and every page under ``docs/``), and after a change of behaviour ``--write`` puts the new
values in.

    python3 scripts/doc_numbers.py --check README.md docs/*.md docs/*/*.md  # stale ones
    python3 scripts/doc_numbers.py --write README.md docs/*.md docs/*/*.md  # rewrite them
    python3 scripts/doc_numbers.py --check --full docs/design/naoe.md  # the slow ones too

A value may span lines (a whole table). A source is named by the prefix of its names
(``cottingham.t_n`` is the ``cottingham`` source's ``t_n``). Keep sources quick: the check
runs in CI; a source that takes minutes goes in ``FULL``, which only ``--full`` runs. The
MPTCP pages' sources are in ``doc_numbers_mptcp.py``, Chen's in ``doc_numbers_chen.py``
(``VHO_DOC_CHEN=DIR``: a `vho reproduce chen` run made at this commit). ``VHO_DOC_COMPARE=DIR``
makes the two `vho compare` sources read a default run already made (at this commit) instead of
making one.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"<!--n:([a-z0-9_.-]+)-->(.*?)<!--/n-->", re.S)


def _s(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


@cache
def cottingham() -> dict[str, str]:
    """The bundled Cottingham & Vidales example (WLAN lost at 30 s, Mobile IPv6 to GPRS): its
    handover's steps from `summary.json` and `vho analyze` of the mobile's capture."""
    import vho

    scenario = ROOT / "scenarios" / "examples" / "cottingham-wlan-gprs.toml"
    with tempfile.TemporaryDirectory() as tmp:
        r = vho.run(scenario, out_dir=Path(tmp) / "run")
        h = r.summary["handovers"][0]["mipv6"]
        f = r.summary["flows"][0]
        a = vho.analyze(Path(tmp) / "run" / "mn.pcap", ta_mean="after-handover")
        (e,) = a.metrics["flows"]
        found = a.metrics["handover"]
    return {
        "t_n": _s(h["t_n_s"]),
        "t_d": _s(h["t_d_s"]),
        "t_c": _s(h["t_c_s"]),
        "t_r": _s(h["t_r_s"]),
        "bu_sent": _s(h["bu_sent_s"]),
        "ba": _s(h["ba_s"]),
        "bu_cn_sent": _s(h["bu_cn_sent_s"]),
        "first_ro": _s(h["first_route_optimised_s"]),
        "timeouts": str(f["timeouts"]),
        "found_at": _s(found["at_s"]),
        "t_a": _s(e["adaptation_time_s"]),
    }


@cache
def dkfig1() -> dict[str, str]:
    """The bundled Daniel & Kojo Figure 1 example (the README's first run and the tutorial):
    `summary.json`, the first retransmission in the correspondent's capture (the first
    timeout's: the run has no fast retransmit), and the same transfer over WLAN alone (the
    handover moved past its end)."""
    import vho
    from vho.capture import read_tcp

    scenario = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"
    with tempfile.TemporaryDirectory() as tmp:
        r = vho.run(scenario, out_dir=Path(tmp) / "run")
        segs = read_tcp(Path(tmp) / "run" / "ch.pcap")
        found = vho.analyze(Path(tmp) / "run" / "ch.pcap").metrics["handover"]
    f = r.summary["flows"][0]
    data = segs[segs["len"] > 0]
    # A data segment whose sequence number is below the highest sent before it is a resend.
    resent = data[data["seq"] < data["seq"].cummax().shift(fill_value=0)]
    wlan = vho.run(scenario, overrides=['handover.0.at="100 s"']).summary
    assert f["fast_retransmits"] == 0, "the first retransmission is no longer a timeout's"
    return {
        "transfer_time": _s(f["transfer_time_s"]),
        "acknowledged": _s(r.summary["run"]["simulated_s"]),
        "drops": str(sum(d["packets"] for d in f["drops"])),
        "timeouts": str(f["timeouts"]),
        "spurious_timeouts": str(f["spurious_timeouts"]),
        "retransmissions": str(f["retransmissions"]),
        "spurious": str(f["spurious_retransmissions"]),
        "first_timeout": _s(float(resent["t_s"].iloc[0]), 2),
        "wlan_transfer_time": _s(wlan["flows"][0]["transfer_time_s"]),
        "wlan_acknowledged": _s(wlan["run"]["simulated_s"], 2),
        "analyze_found_at": _s(found["at_s"]),
        "analyze_signal": found["signal"],
    }


@cache
def thesis_example() -> dict[str, str]:
    """The bundled thesis example (WaveLAN -> GSM, Linux 2.0 TCP), and the same under the
    `linux` profile: its spurious timeouts and resends."""
    import vho

    scenario = ROOT / "scenarios" / "examples" / "thesis-wavelan-gsm.toml"
    r = vho.run(scenario)
    f = r.summary["flows"][0]
    at = r.summary["handovers"][0]["at_s"]
    series = r.tcp[f["name"]]
    rto = series[series["t_s"] <= at]["rto_s"].iloc[-1]
    lin = vho.run(scenario, overrides=['flow.0.tcp.profile="linux"']).summary["flows"][0]
    return {
        "rto_at_switch_ms": f"{rto * 1e3:.0f}",
        "spurious_timeouts": str(f["spurious_timeouts"]),
        "resent": str(f["retransmissions"]),
        "linux_detected": str(lin["spurious_timeouts_detected"]),
        "linux_spurious": str(lin["spurious_timeouts"]),
        "linux_resent": str(lin["retransmissions"] - lin["tlp_retransmissions"]),
        "linux_tlp": str(lin["tlp_retransmissions"]),
    }


def _naoe_tables(trials: int) -> dict[str, str]:
    """Naoe et al.'s Tables II and III as `vho reproduce naoe --trials N` gives them (seed 1):
    the paper's mean (sd) beside ours, one Markdown table per direction."""
    import csv
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "naoe"
        subprocess.run(
            [
                *(sys.executable, "-m", "vho.cli", "reproduce", "naoe", "--no-sensitivity"),
                *("--trials", str(trials), "--out", str(out)),
            ],
            check=True,
            capture_output=True,
        )
        with open(out / "table.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    # The study's verdict table: a row per paper number, keyed direction.scheme.metric (the
    # mean: the paper's mean and sigma, ours) and the same with ".sd" (ours: vho's sigma).
    by_key = {r["key"]: r for r in rows}

    def num(x: str) -> str:
        v = float(x)
        return f"{v:.0f}" if v == int(v) else f"{v:.1f}"

    out: dict[str, str] = {}
    for direction, table in (("downward", "Table II"), ("upward", "Table III")):
        lines = [
            f"| {direction} ({table}) | out-of-order | spurious rtx | goodput 5-15 s (kb/s) |",
            "|---|---|---|---|",
        ]
        schemes = (("mbb", "Make-Before-Break"), ("nemo-sho", "NEMO-SHO"), ("apc", "APC"))
        for scheme, label in schemes:
            cells = []
            for metric in ("out_of_order", "spurious_retransmissions", "goodput_kbps"):
                r = by_key[f"{direction}.{scheme}.{metric}"]
                sd = by_key[f"{direction}.{scheme}.{metric}.sd"]
                cells.append(
                    f"{num(r['paper'])} ({float(r['paper_sd']):.1f}) \\| "
                    f"{float(r['ours']):.1f} ({float(sd['ours']):.1f})"
                )
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        out[direction] = "\n" + "\n".join(lines) + "\n"
    # §VII's first duplicate delays (s), on Fig. 6's trial of APC at the mobile router.
    for key, name in (
        ("downward.first_slow_copy_delay_s", "first_duplicate_s"),
        ("downward.two_sessions.first_slow_copy_delay_s", "first_duplicate_two_s"),
    ):
        out[name] = f"{float(by_key[key]['ours']):.2f}"
    return out


@cache
def naoe() -> dict[str, str]:
    """Naoe et al.'s tables at the paper's 30 trials (`vho reproduce naoe`, about 10 s)."""
    return _naoe_tables(30)


@cache
def naoe300() -> dict[str, str]:
    """The same at 300 trials (a minute or two): a *full* source, checked by `--full`."""
    return _naoe_tables(300)


@cache
def calexample() -> dict[str, str]:
    """The README's calibration example (`vho calibrate
    scenarios/calibrations/cottingham-gprs-delay.toml`, about 30 s on 2 cores): a *full*
    source."""
    import json

    from vho.calibrate import run as calibrate

    cal = ROOT / "scenarios" / "calibrations" / "cottingham-gprs-delay.toml"
    with tempfile.TemporaryDirectory() as tmp:
        calibrate(cal, Path(tmp) / "cal", quiet=True)
        res = json.loads((Path(tmp) / "cal" / "calibration.json").read_text(encoding="utf-8"))
    d, b = res["defaults"], res["best"]
    hd, hb = res["held_out"]["defaults"], res["held_out"]["best"]
    return {
        "loss_defaults": f"{d['loss']:.2f}",
        "loss_best": f"{b['loss']:.2f}",
        "best_trial": str(b["trial"]),
        "jitter_mean": f"{float(b['params']['link.4.jitter_mean'].split()[0]) * 1e3:.1f}",
        "jitter_sd": f"{float(b['params']['link.4.jitter_sd'].split()[0]) * 1e3:.1f}",
        "t_a_defaults": f"{d['targets']['t_a']['mean']:.2f}",
        "t_a_best": f"{b['targets']['t_a']['mean']:.2f}",
        "t_n_defaults": f"{d['targets']['T_n']['mean']:.2f}",
        "t_n_best": f"{b['targets']['T_n']['mean']:.2f}",
        "held_rel_defaults": f"{100 * hd['mean_abs_rel_error']:.0f}",
        "held_rel_best": f"{100 * hb['mean_abs_rel_error']:.0f}",
    }


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}"


def compare_values(out_dir: Path) -> dict[str, str]:
    """The figures the compare pages quote, from a `vho compare` run's output folder (its
    ``compare.csv`` and ``compare.json``; the default scenarios and variants)."""
    import json

    import pandas as pd

    from vho.compare import stats

    t = pd.read_csv(out_dir / "compare.csv", keep_default_na=False, na_values=[""])
    man = json.loads((out_dir / "compare.json").read_text(encoding="utf-8"))
    refs = {"oracle", "oracle-system"}
    reps = int(t["replications"].max())
    t["skipped"] = t["skipped"].fillna("")
    skipped = t["skipped"] != ""
    scen = list(dict.fromkeys(t["scenario"]))
    variants = list(dict.fromkeys(t["variant"]))
    runs = len(scen) * len(variants) * reps
    out = {
        "scenarios": str(len(scen)),
        "variants": str(len(variants)),
        "replications": str(reps),
        "runs": f"{runs:,}",
        "skipped_runs": f"{int(skipped.sum()) * reps:,}",
        "incomplete": str(int(t["incomplete"].sum())),
        "incomplete_tcp": str(
            int(t.loc[~t["variant"].str.startswith("mptcp"), "incomplete"].sum())
        ),
        "rows_run": f"{man['runs']:,}",
        "rows_folded": f"{man['runs'] - man['runs_made']:,}",
    }
    # The closest variant among those every scenario hosts (stats.closest puts them first).
    close = stats.closest(t, refs)
    c = close.iloc[0]
    plain = close[close["variant"] == "plain"].iloc[0]
    out |= {
        "closest": str(c["variant"]),
        "closest_within": str(int(c["within_goal"])),
        "closest_worst": _pct(c["worst_distance"]),
        "closest_worst_scenario": str(c["worst_scenario"]),
        "plain_within": str(int(plain["within_goal"])),
    }
    # Mean gain over plain TCP over every scenario, of the variants every scenario hosts.
    everywhere = close[(close["skipped"] == 0) & (close["variant"] != "plain")]
    top = everywhere.sort_values("mean_gain_vs_plain", ascending=False, kind="stable").iloc[0]
    red = close[close["variant"] == "red"].iloc[0]
    b = stats.best(t, refs)
    out |= {
        "top_gain_variant": str(top["variant"]),
        "top_gain": _pct(top["mean_gain_vs_plain"]),
        "red_loss": _pct(-red["mean_gain_vs_plain"]),
        "best_over_5": str(int((b["gain_vs_plain_mean"] > stats.GOAL).sum())),
    }
    cell = t.set_index(["scenario", "variant"])

    def tt(scenario: str, variant: str) -> float:
        return float(cell.loc[(scenario, variant), "transfer_time_s_mean"])

    def best_of(scenario: str) -> pd.Series:
        return b[b["scenario"] == scenario].iloc[0]

    # Daniel & Kojo's 200 KB WLAN -> GPRS at HTime 0, soft and hard.
    for model in ("soft", "hard"):
        name = f"dk-wlan-gprs-200KB-ideal-{model}-h0"
        r = best_of(name)
        out |= {
            f"dk_{model}_oracle": _s(tt(name, "oracle"), 1),
            f"dk_{model}_plain": _s(tt(name, "plain"), 1),
            f"dk_{model}_best": str(r["variant"]),
            f"dk_{model}_best_s": _s(r["transfer_time_s_mean"], 1),
            f"dk_{model}_best_spurious_to": _s(r["spurious_timeouts_mean"], 1),
            f"dk_{model}_oracle_to": _s(float(cell.loc[(name, "oracle"), "timeouts_mean"]), 1),
        }
    # The thesis's cases: the best candidate against plain TCP and the scenario's oracle.
    for case in ("fast-slow", "slow-fast", "upload"):
        name = f"thesis-{case}"
        r = best_of(name)
        key = case.replace("-", "_")
        ref = str(r["reference"])
        out |= {
            f"{key}_plain": _s(tt(name, "plain"), 1),
            f"{key}_best": str(r["variant"]),
            f"{key}_best_s": _s(r["transfer_time_s_mean"], 1),
            f"{key}_gain": _pct(r["gain_vs_plain_mean"]),
            f"{key}_gain_ci": _pct(r["gain_vs_plain_ci95"]),
            f"{key}_oracle": _s(tt(name, ref), 1),
            f"{key}_distance": _pct(r["distance_mean"]),
            f"{key}_best_spurious": _s(r["spurious_retransmissions_mean"], 1),
            f"{key}_oracle_spurious": _s(
                float(cell.loc[(name, ref), "spurious_retransmissions_mean"]), 1
            ),
        }
    # Rows (candidate x scenario, measured) faster than their oracle.
    cand = t[~t["variant"].isin(refs) & t["distance_mean"].notna()]
    faster = cand[cand["distance_mean"] < 0]
    # Of those, how many resend needlessly where their oracle does not.
    oracle_sp = [
        float(cell.loc[(x, ref), "spurious_retransmissions_mean"])
        for x, ref in zip(faster["scenario"], faster["reference"], strict=True)
    ]
    needless = (faster["spurious_retransmissions_mean"].to_numpy() > 0) & (
        pd.Series(oracle_sp).to_numpy() == 0
    )
    out |= {
        "rows_measured": f"{len(cand):,}",
        "faster_than_oracle": str(len(faster)),
        "faster_by_at_most": _pct(-faster["distance_mean"].min() if len(faster) else 0.0),
        "faster_resending": str(int(needless.sum())),
    }
    return out


#: The temporary folder of this process's `vho compare` run (removed at exit).
_KEEP: list[tempfile.TemporaryDirectory[str]] = []


@cache
def compare_out() -> Path:
    """`vho compare` with its default scenarios and variants (minutes on 2 cores), made once
    per process: the `compare` and `comparemptcp` sources read the same run. With
    ``VHO_DOC_COMPARE`` set, that folder instead (a default run made at this commit)."""
    import os
    import subprocess

    if os.environ.get("VHO_DOC_COMPARE"):
        return Path(os.environ["VHO_DOC_COMPARE"])
    _KEEP.append(tempfile.TemporaryDirectory())
    out = Path(_KEEP[-1].name) / "compare"
    subprocess.run(
        [sys.executable, "-m", "vho.cli", "compare", "--out", str(out), "--quiet"],
        check=True,
        capture_output=True,
    )
    return out


@cache
def compare() -> dict[str, str]:
    """The compare pages' figures from `vho compare`'s default run: a *full* source."""
    return compare_values(compare_out())


def _study_calibration(study: str, split: str | None = None) -> dict[str, str]:
    """`vho reproduce STUDY --calibrate [--split SPLIT]` (seed 1): the figures of a row of
    `docs/design/calibration.md`'s table, from its `calibration.json`."""
    import dataclasses
    import json

    from vho import calibrate
    from vho.calibrate import studies

    cal = dataclasses.replace(calibrate.load(studies.path(study, split)), seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        calibrate.run(cal, Path(tmp) / "cal", quiet=True)
        res = json.loads((Path(tmp) / "cal" / "calibration.json").read_text(encoding="utf-8"))
    d, b = res["defaults"], res["best"]
    hd, hb = res["held_out"]["defaults"], res["held_out"]["best"]
    f, h = res["verdicts"]["fit"], res["verdicts"]["held out"]
    loss = 2 if d["loss"] < 100 else 0
    rd, rb = _pct(hd["mean_abs_rel_error"], 0), _pct(hb["mean_abs_rel_error"], 0)
    means = {
        re.sub(r"[^a-z0-9]+", "_", k.lower()).strip("_"): (v["mean"], b["targets"][k])
        for k, v in d["targets"].items()
    }
    targets = {k: f"{x:.0f} -> {y['mean']:.0f}" for k, (x, y) in means.items()}
    zs = {f"{k}_z": f"{y['z']:.2f}" for k, (_, y) in means.items()}
    params = {f"best_{k}": str(v) for k, v in b["params"].items()}
    return (
        targets
        | zs
        | params
        | {
            "loss": f"{d['loss']:.{loss}f} -> {b['loss']:.{loss}f}",
            "held_z": f"{hd['rms_z']:.3g} -> {hb['rms_z']:.3g}",
            "held_rel": f"{rd} % -> {rb} %",
            "held_agree": f"{h['defaults']} -> {h['calibrated']} of {h['of']}",
            "fit_agree": f"{f['defaults']} -> {f['calibrated']} of {f['of']}",
        }
    )


@cache
def calcottingham() -> dict[str, str]:
    """`vho reproduce cottingham --calibrate` (under a minute on 2 cores): a *full* source."""
    v = _study_calibration("cottingham")
    ms = {k: float(x.split()[0]) * 1e3 for k, x in v.items() if k.startswith("best_link.")}
    return v | {
        "delay_mean": f"{ms['best_link.6.jitter_mean']:.1f}",
        "delay_sd": f"{ms['best_link.6.jitter_sd']:.0f}",
    }


@cache
def calnaoe() -> dict[str, str]:
    """`vho reproduce naoe --calibrate` (under a minute on 2 cores): a *full* source."""
    return _study_calibration("naoe")


@cache
def calnaoereverse() -> dict[str, str]:
    """`vho reproduce naoe --calibrate --split reverse` (under a minute): a *full* source."""
    return _study_calibration("naoe", "reverse")


sys.path.insert(0, str(Path(__file__).resolve().parent))
import doc_numbers_cottingham as cottingham_study  # noqa: E402
import doc_numbers_mptcp as mptcp  # noqa: E402
from doc_numbers_chen import chen  # noqa: E402


@cache
def comparemptcp() -> dict[str, str]:
    """`docs/design/mptcp.md`'s `vho compare` figures, from the same run as `compare`: a
    *full* source."""
    return mptcp.comparemptcp(compare_out())


SOURCES: dict[str, Callable[[], dict[str, str]]] = {
    "cottingham": cottingham,
    "dkfig1": dkfig1,
    "naoe": naoe,
    "thesis_example": thesis_example,
    "naoe300": naoe300,
    "calexample": calexample,
    "compare": compare,
    "mptcpkernel": mptcp.mptcpkernel,
    "mptcpkernel2s": mptcp.mptcpkernel2s,
    "mptcpblackhole": mptcp.mptcpblackhole,
    "mptcpfix": mptcp.mptcpfix,
    "comparemptcp": comparemptcp,
    "mptcpbench": mptcp.mptcpbench,
    "calcottingham": calcottingham,
    "cotstudy": cottingham_study.cotstudy,
    "calnaoe": calnaoe,
    "calnaoereverse": calnaoereverse,
    "chen": chen,
}
#: Sources too slow for CI: `--check` leaves their marks alone, `--check --full` (a bench,
#: `benches/README.md`) checks them too.
FULL = {
    "naoe300",
    "calexample",
    "compare",
    "comparemptcp",
    "calcottingham",
    "cotstudy",
    "calnaoe",
    "calnaoereverse",
    "chen",
}


def value(name: str) -> str:
    source, _, key = name.partition(".")
    if source not in SOURCES:
        raise KeyError(f"no source {source!r} for {name!r} (sources: {', '.join(SOURCES)})")
    values = SOURCES[source]()
    if key not in values:
        raise KeyError(f"source {source!r} has no {key!r} (it has: {', '.join(values)})")
    return values[key]


def is_full(name: str) -> bool:
    return name.partition(".")[0] in FULL


def stale(text: str, full: bool = False) -> list[tuple[str, str, str]]:
    """(name, written, computed) of every number in ``text`` that differs from its source
    (the full sources' only when ``full``)."""
    out = []
    for m in MARK.finditer(text):
        if is_full(m.group(1)) and not full:
            value_name_exists(m.group(1))
            continue
        v = value(m.group(1))
        if m.group(2) != v:
            out.append((m.group(1), m.group(2), v))
    return out


def value_name_exists(name: str) -> None:
    """Raise KeyError on a mark whose source is unknown (without running the source)."""
    if name.partition(".")[0] not in SOURCES:
        raise KeyError(f"no source for {name!r} (sources: {', '.join(SOURCES)})")


def rewrite(text: str, full: bool = False) -> str:
    def one(m: re.Match[str]) -> str:
        if is_full(m.group(1)) and not full:
            return m.group(0)
        return f"<!--n:{m.group(1)}-->{value(m.group(1))}<!--/n-->"

    return MARK.sub(one, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="fail on a stale number")
    g.add_argument("--write", action="store_true", help="rewrite the numbers")
    ap.add_argument("--full", action="store_true", help=f"the slow sources too ({', '.join(FULL)})")
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    bad = 0
    for path in args.files:
        text = path.read_text()
        if args.write:
            new = rewrite(text, args.full)
            if new != text:
                path.write_text(new)
                print(f"{path}: rewritten")
            continue
        for name, written, computed in stale(text, args.full):
            print(f"{path}: {name}: the doc says {written!r}, the code gives {computed!r}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
