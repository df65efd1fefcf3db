//! The CBR agent run whole through the world: what its receiver measures against what the
//! links make of a stream (serialisation and propagation, a handover's loss and outage), and
//! the scenario's refusals.

use crate::scenario::{self, PresetSet};
use crate::spec::Spec;
use crate::time::Dur;
use crate::world::summary::CbrSummary;

/// Host a to host b over one link of `rate` and 10 ms; `flow` is the CBR flow's extra keys.
fn line(rate: &str, stop: &str, flow: &str) -> String {
    format!(
        "[run]\nname = \"cbr\"\nseed = 1\nstop = \"{stop}\"\n\n\
         [[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n\
         [[link]]\nname = \"l\"\nbetween = [\"a\", \"b\"]\nrate = \"{rate}\"\n\
         delay = \"10 ms\"\nqueue = \"50 packets\"\n\
         [[flow]]\nname = \"v\"\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\n{flow}\n"
    )
}

fn load(text: &str, sets: &[String]) -> Result<Spec, crate::scenario::ScenarioError> {
    let presets = PresetSet::builtin().expect("presets");
    scenario::load("cbr.toml", text, sets, &presets)
}

fn cbr(spec: &Spec) -> CbrSummary {
    let out = crate::world::run(spec, Vec::new()).expect("runs");
    out.summary.flows[0].cbr().expect("a CBR flow").clone()
}

#[test]
fn the_default_stream_is_g711_a_160_byte_frame_every_20_ms() {
    // ITU-T G.711 at RFC 3551 §4.2's default packetization interval.
    let c = crate::traffic::cbr::CbrConfig::default();
    assert_eq!(c.interval(), Dur::from_millis(20));
}

#[test]
fn on_an_idle_link_every_datagram_arrives_after_its_serialisation_and_propagation() {
    // 995 ms at 50 datagrams a second: datagrams at 0, 20, ..., 980 ms; the last one sent at
    // 980 ms arrives 10 ms + 188 B at 1 Mb/s (1.504 ms) later, before the stop.
    let s = cbr(&load(&line("1 Mb/s", "995 ms", ""), &[]).expect("loads"));
    assert_eq!(s.packets_sent, 50);
    assert_eq!(s.packets_received, 50);
    assert_eq!(s.packets_lost, 0);
    let one_way = 0.010 + 188.0 * 8.0 / 1e6;
    for d in [s.delay_min_s, s.delay_p50_s, s.delay_p95_s, s.delay_max_s] {
        let d = d.expect("delays measured");
        assert!((d - one_way).abs() < 1e-9, "{d} against {one_way}");
    }
    // RFC 3550 §6.4.1: a constant transit time has no jitter.
    assert_eq!(s.jitter_s, 0.0);
    assert!((s.max_gap_s - 0.020).abs() < 1e-9, "{}", s.max_gap_s);
}

#[test]
fn a_sized_stream_stops_once_it_has_sent_its_bytes() {
    // 1600 payload bytes are ten 160-byte datagrams: the flow completes with the tenth.
    let spec = load(&line("1 Mb/s", "5 s", "size = \"1600 B\""), &[]).expect("loads");
    let out = crate::world::run(&spec, Vec::new()).expect("runs");
    let f = &out.summary.flows[0];
    let c = f.cbr().expect("a CBR flow");
    assert_eq!((c.packets_sent, c.packets_received), (10, 10));
    assert!(
        f.completed,
        "a sized stream completes when its bytes are delivered"
    );
    assert_eq!(f.bytes_delivered, 1600);
}

#[test]
fn a_stream_faster_than_its_link_queues_then_loses_what_overflows() {
    // 200 kb/s of payload (216 kb/s on the wire) into 100 kb/s with a 50-packet queue: the
    // queue fills, the delay grows to the queue's worth, and about half of what is sent is
    // lost once it is full.
    let s = cbr(&load(
        &line("100 kb/s", "20 s", "cbr = { rate = \"200 kb/s\" }"),
        &[],
    )
    .expect("loads"));
    assert!(s.loss_ratio > 0.4 && s.loss_ratio < 0.6, "{}", s.loss_ratio);
    let queue_s = 50.0 * 188.0 * 8.0 / 100e3;
    let max = s.delay_max_s.expect("delays");
    assert!(max > 0.9 * queue_s && max < 0.010 + 1.1 * queue_s, "{max}");
    assert!(s.delay_min_s.expect("delays") < 0.03);
}

#[test]
fn a_hard_handover_shows_as_lost_datagrams_and_the_longest_gap() {
    // The bundled voice example: WLAN -> GPRS, hard, at 5 s. What was queued for or in flight
    // on WLAN is lost; nothing arrives until the first datagram over GPRS; the longest gap
    // starts at the last arrival over WLAN, just before 5 s.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/examples/cbr-voice-wlan-gprs.toml"
    );
    let text = std::fs::read_to_string(path).expect("the example");
    let spec = load(&text, &[]).expect("loads");
    let s = cbr(&spec);
    assert!(s.packets_lost > 0, "{s:?}");
    let from = s.max_gap_from_s.expect("a gap");
    assert!((4.9..5.0).contains(&from), "{from}");
    assert!(s.max_gap_s > 0.020, "{}", s.max_gap_s);
    // GPRS's delay is an order above WLAN's: the largest one-way delay is GPRS's.
    assert!(s.delay_max_s > s.delay_min_s);
}

#[test]
fn reruns_are_identical() {
    let spec = load(
        &line("100 kb/s", "5 s", "cbr = { rate = \"200 kb/s\" }"),
        &[],
    )
    .expect("loads");
    let a = serde_json::to_string(&cbr(&spec)).expect("json");
    let b = serde_json::to_string(&cbr(&spec)).expect("json");
    assert_eq!(a, b);
}

#[test]
fn a_cbr_flow_refuses_what_it_cannot_run_in_one_line() {
    for (extra, field) in [
        ("cbr = { rate = \"0 b/s\" }", "flow.cbr.rate"),
        ("cbr = { packet_size = \"0 B\" }", "flow.cbr.packet_size"),
        (
            "cbr = { packet_size = \"70000 B\" }",
            "flow.cbr.packet_size",
        ),
        (
            "cbr = { rate = \"100 Gb/s\", packet_size = \"1 B\" }",
            "flow.cbr.rate",
        ),
        ("cbr = { burst = 1 }", "burst"),
        ("tcp = { profile = \"linux\" }", "flow.tcp"),
        ("remedies = [\"eifel\"]", "flow.remedies"),
    ] {
        let e = load(&line("1 Mb/s", "1 s", extra), &[])
            .expect_err(extra)
            .to_string();
        assert!(e.contains(field), "{extra}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // [flow.cbr] on a TCP flow.
    let text = line("1 Mb/s", "1 s", "").replace("kind = \"cbr\"\n", "size = \"1 KB\"\ncbr = {}\n");
    let e = load(&text, &[]).expect_err("cbr on tcp").to_string();
    assert!(e.contains("flow.cbr"), "{e}");
}
