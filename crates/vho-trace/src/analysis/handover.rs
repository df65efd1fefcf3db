//! Finding a handover in a capture: the instant one direction's data changed path, with the
//! evidence for it (issue 5: "detected from the capture (a change of path visible in RTT,
//! inter-arrival pattern or addresses), and the detection is reported with its evidence").
//!
//! Signals, strongest first; each gives the instant as the time of a data segment, the first
//! one that went the new way, so that t_a can be measured from it (Cottingham & Vidales,
//! `000_2dceaee3c96622fa.txt` §5, "the first data packet received on the new interface"):
//!
//! 1. **tunnel endpoints**: the outer header of the home agent's tunnel names the care-of
//!    address (Mobile IPv6, RFC 6275 §10.4.1; Mobile IPv4, RFC 5944 §4.2.4). A new pair that
//!    holds for [`PERSIST_PACKETS`] data segments is a handover at its first segment.
//! 2. **hop count**: the TTL / hop limit of the data changes and the new value holds for
//!    [`PERSIST_PACKETS`] segments: the path crosses a different number of routers.
//! 3. **round-trip time**: the minimum RTT per [`BIN_NS`] bin, binned by the send time of the
//!    sampled segment, moves by a factor of at least [`RTT_RATIO`]. The instant is the send
//!    time of the first segment sampled at the new level.
//! 4. **data rate**: the data bytes seen per bin move by a factor of at least [`RATE_RATIO`].
//!    The instant is the first segment of the first bin at the new level.
//!
//! The timing signals (3, 4) are found as one change point: the split of the bin series into
//! two constant levels with the least squared error (Scott & Knott 1974; the first step of
//! binary segmentation). They therefore report the largest change only, where the address and
//! hop-count signals report up to [`MAX_CHANGES`] changes.
//!
//! Memory: two bins per 0.1 s of data (the duration of the capture, not its size), and the
//! changes.

use std::net::IpAddr;

use serde::Serialize;

/// Bin width of the timing signals: the 0.1 s of Cottingham & Vidales §5's throughput.
pub const BIN_NS: u64 = 100_000_000;
/// Data segments a new tunnel endpoint or hop count must hold for before it is a change (a
/// single odd packet, e.g. a retransmission that took another route, is not a handover).
pub const PERSIST_PACKETS: u32 = 3;
/// Address and hop-count changes remembered per direction.
pub const MAX_CHANGES: usize = 16;
/// A change of the minimum RTT by this factor is a change of path. A drop-tail queue of one
/// bandwidth-delay product (Daniel & Kojo's Table 1 sizing) at most doubles the base RTT of
/// a path; WLAN (≈ 50 ms) to GPRS (≈ 700 ms) multiplies it by more than ten.
pub const RTT_RATIO: f64 = 3.0;
/// A change of the data rate by this factor is a change of path (WLAN 5 Mb/s against GPRS
/// 64–384 kb/s, `001_b31677fe21b9faf1.txt` §4, differ by 13–80×; congestion-window swings
/// on one path stay within a factor of two, RFC 5681 §3.1's halving).
pub const RATE_RATIO: f64 = 4.0;
/// RTT samples below this are not a path's round trip but an ACK leaving the capture point
/// right after the data (a capture at the receiver): the RTT signal is then not used.
pub const MIN_PATH_RTT_NS: u64 = 1_000_000;
/// Bins each side of a timing change must have.
pub const MIN_SIDE_BINS: usize = 3;
/// The data-rate series is at most this long (29 hours of 0.1 s bins); a longer capture is
/// binned coarser, so that memory follows the bound, not a capture's (or a damaged
/// timestamp's) span.
pub const MAX_RATE_BINS: u64 = 1 << 20;

/// A change of path found in one direction's data.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathChange {
    /// The first data segment that went the new way, in capture time.
    pub at_s: f64,
    /// The last data segment seen the old way: the change happened in (`after_s`, `at_s`].
    pub after_s: f64,
    /// `tunnel-endpoint`, `hop-count`, `rtt`, `data-rate` or `rtt+data-rate`.
    pub signal: &'static str,
    /// What was seen, in one sentence.
    pub evidence: String,
    #[serde(skip)]
    pub at_ns: u64,
}

#[derive(Clone, Copy, Debug)]
struct Bin {
    index: u64,
    first_ns: u64,
    last_ns: u64,
    value: u64,
}

/// A value that changes only when a new one holds for [`PERSIST_PACKETS`] segments.
#[derive(Clone, Debug)]
struct Persistent<T> {
    current: Option<T>,
    /// When `current` was last seen.
    current_ns: u64,
    candidate: Option<(T, u64, u32)>,
    /// (last seen with the old value, first with the new, old, new).
    changes: Vec<(u64, u64, T, T)>,
}

impl<T> Default for Persistent<T> {
    fn default() -> Self {
        Persistent {
            current: None,
            current_ns: 0,
            candidate: None,
            changes: Vec::new(),
        }
    }
}

impl<T: Copy + PartialEq> Persistent<T> {
    fn observe(&mut self, now: u64, v: T) {
        let Some(cur) = self.current else {
            self.current = Some(v);
            self.current_ns = now;
            return;
        };
        if v == cur {
            self.candidate = None;
            self.current_ns = now;
            return;
        }
        let (first, n) = match self.candidate {
            Some((c, first, n)) if c == v => (first, n + 1),
            _ => (now, 1),
        };
        if n >= PERSIST_PACKETS {
            if self.changes.len() < MAX_CHANGES {
                self.changes.push((self.current_ns, first, cur, v));
            }
            self.current = Some(v);
            self.current_ns = now;
            self.candidate = None;
        } else {
            self.candidate = Some((v, first, n));
        }
    }
}

/// The path signals of one direction's data, fed in capture order.
#[derive(Clone, Debug, Default)]
pub struct PathSeries {
    outer: Persistent<Option<(IpAddr, IpAddr)>>,
    ttl: Persistent<u8>,
    rtt: Vec<Bin>,
    rate: Vec<Bin>,
    /// A handover instant given by the user, and the first data segment at or after it.
    given_ns: Option<u64>,
    first_after_given: Option<u64>,
}

impl PathSeries {
    /// With a handover instant known in advance (`--handover-at`).
    pub fn with_given(given_ns: Option<u64>) -> Self {
        PathSeries {
            given_ns,
            ..PathSeries::default()
        }
    }

    /// A data segment of this direction.
    pub fn on_data(&mut self, now: u64, bytes: u64, ttl: u8, outer: Option<(IpAddr, IpAddr)>) {
        self.outer.observe(now, outer);
        self.ttl.observe(now, ttl);
        let index = now / BIN_NS;
        match self.rate.last_mut() {
            // A capture that steps back in time adds to the newest bin: bins stay in order.
            Some(b) if b.index >= index => {
                b.value += bytes;
                b.last_ns = b.last_ns.max(now);
            }
            _ => self.rate.push(Bin {
                index,
                first_ns: now,
                last_ns: now,
                value: bytes,
            }),
        }
        if self.first_after_given.is_none() && self.given_ns.is_some_and(|g| now >= g) {
            self.first_after_given = Some(now);
        }
    }

    /// An RTT sample of a segment sent at `sent_ns`.
    pub fn on_rtt(&mut self, sent_ns: u64, rtt_ns: u64) {
        let index = sent_ns / BIN_NS;
        match self.rtt.last_mut() {
            Some(b) if b.index == index => {
                b.value = b.value.min(rtt_ns);
                b.first_ns = b.first_ns.min(sent_ns);
                b.last_ns = b.last_ns.max(sent_ns);
            }
            // Samples come in ACK order; one of an older bin (rare) joins the newest.
            Some(b) if b.index > index => b.value = b.value.min(rtt_ns),
            _ => self.rtt.push(Bin {
                index,
                first_ns: sent_ns,
                last_ns: sent_ns,
                value: rtt_ns,
            }),
        }
    }

    /// The first data segment at or after the given instant, if one was given.
    pub fn first_after_given_ns(&self) -> Option<u64> {
        self.first_after_given
    }

    /// The changes of path found, in time order: address and hop-count changes, or else the
    /// largest timing change.
    pub fn detect(&self) -> Vec<PathChange> {
        let mut out: Vec<PathChange> = Vec::new();
        let show = |a: &Option<(IpAddr, IpAddr)>| match a {
            Some((s, d)) => format!("{s} -> {d}"),
            None => "none".to_string(),
        };
        for &(before, t, old, new) in &self.outer.changes {
            out.push(PathChange {
                at_s: t as f64 / 1e9,
                after_s: before as f64 / 1e9,
                signal: "tunnel-endpoint",
                evidence: format!("tunnel {} became {}", show(&old), show(&new)),
                at_ns: t,
            });
        }
        for &(before, t, old, new) in &self.ttl.changes {
            out.push(PathChange {
                at_s: t as f64 / 1e9,
                after_s: before as f64 / 1e9,
                signal: "hop-count",
                evidence: format!("TTL / hop limit {old} became {new}"),
                at_ns: t,
            });
        }
        if out.is_empty() {
            out.extend(self.timing_change());
        }
        out.sort_by_key(|c| c.at_ns);
        out
    }

    /// The RTT change, placed by the data-rate change when that falls between the last
    /// segment timed at the old level and one new round trip after the first timed at the new
    /// one: after a handover, Karn's rule leaves the retransmitted segments untimed, so the
    /// RTT alone can be late; and a segment sent up to a round trip before the handover
    /// already sees the new path on its way back, so it can be early. Else the data-rate
    /// change alone.
    fn timing_change(&self) -> Option<PathChange> {
        let rate = self.rate_change();
        let Some((rtt, last_old_ns, new_rtt_ns)) = self.rtt_change() else {
            return rate;
        };
        let until = rtt.at_ns.saturating_add(new_rtt_ns);
        match rate {
            Some(r) if r.at_ns > last_old_ns && r.at_ns <= until => Some(PathChange {
                signal: "rtt+data-rate",
                evidence: format!("{}; {}", rtt.evidence, r.evidence),
                after_s: r.after_s.max(rtt.after_s),
                ..r
            }),
            _ => Some(rtt),
        }
    }

    /// The RTT change, the send time of the last segment timed at the old level, and the
    /// new level's RTT.
    fn rtt_change(&self) -> Option<(PathChange, u64, u64)> {
        let y: Vec<f64> = self
            .rtt
            .iter()
            .map(|b| (b.value.max(1) as f64).ln())
            .collect();
        let (k, lo, hi) = change_point(&y, MIN_SIDE_BINS)?;
        let (before, after) = (lo.exp(), hi.exp());
        let ratio = (after / before).max(before / after);
        if ratio < RTT_RATIO || before.min(after) < MIN_PATH_RTT_NS as f64 {
            return None;
        }
        let (at, last_old) = (self.rtt[k].first_ns, self.rtt[k - 1].last_ns);
        let change = PathChange {
            at_s: at as f64 / 1e9,
            after_s: last_old as f64 / 1e9,
            signal: "rtt",
            evidence: format!(
                "minimum RTT per 0.1 s {:.1} ms before, {:.1} ms after (x{ratio:.1}; {} and {} \
                 bins, geometric means; segments timed at the old level up to {:.3} s)",
                before / 1e6,
                after / 1e6,
                k,
                y.len() - k,
                last_old as f64 / 1e9
            ),
            at_ns: at,
        };
        Some((change, last_old, after as u64))
    }

    fn rate_change(&self) -> Option<PathChange> {
        // Dense bins from the first to the last data bin, the last one excluded: it ends
        // with the capture, not with the path (as §5 drops the last throughput value).
        let (first, last) = (self.rate.first()?.index, self.rate.last()?.index);
        let span = last - first;
        let per = span.div_ceil(MAX_RATE_BINS).max(1);
        let n = usize::try_from(span.div_ceil(per)).ok()?;
        let mut y = vec![0.0; n];
        for b in &self.rate[..self.rate.len() - 1] {
            y[((b.index - first) / per) as usize] += b.value as f64;
        }
        let (k, lo, hi) = change_point(&y, MIN_SIDE_BINS)?;
        let ratio = (hi / lo.max(1e-9)).max(lo / hi.max(1e-9));
        if ratio < RATE_RATIO {
            return None;
        }
        // The first bin of the new level that holds data.
        let from = first + k as u64 * per;
        let i = self.rate.iter().position(|b| b.index >= from)?;
        let bin = self.rate[i];
        let after = if i > 0 {
            self.rate[i - 1].last_ns
        } else {
            bin.first_ns
        };
        let bps = |v: f64| v * 8.0 / (BIN_NS as f64 / 1e9);
        Some(PathChange {
            at_s: bin.first_ns as f64 / 1e9,
            after_s: after as f64 / 1e9,
            signal: "data-rate",
            evidence: format!(
                "data rate {:.0} b/s before, {:.0} b/s after (x{ratio:.1}; {} and {} bins of {} s)",
                bps(lo) / per as f64,
                bps(hi) / per as f64,
                k,
                n - k,
                per as f64 * BIN_NS as f64 / 1e9
            ),
            at_ns: bin.first_ns,
        })
    }
}

/// The split `k` (at least `min_side` values each side) of `y` into `y[..k]` and `y[k..]`
/// with the least total squared error around each part's mean; returns `(k, mean before,
/// mean after)`.
pub fn change_point(y: &[f64], min_side: usize) -> Option<(usize, f64, f64)> {
    let n = y.len();
    if n < 2 * min_side.max(1) {
        return None;
    }
    let m = min_side.max(1);
    let total: f64 = y.iter().sum();
    let mut left = 0.0;
    let mut best: Option<(f64, usize, f64, f64)> = None;
    for k in 1..=n - m {
        left += y[k - 1];
        if k < m {
            continue;
        }
        let (m1, m2) = (left / k as f64, (total - left) / (n - k) as f64);
        // The reduction of the squared error by splitting at k.
        let gain = (k * (n - k)) as f64 / n as f64 * (m1 - m2) * (m1 - m2);
        if best.is_none_or(|b| gain > b.0) {
            best = Some((gain, k, m1, m2));
        }
    }
    best.map(|(_, k, m1, m2)| (k, m1, m2))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn change_point_splits_two_levels_where_they_meet() {
        let y = [1.0, 1.1, 0.9, 1.0, 5.0, 5.2, 4.8, 5.0];
        assert_eq!(change_point(&y, 3).map(|c| c.0), Some(4));
        assert_eq!(change_point(&y[..5], 3), None);
    }

    #[test]
    fn an_rtt_jump_is_a_handover_at_the_first_segment_sent_the_new_way() {
        // WLAN ~50 ms for 3 s, then GPRS ~700 ms: the first slow segment was sent at 3.02 s.
        let mut p = PathSeries::default();
        for i in 0..30 {
            p.on_rtt(i * 100 * MS + 5 * MS, 50 * MS + i % 3 * MS);
        }
        for i in 0..20 {
            p.on_rtt(3_020 * MS + i * 100 * MS, 700 * MS);
        }
        let c = p.detect();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].signal, c[0].at_ns), ("rtt", 3_020 * MS));
        assert!(
            c[0].evidence.contains("700.0 ms after"),
            "{}",
            c[0].evidence
        );
    }

    #[test]
    fn rtt_noise_on_one_path_is_not_a_handover() {
        // A queue filling and draining: 40..80 ms, under RTT_RATIO.
        let mut p = PathSeries::default();
        for i in 0..60u64 {
            p.on_rtt(i * 100 * MS, (40 + (i * 7) % 41) * MS);
        }
        assert!(p.detect().is_empty());
    }

    #[test]
    fn acks_right_after_the_data_say_nothing_about_the_path() {
        // A capture at the receiver: samples of microseconds, then of the delayed-ACK timer.
        let mut p = PathSeries::default();
        for i in 0..30 {
            p.on_rtt(i * 100 * MS, 20_000);
        }
        for i in 30..60 {
            p.on_rtt(i * 100 * MS, 100 * MS);
        }
        assert!(p.rtt_change().is_none());
    }

    #[test]
    fn the_data_rate_places_an_rtt_change_that_karn_left_late() {
        // Sender side: 50 ms samples up to 2.0 s; the segments sent 2.0-4.5 s were
        // retransmitted (untimed, RFC 6298 §3); the data rate falls at 2.05 s.
        let mut p = PathSeries::default();
        for i in 0..2_000u64 {
            p.on_data(i * MS, 625, 64, None);
            if i % 100 == 0 {
                p.on_rtt(i * MS, 50 * MS);
            }
        }
        for i in 0..40u64 {
            p.on_data(2_050 * MS + i * 100 * MS, 1460, 64, None);
        }
        for i in 0..10u64 {
            p.on_rtt(4_500 * MS + i * 100 * MS, 800 * MS);
        }
        let c = p.detect();
        assert_eq!((c[0].signal, c[0].at_ns), ("rtt+data-rate", 2_050 * MS));
        assert_eq!(c[0].after_s, 1.999);
    }

    #[test]
    fn a_rate_drop_at_the_receiver_is_a_handover_at_the_first_slow_bin() {
        // 5 Mb/s (62.5 kB per 0.1 s) for 2 s, then one 1460-byte segment every 0.2 s.
        let mut p = PathSeries::default();
        for i in 0..2_000u64 {
            p.on_data(i * MS + MS / 2, 62_500 / 100, 64, None);
        }
        for i in 0..20u64 {
            p.on_data(2_050 * MS + i * 200 * MS, 1460, 64, None);
        }
        let c = p.detect();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].signal, c[0].at_ns), ("data-rate", 2_050 * MS));
    }

    #[test]
    fn a_new_tunnel_endpoint_that_holds_is_a_handover_and_one_odd_packet_is_not() {
        // RFC 6275 §10.4.1: the home agent tunnels to the care-of address.
        let ha: IpAddr = "10.0.0.1".parse().expect("addr");
        let coa1: IpAddr = "10.1.0.2".parse().expect("addr");
        let coa2: IpAddr = "10.2.0.2".parse().expect("addr");
        let mut p = PathSeries::default();
        for i in 0..10 {
            p.on_data(i * MS, 1460, 63, Some((ha, coa1)));
        }
        p.on_data(10 * MS, 1460, 63, Some((ha, coa2)));
        for i in 11..15 {
            p.on_data(i * MS, 1460, 63, Some((ha, coa1)));
        }
        assert!(p.detect().iter().all(|c| c.signal != "tunnel-endpoint"));
        for i in 15..20 {
            p.on_data(i * MS, 1460, 63, Some((ha, coa2)));
        }
        let c = p.detect();
        assert_eq!((c[0].signal, c[0].at_ns), ("tunnel-endpoint", 15 * MS));
        assert_eq!(
            c[0].evidence,
            "tunnel 10.0.0.1 -> 10.1.0.2 became 10.0.0.1 -> 10.2.0.2"
        );
    }

    #[test]
    fn the_first_data_after_a_given_instant_is_remembered() {
        let mut p = PathSeries::with_given(Some(25 * MS));
        for i in 0..5 {
            p.on_data(i * 10 * MS, 100, 64, None);
        }
        assert_eq!(p.first_after_given_ns(), Some(30 * MS));
    }
}
