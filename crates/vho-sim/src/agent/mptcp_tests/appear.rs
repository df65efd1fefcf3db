//! An interface that a handover brings up (`handover::appearing`): down, with no subflow and no
//! traffic, until its handover; then its address is added and the path manager opens a
//! subflow from it (Linux's `mptcp_nl_add_subflow_or_signal_addr`, net/mptcp/pm_kernel.c).

use super::*;
use crate::handover::appearing;

/// Daniel & Kojo's GPRS -> WLAN: the mobile starts on GPRS, `handovers` appended.
fn gprs_first(size: &str, stop: &str, handovers: &str) -> String {
    scenario(size, stop, handovers).replace("start = \"wlan\"", "start = \"gprs\"")
}

const TO_WLAN_AT_3: &str = "[[handover]]\nat = \"3 s\"\nfrom = \"gprs\"\nto = \"wlan\"\n\
                            kind = \"hard\"\n";

fn iface(spec: &Spec, name: &str) -> u8 {
    let l = link_index(spec, name);
    spec.mobiles[0]
        .interfaces
        .iter()
        .position(|&x| x == l)
        .expect("an interface") as u8
}

/// The initial handshake (the client started), then the sender's first data (its DSS) at
/// the client: what the client sends after it.
fn establish(s: &mut MptcpSource, r: &mut MptcpSink, t: Time) -> Vec<Sent> {
    for a in drain(r, t) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t, &p, &pl);
    }
    for a in drain(s, t) {
        let (p, pl) = packet(&a, true);
        r.handle_packet(t, &p, &pl);
    }
    for a in drain(r, t) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t, &p, &pl);
    }
    let data = drain(s, t);
    assert!(
        data.iter().any(|x| parts(x).0.len > 0),
        "data after the handshake"
    );
    for a in &data {
        let (p, pl) = packet(a, true);
        r.handle_packet(t, &p, &pl);
    }
    drain(r, t)
}

fn joins(out: &[Sent]) -> Vec<(MptcpOption, usize)> {
    out.iter()
        .map(parts)
        .filter(|(seg, _, _)| seg.flags.contains(Flags::SYN))
        .map(|(_, opt, link)| (opt, link))
        .collect()
}

#[test]
fn the_interface_a_slow_to_fast_handover_brings_up_is_the_one_that_appears() {
    // Our rule (`handover::appearing`): the faster network's coverage begins at the handover
    // to it; the slower one is associated all along; an interface first left, not taken,
    // was up from the start.
    let wlan_gprs = "[[handover]]\nat = \"1 s\"\nfrom = \"wlan\"\nto = \"gprs\"\n";
    let spec = load(&scenario("1 KB", "10 s", wlan_gprs)).expect("loads");
    assert_eq!(appearing(&spec, 0), vec![]);
    let spec = load(&gprs_first("1 KB", "10 s", TO_WLAN_AT_3)).expect("loads");
    assert_eq!(appearing(&spec, 0), vec![(0, link_index(&spec, "wlan"))]);
    // WLAN -> GPRS -> WLAN: WLAN is left first, so it was there from the start.
    let back = "[[handover]]\nat = \"5 s\"\nfrom = \"gprs\"\nto = \"wlan\"\n";
    let spec = load(&scenario("1 KB", "10 s", &format!("{wlan_gprs}{back}"))).expect("loads");
    assert_eq!(appearing(&spec, 0), vec![]);
}

#[test]
fn no_join_over_an_absent_interface_and_one_from_it_when_its_address_is_added() {
    // `mptcp_pm_create_subflow_or_signal_addr` walks the endpoints there are: at full
    // establishment WLAN has none (its address has not appeared), so no MP_JOIN; its address
    // added (`mptcp_pm_nl_add_addr_doit` -> `mptcp_nl_add_subflow_or_signal_addr`, for a
    // fully established connection) opens a subflow from it (RFC 8684 §3.2).
    let spec = load(&gprs_first("100 KB", "20 s", TO_WLAN_AT_3)).expect("loads");
    let (mut s, mut r) = ends(&spec);
    let t = Time::ZERO;
    r.start(t);
    let after = establish(&mut s, &mut r, t);
    assert!(joins(&after).is_empty(), "no join while wlan is absent");
    let wlan = iface(&spec, "wlan");
    let t3 = Time::ZERO + Dur::from_secs(3);
    assert!(r.address_added(t3, wlan, true));
    let j = joins(&drain(&mut r, t3));
    assert_eq!(j.len(), 1, "one join, from the address added");
    assert_eq!(
        j[0].0.handshake,
        Handshake::Join {
            interface: wlan,
            backup: false
        }
    );
    assert_eq!(j[0].1, link_index(&spec, "wlan"), "over its interface");
}

#[test]
fn an_address_added_before_full_establishment_is_lost_without_an_endpoint_at_creation() {
    // `mptcp_pm_data_reset` (net/mptcp/pm.c) sets `work_pending` once, when the connection is
    // created, from the `subflow` endpoints there are: none (WLAN absent), so
    // `mptcp_pm_fully_established` schedules no PM work; and `mptcp_nl_add_subflow_or_signal_addr`
    // skipped the connection, not fully established when WLAN's endpoint came. No join.
    let spec = load(&gprs_first("100 KB", "20 s", TO_WLAN_AT_3)).expect("loads");
    let (mut s, mut r) = ends(&spec);
    r.start(Time::ZERO);
    r.address_added(Time::ZERO, iface(&spec, "wlan"), true);
    assert!(joins(&establish(&mut s, &mut r, Time::ZERO)).is_empty());
}

#[test]
fn an_address_added_before_full_establishment_is_joined_at_it_when_the_pm_had_work() {
    // With another `subflow` endpoint at creation (`work_pending`), full establishment runs
    // `mptcp_pm_create_subflow_or_signal_addr`, which walks the endpoints there are then:
    // the one added meanwhile too.
    let text = gprs_first("100 KB", "20 s", TO_WLAN_AT_3)
        .replace("[mobile]", "[access.wlan2]\npreset = \"dk-wlan\"\n[mobile]");
    let spec = load(&text).expect("loads");
    let (mut s, mut r) = ends(&spec);
    r.start(Time::ZERO);
    r.address_added(Time::ZERO, iface(&spec, "wlan"), true);
    let j = joins(&establish(&mut s, &mut r, Time::ZERO));
    let links: Vec<usize> = j.iter().map(|x| x.1).collect();
    assert_eq!(links.len(), 2, "{links:?}");
    assert!(links.contains(&link_index(&spec, "wlan")));
    assert!(links.contains(&link_index(&spec, "wlan2")));
}

#[test]
fn only_the_segment_at_the_initial_subflows_first_byte_makes_the_client_fully_established() {
    // `check_fully_established` (net/mptcp/options.c): "TCP_SKB_CB(skb)->seq !=
    // subflow->ssn_offset + 1" returns before full establishment: data out of order, DSS and
    // all, opens no join; the first segment, when it comes, does.
    let text = scenario("100 KB", "20 s", "");
    let spec = load(&text).expect("loads");
    let (mut s, mut r) = ends(&spec);
    let t = Time::ZERO;
    r.start(t);
    for a in drain(&mut r, t) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t, &p, &pl);
    }
    for a in drain(&mut s, t) {
        let (p, pl) = packet(&a, true);
        r.handle_packet(t, &p, &pl);
    }
    for a in drain(&mut r, t) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t, &p, &pl);
    }
    let data = drain(&mut s, t);
    assert!(data.len() >= 2, "an initial window of several segments");
    for a in &data[1..] {
        let (p, pl) = packet(a, true);
        r.handle_packet(t, &p, &pl);
    }
    assert!(
        joins(&drain(&mut r, t)).is_empty(),
        "no join on data out of order"
    );
    let (p, pl) = packet(&data[0], true);
    r.handle_packet(t, &p, &pl);
    let j = joins(&drain(&mut r, t));
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].1, link_index(&spec, "gprs"));
}

#[test]
fn before_a_slow_to_fast_handover_nothing_crosses_the_new_interface() {
    // The 200 KB over GPRS (200 kb/s) take about 8 s: with WLAN up from the start the
    // transfer would be over WLAN in about 2 s (issue 39's skipped slow -> fast cells). WLAN
    // appears at 3 s: the WLAN subflow opens then and carries the rest.
    let s = run(&gprs_first("200 KB", "60 s", TO_WLAN_AT_3));
    let f = &s.flows[0];
    assert!(f.completed, "{f:?}");
    let t = f.transfer_time_s.expect("a time");
    assert!(t > 3.0, "done at {t} s, before WLAN existed");
    let m = f.mptcp().expect("an MPTCP flow");
    let wlan = m
        .subflows
        .iter()
        .find(|x| x.interface == "wlan")
        .expect("a wlan subflow");
    assert!(wlan.opened_s >= 3.0, "{m:?}");
    assert!(wlan.bytes_received > 0, "{m:?}");
    assert_eq!(m.subflows_created, 2, "{m:?}");
}

#[test]
fn the_connections_first_timeout_is_the_subflows_own_not_tcp_rto_min() {
    // `__mptcp_push_pending` resets the connection's timer after `mptcp_push_release` pushed
    // the subflow, whose own RTO is then pending: `mptcp_set_timeout` takes it (RTT 0.98 s
    // here, RFC 6298 (2.2): 0.98 + 4 · 0.49 s), not `TCP_RTO_MIN`'s 200 ms, whose expiries
    // would count a slow subflow's stale periods before its first ACK could come.
    let spec = load(&gprs_first("100 KB", "20 s", "")).expect("loads");
    let (mut s, mut r) = ends(&spec);
    let (t0, t1, t2) = (Time::ZERO, Time::from_millis(650), Time::from_millis(980));
    r.start(t0);
    for a in drain(&mut r, t0) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t0, &p, &pl);
    }
    for a in drain(&mut s, t0) {
        let (p, pl) = packet(&a, true);
        r.handle_packet(t1, &p, &pl);
    }
    for a in drain(&mut r, t1) {
        let (p, pl) = packet(&a, false);
        s.handle_packet(t2, &p, &pl);
    }
    let data = drain(&mut s, t2);
    assert!(data.iter().any(|x| parts(x).0.len > 0));
    let first = s.poll_timeout().expect("a timer runs").saturating_since(t2);
    assert!(first > Dur::from_secs(1), "{first:?}");
}

/// Daniel & Kojo's study file (`vho compare`'s cells) with `sets`, as MPTCP.
fn study_run(sets: &[&str]) -> crate::world::summary::FlowSummary {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("scenarios/studies/daniel-kojo.toml");
    let text = std::fs::read_to_string(&path).expect("the study is in the repository");
    let mut all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    all.push("flow.0.kind=\"mptcp\"".into());
    let presets = crate::scenario::PresetSet::builtin().expect("presets");
    let spec =
        crate::scenario::load(&path.to_string_lossy(), &text, &all, &presets).expect("loads");
    crate::world::run(&spec, Vec::new())
        .expect("runs")
        .summary
        .flows
        .remove(0)
}

const DK_GPRS_WLAN: [&str; 7] = [
    "mobile.start=\"gprs\"",
    "handover.0.from=\"gprs\"",
    "handover.0.to=\"wlan\"",
    "handover.0.window=\"1 s\"",
    "handover.0.delay=\"0 s\"",
    "access.wlan.queue_model=\"ns2-droptail\"",
    "access.gprs.queue_model=\"ns2-droptail\"",
];

#[test]
fn a_dead_subflow_whose_ns2_estimator_forgot_its_rtt_does_not_hold_the_scheduler() {
    // `mptcp_subflow_get_send` ranks subflows by queued bytes over their pacing rate, which
    // Linux updates on ACKs only (`tcp_update_pacing_rate`): a subflow whose link died keeps
    // its last rate and lingers long. ns-2's estimator (Daniel & Kojo's TCP) clears SRTT after
    // a fourth backoff (`rtt_backoff`); read as "no RTT yet" (lingers for no time), the dead
    // GPRS subflow stayed the pick, without room, and WLAN was never handed the rest: a
    // 20 MB GPRS -> WLAN replication of `vho compare` stopped at 16.7 MB for good.
    let mut sets = DK_GPRS_WLAN.to_vec();
    sets.extend([
        "handover.0.at=\"2.5 s\"",
        "handover.0.kind=\"soft-reconfigure\"",
        "flow.0.size=\"20000000 B\"",
        "run.seed=9128599448822266665",
    ]);
    let f = study_run(&sets);
    assert!(f.completed, "{:?}", f.bytes_delivered);
    assert_eq!(f.bytes_delivered, 20_000_000);
}

#[test]
fn a_subflow_paces_from_its_handshake_rtt_before_its_first_data_ack() {
    // Linux sets a passive subflow's pacing rate when it is established, from the SYN-ACK's
    // RTT (`tcp_synack_rtt_meas`, `tcp_update_pacing_rate` in `tcp_rcv_state_process`): a
    // GPRS subflow with its first flight queued does not linger "for no time". Read so, it
    // tied with the fresh WLAN subflow at zero, stayed the pick (the first), without room once
    // GPRS died at 1.40 s, before any of its data was acknowledged: WLAN opened at 1.43 s and
    // never carried a byte (a 200 KB replication of `vho compare`, HTime 1).
    let mut sets = DK_GPRS_WLAN.to_vec();
    sets.extend([
        "handover.0.at=\"0.5 s\"",
        "handover.0.kind=\"hard\"",
        "flow.0.size=\"200000 B\"",
        "run.seed=5234560855544253395",
    ]);
    let f = study_run(&sets);
    assert!(f.completed, "{:?}", f.bytes_delivered);
    let m = f.mptcp().expect("an MPTCP flow");
    let wlan = m.subflows.iter().find(|x| x.interface == "wlan");
    assert!(wlan.is_some_and(|w| w.bytes_received > 0), "{m:?}");
}
