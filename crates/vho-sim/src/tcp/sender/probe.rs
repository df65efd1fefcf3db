//! TCP Probe at the sender (Chen et al. §3.2, after their [24]): back-to-back data segments
//! that TCP sends anyway (two new full segments in one instant, "mostly in Slow Start but also
//! in Congestion Avoidance") make a pair; the sender times the two ACKs against the pair's
//! sending time and runs CapProbe's filter on the round trips (`crate::probe::capprobe`). The
//! estimate, data size over ACK dispersion, is the forward capacity while C_1/C_2 < data/ACK
//! (37.5 for 1500/40 bytes; `RoundTripRule`). IHN watches it (§3.3), EHN comes from the
//! handover manager (§4); FRA is slow start from the current window (ssthresh back to its
//! initial value), ERR the window times C_2/C_1 with ssthresh there too.
//!
//! Deviation: the "inverted packet pair" (§3.2: send i+1 before i so that a delayed-ACK
//! receiver acknowledges each) is not done; a pair counts only if one ACK acknowledges
//! exactly up to its first segment and the next exactly up to its second, so a receiver that
//! delays ACKs yields fewer pairs, never wrong ones.
//!
//! Off (`None` in the sender), none of this runs: one test of an `Option` per segment sent
//! and per ACK.

use super::TcpSender;
use crate::probe::{self, Action, CapProbe, Handoff, Ihn, PairSample, ProbeConfig};
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::seq::SeqNum;
use crate::time::Time;

/// A handoff TCP Probe learnt of, and what it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    pub handoff: Handoff,
    pub action: Option<Action>,
}

/// A pair in flight: when it left, where its two segments end, its data bytes on the wire,
/// and when the ACK of the first came.
#[derive(Clone, Copy, Debug)]
struct Pending {
    sent: Time,
    end1: SeqNum,
    end2: SeqNum,
    wire_bytes: u32,
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
                        end1: prev_end,
                        end2: end,
                        // IPv4 20 bytes under the TCP header and data.
                        wire_bytes: 20 + seg.header_len() + seg.len,
                        first_acked: None,
                    });
                    self.last_new = None;
                    return;
                }
            }
        }
        self.last_new = Some((now, end));
    }

    /// A cumulative ACK; the estimate if it completed a pair.
    fn on_ack(&mut self, now: Time, ack: SeqNum) -> Option<u64> {
        let p = self.pending.as_mut()?;
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

    #[cold]
    pub(super) fn probe_on_ack(&mut self, now: Time, ack: SeqNum) {
        let Some(p) = self.probe.as_deref_mut() else {
            return;
        };
        let Some(c) = p.on_ack(now, ack) else {
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
