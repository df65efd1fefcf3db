//! t_RTO as ns-2.35's Agent/TFRC computes it for its equation (`tzero_`, `update_rtt` in
//! tcp/tfrc.cc): TCP's estimator in integer clock ticks (`tcp_tick_`, 100 ms by default),
//! srtt in eighths and rttvar in quarters of a tick (`T_SRTT_BITS 3`, `T_RTTVAR_BITS 2`),
//! t_RTO = (srtt + 4*rttvar) ticks (`rttvar_exp_ 2`), no floor (`minrto_ 0`). The `ns2`
//! profile's deviation from RFC 5348 §3.1's t_RTO = 4*R: for a steady 100 ms RTT it gives
//! 0.3 s where the RFC gives 0.4 s, which matters where the equation's timeout term does
//! (high p).

use crate::time::Dur;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Rto {
    /// Smoothed RTT in eighths of a tick; 0 before the first sample (`srtt_init_ 0`).
    t_srtt: i64,
    /// RTT variation in quarters of a tick.
    t_rttvar: i64,
}

impl Ns2Rto {
    /// One RTT sample (`now - tao` in update_rtt).
    pub fn on_sample(&mut self, sample: Dur, tick: Dur) {
        let tick_s = tick.as_secs_f64();
        // t_rtt_ = int((now-tao)/tcp_tick_ + 0.5), at least 1.
        let t_rtt = ((sample.as_secs_f64() / tick_s + 0.5) as i64).max(1);
        if self.t_srtt != 0 {
            let mut delta = t_rtt - (self.t_srtt >> 3);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> 2);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
    }

    /// tzero_ = (((t_rttvar << 3) + t_srtt) >> 3) ticks; `None` before any sample.
    pub fn t_rto(&self, tick: Dur) -> Option<Dur> {
        if self.t_srtt == 0 {
            return None;
        }
        let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        Some(tick.saturating_mul(ticks.max(0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_100_ms_rtt_gives_300_ms() {
        // tcp/tfrc.cc update_rtt with tcp_tick_ 0.1: the first 100 ms sample is t_rtt_ = 1
        // tick: t_srtt_ = 8, t_rttvar_ = 2, tzero_ = ((2 << 3) + 8) >> 3 = 3 ticks = 0.3 s.
        // Equal samples then leave both unchanged (delta 0; rttvar += 0 - (2 >> 2) = 0).
        let tick = Dur::from_millis(100);
        let mut e = Ns2Rto::default();
        assert_eq!(e.t_rto(tick), None);
        for _ in 0..20 {
            e.on_sample(Dur::from_millis(104), tick);
            assert_eq!(e.t_rto(tick), Some(Dur::from_millis(300)));
        }
        // A 500 ms sample: t_rtt_ 5, delta 4: t_srtt_ 12, t_rttvar_ 2 + 4 - 0 = 6:
        // ((6 << 3) + 12) >> 3 = 7 ticks.
        e.on_sample(Dur::from_millis(500), tick);
        assert_eq!(e.t_rto(tick), Some(Dur::from_millis(700)));
    }
}
