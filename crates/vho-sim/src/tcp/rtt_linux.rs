//! Linux's retransmission-timer estimator, as modern kernels compute it (read in
//! net/ipv4/tcp_input.c, Linux 6.x; the arithmetic is unchanged since 3.15 moved it to µs).
//!
//! - `tcp_rtt_estimator`: samples in microseconds; `srtt_us` kept ×8 and `mdev_us` (the mean
//!   deviation) ×4, with the gains 1/8 and 1/4 of RFC 6298, except that a sample *below*
//!   SRTT moves mdev with the finer gain 1/32 ("similar to one of Eifel findings": `m >>= 3`
//!   on the positive part of |err| − mdev/4). The RTO's variance term `rttvar_us` follows
//!   `mdev_max_us`, the largest mdev seen in the current flight: it rises at once to any
//!   larger mdev, and falls only once per flight (when SND.UNA passes `rtt_seq`, the SND.NXT
//!   of the flight's start) by a quarter of its excess over that flight's `mdev_max_us`.
//!   `mdev_max_us` restarts each flight at `tcp_rto_min_us` (TCP_RTO_MIN = 200 ms), and the
//!   first sample sets `rttvar_us = max(2·RTT, TCP_RTO_MIN)`: so RTO ≥ SRTT + 200 ms always,
//!   with no explicit floor ("clamping at TCP_RTO_MIN is not required", `tcp_set_rto`).
//! - `__tcp_set_rto` (include/net/tcp.h): RTO = `usecs_to_jiffies(srtt_us/8 + rttvar_us)`,
//!   rounded *up* to a whole jiffy; `tcp_bound_rto`: at most TCP_RTO_MAX (120 s).
//!
//! The jiffy is the estimator's granularity G (`RtoConfig::granularity`): 1 ms for HZ = 1000
//! (Fedora, Arch, and the `linux` profile); Debian and Ubuntu build HZ = 250 (4 ms).
//! Backoff (`inet_csk_rto_backoff`: RTO << backoff, clamped to TCP_RTO_MAX) and the reset of
//! the backoff on a valid sample (`tcp_ack_update_rtt`) are [`super::rtt::RttEstimator`]'s.

use super::seq::SeqNum;

/// Where the flight stands when a sample is taken (`tp->snd_una`, `tp->snd_nxt`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flight {
    pub snd_una: SeqNum,
    /// The highest sequence number sent (Linux's SND.NXT does not go back at a timeout).
    pub snd_nxt: SeqNum,
}

/// `tcp_sock`'s estimator fields, in microseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxRtt {
    /// `srtt_us`: SRTT × 8.
    srtt8: u64,
    /// `mdev_us`: the mean deviation × 4.
    mdev4: u64,
    /// `mdev_max_us`: the largest `mdev_us` in the current flight.
    mdev_max: u64,
    /// `rttvar_us`: the RTO's variance term (4·D in RFC 6298's terms).
    rttvar: u64,
    /// `rtt_seq`: SND.NXT when the current flight's bookkeeping began.
    rtt_seq: SeqNum,
}

impl LinuxRtt {
    /// `tcp_rtt_estimator(sk, m)`: a sample of `m` µs; `first` when there is no estimate yet
    /// (`srtt_us == 0`). `rto_min` is `tcp_rto_min_us` in µs.
    pub fn on_sample(&mut self, m: u64, first: bool, flight: Flight, rto_min: u64) {
        if first {
            self.srtt8 = m << 3; // "take the measured time to be rtt"
            self.mdev4 = m << 1; // "make sure rto = 3*rtt"
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = flight.snd_nxt;
        } else {
            let mut err = m as i64 - (self.srtt8 >> 3) as i64; // error in the RTT estimate
            self.srtt8 = (self.srtt8 as i64 + err).max(0) as u64; // 7/8 SRTT + 1/8 m
            let quarter = (self.mdev4 >> 2) as i64;
            if err < 0 {
                err = -err - quarter;
                if err > 0 {
                    err >>= 3; // a falling RTT moves mdev by 1/32 of the excess, not 1/4
                }
            } else {
                err -= quarter;
            }
            self.mdev4 = (self.mdev4 as i64 + err).max(0) as u64; // 3/4 mdev + 1/4 |err|
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if flight.snd_una > self.rtt_seq {
                // A flight has been acknowledged: the variance term decays toward its max.
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = flight.snd_nxt;
                self.mdev_max = rto_min;
            }
        }
        self.srtt8 = self.srtt8.max(1); // tp->srtt_us = max(1U, srtt)
    }

    /// `__tcp_set_rto`: SRTT + rttvar in µs, rounded up to a whole jiffy of `jiffy_us`.
    pub fn rto_us(&self, jiffy_us: u64) -> u64 {
        let us = (self.srtt8 >> 3) + self.rttvar;
        us.div_ceil(jiffy_us.max(1)) * jiffy_us.max(1)
    }

    /// SRTT in µs.
    pub fn srtt_us(&self) -> u64 {
        self.srtt8 >> 3
    }

    /// The variance term over 4, so that RTO = SRTT + 4·this as in RFC 6298. (TCP_INFO's
    /// `tcpi_rttvar` is `mdev_us >> 2` instead: the smoothed deviation, not the RTO's term.)
    pub fn rttvar_us(&self) -> u64 {
        self.rttvar >> 2
    }

    /// Sets SRTT and RTTVAR outright (`rtt-injection`, `fast-rto-decrease`: vho remedies):
    /// as a first sample would, the variance term at least `rto_min`.
    pub fn set(&mut self, srtt_us: u64, rttvar_us: u64, rto_min: u64) {
        self.srtt8 = (srtt_us << 3).max(1);
        self.mdev4 = rttvar_us << 2;
        self.rttvar = self.mdev4.max(rto_min);
        self.mdev_max = self.rttvar;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = 200_000; // TCP_RTO_MIN = HZ/5 = 200 ms
    const JIFFY: u64 = 1000; // HZ = 1000

    fn at(una: u32, nxt: u32) -> Flight {
        Flight {
            snd_una: SeqNum(una),
            snd_nxt: SeqNum(nxt),
        }
    }

    #[test]
    fn first_sample_gives_three_rtts_or_rtt_plus_rto_min() {
        // tcp_rtt_estimator, no previous measure: srtt = m << 3, mdev = m << 1,
        // rttvar = max(mdev, rto_min). 100 ms: RTO = 100 + 200 = 300 ms (3·RTT);
        // 20 ms: mdev 40 ms < 200 ms, so RTO = 20 + 200 = 220 ms.
        let mut e = LinuxRtt::default();
        e.on_sample(100_000, true, at(0, 10), MIN);
        assert_eq!(e.rto_us(JIFFY), 300_000);
        let mut e = LinuxRtt::default();
        e.on_sample(20_000, true, at(0, 10), MIN);
        assert_eq!(e.rto_us(JIFFY), 220_000);
        assert_eq!(e.srtt_us(), 20_000);
    }

    #[test]
    fn a_falling_rtt_moves_mdev_by_one_32nd() {
        // srtt 100 ms, mdev_us 200,000. A 20 ms sample: err = -80,000, srtt_us = 720,000
        // (90 ms); |err| - mdev/4 = 30,000 > 0, >>3 = 3,750: mdev_us = 203,750 > mdev_max
        // 200,000, so rttvar_us = 203,750: RTO = 90,000 + 203,750 = 293,750 µs -> 294 jiffies.
        // (RFC 6298 would give RTTVAR = 57.5 ms and RTO = 90 + 230 = 320 ms.)
        let mut e = LinuxRtt::default();
        e.on_sample(100_000, true, at(0, 10), MIN);
        e.on_sample(20_000, false, at(5, 10), MIN);
        assert_eq!(e.srtt_us(), 90_000);
        assert_eq!(e.rto_us(JIFFY), 294_000);
    }

    #[test]
    fn a_rising_rtt_raises_the_variance_term_at_once() {
        // srtt 100 ms, mdev 200,000; a 60 ms sample: err -40,000, srtt_us 760,000 (95 ms);
        // 40,000 - 50,000 < 0 is not shifted: mdev 190,000. Then 300 ms: err 205,000, srtt_us
        // 965,000 (120.625 ms); 205,000 - 47,500 = 157,500: mdev 347,500 > mdev_max, so
        // rttvar_us 347,500: RTO = 120,625 + 347,500 = 468,125 µs -> 469 ms (up to a jiffy).
        let mut e = LinuxRtt::default();
        e.on_sample(100_000, true, at(0, 10), MIN);
        e.on_sample(60_000, false, at(5, 10), MIN);
        e.on_sample(300_000, false, at(6, 10), MIN);
        assert_eq!(e.rto_us(JIFFY), 469_000);
        // HZ = 250: 4 ms jiffies, 468,125 µs -> 118 jiffies = 472 ms.
        assert_eq!(e.rto_us(4000), 472_000);
    }

    #[test]
    fn the_variance_term_decays_once_per_flight_not_per_sample() {
        // First sample 400 ms (rtt_seq = 10): mdev = rttvar = mdev_max = 800,000; RTO 1.2 s.
        // Three more 400 ms samples: each m = 0 takes mdev to 3/4 (600,000, 450,000, ...).
        // Within one flight (SND.UNA never past 10) rttvar stays 800,000: RTO 1.2 s.
        let mut same = LinuxRtt::default();
        same.on_sample(400_000, true, at(0, 10), MIN);
        for una in [2, 4, 6] {
            same.on_sample(400_000, false, at(una, 10), MIN);
        }
        assert_eq!(same.rto_us(JIFFY), 1_200_000);
        // Over flights: sample 2 (SND.UNA 11 > 10): mdev 600,000 <= mdev_max; rttvar not
        // above mdev_max: no decay; rtt_seq = 20, mdev_max = 200,000. Sample 3 (SND.UNA 21 >
        // 20): mdev 450,000 > mdev_max: mdev_max 450,000; decay rttvar by (800,000 -
        // 450,000) >> 2 = 87,500 to 712,500: RTO = 400,000 + 712,500 = 1,112.5 ms -> 1,113 ms.
        let mut flights = LinuxRtt::default();
        flights.on_sample(400_000, true, at(0, 10), MIN);
        flights.on_sample(400_000, false, at(11, 20), MIN);
        assert_eq!(flights.rto_us(JIFFY), 1_200_000);
        flights.on_sample(400_000, false, at(21, 30), MIN);
        assert_eq!(flights.rto_us(JIFFY), 1_113_000);
    }

    #[test]
    fn steady_samples_converge_to_srtt_plus_rto_min() {
        // mdev_max restarts at tcp_rto_min_us each flight, so rttvar decays toward 200 ms
        // and never below it: RTO -> SRTT + 200 ms (the "200 ms floor" above SRTT).
        let mut e = LinuxRtt::default();
        e.on_sample(50_000, true, at(0, 1), MIN);
        for k in 1..200u32 {
            e.on_sample(50_000, false, at(k, k + 1), MIN);
        }
        assert_eq!(e.rto_us(JIFFY), 250_000);
    }
}
