//! Mobile IPv6 in whole runs: the signalling's timing against RFC 6275 and RFC 4862, a lost
//! Binding Update sent again, movement detection's wait against Cottingham & Vidales eq. 2.
//!
//! The topology: cn —10 ms— ha —10 ms— ar-wlan / ar-gprs; WLAN 5 Mb/s 2 ms; GPRS 200 kb/s
//! 300 ms without jitter (every link 100 Mb/s unless said), so that times can be worked out.

use super::run;
use crate::scenario::{self, PresetSet};
use crate::spec::Spec;
use crate::world::summary::MipHandoverSummary;

const TOPOLOGY: &str = r#"
[run]
seed = 1
stop = "40 s"

[[node]]
name = "cn"
kind = "host"
[[node]]
name = "ha"
kind = "router"
[[node]]
name = "ar-wlan"
kind = "router"
[[node]]
name = "ar-gprs"
kind = "router"
[[node]]
name = "mn"
kind = "mobile"

[[link]]
name = "core"
between = ["cn", "ha"]
rate = "100 Mb/s"
delay = "10 ms"
[[link]]
name = "ha-wlan"
between = ["ha", "ar-wlan"]
rate = "100 Mb/s"
delay = "10 ms"
[[link]]
name = "ha-gprs"
between = ["ha", "ar-gprs"]
rate = "100 Mb/s"
delay = "10 ms"
[[link]]
name = "wlan"
between = ["ar-wlan", "mn"]
rate = "5 Mb/s"
delay = "2 ms"
queue = "50 packets"
[[link]]
name = "gprs"
between = ["ar-gprs", "mn"]
rate = "200 kb/s"
delay = "300 ms"
queue = "30 packets"

[mobile]
node = "mn"
interfaces = ["wlan", "gprs"]
start = "wlan"

[mipv6]
detection = "ra-miss"
ra_missed = 2

[[mipv6.router]]
link = "wlan"
ra_min = "30 ms"
ra_max = "70 ms"

[[mipv6.router]]
link = "gprs"
ra_min = "1 s"
ra_max = "3 s"
link_layer = false
"#;

const HARD_UP: &str = r#"
[[handover]]
at = "10 s"
from = "wlan"
to = "gprs"
kind = "hard"

[[flow]]
from = "cn"
to = "mn"
size = "100 MB"
tcp = { profile = "linux", mss = 1400 }
"#;

fn load(text: &str, sets: &[&str]) -> Spec {
    let presets = PresetSet::builtin().expect("presets");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::load("mip.toml", text, &sets, &presets).expect("valid scenario")
}

fn handover(spec: &Spec) -> MipHandoverSummary {
    let out = run(spec, Vec::new()).expect("runs");
    out.summary.handovers[0]
        .mipv6
        .clone()
        .expect("a Mobile IPv6 handover")
}

fn ms(s: Option<f64>) -> f64 {
    s.expect("the step happened") * 1e3
}

/// Serialisation time in ms of `bytes` at `bps`.
fn ser(bytes: u32, bps: f64) -> f64 {
    bytes as f64 * 8.0 / bps * 1e3
}

#[test]
fn a_hard_upward_handover_detects_registers_and_route_optimises_as_the_rfcs_time_it() {
    let spec = load(&format!("{TOPOLOGY}{HARD_UP}"), &[]);
    let h = handover(&spec);
    // Detection: 2 advertised intervals of 70 + 20 ms (RFC 6275 §7.5) after the last
    // advertisement, which came 0-70 ms before the link went.
    let t_d = ms(h.t_d_s);
    assert!((110.0..=180.0).contains(&t_d), "t_d {t_d} ms");
    // The GPRS interface was configured before (preconfigured): no configuration time, the
    // Binding Update goes at once.
    assert_eq!(h.t_c_s, Some(0.0));
    assert_eq!(h.bu_sent_s, h.configured_s);
    assert_eq!(h.bu_transmissions, 1);
    // BU (80 B) up the GPRS link and the core to the home agent, BA (80 B) back: the
    // propagation of 2 x (300 + 10) ms and the GPRS serialisation of both (the 100 Mb/s
    // links' is under 0.01 ms).
    let rtt_ha = 2.0 * 310.0 + 2.0 * ser(80, 200e3);
    let ba = ms(h.ba_s) - ms(h.bu_sent_s);
    assert!(
        (ba - rtt_ha).abs() < 0.1,
        "BA after {ba} ms, expected {rtt_ha}"
    );
    // Return routability starts at the BA (ro_start after-ba): HoTI (96 B tunnelled) through
    // the home agent and CoTI (56 B) straight, both up the GPRS link one after the other; HoT
    // (104 B tunnelled) and CoT (64 B) back down it, the CoT behind the HoT; each leg 320 ms
    // of propagation. The BU to the correspondent follows the CoT at once.
    let coti_up = ser(96, 200e3) + ser(56, 200e3);
    let hot_at_ar = ser(96, 200e3) + 340.0;
    let cot_down = (coti_up + 340.0).max(hot_at_ar + ser(104, 200e3)) + ser(64, 200e3);
    let rr = cot_down + 300.0;
    let got = ms(h.bu_cn_sent_s) - ms(h.ba_s);
    assert!((got - rr).abs() < 0.1, "RR took {got} ms, expected {rr}");
    // T_n ends with the first route-optimised packet at the new care-of address, after the
    // BU has reached the correspondent (0.5 RTT; 000 l.104's "1.5 RTTs" in all for RR + BU).
    let first = ms(h.first_route_optimised_s);
    assert!(first > ms(h.bu_cn_sent_s) + 2.0 * 320.0 - 1.0);
    assert_eq!(
        h.t_n_s,
        Some(h.t_d_s.unwrap() + h.t_c_s.unwrap() + h.t_r_s.unwrap())
    );
}

#[test]
fn a_lost_binding_update_is_sent_again_after_one_then_two_seconds() {
    // RFC 6275 §11.8: INITIAL_BINDACK_TIMEOUT (1 s), doubled at each retransmission. Up the
    // GPRS link after the handover: the BU (0), the Router Solicitation MIPL sends on every
    // interface once its router is lost (1), the BU's first copy (2).
    let sets = ["link.4.reverse.drop_packets=[0, 2]"];
    let spec = load(&format!("{TOPOLOGY}{HARD_UP}"), &sets);
    let h = handover(&spec);
    assert_eq!(h.bu_transmissions, 3);
    let rtt_ha = 2.0 * 310.0 + 2.0 * ser(80, 200e3);
    let ba = ms(h.ba_s) - ms(h.bu_sent_s);
    assert!(
        (ba - (3000.0 + rtt_ha)).abs() < 0.1,
        "BA {ba} ms after the first BU, expected 1 s + 2 s + {rtt_ha} ms"
    );
}

/// The index, among the packets `from`'s direction of `link` has admitted (what its loss
/// model and `drop_packets` count), of the last one offered by `at_s`: the run stopped there.
fn index_offered_by(spec: &Spec, link: &str, from: &str, at_s: f64) -> u64 {
    let mut s = spec.clone();
    s.stop_at = crate::time::Time::from_secs_f64(at_s);
    let out = run(&s, Vec::new()).expect("runs");
    let d = out
        .summary
        .links
        .iter()
        .find(|d| d.link == link && d.from == from)
        .expect("the direction");
    d.offered - d.dropped_queue_overflow - 1
}

/// The run of `text` with the packet `from` offered to `dir` ("forward" or "reverse") of the
/// GPRS link (link 4) by `at(baseline handover)` lost: the baseline's handover and the run.
fn losing(
    text: &str,
    from: &str,
    dir: &str,
    at: impl Fn(&MipHandoverSummary) -> f64,
) -> (MipHandoverSummary, super::RunOutput) {
    let base = load(text, &[]);
    let h0 = handover(&base);
    let i = index_offered_by(&base, "gprs", from, at(&h0));
    let spec = load(text, &[&format!("link.4.{dir}.drop_packets=[{i}]")]);
    (h0, run(&spec, Vec::new()).expect("runs"))
}

/// The download or upload of `text` goes on over GPRS: a few seconds (25 kB/s) behind the
/// unharmed run.
fn delivers_about_as_much(text: &str, out: &super::RunOutput) {
    let base = run(&load(text, &[]), Vec::new()).expect("runs");
    let (got, want) = (
        out.summary.flows[0].bytes_delivered,
        base.summary.flows[0].bytes_delivered,
    );
    assert!(got + 200_000 > want, "{got} B against {want}");
}

#[test]
fn a_lost_binding_acknowledgement_is_repaired_by_a_binding_update_with_a_new_sequence_number() {
    // RFC 6275 §11.7.1: every Binding Update, a retransmission too, carries a greater
    // sequence number, so the home agent accepts the retransmission (§10.3.1) and
    // acknowledges it; before, the copy reused its number and was refused with status 135
    // at +1, 3, 7, 15 s, and registration never completed.
    let text = format!("{TOPOLOGY}{HARD_UP}");
    // The BA leaves the GPRS router 300 ms + 3.2 ms (80 B at 200 kb/s) before it arrives.
    let (h0, out) = losing(&text, "ar-gprs", "forward", |h| {
        h.ba_s.expect("registers") - 0.3030
    });
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    assert_eq!(h.bu_transmissions, 2);
    let rtt_ha = 2.0 * 310.0 + 2.0 * ser(80, 200e3);
    let ba = ms(h.ba_s) - ms(h.bu_sent_s);
    assert!(
        (ba - (1000.0 + rtt_ha)).abs() < 0.1,
        "BA {ba} ms after the first BU, expected 1 s + {rtt_ha} ms"
    );
    let ha = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-home-agent")
        .expect("home agent");
    assert_eq!(ha.counters["binding_updates"], 2);
    // Registration, route optimisation and the transfer go on. T_n ends with the first
    // packet route-optimised to the new address: the correspondent's next retransmission
    // after return routability, in its RTO back-off, so more than the BA's one second later.
    let t_n = h.t_n_s.expect("T_n is finite");
    let t_n0 = h0.t_n_s.expect("baseline");
    assert!(
        t_n > t_n0 + 1.0 && t_n < t_n0 + 8.0,
        "T_n {t_n}, baseline {t_n0}"
    );
    delivers_about_as_much(&text, &out);
}

#[test]
fn a_lost_home_test_is_repaired_by_the_home_test_init_sent_again() {
    // RFC 6275 §11.8: the Home Test Init is retransmitted after INITIAL_BINDACK_TIMEOUT; the
    // second Home Test completes return routability one second later.
    let text = format!("{TOPOLOGY}{HARD_UP}");
    // The HoT (104 B tunnelled) reaches the mobile before the CoT, which comes right behind it
    // (a_hard_upward_handover_...): it left the GPRS router 300 ms + 4.16 ms before the BU
    // to the correspondent, less the CoT's 2.56 ms.
    let (h0, out) = losing(&text, "ar-gprs", "forward", |h| {
        h.bu_cn_sent_s.expect("RR completes") - 0.3042 + 0.00256 - 0.0001
    });
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    let late = h.bu_cn_sent_s.expect("RR completes") - h0.bu_cn_sent_s.expect("baseline");
    assert!(late > 0.9 && late < 1.1, "RR {late} s later");
    assert!(h.t_n_s.is_some());
}

const HARD_UP_UPLOAD: &str = r#"
[[handover]]
at = "10 s"
from = "wlan"
to = "gprs"
kind = "hard"

[[flow]]
from = "mn"
to = "cn"
size = "100 MB"
tcp = { profile = "linux", mss = 1400 }
"#;

#[test]
fn a_lost_binding_update_to_the_correspondent_is_repaired_through_a_binding_error() {
    // The mobile sends from its new care-of address with a Home Address option; the
    // correspondent, whose binding still has the old address, drops such packets and answers
    // with a Binding Error, status 1 (RFC 6275 §9.3.1, §9.3.3); the mobile then sends through
    // the home agent and runs return routability again (§11.3.6). Before, the correspondent
    // took the option whatever its binding said and sent its ACKs to the old address until
    // the binding's lifetime ran out.
    let text = format!("{TOPOLOGY}{HARD_UP_UPLOAD}");
    let (h0, out) = losing(&text, "mn", "reverse", |h| {
        h.bu_cn_sent_s.expect("RR completes") + 1e-9
    });
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    let cn = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-correspondent")
        .expect("correspondent");
    assert_eq!(cn.counters["binding_updates"], 1, "the second BU only");
    assert!(cn.counters["binding_errors_sent"] >= 1);
    assert_eq!(mn_counter(&out, "binding_errors_received"), 1);
    assert_eq!(mn_counter(&out, "binding_updates_to_correspondents"), 2);
    // Repaired within about one GPRS round trip of the first data packet after the lost BU,
    // plus return routability again: a few seconds, not the binding's 420 s.
    let t_n = h.t_n_s.expect("T_n is finite");
    assert!(t_n < h0.t_n_s.expect("baseline") + 5.0, "T_n {t_n}");
    delivers_about_as_much(&text, &out);
}

#[test]
fn duplicate_address_detection_takes_retrans_timer_per_address_unless_optimistic_or_off() {
    // RFC 4862 §5.4: one Neighbor Solicitation per address, each U[0, 1 s) after its start
    // (Linux's addrconf_dad_kick), the address taken RetransTimer (1 s, RFC 4861 §10) after
    // it; the link-local address from the moment the interface comes up (§5.3), the care-of
    // address once the router is found and the link-local one taken. The GPRS router is found
    // 0.6-1.1 s after the link comes up, so t_c (from then) is 1 s to 3.3 s; the timing of
    // each step is `mip::mobile`'s tests'.
    let text = format!("{TOPOLOGY}{HARD_UP}");
    for (dad, t_c, ns) in [
        ("full", 1000.0..3300.0, 2),
        ("optimistic", 0.0..1e-6, 2),
        ("none", 0.0..1e-6, 0),
    ] {
        let set = format!("mipv6.dad=\"{dad}\"");
        // The GPRS interface comes up at the handover: nothing is configured on it yet.
        let attached = "mipv6.attached=[\"wlan\"]";
        let spec = load(&text, &["mipv6.preconfigured=false", attached, &set]);
        let out = run(&spec, Vec::new()).expect("runs");
        let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
        assert!(t_c.contains(&ms(h.t_c_s)), "{dad}: t_c {:?}", h.t_c_s);
        // The new router was found after the old one was lost (110-180 ms) and the mobile
        // solicited (MIPL, 000 l.110): the answer waits MinDelayBetweenRAs (3 s) after the
        // router's last advertisement (RFC 4861 §6.2.6), so the next unsolicited one (1-3 s
        // apart) often comes first; either is heard within 3.5 s.
        let t_d = ms(h.t_d_s);
        assert!((110.0..3500.0).contains(&t_d), "{dad}: t_d {t_d} ms");
        assert_eq!(mn_counter(&out, "router_solicitations_sent"), 1, "{dad}");
        assert_eq!(mn_counter(&out, "neighbor_solicitations_sent"), ns, "{dad}");
    }
}

fn mn_counter(out: &super::RunOutput, name: &str) -> u64 {
    let mn = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-mobile-node")
        .expect("mobile node");
    mn.counters[name]
}

#[test]
fn without_route_optimisation_everything_goes_through_the_tunnel() {
    let spec = load(
        &format!("{TOPOLOGY}{HARD_UP}"),
        &["mipv6.route_optimisation=false"],
    );
    let out = run(&spec, Vec::new()).expect("runs");
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    assert!(h.bu_cn_sent_s.is_none() && h.first_route_optimised_s.is_none());
    assert_eq!(h.t_n_s.map(|t| t > 0.0), Some(true));
    assert!((ms(h.first_tunnelled_s) - (ms(h.t_n_s) + 10_000.0)).abs() < 1e-6);
    let ha = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-home-agent")
        .expect("home agent");
    assert!(ha.counters["packets_tunnelled"] > 100);
}

#[test]
fn a_mobile_ipv6_run_is_the_same_for_one_seed() {
    let spec = load(&format!("{TOPOLOGY}{HARD_UP}"), &[]);
    let a = serde_json::to_string(&run(&spec, Vec::new()).expect("runs").summary);
    let b = serde_json::to_string(&run(&spec, Vec::new()).expect("runs").summary);
    assert_eq!(a.expect("json"), b.expect("json"));
}

/// Eq. 2's distribution function for advertisement intervals uniform in [a, b]: the integral
/// of (1 - F_RA(u)) / E[t_RA], E[t_RA] = (a + b) / 2.
fn eq2_cdf(t: f64, a: f64, b: f64) -> f64 {
    let mean = (a + b) / 2.0;
    if t <= 0.0 {
        0.0
    } else if t < a {
        t / mean
    } else if t < b {
        (a + ((b - a).powi(2) - (b - t).powi(2)) / (2.0 * (b - a))) / mean
    } else {
        1.0
    }
}

#[test]
fn movement_detection_on_a_new_link_waits_as_eq_2_says() {
    // A WLAN coming up at a random instant is found by its router's next unsolicited
    // advertisement: the forward recurrence time of U[30, 70] ms intervals (Cottingham &
    // Vidales eq. 2, 000 l.79-99), plus the advertisement's 2 ms and 112 B at 5 Mb/s.
    let text = TOPOLOGY.replace("start = \"wlan\"", "start = \"gprs\"")
        + r#"
[[handover]]
at = "2 s"
window = "1 s"
from = "gprs"
to = "wlan"
kind = "soft"

[[flow]]
from = "cn"
to = "mn"
size = "1 MB"
start = "100 s"
"#;
    let base = load(&text, &["mipv6.attached=[\"gprs\"]", "run.stop=\"3.5 s\""]);
    let transit = 2.0e-3 + 112.0 * 8.0 / 5e6;
    let mut waits: Vec<f64> = (1..=1000)
        .map(|seed| {
            let mut spec = base.clone();
            spec.seed = seed;
            handover(&spec).t_d_s.expect("found the router") - transit
        })
        .collect();
    waits.sort_by(f64::total_cmp);
    let n = waits.len() as f64;
    let ks = waits
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let f = eq2_cdf(t, 0.030, 0.070);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max);
    // Kolmogorov-Smirnov at the 1 % level for n = 1000: 1.63 / sqrt(n) = 0.0515.
    assert!(ks < 0.0515, "KS distance {ks}");
    let mean = waits.iter().sum::<f64>() / n;
    // E[t_d] = (a² + ab + b²) / (3 (a + b)) = 26.3 ms (digest §2).
    assert!((mean - 0.026333).abs() < 0.0015, "mean wait {mean}");
}

#[test]
fn two_mobiles_behind_one_home_agent_hand_over_each_on_its_own() {
    // Two mobile nodes, each with a WLAN and a GPRS interface of its own, one home agent and
    // one correspondent; each loses its WLAN at its own instant.
    let text = TOPOLOGY
        .replace(
            "[mobile]\nnode = \"mn\"\ninterfaces = [\"wlan\", \"gprs\"]\nstart = \"wlan\"\n",
            "[[mobile]]\nnode = \"mn\"\ninterfaces = [\"wlan\", \"gprs\"]\nstart = \"wlan\"\n\
             [[mobile]]\nnode = \"mn2\"\ninterfaces = [\"wlan2\", \"gprs2\"]\nstart = \"wlan2\"\n",
        )
        .replace(
            "[[node]]\nname = \"mn\"\nkind = \"mobile\"\n",
            "[[node]]\nname = \"mn\"\nkind = \"mobile\"\n[[node]]\nname = \"mn2\"\nkind = \"mobile\"\n",
        )
        + r#"
[[link]]
name = "wlan2"
between = ["ar-wlan", "mn2"]
rate = "5 Mb/s"
delay = "2 ms"
[[link]]
name = "gprs2"
between = ["ar-gprs", "mn2"]
rate = "200 kb/s"
delay = "300 ms"

[[mipv6.router]]
link = "wlan2"
ra_min = "30 ms"
ra_max = "70 ms"

[[handover]]
at = "10 s"
from = "wlan"
to = "gprs"
kind = "hard"
[[handover]]
at = "12 s"
from = "wlan2"
to = "gprs2"
kind = "hard"

[[flow]]
from = "cn"
to = "mn"
size = "100 MB"
tcp = { profile = "linux", mss = 1400 }
[[flow]]
from = "cn"
to = "mn2"
size = "100 MB"
tcp = { profile = "linux", mss = 1400 }
"#;
    let spec = load(&text, &[]);
    assert_eq!(spec.mobiles.len(), 2);
    assert_eq!(
        spec.handovers.iter().map(|h| h.mobile).collect::<Vec<_>>(),
        [0, 1]
    );
    let out = run(&spec, Vec::new()).expect("runs");
    for (h, at) in out.summary.handovers.iter().zip([10_000.0, 12_000.0]) {
        let m = h.mipv6.clone().expect("mipv6");
        let detected = ms(m.detected_s);
        assert!(
            detected > at && detected < at + 200.0,
            "{}: {detected}",
            h.mobile
        );
        assert!(
            m.first_route_optimised_s.is_some(),
            "{} completes",
            h.mobile
        );
    }
    let ha = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-home-agent")
        .expect("home agent");
    assert_eq!(ha.counters["binding_updates"], 2);
    // Both downloads carry on over GPRS after their handovers.
    let after: Vec<u64> = out
        .summary
        .flows
        .iter()
        .map(|f| f.bytes_delivered)
        .collect();
    assert!(after.iter().all(|&b| b > 0), "{after:?}");
    // The resolved scenario writes both mobiles back.
    let again = load(&crate::scenario::render::to_toml(&spec), &[]);
    assert_eq!(again.mobiles.len(), 2);
}

#[test]
fn a_lost_binding_update_to_the_correspondent_is_sent_again_only_when_acknowledged() {
    // Up the GPRS link after the handover: the home BU (0), the Router Solicitation sent on
    // every interface (1), HoTI (2), CoTI (3), then the BU to the correspondent (4); no data
    // reaches the mobile before it, so nothing else goes up.
    let text = format!("{TOPOLOGY}{HARD_UP}");
    let lost = "link.4.reverse.drop_packets=[4]";
    // With the A flag (cn_ack), RFC 6275 §11.8's back-off sends it again after 1 s.
    let spec = load(&text, &[lost, "mipv6.cn_ack=true"]);
    let out = run(&spec, Vec::new()).expect("runs");
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    assert_eq!(mn_counter(&out, "binding_updates_to_correspondents"), 2);
    let cn = out
        .summary
        .node_functions
        .iter()
        .find(|f| f.kind == "mipv6-correspondent")
        .expect("correspondent");
    assert_eq!(cn.counters["binding_updates"], 1);
    assert!(ms(h.first_route_optimised_s) > ms(h.bu_cn_sent_s) + 1000.0);
    // Without it the mobile cannot know: the binding stays on the lost address and the
    // handover never completes (without the A flag, RFC 6275 §6.1.7, nothing is acknowledged).
    let spec = load(&text, &[lost]);
    let out = run(&spec, Vec::new()).expect("runs");
    let h = out.summary.handovers[0].mipv6.clone().expect("mipv6");
    assert_eq!(mn_counter(&out, "binding_updates_to_correspondents"), 1);
    assert!(h.first_route_optimised_s.is_none());
}

// ---- Route optimisation that cannot happen (issue 40 item 21) ----

#[test]
fn with_ro_start_on_traffic_a_correspondent_bound_to_the_old_address_is_updated_after_the_ba() {
    // The correspondent's binding points at the WLAN care-of address the mobile left: its
    // packets go there, none through the tunnel, so waiting for a tunnelled one waited for
    // ever (nothing delivered after the handover, T_n null). Now return routability starts
    // at the BA for it, as with after-ba.
    let spec = load(
        &format!("{TOPOLOGY}{HARD_UP}"),
        &["mipv6.ro_start=\"on-traffic\""],
    );
    let h = handover(&spec);
    assert!(h.first_route_optimised_s.is_some(), "{h:?}");
    assert!(h.bu_cn_sent_s.expect("a BU to the correspondent") >= h.ba_s.expect("a BA"));
    assert!(h.t_n_s.is_some() && h.note.is_none(), "{h:?}");
}

#[test]
fn with_no_correspondent_to_optimise_t_n_ends_at_the_first_tunnelled_packet_and_says_why() {
    let spec = load(
        &format!("{TOPOLOGY}{HARD_UP}"),
        &["mipv6.correspondents=[]"],
    );
    let h = handover(&spec);
    assert_eq!(h.first_route_optimised_s, None);
    let first = h.first_tunnelled_s.expect("packets arrive tunnelled");
    let t_n = h.t_n_s.expect("T_n ends");
    assert!((t_n - (first - 10.0)).abs() < 1e-9, "{h:?}");
    assert_eq!(h.note, Some(super::summary::NO_CORRESPONDENT_NOTE));
    // With a correspondent, no note.
    let h = handover(&load(&format!("{TOPOLOGY}{HARD_UP}"), &[]));
    assert_eq!(h.note, None);
}

// ---- A correspondent with no binding at the start (issue 36, Cottingham & Vidales l.183) ----

#[test]
fn a_correspondent_without_a_binding_is_route_optimised_after_a_packet_comes_through_the_tunnel() {
    // cn_bound = false: the correspondent sends to the home address, the home agent tunnels
    // it (RFC 6275 §10.4.1). After the move the mobile has no Binding Update List entry to
    // update (§11.7.2): its return routability starts when the correspondent's next packet
    // arrives tunnelled after the home registration (§11.3.1), whatever ro_start says; so
    // packets are tunnelled between the BA and route optimisation, as l.183 saw on the LAN.
    for ro_start in ["after-ba", "parallel"] {
        let start = format!("mipv6.ro_start=\"{ro_start}\"");
        let spec = load(
            &format!("{TOPOLOGY}{HARD_UP}"),
            &[&start, "mipv6.cn_bound=false"],
        );
        let h = handover(&spec);
        let ba = ms(h.ba_s);
        let tunnelled = ms(h.first_tunnelled_s);
        let bu_cn = ms(h.bu_cn_sent_s);
        assert!(tunnelled >= ba, "{ro_start}: {h:?}");
        // The test inits go out at the tunnelled packet and take a GPRS round trip (2 x
        // 300 ms and more) before the update can go: none was sent at the move or the BA.
        assert!(bu_cn > tunnelled + 600.0, "{ro_start}: {h:?}");
        assert!(ms(h.first_route_optimised_s) > bu_cn, "{ro_start}: {h:?}");
        // With the binding (the default), nothing is tunnelled before route optimisation:
        // the correspondent sends to the care-of address it has.
        let h = handover(&load(&format!("{TOPOLOGY}{HARD_UP}"), &[&start]));
        assert!(h.first_tunnelled_s.is_none(), "{ro_start}: {h:?}");
        assert!(ms(h.bu_cn_sent_s) < bu_cn, "{ro_start}: {h:?}");
    }
}

#[test]
fn cn_bound_at_its_default_leaves_the_scenario_hash_as_before_the_key() {
    // The hash reads the Spec's Debug: a scenario without the key (or with it true) hashes as
    // it did before the key existed; false is another scenario.
    let text = format!("{TOPOLOGY}{HARD_UP}");
    let plain = load(&text, &[]);
    let shown = format!("{:?}", plain.mipv6.as_ref().expect("mipv6"));
    assert!(!shown.contains("cn_bound"), "{shown}");
    let bound = load(&text, &["mipv6.cn_bound=true"]);
    assert_eq!(crate::scenario::hash(&plain), crate::scenario::hash(&bound));
    let unbound = load(&text, &["mipv6.cn_bound=false"]);
    assert_ne!(
        crate::scenario::hash(&plain),
        crate::scenario::hash(&unbound)
    );
}
