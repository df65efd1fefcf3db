//! TFRC flows in the world (`agent::tfrc`): whole runs over the dumbbell of
//! scenarios/examples/tfrc-lossy.toml, each checking a rule of RFC 5348 end to end.

use crate::record::series::TfrcSeries;
use crate::scenario::{self, PresetSet};
use crate::spec::Spec;
use crate::tfrc::equation;
use crate::time::Dur;

/// src -(100 Mb/s, 10 ms)- r -(`rate`, 40 ms)- dst; the bottleneck's data direction loses
/// with probability `loss` before its queue; one TFRC flow of 1000-byte packets.
fn dumbbell(rate: &str, loss: f64, stop_s: u32, extra: &str) -> Spec {
    let text = format!(
        r#"
[run]
name = "tfrc"
seed = 1
stop = "{stop_s} s"

[[node]]
name = "src"
kind = "host"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "dst"
kind = "host"

[[link]]
name = "access"
between = ["src", "r"]
rate = "100 Mb/s"
delay = "10 ms"
queue = "100 packets"

[[link]]
name = "bottleneck"
between = ["r", "dst"]
rate = "{rate}"
delay = "40 ms"
queue = "100 packets"
forward = {{ loss = {loss}, loss_at = "entry" }}

[[flow]]
name = "tfrc"
from = "src"
to = "dst"
kind = "tfrc"

[record]
series = true
{extra}
"#
    );
    let presets = PresetSet::builtin().expect("presets");
    scenario::load("tfrc.toml", &text, &[], &presets).expect("valid scenario")
}

fn run(spec: &Spec) -> (super::Summary, TfrcSeries) {
    let mut out = super::run(spec, Vec::new()).expect("runs");
    let series = out.series[0].tfrc.take().expect("series recorded");
    (out.summary, series)
}

fn tfrc(s: &super::Summary) -> &super::summary::TfrcSummary {
    s.flows[0].tfrc().expect("a TFRC flow")
}

// ---- Tests for slow start (RFC 5348 §4.2, §4.3) ----

#[test]
fn a_lossless_flow_doubles_per_rtt_then_fills_the_link() {
    // RFC 5348 §4.3 step 4: with p = 0, X = max(min(2*X, recv_limit), W_init/R) once per
    // R; §4.2: the first feedback sets X = W_init/R = 4000 B / ~0.1 s. Over a 2 Mb/s
    // bottleneck without random loss the doublings go on until the queue overflows; after
    // that the rate stays near the link's: at least 80 % of its 2 Mb/s of 1040-byte packets
    // (1000 B of data each: 1.923 Mb/s of data) reaches the receiver over the 60 s run.
    let spec = dumbbell("2 Mb/s", 0.0, 60, "");
    let (summary, series) = run(&spec);
    // The slow-start rows after the first feedback (row 1: W_init/R), while p = 0: X at
    // most doubles from one row to the next (one per feedback, about one per RTT), doubles
    // exactly unless 2*X_recv caps it, and passes the link's 2 Mb/s within ten RTTs (1.05 s
    // at ~105 ms): from 306 kb/s that takes three RTTs of growth, two or more of them
    // whole doublings (the others capped by recv_limit = 2*max(X_recv_set)).
    let mut doublings = 0;
    let mut reached = None;
    for i in 2..series.t_ns.len() {
        if series.p[i] > 0.0 {
            break;
        }
        let (a, b) = (series.x_bps[i - 1], series.x_bps[i]);
        assert!(b <= 2.0 * a * (1.0 + 1e-12), "row {i}: {a} -> {b}");
        if ((b / a) - 2.0).abs() < 1e-9 {
            doublings += 1;
        }
        if b >= 2e6 && reached.is_none() {
            reached = Some(series.t_ns[i]);
        }
    }
    assert!(doublings >= 2, "{doublings} doublings in slow start");
    let reached = reached.expect("slow start reaches the link's rate");
    assert!(reached < 1_050_000_000, "at {reached} ns");
    let t = tfrc(&summary);
    assert!(t.loss_events > 0, "the queue's overflow ends slow start");
    let data_bps = 2e6 * 1000.0 / 1040.0;
    let delivered = t.bytes_received as f64 * 8.0 / 60.0;
    assert!(
        delivered > 0.8 * data_bps,
        "{delivered} b/s over the whole run"
    );
    assert!(t.mean_sending_rate_bps < 1.2 * 2e6);
    assert!(summary.run.conservation_ok);
}

// ---- Tests for the throughput equation in a lossy world (RFC 5348 §3.1, §5) ----

#[test]
fn over_a_bernoulli_link_the_rate_is_the_equations() {
    // RFC 5348 §1, §3.1: the sender's rate is the equation's for the loss event rate p and
    // RTT R it sees (t_RTO = 4R, b = 1, s = 1000). Over 300 s at 2 % random loss on a 10 Mb/s
    // bottleneck (never the limit), the mean sending rate is within 15 % of X(mean p, R):
    // p varies over the run and X is convex in p (Jensen), so the two agree only to that.
    let spec = dumbbell("10 Mb/s", 0.02, 300, "");
    let (summary, _) = run(&spec);
    let t = tfrc(&summary);
    let r = Dur::from_secs_f64(t.final_rtt_s.expect("an RTT"));
    let x = equation::throughput(1000, r, t.mean_p, 1.0, r.saturating_mul(4)) * 8.0;
    let err = (t.mean_sending_rate_bps - x).abs() / x;
    assert!(
        err < 0.15,
        "sent {} b/s, equation {x} b/s at p {} R {r:?}",
        t.mean_sending_rate_bps,
        t.mean_p
    );
    // §5: a loss event is at most one per RTT; at 2 % random loss nearly every loss is one.
    assert!(t.loss_events <= t.packets_lost && t.loss_events * 10 > t.packets_lost * 8);
    assert!((t.mean_p - 0.02).abs() < 0.004, "mean p {}", t.mean_p);
    // Drops are booked to the flow, and conservation holds for TFRC packets.
    let drops: u64 = summary.flows[0].drops.iter().map(|d| d.packets).sum();
    let missing = t.packets_sent - t.packets_received;
    assert!(
        drops <= missing && missing - drops < 50,
        "{drops} dropped, {missing} missing"
    );
    assert!(summary.run.conservation_ok);
}

// ---- Tests for the nofeedback timer (RFC 5348 §4.4) ----

#[test]
fn an_outage_halves_the_rate_through_the_nofeedback_timer() {
    // RFC 5348 §4.4: when the nofeedback timer expires the allowed rate is halved (through
    // X_recv, Update_Limits); it keeps halving at each expiry while no feedback comes. An
    // outage of both directions of the bottleneck from 30 s to 36 s stops all feedback.
    let outage = r#"
[[schedule]]
link = "bottleneck"
at = "30 s"
state = "outage"
[[schedule]]
link = "bottleneck"
at = "36 s"
state = "up"
"#;
    let spec = dumbbell("10 Mb/s", 0.01, 45, outage);
    let (summary, series) = run(&spec);
    let t = tfrc(&summary);
    assert!(t.nofeedback_expiries >= 2, "{t:?}");
    let at = |s: f64| (s * 1e9) as u64;
    // Feedback already past the bottleneck at 30 s still arrives (within ~0.1 s).
    let before = (0..series.t_ns.len())
        .rev()
        .find(|&i| series.t_ns[i] < at(30.2))
        .map(|i| series.x_bps[i])
        .expect("rows before the outage");
    let during: Vec<f64> = (0..series.t_ns.len())
        .filter(|&i| series.t_ns[i] >= at(30.2) && series.t_ns[i] < at(36.0))
        .map(|i| series.x_bps[i])
        .collect();
    // Every change during the outage is a cut, the first to at most half the rate before,
    // and the rate goes on falling (more expiries).
    assert!(during.len() >= 2, "{during:?}");
    assert!(during[0] <= before / 2.0 + 1e-6, "{before} -> {during:?}");
    assert!(during.windows(2).all(|w| w[1] <= w[0]), "{during:?}");
    assert!(*during.last().unwrap() <= before / 4.0 + 1e-6, "{during:?}");
}

// ---- Determinism ----

#[test]
fn a_rerun_is_identical() {
    // Same scenario and seed: the same summary, byte for byte, and the same series.
    let spec = dumbbell("10 Mb/s", 0.03, 30, "");
    let (a, sa) = run(&spec);
    let (b, sb) = run(&spec);
    let ja = serde_json::to_string(&a).expect("json");
    let jb = serde_json::to_string(&b).expect("json");
    assert_eq!(ja, jb);
    assert!(tfrc(&a).packets_lost > 0);
    assert_eq!(sa.t_ns, sb.t_ns);
    assert_eq!(sa.x_bps, sb.x_bps);
}

// ---- The drop series (Chen et al. Fig. 9 counts TFRC's losses around a handoff) ----

#[test]
fn every_dropped_data_packet_is_in_the_drop_series_without_the_queues() {
    // record.series with record.queues = false: no queue series, but each TFRC data packet
    // the network drops is a row (Chen et al. Fig. 9: packets lost around a handoff), as
    // many as the summary books to the flow, each at its own offset (seq * s, s = 1000).
    let spec = dumbbell("2 Mb/s", 0.02, 30, "queues = false");
    let mut out = super::run(&spec, Vec::new()).expect("runs");
    assert!(out.queue_series.is_none());
    let ds = out.drop_series.take().expect("drop series recorded");
    let booked: u64 = out.summary.flows[0].drops.iter().map(|d| d.packets).sum();
    assert!(booked >= 20, "{booked} drops: the test needs losses");
    assert_eq!(ds.t_ns.len() as u64, booked);
    assert!(ds.flow.iter().all(|&f| f == 0));
    assert!(ds.len.iter().all(|&l| l == 1000));
    assert!(ds.seq.iter().all(|&s| s % 1000 == 0));
    let mut seqs = ds.seq.clone();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(
        seqs.len(),
        ds.seq.len(),
        "TFRC never resends: each offset once"
    );
    assert!(ds.t_ns.windows(2).all(|w| w[0] <= w[1]));
}

// ---- A sized flow (issue 40 item 19) ----

#[test]
fn a_sized_flow_stops_after_its_size_and_completes() {
    // `flow.size` on a TFRC flow: the sender sends the packets that carry it (500 kB in
    // 1000-byte packets: 500) and no more, and the flow completes when the last one has
    // left the network; the run then ends, completed. It stalled ("the simulation stopped
    // advancing"): the sender's next send time stayed due once it had sent the size.
    for (loss, lossy) in [(0.0, false), (0.02, true)] {
        let mut spec = dumbbell("2 Mb/s", loss, 600, "");
        spec.flows[0].bytes = 500_000;
        let out = super::run(&spec, Vec::new()).expect("runs");
        let s = &out.summary;
        let f = &s.flows[0];
        let t = tfrc(s);
        assert_eq!(
            (t.packets_sent, t.bytes_sent),
            (500, 500_000),
            "loss {loss}"
        );
        assert!(f.completed, "loss {loss}: {f:?}");
        let tt = f.transfer_time_s.expect("a completion time");
        // 500 kB at 2 Mb/s is 2 s at the least; slow start and the losses add to it.
        assert!(tt > 2.0 && tt < 60.0, "loss {loss}: {tt} s");
        assert_eq!(s.run.ended_by, "completed", "loss {loss}");
        assert!(
            s.run.simulated_s < tt + 1.0,
            "loss {loss}: {}",
            s.run.simulated_s
        );
        // Every packet sent arrived or was dropped (the queue's overflow in slow start,
        // the random losses): none is left in flight.
        let dropped: u64 = f.drops.iter().map(|d| d.packets).sum();
        assert_eq!(t.bytes_received / 1000 + dropped, 500, "loss {loss}: {f:?}");
        assert!(!lossy || t.bytes_received < 500_000, "{t:?}");
        assert!(s.run.conservation_ok);
        // Deterministic.
        let again = super::run(&spec, Vec::new()).expect("runs");
        assert_eq!(
            serde_json::to_string(&out.summary).expect("json"),
            serde_json::to_string(&again.summary).expect("json")
        );
    }
}
