"""Figures (matplotlib): every figure is drawn from data vho stored, never by hand.

- :func:`time_sequence`: a tcptrace-style time-sequence graph: data segments as they were seen
  at a capture point, retransmissions and drops marked, the cumulative ACK line, the handover
  instant, and (with vho's time series) the sender's RTO on a right axis, as in the thesis's
  Figures 7-2/7-3.
- :func:`throughput_adaptation`: throughput per interval after a handover with the connection's
  mean and the adaptation time t_a marked (Cottingham & Vidales, Fig. 7).
- :func:`congestion_window`: the sender's cwnd and ssthresh over time (vho's time series).
- :func:`data_in_flight`: the data in flight seen in a capture over time, when no time series
  is at hand.
- :func:`mptcp_sequence`: a Multipath TCP connection's time-sequence graph in data sequence
  space, each subflow in its colour, reinjections and data-level retransmissions marked, the
  DATA_ACK line.
- :func:`variants_over_time`: a quantity over time for several variants of a run, panel above
  panel, with the instants each variant acted (Chen et al. Figs. 6-8).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd


def _save(fig: plt.Figure, stem: Path, formats: Iterable[str]) -> list[Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        p = stem.with_suffix(f".{fmt}")
        # Fixed metadata so that reruns give byte-identical files where the format allows.
        meta = {"Date": None} if fmt == "svg" else {}
        fig.savefig(p, dpi=120, bbox_inches="tight", metadata=meta or None)
        paths.append(p)
    plt.close(fig)
    return paths


#: The colours of a handover's steps (``steps`` of :func:`time_sequence_figure`), by name.
STEP_COLOURS = ("tab:purple", "tab:olive", "tab:cyan", "tab:pink", "tab:brown", "tab:green")


def _steps(ax: plt.Axes, steps: Iterable[tuple[float, str]]) -> None:
    """Dotted lines at a handover's steps, one colour and one legend entry per name."""
    colour: dict[str, str] = {}
    for t, name in steps:
        first = name not in colour
        c = colour.setdefault(name, STEP_COLOURS[len(colour) % len(STEP_COLOURS)])
        ax.axvline(t, color=c, ls=":", lw=1.2, label=name if first else None)


def _axes(ax: plt.Axes, ylabel: str, handovers: Iterable[float], title: str) -> None:
    """What every time plot has: the handover instants, the axis labels, a grid, the title."""
    for i, h in enumerate(handovers):
        ax.axvline(h, color="black", ls="--", lw=1, label="handover" if i == 0 else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)


#: Marks (data segments and ACKs) above which a time-sequence graph's SVG embeds them as a
#: bitmap.
RASTER_ABOVE = 20_000

#: How a time-sequence graph marks a drop, by its ``source``: the legend's words and the
#: marker. A drop the simulator logged is certain; a gap in a capture says only that the
#: bytes never passed the capture point (see :func:`vho.capture.flow_gaps`).
DROP_MARKS: dict[str, tuple[str, dict[str, object]]] = {
    "simulator": ("dropped (simulator)", {"marker": "v", "color": "tab:red"}),
    "capture gap": (
        "not seen here: lost before the capture point",
        {"marker": "o", "facecolors": "none", "edgecolors": "black"},
    ),
}
# A source not named above.
_OTHER_DROP = {"marker": "s", "facecolors": "none", "edgecolors": "tab:brown"}


def _in_window(df: pd.DataFrame | None, window: tuple[float, float] | None):
    if df is None or window is None:
        return df
    lo, hi = window
    return df[(df.t_s >= lo) & (df.t_s <= hi)]


def time_sequence(
    data: pd.DataFrame,
    acks: pd.DataFrame | None,
    stem: str | Path,
    *,
    sacks: pd.DataFrame | None = None,
    title: str = "",
    handovers: Iterable[float] = (),
    rto: pd.DataFrame | None = None,
    window: tuple[float, float] | None = None,
    drops: pd.DataFrame | None = None,
    formats: Iterable[str] = ("png", "svg"),
    steps: Iterable[tuple[float, str]] = (),
) -> list[Path]:
    """Time-sequence graph written to ``stem`` in each of ``formats`` (see
    :func:`time_sequence_figure` for the rest); returns the files written."""
    fig = time_sequence_figure(
        data,
        acks,
        sacks=sacks,
        title=title,
        handovers=handovers,
        rto=rto,
        window=window,
        drops=drops,
        steps=steps,
    )
    return _save(fig, Path(stem), formats)


def time_sequence_figure(
    data: pd.DataFrame,
    acks: pd.DataFrame | None,
    *,
    sacks: pd.DataFrame | None = None,
    title: str = "",
    handovers: Iterable[float] = (),
    rto: pd.DataFrame | None = None,
    window: tuple[float, float] | None = None,
    drops: pd.DataFrame | None = None,
    steps: Iterable[tuple[float, str]] = (),
) -> plt.Figure:
    """Time-sequence graph.

    ``steps``: (time, name) of a handover's steps, each drawn as a dotted line of its own
    colour (a Mobile IPv6 handover's T_n = t_d + t_c + t_r: the decision to move, the care-of
    address configured, the Binding Update, its acknowledgement, the Binding Update to the
    correspondent, the first route-optimised packet).

    ``data``: one row per data segment with ``t_s``, ``seq`` (relative, bytes), ``len`` and a
    boolean ``retransmission``. ``acks``: ``t_s`` and ``ack`` (relative). ``sacks``: one row per
    SACK block, ``t_s``, ``left`` and ``right`` (relative), drawn as tcptrace draws them.
    ``rto``: ``t_s`` and ``rto_s``. ``drops``: ``t_s``, ``seq`` (relative, as ``data``),
    ``len`` and ``source`` (see :data:`DROP_MARKS`), each source with its own marker.
    ``window``: the time span drawn. Sequence numbers are drawn in kilobytes. The data is
    drawn over the ACK line and the SACK blocks, and the legend below the axes, so that
    neither hides a segment.
    """
    fig, ax = plt.subplots(figsize=(8, 4.5))
    data = _in_window(data, window)
    acks, rto, sacks, drops = (_in_window(x, window) for x in (acks, rto, sacks, drops))
    new = data[~data.retransmission]
    ret = data[data.retransmission]
    # Past this many segments the SVG gets the marks as a bitmap (the axes and text stay
    # vectors): 300,000 vector lines took half a minute to write and a browser to its knees.
    dense = len(data) + (len(acks) if acks is not None else 0) > RASTER_ABOVE
    # Bottom to top: the ACK line (thin, see-through), SACK blocks, data, retransmissions,
    # drops.
    if acks is not None and len(acks):
        ax.step(
            acks.t_s,
            acks.ack / 1e3,
            where="post",
            color="tab:green",
            lw=0.7,
            alpha=0.6,
            zorder=1,
            label="cumulative ACK",
            rasterized=dense,
        )
    if sacks is not None and len(sacks):
        ax.vlines(
            sacks.t_s,
            sacks.left / 1e3,
            sacks.right / 1e3,
            color="tab:purple",
            lw=1.5,
            alpha=0.7,
            zorder=2,
            label="SACK block",
            rasterized=dense,
        )
    ax.vlines(
        new.t_s,
        new.seq / 1e3,
        (new.seq + new.len) / 1e3,
        color="tab:blue",
        lw=1.2,
        zorder=3,
        label="data",
        rasterized=dense,
    )
    if len(ret):
        ax.scatter(
            ret.t_s,
            (ret.seq + ret.len / 2) / 1e3,
            marker="x",
            color="tab:red",
            s=18,
            zorder=4,
            label="retransmission",
            rasterized=dense,
        )
    if drops is not None and len(drops):
        _drops(ax, drops)
    _axes(ax, "sequence number (kB)", handovers, title)
    _steps(ax, steps)
    handles, labels = ax.get_legend_handles_labels()
    if rto is not None and len(rto):
        ax2 = ax.twinx()
        ax2.step(rto.t_s, rto.rto_s, where="post", color="tab:orange", lw=1, label="RTO")
        ax2.set_ylabel("RTO (s)", color="tab:orange")
        ax2.tick_params(axis="y", colors="tab:orange")
        # The sequence axes over the RTO's, so that its line does not cover the data either.
        ax.set_zorder(ax2.get_zorder() + 1)
        ax.patch.set_visible(False)
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    # Below the axes (under the time axis's label): inside, it covered the transfer's end.
    ax.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncol=min(len(labels), 4) or 1,
        fontsize=8,
        frameon=False,
    )
    return fig


#: Subflow colours of :func:`mptcp_sequence`, in the order of the subflows given.
SUBFLOW_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:cyan")


def mptcp_sequence(
    data: pd.DataFrame,
    acks: pd.DataFrame | None,
    stem: str | Path,
    *,
    subflows: dict[int, str],
    title: str = "",
    handovers: Iterable[float] = (),
    formats: Iterable[str] = ("png", "svg"),
) -> list[Path]:
    """A Multipath TCP connection's time-sequence graph in DSN space, written to ``stem``:
    ``data`` (``t_s``, ``subflow``, ``dsn``, ``len``, ``reinjection``,
    ``data_retransmission``; :func:`vho.analysis.mptcp.segments`) one colour per subflow
    (``subflows``: index -> legend label), ``acks`` (``t_s``, ``ack``) the DATA_ACK line.
    Returns the files written."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for i, (index, label) in enumerate(subflows.items()):
        d = data[data.subflow == index]
        if d.empty:
            continue
        ax.vlines(
            d.t_s,
            d.dsn.astype(float),
            d.dsn.astype(float) + d.len,
            color=SUBFLOW_COLOURS[i % len(SUBFLOW_COLOURS)],
            lw=1.5,
            zorder=2,
            label=label,
        )
    for col, mark, words in (
        (
            "reinjection",
            {"marker": "x", "color": "tab:red"},
            "reinjection (sent on another subflow before)",
        ),
        (
            "data_retransmission",
            {"marker": "o", "facecolors": "none", "edgecolors": "black"},
            "DSN bytes seen before",
        ),
    ):
        d = data[data[col]]
        if len(d):
            ax.scatter(d.t_s, d.dsn.astype(float), s=18, label=words, zorder=3, **mark)
    if acks is not None and len(acks):
        ax.step(
            acks.t_s,
            acks.ack.astype(float),
            where="post",
            color="grey",
            lw=0.8,
            alpha=0.7,
            zorder=1,
            label="DATA_ACK",
        )
    _axes(ax, "data sequence number (relative to the IDSN)", handovers, title)
    ax.legend(fontsize=8, loc="upper left")
    return _save(fig, Path(stem), formats)


def _drops(ax: plt.Axes, drops: pd.DataFrame) -> None:
    """Each source's drops: the missing bytes as a thin line, a marker at their middle."""
    for source, d in drops.groupby("source", sort=True):
        label, style = DROP_MARKS.get(str(source), (f"dropped ({source})", _OTHER_DROP))
        color = style.get("color", style.get("edgecolors"))
        ax.vlines(d.t_s, d.seq / 1e3, (d.seq + d.len) / 1e3, color=color, lw=1, zorder=5)
        ax.scatter(
            d.t_s,
            (d.seq + d.len / 2) / 1e3,
            s=45,
            linewidths=1.2,
            zorder=5,
            label=label,
            **style,
        )


def throughput_adaptation(
    throughput: pd.DataFrame,
    stem: str | Path,
    *,
    handover_at: float | None,
    mean_bps: float | None,
    adaptation_time_s: float | None,
    t_a_from: float | None = None,
    title: str = "",
    formats: Iterable[str] = ("png", "svg"),
    handovers: Iterable[float] = (),
) -> list[Path]:
    """Throughput per interval (``t_s``, ``bps``) with the mean and t_a marked; t_a runs from
    ``t_a_from`` (the first data after the handover; the handover instant if not given). All
    of ``handovers`` are marked (``handover_at`` alone if none are given); without any, the
    throughput and its mean are still drawn."""
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.step(
        throughput.t_s,
        throughput.bps / 1e3,
        where="post",
        color="tab:blue",
        lw=1,
        label="throughput",
    )
    marks = list(handovers) or ([handover_at] if handover_at is not None else [])
    _axes(ax, "throughput (kb/s)", marks, title)
    if mean_bps is not None:
        ax.axhline(mean_bps / 1e3, color="tab:gray", ls=":", label="connection mean")
    if adaptation_time_s is not None and handover_at is not None:
        start = handover_at if t_a_from is None else t_a_from
        ax.axvspan(
            start,
            start + adaptation_time_s,
            color="tab:orange",
            alpha=0.15,
            label=f"t_a = {adaptation_time_s:.3f} s",
        )
    ax.legend(fontsize=8)
    return _save(fig, Path(stem), formats)


def congestion_window(
    series: pd.DataFrame,
    stem: str | Path,
    *,
    handovers: Iterable[float] = (),
    title: str = "",
    formats: Iterable[str] = ("png", "svg"),
) -> list[Path]:
    """cwnd, ssthresh and the data in flight (``t_s``, ``cwnd``, ``ssthresh``, ``flight``, in
    bytes) over time, in kilobytes."""
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.step(series.t_s, series.cwnd / 1e3, where="post", color="tab:blue", lw=1, label="cwnd")
    # ns-2 and RFC 5681 start ssthresh "arbitrarily high": clip it to keep cwnd readable.
    top = max(float(series.cwnd.max()), 1.0) * 1.5
    ax.step(
        series.t_s,
        series.ssthresh.clip(upper=top) / 1e3,
        where="post",
        color="tab:red",
        lw=1,
        ls="--",
        label="ssthresh (clipped)",
    )
    if "flight" in series:
        ax.step(
            series.t_s,
            series.flight / 1e3,
            where="post",
            color="tab:gray",
            lw=0.8,
            alpha=0.7,
            label="in flight",
        )
    _axes(ax, "kB", handovers, title)
    ax.legend(fontsize=8)
    return _save(fig, Path(stem), formats)


def data_in_flight(
    flight: pd.DataFrame,
    stem: str | Path,
    *,
    handovers: Iterable[float] = (),
    title: str = "",
    formats: Iterable[str] = ("png", "svg"),
) -> list[Path]:
    """The data in flight seen in a capture (``t_s``, ``flight`` in bytes; see
    :func:`vho.capture.flow_in_flight`) over time, in kilobytes."""
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.step(
        flight.t_s,
        flight.flight / 1e3,
        where="post",
        color="tab:gray",
        lw=1,
        label="in flight at the capture point",
    )
    _axes(ax, "kB", handovers, title)
    ax.legend(fontsize=8)
    return _save(fig, Path(stem), formats)


#: Colours of compared variants, in order (the original first, in grey).
VARIANT_COLOURS = ("tab:gray", "tab:blue", "tab:red", "tab:green", "tab:purple")


def variants_over_time(
    panels: list[tuple[str, dict[str, pd.DataFrame]]],
    stem: str | Path,
    *,
    handovers: Iterable[float] = (),
    marks: Iterable[tuple[float, str, str]] = (),
    window: tuple[float, float] | None = None,
    title: str = "",
    formats: Iterable[str] = ("png", "svg"),
) -> list[Path]:
    """Panels (a), (b), ... one above the other, each a quantity over time for several
    variants, as a paper's "original vs. remedies" figure (Chen et al. Figs. 6-8): per panel
    its y label and, per variant label, a frame of ``t_s`` and ``y`` drawn as steps in the
    variant's colour (the same in every panel). ``marks``: (time, variant label, name)
    instants drawn as dotted lines in the variant's colour (a detection, a notification).
    ``window``: the time axis's limits."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.2 * len(panels)), sharex=True)
    axes = list(axes) if len(panels) > 1 else [axes]
    marks = list(marks)
    for i, (ax, (ylabel, series)) in enumerate(zip(axes, panels, strict=True)):
        colour = {}
        for j, (label, df) in enumerate(series.items()):
            colour[label] = VARIANT_COLOURS[j % len(VARIANT_COLOURS)]
            d = _in_window(df, window)
            ax.step(d.t_s, d.y, where="post", lw=1.1, color=colour[label], label=label)
        for t, label, name in marks:
            ax.axvline(t, color=colour.get(label, "black"), ls=":", lw=1.2, label=name)
        _axes(ax, ylabel, handovers, f"({chr(ord('a') + i)}) {title}" if title else "")
        ax.legend(fontsize=8)
        if window is not None:
            ax.set_xlim(*window)
    return _save(fig, Path(stem), formats)
