//! Node functions in whole runs: the window clamp and the IP-layer flow control at the home
//! agent of the test chain (`tests::chain`: ch —100 Mb/s, 1 ms— ha —WLAN 5 Mb/s, 2 ms /
//! GPRS 200 kb/s, 300 ms— mh, ns-2 profile, SMSS 1460, 1500-byte packets, 40-byte ACKs).

use super::tests::chain;
use super::{run, PacketTap};
use crate::packet::Packet;
use crate::spec::{FunctionKind, FunctionSpec, HandoverKind, QueueLimit, Spec};
use crate::tcp::segment::Flags;
use crate::time::Time;
use std::sync::{Arc, Mutex};

const SOFT: HandoverKind = HandoverKind::SoftDrainOld;

/// Records (time, advertised window) of every ACK of data the correspondent host receives
/// (the proxy clamps a window once it has seen data from the sender it governs, and never a
/// SYN's: RFC 7323 §2.2 leaves it unscaled). The ns-2 receiver acknowledges sequence 1 before
/// any data has reached it.
struct Windows(Arc<Mutex<Vec<(Time, u16)>>>);

impl PacketTap for Windows {
    fn packet(&mut self, now: Time, pkt: &Packet) {
        let acks_data = pkt.seg.ack.0 > 1 && !pkt.seg.flags.contains(Flags::SYN);
        if !pkt.to_receiver && pkt.dst == 0 && acks_data {
            self.0.lock().expect("tap").push((now, pkt.seg.window));
        }
    }
}

fn with(mut spec: Spec, kind: FunctionKind) -> Spec {
    spec.functions.push(FunctionSpec { node: 1, kind });
    spec
}

/// The chain with a GPRS queue towards the mobile of 30 packets, about three times its
/// bandwidth-delay product (11 packets), as the thesis's PPP buffer held a whole window.
fn deep_gprs(handover_at: Option<f64>) -> Spec {
    let mut spec = chain(300_000, handover_at.map(|at| (at, SOFT, 0)), false);
    spec.links[2].ab.queue = QueueLimit::Packets(30);
    spec
}

/// The windows the correspondent host saw, and the run's summary.
fn windows_seen(spec: &Spec) -> (Vec<(Time, u16)>, super::Summary) {
    let mut spec = spec.clone();
    spec.record.pcap_at = vec![0];
    let spec = &spec;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tap: Box<dyn PacketTap> = Box::new(Windows(seen.clone()));
    let out = run(spec, vec![(0, tap)]).expect("runs");
    let w = seen.lock().expect("tap").clone();
    (w, out.summary)
}

// The clamp by hand (net::window_clamp: whole segments of ⌈BDP⌉ + SMSS, SMSS 1460):
// - WLAN: propagation RTT 2·(1 + 2) ms = 6 ms; a 1500-byte packet takes 0.12 ms on the wired
//   link and 2.4 ms on WLAN, a 40-byte ACK 0.0032 + 0.064 ms: base RTT 8.5872 ms, BDP at
//   5 Mb/s ⌈5367.0⌉ = 5367 B; + 1460 = 6827 B: 5 segments, 7300 B.
// - GPRS: 2·(1 + 300) ms = 602 ms + 0.12 + 60 + 0.0032 + 1.6 ms = 663.7232 ms, BDP at
//   200 kb/s ⌈16593.08⌉ = 16594 B; + 1460 = 18054 B: 13 segments, 18980 B.
const WLAN_CLAMP: u16 = 5 * 1460;
const GPRS_CLAMP: u16 = 13 * 1460;

#[test]
fn the_window_clamp_follows_the_mobile_to_the_new_links_bdp() {
    // Cottingham & Vidales §7: the proxy sets the window for the link the mobile is on.
    // WLAN -> GPRS at 0.3 s, about halfway through the transfer's WLAN time.
    let spec = with(
        chain(300_000, Some((0.3, SOFT, 0)), true),
        FunctionKind::WindowClamp,
    );
    let (w, s) = windows_seen(&spec);
    assert!(s.flows[0].completed);
    let at = Time::from_millis(300);
    let before: Vec<u16> = w.iter().filter(|(t, _)| *t < at).map(|x| x.1).collect();
    assert!(
        !before.is_empty() && before.iter().all(|&x| x == WLAN_CLAMP),
        "{before:?}"
    );
    // After the handover the ACKs come over GPRS (the first after the ones WLAN still held).
    let after: Vec<u16> = w.iter().filter(|(t, _)| *t > at).map(|x| x.1).collect();
    assert!(after.contains(&GPRS_CLAMP), "{after:?}");
    let last = after
        .iter()
        .position(|&x| x == WLAN_CLAMP)
        .map_or(0, |i| i + 1);
    assert!(after[last..].iter().all(|&x| x == GPRS_CLAMP), "{after:?}");
    let c = &s.node_functions[0];
    assert_eq!((c.node.as_str(), c.kind), ("ha", "window-clamp"));
    assert!(c.counters["windows_rewritten"] > 0);
}

#[test]
fn without_a_handover_the_clamp_stays_at_the_first_links_value() {
    let spec = with(chain(300_000, None, true), FunctionKind::WindowClamp);
    let (w, s) = windows_seen(&spec);
    assert!(s.flows[0].completed);
    assert!(w.iter().all(|&(_, x)| x == WLAN_CLAMP));
}

#[test]
fn without_node_functions_the_windows_are_the_receivers() {
    let (w, _) = windows_seen(&chain(300_000, Some((0.3, SOFT, 0)), true));
    let rwnd = chain(0, None, true).flows[0].tcp.receive_window;
    assert!(w
        .iter()
        .all(|&(_, x)| x as u32 == rwnd.min(u16::MAX as u32)));
}

#[test]
fn link_flow_control_reroutes_what_waits_above_the_slow_link_at_a_handover() {
    // Thesis §7.2.3: packets that reached the device queue drain over the old link; those
    // the IP layer still holds take the new one. GPRS -> WLAN soft handover at 6 s.
    let plain = run(&deep_gprs(Some(6.0)), Vec::new()).expect("runs");
    let spec = with(deep_gprs(Some(6.0)), FunctionKind::LinkFlowControl);
    let out = run(&spec, Vec::new()).expect("runs");
    let s = &out.summary;
    assert!(s.flows[0].completed && s.run.conservation_ok);
    let c = &s.node_functions[0].counters;
    assert!(c["packets_rerouted"] > 0, "{c:?}");
    assert_eq!(c["held_at_end"], 0);
    assert_eq!(c["packets_held"], c["packets_released"]);
    // The IP queue holds what GPRS's 30-packet queue would have: no more drops than without.
    let drops = |s: &super::Summary| s.flows[0].drops.iter().map(|d| d.packets).sum::<u64>();
    assert!(
        drops(s) <= drops(&plain.summary),
        "{} vs {}",
        drops(s),
        drops(&plain.summary)
    );
    // Less drains over GPRS after the switch, so the transfer ends sooner.
    let (t, t0) = (
        s.flows[0].transfer_time_s.expect("done"),
        plain.summary.flows[0].transfer_time_s.expect("done"),
    );
    assert!(t < t0, "{t} vs {t0}");
}

#[test]
fn link_flow_control_reroutes_nothing_without_a_handover() {
    let spec = with(deep_gprs(None), FunctionKind::LinkFlowControl);
    let out = run(&spec, Vec::new()).expect("runs");
    let s = &out.summary;
    assert!(s.flows[0].completed && s.run.conservation_ok);
    let c = &s.node_functions[0].counters;
    assert!(c["packets_held"] > 0, "{c:?}");
    assert_eq!(c["packets_rerouted"], 0);
}

#[test]
fn node_functions_leave_a_run_deterministic() {
    let spec = with(
        with(deep_gprs(Some(6.0)), FunctionKind::WindowClamp),
        FunctionKind::LinkFlowControl,
    );
    let a = run(&spec, Vec::new()).expect("runs").summary;
    let b = run(&spec, Vec::new()).expect("runs").summary;
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        serde_json::to_string(&b).expect("json")
    );
}
