//! LIA, the Linked Increases Algorithm (RFC 6356): the subflows' congestion avoidance coupled
//! so that the connection takes no more than one TCP would on its best path, and moves its
//! traffic away from the more congested paths. Applied over each subflow's own Reno/NewReno
//! (RFC 6356 §3 keeps Reno's slow start, fast retransmit and decrease): on an ACK in
//! congestion avoidance, the subflow's increase is capped at LIA's.

/// What LIA reads of one subflow: its window (bytes) and smoothed RTT (ns, > 0).
#[derive(Clone, Copy, Debug)]
pub struct Path {
    pub cwnd: u32,
    pub srtt_ns: u64,
}

/// RFC 6356 §3's alpha: cwnd_total · max_i(cwnd_i / rtt_i²) / (Σ_i cwnd_i / rtt_i)².
pub fn alpha(paths: &[Path]) -> f64 {
    let total: f64 = paths.iter().map(|p| f64::from(p.cwnd)).sum();
    let rtt = |p: &Path| p.srtt_ns as f64 / 1e9;
    let best = paths
        .iter()
        .map(|p| f64::from(p.cwnd) / (rtt(p) * rtt(p)))
        .fold(0.0, f64::max);
    let sum: f64 = paths.iter().map(|p| f64::from(p.cwnd) / rtt(p)).sum();
    if sum == 0.0 {
        return 1.0;
    }
    total * best / (sum * sum)
}

/// RFC 6356 §3: for `acked` bytes acknowledged on a subflow whose window is `cwnd` and whose
/// segments are `mss` bytes, the increase is min(alpha · acked · mss / cwnd_total,
/// acked · mss / cwnd); the second term is Reno's own. Bytes.
pub fn increase(alpha: f64, acked: u64, mss: u32, cwnd: u32, cwnd_total: u64) -> u64 {
    let coupled = alpha * acked as f64 * f64::from(mss) / (cwnd_total.max(1) as f64);
    let reno = acked as f64 * f64::from(mss) / f64::from(cwnd.max(1));
    coupled.min(reno) as u64
}
