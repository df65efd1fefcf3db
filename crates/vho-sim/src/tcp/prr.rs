//! Proportional Rate Reduction (RFC 6937) as Linux runs it in fast recovery:
//! `tcp_init_cwnd_reduction` and `tcp_cwnd_reduction` (net/ipv4/tcp_input.c), counted in
//! segments as the kernel counts them.
//!
//! On every ACK that delivers data during recovery (`newly_acked_sacked` segments newly
//! acknowledged or SACKed), with `pipe` the segments in flight (`tcp_packets_in_flight`):
//! - while pipe > ssthresh, send in proportion to what was delivered, so that the window
//!   comes down to ssthresh over one round trip: sndcnt = ceil(ssthresh · prr_delivered /
//!   prior_cwnd) − prr_out (RFC 6937 §3's RecoverFS is Linux's `prior_cwnd`, the cwnd
//!   before the reduction);
//! - at or below ssthresh, PRR-SSRB: sndcnt = min(ssthresh − pipe, max(prr_delivered −
//!   prr_out, newly delivered) + 1), the +1 (slow start toward ssthresh) only on an ACK that
//!   advanced SND.UNA and marked nothing newly lost (Linux's condition; RFC 6937 §3 adds MSS
//!   on every ACK);
//! - and at least one segment while nothing has been sent yet ("Force a fast retransmit").
//!
//! cwnd = pipe + sndcnt. At the end of recovery cwnd = ssthresh (`tcp_end_cwnd_reduction`,
//! the controller's `on_recovery_exit`).

/// The state of one reduction (`tp->prior_cwnd`, `prr_delivered`, `prr_out`), in segments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    prior_cwnd: u32,
    delivered: u32,
    out: u32,
}

impl Prr {
    /// `tcp_init_cwnd_reduction`: cwnd before the reduction, counters cleared.
    pub fn start(cwnd_segments: u32) -> Self {
        Prr {
            prior_cwnd: cwnd_segments.max(1),
            delivered: 0,
            out: 0,
        }
    }

    /// A segment went out during the reduction (`prr_out`, tcp_write_xmit and
    /// tcp_xmit_retransmit_queue).
    pub fn on_send(&mut self) {
        self.out += 1;
    }

    /// `tcp_cwnd_reduction`: the new cwnd in segments, or `None` when the ACK delivered
    /// nothing (cwnd unchanged).
    pub fn on_ack(
        &mut self,
        newly_delivered: u32,
        una_advanced: bool,
        newly_lost: bool,
        pipe: u32,
        ssthresh: u32,
    ) -> Option<u32> {
        if newly_delivered == 0 {
            return None;
        }
        self.delivered += newly_delivered;
        let delta = ssthresh as i64 - pipe as i64;
        let mut sndcnt = if delta < 0 {
            let dividend = ssthresh as u64 * self.delivered as u64 + self.prior_cwnd as u64 - 1;
            (dividend / self.prior_cwnd as u64) as i64 - self.out as i64
        } else {
            let mut n = (self.delivered as i64 - self.out as i64).max(newly_delivered as i64);
            if una_advanced && !newly_lost {
                n += 1;
            }
            delta.min(n)
        };
        sndcnt = sndcnt.max(if self.out > 0 { 0 } else { 1 });
        Some((pipe as i64 + sndcnt) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportional_part_sends_ssthresh_over_prior_cwnd_per_delivered_segment() {
        // RFC 6937 §3 / tcp_cwnd_reduction, cwnd 10 -> ssthresh 7 (CUBIC's 717/1024), one
        // segment lost: pipe 9 after the first duplicate ACK... pipe > ssthresh, so each ACK
        // delivering one segment allows ceil(7 · delivered / 10) − out:
        // ACK 1: ceil(0.7) − 0 = 1 (the fast retransmit); ACK 2: ceil(1.4) − 1 = 1;
        // ACK 3: ceil(2.1) − 2 = 1; ACK 4: ceil(2.8) − 3 = 0; ACK 5: ceil(3.5) − 3 = 1.
        // Seven segments out for every ten delivered.
        let mut p = Prr::start(10);
        let mut sent = vec![];
        let mut pipe = 9;
        for _ in 0..5 {
            let cwnd = p.on_ack(1, false, false, pipe, 7).expect("delivered");
            let n = cwnd - pipe;
            for _ in 0..n {
                p.on_send();
            }
            sent.push(n);
            pipe = pipe - 1 + n; // one segment left the network, n went in
        }
        assert_eq!(sent, vec![1, 1, 1, 0, 1]);
    }

    #[test]
    fn below_ssthresh_it_sends_what_was_delivered_plus_one_on_a_clean_advance() {
        // PRR-SSRB: pipe 3 < ssthresh 7 (heavy loss). An ACK delivering 2 segments with
        // prr_delivered 2, prr_out 1: max(2 − 1, 2) = 2, +1 as it advanced SND.UNA with no
        // new loss: 3, within ssthresh − pipe = 4: cwnd = 3 + 3 = 6.
        let mut p = Prr::start(10);
        p.on_send();
        assert_eq!(p.on_ack(2, true, false, 3, 7), Some(6));
        // The same ACK marking a new loss: no +1: cwnd 3 + 2 = 5.
        let mut p = Prr::start(10);
        p.on_send();
        assert_eq!(p.on_ack(2, true, true, 3, 7), Some(5));
        // Never past ssthresh: pipe 6 -> min(1, ...) = 1: cwnd 7.
        let mut p = Prr::start(10);
        p.on_send();
        assert_eq!(p.on_ack(2, true, false, 6, 7), Some(7));
    }

    #[test]
    fn the_first_ack_always_allows_the_fast_retransmit_and_nothing_delivered_changes_nothing() {
        // "Force a fast retransmit upon entering fast recovery": prr_out 0 -> sndcnt >= 1
        // even when the proportion gives 0 (ssthresh 2 of prior 100: ceil(2/100) = 1 anyway;
        // pipe 99). And an ACK delivering nothing leaves cwnd alone.
        let mut p = Prr::start(100);
        assert_eq!(p.on_ack(0, false, false, 99, 2), None);
        assert_eq!(p.on_ack(1, false, false, 99, 2), Some(100));
        p.on_send();
        // ceil(2 · 2 / 100) − 1 = 0: cwnd = pipe.
        assert_eq!(p.on_ack(1, false, false, 98, 2), Some(98));
    }
}
