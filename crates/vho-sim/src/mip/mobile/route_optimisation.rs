//! The mobile node's route optimisation with each correspondent (RFC 6275 §5.2, §11.6-11.7.2):
//! when to start return routability after a move ([`RoStart`]), the Home Test Init through
//! the home agent's tunnel and the Care-of Test Init straight, each on its own back-off
//! (§11.8), and the Binding Update to the correspondent once both tests have answered.

use super::MobileNode;
use crate::mip::backoff::Backoff;
use crate::mip::message::Addr;
use crate::mip::{
    encapsulate, signal_packet, RoStart, Signal, BINDING_LIFETIME_4S, INITIAL_BINDACK_TIMEOUT,
};
use crate::time::Time;

pub(super) struct Rr {
    iface: usize,
    hoti: Backoff,
    coti: Backoff,
    cookies: (u32, u32),
    home_ok: bool,
    care_ok: bool,
}

pub(super) struct Peer {
    addr: Addr,
    /// The interface whose care-of address the correspondent has (as far as the mobile knows).
    bound: Option<usize>,
    rr: Option<Rr>,
    rr_at: Option<Time>,
    on_traffic: bool,
    /// The correspondent had a binding to a care-of address the mobile has left: its packets
    /// go there, never through the tunnel, so `RoStart::OnTraffic` cannot wait for one.
    stale: bool,
    /// In the mobile's Binding Update List (RFC 6275 §11.7.2): it had a binding at the start
    /// or return routability with it has begun. One that is not (`mipv6.cn_bound = false`)
    /// is not updated on a move: its return routability waits for a packet from it through
    /// the tunnel after the home registration (§11.3.1), whatever `ro_start` says.
    listed: bool,
    seq: u16,
    /// With `cn_ack`: the Binding Update to the correspondent awaiting its acknowledgement,
    /// and the interface it was for (RFC 6275 §11.8's back-off, as for the home agent's).
    bu: Backoff,
    bu_iface: usize,
}

impl Peer {
    pub(super) fn new(addr: Addr, bound: Option<usize>) -> Peer {
        Peer {
            addr,
            bound,
            rr: None,
            rr_at: None,
            on_traffic: false,
            stale: false,
            listed: bound.is_some(),
            seq: 0,
            bu: Backoff::IDLE,
            bu_iface: 0,
        }
    }
}

impl MobileNode {
    /// The mobile has moved to its new primary interface: no correspondent has that care-of
    /// address yet; with `RoStart::Parallel` return routability starts now.
    pub(super) fn moved(&mut self, now: Time) {
        if !self.route_optimisation {
            return;
        }
        for p in 0..self.peers.len() {
            self.peers[p].stale |= self.peers[p].bound.is_some();
            self.peers[p].bound = None;
            if self.ro_start == RoStart::Parallel && self.peers[p].listed {
                self.start_rr(now, p);
            }
        }
    }

    /// The home agent acknowledged the new binding: return routability starts as `ro_start`
    /// says.
    pub(super) fn home_registered(&mut self, now: Time) {
        if !self.route_optimisation {
            return;
        }
        for p in 0..self.peers.len() {
            if !self.peers[p].listed {
                self.peers[p].on_traffic = true;
                continue;
            }
            match self.ro_start {
                RoStart::AfterBa => self.start_rr(now, p),
                RoStart::AfterBaDelay(d) => self.peers[p].rr_at = Some(now + d),
                // A correspondent bound to the old care-of address sends there, not through
                // the tunnel: its update is due now, as RFC 6275 §11.7.2 has for every entry
                // of the Binding Update List (issue 40 item 21: it waited for ever).
                RoStart::OnTraffic if self.peers[p].stale => self.start_rr(now, p),
                RoStart::OnTraffic => self.peers[p].on_traffic = true,
                RoStart::Parallel => {}
            }
        }
    }

    /// A packet from `from` arrived through the home agent's tunnel (`RoStart::OnTraffic`).
    pub(super) fn tunnelled_from(&mut self, now: Time, from: Addr) {
        if let Some(p) = self.peers.iter().position(|p| p.addr == from) {
            if self.peers[p].on_traffic {
                self.start_rr(now, p);
            }
        }
    }

    fn start_rr(&mut self, now: Time, p: usize) {
        let iface = self.primary;
        let cookies = (self.rng.next_u64() as u32, self.rng.next_u64() as u32);
        let mut rr = Rr {
            iface,
            hoti: Backoff::IDLE,
            coti: Backoff::IDLE,
            cookies,
            home_ok: false,
            care_ok: false,
        };
        rr.hoti.start(now, INITIAL_BINDACK_TIMEOUT);
        rr.coti.start(now, INITIAL_BINDACK_TIMEOUT);
        self.peers[p].rr = Some(rr);
        self.peers[p].rr_at = None;
        self.peers[p].on_traffic = false;
        self.peers[p].stale = false;
        self.peers[p].listed = true;
        self.emit_test_init(now, p, true);
        self.emit_test_init(now, p, false);
    }

    /// A Home Test Init goes through the home agent's tunnel (RFC 6275 §5.2.5); a Care-of Test
    /// Init straight from the care-of address.
    fn emit_test_init(&mut self, now: Time, p: usize, home: bool) {
        let Some(rr) = &self.peers[p].rr else { return };
        let cn = self.peers[p].addr;
        let coa = self.ifaces[rr.iface].coa;
        if home {
            let mut pkt = signal_packet(
                now,
                self.home,
                cn,
                Signal::HomeTestInit {
                    cookie: rr.cookies.0,
                },
            );
            encapsulate(&mut pkt, coa, self.ha);
            self.out.push_back(pkt);
        } else {
            let sig = Signal::CareOfTestInit {
                cookie: rr.cookies.1,
            };
            self.out.push_back(signal_packet(now, coa, cn, sig));
        }
    }

    /// A Home Test (`home`) or Care-of Test from correspondent `from`: once both of a test
    /// have answered with their cookies, the Binding Update goes to the correspondent.
    pub(super) fn on_test(&mut self, now: Time, from: Addr, home: bool, cookie: u32) {
        let Some(p) = self.peers.iter().position(|p| p.addr == from) else {
            return;
        };
        let Some(rr) = &mut self.peers[p].rr else {
            return;
        };
        if home && cookie == rr.cookies.0 {
            rr.home_ok = true;
            rr.hoti.stop();
        } else if !home && cookie == rr.cookies.1 {
            rr.care_ok = true;
            rr.coti.stop();
        }
        if rr.home_ok && rr.care_ok {
            let iface = rr.iface;
            self.peers[p].rr = None;
            self.send_cn_update(now, p, iface);
        }
    }

    fn send_cn_update(&mut self, now: Time, p: usize, iface: usize) {
        let peer = &mut self.peers[p];
        peer.bound = Some(iface);
        peer.bu_iface = iface;
        if self.cn_ack {
            peer.bu.start(now, INITIAL_BINDACK_TIMEOUT);
        }
        self.emit_cn_update(now, p);
        if let Some(m) = &self.moving {
            let r = &mut self.records[m.record];
            r.bu_cn_sent.get_or_insert(now);
        }
    }

    /// Sends the Binding Update to correspondent `p`, a first one or a retransmission, each
    /// with a greater sequence number (RFC 6275 §11.7.1, as for the home agent's).
    fn emit_cn_update(&mut self, now: Time, p: usize) {
        let peer = &mut self.peers[p];
        peer.seq = peer.seq.wrapping_add(1);
        let peer = &self.peers[p];
        let bu = Signal::BindingUpdate {
            seq: peer.seq,
            lifetime_4s: BINDING_LIFETIME_4S,
            home: false,
            ack: self.cn_ack,
        };
        let coa = self.ifaces[peer.bu_iface].coa;
        self.out.push_back(signal_packet(now, coa, peer.addr, bu));
        self.sent_cn_updates += 1;
    }

    /// A Binding Acknowledgement from a correspondent (`cn_ack`): its update is in place; or,
    /// status 135, its sequence number was out of window: the mobile takes the one the
    /// acknowledgement gives and sends again (RFC 6275 §11.7.3).
    pub(super) fn on_cn_ack(&mut self, now: Time, from: Addr, seq: u16, status: u8) {
        let Some(p) = self.peers.iter().position(|p| p.addr == from) else {
            return;
        };
        let peer = &mut self.peers[p];
        if status == 135 && peer.bu.due.is_some() {
            peer.seq = seq;
            self.emit_cn_update(now, p);
        } else if seq == peer.seq && status < 128 {
            peer.bu.stop();
        }
    }

    /// A Binding Error, status 1, from correspondent `from`, received at care-of address
    /// `via`: the correspondent has no binding for the address the mobile sends from (its
    /// Binding Update was lost, or its binding expired). RFC 6275 §11.3.6: without upper-layer
    /// progress information the mobile "MUST remove the entry and route further
    /// communications through the home agent. It MAY also optionally start a return
    /// routability procedure", which it does with route optimisation on. An error about a
    /// care-of address the mobile no longer sends from to that correspondent, or one that
    /// comes while its test is under way, changes nothing.
    pub(super) fn on_binding_error(&mut self, now: Time, from: Addr, via: Addr) {
        let Some(p) = self.peers.iter().position(|p| p.addr == from) else {
            return;
        };
        let peer = &self.peers[p];
        let current = peer.bound.is_some_and(|b| self.ifaces[b].coa == via);
        if !current || peer.rr.is_some() {
            return;
        }
        self.peers[p].bound = None;
        self.peers[p].bu.stop();
        self.binding_errors += 1;
        if self.route_optimisation {
            self.start_rr(now, p);
        }
    }

    /// Whether `from` is a correspondent of this mobile.
    pub(super) fn is_peer(&self, from: Addr) -> bool {
        self.peers.iter().any(|p| p.addr == from)
    }

    /// Retransmissions of the test inits due now, and delayed starts (`RoStart::AfterBaDelay`).
    pub(super) fn rr_timers(&mut self, now: Time) {
        for p in 0..self.peers.len() {
            if self.peers[p].rr_at.is_some_and(|t| t <= now) {
                self.start_rr(now, p);
            }
            let (mut home, mut care) = (false, false);
            if let Some(rr) = &mut self.peers[p].rr {
                home = rr.hoti.fire(now);
                care = rr.coti.fire(now);
            }
            if home {
                self.emit_test_init(now, p, true);
            }
            if care {
                self.emit_test_init(now, p, false);
            }
            if self.peers[p].bu.fire(now) {
                self.emit_cn_update(now, p);
            }
        }
    }

    /// The earliest of the correspondents' timers.
    pub(super) fn rr_timeout(&self) -> Option<Time> {
        self.peers
            .iter()
            .flat_map(|p| {
                [
                    p.rr_at,
                    p.rr.as_ref().and_then(|r| r.hoti.due),
                    p.rr.as_ref().and_then(|r| r.coti.due),
                    p.bu.due,
                ]
            })
            .flatten()
            .min()
    }

    /// The interface whose care-of address correspondent `cn` has, as far as the mobile knows.
    pub(super) fn bound_to(&self, cn: Addr) -> Option<usize> {
        self.peers
            .iter()
            .find(|p| p.addr == cn)
            .and_then(|p| p.bound)
    }
}
