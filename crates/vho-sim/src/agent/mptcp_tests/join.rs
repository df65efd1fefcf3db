//! A subflow the peer joins (MP_JOIN, RFC 8684 §3.2) at the data sender: when it first
//! carries data.

use super::*;

/// Hands every segment in `out` to `to` at `t`.
fn deliver(to: &mut impl Agent, out: &[Sent], to_receiver: bool, t: Time) {
    for a in out {
        let (p, pl) = packet(a, to_receiver);
        to.handle_packet(t, &p, &pl);
    }
}

#[test]
fn a_joined_subflow_carries_nothing_until_the_connection_next_pushes() {
    // The client's MP_JOIN third ACK carries the MP_JOIN HMAC alone, no DSS
    // (`mptcp_established_options_mp`, net/mptcp/options.c), so at the server it runs no
    // DATA_ACK through `ack_update_msk` → `__mptcp_check_push`, and `mptcp_finish_join`
    // (net/mptcp/protocol.c) pushes nothing: the joined subflow's first data wait for the
    // connection's next push, here its retransmission timer (`mptcp_retransmit_timer` →
    // `__mptcp_retrans`, which reinjects the head of the unacknowledged data on a subflow
    // with nothing outstanding). Measured (docs/design/mptcp.md): the kernel's GPRS join in
    // Daniel & Kojo's WLAN -> GPRS soft cell idles until that timer, then carries the data
    // from the connection's DATA_ACK on.
    // The linux profile's window leaves room for more than the first flight.
    let text = scenario("200 KB", "10 s", "")
        + "tcp = { profile = \"linux\" }\n[flow.mptcp]\nendpoints = { gprs = [\"subflow\"] }\n";
    let spec = load(&text).expect("loads");
    let (mut s, mut r) = ends(&spec);
    // A round trip of 100 ms on the initial subflow (the scheduler's pacing rate needs one).
    let ms = Time::from_millis;
    r.start(ms(0));
    deliver(&mut s, &drain(&mut r, ms(0)), false, ms(0)); // MP_CAPABLE SYN
    deliver(&mut r, &drain(&mut s, ms(0)), true, ms(50)); // SYN-ACK
    deliver(&mut s, &drain(&mut r, ms(50)), false, ms(100)); // third ACK
    let flight = drain(&mut s, ms(100));
    assert!(
        flight.iter().any(|x| parts(x).0.len > 0),
        "the first flight"
    );
    // The client takes the flight (fully established: its path manager joins GPRS); its
    // ACKs are held back, so the initial subflow stays full.
    let t = ms(150);
    deliver(&mut r, &flight, true, t);
    let syn: Vec<Sent> = drain(&mut r, t)
        .into_iter()
        .filter(|x| parts(x).0.flags.contains(Flags::SYN))
        .collect();
    assert_eq!(syn.len(), 1, "the MP_JOIN SYN");
    let port = parts(&syn[0]).0.src_port;
    let t1 = t + Dur::from_millis(300);
    deliver(&mut s, &syn, false, t1);
    let synack = drain(&mut s, t1);
    let t2 = t1 + Dur::from_millis(300);
    deliver(&mut r, &synack, true, t2);
    let third = drain(&mut r, t2);
    assert_eq!(third.len(), 1);
    let (seg, opt, _) = parts(&third[0]);
    assert!(!seg.flags.contains(Flags::SYN) && seg.flags.contains(Flags::ACK));
    assert_eq!(opt.handshake, Handshake::JoinAck);
    assert_eq!(opt.data_ack, None, "no DSS on MP_JOIN's third ACK");
    let t3 = t2 + Dur::from_millis(300);
    deliver(&mut s, &third, false, t3);
    let on_join = |out: &[Sent]| {
        out.iter()
            .map(parts)
            .filter(|(seg, _, _)| seg.dst_port == port && seg.len > 0)
            .count()
    };
    assert_eq!(
        on_join(&drain(&mut s, t3)),
        0,
        "the join's establishment pushes nothing"
    );
    // The connection's timer (the initial subflow's own timers may come first): the join,
    // with nothing outstanding, carries the head of the unacknowledged data.
    let mut out = Vec::new();
    for _ in 0..4 {
        let at = s.poll_timeout().expect("a timer runs");
        s.handle_timeout(at);
        out = drain(&mut s, at);
        if on_join(&out) > 0 {
            break;
        }
    }
    assert!(on_join(&out) > 0, "the timer puts data on the join");
    let first = out
        .iter()
        .map(parts)
        .find(|(seg, _, _)| seg.dst_port == port && seg.len > 0)
        .expect("data on the join");
    assert_eq!(first.1.maps()[0].dsn, 0, "from the connection's DATA_ACK");
}

#[test]
fn a_backup_takes_over_when_the_lost_subflows_data_were_all_delivered_by_it() {
    // The thesis's fast -> slow case with GSM a backup and a 16 KiB window: WaveLAN is lost
    // with a window in flight, the connection's timer reinjects it on GSM, and GSM's DATA_ACK
    // covers everything sent. The scheduler still picks WaveLAN (active, not yet stale), which
    // has no room; Linux would queue the next data on it (`sk_stream_memory_free`), its
    // connection's timer running (`mptcp_set_timeout`) until WaveLAN is stale
    // (`mptcp_pm_nl_subflow_chk_stale`) and the backup may carry data
    // (`mptcp_subflow_get_send`). The model's timer runs in that state too, or the transfer
    // stops for good.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../python/vho/data/studies/thesis.toml"
    );
    let text = std::fs::read_to_string(path).expect("the thesis study");
    let sets: Vec<String> = [
        "run.stop=\"2000 s\"",
        "flow.0.kind=\"mptcp\"",
        "flow.0.mptcp.endpoints={gsm=[\"subflow\", \"backup\"]}",
    ]
    .map(String::from)
    .to_vec();
    let presets = PresetSet::builtin().expect("presets");
    let spec = scenario::load("thesis.toml", &text, &sets, &presets).expect("loads");
    let summary = crate::world::run(&spec, Vec::new()).expect("runs").summary;
    assert!(
        summary.flows[0].completed,
        "the transfer completes over the backup"
    );
}
