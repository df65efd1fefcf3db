//! The connection at the data sender: its subflows' TCP senders, the scheduler handing them
//! data, DATA_ACK, the connection's retransmission timer, staleness and reinjection.

use super::announce;
use super::option::{AddrSignal, Handshake, MapTable, Mapping, MptcpOption};
use super::sched::{self, RetransView, StaleCheck, Staleness, SubView};
use super::{iss, lia, mptcp_option, olia, transmit, Life, MptcpSample, MptcpSource, SendFlow};
use crate::agent::{Agent, AgentSeries, Arrival, HandoverNote, Payload, Transmit};
use crate::packet::Packet;
use crate::tcp::segment::Flags;
use crate::tcp::TcpSender;
use crate::time::Time;
use crate::traffic::mptcp::Coupling;

impl MptcpSource {
    fn find(&self, port: u16) -> Option<usize> {
        self.subflows.iter().position(|s| s.port == port)
    }

    fn open_subflows(&self) -> usize {
        self.subflows
            .iter()
            .filter(|s| s.life == Life::Open)
            .count()
    }

    /// A SYN on a port it has no subflow for: MP_CAPABLE opens the connection, MP_JOIN adds a
    /// subflow once the connection is established (RFC 8684 §3.2: the join carries the
    /// token MP_CAPABLE gave; Linux's `mptcp_can_accept_new_subflow`) and within the limit.
    fn accept(&mut self, now: Time, port: u16, opt: &MptcpOption) -> Option<usize> {
        let (iface, backup) = match opt.handshake {
            Handshake::Capable if self.subflows.is_empty() => {
                (self.paths.initial, self.paths.backup(self.paths.initial))
            }
            Handshake::Join { interface, backup } => {
                let established = self
                    .subflows
                    .first()
                    .is_some_and(|s| s.tcp.is_established());
                if !established || self.open_subflows() > usize::from(self.paths.cfg.max_subflows) {
                    return None;
                }
                (interface, backup)
            }
            _ => return None,
        };
        let id = self.subflows.len() as u8;
        let tcp = TcpSender::new(
            &self.tcp,
            self.port,
            port,
            iss(self.seed, &self.name, id, "s"),
            0,
        );
        self.subflows.push(SendFlow {
            id,
            iface,
            backup,
            port,
            tcp,
            maps: MapTable::default(),
            life: Life::Open,
            opened: now,
            stale: false,
            check: StaleCheck::default(),
            reinjected: 0,
            last_row: None,
            olia: olia::State::default(),
            pace_srtt: crate::time::Dur::ZERO,
            synack_at: None,
            pushed: id == 0,
            sml: 0,
        });
        Some(self.subflows.len() - 1)
    }

    fn views(&self) -> Vec<SubView> {
        self.subflows
            .iter()
            .map(|s| {
                let p = s.tcp.probe();
                let (handed, acked) = s.tcp.data_offsets();
                SubView {
                    active: s.life == Life::Open && s.tcp.is_established() && !s.stale && s.pushed,
                    backup: s.backup,
                    room: s.tcp.unsent() == 0 && p.flight_size < p.cwnd,
                    queued: handed - acked,
                    cwnd: p.cwnd,
                    ssthresh: p.ssthresh,
                    srtt: if p.srtt.as_nanos() > 0 {
                        p.srtt
                    } else {
                        s.pace_srtt
                    },
                }
            })
            .collect()
    }

    /// Hands subflow `i` data `[dsn, dsn + len)` as one mapping at the end of its buffer.
    fn hand(&mut self, i: usize, dsn: u64, len: u32) {
        let s = &mut self.subflows[i];
        let (end, _) = s.tcp.data_offsets();
        s.maps.push(Mapping { dsn, ssn: end, len });
        s.tcp.push(len);
        if len < s.tcp.mss() {
            s.sml = end + u64::from(len);
        }
    }

    /// A stale subflow that received an ACK since it went stale is active again
    /// (`mptcp_subflow_active` → `mptcp_subflow_set_active`, net/mptcp/protocol.c: the
    /// scheduler's and the stale rule's test of every subflow); its count of periods stays
    /// until the next check finds the progress.
    fn wake_stale(&mut self) {
        for s in self.subflows.iter_mut() {
            if s.stale && s.check.acked_since(s.tcp.acks_received()) {
                s.stale = false;
            }
        }
    }

    /// The scheduler at work (`__mptcp_push_pending`): reinjected data first, then new data,
    /// a mapping of at most one segment at a time to the subflow `get_send` picks, within
    /// the peer's connection-level window (`mptcp_wnd_end`).
    fn push_pending(&mut self) {
        self.wake_stale();
        loop {
            let Some(i) = sched::get_send(&self.views()) else {
                return;
            };
            let mss = self.subflows[i].tcp.mss();
            if let Some((dsn, end)) = self.reinject.pop_front() {
                let len = (end - dsn).min(u64::from(mss)) as u32;
                if dsn + u64::from(len) < end {
                    self.reinject.push_front((dsn + u64::from(len), end));
                }
                if dsn + u64::from(len) <= self.snd_una {
                    continue; // acknowledged meanwhile
                }
                self.hand(i, dsn, len);
                self.subflows[i].reinjected += u64::from(len);
                self.bytes_reinjected += u64::from(len);
                continue;
            }
            let wnd_end = self.snd_una + u64::from(self.tcp.receive_window);
            let frag_end = (self.snd_nxt / sched::DFRAG_BYTES + 1) * sched::DFRAG_BYTES;
            let len = u64::from(mss)
                .min(self.total - self.snd_nxt)
                .min(frag_end - self.snd_nxt)
                .min(wnd_end.saturating_sub(self.snd_nxt)) as u32;
            let end = self.snd_nxt + u64::from(len);
            // A whole segment, a data fragment's end (`sched::DFRAG_BYTES`) or the transfer's
            // tail: a mapping cut short by the window would leave the subflow's later
            // segments straddling two (sender-side silly window avoidance, RFC 9293
            // §3.8.6.2.1, does the same for TCP).
            if len == 0 || (len < mss && end < self.total && end < frag_end) {
                return;
            }
            // The tail, short and last in the queue, waits while a short segment the subflow
            // sent is unacknowledged: Nagle's algorithm with Minshall's rule
            // (`tcp_nagle_test` → `tcp_nagle_check`, `tcp_minshall_check`; a subflow is
            // pushed with its own `nonagle`, 0: `mptcp_push_release`).
            let (_, acked) = self.subflows[i].tcp.data_offsets();
            if len < mss && end == self.total && self.subflows[i].sml > acked {
                return;
            }
            let dsn = self.snd_nxt;
            self.hand(i, dsn, len);
            self.snd_nxt += u64::from(len);
        }
    }

    /// Starts the connection's retransmission timer unless it runs: the longest of the
    /// subflows' own pending timeouts, or `TCP_RTO_MIN` (`mptcp_set_timeout`). Called once a
    /// subflow has sent data, its own timer then running: `__mptcp_push_pending` and
    /// `__mptcp_retrans` reset the connection's timer after `mptcp_push_release` has pushed
    /// the subflow (`tcp_push`), not before. Armed before, the first one would be
    /// `TCP_RTO_MIN` and its expiries would count a slow subflow's stale periods (and leave
    /// it out of later timeouts, `mptcp_timeout_from_subflow`) before its first ACK could
    /// come: measured, the kernel's GPRS subflow is not, docs/design/mptcp.md.
    fn arm_rtx(&mut self, now: Time) {
        if self.rtx_timer.is_none() {
            self.rtx_timer = Some(now + self.rtx_interval(now));
        }
    }

    /// `mptcp_set_timeout` over the connection's subflows (`conn_list`): a joined subflow is
    /// one from its establishment on (`mptcp_finish_join`), so the timer of a SYN-ACK still
    /// unanswered is not among them.
    fn rtx_interval(&self, now: Time) -> crate::time::Dur {
        self.subflows
            .iter()
            .filter(|s| s.life == Life::Open && s.tcp.is_established() && s.check.count == 0)
            .filter_map(|s| s.tcp.rto_deadline())
            .map(|t| t.saturating_since(now))
            .max()
            .filter(|d| d.as_nanos() > 0)
            .unwrap_or(sched::MPTCP_RTO_MIN)
    }

    /// DATA_ACK moved to `ack` (§3.3.2): data below it is the peer's; the timer restarts
    /// while data is outstanding, stops when none is (`__mptcp_clean_una`).
    fn on_data_ack(&mut self, now: Time, ack: u64) {
        self.wake();
        if ack <= self.snd_una {
            return;
        }
        self.snd_una = ack.min(self.snd_nxt);
        self.rtx_timer = None;
        if self.snd_una < self.snd_nxt {
            self.rtx_timer = Some(now + self.rtx_interval(now));
        }
    }

    /// The connection's retransmission timer expired (`mptcp_retransmit_timer` →
    /// `__mptcp_retrans`): each subflow with data outstanding is checked for staleness; the
    /// head of the unacknowledged data is resent on `get_retrans`'s subflow.
    fn on_rtx_timeout(&mut self, now: Time) {
        self.rtx_timer = None;
        self.wake();
        if self.snd_una >= self.total {
            return;
        }
        if self.check_stale() {
            // `mptcp_pm_nl_subflow_chk_stale` pushes at once (`__mptcp_push_pending`), inside
            // `mptcp_subflow_get_retrans`'s walk: a subflow that takes the pending data has
            // data outstanding before the head is reinjected, and is not picked for it.
            self.push_pending();
        }
        let views: Vec<RetransView> = self
            .subflows
            .iter()
            .map(|s| {
                let (handed, acked) = s.tcp.data_offsets();
                RetransView {
                    usable: s.life == Life::Open && s.tcp.is_established(),
                    backup: s.backup,
                    outstanding: handed > acked,
                    stale_count: s.check.count,
                }
            })
            .collect();
        let head = self.snd_una < self.snd_nxt;
        if let Some(i) = sched::get_retrans(&views).filter(|_| head) {
            let end = self.snd_nxt.min(self.snd_una + sched::RTX_HEAD_BYTES);
            let mss = u64::from(self.subflows[i].tcp.mss());
            let mut dsn = self.snd_una;
            while dsn < end {
                let len = (end - dsn).min(mss) as u32;
                self.hand(i, dsn, len);
                self.subflows[i].reinjected += u64::from(len);
                self.bytes_reinjected += u64::from(len);
                dsn += u64::from(len);
            }
            self.reinjections += 1;
            return; // re-armed once the subflow has sent it (`poll_transmit`)
        }
        self.rtx_timer = Some(now + self.rtx_interval(now));
    }

    /// The connection runs its scheduler: every established subflow may be picked from now
    /// on (see `SendFlow::pushed`).
    fn wake(&mut self) {
        for s in self.subflows.iter_mut() {
            s.pushed |= s.tcp.is_established();
        }
    }

    /// `mptcp_pm_subflow_chk_stale` for every subflow with data outstanding; one past
    /// `stale_loss_cnt` periods while another subflow is active becomes stale and the unacknowledged
    /// data goes through the scheduler again (`mptcp_pm_nl_subflow_chk_stale`,
    /// `__mptcp_retransmit_pending_data`). Whether one did.
    fn check_stale(&mut self) -> bool {
        self.wake_stale();
        let limit = self.paths.cfg.stale_loss_cnt;
        let mut push = false;
        for i in 0..self.subflows.len() {
            let s = &self.subflows[i];
            let (handed, acked) = s.tcp.data_offsets();
            if s.life != Life::Open || handed == acked {
                continue;
            }
            let acks = s.tcp.acks_received();
            match self.subflows[i].check.check(acks) {
                Staleness::Progress => self.subflows[i].stale = false,
                Staleness::NoProgress(n) if !self.subflows[i].stale => {
                    let others = self.subflows.iter().enumerate().filter_map(|(j, o)| {
                        (j != i && o.life == Life::Open && o.tcp.is_established() && !o.stale)
                            .then_some(o.check.count)
                    });
                    if sched::goes_stale(n, limit, others) {
                        self.subflows[i].stale = true;
                        self.stale_events += 1;
                        push = true;
                    }
                }
                Staleness::NoProgress(_) => {}
            }
        }
        if push {
            self.retransmit_pending();
        }
        push
    }

    /// Everything not DATA_ACKed goes through the scheduler again
    /// (`__mptcp_retransmit_pending_data`).
    fn retransmit_pending(&mut self) {
        if self.snd_una < self.snd_nxt {
            self.reinject.clear();
            self.reinject.push_back((self.snd_una, self.snd_nxt));
            self.reinjections += 1;
        }
    }

    /// Closes the subflows over interface `iface` (its address removed): their
    /// unacknowledged data is pushed again (`__mptcp_close_ssk` → `__mptcp_retransmit_pending_data`).
    fn close_iface(&mut self, now: Time, iface: u8) {
        let mut any = false;
        for s in self.subflows.iter_mut() {
            if s.iface == iface && s.life == Life::Open {
                s.life = Life::Closed(now);
                any = true;
            }
        }
        if any {
            self.retransmit_pending();
        }
    }

    /// LIA (RFC 6356 §3): an ACK of `acked` bytes in congestion avoidance on subflow `i`
    /// (`before`, its state before the ACK) raises its window by LIA's increase at most.
    fn couple(&mut self, i: usize, before: crate::tcp::sender::SenderProbe, acked: u64) {
        let after = self.subflows[i].tcp.probe();
        let grew = after.cwnd > before.cwnd;
        let in_ca = before.cwnd >= before.ssthresh && !before.in_recovery && !after.in_recovery;
        if !grew || !in_ca || acked == 0 {
            return;
        }
        let paths: Vec<lia::Path> = self
            .subflows
            .iter()
            .filter(|s| s.life == Life::Open && s.tcp.is_established())
            .map(|s| {
                let p = s.tcp.probe();
                lia::Path {
                    cwnd: p.cwnd,
                    srtt_ns: p.srtt.as_nanos(),
                }
            })
            .filter(|p| p.srtt_ns > 0)
            .collect();
        if paths.len() < 2 {
            return; // one path: LIA is Reno
        }
        let total: u64 = paths.iter().map(|p| u64::from(p.cwnd)).sum();
        let mss = self.subflows[i].tcp.mss();
        let cap = lia::increase(lia::alpha(&paths), acked, mss, before.cwnd, total);
        let limit = before
            .cwnd
            .saturating_add(cap.min(u64::from(u32::MAX)) as u32);
        if after.cwnd > limit {
            self.subflows[i].tcp.set_cwnd(limit);
        }
    }

    /// OLIA (`agent::mptcp::olia`): an ACK on subflow `i` (`before`, its state before the
    /// ACK; `acked`, its bytes acknowledged after it; `progress`, whether it acknowledged new
    /// data) replaces Reno's congestion-avoidance step by OLIA's.
    fn olia(
        &mut self,
        i: usize,
        before: crate::tcp::sender::SenderProbe,
        acked: u64,
        progress: bool,
    ) {
        let after = self.subflows[i].tcp.probe();
        let s = &mut self.subflows[i];
        s.olia.on_ack(acked);
        if !before.in_recovery && after.in_recovery {
            s.olia.on_loss();
        }
        // Slow start while cwnd <= ssthresh, as the kernel's (`mptcp_olia_cong_avoid`).
        let in_ca = before.cwnd > before.ssthresh && !before.in_recovery && !after.in_recovery;
        if !in_ca || !progress {
            return;
        }
        let mut paths = Vec::with_capacity(self.subflows.len());
        let mut r = None;
        for (k, s) in self.subflows.iter().enumerate() {
            let p = s.tcp.probe();
            if s.life != Life::Open || !s.tcp.is_established() || p.srtt.as_nanos() == 0 {
                continue;
            }
            if k == i {
                r = Some(paths.len());
            }
            paths.push(olia::Path {
                cwnd: if k == i { before.cwnd } else { p.cwnd },
                ssthresh: p.ssthresh,
                in_recovery: p.in_recovery,
                srtt_ns: p.srtt.as_nanos(),
                mss: s.tcp.mss(),
                inter_loss: s.olia.inter_loss(),
            });
        }
        let Some(r) = r else { return };
        let step = self.subflows[i].olia.step(olia::increase(&paths, r));
        let mss = self.subflows[i].tcp.mss();
        let cwnd = match step {
            1 => before.cwnd.saturating_add(mss),
            -1 => before.cwnd.saturating_sub(mss).max(mss),
            _ => before.cwnd,
        };
        self.subflows[i].tcp.set_cwnd(cwnd);
    }

    /// At the mobile (an upload), asks the peer for a subflow over `iface` if it has none and
    /// would open one (the initial interface, or an endpoint with `subflow`: the sink's
    /// `reopen`): by ADD_ADDR on the next segment, or, with no subflow open to carry it, by
    /// the MP_JOIN SYN a Linux client sends from the address.
    fn ask_for(&mut self, iface: u8) {
        let open = |s: &SendFlow| s.life == Life::Open;
        if self.subflows.iter().any(|s| s.iface == iface && open(s)) {
            return;
        }
        if !self.paths.wants_subflow(iface) {
            return;
        }
        if self.subflows.iter().any(open) {
            self.signals.push_back(AddrSignal::Add(iface));
        } else {
            self.join_request = Some(iface);
        }
    }

    /// The MP_JOIN SYN from the mobile's interface `iface` (RFC 8684 §3.2), to a port no
    /// subflow of the peer has: the peer opens its subflow over `iface` in answer.
    fn join_syn(&mut self, iface: u8) -> Transmit {
        let base = self.subflows.first().map_or(0, |s| s.port);
        let seg = crate::tcp::Segment {
            src_port: self.port,
            dst_port: base.wrapping_sub(1),
            flags: Flags::SYN,
            ..crate::tcp::Segment::default()
        };
        let opt = MptcpOption {
            handshake: Handshake::Join {
                interface: iface,
                backup: self.paths.backup(iface),
            },
            ..MptcpOption::default()
        };
        let link = self.paths.links[usize::from(iface)];
        transmit(
            self.header_model,
            seg,
            crate::tcp::TxKind::New,
            opt,
            link,
            &mut self.beside,
        )
    }

    /// The ADD_ADDR timer's interval (`announce::timeout`): the subflows' largest RTO.
    fn announce_timeout(&self) -> crate::time::Dur {
        let max = self
            .subflows
            .iter()
            .filter(|s| s.life == Life::Open && s.tcp.is_established())
            .map(|s| s.tcp.probe().rto)
            .max();
        announce::timeout(max)
    }

    /// At the mobile (an upload): announces interface `iface`'s address if its endpoint has
    /// `signal` (`announce`).
    fn maybe_announce(&mut self, now: Time, iface: u8) {
        let signals = self.paths.cfg.endpoint(iface).is_some_and(|e| e.signals());
        if signals && iface != self.paths.initial && self.paths.mobile_sends {
            self.announcer.enqueue(iface);
            let t = self.announce_timeout();
            self.announcer.kick(now, t);
        }
    }

    /// The correspondent (a download) got the mobile's ADD_ADDR of `iface`: it echoes it and,
    /// within its limits, connects to the address (`announce::Acceptor`).
    fn on_add_addr(&mut self, iface: u8) {
        self.echo.push_back(iface);
        let open = |s: &&SendFlow| s.life == Life::Open;
        let joined = self.subflows.iter().filter(open).count().saturating_sub(1);
        let has = self.subflows.iter().filter(open).any(|s| s.iface == iface);
        let cfg = &self.paths.cfg;
        if self
            .acceptor
            .on_add_addr(cfg.add_addr_accepted, joined, cfg.max_subflows, has)
        {
            self.connect_to.push_back(iface);
        }
    }

    /// A path manager segment after the subflows' own: the echo of an ADD_ADDR, then the
    /// MP_JOIN SYN toward the announced address (`mptcp_pm_nl_add_addr_received` in that
    /// order), or the mobile's own ADD_ADDR (an upload), each on a pure ACK of the first open
    /// subflow (`mptcp_pm_addr_send_ack`) with no other suboption.
    fn signal_segment(&mut self, now: Time) -> Option<Transmit> {
        let addr = if let Some(iface) = self.echo.pop_front() {
            AddrSignal::Echo(iface)
        } else if let Some(iface) = self.connect_to.pop_front() {
            return Some(self.connect_syn(now, iface));
        } else {
            AddrSignal::Add(self.announcer.take_send()?)
        };
        let s = self
            .subflows
            .iter()
            .find(|s| s.life == Life::Open && s.tcp.is_established())?;
        let seg = s.tcp.bare_ack(now);
        let link = self.paths.links[usize::from(s.iface)];
        let opt = MptcpOption {
            addr,
            ..MptcpOption::default()
        };
        let kind = crate::tcp::TxKind::New;
        Some(transmit(
            self.header_model,
            seg,
            kind,
            opt,
            link,
            &mut self.beside,
        ))
    }

    /// The correspondent's MP_JOIN SYN toward the mobile's announced address on `iface`, at
    /// the connection's port there (the ADD_ADDR names none: `remote.port = sk->sk_dport`),
    /// from a port of its own. The mobile answers with a RST (`announce`); no subflow is made.
    fn connect_syn(&mut self, now: Time, iface: u8) -> Transmit {
        let first = self.subflows.first();
        let dst = first.map_or(0, |s| s.port);
        // A SYN's options, as the kernel's (MSS, SACK permitted, timestamps, window scale).
        let tsval = first.and_then(|s| s.tcp.bare_ack(now).options.timestamps);
        let options = crate::tcp::TcpOptions {
            mss: Some(crate::tcp::options::mss_option(&self.tcp)),
            sack_permitted: self.tcp.sack,
            window_scale: self.tcp.window_scale,
            timestamps: tsval.map(|(v, _)| (v, 0)),
            ..crate::tcp::TcpOptions::default()
        };
        let seg = crate::tcp::Segment {
            src_port: self
                .port
                .wrapping_add(1000u16.wrapping_mul(u16::from(iface) + 1)),
            dst_port: dst,
            seq: iss(self.seed, &self.name, iface, "connect"),
            flags: Flags::SYN,
            window: self.tcp.receive_window.min(u32::from(u16::MAX)) as u16,
            options,
            ..crate::tcp::Segment::default()
        };
        let opt = MptcpOption {
            handshake: Handshake::PeerJoin { toward: iface },
            ..MptcpOption::default()
        };
        let link = self.paths.links[usize::from(iface)];
        let kind = crate::tcp::TxKind::New;
        transmit(self.header_model, seg, kind, opt, link, &mut self.beside)
    }

    fn record(&mut self, now: Time) {
        let Some(series) = &mut self.series else {
            return;
        };
        for s in self.subflows.iter_mut() {
            let p = s.tcp.probe();
            let st = s.tcp.stats();
            let (_, acked) = s.tcp.data_offsets();
            let row = (p.cwnd, p.srtt.as_nanos(), st.data_bytes_sent, acked);
            if s.last_row != Some(row) {
                s.last_row = Some(row);
                series.push(MptcpSample {
                    t: now,
                    subflow: s.id,
                    link: self.paths.links[usize::from(s.iface)] as u32,
                    cwnd: p.cwnd,
                    mss: s.tcp.mss(),
                    srtt_ns: p.srtt.as_nanos(),
                    bytes_sent: st.data_bytes_sent,
                    bytes_acked: acked,
                    open: s.life == Life::Open,
                });
            }
        }
    }
}

impl Agent for MptcpSource {
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        if let Some(iface) = self.join_request.take() {
            return Some(self.join_syn(iface));
        }
        self.push_pending();
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
            let sent_data = seg.len > 0;
            let mut opt = MptcpOption {
                data_ack: Some(0),
                addr: self.signals.pop_front().unwrap_or_default(),
                ..MptcpOption::default()
            };
            if seg.flags.contains(Flags::SYN) {
                s.synack_at.get_or_insert(now);
                opt.handshake = if s.id == 0 {
                    Handshake::Capable
                } else {
                    Handshake::Join {
                        interface: s.iface,
                        backup: s.backup,
                    }
                };
                opt.data_ack = None;
            } else if seg.len > 0 {
                let base = u64::from(seg.seq - s.tcp.data_start());
                let (maps, n_maps) = s.maps.covering(base, seg.len);
                opt.maps = maps;
                opt.n_maps = n_maps;
            }
            let link = self.paths.links[usize::from(s.iface)];
            let out = transmit(self.header_model, seg, tx.kind, opt, link, &mut self.beside);
            if sent_data && self.snd_una < self.snd_nxt {
                self.arm_rtx(now);
            }
            return Some(out);
        }
        // Nothing outstanding at the data level, data left, and the scheduler's pick without
        // room: Linux would queue the data on that subflow (`sk_stream_memory_free`, see the
        // module's Deviation), its connection's timer then running and counting the
        // subflow's stale periods (`mptcp_pm_subflow_chk_stale`); so does the model's, or a
        // subflow stalled with data the other already delivered would hold it forever.
        let stuck = self.snd_una == self.snd_nxt && self.snd_nxt < self.total;
        if stuck
            && self
                .subflows
                .iter()
                .any(|s| s.life == Life::Open && s.tcp.is_established())
        {
            self.arm_rtx(now);
        }
        self.signal_segment(now)
    }

    fn tcp_payload(&mut self) -> Option<(Payload, u32)> {
        self.beside.take()
    }

    fn poll_timeout(&self) -> Option<Time> {
        let subs = self
            .subflows
            .iter()
            .filter(|s| s.life == Life::Open)
            .filter_map(|s| s.tcp.poll_timeout());
        subs.chain(self.rtx_timer)
            .chain(self.announcer.poll_timeout())
            .min()
    }

    fn handle_timeout(&mut self, now: Time) {
        for s in self.subflows.iter_mut() {
            if s.life == Life::Open && s.tcp.poll_timeout().is_some_and(|t| t <= now) {
                let before = s.tcp.probe().cwnd;
                s.tcp.handle_timeout(now);
                // A retransmission timeout that cut the window is a loss for OLIA's marks.
                if s.tcp.probe().cwnd < before {
                    s.olia.on_loss();
                }
            }
        }
        if self.rtx_timer.is_some_and(|t| t <= now) {
            self.on_rtx_timeout(now);
        }
        if self.announcer.poll_timeout().is_some_and(|t| t <= now) {
            let t = self.announce_timeout();
            self.announcer.on_timeout(now, t);
        }
    }

    fn handle_packet(&mut self, now: Time, pkt: &Packet, payload: &Payload) -> Arrival {
        let seg = &pkt.seg;
        let opt = mptcp_option(payload);
        // The mobile's RST refusing a connection to an address it announced (`connect_syn`).
        if seg.flags.contains(Flags::RST) {
            return Arrival {
                respond: true,
                ..Arrival::default()
            };
        }
        let i = match self.find(seg.src_port) {
            Some(i) => Some(i),
            None if seg.flags.contains(Flags::SYN) => self.accept(now, seg.src_port, &opt),
            None => None,
        };
        if let Some(i) = i {
            if self.subflows[i].life == Life::Open {
                let before = self.subflows[i].tcp.probe();
                let (_, acked_before) = self.subflows[i].tcp.data_offsets();
                self.subflows[i].tcp.handle_segment(now, seg);
                let sf = &mut self.subflows[i];
                let srtt = sf.tcp.probe().srtt;
                if srtt.as_nanos() > 0 {
                    sf.pace_srtt = srtt;
                } else if let (Some(at), true) = (sf.synack_at, sf.tcp.is_established()) {
                    sf.pace_srtt = now.saturating_since(at);
                }
                if sf.tcp.is_established() {
                    sf.synack_at = None;
                }
                let (_, acked) = self.subflows[i].tcp.data_offsets();
                self.subflows[i].maps.prune_below(acked);
                match self.paths.cfg.coupling {
                    Coupling::Uncoupled => {}
                    Coupling::Lia => self.couple(i, before, acked - acked_before),
                    Coupling::Olia => self.olia(i, before, acked, acked > acked_before),
                }
            }
        }
        if let Some(ack) = opt.data_ack {
            self.on_data_ack(now, ack);
            // At the mobile (an upload), the peer's first DSS after the handshake, the DATA_ACK
            // of its data, makes the client fully established (`check_fully_established`;
            // the model's third ACK, from the peer, carries a DATA_ACK of nothing): its
            // `signal` endpoints are announced ("check first for announce",
            // `mptcp_pm_create_subflow_or_signal_addr`).
            let established = self
                .subflows
                .first()
                .is_some_and(|s| s.tcp.is_established());
            if self.paths.mobile_sends && !self.fully_established && established && ack > 0 {
                self.fully_established = true;
                let signal: Vec<u8> = (self.paths.cfg.endpoints().iter())
                    .filter(|e| e.signals() && !self.paths.is_absent(e.interface))
                    .map(|e| e.interface)
                    .collect();
                for iface in signal {
                    self.maybe_announce(now, iface);
                }
            }
        }
        match opt.addr {
            AddrSignal::Remove(iface) => self.close_iface(now, iface),
            AddrSignal::Add(iface) if !self.paths.mobile_sends => self.on_add_addr(iface),
            AddrSignal::Echo(iface) => {
                let t = self.announce_timeout();
                self.announcer.on_echo(now, iface, t);
            }
            _ => {}
        }
        Arrival {
            respond: true,
            ..Arrival::default()
        }
    }

    fn notify_handover(&mut self, now: Time, h: &HandoverNote) -> bool {
        if !h.here {
            return false;
        }
        // The mobile's address on the interface left is removed: the path manager closes its
        // subflows and tells the peer (REMOVE_ADDR); on the one taken it is (re-)added, and the
        // peer, which opens subflows here (see the module's Deviation), is asked to (ADD_ADDR).
        self.close_iface(now, h.notice.from);
        self.signals.push_back(AddrSignal::Remove(h.notice.from));
        self.ask_for(h.notice.to);
        true
    }

    /// The mobile's address on `iface` appeared. At the mobile (an upload), the model's
    /// passive sender asks the peer to open the subflow (ADD_ADDR, RFC 8684 §3.4.1; see the
    /// module's Deviation), as the sink at the mobile would open it itself.
    fn address_added(&mut self, now: Time, iface: u8, here: bool) -> bool {
        if !here {
            return false;
        }
        self.paths.added(iface);
        self.ask_for(iface);
        if self.fully_established {
            self.maybe_announce(now, iface);
        }
        true
    }

    fn is_complete(&self) -> bool {
        self.snd_una >= self.total
    }

    fn sample(&mut self, now: Time) {
        self.record(now);
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            mptcp: self.series.take(),
            ..Default::default()
        }
    }
}
