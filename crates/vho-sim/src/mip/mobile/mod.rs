//! The mobile node (RFC 6275 §11): movement detection, address configuration on the new link,
//! home registration, return routability and the Binding Update to each correspondent, and
//! the IP layer that sends through the home agent's tunnel or route-optimised.
//!
//! A handover runs through three phases, stamped per handover ([`HandoverTimes`]) so that
//! T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1, 000 l.73):
//! - **detecting** until the new link has a router and the mobile has a reason to move: its
//!   current router lost (k advertisement intervals without one, or a link-layer trigger),
//!   the handover asked for by the link layer (a soft handover), or the new link newly up;
//! - **configuring** the new link's addresses (duplicate address detection per [`Dad`]);
//! - **registering**: a Binding Update to the home agent, then return routability and a
//!   Binding Update to each correspondent (per [`RoStart`]). T_n ends with the first packet
//!   that reaches the new care-of address route-optimised (000 l.68, l.183: tunnelled
//!   packets do not end it; `docs/design/issue-20-sources.md` §1.2).

use super::backoff::Backoff;
use super::message::{Addr, HAO_BYTES};
use super::{
    encapsulate, signal_packet, Dad, Detection, MipSpec, RoStart, Signal, BINDING_LIFETIME_4S,
    INITIAL_BINDACK_TIMEOUT, MAX_RTR_SOLICITATIONS, MAX_RTR_SOLICITATION_DELAY, RETRANS_TIMER,
    RTR_SOLICITATION_INTERVAL,
};
use crate::function::Counters;
use crate::packet::{ext, Packet};
use crate::rng::Rng;
use crate::spec::LinkIdx;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// When each step of one handover happened (absolute times; `None`: it did not happen).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandoverTimes {
    pub at: Time,
    /// The mobile decided to move (t_d ends).
    pub detected: Option<Time>,
    /// The new care-of address is usable (t_c ends).
    pub configured: Option<Time>,
    pub bu_sent: Option<Time>,
    pub ba: Option<Time>,
    /// Return routability completed and the Binding Update sent to the (first) correspondent.
    pub bu_cn_sent: Option<Time>,
    pub first_tunnelled: Option<Time>,
    /// The first packet route-optimised to the new care-of address (T_n ends).
    pub first_route_optimised: Option<Time>,
    pub bu_transmissions: u32,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Phase {
    Detecting,
    Configuring,
    Registering,
}

struct Iface {
    link: LinkIdx,
    coa: Addr,
    /// The access router's address.
    router_addr: Addr,
    up: bool,
    sllao: bool,
    /// The last advertisement heard and the interval it announced.
    router: Option<(Time, Dur)>,
    ll_ready: bool,
    coa_ready: bool,
    /// A duplicate address detection in progress.
    dad: Option<DadRun>,
    rs_next: Option<Time>,
    rs_sent: u32,
}

/// One address's duplicate address detection (RFC 4862 §5.4).
#[derive(Clone, Copy, Debug)]
struct DadRun {
    /// The link-local address (else the care-of address).
    link_local: bool,
    /// When its Neighbor Solicitation goes, until it has gone.
    ns_at: Option<Time>,
    /// When the address is taken: RetransTimer after the solicitation (§5.4.3).
    taken_at: Time,
}

struct Move {
    record: usize,
    from: usize,
    to: usize,
    phase: Phase,
    /// The mobile has a reason to move once the new link has a router.
    triggered: bool,
    /// It lost its router and solicits.
    solicit: bool,
    /// Its Router Solicitations have gone out on every interface.
    solicited: bool,
    trigger_at: Option<Time>,
    configured_at: Option<Time>,
}

mod route_optimisation;
use route_optimisation::Peer;

pub struct MobileNode {
    home: Addr,
    ha: Addr,
    detection: Detection,
    dad: Dad,
    route_optimisation: bool,
    ro_start: RoStart,
    rs_delay: bool,
    cn_ack: bool,
    processing: Dur,
    ifaces: Vec<Iface>,
    primary: usize,
    peers: Vec<Peer>,
    home_seq: u16,
    home_retx: Backoff,
    moving: Option<Move>,
    pub records: Vec<HandoverTimes>,
    rng: Rng,
    out: VecDeque<Packet>,
    /// Signalling sent: all, Binding Updates, Neighbor and Router Solicitations.
    sent: [u64; 4],
    /// Binding Updates sent to correspondents, retransmissions included.
    sent_cn_updates: u64,
    /// Binding Errors from correspondents acted on (RFC 6275 §11.3.6).
    binding_errors: u64,
    /// As a mobile router, the nodes behind it (NEMO Basic Support, RFC 3963); empty for a
    /// mobile host.
    network: Vec<Addr>,
    /// Packets of the mobile network reverse-tunnelled to the home agent.
    forwarded_up: u64,
    /// Upward bicasting (`mip::bicast`): the window, and the care-of addresses as
    /// `Bicast::coas`.
    uplink_bicast: Option<super::bicast::Bicast>,
    /// An upward bicast copy waiting to leave (at once: the world pumps on `has_output`).
    copy_out: Option<Packet>,
}

/// What the world tells a mobile about one of its interfaces.
pub struct IfaceSetup {
    pub link: LinkIdx,
    pub coa: Addr,
    pub router_addr: Addr,
    pub up: bool,
    /// Configured at time zero (router known, addresses taken).
    pub ready: bool,
    /// The link has link-layer addresses (not point-to-point).
    pub sllao: bool,
    /// The router's advertisement interval, for a router known at time zero.
    pub interval: Dur,
}

impl MobileNode {
    pub fn new(
        home: Addr,
        ha: Addr,
        spec: &MipSpec,
        ifaces: &[IfaceSetup],
        primary: usize,
        peers: &[Addr],
        rng: Rng,
    ) -> MobileNode {
        let ifaces = ifaces
            .iter()
            .map(|s| Iface {
                link: s.link,
                coa: s.coa,
                router_addr: s.router_addr,
                up: s.up,
                sllao: s.sllao,
                router: s.ready.then_some((Time::ZERO, s.interval)),
                ll_ready: s.ready,
                coa_ready: s.ready,
                dad: None,
                rs_next: None,
                rs_sent: 0,
            })
            .collect();
        let ro = spec.route_optimisation;
        let mut mn = MobileNode {
            home,
            ha,
            detection: spec.detection,
            dad: spec.dad,
            route_optimisation: ro,
            ro_start: spec.ro_start,
            rs_delay: spec.rs_delay,
            cn_ack: spec.cn_ack,
            processing: spec.processing,
            ifaces,
            primary,
            peers: peers
                .iter()
                .map(|&addr| Peer::new(addr, (ro && spec.cn_bound).then_some(primary)))
                .collect(),
            home_seq: 1,
            home_retx: Backoff::IDLE,
            moving: None,
            records: Vec::new(),
            rng,
            out: VecDeque::new(),
            network: Vec::new(),
            forwarded_up: 0,
            uplink_bicast: None,
            copy_out: None,
            sent: [0; 4],
            sent_cn_updates: 0,
            binding_errors: 0,
        };
        // An interface up but not configured at time zero forms and checks its link-local
        // address from the start (RFC 4862 §5.3).
        for k in 0..mn.ifaces.len() {
            mn.start_dad(Time::ZERO, k);
        }
        mn
    }

    fn iface_of_link(&self, link: LinkIdx) -> Option<usize> {
        self.ifaces.iter().position(|i| i.link == link)
    }

    fn iface_of_coa(&self, coa: Addr) -> Option<usize> {
        self.ifaces.iter().position(|i| i.coa == coa)
    }

    /// The interface `link` went down or came up.
    pub fn link_event(&mut self, now: Time, link: LinkIdx, up: bool) {
        let Some(k) = self.iface_of_link(link) else {
            return;
        };
        let i = &mut self.ifaces[k];
        if i.up == up {
            return;
        }
        i.up = up;
        if up {
            // A fresh attachment: nothing known about this link yet. Its link-local address is
            // formed and checked at once, whether or not a router is heard (RFC 4862 §5.3).
            (i.router, i.ll_ready, i.coa_ready, i.dad) = (None, false, false, None);
            self.start_dad(now, k);
            let i = &mut self.ifaces[k];
            if let Detection::L2Trigger { delay } = self.detection {
                let jitter = if self.rs_delay {
                    Dur(self.rng.below(MAX_RTR_SOLICITATION_DELAY.as_nanos() + 1))
                } else {
                    Dur::ZERO
                };
                (i.rs_next, i.rs_sent) = (Some(now + delay + jitter), 0);
            }
        } else {
            (i.rs_next, i.dad) = (None, None);
            if let (Detection::L2Trigger { delay }, Some(m)) = (self.detection, &mut self.moving) {
                if m.from == k && m.phase == Phase::Detecting {
                    (m.trigger_at, m.solicit) = (Some(now + delay), true);
                }
            }
        }
    }

    /// The handover manager asks the mobile to move from `from` to `to` (`soft`: the link
    /// layer triggers it; a hard handover's trigger is the old link's loss).
    pub fn start_handover(&mut self, now: Time, from: LinkIdx, to: LinkIdx, soft: bool) {
        let (Some(from), Some(to)) = (self.iface_of_link(from), self.iface_of_link(to)) else {
            return;
        };
        self.records.push(HandoverTimes {
            at: now,
            ..Default::default()
        });
        let newly_up = self.ifaces[to].router.is_none();
        let l2 = match self.detection {
            Detection::L2Trigger { delay } => Some(now + delay),
            Detection::RaMiss { .. } => None,
        };
        self.moving = Some(Move {
            record: self.records.len() - 1,
            from,
            to,
            phase: Phase::Detecting,
            // A new link appearing is itself the reason to move (it waits for its router).
            triggered: newly_up,
            solicit: false,
            solicited: false,
            trigger_at: if soft { l2.or(Some(now)) } else { l2 },
            configured_at: None,
        });
        self.advance(now);
    }

    /// Moves the handover on as far as it can go now.
    fn advance(&mut self, now: Time) {
        let Some(m) = &mut self.moving else { return };
        if m.trigger_at.is_some_and(|t| t <= now) {
            m.triggered = true;
            m.trigger_at = None;
        }
        if m.phase == Phase::Detecting {
            if m.triggered && m.solicit && !m.solicited {
                // Having lost its router, MIPL sends "Router Solicitation messages on all the
                // available interfaces to discover new reachable routers" (000 l.110);
                // otherwise a new link's router is found by its next unsolicited
                // advertisement (eq. 2).
                m.solicited = true;
                for i in self.ifaces.iter_mut().filter(|i| i.up) {
                    (i.rs_next, i.rs_sent) = (Some(now), 0);
                }
            }
            let to = &self.ifaces[m.to];
            if !(m.triggered && to.up && to.router.is_some()) {
                return;
            }
            self.records[m.record].detected = Some(now);
            m.phase = Phase::Configuring;
        }
        if m.phase == Phase::Configuring {
            let to = m.to;
            if !self.configured(to) {
                self.start_dad(now, to);
                if !self.configured(to) {
                    return;
                }
            }
            let Some(m) = &mut self.moving else { return };
            let at = *m.configured_at.get_or_insert(now + self.processing);
            if at > now {
                return;
            }
            self.records[m.record].configured = Some(now);
            m.phase = Phase::Registering;
            self.primary = m.to;
            self.send_home_update(now);
            self.moved(now);
        }
    }

    fn configured(&self, k: usize) -> bool {
        self.ifaces[k].ll_ready && self.ifaces[k].coa_ready
    }

    /// Starts duplicate address detection on interface `k` for the next address that needs
    /// it, unless one is under way (RFC 4862 §5.4): the link-local address first (at once,
    /// §5.3), the care-of address once a router has advertised its prefix (§5.5.3).
    ///
    /// Full DAD waits U[0, MAX_RTR_SOLICITATION_DELAY) before each Neighbor Solicitation, as
    /// Linux's `addrconf_dad_kick` does for every address that is neither optimistic nor
    /// exempt (`rtr_solicit_delay`, 1 s by default; RFC 4862 §5.4.2 asks it of the first
    /// message from an interface), and takes the address RetransTimer after it (§5.4.3):
    /// t_c of 2-4 s for both addresses. Optimistic DAD (RFC 4429 §3.3, Linux's
    /// `optimistic_dad`) sends its solicitation at once and uses the address meanwhile.
    ///
    /// The solicitation travels the access link from the interface's care-of address to its
    /// router here (what routes it over the right link); a capture writes it as RFC 4862
    /// §5.4.2 has it, from `::` to the target's solicited-node address.
    fn start_dad(&mut self, now: Time, k: usize) {
        let i = &self.ifaces[k];
        if i.dad.is_some() || !i.up || (i.ll_ready && i.coa_ready) {
            return;
        }
        let link_local = !i.ll_ready;
        if !link_local && i.router.is_none() {
            return;
        }
        match self.dad {
            Dad::None => {
                let i = &mut self.ifaces[k];
                (i.ll_ready, i.coa_ready) = (true, i.router.is_some());
            }
            Dad::Optimistic => {
                self.emit_dad_ns(now, k, link_local);
                let i = &mut self.ifaces[k];
                if link_local {
                    i.ll_ready = true;
                } else {
                    i.coa_ready = true;
                }
                // The care-of address's turn, if a router was heard.
                self.start_dad(now, k);
            }
            Dad::Full => {
                let delay = Dur(self.rng.below(MAX_RTR_SOLICITATION_DELAY.as_nanos()));
                let ns_at = now + delay;
                self.ifaces[k].dad = Some(DadRun {
                    link_local,
                    ns_at: Some(ns_at),
                    taken_at: ns_at + RETRANS_TIMER,
                });
                if delay == Dur::ZERO {
                    self.dad_timers(now, k);
                }
            }
        }
    }

    fn emit_dad_ns(&mut self, now: Time, k: usize, link_local: bool) {
        let i = &self.ifaces[k];
        let sig = Signal::NeighborSolicitation {
            target: i.coa,
            link_local,
        };
        self.out
            .push_back(signal_packet(now, i.coa, i.router_addr, sig));
    }

    /// Interface `k`'s DAD at `now`: its solicitation goes, or its address is taken (and the
    /// next address's DAD starts).
    fn dad_timers(&mut self, now: Time, k: usize) {
        let Some(run) = self.ifaces[k].dad else {
            return;
        };
        if run.ns_at.is_some_and(|t| t <= now) {
            self.emit_dad_ns(now, k, run.link_local);
            if let Some(d) = &mut self.ifaces[k].dad {
                d.ns_at = None;
            }
        }
        if run.taken_at <= now {
            let i = &mut self.ifaces[k];
            i.dad = None;
            if run.link_local {
                i.ll_ready = true;
            } else {
                i.coa_ready = true;
            }
            self.start_dad(now, k);
        }
    }

    fn send_home_update(&mut self, now: Time) {
        self.home_retx.start(now, INITIAL_BINDACK_TIMEOUT);
        self.emit_home_update(now);
        if let Some(m) = &self.moving {
            self.records[m.record].bu_sent = Some(now);
        }
    }

    /// Sends a Binding Update to the home agent, a first one or a retransmission: each with
    /// a sequence number greater than the last one sent (RFC 6275 §11.7.1: "the Sequence
    /// Number field ... MUST be greater than the Sequence Number value sent in the previous
    /// Binding Update to the same destination", retransmissions included, §11.8).
    fn emit_home_update(&mut self, now: Time) {
        self.home_seq = self.home_seq.wrapping_add(1);
        let bu = Signal::BindingUpdate {
            seq: self.home_seq,
            lifetime_4s: BINDING_LIFETIME_4S,
            home: true,
            ack: true,
        };
        let coa = self.ifaces[self.primary].coa;
        self.out.push_back(signal_packet(now, coa, self.ha, bu));
        if let Some(m) = &self.moving {
            self.records[m.record].bu_transmissions += 1;
        }
    }

    /// A signalling message for the mobile (already out of any tunnel), received over the
    /// link of care-of address `via`.
    pub fn on_deliver(&mut self, now: Time, pkt: &Packet, via: Addr) {
        match pkt.sig {
            Signal::RouterAdvertisement { interval_ms, .. } => {
                if let Some(k) = self.iface_of_coa(via) {
                    let i = &mut self.ifaces[k];
                    if i.up {
                        i.router = Some((now, Dur::from_millis(interval_ms as u64)));
                        i.rs_next = None;
                        // Stateless autoconfiguration on any interface that hears a router
                        // (RFC 4862 §5.5), whether or not the mobile is moving to it.
                        self.start_dad(now, k);
                    }
                }
            }
            Signal::BindingAck { status, seq, .. } if self.is_peer(pkt.src) => {
                self.on_cn_ack(now, pkt.src, seq, status);
            }
            Signal::BindingError { status: 1, .. } if self.is_peer(pkt.src) => {
                self.on_binding_error(now, pkt.src, via);
            }
            // RFC 6275 §11.7.3: status 135, the sequence number out of window: the mobile
            // takes the acknowledgement's sequence number (the home agent's last accepted,
            // §9.5.1) and sends again at once with the next one, as UMIP's mn_recv_ba does.
            Signal::BindingAck {
                status: 135, seq, ..
            } if pkt.src == self.ha && self.home_retx.due.is_some() => {
                self.home_seq = seq;
                self.emit_home_update(now);
            }
            // An acknowledgement of the last Binding Update sent ends its retransmissions
            // (§11.7.3); one of an earlier copy is stale, the later copy's is awaited.
            Signal::BindingAck { status, seq, .. }
                if pkt.src == self.ha && seq == self.home_seq && status < 128 =>
            {
                if self.home_retx.due.is_none() {
                    return;
                }
                self.home_retx.stop();
                if let Some(m) = &self.moving {
                    self.records[m.record].ba = Some(now);
                }
                self.home_registered(now);
            }
            Signal::HomeTest { cookie, .. } | Signal::CareOfTest { cookie, .. } => {
                let home = matches!(pkt.sig, Signal::HomeTest { .. });
                self.on_test(now, pkt.src, home, cookie);
            }
            _ => {}
        }
        self.advance(now);
    }

    /// A TCP packet for the mobile arrived over the link of care-of address `via`, before its
    /// tunnel or routing header is taken off.
    pub fn on_inbound(&mut self, now: Time, pkt: &Packet, via: Addr) {
        let Some(m) = &self.moving else { return };
        if self.ifaces[m.to].coa != via || m.phase != Phase::Registering {
            return;
        }
        let r = &mut self.records[m.record];
        if pkt.ext & ext::TUNNEL != 0 {
            r.first_tunnelled.get_or_insert(now);
            self.tunnelled_from(now, pkt.inner_src);
        } else if pkt.ext & ext::RH2 != 0 {
            r.first_route_optimised = Some(now);
            self.moving = None;
        } else if !self.route_optimisation {
            self.moving = None;
        }
    }

    /// Makes it a mobile router for `network` (RFC 3963), bicasting upward per `uplink`.
    pub fn serve_network(&mut self, network: &[Addr], uplink: Option<super::bicast::Bicast>) {
        self.network = network.to_vec();
        self.uplink_bicast = uplink;
    }

    /// Whether an upward bicast copy waits in `poll_transmit`.
    pub fn has_output(&self) -> bool {
        self.copy_out.is_some()
    }

    /// Whether `a` is a node of its mobile network.
    #[inline]
    pub fn serves(&self, a: Addr) -> bool {
        self.network.contains(&a)
    }

    /// A packet of its mobile network going out: reverse-tunnelled from the primary care-of
    /// address to the home agent (RFC 3963 §5.5: "the mobile router ... MUST reverse-tunnel
    /// packets ... to the home agent").
    /// Inside an upward bicasting window the packet goes through both reverse tunnels with
    /// one Packet Identifier Option (seed 002 §IV-B), the copy through `poll_transmit`.
    pub fn on_forward(&mut self, now: Time, pkt: &mut Packet) {
        self.forwarded_up += 1;
        if let Some(b) = self.uplink_bicast.as_mut().filter(|b| b.in_window(now)) {
            pkt.pio = b.stamp(now);
            pkt.ext |= ext::PIO;
            pkt.wire_bytes += super::message::PIO_BYTES;
            let mut copy = *pkt;
            encapsulate(pkt, b.coas[0], self.ha);
            encapsulate(&mut copy, b.coas[1], self.ha);
            self.copy_out = Some(copy);
            return;
        }
        encapsulate(pkt, self.ifaces[self.primary].coa, self.ha);
    }

    /// A TCP packet the mobile sends (from its home address): route-optimised from the
    /// primary care-of address to a correspondent that has it, else reverse-tunnelled to the
    /// home agent (RFC 6275 §11.3.1).
    pub fn on_output(&mut self, pkt: &mut Packet) {
        let coa = self.ifaces[self.primary].coa;
        let bound = self.bound_to(pkt.dst);
        if bound == Some(self.primary) {
            pkt.src = coa;
            pkt.ext |= ext::HAO;
            pkt.wire_bytes += HAO_BYTES;
        } else {
            encapsulate(pkt, coa, self.ha);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        let mut t: Option<Time> = None;
        let mut at = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        for i in &self.ifaces {
            at(i.dad.map(|d| d.ns_at.unwrap_or(d.taken_at)));
            at(i.rs_next);
        }
        at(self.home_retx.due);
        at(self.rr_timeout());
        if let Some(m) = &self.moving {
            at(m.trigger_at);
            at(m.configured_at.filter(|_| m.phase == Phase::Configuring));
            at(self
                .router_lost_at(m.from)
                .filter(|_| m.phase == Phase::Detecting && !m.solicit));
        }
        t
    }

    /// When the router of interface `k` counts as lost: k intervals after its last
    /// advertisement (`Detection::RaMiss`).
    fn router_lost_at(&self, k: usize) -> Option<Time> {
        let Detection::RaMiss { k: missed } = self.detection else {
            return None;
        };
        let (last, interval) = self.ifaces[k].router?;
        Some(last + Dur(interval.as_nanos() * missed as u64))
    }

    pub fn handle_timeout(&mut self, now: Time) {
        for k in 0..self.ifaces.len() {
            self.dad_timers(now, k);
            let i = &mut self.ifaces[k];
            if i.rs_next.is_some_and(|t| t <= now) {
                // Up to MAX_RTR_SOLICITATIONS while no router answers (RFC 4861 §6.3.7); one
                // on an interface whose router is known (the solicitation on all interfaces).
                let wanted = i.router.is_none() || i.rs_sent == 0;
                if i.up && wanted && i.rs_sent < MAX_RTR_SOLICITATIONS {
                    let sig = Signal::RouterSolicitation { sllao: i.sllao };
                    self.out
                        .push_back(signal_packet(now, i.coa, i.router_addr, sig));
                    i.rs_sent += 1;
                    i.rs_next = i
                        .router
                        .is_none()
                        .then_some(now + RTR_SOLICITATION_INTERVAL);
                } else {
                    i.rs_next = None;
                }
            }
        }
        if self.home_retx.fire(now) {
            self.emit_home_update(now);
        }
        self.rr_timers(now);
        if let Some(m) = &self.moving {
            let lost = m.phase == Phase::Detecting
                && self.router_lost_at(m.from).is_some_and(|t| t <= now);
            if lost {
                if let Some(m) = &mut self.moving {
                    (m.triggered, m.solicit) = (true, true);
                }
            }
        }
        self.advance(now);
    }

    pub fn poll_transmit(&mut self) -> Option<Packet> {
        if let Some(c) = self.copy_out.take() {
            return Some(c);
        }
        let p = self.out.pop_front()?;
        self.sent[0] += 1;
        match p.sig {
            Signal::BindingUpdate { .. } => self.sent[1] += 1,
            Signal::NeighborSolicitation { .. } => self.sent[2] += 1,
            Signal::RouterSolicitation { .. } => self.sent[3] += 1,
            _ => {}
        }
        Some(p)
    }

    pub fn counters(&self) -> Counters {
        let mut v = vec![
            ("signalling_sent", self.sent[0]),
            ("binding_updates_sent", self.sent[1]),
            ("neighbor_solicitations_sent", self.sent[2]),
            ("router_solicitations_sent", self.sent[3]),
            ("binding_updates_to_correspondents", self.sent_cn_updates),
            (
                "handovers_completed",
                self.records
                    .iter()
                    .filter(|r| r.first_route_optimised.is_some())
                    .count() as u64,
            ),
        ];
        if self.binding_errors > 0 {
            v.push(("binding_errors_received", self.binding_errors));
        }
        if let Some(b) = &self.uplink_bicast {
            v.push(("packets_bicast", b.duplicated));
        }
        if !self.network.is_empty() {
            v.push((
                "mobile_network_packets_reverse_tunnelled",
                self.forwarded_up,
            ));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mip::RouterSpec;

    /// A mobile with one interface (link 0, care-of address 10, router 2), down at time zero.
    fn mobile(dad: Dad, seed: u64) -> MobileNode {
        let spec = MipSpec {
            home_agent: 1,
            correspondents: Vec::new(),
            routers: vec![RouterSpec {
                node: 2,
                link: 0,
                ra_min: Dur::from_secs(1),
                ra_max: Dur::from_secs(3),
                link_layer: false,
                min_delay_between_ras: crate::mip::MIN_DELAY_BETWEEN_RAS,
            }],
            detection: Detection::RaMiss { k: 2 },
            dad,
            preconfigured: false,
            route_optimisation: false,
            ro_start: RoStart::AfterBa,
            attached: Vec::new(),
            rs_delay: false,
            cn_ack: false,
            cn_bound: true,
            processing: Dur::ZERO,
        };
        let iface = IfaceSetup {
            link: 0,
            coa: 10,
            router_addr: 2,
            up: false,
            ready: false,
            sllao: false,
            interval: Dur::from_secs(3),
        };
        MobileNode::new(0, 1, &spec, &[iface], 0, &[], Rng::stream(seed, "dad"))
    }

    fn ra() -> Packet {
        let sig = Signal::RouterAdvertisement {
            interval_ms: 3000,
            sllao: false,
        };
        signal_packet(Time::ZERO, 2, 10, sig)
    }

    /// Runs the mobile's timers to `until`, with a router advertisement at `ra_at`: the
    /// solicitations sent (time, link-local?) and when the care-of address was taken.
    fn run(mn: &mut MobileNode, ra_at: Time, until: Time) -> (Vec<(Time, bool)>, Option<Time>) {
        let mut ns = Vec::new();
        let mut taken = None;
        let mut heard = false;
        let mut drain = |mn: &mut MobileNode, now: Time, taken: &mut Option<Time>| {
            while let Some(p) = mn.poll_transmit() {
                if let Signal::NeighborSolicitation { link_local, .. } = p.sig {
                    ns.push((now, link_local));
                }
            }
            if taken.is_none() && mn.ifaces[0].coa_ready {
                *taken = Some(now);
            }
        };
        mn.link_event(Time::ZERO, 0, true);
        drain(mn, Time::ZERO, &mut taken);
        loop {
            let next = mn.poll_timeout().filter(|&t| t <= until);
            let now = match next {
                Some(t) if heard || t < ra_at => t,
                _ if !heard && ra_at <= until => {
                    heard = true;
                    mn.on_deliver(ra_at, &ra(), 10);
                    drain(mn, ra_at, &mut taken);
                    continue;
                }
                _ => break,
            };
            mn.handle_timeout(now);
            drain(mn, now, &mut taken);
        }
        (ns, taken)
    }

    #[test]
    fn full_dad_delays_each_solicitation_by_up_to_a_second_and_starts_with_the_link() {
        // RFC 4862 §5.3: the link-local address is checked as the interface comes up, before
        // any advertisement (here 5 s later); §5.4.2 and Linux's addrconf_dad_kick: each
        // solicitation U[0, 1 s) after its DAD starts; §5.4.3: the address taken RetransTimer
        // (1 s) after. The care-of address follows the advertisement.
        let n = 2000;
        let (mut first, mut gap) = (Vec::new(), Vec::new());
        for seed in 0..n {
            let mut mn = mobile(Dad::Full, seed);
            let (ns, taken) = run(&mut mn, Time::from_secs(5), Time::from_secs(20));
            assert_eq!(ns.len(), 2, "seed {seed}: {ns:?}");
            assert!(
                ns[0].1 && !ns[1].1,
                "link-local first, then the care-of address"
            );
            assert!(ns[0].0 < Time::from_secs(1), "before any advertisement");
            let coa_start = Time::from_secs(5);
            let d2 = ns[1].0.saturating_since(coa_start);
            assert!(d2 < Dur::from_secs(1));
            let taken = taken.expect("the care-of address is taken");
            assert_eq!(taken, ns[1].0 + RETRANS_TIMER);
            first.push(ns[0].0.as_secs_f64());
            gap.push(d2.as_secs_f64());
        }
        for v in [&first, &gap] {
            let mean = v.iter().sum::<f64>() / n as f64;
            // U[0, 1): mean 0.5, standard error 0.29 / sqrt(2000) = 0.0065.
            assert!((mean - 0.5).abs() < 0.03, "mean delay {mean}");
        }
        // With the advertisement right away, t_c is 2 to 4 s (link-local then care-of).
        let mut mn = mobile(Dad::Full, 7);
        let (_, taken) = run(&mut mn, Time::ZERO, Time::from_secs(20));
        let t = taken.expect("taken").as_secs_f64();
        assert!((2.0..4.0).contains(&t), "t_c {t}");
    }

    #[test]
    fn optimistic_dad_solicits_once_for_each_address_and_uses_them_at_once() {
        // RFC 4429 §3.3: no delay, the address usable while its one solicitation is out; the
        // link-local and the care-of address each have their own (before, the care-of
        // address's went twice).
        let mut mn = mobile(Dad::Optimistic, 1);
        let (ns, taken) = run(&mut mn, Time::from_millis(300), Time::from_secs(10));
        assert_eq!(
            ns,
            [(Time::ZERO, true), (Time::from_millis(300), false)],
            "one per address"
        );
        assert_eq!(taken, Some(Time::from_millis(300)));
        let mut mn = mobile(Dad::None, 1);
        let (ns, taken) = run(&mut mn, Time::from_millis(300), Time::from_secs(10));
        assert!(ns.is_empty());
        assert_eq!(taken, Some(Time::from_millis(300)));
    }
}
