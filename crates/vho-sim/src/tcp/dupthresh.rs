//! The duplicate-ACK threshold, adaptive after a handover to a faster link (remedy
//! `adaptive-dupthresh`, issue 19).
//!
//! Daniel & Kojo §2 l.32: "A dynamic value of the dupThresh parameter of TCP is proposed in
//! [5] to reduce the effect of packet reordering during vertical handoff from a low
//! bandwidth-high latency network to a high bandwidth-low latency network". Their [5] is
//! Hansmann & Frank, "On things to happen during a TCP handover", IEEE LCN 2003, which is not
//! among the sources: its exact rule is **unverified**, and the rule here is not theirs.
//!
//! After a slow -> fast handover, every segment sent before the switch may still be on the old
//! path while the new path's segments overtake it; each overtaking segment makes the receiver
//! send a duplicate ACK. While the hole is at SND.UNA, no more segments can be above it than
//! are outstanding, so the duplicate ACKs it causes are fewer than the segments outstanding.
//! The rule (vho's, from the digest's fallback for a notification that carries no rates):
//! - on a notification that the mobile moved to a faster link, DupThresh := max(DupThresh,
//!   ⌈FlightSize / SMSS⌉), FlightSize = SND.MAX − SND.UNA at the notification;
//! - it goes back to the configured value once SND.UNA reaches SND.MAX at the notification:
//!   everything sent before the switch is acknowledged, nothing can be on the old path.
//!
//! The forms it borrows from: RFC 4653 (TCP-NCR) sets DupThresh from the FlightSize at the
//! first duplicate ACK scaled by LT_F < 1 (2/3 "Careful", 4/5 "Aggressive", §3) for a path
//! that reorders all the time; DragonFly BSD's NCR takes half the outstanding segments, at
//! most 16 (sys/netinet/tcp_input.c `tcp_ncr_update_rxtthresh`, sysctl
//! `net.inet.tcp.ncr_rxtthresh_max`); Linux raised `tp->reordering` (from
//! `net.ipv4.tcp_reordering` = 3, up to `tcp_max_reordering` = 300) to the reordering it saw,
//! up to the whole cwnd when the last packet of a burst was reordered (Linux commit "tcp:
//! remove RFC4653 NCR", 2017, the parent of 4a7f6009, says so).
//! A handover's reordering is known in advance and may reach the whole flight, so the full
//! FlightSize, not a fraction, and only until the old path has drained. The Limited Transmit
//! allowance (RFC 3042: the first two duplicate ACKs) is not widened with it.

use super::seq::SeqNum;

/// The threshold in force and, while raised, the sequence number that ends it.
#[derive(Clone, Copy, Debug)]
pub struct DupThresh {
    /// The configured threshold (RFC 5681 §3.2: 3).
    base: u32,
    current: u32,
    /// Raised until SND.UNA reaches this (SND.MAX at the notification).
    until: Option<SeqNum>,
    /// How many notifications raised it.
    raised: u64,
}

impl DupThresh {
    pub fn new(base: u32) -> Self {
        DupThresh {
            base,
            current: base,
            until: None,
            raised: 0,
        }
    }

    /// The threshold in force.
    #[inline(always)]
    pub fn get(&self) -> u32 {
        self.current
    }

    pub fn raised_count(&self) -> u64 {
        self.raised
    }

    /// The mobile moved to a faster link with `flight` bytes outstanding below `snd_max`.
    pub fn on_faster_link(&mut self, flight: u32, mss: u32, snd_max: SeqNum) {
        let segments = flight.div_ceil(mss.max(1));
        if segments <= self.base {
            return; // nothing outstanding that could be overtaken more than the base allows
        }
        self.current = self.current.max(segments);
        self.until = Some(self.until.map_or(snd_max, |u| u.max(snd_max)));
        self.raised += 1;
    }

    /// The configured threshold, or the reordering degree [`Self::on_reordering`] raised it
    /// to (what Limited Transmit counts early duplicate ACKs against).
    #[inline(always)]
    pub fn base(&self) -> u32 {
        self.base
    }

    /// Reordering of `degree` segments was observed: Linux's `tp->reordering`, which
    /// `tcp_time_to_recover` (without RACK: `sacked_out + 1 > reordering`) and
    /// `tcp_mark_head_lost` use as the duplicate-ACK threshold, rises to it for the rest of the
    /// connection (net/ipv4/tcp_input.c `tcp_check_sack_reordering`, capped by the caller at
    /// `tcp_max_reordering`).
    pub fn on_reordering(&mut self, degree: u32) {
        self.base = self.base.max(degree);
        self.current = self.current.max(degree);
    }

    /// A timeout with at least `sacked` >= `configured` segments SACKed outside a recovery:
    /// "the degree of reordering is over-estimated" (tcp_enter_loss), back to at most the
    /// configured value (`net.ipv4.tcp_reordering`).
    pub fn on_timeout_in_disorder(&mut self, configured: u32) {
        self.base = self.base.min(configured);
        if self.until.is_none() {
            self.current = self.base;
        }
    }

    /// SND.UNA moved to `una`: back to the base once it reaches the end of what the old path
    /// may hold.
    #[inline(always)]
    pub fn on_new_ack(&mut self, una: SeqNum) {
        if let Some(until) = self.until {
            if una >= until {
                self.current = self.base;
                self.until = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faster_link_raises_it_to_the_flight_until_the_flight_is_acknowledged() {
        // 10 segments of 1000 bytes outstanding: 10 duplicate ACKs cannot arrive for one hole
        // among them, so the threshold is 10 until SND.UNA reaches SND.MAX = 10,001.
        let mut d = DupThresh::new(3);
        d.on_faster_link(10_000, 1000, SeqNum(10_001));
        assert_eq!(d.get(), 10);
        d.on_new_ack(SeqNum(10_000));
        assert_eq!(d.get(), 10);
        d.on_new_ack(SeqNum(10_001));
        assert_eq!(d.get(), 3);
        assert_eq!(d.raised_count(), 1);
    }

    #[test]
    fn observed_reordering_raises_it_for_good_and_a_timeout_in_disorder_lowers_it() {
        // tcp_check_sack_reordering: degree 11 > 3 -> tp->reordering = 11, kept across ACKs.
        let mut d = DupThresh::new(3);
        d.on_reordering(11);
        d.on_new_ack(SeqNum(50_000));
        assert_eq!((d.get(), d.base()), (11, 11));
        d.on_reordering(5); // never lowered by a smaller degree
        assert_eq!(d.get(), 11);
        // tcp_enter_loss: min(tp->reordering, sysctl_tcp_reordering).
        d.on_timeout_in_disorder(3);
        assert_eq!((d.get(), d.base()), (3, 3));
    }

    #[test]
    fn a_small_flight_leaves_it_alone() {
        let mut d = DupThresh::new(3);
        d.on_faster_link(2500, 1000, SeqNum(2501));
        assert_eq!((d.get(), d.raised_count()), (3, 0));
    }
}
