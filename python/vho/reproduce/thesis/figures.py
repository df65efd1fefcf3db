"""The thesis's figures (Figs. 7-1 to 7-5, 7-10, 7-11) redrawn by `vho reproduce thesis` from
the first replication's kept runs of the thesis's TCP: the CH's capture (where the thesis's
tcpdump ran), the sender's RTO series, and Linux 2.0's RTO replayed from the capture."""

from __future__ import annotations

import pandas as pd

from ... import capture, plots
from ...plots import _save
from ..study import Context
from .design import BASELINE, CASES
from .measure import REPLAY
from .paper import PPP_BYTES_PER_S


def _relegend(fig) -> None:
    """The legend again, below the axes as :func:`vho.plots.time_sequence_figure` puts it,
    with the lines added after it (both y axes)."""
    handles, labels = [], []
    for ax in fig.axes:
        h, lab = ax.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    fig.axes[0].legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncol=min(len(labels), 4),
        fontsize=8,
        frameon=False,
    )


def figures(ctx: Context) -> list[tuple[str, str]]:
    """The thesis's figures redrawn from the first replication's kept runs (the CH's capture,
    the sender's series, the RTO replayed): (file stem, caption)."""
    import matplotlib.pyplot as plt

    out = ctx.out
    done = []
    first = ctx.runs[(ctx.runs["variant"] == BASELINE) & (ctx.runs["replication"] == 0)]
    row = {r["case"]: r for _, r in first.iterrows()}
    titles = {c.name: c.title for c in CASES}
    seed = int(first["seed"].iloc[0])

    def draw(case: str, stem: str, caption: str, window, *extras, sender_only=False) -> None:
        d = ctx.kept(case, BASELINE, 0)
        data, acks = capture.sequence(capture.read_tcp(d / "ch.pcap"))
        rto = pd.read_parquet(d / "series_tcp.parquet")[["t_s", "rto_s"]]
        if sender_only:  # Fig. 7-1: the data segments alone
            acks = rto = None
        at = float(row[case]["at_s"])
        shown = window is None or window[0] <= at <= window[1]
        fig = plots.time_sequence_figure(
            data,
            acks,
            title=f"{caption}\n{titles[case]}, seed {seed}",
            handovers=[at] if shown else [],
            rto=rto,
            window=window,
        )
        for extra in extras:
            extra(fig, d, data, acks, at, window)
        _relegend(fig)
        _save(fig, out / "figures" / stem, ("png", "svg"))
        done.append((stem, f"{caption}: {titles[case]}"))

    def theoretical(fig, d, data, acks, at, window) -> None:
        # Fig. 7-3: "the maximum theoretical throughput of the PPP link", from the switch.
        ax = fig.axes[0]
        una = float(acks[acks["t_s"] <= at]["ack"].max())
        hi = window[1]
        ax.plot(
            [at, hi],
            [una / 1e3, (una + (hi - at) * PPP_BYTES_PER_S) / 1e3],
            ls=":",
            color="black",
            lw=1,
            label="960 B/s from the switch",
        )

    def stall(fig, d, data, acks, at, window) -> None:
        # Fig. 7-2's marked interval: the longest time without new data.
        r = row["fast-slow"]
        a, b = float(r["no_new_data_from_s"]), float(r["no_new_data_from_s"] + r["no_new_data_s"])
        before = data[data["t_s"] <= b]
        if not len(before):
            return
        y = float(before["seq"].max() + data["len"].max()) / 1e3
        ax = fig.axes[0]
        ax.annotate("", xy=(a, y), xytext=(b, y), arrowprops={"arrowstyle": "<->"})
        ax.text(
            (a + b) / 2, y, f"{b - a:.1f} s without new data", ha="center", va="bottom", fontsize=8
        )

    def replayed(fig, d, data, acks, at, window) -> None:
        if len(fig.axes) < 2:  # no RTO axis: nothing of the series in the window
            return
        rp = pd.read_csv(d / REPLAY)
        if window is not None:
            rp = rp[(rp["t_s"] >= window[0]) & (rp["t_s"] <= window[1])]
        fig.axes[1].step(
            rp["t_s"],
            rp["rto_s"],
            where="post",
            ls="--",
            lw=1,
            color="tab:purple",
            label="RTO, Linux 2.0's per-ACK sampling replayed",
        )

    fs = row["fast-slow"]
    at = float(fs["at_s"])
    draw(
        "fast-slow",
        "fig7-1",
        "Fig. 7-1 form: data segments sent by the CH",
        (0, float(fs["end_s"])),
        sender_only=True,
    )
    end_stall = float(fs["no_new_data_from_s"] + fs["no_new_data_s"])
    draw(
        "fast-slow",
        "fig7-2",
        "Fig. 7-2 form: after the switch at the CH, RTO on the right",
        (at, end_stall + 10),
        stall,
    )
    for case, stem, fig in (
        ("fast-slow", "fig7-3", "7-3"),
        ("fast-slow-4k", "fig7-4", "7-4"),
        ("fast-slow-536", "fig7-5", "7-5"),
    ):
        r = row[case]
        draw(
            case,
            stem,
            f"Fig. {fig} form: the exchange after the switch at the CH, RTO",
            (float(r["at_s"]), float(r["end_s"])),
            theoretical,
        )
    sf = row["slow-fast"]
    drained = float(sf["at_s"] + sf["drain_s"])
    draw(
        "slow-fast",
        "fig7-10",
        "Fig. 7-10 form: packet exchange over PPP and RTO",
        (0, drained + 0.1),
        replayed,
    )
    draw(
        "slow-fast",
        "fig7-11",
        "Fig. 7-11 form: packet exchange over WaveLAN and RTO",
        (drained - 0.5, drained + 3),
        replayed,
    )
    plt.close("all")
    return done
