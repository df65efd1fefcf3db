//! TFRC Probe in the world (`tfrc::probe`, Chen et al. §3-§4): whole runs of
//! scenarios/examples/chen-probe.toml, a TFRC flow across 150 kb/s -> 5 Mb/s at 100 s and back
//! at 200 s.

use crate::scenario::{self, PresetSet};
use crate::spec::Spec;

const CHEN_PROBE: &str = include_str!("../../../../scenarios/examples/chen-probe.toml");

fn spec(sets: &[&str]) -> Spec {
    let presets = PresetSet::builtin().expect("presets");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::load("chen-probe.toml", CHEN_PROBE, &sets, &presets).expect("valid scenario")
}

fn probe(s: &super::Summary) -> &super::summary::ProbeSummary {
    s.flows[0].probe.as_ref().expect("a probing flow")
}

#[test]
fn ihn_detects_both_handoffs_from_the_estimates() {
    // Chen et al. §3.3: C' > 5C at 150 kb/s -> 5 Mb/s is LOW-to-HIGH, C' < 0.2C on the way
    // back HIGH-to-LOW; each detection comes after its handoff, and the estimates before each
    // are the last hop's capacity (CapProbe, §3.1) within 2 %.
    let out = super::run(&spec(&[]), Vec::new()).expect("runs");
    let p = probe(&out.summary);
    for d in &p.detections {
        eprintln!("{d:?}");
    }
    let dirs: Vec<(&str, &str)> = p.detections.iter().map(|d| (d.by, d.direction)).collect();
    assert_eq!(
        dirs,
        [("ihn", "low-to-high"), ("ihn", "high-to-low")],
        "{:?}",
        p.detections
    );
    let (up, down) = (&p.detections[0], &p.detections[1]);
    let near = |bps: u64, want: f64| ((bps as f64 - want) / want).abs() < 0.02;
    assert!(near(up.from_bps, 150e3) && near(up.to_bps, 5e6), "{up:?}");
    assert!(
        near(down.from_bps, 5e6) && near(down.to_bps, 150e3),
        "{down:?}"
    );
    assert!(up.at_s > 100.0 && up.at_s < 130.0, "{up:?}");
    assert!(down.at_s > 200.0 && down.at_s < 260.0, "{down:?}");
    assert_eq!(up.action, Some("fra"));
    assert!(p.pairs > 100, "{}", p.pairs);
    // The estimates over time are a run output.
    let series = out.series[0].probe.as_ref().expect("series recorded");
    assert!(series.t_ns.len() >= 2);
}

#[test]
fn ehn_comes_at_the_handoff_and_err_cuts_the_rate() {
    // Chen et al. §4: EHN from the handover manager at the handoff (EHN(a); "at" is what the
    // remedy sets), FRA on the first, ERR on the second: the sending rate right after 200 s
    // is C_2/C_1 = 0.03 of the one before.
    let out = super::run(
        &spec(&["flow.0.remedies=[\"ehn\",\"fra\",\"err\"]"]),
        Vec::new(),
    )
    .expect("runs");
    let p = probe(&out.summary);
    let got: Vec<(&str, &str, Option<&str>, f64)> = p
        .detections
        .iter()
        .map(|d| (d.by, d.direction, d.action, d.at_s))
        .collect();
    assert_eq!(
        got,
        [
            ("ehn", "low-to-high", Some("fra"), 100.0),
            ("ehn", "high-to-low", Some("err"), 200.0)
        ]
    );
    assert_eq!(p.detections[0].after_handover_s, Some(0.0));
}

#[test]
fn probe_off_leaves_plain_tfrc_untouched() {
    // Without the remedies the flow is plain TFRC: no pairs, no probe record, and the same
    // packets as before the probe existed (its pacing is not disturbed).
    let plain = super::run(&spec(&["flow.0.remedies=[]"]), Vec::new()).expect("runs");
    assert!(plain.summary.flows[0].tfrc().is_some());
    assert!(plain.summary.flows[0].probe.is_none());
    assert!(plain.series[0].probe.is_none());
}

// ---- Tests for the scenario keys (`[flow.probe]`, the probe remedies) ----

fn load_err(sets: &[&str]) -> String {
    let presets = PresetSet::builtin().expect("presets");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::load("chen-probe.toml", CHEN_PROBE, &sets, &presets)
        .expect_err("refused")
        .to_string()
}

#[test]
fn bad_probe_values_are_refused_with_their_field() {
    let e = load_err(&["flow.0.probe.alpha=0.5"]);
    assert!(
        e.contains("flow.probe.alpha: expected a number above 1"),
        "{e}"
    );
    let e = load_err(&["flow.0.probe.beta=1.5"]);
    assert!(e.contains("flow.probe.beta"), "{e}");
    let e = load_err(&["flow.0.probe.pair_every=1"]);
    assert!(e.contains("flow.probe.pair_every"), "{e}");
    let e = load_err(&["flow.0.probe.windw=3"]);
    assert!(e.contains("windw"), "{e}");
}

#[test]
fn tcp_remedies_and_tables_on_a_tfrc_flow_are_refused() {
    let e = load_err(&["flow.0.remedies=[\"frto\"]"]);
    assert!(
        e.contains("on a TFRC flow only probe, ihn, ehn, fra, err"),
        "{e}"
    );
    let e = load_err(&[
        "flow.0.kind=\"tcp\"",
        "flow.0.size=\"1 MB\"",
        "flow.0.tfrc={}",
    ]);
    assert!(e.contains("flow.tfrc"), "{e}");
}

#[test]
fn ehn_makes_the_mobile_announce_its_handovers_and_the_settings_show() {
    // remedy::probe: each remedy switches its part on and the probe with it; `ehn` sets
    // handover.notify = "at" where none was given.
    let s = spec(&["flow.0.remedies=[\"ehn\",\"err\"]"]);
    let p = s.flows[0].probe;
    assert!(p.enabled && p.ehn && p.err && !p.ihn && !p.fra);
    assert!(s.handovers.iter().all(|h| h.notify == Some(0)));
    let s = spec(&[]);
    assert!(s.handovers.iter().all(|h| h.notify.is_none()));
}

// ---- Tests for TCP Probe (Chen et al. §3.2) ----

/// chen-probe.toml with a TCP flow (ns-2's TCP, 1 GB: it runs the whole 300 s) for the TFRC
/// one; `delack` says whether the receiver delays its ACKs. ns-2's window_ of 20 packets
/// would cap the window below the 5 Mb/s path's: a sender held by a fixed window sends one
/// segment per ACK and makes no pairs, so the cap is lifted (the paper gives no window_).
fn tcp_spec(delack: bool, sets: &[&str]) -> Spec {
    let text = CHEN_PROBE.replace("kind = \"tfrc\"\n", "").replace(
        "tfrc = { packet_size = \"1000 B\" }",
        &format!("size = \"1 GB\"\ntcp = {{ profile = \"ns2\", delayed_ack = {delack}, send_window = \"1000 packets\" }}"),
    );
    let presets = PresetSet::builtin().expect("presets");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::load("chen-probe-tcp.toml", &text, &sets, &presets).expect("valid scenario")
}

#[test]
fn tcp_probe_estimates_from_ack_pairs_and_ihn_detects_both_handoffs() {
    // Chen et al. §3.2: back-to-back segments' ACK dispersion, CapProbe-filtered, is the
    // forward capacity (here C_1/C_2 = 1: far below 37.5). 1000-byte segments over 150 kb/s
    // and 5 Mb/s: IHN sees both handoffs (§3.3), FRA answers the first.
    let out = super::run(&tcp_spec(false, &[]), Vec::new()).expect("runs");
    let p = probe(&out.summary);
    for d in &p.detections {
        eprintln!("tcp: {d:?}");
    }
    eprintln!("tcp pairs {} refused {}", p.pairs, p.pairs_refused);
    let dirs: Vec<(&str, &str)> = p.detections.iter().map(|d| (d.by, d.direction)).collect();
    assert_eq!(dirs, [("ihn", "low-to-high"), ("ihn", "high-to-low")]);
    let (up, down) = (&p.detections[0], &p.detections[1]);
    let near = |bps: u64, want: f64| ((bps as f64 - want) / want).abs() < 0.02;
    assert!(near(up.from_bps, 150e3) && near(up.to_bps, 5e6), "{up:?}");
    // The estimate IHN compares the slow link's with on the way down is the last left in
    // the window as the fast pairs age out: a pair that straddled the handoff can hold it
    // (3.9 Mb/s in a run with in-order pairs), still far above 5 times 150 kb/s.
    assert!(
        down.from_bps > 750_000 && near(down.to_bps, 150e3),
        "{down:?}"
    );
    assert!(up.at_s > 100.0 && up.at_s < 130.0, "{up:?}");
    assert!(down.at_s > 200.0 && down.at_s < 260.0, "{down:?}");
    assert_eq!(up.action, Some("fra"));
    assert!(out.series[0]
        .probe
        .as_ref()
        .is_some_and(|s| s.t_ns.len() >= 2));
}

#[test]
fn tcp_probe_with_a_delayed_ack_receiver_collects_inverted_pairs_and_ihn_fires() {
    // Chen et al. §3.2: the inverted packet pair, segment i+1 sent before segment i, so that
    // a delayed-ACK receiver acknowledges each at once: the first arrival out of order, the
    // second filling the gap (RFC 5681 §4.2, RFC 1122 §4.2.3.2). With ns-2's DelAck sink and
    // pairs sent in order one ACK covered both: no pair in 300 s, no IHN.
    let out = super::run(&tcp_spec(true, &[]), Vec::new()).expect("runs");
    let p = probe(&out.summary);
    eprintln!("tcp delack pairs {} refused {}", p.pairs, p.pairs_refused);
    for d in &p.detections {
        eprintln!("tcp delack: {d:?}");
    }
    assert!(p.pairs > 100, "{}", p.pairs);
    let up = p.detections.first().expect("IHN after the first handoff");
    assert_eq!(
        (up.by, up.direction, up.action),
        ("ihn", "low-to-high", Some("fra"))
    );
    let near = |bps: u64, want: f64| ((bps as f64 - want) / want).abs() < 0.02;
    assert!(near(up.from_bps, 150e3) && near(up.to_bps, 5e6), "{up:?}");
    assert!(up.at_s > 100.0 && up.at_s < 130.0, "{up:?}");
    let down = p.detections.get(1).expect("IHN after the second handoff");
    assert_eq!((down.by, down.direction), ("ihn", "high-to-low"));
    assert!(down.at_s > 200.0 && down.at_s < 260.0, "{down:?}");
}

#[test]
fn tcp_probe_with_ehn_answers_at_the_handoff() {
    // Chen et al. §4: EHN at the handoff: FRA on LOW-to-HIGH, ERR on HIGH-to-LOW.
    let out = super::run(
        &tcp_spec(true, &["flow.0.remedies=[\"ehn\",\"fra\",\"err\"]"]),
        Vec::new(),
    )
    .expect("runs");
    let p = probe(&out.summary);
    let got: Vec<(&str, Option<&str>, f64)> = p
        .detections
        .iter()
        .map(|d| (d.by, d.action, d.at_s))
        .collect();
    assert_eq!(
        got,
        [("ehn", Some("fra"), 100.0), ("ehn", Some("err"), 200.0)]
    );
}

#[test]
fn ehn_with_err_loses_fewer_packets_at_high_to_low_than_the_original() {
    // Chen et al. §4, §5.2: EHN(a) at the HIGH-to-LOW handoff, EHN(b) one one-way delay
    // before it (ERR), against the original TFRC Probe (Fig. 9: about 650, 400 and 200
    // packets lost). The one-way delay of the wired part and the WLAN hop here: 20 + 2 ms plus
    // serialisation, 23 ms. Up to 200 s the three runs are the same (EHN at 100 s asks for
    // nothing without `fra`), so the difference in packets lost is the second handoff's.
    for kind in ["soft", "hard"] {
        let lost = |sets: &[&str]| {
            let mut sets = sets.to_vec();
            let k = format!("handover.1.kind=\"{kind}\"");
            sets.push(&k);
            let out = super::run(&spec(&sets), Vec::new()).expect("runs");
            let t = out.summary.flows[0].tfrc().cloned().expect("tfrc");
            let at: Vec<f64> = out.summary.flows[0].probe.as_ref().map_or(Vec::new(), |p| {
                p.detections.iter().map(|d| d.at_s).collect()
            });
            (t.packets_lost, at)
        };
        let original = lost(&["flow.0.remedies=[\"probe\"]"]);
        let ehn_a = lost(&["flow.0.remedies=[\"ehn\",\"err\"]"]);
        let ehn_b = lost(&[
            "flow.0.remedies=[\"ehn\",\"err\"]",
            "handover.1.notify=\"before\"",
            "handover.1.notify_offset=\"23 ms\"",
        ]);
        eprintln!(
            "{kind}: packets lost: original {original:?}, EHN(a) {ehn_a:?}, EHN(b) {ehn_b:?}"
        );
        assert_eq!(ehn_b.1.get(1).copied(), Some(199.977));
        assert!(ehn_a.0 < original.0 && ehn_b.0 < original.0);
    }
}

#[test]
fn the_resolved_scenario_keeps_the_probe() {
    // runner.py's resolved.toml gives the same run: a TFRC flow's remedies and [flow.probe]
    // are written out (render.rs), and a TCP one's.
    let presets = PresetSet::builtin().expect("presets");
    for first in [
        spec(&["flow.0.remedies=[\"ihn\",\"fra\"]", "flow.0.probe.window=7"]),
        tcp_spec(true, &["flow.0.remedies=[\"ehn\",\"err\"]"]),
    ] {
        let text = crate::scenario::render::to_toml(&first);
        let again = scenario::load("resolved.toml", &text, &[], &presets)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(again.flows[0].probe, first.flows[0].probe);
        assert_eq!(again.flows[0].remedies, first.flows[0].remedies);
        // Without the remedies line (vho compare folds on this) the switches still show.
        let bare: String = text
            .lines()
            .filter(|l| !l.starts_with("remedies ="))
            .map(|l| format!("{l}\n"))
            .collect();
        let bare = scenario::load("resolved.toml", &bare, &[], &presets).expect("loads");
        assert_eq!(bare.flows[0].probe, first.flows[0].probe);
        assert_eq!(
            again.handovers.iter().map(|h| h.notify).collect::<Vec<_>>(),
            first.handovers.iter().map(|h| h.notify).collect::<Vec<_>>()
        );
    }
}
