//! Finding a handover in a capture: the instant one direction's data changed path, with the
//! evidence for it (issue 5: "detected from the capture (a change of path visible in RTT,
//! inter-arrival pattern or addresses), and the detection is reported with its evidence").
//!
//! Signals, strongest first; each gives the instant as the time of a data segment, the first
//! one that went the new way, so that t_a can be measured from it (Cottingham & Vidales,
//! `000_2dceaee3c96622fa.txt` §5, "the first data packet received on the new interface"):
//!
//! 1. **tunnel endpoints**: the outer header of the home agent's tunnel names the care-of
//!    address (Mobile IPv6, RFC 6275 §10.4.1; Mobile IPv4, RFC 5944 §4.2.4), and so does the
//!    wire header of a route-optimised packet, whose home address is in an extension header
//!    (RFC 6275 §6.3, §6.4; see [`crate::decode::ip`]). A new pair that holds for
//!    [`PERSIST_PACKETS`] data segments is a handover at its first segment (a tunnel giving
//!    way to route optimisation on the same care-of address is one too: the path changed).
//! 2. **hop count**: the TTL / hop limit of the data changes and the new value holds for
//!    [`PERSIST_PACKETS`] segments: the path crosses a different number of routers.
//! 3. **round-trip time**: the minimum RTT per [`BIN_NS`] bin, binned by the send time of the
//!    sampled segment, moves by a factor of at least [`RTT_RATIO`]. The instant is the send
//!    time of the first segment sampled at the new level.
//! 4. **data rate**: the data bytes seen per bin move by a factor of at least [`RATE_RATIO`].
//!    The instant is the first segment of the first bin at the new level.
//!
//! The timing signals (3, 4) are found as change points: the split of the bin series into
//! two constant levels with the least squared error (Scott & Knott 1974; the first step of
//! binary segmentation). A path that changes and changes back (a slow link for a few seconds
//! inside a fast transfer) averages away in one split; the data rate then looks for the
//! segment that differs from both its sides (the "epidemic" alternative of change-point
//! analysis, Levin & Kline 1985), and each level found is searched again, up to
//! [`MAX_CHANGES`] changes. A level of lower rate counts only if data crossed in at least a
//! third of its bins: a stall of the sender (a retransmission timeout) is no path.
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
/// Bins a level must have for a further change to be looked for within it, or for the
/// segment of a there-and-back change: 1 s. Shorter levels are a sender's slow start or a
/// recovery, not a path.
pub const MIN_LEVEL_BINS: usize = 10;
/// The data-rate series is at most this long (29 hours of 0.1 s bins); a longer capture is
/// binned coarser, so that memory follows the bound, not a capture's (or a damaged
/// timestamp's) span.
pub const MAX_RATE_BINS: u64 = 1 << 20;
/// The longest series the segment search of a there-and-back change looks at (its cost is
/// quadratic): 6.8 minutes of 0.1 s bins. A longer capture gets the one change point only.
pub const MAX_EPIDEMIC_BINS: usize = 4096;

/// A change of path found in one direction's data.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathChange {
    /// The first data segment that went the new way, in capture time.
    pub at_s: f64,
    /// The adaptation time measured from `at_s` (Cottingham & Vidales §5), filled in by the
    /// flow's analysis.
    pub adaptation_time_s: Option<f64>,
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
                adaptation_time_s: None,
                evidence: format!(
                    "tunnel / care-of addresses {} became {}",
                    show(&old),
                    show(&new)
                ),
                at_ns: t,
            });
        }
        for &(before, t, old, new) in &self.ttl.changes {
            out.push(PathChange {
                at_s: t as f64 / 1e9,
                after_s: before as f64 / 1e9,
                signal: "hop-count",
                adaptation_time_s: None,
                evidence: format!("TTL / hop limit {old} became {new}"),
                at_ns: t,
            });
        }
        if out.is_empty() {
            let rates = self.rate_changes();
            if rates.len() > 1 {
                // There and back (or more): the data rate places each change; one RTT change
                // point would average them away.
                out.extend(rates);
            } else {
                out.extend(self.timing_change(rates.into_iter().next()));
            }
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
    fn timing_change(&self, rate: Option<PathChange>) -> Option<PathChange> {
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
            adaptation_time_s: None,
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

    /// The data-rate changes, in time order (see the module doc).
    fn rate_changes(&self) -> Vec<PathChange> {
        let Some((y, first, per)) = self.rate_series() else {
            return Vec::new();
        };
        let mut cuts: Vec<(usize, f64, f64)> = Vec::new();
        rate_cuts(&y, 0, y.len(), MIN_SIDE_BINS, &mut cuts);
        cuts.sort_by_key(|c| c.0);
        let bps = |v: f64| v * 8.0 / (BIN_NS as f64 / 1e9) / per as f64;
        let mut out = Vec::new();
        let mean = |a: usize, b: usize| y[a..b].iter().sum::<f64>() / (b - a).max(1) as f64;
        for (n, &(k, _, _)) in cuts.iter().enumerate() {
            // The first bin of the new level that holds data.
            let from = first + k as u64 * per;
            let Some(i) = self.rate.iter().position(|b| b.index >= from) else {
                continue;
            };
            let bin = self.rate[i];
            let prev = if i > 0 {
                self.rate[i - 1].last_ns
            } else {
                bin.first_ns
            };
            let (lo_k, hi_k) = (
                if n > 0 { cuts[n - 1].0 } else { 0 },
                cuts.get(n + 1).map_or(y.len(), |c| c.0),
            );
            // The levels each side, between this cut and its neighbours.
            let (before, after) = (mean(lo_k, k), mean(k, hi_k));
            let ratio = (after / before.max(1e-9)).max(before / after.max(1e-9));
            out.push(PathChange {
                at_s: bin.first_ns as f64 / 1e9,
                after_s: prev as f64 / 1e9,
                adaptation_time_s: None,
                signal: "data-rate",
                evidence: format!(
                    "data rate {:.0} b/s before, {:.0} b/s after (x{ratio:.1}; {} and {} bins of \
                     {} s)",
                    bps(before),
                    bps(after),
                    k - lo_k,
                    hi_k - k,
                    per as f64 * BIN_NS as f64 / 1e9
                ),
                at_ns: bin.first_ns,
            });
        }
        out
    }

    /// Data bytes per bin from the first data bin to the last, the last one excluded (it ends
    /// with the capture, not with the path, as §5 drops the last throughput value); bins are
    /// merged `per` at a time so that there are at most [`MAX_RATE_BINS`]. `(y, first bin
    /// index, per)`.
    fn rate_series(&self) -> Option<(Vec<f64>, u64, u64)> {
        let (first, last) = (self.rate.first()?.index, self.rate.last()?.index);
        let span = last - first;
        let per = span.div_ceil(MAX_RATE_BINS).max(1);
        let n = usize::try_from(span.div_ceil(per)).ok()?;
        let mut y = vec![0.0; n];
        for b in &self.rate[..self.rate.len() - 1] {
            y[((b.index - first) / per) as usize] += b.value as f64;
        }
        Some((y, first, per))
    }
}

/// A level of lower data rate that is a path, not a stall: data in at least a third of its
/// first second of bins (and in [`MIN_SIDE_BINS`] of them). A slow link carries data from
/// the moment it takes over; a sender stalled by a retransmission timeout sends nothing at
/// first. (What follows may be a stall on the slow path: its backed-off timer can keep the
/// sender quiet for seconds, even after the path is fast again, thesis §7.2.)
fn carries_data(y: &[f64]) -> bool {
    let head = &y[..y.len().min(MIN_LEVEL_BINS)];
    let with = head.iter().filter(|&&v| v > 0.0).count();
    with >= MIN_SIDE_BINS.min(head.len()) && 3 * with >= head.len()
}

/// The cuts of `y[a..b]` into levels that differ by [`RATE_RATIO`]: `(index, mean before, mean
/// after)` each, found by one change point, else by the segment that differs from both sides,
/// then again within each level; at most [`MAX_CHANGES`].
fn rate_cuts(y: &[f64], a: usize, b: usize, min_side: usize, out: &mut Vec<(usize, f64, f64)>) {
    if out.len() >= MAX_CHANGES {
        return;
    }
    let part = &y[a..b];
    let differs = |x: f64, z: f64| (x / z.max(1e-9)).max(z / x.max(1e-9)) >= RATE_RATIO;
    let low_carries = |l: &[f64], lm: f64, h: &[f64], hm: f64| {
        if lm < hm {
            carries_data(l)
        } else {
            carries_data(h)
        }
    };
    if let Some((k, m1, m2)) = change_point(part, min_side) {
        if differs(m1, m2) && low_carries(&part[..k], m1, &part[k..], m2) {
            out.push((a + k, m1, m2));
            rate_cuts(y, a, a + k, MIN_LEVEL_BINS, out);
            rate_cuts(y, a + k, b, MIN_LEVEL_BINS, out);
            return;
        }
    }
    if let Some((i, j, inner, outer)) = epidemic_coarse(part, min_side) {
        let mut rest: Vec<f64> = part[..i].to_vec();
        rest.extend_from_slice(&part[j..]);
        if differs(inner, outer) && low_carries(&part[i..j], inner, &rest, outer) {
            let before = part[..i].iter().sum::<f64>() / i as f64;
            let after = part[j..].iter().sum::<f64>() / (part.len() - j) as f64;
            out.push((a + i, before, inner));
            out.push((a + j, inner, after));
            rate_cuts(y, a, a + i, MIN_LEVEL_BINS, out);
            rate_cuts(y, a + i, a + j, MIN_LEVEL_BINS, out);
            rate_cuts(y, a + j, b, MIN_LEVEL_BINS, out);
        }
    }
}

/// [`epidemic`] on `y` merged into at most [`MAX_EPIDEMIC_BINS`] bins (the means are per
/// original bin), its bounds mapped back.
fn epidemic_coarse(y: &[f64], min_side: usize) -> Option<(usize, usize, f64, f64)> {
    let f = y.len().div_ceil(MAX_EPIDEMIC_BINS).max(1);
    if f == 1 {
        return epidemic(y, min_side);
    }
    let coarse: Vec<f64> = y
        .chunks(f)
        .map(|c| c.iter().sum::<f64>() / f as f64)
        .collect();
    let (i, j, inner, outer) = epidemic(&coarse, min_side.div_ceil(f))?;
    Some((i * f, (j * f).min(y.len()), inner, outer))
}

/// The segment `y[i..j]` (at least `min_side` values, and as many each side of it) whose
/// mean differs most from the rest's, by the reduction of the squared error; `(i, j, mean
/// inside, mean outside)`. Quadratic in `y.len()`, which [`MAX_EPIDEMIC_BINS`] bounds.
pub fn epidemic(y: &[f64], min_side: usize) -> Option<(usize, usize, f64, f64)> {
    let n = y.len();
    let m = min_side.max(1);
    if n < 3 * m || n > MAX_EPIDEMIC_BINS {
        return None;
    }
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0.0);
    for v in y {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + v);
    }
    let total = prefix[n];
    let mut best: Option<(f64, usize, usize, f64, f64)> = None;
    for i in m..=n - 2 * m {
        for j in i + m..=n - m {
            let (k, rest) = ((j - i) as f64, (n - (j - i)) as f64);
            let inner = (prefix[j] - prefix[i]) / k;
            let outer = (total - (prefix[j] - prefix[i])) / rest;
            let gain = k * rest / n as f64 * (inner - outer) * (inner - outer);
            if best.is_none_or(|b| gain > b.0) {
                best = Some((gain, i, j, inner, outer));
            }
        }
    }
    best.map(|(_, i, j, inner, outer)| (i, j, inner, outer))
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

    /// Data at `bytes_per_ms` every millisecond from `from_ms` to `to_ms` (exclusive).
    fn steady(p: &mut PathSeries, from_ms: u64, to_ms: u64, bytes_per_ms: u64) {
        for t in from_ms..to_ms {
            p.on_data(t * MS + MS / 2, bytes_per_ms, 64, None);
        }
    }

    /// One segment every `every_ms` from `from_ms` to `to_ms`.
    fn sparse(p: &mut PathSeries, from_ms: u64, to_ms: u64, every_ms: u64) {
        for t in (from_ms..to_ms).step_by(every_ms as usize) {
            p.on_data(t * MS + MS / 4, 1460, 64, None);
        }
    }

    #[test]
    fn a_slow_link_there_and_back_is_two_handovers() {
        // Issue 18: 5 Mb/s for 10 s, about 117 kb/s (one segment per 0.1 s) for 4 s, 5 Mb/s
        // for 10 s: one change point over the whole capture averages the slow 4 s away; the
        // segment that differs from both sides gives both instants.
        let mut p = PathSeries::default();
        steady(&mut p, 0, 10_000, 625);
        sparse(&mut p, 10_000, 14_000, 100);
        steady(&mut p, 14_000, 24_000, 625);
        let c = p.detect();
        let at: Vec<u64> = c.iter().map(|c| c.at_ns / MS).collect();
        assert_eq!(at, [10_000, 14_000], "{c:?}");
        assert!(c.iter().all(|c| c.signal == "data-rate"));
    }

    #[test]
    fn two_round_trips_to_the_slow_link_are_four_handovers() {
        let mut p = PathSeries::default();
        steady(&mut p, 0, 6_000, 625);
        sparse(&mut p, 6_000, 9_000, 100);
        steady(&mut p, 9_000, 15_000, 625);
        sparse(&mut p, 15_000, 19_000, 100);
        steady(&mut p, 19_000, 25_000, 625);
        let at: Vec<u64> = p.detect().iter().map(|c| c.at_ns / MS).collect();
        assert_eq!(at, [6_000, 9_000, 15_000, 19_000]);
    }

    #[test]
    fn a_sender_stalled_by_a_timeout_is_no_handover() {
        // A retransmission timeout: 1.5 s without data, then slow start back to the rate.
        let mut p = PathSeries::default();
        steady(&mut p, 0, 8_000, 625);
        for (k, t) in (9_500..9_800u64).step_by(100).enumerate() {
            p.on_data(t * MS, 1460 << k, 64, None);
        }
        steady(&mut p, 9_800, 18_000, 625);
        assert!(p.detect().is_empty(), "{:?}", p.detect());
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
            "tunnel / care-of addresses 10.0.0.1 -> 10.1.0.2 became 10.0.0.1 -> 10.2.0.2"
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
