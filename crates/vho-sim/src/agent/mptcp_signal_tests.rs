//! The `signal` endpoint (`agent::mptcp::announce`): ADD_ADDR (RFC 8684 §3.4.1) as Linux's
//! in-kernel path manager sends, echoes and acts on it.

use super::*;

/// The mobile's interface index of the link named `name`.
fn iface(spec: &Spec, name: &str) -> u8 {
    spec.mobiles[0]
        .interfaces
        .iter()
        .position(|&l| l == link_index(spec, name))
        .expect("an interface") as u8
}

/// A download with `mptcp` as its `[flow.mptcp]` keys, driven by hand until the first data
/// segment reached the mobile: the ends, and what each sent last.
struct Driven {
    spec: Spec,
    s: MptcpSource,
    r: MptcpSink,
    /// What the mobile sent on the first data segment (the client fully established).
    at_first_data: Vec<Sent>,
    /// What the mobile sent on the SYN-ACK.
    at_synack: Vec<Sent>,
}

fn drive(mptcp: &str, t: Time) -> Driven {
    let text = scenario("100 KB", "10 s", "") + "[flow.mptcp]\n" + mptcp;
    let spec = load(&text).expect("loads");
    let (mut s, mut r) = ends(&spec);
    r.start(t);
    let syn = drain(&mut r, t);
    let synack = deliver(&mut s, &syn[..1], false, t);
    let at_synack = deliver(&mut r, &synack[..1], true, t);
    let data = deliver(&mut s, &at_synack, false, t);
    assert!(parts(&data[0]).0.len > 0);
    let at_first_data = deliver(&mut r, &data[..1], true, t);
    Driven {
        spec,
        s,
        r,
        at_first_data,
        at_synack,
    }
}

fn adds(out: &[Sent]) -> Vec<(crate::tcp::Segment, MptcpOption, usize)> {
    out.iter()
        .map(parts)
        .filter(|(_, o, _)| matches!(o.addr, AddrSignal::Add(_)))
        .collect()
}

fn syns(out: &[Sent]) -> Vec<(crate::tcp::Segment, MptcpOption, usize)> {
    out.iter()
        .map(parts)
        .filter(|(seg, _, _)| seg.flags.contains(Flags::SYN))
        .collect()
}

// ---- the announcing end (the mobile) ----

#[test]
fn a_signal_endpoint_is_announced_once_the_connection_is_fully_established() {
    // pm_kernel.c `mptcp_pm_nl_fully_established` -> `mptcp_pm_create_subflow_or_signal_addr`:
    // the client announces at full establishment (`check_fully_established`, the first DSS
    // after the SYN-ACK), on a pure ACK with no other suboption (pm.c
    // `mptcp_pm_add_addr_signal`), over the first subflow; a `signal` endpoint opens no
    // subflow of its own.
    let d = drive("endpoints = { gprs = [\"signal\"] }\n", Time::ZERO);
    assert!(adds(&d.at_synack).is_empty(), "nothing at the SYN-ACK");
    let a = adds(&d.at_first_data);
    assert_eq!(a.len(), 1, "one ADD_ADDR");
    let (seg, opt, link) = a[0];
    assert_eq!(opt.addr, AddrSignal::Add(iface(&d.spec, "gprs")));
    assert_eq!(seg.len, 0);
    assert_eq!(seg.flags, Flags::ACK);
    assert_eq!(opt.data_ack, None, "no DSS beside ADD_ADDR on a pure ACK");
    assert_eq!(
        link,
        link_index(&d.spec, "wlan"),
        "over the initial subflow"
    );
    assert!(
        syns(&d.at_first_data).is_empty(),
        "signal alone: no MP_JOIN"
    );
}

#[test]
fn signal_and_subflow_together_announce_and_join() {
    // `mptcp_pm_create_subflow_or_signal_addr`: "check first for announce", then with
    // MPTCP_PM_ADDR_FLAG_SUBFLOW also set (`signal_and_subflow`) a subflow from the address.
    let d = drive(
        "endpoints = { gprs = [\"signal\", \"subflow\"] }\n",
        Time::ZERO,
    );
    assert_eq!(adds(&d.at_first_data).len(), 1);
    let j = syns(&d.at_first_data);
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].2, link_index(&d.spec, "gprs"));
}

#[test]
fn an_unechoed_add_addr_is_sent_again_after_the_rto_and_the_echo_stops_it() {
    // pm.c `mptcp_pm_add_timer` (Linux 6.18 `mptcp_adjust_add_addr_timeout`: the subflows'
    // largest RTO under add_addr_timeout); here the handshake took no time, so the mobile's
    // RTO is TCP_RTO_MIN, 200 ms. The echo stops the timer (`mptcp_pm_del_add_timer`).
    let t = Time::ZERO;
    let mut d = drive("endpoints = { gprs = [\"signal\"] }\n", t);
    let due = t + Dur::from_millis(200);
    assert_eq!(d.r.poll_timeout(), Some(due));
    d.r.handle_timeout(due);
    assert_eq!(adds(&drain(&mut d.r, due)).len(), 1, "sent again");
    let again = t + Dur::from_millis(600);
    assert_eq!(d.r.poll_timeout(), Some(again), "doubled");
    // The correspondent's echo.
    let echo: Vec<_> = peer_answer(&mut d)
        .into_iter()
        .filter(|x| matches!(x.opt.addr, AddrSignal::Echo(_)))
        .collect();
    assert_eq!(echo.len(), 1);
    let (p, pl) = packet(&echo[0], true);
    d.r.handle_packet(due, &p, &pl);
    assert_ne!(
        d.r.poll_timeout(),
        Some(again),
        "the echo stopped the timer"
    );
}

// ---- the peer (the correspondent) ----

/// The mobile's ADD_ADDR handed to the correspondent: what the correspondent sends then.
fn peer_answer(d: &mut Driven) -> Vec<Sent> {
    let t = Time::ZERO;
    let add = d
        .at_first_data
        .iter()
        .find(|x| matches!(x.opt.addr, AddrSignal::Add(_)))
        .expect("an ADD_ADDR");
    let (p, pl) = packet(add, false);
    d.s.handle_packet(t, &p, &pl);
    drain(&mut d.s, t)
}

#[test]
fn with_add_addr_accepted_zero_the_peer_echoes_and_opens_nothing() {
    // RFC 8684 §3.4.1: the receiver echoes the ADD_ADDR (E flag); pm.c
    // `mptcp_pm_add_addr_received` with `accept_addr` false (Linux's default limit 0,
    // `pm_nl_init_net`): echo only, no connection.
    let mut d = drive("endpoints = { gprs = [\"signal\"] }\n", Time::ZERO);
    let out = peer_answer(&mut d);
    let gprs = iface(&d.spec, "gprs");
    let echoes: Vec<_> = out
        .iter()
        .filter(|x| x.opt.addr == AddrSignal::Echo(gprs))
        .collect();
    assert_eq!(echoes.len(), 1, "one echo");
    let (seg, opt, _) = parts(echoes[0]);
    assert_eq!((seg.len, opt.data_ack), (0, None), "on a pure ACK alone");
    assert!(syns(&out).is_empty(), "no MP_JOIN from the peer");
}

#[test]
fn within_its_limit_the_peer_connects_to_the_announced_address_and_the_mobile_resets() {
    // pm_kernel.c `mptcp_pm_nl_add_addr_received`: echo, then `__mptcp_subflow_connect` to the
    // announced address at the connection's remote port (`remote.port = sk->sk_dport`): the
    // mobile's ephemeral port, where nothing listens at that address, so a RST answers
    // (measured on Linux 6.18, docs/design/mptcp.md). No subflow is made.
    let mut d = drive(
        "add_addr_accepted = 1\nendpoints = { gprs = [\"signal\"] }\n",
        Time::ZERO,
    );
    let out = peer_answer(&mut d);
    let gprs = iface(&d.spec, "gprs");
    let kinds: Vec<&str> = out
        .iter()
        .map(
            |x| match (x.opt.addr, parts(x).0.flags.contains(Flags::SYN)) {
                (AddrSignal::Echo(_), _) => "echo",
                (_, true) => "syn",
                _ => "other",
            },
        )
        .filter(|k| *k != "other")
        .collect();
    assert_eq!(
        kinds,
        ["echo", "syn"],
        "the echo first, then the connection"
    );
    let j = syns(&out);
    let (syn, opt, link) = j[0];
    assert!(!syn.flags.contains(Flags::ACK));
    assert_eq!(opt.handshake, Handshake::PeerJoin { toward: gprs });
    assert_eq!(
        link,
        link_index(&d.spec, "gprs"),
        "toward the announced address"
    );
    let (p, pl) = packet(
        out.iter()
            .find(|x| parts(x).0.flags.contains(Flags::SYN))
            .expect("syn"),
        true,
    );
    assert_eq!(
        p.seg.dst_port,
        parts(&d.at_synack[0]).0.src_port,
        "the mobile's port"
    );
    d.r.handle_packet(Time::ZERO, &p, &pl);
    let rst = drain(&mut d.r, Time::ZERO);
    assert_eq!(rst.len(), 1);
    let (seg, _, link) = parts(&rst[0]);
    assert!(seg.flags.contains(Flags::RST));
    assert_eq!(seg.ack, syn.seq + 1);
    assert_eq!(link, link_index(&d.spec, "gprs"));
    // The RST ends it: nothing more from the peer for it, and a second ADD_ADDR of the same
    // address is not acted on (`add_addr_accepted` reached).
    let (p, pl) = packet(&rst[0], false);
    d.s.handle_packet(Time::ZERO, &p, &pl);
    assert!(syns(&drain(&mut d.s, Time::ZERO)).is_empty());
}

// ---- whole runs ----

#[test]
fn a_signal_endpoint_opens_no_subflow_with_or_without_the_peers_limit() {
    // Whatever add_addr_accepted, a client's `signal` endpoint gives no second subflow on
    // Linux (the peer's SYN is refused): the run is the single-path one, less the ADD_ADDR
    // and its echo; the default `subflow` endpoint gives two.
    let cell = |mptcp: &str| {
        let text = scenario("200 KB", "60 s", "") + "[flow.mptcp]\n" + mptcp;
        let f = &run(&text).flows[0];
        let m = f.mptcp().expect("mptcp");
        (m.subflows_created, f.completed)
    };
    assert_eq!(cell("endpoints = { gprs = [\"signal\"] }\n"), (1, true));
    assert_eq!(
        cell("add_addr_accepted = 8\nendpoints = { gprs = [\"signal\"] }\n"),
        (1, true)
    );
    assert_eq!(cell("endpoints = { gprs = [\"subflow\"] }\n"), (2, true));
}

#[test]
fn add_addr_accepted_takes_the_kernels_range() {
    // `parse_limit` (pm_kernel.c): at most MPTCP_PM_ADDR_MAX, 8.
    for bad in ["-1", "9"] {
        let text =
            scenario("1 KB", "1 s", "") + &format!("[flow.mptcp]\nadd_addr_accepted = {bad}\n");
        let e = load(&text).expect_err("refused");
        assert_eq!(e.field, "flow.mptcp.add_addr_accepted", "{e}");
    }
    let text = scenario("1 KB", "1 s", "") + "[flow.mptcp]\nadd_addr_accepted = 8\n";
    assert!(load(&text).is_ok());
}

#[test]
fn in_an_upload_the_mobile_announces_at_its_first_data_ack_and_the_peer_echoes() {
    // The mobile is the client whichever way data flows: fully established at the first DSS
    // from the peer after the handshake (`check_fully_established`), here the correspondent's
    // first DATA_ACK; then "check first for announce". The correspondent echoes (§3.4.1).
    let text = scenario("100 KB", "10 s", "")
        .replace("from = \"ch\"\nto = \"mh\"", "from = \"mh\"\nto = \"ch\"")
        + "[flow.mptcp]\nendpoints = { gprs = [\"signal\"] }\n";
    let spec = load(&text).expect("loads");
    let (mut s, mut r) = ends(&spec);
    let t = Time::ZERO;
    r.start(t);
    let syn = drain(&mut r, t);
    let synack = deliver(&mut s, &syn[..1], false, t);
    let third = deliver(&mut r, &synack[..1], true, t);
    let data = deliver(&mut s, &third, false, t);
    assert!(
        adds(&data).is_empty(),
        "not before the peer's first DATA_ACK"
    );
    let acks = deliver(&mut r, &data, true, t);
    let out = deliver(&mut s, &acks, false, t);
    let a = adds(&out);
    assert_eq!(a.len(), 1, "the mobile's ADD_ADDR");
    let (seg, opt, _) = a[0];
    assert_eq!(
        (seg.len, opt.data_ack, opt.n_maps),
        (0, None, 0),
        "on a pure ACK alone"
    );
    assert_eq!(opt.addr, AddrSignal::Add(iface(&spec, "gprs")));
    let add = out
        .iter()
        .find(|x| matches!(x.opt.addr, AddrSignal::Add(_)))
        .expect("sent");
    let (p, pl) = packet(add, true);
    r.handle_packet(t, &p, &pl);
    let echo: Vec<_> = drain(&mut r, t)
        .into_iter()
        .filter(|x| x.opt.addr == AddrSignal::Echo(iface(&spec, "gprs")))
        .collect();
    assert_eq!(echo.len(), 1, "echoed");
    assert!(syns(&out).is_empty(), "signal alone: no subflow");
}
