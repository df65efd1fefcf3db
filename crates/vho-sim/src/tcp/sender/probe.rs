//! TCP Probe at the sender (Chen et al. §3.2, after their [24]): back-to-back data segments
//! that TCP sends anyway (two new full segments in one instant, "mostly in Slow Start but also
//! in Congestion Avoidance") make a pair; the sender times the two ACKs against the pair's
//! sending time and runs CapProbe's filter on the round trips (`crate::probe::capprobe`). The
//! estimate, data size over ACK dispersion, is the forward capacity while C_1/C_2 < data/ACK
//! (37.5 for 1500/40 bytes; `RoundTripRule`). IHN watches it (§3.3), EHN comes from the
//! handover manager (§4); FRA is slow start from the current window (ssthresh back to its
//! initial value), ERR the window times C_2/C_1 with ssthresh there too.
//!
//! The inverted packet pair (§3.2: "the sender sends segment i+1 before segment i" so that a
//! delayed-ACK receiver acknowledges each): when the window lets two new full segments go in
//! one instant, in Open, the second goes first. The receiver holds it out of order and
//! acknowledges it at once (RFC 5681 §4.2, RFC 1122 §4.2.3.2), with a SACK block for it when
//! SACK is on; the first, filling the gap, is acknowledged at once too, and the two ACKs are
//! spaced by the bottleneck's time for one segment. The pair's first ACK is the last one that
//! acknowledges up to segment i's start (with SACK: and SACKs segment i+1); the second
//! acknowledges segment i+1's end. Where two segments cannot go together, or with the
//! `linux-2.0` profile (`RttSampling::EveryFreedSegment`, whose send queue is kept in
//! sequence order), a pair sent in order still counts when one ACK acknowledges exactly up to
//! its first segment and the next exactly up to its second. The connection's first data
//! segment is never the second of a pair (the world takes its sequence number as the data's
//! base). Costs of the inversion: with SACK the first ACK carries a block the second does not,
//! so on a slow reverse link the dispersion is short by the block's serialisation (150 kb/s
//! each way: estimates 0.8 % high); and the out-of-order arrival is a duplicate ACK and, to
//! RACK (reo_wnd 0 in recovery), a reason to mark segment i lost.
//!
//! Off (`None` in the sender), none of this runs: one test of an `Option` per segment sent
//! and per ACK.

use super::{Recovery, TcpSender};
use crate::probe::{self, Action, CapProbe, Handoff, Ihn, PairSample, ProbeConfig};
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::{Segment, Transmit, TxKind};
use crate::tcp::seq::SeqNum;
use crate::time::Time;

/// A handoff TCP Probe learnt of, and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    pub handoff: Handoff,
    pub action: Option<Action>,
}

/// A pair in flight: when it left, where its two segments start and end, its data bytes on
/// the wire, whether it went inverted (the second segment first), and when the ACK of the
/// first came.
#[derive(Clone, Copy, Debug)]
struct Pending {
    sent: Time,
    start1: SeqNum,
    end1: SeqNum,
    end2: SeqNum,
    wire_bytes: u32,
    inverted: bool,
    first_acked: Option<Time>,
}

#[derive(Clone, Debug)]
pub(super) struct TcpProbe {
    cfg: ProbeConfig,
    capprobe: CapProbe,
    ihn: Ihn,
    /// The last new full segment sent: when, and where it ends.
    last_new: Option<(Time, SeqNum)>,
    pending: Option<Pending>,
    /// The first segment of an inverted pair, due now: its second has just gone.
    owed: Option<SeqNum>,
    pub(super) detections: Vec<Detection>,
}

impl TcpProbe {
    pub(super) fn new(cfg: &ProbeConfig) -> Self {
        TcpProbe {
            cfg: *cfg,
            capprobe: CapProbe::new(cfg.filter, cfg.window),
            ihn: Ihn::new(cfg.alpha, cfg.beta),
            last_new: None,
            pending: None,
            owed: None,
            detections: Vec::new(),
        }
    }

    /// A new data segment of `mss` bytes goes out (retransmissions and short segments are
    /// not paired); with the one before it in the same instant it makes a pair.
    fn on_send(&mut self, now: Time, seg: &Segment, mss: u32) {
        if seg.len < mss {
            self.last_new = None;
            return;
        }
        let end = seg.seq + seg.len;
        if self.pending.is_none() {
            if let Some((t, prev_end)) = self.last_new {
                if t == now && prev_end == seg.seq {
                    self.pending = Some(Pending {
                        sent: now,
                        start1: prev_end - seg.len,
                        end1: prev_end,
                        end2: end,
                        // IPv4 20 bytes under the TCP header and data.
                        wire_bytes: 20 + seg.header_len() + seg.len,
                        inverted: false,
                        first_acked: None,
                    });
                    self.last_new = None;
                    return;
                }
            }
        }
        self.last_new = Some((now, end));
    }

    /// An inverted pair: `seg`, the second segment, has just gone first; the first, `[start1,
    /// seg.seq)`, is owed in this same instant.
    fn on_inverted_send(&mut self, now: Time, start1: SeqNum, seg: &Segment) {
        self.pending = Some(Pending {
            sent: now,
            start1,
            end1: seg.seq,
            end2: seg.seq + seg.len,
            wire_bytes: 20 + seg.header_len() + seg.len,
            inverted: true,
            first_acked: None,
        });
        self.owed = Some(start1);
        self.last_new = None;
    }

    /// An ACK of `ack`; `sacks_second`: it SACKs the pair's second segment (`None`: SACK is
    /// off). The estimate if it completed a pair.
    fn on_ack(&mut self, now: Time, ack: SeqNum, sacks_second: Option<bool>) -> Option<u64> {
        let p = self.pending.as_mut()?;
        if p.inverted {
            return self.on_inverted_ack(now, ack, sacks_second);
        }
        if ack < p.end1 {
            return None;
        }
        match p.first_acked {
            None if ack == p.end1 => {
                p.first_acked = Some(now);
                None
            }
            Some(t1) if ack == p.end2 => {
                let pair = PairSample {
                    first: t1.saturating_since(p.sent),
                    second: now.saturating_since(p.sent),
                    wire_bytes: p.wire_bytes,
                };
                self.pending = None;
                self.capprobe.on_pair(pair)
            }
            // One ACK for both (a delayed ACK), or past the pair: no sample.
            _ if ack >= p.end2 || p.first_acked.is_none() => {
                self.pending = None;
                None
            }
            _ => None,
        }
    }

    /// The ACKs of an inverted pair: the second segment, arriving first, is acknowledged at
    /// once up to the first's start (RFC 5681 §4.2: out of order); the first, filling the gap,
    /// up to the second's end. The latest ACK up to the first's start (an earlier one may be
    /// the segment before the pair's) that SACKs the second when SACK is on times the first.
    fn on_inverted_ack(
        &mut self,
        now: Time,
        ack: SeqNum,
        sacks_second: Option<bool>,
    ) -> Option<u64> {
        let p = self.pending.as_mut()?;
        if ack < p.start1 {
            return None;
        }
        if ack == p.start1 {
            if sacks_second != Some(false) {
                p.first_acked = Some(now);
            }
            return None;
        }
        let done = *p;
        self.pending = None;
        match done.first_acked {
            Some(t1) if ack == done.end2 => self.capprobe.on_pair(PairSample {
                first: t1.saturating_since(done.sent),
                second: now.saturating_since(done.sent),
                wire_bytes: done.wire_bytes,
            }),
            // The first segment acknowledged alone (no reordering after all), both in one
            // ACK, or past the pair: no sample.
            _ => None,
        }
    }

    pub(super) fn estimate(&self) -> Option<u64> {
        self.capprobe.estimate_bps()
    }

    pub(super) fn pairs(&self) -> (u64, u64) {
        self.capprobe.counts()
    }
}

impl TcpSender {
    /// The same sender as TCP Probe (Chen et al. §3.2), if `probe.enabled`.
    pub fn with_probe(mut self, probe: &ProbeConfig) -> Self {
        if probe.enabled {
            self.probe = Some(Box::new(TcpProbe::new(probe)));
        }
        self
    }

    /// TCP Probe's capacity estimate, bit/s.
    pub fn capacity_estimate(&self) -> Option<u64> {
        self.probe.as_ref().and_then(|p| p.estimate())
    }

    /// TCP Probe's pairs: measured, and refused for having no dispersion.
    pub fn probe_pairs(&self) -> (u64, u64) {
        self.probe.as_ref().map_or((0, 0), |p| p.pairs())
    }

    /// The handoffs TCP Probe learnt of and what it did, in order.
    pub fn probe_detections(&self) -> &[Detection] {
        self.probe.as_ref().map_or(&[], |p| &p.detections)
    }

    #[cold]
    pub(super) fn probe_on_send(&mut self, now: Time, seg: &Segment, new: bool) {
        let mss = self.neg.mss;
        if let Some(p) = self.probe.as_deref_mut() {
            if new {
                p.on_send(now, seg, mss);
            } else {
                p.last_new = None;
                p.pending = None; // a retransmission: the ACKs no longer time the pair
            }
        }
    }

    /// The first segment of an inverted pair, owed since its second went: it goes now, new
    /// data within the window the pair was sent under.
    #[cold]
    pub(super) fn probe_owed(&mut self, now: Time) -> Option<Transmit> {
        let seq = self.probe.as_deref_mut()?.owed.take()?;
        if seq < self.snd_una || seq >= self.data_end {
            return None;
        }
        Some(self.send_at(now, seq, TxKind::New))
    }

    /// TCP Probe's inverted pair (see the module doc) in place of the new full segment at
    /// `seq`: in Open, with no pair pending, when the segment after it is full too and the
    /// window `win` and the receiver's take both, the second goes now and the first is owed.
    #[cold]
    pub(super) fn probe_inverted_pair(
        &mut self,
        now: Time,
        seq: SeqNum,
        win: u32,
    ) -> Option<Transmit> {
        let mss = self.neg.mss;
        let p = self.probe.as_deref()?;
        let second = seq + mss;
        let ready = p.pending.is_none()
            && p.owed.is_none()
            && self.recovery == Recovery::Open
            && self.freed.is_none()
            && self.frto_credit == 0
            && seq >= self.snd_max
            // Not the connection's first data: the world takes its sequence number as the
            // data's base (`World::emit`).
            && self.snd_max > self.iss + 1
            && self.data_end - seq >= 2 * mss
            && (second + mss) - self.snd_una <= win
            && self.rwnd_allows(second);
        if !ready {
            return None;
        }
        let tx = self.send_at(now, second, TxKind::New);
        if let Some(p) = self.probe.as_deref_mut() {
            p.on_inverted_send(now, seq, &tx.segment);
        }
        Some(tx)
    }

    #[cold]
    pub(super) fn probe_on_ack(&mut self, now: Time, seg: &Segment) {
        let sack = self.neg.sack;
        let Some(p) = self.probe.as_deref_mut() else {
            return;
        };
        let sacks_second = p.pending.filter(|q| q.inverted).map(|q| {
            seg.options
                .sack
                .as_slice()
                .iter()
                .any(|&(l, r)| l <= q.end1 && q.end2 <= r)
        });
        let sacks_second = sacks_second.filter(|_| sack);
        let Some(c) = p.on_ack(now, seg.ack, sacks_second) else {
            return;
        };
        let Some(h) = p.ihn.on_estimate(now, c).filter(|_| p.cfg.ihn) else {
            return;
        };
        self.probe_respond(h);
    }

    /// EHN from the mobile's handover manager (Chen et al. §4), with the nominal rates of the
    /// interfaces left and taken: TCP Probe with `ehn` answers it.
    pub fn notify_probe_handover(&mut self, now: Time, from_bps: u64, to_bps: u64) {
        let Some(p) = self.probe.as_deref() else {
            return;
        };
        if !p.cfg.ehn {
            return;
        }
        let direction = match to_bps.cmp(&from_bps) {
            std::cmp::Ordering::Greater => probe::Direction::LowToHigh,
            std::cmp::Ordering::Less => probe::Direction::HighToLow,
            std::cmp::Ordering::Equal => return,
        };
        self.probe_respond(Handoff {
            at: now,
            by: probe::Notice::Ehn,
            direction,
            from_bps,
            to_bps,
        });
    }

    /// FRA: slow start from the window in force (ssthresh back to its initial value); ERR:
    /// the window times C_2/C_1, at least one segment, and ssthresh with it.
    fn probe_respond(&mut self, h: Handoff) {
        let Some(p) = self.probe.as_deref_mut() else {
            return;
        };
        let action = probe::response(&p.cfg, &h);
        p.detections.push(Detection { handoff: h, action });
        let cwnd = self.cc.cwnd();
        match action {
            Some(Action::Fra) => self.cc.set_window(cwnd, self.cfg.initial_ssthresh),
            Some(Action::Err { ratio }) => {
                let w = ((cwnd as f64 * ratio) as u32).max(self.neg.mss);
                self.cc.set_window(w, w);
            }
            None => {}
        }
    }
}
