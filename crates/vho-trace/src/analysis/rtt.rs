//! Round-trip time samples from a capture, two ways:
//!
//! - data/ACK pairs: a segment's first transmission time to the first cumulative ACK that
//!   covers it, never from a segment sent more than once (Karn & Partridge 1987; RFC 6298 §3:
//!   "RTT samples MUST NOT be made using segments that were retransmitted");
//! - timestamps (RFC 7323 §4.1, RTTM): the time since the TSval that an ACK's TSecr echoes
//!   was first sent, taken only from ACKs that advance the cumulative ACK (RFC 7323 §4.1:
//!   TSecr is used only "if the segment advances the left edge of the send window").
//!
//! Memory is bounded by the data in flight: at most [`MAX_UNACKED`] segments and
//! [`MAX_TSVALS`] distinct TSvals are remembered per direction.

use std::collections::VecDeque;

use serde::Serialize;

use super::tcp_analysis::{seq_gt, seq_le, seq_lt};

/// Unacknowledged segments remembered per direction: Wireshark's
/// `TCP_MAX_UNACKED_SEGMENTS` (10000); beyond it (ACKs not captured) new segments are not
/// timed.
pub const MAX_UNACKED: usize = 10_000;
/// Distinct TSvals remembered per direction awaiting their echo (one per segment in flight
/// at most; bounded like [`MAX_UNACKED`]).
pub const MAX_TSVALS: usize = MAX_UNACKED;

/// Summary of RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RttStats {
    pub samples: u64,
    pub min_s: Option<f64>,
    pub mean_s: Option<f64>,
    pub max_s: Option<f64>,
    #[serde(skip)]
    sum_ns: u128,
    #[serde(skip)]
    min_ns: u64,
    #[serde(skip)]
    max_ns: u64,
}

impl RttStats {
    pub fn add(&mut self, ns: u64) {
        if self.samples == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.sum_ns += u128::from(ns);
        self.samples += 1;
        let s = |v: f64| Some(v / 1e9);
        self.min_s = s(self.min_ns as f64);
        self.max_s = s(self.max_ns as f64);
        self.mean_s = s(self.sum_ns as f64 / self.samples as f64);
    }
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u32,
    end: u32,
    first_ns: u64,
    retransmitted: bool,
}

/// RTT sampling for the data one direction sends.
#[derive(Clone, Debug, Default)]
pub struct RttSampler {
    /// Unacked segments in sequence order, not overlapping.
    sent: VecDeque<Sent>,
    /// Highest sequence number sent (end of data), once anything was sent.
    high: Option<u32>,
    /// (TSval, first time seen) in send order.
    tsvals: VecDeque<(u32, u64)>,
    /// Samples from data/ACK pairs (Karn-safe).
    pub seq: RttStats,
    /// Samples from TSecr.
    pub ts: RttStats,
}

impl RttSampler {
    /// A segment occupying `[seq, end)` (SYN/FIN count one) sent at `now`.
    pub fn on_send(&mut self, now: u64, seq: u32, end: u32) {
        if seq == end {
            return;
        }
        let high = *self.high.get_or_insert(seq);
        if seq_lt(seq, high) {
            // Karn: everything this overlaps is now ambiguous. `sent` is in sequence order,
            // so the overlapped ones are a run found by binary search (a retransmission
            // into 10,000 segments in flight costs their log, not their number).
            let from = match self.sent.front() {
                Some(f) if seq_gt(seq, f.seq) => self.sent.partition_point(|s| seq_le(s.end, seq)),
                _ => 0,
            };
            for s in self.sent.range_mut(from..) {
                if !seq_lt(s.seq, end) {
                    break;
                }
                s.retransmitted = true;
            }
        }
        if seq_gt(end, high) {
            let start = if seq_lt(seq, high) { high } else { seq };
            if self.sent.len() < MAX_UNACKED {
                self.sent.push_back(Sent {
                    seq: start,
                    end,
                    first_ns: now,
                    // Part of it was sent before: ambiguous too.
                    retransmitted: start != seq,
                });
            }
            self.high = Some(end);
        }
    }

    /// A cumulative ACK from the other side at `now`; samples the newest segment it fully
    /// covers, if that segment was sent once. Returns the sample as (send time, RTT).
    pub fn on_ack(&mut self, now: u64, ack: u32) -> Option<(u64, u64)> {
        let mut newest = None;
        while let Some(front) = self.sent.front_mut() {
            if seq_le(front.end, ack) {
                newest = self.sent.pop_front();
            } else {
                if seq_gt(ack, front.seq) {
                    front.seq = ack;
                }
                break;
            }
        }
        let s = newest.filter(|s| !s.retransmitted && now >= s.first_ns)?;
        self.seq.add(now - s.first_ns);
        Some((s.first_ns, now - s.first_ns))
    }

    /// A TSval this direction sent at `now` on a segment that occupies sequence space.
    pub fn on_tsval(&mut self, now: u64, tsval: u32) {
        let newer = match self.tsvals.back() {
            Some(&(v, _)) => seq_gt(tsval, v),
            None => true,
        };
        if newer && self.tsvals.len() < MAX_TSVALS {
            self.tsvals.push_back((tsval, now));
        }
    }

    /// A TSecr from the other side at `now`; `advanced` if that ACK moved the cumulative ACK.
    /// Returns the sample as (send time of the echoed TSval, RTT).
    pub fn on_tsecr(&mut self, now: u64, tsecr: u32, advanced: bool) -> Option<(u64, u64)> {
        let mut matched = None;
        while let Some(&(v, t)) = self.tsvals.front() {
            if seq_le(v, tsecr) {
                self.tsvals.pop_front();
                if v == tsecr {
                    matched = Some(t);
                }
            } else {
                break;
            }
        }
        let t = matched?;
        if !advanced {
            // Not advancing: keep the TSval for a later ACK that does.
            self.tsvals.push_front((tsecr, t));
            return None;
        }
        if now < t {
            return None;
        }
        self.ts.add(now - t);
        Some((t, now - t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_clean_segment_gives_one_sample_from_its_first_send_to_its_ack() {
        // RFC 6298 §2: R is measured from send to the ACK that covers it.
        let mut r = RttSampler::default();
        r.on_send(0, 1000, 2000);
        r.on_send(MS, 2000, 3000);
        r.on_ack(50 * MS, 3000);
        assert_eq!(r.seq.samples, 1);
        assert_eq!(r.seq.min_s, Some(0.049));
    }

    #[test]
    fn karn_no_sample_from_a_retransmitted_segment() {
        // RFC 6298 §3: samples MUST NOT be made using retransmitted segments.
        let mut r = RttSampler::default();
        r.on_send(0, 1000, 2000);
        r.on_send(300 * MS, 1000, 2000);
        r.on_ack(350 * MS, 2000);
        assert_eq!(r.seq.samples, 0);
        // The next, clean segment is timed again.
        r.on_send(360 * MS, 2000, 3000);
        r.on_ack(400 * MS, 3000);
        assert_eq!(r.seq.samples, 1);
        assert_eq!(r.seq.max_s, Some(0.04));
    }

    #[test]
    fn tsecr_samples_only_when_the_ack_advances() {
        // RFC 7323 §4.1: use TSecr only from segments advancing the left edge.
        let mut r = RttSampler::default();
        r.on_tsval(0, 100);
        r.on_tsecr(10 * MS, 100, false);
        assert_eq!(r.ts.samples, 0);
        r.on_tsecr(30 * MS, 100, true);
        assert_eq!(r.ts.samples, 1);
        assert_eq!(r.ts.mean_s, Some(0.03));
    }

    proptest::proptest! {
        #[test]
        fn karn_marks_exactly_the_segments_a_resend_overlaps(
            start in proptest::prelude::any::<u32>(),
            n in 1u32..60,
            resend in (0u32..70_000, 1u32..5_000),
        ) {
            // RFC 6298 §3: every segment the resend overlaps is ambiguous, no other.
            let mut r = RttSampler::default();
            for i in 0..n {
                let seq = start.wrapping_add(1000 * i);
                r.on_send(u64::from(i), seq, seq.wrapping_add(1000));
            }
            let (at, len) = resend;
            let (seq, end) = (start.wrapping_add(at), start.wrapping_add(at + len));
            r.on_send(1_000, seq, end);
            for s in r.sent.iter().take(n as usize) {
                let overlaps = seq_lt(s.seq, end) && seq_gt(s.end, seq);
                proptest::prop_assert_eq!(s.retransmitted, overlaps, "{:?}", s);
            }
        }
    }
}
