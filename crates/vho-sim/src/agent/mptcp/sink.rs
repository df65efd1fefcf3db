//! The connection at the data receiver: its subflows' TCP receivers, the path manager's
//! joins, the DSS mappings learnt and the data-level reassembly.

use super::announce;
use super::option::{AddrSignal, Handshake, MapTable, MptcpOption};
use super::{iss, mptcp_option, subflow_port, transmit, Life, MptcpSink, RecvFlow};
use crate::agent::{Agent, Arrival, HandoverNote, Payload, Transmit};
use crate::packet::Packet;
use crate::tcp::segment::Flags;
use crate::tcp::{Segment, TcpReceiver};
use crate::time::{Dur, Time};

impl MptcpSink {
    fn find(&self, port: u16) -> Option<usize> {
        self.subflows.iter().position(|s| s.port == port)
    }

    /// Opens a subflow over interface `iface` (the initial one first).
    fn open(&mut self, iface: u8) {
        let id = self.subflows.len() as u8;
        let port = subflow_port(self.port_base, id);
        let tcp = TcpReceiver::new(
            &self.tcp,
            port,
            self.port,
            iss(self.seed, &self.name, id, "r"),
        );
        self.subflows.push(RecvFlow {
            id,
            iface,
            backup: self.paths.backup(iface),
            port,
            tcp,
            maps: MapTable::default(),
            consumed: 0,
            acked_handshake: false,
            life: Life::Open,
            data_bytes: 0,
            arrivals: Vec::new(),
            syn_at: None,
            hs_rtt: None,
        });
    }

    /// The ADD_ADDR timer's interval: the subflows' largest RTO as the mobile's TCP knows it
    /// from the handshakes (`announce::rto_from_first_sample`), capped
    /// (`announce::timeout`).
    fn announce_timeout(&self) -> Dur {
        let max = self
            .subflows
            .iter()
            .filter(|s| s.life == Life::Open)
            .filter_map(|s| s.hs_rtt)
            .map(announce::rto_from_first_sample)
            .max();
        announce::timeout(max)
    }

    /// At the mobile: announces interface `iface`'s address if its endpoint has `signal`
    /// (`announce`).
    fn maybe_announce(&mut self, now: Time, iface: u8) {
        let signals = self.paths.cfg.endpoint(iface).is_some_and(|e| e.signals());
        if signals && iface != self.paths.initial && !self.paths.mobile_sends {
            self.announcer.enqueue(iface);
            let t = self.announce_timeout();
            self.announcer.kick(now, t);
        }
    }

    /// A path manager signal on a pure ACK of the first open subflow
    /// (`mptcp_pm_addr_send_ack`), no other suboption with it: the mobile's ADD_ADDR (a
    /// download) or the correspondent's echo (an upload).
    fn signal_ack(&mut self, now: Time) -> Option<Transmit> {
        let addr = if self.announcer.wants_send() {
            AddrSignal::Add(self.announcer.take_send()?)
        } else {
            AddrSignal::Echo(self.echo.pop_front()?)
        };
        let s = self
            .subflows
            .iter_mut()
            .find(|s| s.life == Life::Open && s.tcp.is_established())?;
        let tx = s.tcp.ack_at_once(now)?;
        let opt = MptcpOption {
            addr,
            ..MptcpOption::default()
        };
        let link = self.paths.links[usize::from(s.iface)];
        Some(transmit(
            self.header_model,
            tx.segment,
            tx.kind,
            opt,
            link,
            &mut self.beside,
        ))
    }

    /// Once the connection is fully established at this end, the path manager opens one
    /// subflow per endpoint that asks for it (`mptcp_pm_nl_fully_established` →
    /// `mptcp_pm_create_subflow_or_signal_addr`, pm_netlink.c), up to the limit. The client
    /// is fully established not at the SYN-ACK but at the first DSS from the peer after it
    /// (`check_fully_established`, net/mptcp/options.c: MP_CAPABLE's third ACK may be lost):
    /// for a download, the first data segment, a round trip later.
    ///
    /// The path manager acts at full establishment only if it had work when the connection
    /// was created (`mptcp_pm_fully_established` schedules the PM worker only with
    /// `pm->work_pending`, which `mptcp_pm_data_reset` set from the endpoints there were): an
    /// endpoint added between the connection's creation and its full establishment, when
    /// none was there before, gets no subflow (`mptcp_nl_add_subflow_or_signal_addr` skips a
    /// connection not fully established). Measured: `vho emulate --multipath`, GPRS -> WLAN at
    /// 1 s, WLAN's endpoint added then: no MP_JOIN (docs/design/mptcp.md).
    fn maybe_join(&mut self, now: Time) {
        if self.joined || !self.fully_established {
            return;
        }
        self.joined = true;
        if !self.work_pending {
            return;
        }
        let initial = self.paths.initial;
        // "check first for announce" (`mptcp_pm_create_subflow_or_signal_addr`).
        let signal: Vec<u8> = self
            .paths
            .cfg
            .endpoints()
            .iter()
            .filter(|e| e.signals() && !self.paths.is_absent(e.interface))
            .map(|e| e.interface)
            .collect();
        for iface in signal {
            self.maybe_announce(now, iface);
        }
        let ifaces: Vec<u8> = self
            .paths
            .cfg
            .endpoints()
            .iter()
            .filter(|e| e.opens_subflow() && e.interface != initial)
            .filter(|e| !self.paths.is_absent(e.interface))
            .map(|e| e.interface)
            .take(usize::from(self.paths.cfg.max_subflows))
            .collect();
        self.to_join.extend(ifaces);
        for iface in std::mem::take(&mut self.to_join) {
            self.open(iface);
        }
    }

    fn close_iface(&mut self, now: Time, iface: u8) {
        for s in self.subflows.iter_mut() {
            if s.iface == iface && s.life == Life::Open {
                s.life = Life::Closed(now);
            }
        }
    }

    /// Re-creates a subflow over `iface` if it has none open and its endpoint asks for one.
    fn reopen(&mut self, iface: u8) {
        let open = self
            .subflows
            .iter()
            .any(|s| s.iface == iface && s.life == Life::Open);
        if !open && self.paths.wants_subflow(iface) && self.joined && !self.paths.is_absent(iface) {
            self.open(iface);
        }
    }
}

impl Agent for MptcpSink {
    fn start(&mut self, _now: Time) {
        self.open(self.paths.initial);
        // `mptcp_pm_data_reset`: work pending if a `subflow` endpoint exists now (an absent
        // interface has none yet) and extra subflows are allowed.
        let initial = self.paths.initial;
        // Or if a `signal` endpoint exists (`add_addr_signal_max`).
        let absent = |i| self.paths.is_absent(i);
        self.work_pending = (self.paths.cfg.max_subflows > 0
            && self
                .paths
                .cfg
                .endpoints()
                .iter()
                .any(|e| e.opens_subflow() && e.interface != initial && !absent(e.interface)))
            || self
                .paths
                .cfg
                .endpoints()
                .iter()
                .any(|e| e.signals() && !absent(e.interface));
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        // No socket at the announced address (`announce`): a RST at once.
        if let Some((seg, iface)) = self.resets.pop_front() {
            let link = self.paths.links[usize::from(iface)];
            let kind = crate::tcp::TxKind::New;
            let opt = MptcpOption::default();
            return Some(transmit(
                self.header_model,
                seg,
                kind,
                opt,
                link,
                &mut self.beside,
            ));
        }
        self.maybe_join(now);
        let n = self.subflows.len();
        for k in 0..n {
            let i = (self.next + k) % n;
            let s = &mut self.subflows[i];
            if s.life != Life::Open {
                continue;
            }
            let Some(tx) = s.tcp.poll_transmit(now) else {
                continue;
            };
            self.next = (i + 1) % n;
            let seg = tx.segment;
            let mut opt = MptcpOption {
                data_ack: Some(self.rx.ack_seq()),
                ack64: true,
                addr: self.signal.take().unwrap_or_default(),
                ..MptcpOption::default()
            };
            if seg.flags.contains(Flags::SYN) {
                s.syn_at = Some(now);
                opt.data_ack = None;
                opt.handshake = if s.id == 0 {
                    Handshake::Capable
                } else {
                    Handshake::Join {
                        interface: s.iface,
                        backup: s.backup,
                    }
                };
            } else if !std::mem::replace(&mut s.acked_handshake, true) && s.id > 0 {
                // A join's third ACK: MP_JOIN's HMAC alone, no DATA_ACK
                // (`mptcp_established_options_mp` returns the MP_JOIN ACK option by itself).
                opt.data_ack = None;
                opt.handshake = Handshake::JoinAck;
            }
            let link = self.paths.links[usize::from(s.iface)];
            return Some(transmit(
                self.header_model,
                seg,
                tx.kind,
                opt,
                link,
                &mut self.beside,
            ));
        }
        self.signal_ack(now)
    }

    fn tcp_payload(&mut self) -> Option<(Payload, u32)> {
        self.beside.take()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.subflows
            .iter()
            .filter(|s| s.life == Life::Open)
            .filter_map(|s| s.tcp.poll_timeout())
            .chain(self.announcer.poll_timeout())
            .min()
    }

    fn handle_timeout(&mut self, now: Time) {
        for s in self.subflows.iter_mut() {
            if s.life == Life::Open && s.tcp.poll_timeout().is_some_and(|t| t <= now) {
                s.tcp.handle_timeout(now);
            }
        }
        if self.announcer.poll_timeout().is_some_and(|t| t <= now) {
            let t = self.announce_timeout();
            self.announcer.on_timeout(now, t);
        }
    }

    fn handle_packet(&mut self, now: Time, pkt: &Packet, payload: &Payload) -> Arrival {
        let seg = &pkt.seg;
        let opt = mptcp_option(payload);
        // At the mobile, the correspondent's MP_JOIN SYN to an address it announced, at the
        // connection's port: nothing listens there (`announce`), a RST answers
        // (`tcp_v4_send_reset`: ACK of the SYN, sequence 0).
        if let Handshake::PeerJoin { toward: interface } = opt.handshake {
            if seg.flags.contains(Flags::SYN) && !seg.flags.contains(Flags::ACK) {
                let rst = Segment {
                    src_port: seg.dst_port,
                    dst_port: seg.src_port,
                    ack: seg.seq + 1,
                    flags: Flags::RST.union(Flags::ACK),
                    ..Segment::default()
                };
                self.resets.push_back((rst, interface));
                return Arrival {
                    data: None,
                    delivered: Some(self.rx.ack_seq()),
                    respond: true,
                };
            }
        }
        let before = self.rx.ack_seq();
        let mut data = None;
        let mut via = None;
        if let Some(i) = self.find(seg.dst_port) {
            let s = &mut self.subflows[i];
            via = Some(s.iface);
            let dss = opt.data_ack.is_some() || opt.n_maps > 0;
            // `check_fully_established` (net/mptcp/options.c): only the packet at the
            // subflow's first byte (`ssn_offset + 1`) with a DSS makes the client fully
            // established; one out of order does not (its data waits, its ACK still carries
            // MP_CAPABLE).
            let first = i == 0 && dss && s.tcp.is_established() && s.tcp.delivered_bytes() == 0;
            if s.life == Life::Open {
                for m in opt.maps() {
                    s.maps.push(*m);
                }
                s.tcp.handle_segment(now, seg);
                if let (None, Some(at), true) = (s.hs_rtt, s.syn_at, s.tcp.is_established()) {
                    s.hs_rtt = Some(now.saturating_since(at));
                }
                if first && s.tcp.delivered_bytes() > 0 {
                    self.fully_established = true;
                }
                if seg.len > 0 {
                    data = Some(u64::from(seg.len));
                    s.data_bytes += u64::from(seg.len);
                    s.arrivals.push(now);
                }
                // What the subflow now has in order goes to the connection by its DSN.
                let upto = s.tcp.delivered_bytes();
                let rx = &mut self.rx;
                s.maps
                    .map_range(s.consumed, upto, |dsn, len| rx.insert(dsn, len));
                s.consumed = upto;
                s.maps.prune_below(upto);
            }
        }
        // The mobile's MP_JOIN SYN from an address no subflow uses (an upload with none open to
        // carry ADD_ADDR, `MptcpSource::ask_for`): the peer opens the subflow over it.
        if let (None, Handshake::Join { interface, .. }) = (via, opt.handshake) {
            if seg.flags.contains(Flags::SYN) {
                self.paths.added(interface);
                self.reopen(interface);
            }
        }
        match opt.addr {
            AddrSignal::Remove(iface) => self.close_iface(now, iface),
            AddrSignal::Add(iface) => {
                self.paths.added(iface);
                self.reopen(iface);
                // The correspondent echoes every ADD_ADDR (`announce`); the connection it
                // would attempt to the address is not sent (see the module's Deviation).
                self.echo.push_back(iface);
            }
            AddrSignal::Echo(iface) => {
                let t = self.announce_timeout();
                self.announcer.on_echo(now, iface, t);
            }
            AddrSignal::None => {}
        }
        if let (true, Some(iface)) = (self.rx.ack_seq() > before, via) {
            self.progress.push((now, iface));
        }
        Arrival {
            data,
            delivered: Some(self.rx.ack_seq()),
            respond: true,
        }
    }

    fn notify_handover(&mut self, now: Time, h: &HandoverNote) -> bool {
        if !h.here {
            return false;
        }
        // As the sender's (above): the address removed closes the interface's subflows and
        // the peer is told; the one taken gets a subflow again.
        self.close_iface(now, h.notice.from);
        self.signal = Some(AddrSignal::Remove(h.notice.from));
        self.reopen(h.notice.to);
        true
    }

    /// The mobile's address on `iface` appeared (its interface came up). At the mobile, the
    /// path manager opens a subflow from it if the connection is fully established and the
    /// interface's endpoint asks for one (`mptcp_pm_nl_add_addr_doit` →
    /// `mptcp_nl_add_subflow_or_signal_addr` → `mptcp_pm_create_subflow_or_signal_addr`,
    /// net/mptcp/pm_kernel.c, Linux 6.15+; pm_netlink.c before): an MP_JOIN from the new
    /// address (RFC 8684 §3.2). Not yet fully established, `maybe_join` finds it later, as
    /// `mptcp_pm_nl_fully_established` does. Away from the mobile it is learnt from ADD_ADDR.
    fn address_added(&mut self, now: Time, iface: u8, here: bool) -> bool {
        if !here {
            return false;
        }
        self.paths.added(iface);
        self.reopen(iface);
        // A `signal` endpoint added to a fully established connection is announced
        // (`mptcp_nl_add_subflow_or_signal_addr`); before, `maybe_join` finds it.
        if self.joined {
            self.maybe_announce(now, iface);
        }
        true
    }
}
