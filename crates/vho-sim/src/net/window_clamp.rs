//! `window-clamp`: a transparent proxy at the home agent that rewrites the receive window
//! advertised to a sender whose data crosses an access link, so that the sender keeps no
//! more in flight than that link's bandwidth-delay product (Cottingham & Vidales §7,
//! 000 l.214-218, citing Chakravorty, Cartwright & Pratt, "Practical experience with TCP over
//! GPRS", GLOBECOM 2002: "a transparent proxy which rewrites packets' TCP headers … The proxy
//! is aware of all TCP connections from all hosts using the GPRS link"). TCP headers carry no
//! congestion window, so what can be rewritten is the advertised window; the sender then sends
//! min(cwnd, rwnd) (RFC 5681 §2). It is the remedy `cwnd-clamp`.
//!
//! The rule (issue-19 digest, "cwnd-clamp"): a segment crossing access link L, whose data
//! flows the other way over L, has its window set to
//! `min(window, max(2, ⌈(⌈BDP_L / N_L⌉ + SMSS) / SMSS⌉)·SMSS)`: whole segments, rounded up,
//! where BDP_L is the path's bottleneck
//! rate times its base round trip through L, N_L the connections active on L and SMSS the
//! largest segment the data sender has sent (a window is rewritten only once the proxy has
//! seen data from that sender). The "+ SMSS" is the thesis's window of "the
//! capacity of the link plus one segment" (003 §7.1.3 l.1683-1686). L is the link the
//! segment crosses, so the clamp follows the mobile from the first segment over its new link
//! (the proxy learns the binding from the traffic, as a home agent learns it from the binding
//! update). The window field is honoured as scaled when the proxy saw the handshake's window
//! scale options (RFC 7323 §2.3), or was told the scale of a connection that has no handshake
//! (ns-2's one-way agents: "the proxy is aware of all TCP connections", Chakravorty et al.);
//! otherwise it is taken as unscaled.

use super::function::{Counters, Hop, PathTiming};
use super::routes::DirIdx;
use crate::packet::Packet;
use crate::tcp::segment::Flags;
use crate::time::{Dur, Time};

/// A connection stops counting towards N_L after this long without a segment, if the proxy
/// saw no FIN or RST. The sources leave it open; 30 s outlasts the longest stall the thesis
/// measured ("tens of seconds without new data", 003 §7.1.2) so a stalled connection keeps
/// its share.
pub const CONNECTION_IDLE: Dur = Dur::from_secs(30);

/// One connection the proxy has seen, both directions.
#[derive(Clone, Debug)]
struct Conn {
    /// (node, port) of its two ends, the lower first.
    ends: [(u32, u16); 2],
    /// The access link direction key its data last crossed (see `WindowClamp::timing`).
    link: Option<usize>,
    last_seen: Time,
    closed: bool,
    /// Per end: the largest payload it sent, and the window scale it offered on its SYN.
    smss: [u32; 2],
    wscale: [Option<u8>; 2],
}

pub struct WindowClamp {
    /// Per link direction at this node (indexed by `DirIdx`): the timing of the data path a
    /// segment crossing that direction speaks for, when the direction is an access link's.
    /// A segment arriving from the mobile over direction d (an ACK of downloaded data) is
    /// keyed by d; one leaving towards the mobile (an ACK of uploaded data) by its egress.
    timing: Vec<Option<PathTiming>>,
    /// The access link (its index) of each direction at this node that belongs to one, so
    /// both directions of a link count the same connections.
    link_of: Vec<Option<usize>>,
    conns: Vec<Conn>,
    rewritten: u64,
    seen: u64,
}

impl WindowClamp {
    /// `timing[d]` for every direction index `d` at this node whose segments are ACKs of
    /// data crossing an access link, `link_of[d]` the access link of every direction at this
    /// node that belongs to one.
    pub fn new(timing: Vec<Option<PathTiming>>, link_of: Vec<Option<usize>>) -> Self {
        WindowClamp {
            timing,
            link_of,
            conns: Vec::new(),
            rewritten: 0,
            seen: 0,
        }
    }

    /// A connection without a handshake whose window scales the proxy is told: `a` = (node,
    /// port) scaling by `wscale_a`, likewise `b`.
    pub fn know(&mut self, a: (u32, u16), wscale_a: u8, b: (u32, u16), wscale_b: u8) {
        let (ends, wscale) = if a <= b {
            ([a, b], [Some(wscale_a), Some(wscale_b)])
        } else {
            ([b, a], [Some(wscale_b), Some(wscale_a)])
        };
        self.conns.push(Conn {
            ends,
            link: None,
            last_seen: Time::ZERO,
            closed: false,
            smss: [0, 0],
            wscale,
        });
    }

    /// The window the proxy allows the data sender of a connection on link `key`.
    fn clamp_bytes(&self, key: usize, smss: u32, now: Time) -> Option<u64> {
        let timing = self.timing.get(key).copied().flatten()?;
        let link = self.link_of.get(key).copied().flatten();
        let active = self
            .conns
            .iter()
            .filter(|c| {
                c.link == link && !c.closed && now.saturating_since(c.last_seen) < CONNECTION_IDLE
            })
            .count()
            .max(1) as u64;
        let smss = smss as u64;
        let bytes = timing.bdp_bytes(smss as u32).div_ceil(active) + smss;
        // Whole segments, rounded up: a sender sends full-sized segments only, so a window
        // of 2.8 segments keeps 2 in flight.
        Some(bytes.div_ceil(smss).max(2) * smss)
    }

    pub fn on_packet(&mut self, now: Time, pkt: &mut Packet, hop: Hop) -> super::function::Verdict {
        self.seen += 1;
        let key = self.key_of(hop);
        let me = (pkt.src, pkt.seg.src_port);
        let peer = (pkt.dst, pkt.seg.dst_port);
        let ends = if me <= peer { [me, peer] } else { [peer, me] };
        let side = usize::from(ends[0] != me);
        let c = match self.conns.iter().position(|c| c.ends == ends) {
            Some(i) => i,
            None => {
                self.conns.push(Conn {
                    ends,
                    link: None,
                    last_seen: now,
                    closed: false,
                    smss: [0, 0],
                    wscale: [None, None],
                });
                self.conns.len() - 1
            }
        };
        let seg = &mut pkt.seg;
        {
            let conn = &mut self.conns[c];
            conn.last_seen = now;
            if seg.flags.contains(Flags::SYN) {
                conn.wscale[side] = seg.options.window_scale;
            }
            if seg.flags.contains(Flags::FIN) || seg.flags.contains(Flags::RST) {
                conn.closed = true;
            }
            conn.smss[side] = conn.smss[side].max(seg.len);
            let on = |d: DirIdx| self.link_of.get(d as usize).copied().flatten();
            if let Some(l) = hop.ingress.and_then(on).or_else(|| on(hop.egress)) {
                conn.link = Some(l);
            }
        }
        // The window in a SYN is never scaled (RFC 7323 §2.2); leave the handshake alone.
        let Some(key) = key.filter(|_| !seg.flags.contains(Flags::SYN)) else {
            return super::function::Verdict::Pass;
        };
        let conn = &self.conns[c];
        // Only a window that governs data: the other end has sent some (the proxy leaves a
        // download's data segments, which advertise the sender's own receive window, alone).
        let peer_smss = conn.smss[1 - side];
        if peer_smss == 0 {
            return super::function::Verdict::Pass;
        }
        // Scaling applies when both ends offered it on their SYNs (RFC 7323 §2.2).
        let shift = match conn.wscale {
            [Some(a), Some(b)] => [a, b][side],
            _ => 0,
        };
        if let Some(limit) = self.clamp_bytes(key, peer_smss, now) {
            // Rounded up to what the scaled field can say: never below the clamp.
            let field = limit.div_ceil(1 << shift).clamp(1, u16::MAX as u64) as u16;
            if field < seg.window {
                seg.window = field;
                self.rewritten += 1;
            }
        }
        super::function::Verdict::Pass
    }

    /// The access direction a segment speaks for: the one it arrived over, else the one it
    /// leaves on.
    fn key_of(&self, hop: Hop) -> Option<usize> {
        let has = |d: DirIdx| matches!(self.timing.get(d as usize), Some(Some(_)));
        match hop.ingress {
            Some(d) if has(d) => Some(d as usize),
            _ if has(hop.egress) => Some(hop.egress as usize),
            _ => None,
        }
    }

    pub fn counters(&self) -> Counters {
        vec![
            ("segments_seen", self.seen),
            ("windows_rewritten", self.rewritten),
            ("connections", self.conns.len() as u64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::segment::{Segment, TcpOptions};
    use crate::tcp::{SeqNum, TxKind};

    fn gsm() -> PathTiming {
        // 7680 b/s of IP bytes, 700 ms of propagation round trip (the thesis's GSM/PPP).
        PathTiming {
            rate_bps: 7680,
            propagation_rtt: Dur::from_millis(524),
            data_s_per_byte: 8.0 / 7680.0,
            ack_s_per_byte: 8.0 / 7680.0,
        }
    }

    fn ack(src: u32, dst: u32, window: u16) -> Packet {
        Packet {
            seg: Segment {
                src_port: 40001,
                dst_port: 5001,
                seq: SeqNum(1),
                ack: SeqNum(1),
                flags: Flags::ACK,
                window,
                options: TcpOptions::default(),
                len: 0,
            },
            flow: 0,
            to_receiver: false,
            src,
            dst,
            wire_bytes: 40,
            ip_id: 0,
            kind: TxKind::New,
            copy: 0,
            sent_at: Time::ZERO,
            ..Default::default()
        }
    }

    /// Node 1 is the proxy; direction 3 arrives from the mobile over link 1 (GSM).
    fn proxy() -> WindowClamp {
        let gsm_link = Some(1);
        WindowClamp::new(
            vec![None, None, None, Some(gsm())],
            vec![None, None, gsm_link, gsm_link],
        )
    }

    /// A data segment of `len` bytes from the correspondent host (node 0) to the mobile.
    fn data(len: u32) -> Packet {
        let mut d = ack(0, 2, 32768);
        d.seg.src_port = 5001;
        d.seg.dst_port = 40001;
        d.seg.len = len;
        d
    }

    const DOWN: Hop = Hop {
        ingress: Some(0),
        egress: 2,
    };
    const FROM_MOBILE: Hop = Hop {
        ingress: Some(3),
        egress: 0,
    };

    #[test]
    fn an_ack_from_the_mobile_over_a_slow_link_is_clamped_to_its_bdp_plus_one_segment() {
        // Cottingham & Vidales §7 / thesis §7.1.3: capacity of the link plus one segment.
        let mut p = proxy();
        let mut d = data(536);
        p.on_packet(Time::ZERO, &mut d, DOWN);
        // The data segment's own window (for the reverse direction) is left alone.
        assert_eq!(d.seg.window, 32768);
        let mut a = ack(2, 0, 16384);
        p.on_packet(Time::ZERO, &mut a, FROM_MOBILE);
        // SMSS 536: base RTT 0.524 + (576·8 + 40·8)/7680 = 1.1657 s, BDP ⌈7680·1.1657/8⌉ =
        // 1120 B, + 536 = 1656 B, rounded up to whole segments: 4 × 536 = 2144 B.
        assert_eq!(a.seg.window, 2144);
        assert_eq!(p.rewritten, 1);
    }

    #[test]
    fn the_clamp_is_shared_between_the_connections_active_on_the_link() {
        let mut p = proxy();
        for port in [5001, 5002] {
            let mut d = data(1420);
            d.seg.src_port = port;
            p.on_packet(Time::ZERO, &mut d, DOWN);
        }
        let mut a = ack(2, 0, 16384);
        a.seg.dst_port = 5001;
        p.on_packet(Time::ZERO, &mut a, FROM_MOBILE);
        // SMSS 1420: base RTT 0.524 + (1460 + 40)·8/7680 = 2.0865 s, BDP ⌈2003.04⌉ = 2004 B;
        // shared by two: ⌈2004/2⌉ + 1420 = 2422 B, rounded up to 2 segments: 2840 B.
        assert_eq!(a.seg.window, 2840);
        // Once the other connection has been idle for CONNECTION_IDLE it no longer counts.
        let later = Time::ZERO + CONNECTION_IDLE;
        let mut a = ack(2, 0, 16384);
        a.seg.dst_port = 5001;
        p.on_packet(later, &mut a, FROM_MOBILE);
        // Alone: 2004 + 1420 = 3424 B, 3 segments: 4260 B (the thesis found a 4 KB window
        // the best of 2, 4, 8 and 16 KB over GSM, 003 §7.1.3).
        assert_eq!(a.seg.window, 3 * 1420);
    }

    #[test]
    fn a_known_connections_window_scale_is_honoured_rounding_up() {
        // RFC 7323 §2.3: the field is the window >> shift. A connection with no handshake
        // (ns-2's one-way agents) is known to the proxy with its scale, here 7: 4260 B is a
        // field of ⌈4260 / 128⌉ = 34, 4352 B, never less than the clamp.
        let mut p = proxy();
        p.know((0, 5001), 7, (2, 40001), 7);
        let mut d = data(1420);
        p.on_packet(Time::ZERO, &mut d, DOWN);
        let mut a = ack(2, 0, 16384 >> 7);
        p.on_packet(Time::ZERO, &mut a, FROM_MOBILE);
        assert_eq!(a.seg.window, 34);
        assert_eq!(p.conns.len(), 1);
    }

    #[test]
    fn no_window_is_rewritten_before_the_data_sender_has_sent_data() {
        let mut p = proxy();
        let mut a = ack(2, 0, 16384);
        p.on_packet(Time::ZERO, &mut a, FROM_MOBILE);
        assert_eq!(a.seg.window, 16384);
    }

    #[test]
    fn a_segment_crossing_no_access_link_is_left_alone() {
        let mut p = proxy();
        p.on_packet(Time::ZERO, &mut data(536), DOWN);
        let mut a = ack(2, 0, 16384);
        let hop = Hop {
            ingress: Some(1),
            egress: 0,
        };
        p.on_packet(Time::ZERO, &mut a, hop);
        assert_eq!(a.seg.window, 16384);
        assert_eq!(p.rewritten, 0);
    }

    #[test]
    fn a_smaller_window_is_never_raised() {
        let mut p = proxy();
        p.on_packet(Time::ZERO, &mut data(536), DOWN);
        let mut a = ack(2, 0, 1000);
        p.on_packet(Time::ZERO, &mut a, FROM_MOBILE);
        assert_eq!(a.seg.window, 1000);
    }
}
