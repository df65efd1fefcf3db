//! Cross traffic in the world (`world::cross`): Pareto flows run whole, checked against ns-2's
//! definition of the source (`Application/Traffic/Pareto`, pareto.cc) and the scenario's
//! refusals.

use crate::scenario::{self, PresetSet};
use crate::spec::Spec;

/// `n` Pareto flows from hosts a0..a(n-1) through router r to host b over links of
/// `access_rate` and a last link of `last_rate`, `pareto` as each flow's `[flow.pareto]`.
fn star(
    n: usize,
    access_rate: &str,
    last_rate: &str,
    stop_s: u32,
    seed: u64,
    pareto: &str,
) -> String {
    let mut t = format!(
        "[run]\nname = \"cross\"\nseed = {seed}\nstop = \"{stop_s} s\"\n\n\
         [[node]]\nname = \"r\"\nkind = \"router\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n\
         [[link]]\nname = \"last\"\nbetween = [\"r\", \"b\"]\nrate = \"{last_rate}\"\n\
         delay = \"5 ms\"\nqueue = \"50 packets\"\n"
    );
    for i in 0..n {
        t += &format!(
            "[[node]]\nname = \"a{i}\"\nkind = \"host\"\n\
             [[link]]\nname = \"l{i}\"\nbetween = [\"a{i}\", \"r\"]\nrate = \"{access_rate}\"\n\
             delay = \"1 ms\"\nqueue = \"50 packets\"\n\
             [[flow]]\nname = \"p{i}\"\nfrom = \"a{i}\"\nto = \"b\"\nkind = \"pareto\"\n\
             pareto = {{ {pareto} }}\n"
        );
    }
    t
}

fn load(text: &str) -> Result<Spec, crate::scenario::ScenarioError> {
    let presets = PresetSet::builtin().expect("presets");
    scenario::load("cross.toml", text, &[], &presets)
}

fn run(spec: &Spec) -> super::RunOutput {
    super::run(spec, Vec::new()).expect("runs")
}

// ---- Tests for the source in the world (ns-2's pareto.cc) ----

#[test]
fn the_delivered_rate_of_uncongested_pareto_flows_is_the_configured_mean() {
    // ns-2's POO_Traffic: a mean burst of burst_time at `rate`, a mean idle time of
    // idle_time, so a long-run rate of rate · on / (on + off): 1 Mb/s · 0.5 / (0.5 + 0.5) =
    // 500 kb/s per flow, 4 Mb/s for 8 flows, on links of 100 Mb/s that never queue much.
    // Shape 1.9 (Chen et al. §5) has an infinite variance, so the sample mean settles slowly:
    // 8 flows of 3000 s (about 24,000 bursts) are held to 5 %.
    let text = star(
        8,
        "100 Mb/s",
        "100 Mb/s",
        3000,
        1,
        "rate = \"1 Mb/s\", packet_size = \"1000 B\"",
    );
    let spec = load(&text).expect("valid");
    let out = run(&spec);
    let (mut sent, mut delivered, mut dropped) = (0u64, 0u64, 0u64);
    for f in &out.summary.flows {
        let c = f.cross.as_ref().expect("a Pareto flow");
        assert_eq!(c.configured_mean_bps, 500_000.0);
        assert_eq!(c.shape, 1.9, "the paper's shape by default");
        sent += c.packets_sent;
        delivered += c.packets_delivered;
        dropped += c.packets_dropped;
    }
    assert_eq!(dropped, 0, "an uncongested path drops nothing");
    // Whatever was not delivered is still on its way at the stop.
    assert!(
        sent - delivered <= 8 * 10,
        "sent {sent} delivered {delivered}"
    );
    let rate = delivered as f64 * 1000.0 * 8.0 / 3000.0;
    let want = 8.0 * 500_000.0;
    eprintln!("8 Pareto flows, 3000 s: {rate:.0} b/s delivered against {want:.0}");
    assert!((rate - want).abs() / want < 0.05, "rate {rate} want {want}");
}

#[test]
fn the_series_adds_up_to_the_counts_and_the_same_seed_repeats_it() {
    // The rate series (series_cross.parquet's rows) is the same bytes as the summary's
    // counts, binned by CROSS_INTERVAL; the seed alone decides every draw (STYLE: one stream
    // per flow from the run's seed), so a rerun is identical and another seed is not.
    let series = |seed| {
        let text = star(2, "100 Mb/s", "100 Mb/s", 60, seed, "rate = \"2 Mb/s\"");
        let out = run(&load(&text).expect("valid"));
        let bins = out.cross_bins[0].clone().expect("binned");
        let c = out.summary.flows[0].cross.clone().expect("a Pareto flow");
        assert_eq!(bins.interval, super::CROSS_INTERVAL);
        assert_eq!(bins.sent.iter().sum::<u64>(), c.bytes_sent);
        assert_eq!(bins.delivered.iter().sum::<u64>(), c.bytes_delivered);
        assert!(c.packets_sent > 1000, "{c:?}");
        (bins.sent, bins.delivered)
    };
    assert_eq!(series(5), series(5));
    assert_ne!(series(5), series(6));
}

#[test]
fn a_congested_link_drops_cross_traffic_and_every_datagram_is_accounted_for() {
    // 4 flows of 2 Mb/s bursts (4 Mb/s mean in all) into a 1 Mb/s last link with 50 packets of
    // queue: the queue overflows; every datagram sent is delivered, dropped (booked to its
    // flow by link and cause) or still in the network at the stop.
    let text = star(4, "100 Mb/s", "1 Mb/s", 100, 3, "rate = \"2 Mb/s\"");
    let out = run(&load(&text).expect("valid"));
    let (mut sent, mut accounted) = (0u64, 0u64);
    for f in &out.summary.flows {
        let c = f.cross.as_ref().expect("a Pareto flow");
        let by_cause: u64 = f.drops.iter().map(|d| d.packets).sum();
        assert_eq!(by_cause, c.packets_dropped);
        assert!(f
            .drops
            .iter()
            .all(|d| d.cause == "queue_overflow" && d.link == "last"));
        sent += c.packets_sent;
        accounted += c.packets_delivered + c.packets_dropped;
    }
    let in_network: u64 = out.summary.links.iter().map(|l| l.still_in_network).sum();
    assert!(accounted < sent, "the 1 Mb/s link must drop");
    assert_eq!(accounted + in_network, sent);
    // The last link carries at most its rate: 1 Mb/s of 210-byte datagrams over 100 s.
    let delivered: u64 = out
        .summary
        .flows
        .iter()
        .map(|f| f.cross.as_ref().map_or(0, |c| c.bytes_delivered))
        .sum();
    assert!(delivered * 8 <= 100 * 1_000_000 + 8 * 210, "{delivered}");
    assert!(
        delivered * 8 > 90 * 1_000_000,
        "a saturated link: {delivered}"
    );
}

// ---- Tests for the scenario's refusals ----

fn refused(pareto: &str) -> String {
    let text = star(1, "100 Mb/s", "100 Mb/s", 10, 1, pareto);
    let e = load(&text).expect_err("refused").to_string();
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    e
}

#[test]
fn shapes_at_or_below_one_and_bad_rates_are_refused_in_one_line() {
    // A Pareto variable of shape a has mean scale · a / (a − 1): infinite at a <= 1, where
    // ns-2's p1 = burstlen · (a − 1) / a would be zero or negative.
    for shape in ["1.0", "0.5", "-2.0"] {
        let e = refused(&format!("shape = {shape}"));
        assert!(
            e.contains("flow.pareto.shape") && e.contains("above 1"),
            "{e}"
        );
    }
    for rate in ["-5 Mb/s", "0 Mb/s"] {
        let e = refused(&format!("rate = \"{rate}\""));
        assert!(
            e.contains("flow.pareto.rate") && e.contains("positive"),
            "{e}"
        );
    }
    let e = refused("idle_time = \"0 s\"");
    assert!(e.contains("flow.pareto.idle_time"), "{e}");
    let e = refused("packet_size = \"0 B\"");
    assert!(e.contains("flow.pareto.packet_size"), "{e}");
}

#[test]
fn a_pareto_flow_takes_no_size_and_a_tcp_flow_no_pareto_table() {
    let text = star(1, "100 Mb/s", "100 Mb/s", 10, 1, "rate = \"1 Mb/s\"").replace(
        "kind = \"pareto\"\n",
        "kind = \"pareto\"\nsize = \"1 MB\"\n",
    );
    let e = load(&text).expect_err("refused").to_string();
    assert!(
        e.contains("flow.size") && e.contains("until run.stop"),
        "{e}"
    );
    let text = star(1, "100 Mb/s", "100 Mb/s", 10, 1, "rate = \"1 Mb/s\"")
        .replace("kind = \"pareto\"\n", "size = \"1 MB\"\n");
    let e = load(&text).expect_err("refused").to_string();
    assert!(e.contains("flow.pareto"), "{e}");
}

#[test]
fn the_resolved_scenario_gives_the_same_source() {
    // scenario.resolved.toml writes every value out; loading it gives the same flow.
    let text = star(
        1,
        "100 Mb/s",
        "100 Mb/s",
        10,
        1,
        "rate = \"3.125 Mb/s\", burst_time = \"200 ms\"",
    );
    let spec = load(&text).expect("valid");
    let again = load(&crate::scenario::render::to_toml(&spec)).expect("the resolved form loads");
    assert_eq!(spec.flows[0].kind, again.flows[0].kind);
}
