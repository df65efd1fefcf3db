//! Cross traffic in the world (`agent::pareto`): Pareto flows run whole, checked against ns-2's
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
        let c = f.cross().expect("a Pareto flow");
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
        let bins = out.series[0].cross.clone().expect("binned");
        let c = out.summary.flows[0]
            .cross()
            .cloned()
            .expect("a Pareto flow");
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
        let c = f.cross().expect("a Pareto flow");
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
        .map(|f| f.cross().map_or(0, |c| c.bytes_delivered))
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

// ---- Tests for the study of Chen et al. (scenarios/studies/chen.toml) ----

/// The link names a flow's packets cross from `src` to `dst`, with the mobile on `active`.
fn chen_path(spec: &Spec, active: &str, src: usize, dst: usize) -> Vec<String> {
    use crate::net::routes::{dir_is_a_to_b, dir_link, Routes};
    let ends: Vec<_> = spec.links.iter().map(|l| (l.a, l.b)).collect();
    let up: Vec<bool> = spec
        .links
        .iter()
        .map(|l| !["1xrtt", "wlan"].contains(&l.name.as_str()) || l.name == active)
        .collect();
    let routes = Routes::compute(spec.nodes.len(), &ends, &up);
    let to = |d| {
        let (a, b) = ends[dir_link(d)];
        if dir_is_a_to_b(d) {
            b
        } else {
            a
        }
    };
    let path = routes.path(src, dst, to).expect("a route");
    path.iter()
        .map(|&d| spec.links[dir_link(d)].name.clone())
        .collect()
}

/// Hop distances from `src` over the links up, by a breadth-first search of its own.
fn hops_from(spec: &Spec, active: &str, src: usize) -> Vec<Option<usize>> {
    let mut dist = vec![None; spec.nodes.len()];
    dist[src] = Some(0);
    let mut frontier = vec![src];
    let mut k = 0;
    while !frontier.is_empty() {
        k += 1;
        let mut next = Vec::new();
        for &u in &frontier {
            for l in &spec.links {
                if ["1xrtt", "wlan"].contains(&l.name.as_str()) && l.name != active {
                    continue;
                }
                for (x, y) in [(l.a, l.b), (l.b, l.a)] {
                    if x == u && dist[y].is_none() {
                        dist[y] = Some(k);
                        next.push(y);
                    }
                }
            }
        }
        frontier = next;
    }
    dist
}

#[test]
fn the_chen_study_has_fig_5s_nodes_links_and_flows_and_routes_each_flow_by_fewest_hops() {
    // Chen et al. §5 (l.129): 14 nodes, every link 100 Mb/s but 5-6 (150 kb/s 1xRTT or
    // 5 Mb/s 802.11b), the application from node 1 to node 6, 16 Pareto flows of shape 1.9
    // and 25 Mb/s in all: 4 each from 7 to 10, 8 to 9, 11 to 14, 12 to 13.
    let text = include_str!("../../../../scenarios/studies/chen.toml");
    let spec = load(text).expect("the study loads");
    assert_eq!(spec.nodes.len(), 14);
    assert_eq!(spec.stop_at, crate::time::Time::from_secs(1200));
    let node = |name: &str| {
        spec.nodes
            .iter()
            .position(|n| n.name == name)
            .expect("node")
    };
    for l in &spec.links {
        let rate = l.ab.rate_bps;
        match l.name.as_str() {
            "1xrtt" => assert_eq!(rate, 150_000),
            "wlan" => assert_eq!(rate, 5_000_000),
            _ => assert_eq!(rate, 100_000_000, "{}", l.name),
        }
    }
    let (mut pairs, mut mean) = (Vec::new(), 0.0);
    for f in &spec.flows[1..] {
        let crate::spec::FlowKind::Pareto(c) = f.kind else {
            panic!("{} is not Pareto", f.name)
        };
        assert_eq!(c.shape, 1.9);
        mean += c.mean_rate_bps();
        pairs.push((
            spec.nodes[f.src].name.as_str(),
            spec.nodes[f.dst].name.as_str(),
        ));
    }
    assert_eq!(mean, 25e6);
    for p in [("n7", "n10"), ("n8", "n9"), ("n11", "n14"), ("n12", "n13")] {
        assert_eq!(pairs.iter().filter(|&&q| q == p).count(), 4, "{p:?}");
    }
    let app = &spec.flows[0];
    assert_eq!((app.src, app.dst), (node("n1"), node("n6")));
    assert_eq!(spec.handovers[0].at, crate::time::Time::from_secs(600));
    assert_eq!(spec.handovers[0].window, crate::time::Dur::ZERO);

    // Routes: every flow's path, both ways and on either last hop, is as short in hops as a
    // breadth-first search of the topology finds (the study's layout is a tree: no ties).
    for active in ["1xrtt", "wlan"] {
        for f in &spec.flows {
            for (a, b) in [(f.src, f.dst), (f.dst, f.src)] {
                let path = chen_path(&spec, active, a, b);
                assert_eq!(
                    Some(path.len()),
                    hops_from(&spec, active, a)[b],
                    "{}",
                    f.name
                );
            }
        }
    }
    // A few by hand (the drawing in chen.toml): the application crosses the chain and the
    // active last hop; 7 -> 10 and 8 -> 9 share 2-3 with it, 11 -> 14 and 12 -> 13 share 3-4;
    // none reaches 4-5 or the last hop.
    assert_eq!(
        chen_path(&spec, "1xrtt", node("n1"), node("n6")),
        ["n1-n2", "n2-n3", "n3-n4", "n4-n5", "1xrtt"]
    );
    assert_eq!(
        chen_path(&spec, "wlan", node("n6"), node("n1")),
        ["wlan", "n4-n5", "n3-n4", "n2-n3", "n1-n2"]
    );
    assert_eq!(
        chen_path(&spec, "wlan", node("n7"), node("n10")),
        ["n7-n2", "n2-n3", "n10-n3"]
    );
    assert_eq!(
        chen_path(&spec, "wlan", node("n8"), node("n9")),
        ["n8-n2", "n2-n3", "n9-n3"]
    );
    assert_eq!(
        chen_path(&spec, "1xrtt", node("n12"), node("n13")),
        ["n12-n3", "n3-n4", "n13-n4"]
    );
}
