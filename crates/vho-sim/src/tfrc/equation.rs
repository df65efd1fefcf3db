//! The TCP throughput equation of RFC 5348 §3.1, its inverse (the loss event rate that gives a
//! rate, for the first loss interval of §6.3.1) and the initial window of §4.2.
//!
//! Rates are bytes per second in `f64`; times enter as `Dur` and leave the clock here, once.

use crate::time::Dur;

/// RFC 5348 §3.1, exactly as written:
///
/// ```text
///                               s
/// X_Bps = ----------------------------------------------------------
///         R*sqrt(2*b*p/3) + (t_RTO * (3*sqrt(3*b*p/8)*p*(1+32*p^2)))
/// ```
///
/// `s` the segment size in bytes, `r` the round-trip time R, `p` the loss event rate (0 < p
/// <= 1), `b` the packets acknowledged by one TCP ACK, `t_rto` the TCP retransmission timeout
/// t_RTO (§3.1: "t_RTO = 4*R", b = 1). The result is X_Bps, in bytes per second. With p = 0
/// the equation has no finite value: `f64::INFINITY` (callers never ask for it: §4.3 uses the
/// equation only when p > 0).
pub fn throughput(s: u32, r: Dur, p: f64, b: f64, t_rto: Dur) -> f64 {
    let s = s as f64;
    let r = r.as_secs_f64();
    let t_rto = t_rto.as_secs_f64();
    // R*sqrt(2*b*p/3): the loss-driven window halving of TCP's congestion avoidance.
    let halving = r * (2.0 * b * p / 3.0).sqrt();
    // t_RTO * (3*sqrt(3*b*p/8)) * p * (1+32*p^2): the time spent in retransmission timeouts.
    let timeouts = t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    s / (halving + timeouts)
}

/// The loss event rate p for which `throughput(s, r, p, b, t_rto)` is `x` bytes per second
/// (RFC 5348 §6.3.1: "TFRC does this by finding some value, p, for which the throughput
/// equation in Section 3.1 gives a sending rate within 5% of X_recv"). Found by bisection on
/// log p over [1e-12, 1] (the equation falls strictly as p grows), 200 halvings: well within
/// the RFC's 5 %, and the same answer on every machine. A rate the equation cannot reach at
/// p = 1 gives 1; a rate above its value at p = 1e-12 gives 1e-12.
pub fn loss_rate_for(x: f64, s: u32, r: Dur, b: f64, t_rto: Dur) -> f64 {
    const P_MIN: f64 = 1e-12;
    if throughput(s, r, 1.0, b, t_rto) >= x {
        return 1.0;
    }
    if throughput(s, r, P_MIN, b, t_rto) <= x {
        return P_MIN;
    }
    let (mut lo, mut hi) = (P_MIN.ln(), 0.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if throughput(s, r, mid.exp(), b, t_rto) > x {
            lo = mid; // rate still too high: more loss needed
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// W_init of RFC 5348 §4.2 (after RFC 3390): "W_init = min(4*s, max(2*s, 4380))" bytes; the
/// initial rate is W_init/R.
pub fn initial_window(s: u32) -> u32 {
    (4 * s).min((2 * s).max(4380))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    // ---- Tests for the throughput equation (RFC 5348 §3.1) ----

    #[test]
    fn equation_matches_hand_computed_value_at_one_percent_loss() {
        // RFC 5348 §3.1 with s = 1000 B, R = 100 ms, p = 0.01, b = 1, t_RTO = 4R = 0.4 s:
        //   R*sqrt(2*b*p/3)       = 0.1 * sqrt(0.0066667)      = 0.1 * 0.0816497 = 0.00816497
        //   3*sqrt(3*b*p/8)       = 3 * sqrt(0.00375)          = 3 * 0.0612372   = 0.1837117
        //   p*(1+32*p^2)          = 0.01 * 1.0032                               = 0.010032
        //   t_RTO * 0.1837117 * 0.010032                       = 0.4 * 0.0018430 = 0.00073720
        //   X_Bps = 1000 / (0.00816497 + 0.00073720) = 1000 / 0.00890217        = 112332 B/s
        let x = throughput(
            1000,
            Dur::from_millis(100),
            0.01,
            1.0,
            Dur::from_millis(400),
        );
        assert!(rel(x, 112_332.0) < 1e-5, "{x}");
    }

    #[test]
    fn equation_matches_hand_computed_value_at_ten_percent_loss() {
        // Same, p = 0.1: 0.1*sqrt(0.066667) = 0.0258199; 3*sqrt(0.0375) = 0.580948;
        // p*(1+32p^2) = 0.1*1.32 = 0.132; 0.4*0.580948*0.132 = 0.0306740;
        // X_Bps = 1000 / 0.0564939 = 17701 B/s (the timeout term now dominates).
        let x = throughput(1000, Dur::from_millis(100), 0.1, 1.0, Dur::from_millis(400));
        assert!(rel(x, 17_701.0) < 1e-4, "{x}");
    }

    #[test]
    fn inverse_gives_back_the_rate() {
        // RFC 5348 §6.3.1: the p found for X_recv must give X_recv back (within 5 %; ours is
        // exact to far better than 1e-9).
        let (r, t_rto) = (Dur::from_millis(100), Dur::from_millis(400));
        for p in [1e-5, 1e-3, 0.01, 0.05, 0.2, 0.9] {
            let x = throughput(1000, r, p, 1.0, t_rto);
            let back = loss_rate_for(x, 1000, r, 1.0, t_rto);
            assert!(rel(back, p) < 1e-9, "p {p} -> {back}");
            assert!(rel(throughput(1000, r, back, 1.0, t_rto), x) < 1e-9);
        }
        // Out of range: a rate the equation cannot go below gives p = 1.
        assert_eq!(loss_rate_for(1.0, 1000, r, 1.0, t_rto), 1.0);
    }

    #[test]
    fn initial_window_follows_rfc3390() {
        // RFC 5348 §4.2: min(4*s, max(2*s, 4380)).
        assert_eq!(initial_window(1000), 4000);
        assert_eq!(initial_window(1460), 4380);
        assert_eq!(initial_window(3000), 6000);
        assert_eq!(initial_window(500), 2000);
    }
}
