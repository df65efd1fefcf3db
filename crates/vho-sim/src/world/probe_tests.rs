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
    s.flows[0]
        .tfrc
        .as_ref()
        .and_then(|t| t.probe.as_ref())
        .expect("a TFRC Probe flow")
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
    let series = out.probe_series[0].as_ref().expect("series recorded");
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
    let t = plain.summary.flows[0].tfrc.as_ref().expect("tfrc");
    assert!(t.probe.is_none());
    assert!(plain.probe_series[0].is_none());
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
fn tcp_remedies_on_tfrc_and_probe_remedies_on_tcp_are_refused() {
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
