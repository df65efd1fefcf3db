//! The oracle sender (issue 19 item 3): "a sender told the new path's rate and RTT at the
//! instant of the handover, with no loss of its own making, as the bound every remedy is
//! measured against". The rules follow the design digest (docs/design/issue-19-sources.md §4):
//!
//! 1. **The flow's own stack until the switch.** Nothing here acts before the world's first
//!    [`PathTruth`]: without a handover the oracle flow is the baseline flow.
//! 2. **At the instant the handover is carried out**, from ground truth and with no delay, the
//!    world tells it the new path's base RTT R (propagation both ways, one full-sized segment
//!    serialised on every hop out and one ACK on every hop back, no queueing) and the time a
//!    full-sized segment takes on the bottleneck, 1/C. The sender sets SRTT := R, RTTVAR :=
//!    R/2 and the RTO from them, backoff cleared, and cwnd := ssthresh := [`window_segments`]:
//!    the capacity of the path plus one segment (thesis §7.1.3 l.1683-1686: "the capacity of
//!    the link plus one segment").
//! 3. **No loss of its own making.** From then on its only retransmissions are of segments the
//!    network really dropped, each [`REPAIR_AFTER_RTTS`] base RTT after the drop (ideal loss
//!    detection, digest §4.3); no timeout and no duplicate-ACK action fires for a segment
//!    that is only late or reordered. Segments still on the old path are in flight, but not on
//!    the new path: the world names them at the switch, and cwnd, which measures the new
//!    path, does not count them (counting them held the oracle back for the 300 ms a GPRS
//!    pipe took to drain in Daniel & Kojo's Fig. 2, and `new-path` beat it).
//! 4. **It never fills a queue.** cwnd stays at the path's capacity plus one segment (a flow
//!    alone on the path loses no throughput by it: more in flight only queues), and segments
//!    leave no faster than the bottleneck serves them (paced at 1/C, digest §4.2), the first
//!    of them when it would meet no queue on the new path: not before the new link carries
//!    traffic (a handover's delay), nor before what waits ahead of it there (a queue moved
//!    over from the old link) has been served. The receiver's advertised window is honoured.
//!
//! Where the world's truth comes from: `world::oracle`. Only the oracle reads it; the sender's
//! methods that take it do nothing in any other sender.
//!
//! [`window_segments`]: PathTruth::window_segments

use super::seq::SeqNum;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// A really dropped segment is resent this many base RTTs after the drop (digest §4.3: "A
/// segment the network really drops is retransmitted at t_drop + R_new, i.e. ideal loss
/// detection": about when a receiver's report of the hole could reach the sender).
pub const REPAIR_AFTER_RTTS: u64 = 1;

/// Segments beyond the path's capacity that the oracle keeps in flight (thesis §7.1.3
/// l.1683-1686: "the capacity of the link plus one segment").
pub const EXTRA_SEGMENTS: u32 = 1;

/// What the world tells the oracle at the instant a handover is carried out: ground truth of
/// the new path of the flow's data and ACKs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PathTruth {
    /// Propagation both ways, one full-sized data segment serialised on every hop out and one
    /// ACK on every hop back; no queueing.
    pub base_rtt: Dur,
    /// A full-sized data segment's time on the slowest hop out (1/C, C in segments/s).
    pub segment_time: Dur,
    /// The earliest instant a segment sent then meets no queue on the new path: every hop
    /// free (a handover's delay over) and what waits ahead of it served.
    pub clear_at: Time,
}

impl PathTruth {
    /// cwnd in segments: ⌈C·R⌉ (the capacity, rounded up: a part of a segment cannot be sent)
    /// plus [`EXTRA_SEGMENTS`].
    pub fn window_segments(&self) -> u32 {
        let t = self.segment_time.as_nanos().max(1);
        let bdp = self.base_rtt.as_nanos().div_ceil(t);
        (bdp.min(u32::MAX as u64 / 2) as u32) + EXTRA_SEGMENTS
    }

    /// The time `len` payload bytes take on the bottleneck, out of `mss` in a full segment.
    pub fn pace(&self, len: u32, mss: u32) -> Dur {
        let full = self.segment_time.as_nanos() as u128;
        Dur((full * len as u128).div_ceil(mss.max(1) as u128) as u64)
    }
}

/// A segment all of whose copies the network dropped, not yet resent, and when it is due.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Loss {
    seq: SeqNum,
    len: u32,
    due: Time,
}

/// What the oracle did (for `summary.json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OracleStats {
    /// Handovers whose truth it was told.
    pub handovers: u64,
    /// Retransmissions of segments the network dropped (its only ones after a handover).
    pub repairs: u64,
    /// The last path it was told of.
    pub path: Option<PathTruth>,
}

/// The oracle's state beside the sender's: the path it was told of, the segments the network
/// dropped, the pacing clock.
#[derive(Clone, Debug, Default)]
pub struct Oracle {
    path: Option<PathTruth>,
    /// Lost segments by sequence number, ascending.
    lost: VecDeque<Loss>,
    /// Segments on an old path at a switch, `(seq, len)` ascending, until acknowledged or
    /// dropped.
    old_path: Vec<(SeqNum, u32)>,
    /// No segment leaves before this instant (pacing at the bottleneck's rate).
    next_send: Time,
    stats: OracleStats,
    /// A path it was told of before the connection was established (a handover during the
    /// handshake): it takes charge with it once established.
    pub pending: Option<PathTruth>,
}

impl Oracle {
    /// Whether a handover has put the oracle in charge (before: the flow's own stack).
    pub fn active(&self) -> bool {
        self.path.is_some()
    }

    pub fn path(&self) -> Option<PathTruth> {
        self.path
    }

    pub fn stats(&self) -> OracleStats {
        self.stats
    }

    /// The world's truth at a handover: from now on the oracle decides. `old_path`: the
    /// segments still on the link left (waiting, on the air, propagating); `lost`: those the
    /// network has dropped and the flow's own stack has not resent, all due now.
    pub fn on_handover(
        &mut self,
        now: Time,
        truth: PathTruth,
        old_path: &[(SeqNum, u32)],
        lost: &[(SeqNum, u32)],
    ) {
        self.lost = lost
            .iter()
            .map(|&(seq, len)| Loss { seq, len, due: now })
            .collect();
        self.lost.make_contiguous().sort_unstable_by_key(|l| l.seq);
        self.old_path.extend(old_path.iter().copied());
        self.old_path.sort_unstable();
        self.old_path.dedup_by_key(|s| s.0);
        self.path = Some(truth);
        self.next_send = now.max(truth.clear_at);
        self.stats.handovers += 1;
        self.stats.path = Some(truth);
    }

    /// Every copy of the segment `[seq, seq + len)` was dropped at `at` (ground truth): it is
    /// due [`REPAIR_AFTER_RTTS`] base RTT later.
    pub fn on_drop(&mut self, seq: SeqNum, len: u32, at: Time) {
        self.old_path.retain(|s| s.0 != seq);
        let r = self.path.map_or(Dur::ZERO, |p| p.base_rtt);
        let due = at + r.saturating_mul(REPAIR_AFTER_RTTS);
        let i = self.lost.partition_point(|l| l.seq < seq);
        match self.lost.get_mut(i) {
            Some(l) if l.seq == seq => *l = Loss { seq, len, due },
            _ => self.lost.insert(i, Loss { seq, len, due }),
        }
    }

    /// Everything below `una` is acknowledged.
    pub fn forget_below(&mut self, una: SeqNum) {
        while self.lost.front().is_some_and(|l| l.seq + l.len <= una) {
            self.lost.pop_front();
        }
        self.old_path.retain(|&(s, l)| s + l > una);
    }

    /// Bytes still on an old path, less what `delivered(seq, end)` says has arrived (SACKed).
    pub fn old_path_bytes(&self, delivered: impl Fn(SeqNum, SeqNum) -> u32) -> u32 {
        self.old_path
            .iter()
            .map(|&(s, l)| l.saturating_sub(delivered(s, s + l)))
            .sum()
    }

    /// Bytes lost and not yet resent: not in the network.
    pub fn lost_bytes(&self) -> u32 {
        self.lost.iter().map(|l| l.len).sum()
    }

    /// The lowest lost segment whose repair is due by `now`.
    pub fn due_repair(&self, now: Time) -> Option<(SeqNum, u32)> {
        self.lost
            .iter()
            .find(|l| l.due <= now)
            .map(|l| (l.seq, l.len))
    }

    /// When the next repair not yet due falls due.
    pub fn next_repair_after(&self, now: Time) -> Option<Time> {
        self.lost.iter().map(|l| l.due).filter(|&t| t > now).min()
    }

    /// Whether pacing lets a segment leave at `now`.
    pub fn may_send(&self, now: Time) -> bool {
        now >= self.next_send
    }

    /// When pacing lets the next segment leave.
    pub fn next_send(&self) -> Time {
        self.next_send
    }

    /// A segment of `len` bytes left at `now`: the repair of the loss at `repaired`, if any.
    pub fn on_sent(&mut self, now: Time, len: u32, mss: u32, repaired: Option<SeqNum>) {
        if let Some(p) = self.path {
            self.next_send = now + p.pace(len, mss);
        }
        if let Some(seq) = repaired {
            self.lost.retain(|l| l.seq != seq);
            self.stats.repairs += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn truth(rtt_ms: u64, seg_ms: u64) -> PathTruth {
        PathTruth {
            base_rtt: Dur::from_millis(rtt_ms),
            segment_time: Dur::from_millis(seg_ms),
            clear_at: Time::ZERO,
        }
    }

    #[test]
    fn the_window_is_the_capacity_rounded_up_plus_one_segment() {
        // Thesis §7.1.3 l.1683-1686: "the capacity of the link plus one segment". 700 ms of
        // RTT at 1.54 s per segment (GSM's 960 B/s, 1480 B): under one segment of capacity,
        // a window of 2; 100 ms at 10 ms per segment: 10 + 1.
        assert_eq!(truth(700, 1540).window_segments(), 2);
        assert_eq!(truth(100, 10).window_segments(), 11);
        assert_eq!(truth(101, 10).window_segments(), 12);
    }

    #[test]
    fn pacing_spaces_segments_by_their_time_on_the_bottleneck() {
        let p = truth(100, 10);
        assert_eq!(p.pace(1460, 1460), Dur::from_millis(10));
        assert_eq!(p.pace(730, 1460), Dur::from_millis(5));
    }

    #[test]
    fn a_drop_is_repaired_one_base_rtt_later_and_forgotten_once_resent_or_acked() {
        // Digest §4.3: retransmitted at t_drop + R_new. What was lost before the handover
        // is due at once.
        let mut o = Oracle::default();
        assert!(!o.active());
        let t = |ms| Time::from_millis(ms);
        o.on_handover(t(30), truth(100, 10), &[], &[(SeqNum(1), 1460)]);
        assert_eq!(o.due_repair(t(30)), Some((SeqNum(1), 1460)));
        o.on_sent(t(30), 1460, 1460, Some(SeqNum(1)));
        assert_eq!(o.stats().repairs, 1);
        o.on_drop(SeqNum(2921), 1460, t(40));
        o.on_drop(SeqNum(1461), 1460, t(50));
        assert_eq!(o.lost_bytes(), 2920);
        assert_eq!(o.due_repair(t(139)), None);
        assert_eq!(o.next_repair_after(t(50)), Some(t(140)));
        assert_eq!(o.due_repair(t(140)), Some((SeqNum(2921), 1460)));
        // The lowest due first.
        assert_eq!(o.due_repair(t(150)), Some((SeqNum(1461), 1460)));
        o.on_sent(t(150), 1460, 1460, Some(SeqNum(1461)));
        assert_eq!(o.due_repair(t(150)), Some((SeqNum(2921), 1460)));
        o.forget_below(SeqNum(4381));
        assert_eq!(o.lost_bytes(), 0);
    }
}
