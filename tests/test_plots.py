"""Figures (issue 18, 7): the time-sequence graph keeps the data visible (over the ACK line and
the SACK blocks, the legend outside the axes) and marks drops by where they were known. What
is checked is matplotlib's state (what is drawn, in which order, with which legend), never
pixels."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

import vho
from vho import capture, plots
from vho.analysis import figures

LOSSY = Path(__file__).resolve().parent.parent / "benches/scenarios/lossy-link.toml"


def _flow() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Ten 1000-byte segments, the fourth lost and sent again at 1.0 s; the ACKs and SACK
    blocks of a receiver that holds the rest."""
    seqs = [0, 1000, 2000, 4000, 5000, 6000, 7000, 8000, 9000, 3000]
    data = pd.DataFrame(
        {
            "t_s": [0.1 * i for i in range(9)] + [1.0],
            "seq": seqs,
            "len": 1000,
            "retransmission": [False] * 9 + [True],
        }
    )
    acks = pd.DataFrame({"t_s": data.t_s + 0.05, "ack": [1000, 2000, 3000] + [3000] * 6 + [10000]})
    sacks = pd.DataFrame(
        {"t_s": acks.t_s[3:9], "left": 4000, "right": [5000 + 1000 * i for i in range(6)]}
    )
    return data, acks, sacks


GAP = pd.DataFrame({"t_s": [0.3], "seq": [3000], "len": [1000], "source": ["capture gap"]})
SIM = pd.DataFrame({"t_s": [0.25], "seq": [3000], "len": [1000], "source": ["simulator"]})


def _legend(fig: plt.Figure) -> list[str]:
    (ax,) = [a for a in fig.axes if a.get_legend() is not None]
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _artist(ax: plt.Axes, label: str):
    (a,) = [c for c in [*ax.lines, *ax.collections] if c.get_label() == label]
    return a


def test_data_is_drawn_over_the_ack_line_and_the_sack_blocks() -> None:
    data, acks, sacks = _flow()
    fig = plots.time_sequence_figure(data, acks, sacks=sacks)
    ax = fig.axes[0]
    ack, sack = _artist(ax, "cumulative ACK"), _artist(ax, "SACK block")
    seg, rtx = _artist(ax, "data"), _artist(ax, "retransmission")
    assert ack.get_zorder() < sack.get_zorder() < seg.get_zorder() < rtx.get_zorder()
    # Where the ACK line and the data coincide, the data shows through it.
    assert ack.get_alpha() is not None and ack.get_alpha() < 1
    plt.close(fig)


@pytest.mark.parametrize("with_rto", [False, True])
def test_the_legend_lies_outside_the_axes(with_rto: bool) -> None:
    data, acks, sacks = _flow()
    rto = pd.DataFrame({"t_s": [0.0, 1.0], "rto_s": [1.0, 2.0]}) if with_rto else None
    fig = plots.time_sequence_figure(data, acks, sacks=sacks, rto=rto, drops=GAP)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    for a in fig.axes:  # the RTO's twin axes too
        assert legend.y1 <= a.get_window_extent().y0, (legend, a.get_window_extent())
    if with_rto:
        # The sequence axes sit over the RTO's: its line does not cover the data either.
        assert ax.get_zorder() > fig.axes[1].get_zorder()
        assert "RTO" in _legend(fig)
    plt.close(fig)


def test_drops_are_marked_by_source_with_their_legend_entries(tmp_path: Path) -> None:
    data, acks, sacks = _flow()
    drops = pd.concat([GAP, SIM], ignore_index=True)
    fig = plots.time_sequence_figure(data, acks, sacks=sacks, drops=drops)
    labels = _legend(fig)
    gap, sim = plots.DROP_MARKS["capture gap"][0], plots.DROP_MARKS["simulator"][0]
    assert gap == "not seen here: lost before the capture point"
    assert sim == "dropped (simulator)"
    assert {gap, sim} <= set(labels)
    ax = fig.axes[0]
    for label, t in ((gap, 0.3), (sim, 0.25)):
        marks = _artist(ax, label)
        # At the drop's time, the middle of its bytes (kB), over the data.
        assert marks.get_offsets().tolist() == [[t, 3.5]]
        assert marks.get_zorder() > _artist(ax, "data").get_zorder()
    # Two sources, two markers.
    shapes = [_artist(ax, x).get_paths()[0].vertices.tolist() for x in (gap, sim)]
    assert shapes[0] != shapes[1]
    plt.close(fig)
    paths = plots.time_sequence(data, acks, tmp_path / "seq", sacks=sacks, drops=drops)
    assert [p.name for p in paths] == ["seq.png", "seq.svg"]
    assert all(p.stat().st_size > 0 for p in paths)


def test_drops_outside_the_window_are_not_drawn() -> None:
    data, acks, sacks = _flow()
    drops = pd.concat([GAP, SIM.assign(t_s=5.0)], ignore_index=True)
    fig = plots.time_sequence_figure(data, acks, sacks=sacks, drops=drops, window=(0.0, 1.0))
    labels = _legend(fig)
    assert "not seen here: lost before the capture point" in labels
    assert "dropped (simulator)" not in labels
    plt.close(fig)


# The figures of `vho analyze`.


@pytest.fixture(scope="module")
def lossy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A download over a link that loses 2 % on the way to the mobile, captured at both ends,
    without vho's time series (as a real capture)."""
    out = tmp_path_factory.mktemp("lossy")
    sets = ['flow.0.tcp.profile="rfc"', 'record.pcap=["ch","mh"]', 'flow.0.size="300 KB"']
    vho.run(LOSSY, out_dir=out, overrides=sets)
    return out


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, object]]:
    """Each figure written, by file stem: its axes' titles and legend labels."""
    seen: dict[str, dict[str, object]] = {}
    save = plots._save

    def spy(fig: plt.Figure, stem: Path, formats):
        legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
        seen[stem.name] = {
            "titles": [a.get_title() for a in fig.axes],
            "legend": [t.get_text() for lg in legends for t in lg.get_texts()],
        }
        return save(fig, stem, formats)

    monkeypatch.setattr(plots, "_save", spy)
    return seen


def test_analyze_marks_the_gaps_of_a_receiver_side_capture(
    lossy: Path, tmp_path: Path, drawn: dict[str, dict[str, object]]
) -> None:
    gap = plots.DROP_MARKS["capture gap"][0]
    a = vho.analyze(lossy / "mh.pcap", out_dir=tmp_path / "mh")
    assert (tmp_path / "mh" / "sequence_flow0.png").is_file()
    assert a.metrics["flows"][0]["lost_segments"] > 0
    assert gap in drawn["sequence_flow0"]["legend"]
    # At the sender every byte passed the capture point: nothing to mark.
    vho.analyze(lossy / "ch.pcap", out_dir=tmp_path / "ch")
    assert gap not in drawn["sequence_flow0"]["legend"]


def test_the_simulators_drops_are_drawn_when_given(
    lossy: Path, tmp_path: Path, drawn: dict[str, dict[str, object]]
) -> None:
    a = vho.analyze(lossy / "ch.pcap")
    (entry,) = a.metrics["flows"]
    sim = pd.DataFrame({"t_s": [9.0], "seq": [157680], "len": [1460]})
    paths = figures.draw(tmp_path, entry, a.segments(0), [], None, None, sim_drops=sim)
    assert tmp_path / "sequence_flow0.png" in paths
    legend = drawn["sequence_flow0"]["legend"]
    assert "dropped (simulator)" in legend
    assert plots.DROP_MARKS["capture gap"][0] not in legend


def test_vho_run_plot_marks_the_gaps_at_the_mobile(
    tmp_path: Path, drawn: dict[str, dict[str, object]]
) -> None:
    sets = ['flow.0.tcp.profile="rfc"', 'record.pcap=["ch","mh"]', 'flow.0.size="300 KB"']
    vho.run(LOSSY, out_dir=tmp_path, overrides=sets, plot=True)
    gap = plots.DROP_MARKS["capture gap"][0]
    assert gap in drawn["sequence_mh"]["legend"]
    assert gap not in drawn["sequence_ch"]["legend"]


def test_the_simulators_drop_log_is_drawn_by_run_and_analyze(
    tmp_path: Path, drawn: dict[str, dict[str, object]]
) -> None:
    # Daniel & Kojo's Fig. 1 case drops 7 segments in the GPRS queue and leaves no gap at the
    # mobile (the tail is recovered by a timeout): only the simulator knows the drops, and
    # both `vho run --plot` and `vho analyze` of its capture (series beside it) mark them.
    fig1 = LOSSY.parent.parent.parent / "scenarios/examples/dk-fig1-wlan-gprs.toml"
    r = vho.run(fig1, out_dir=tmp_path / "run", plot=True)
    assert r.drops is not None and len(r.drops) == 7
    sim = plots.DROP_MARKS["simulator"][0]
    assert sim in drawn["sequence_mh"]["legend"]
    vho.analyze(tmp_path / "run" / "mh.pcap", out_dir=tmp_path / "an")
    assert sim in drawn["sequence_flow0"]["legend"]


@pytest.mark.parametrize(
    ("node", "says"),
    [
        ("ch", "captured at the sender: it approximates cwnd"),
        ("mh", "captured at the receiver: the data it has not yet ACKed"),
    ],
)
def test_without_a_time_series_the_cwnd_figure_shows_the_data_in_flight(
    lossy: Path, tmp_path: Path, drawn: dict[str, dict[str, object]], node: str, says: str
) -> None:
    # Issue 18 (6): a real capture has no vho time series; its cwnd figure is drawn anyway,
    # from the capture, and its title says what it is where the capture was taken.
    a = vho.analyze(lossy / f"{node}.pcap", out_dir=tmp_path)
    assert (tmp_path / "cwnd_flow0.png").is_file() and (tmp_path / "cwnd_flow0.svg").is_file()
    (title,) = drawn["cwnd_flow0"]["titles"]
    assert title.startswith("flow 0: data in flight seen in the capture"), title
    assert says in title, title
    assert drawn["cwnd_flow0"]["legend"] == ["in flight at the capture point"]
    assert a.metrics["flows"][0]["capture_point"]["point"] == (
        "sender" if node == "ch" else "receiver"
    )


def test_at_the_receiver_the_data_in_flight_is_not_the_senders_window(lossy: Path) -> None:
    # Why the title says so: a receiver ACKs at least every second full-sized segment (RFC
    # 5681 §4.2), so between losses it holds at most two unACKed; the sender, its window
    # (20 packets here, reached within the transfer).
    mss = 1460
    medians = {}
    for node in ("ch", "mh"):
        a = vho.analyze(lossy / f"{node}.pcap")
        (e,) = a.metrics["flows"]
        sender = (e["sender"]["addr"], e["sender"]["port"])
        data, acks, _ = capture.flow_sequence(a.segments(0), sender)
        medians[node] = capture.flow_in_flight(data, acks).flight.median()
    assert medians["mh"] <= 2 * mss
    assert medians["ch"] >= 10 * mss


def test_a_damaged_drop_log_beside_a_capture_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vho.cli import main

    fig1 = LOSSY.parent.parent.parent / "scenarios/examples/dk-fig1-wlan-gprs.toml"
    vho.run(fig1, out_dir=tmp_path / "run")
    drops = tmp_path / "run" / "series_drops.parquet"
    drops.write_bytes(drops.read_bytes()[:40])
    out = tmp_path / "an"
    assert main(["analyze", str(tmp_path / "run" / "mh.pcap"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "series_drops.parquet: not a Parquet file" in err, err
    assert not out.exists()
