//! Linux's TCP pacing (`TcpConfig::pacing`): each data segment leaves no sooner than the
//! previous one's departure plus its length at the pacing rate (the "earliest departure time"
//! `tp->tcp_wstamp_ns`).
//!
//! Linux's rules, each from `net/ipv4/`:
//! - the rate, `tcp_update_pacing_rate` (tcp_input.c, after each ACK's window update):
//!   `tcp_pacing_ss_ratio` (200 %) × max(cwnd, packets_out) × MSS / SRTT while cwnd is below
//!   half ssthresh, `tcp_pacing_ca_ratio` (120 %) after; no limit before an RTT sample;
//! - a transmission, `tcp_update_skb_after_send` (tcp_output.c): from the tenth data segment
//!   on (`data_segs_out >= 10`), the departure time moves on by len / rate, less the time the
//!   sender was late for it, at most half of that ("take into account OS jitter");
//! - the check, `tcp_pacing_check` in `tcp_write_xmit` and `tcp_xmit_retransmit_queue`: new
//!   data and recovery's retransmissions wait for the departure time; the timeout's
//!   retransmission of the head (`tcp_retransmit_timer`) and the loss probe do not, but move it
//!   on like any other.
//!
//! Linux paces a reno or cubic flow only when a qdisc or the socket asks for it (`sch_fq`,
//! `SO_MAX_PACING_RATE`, or BBR having been the socket's congestion control: `sk_pacing_status`
//! stays SK_PACING_NEEDED after a switch). The pacing `vho emulate` once saw in "reno" runs was
//! that: sockets born BBR, the machine's default (README, the `linux` profile against the
//! kernel); born reno they do not pace, and with this off the profile is within 10 % of them in
//! every cell. vho paces segment by segment where Linux sends `tcp_tso_autosize` segments (at
//! least 2) at a time.

use super::TcpSender;
use crate::tcp::cc::CongestionControl;
use crate::time::{Dur, Time};

/// `net.ipv4.tcp_pacing_ss_ratio` default (Documentation/networking/ip-sysctl.rst: 200 %).
const SS_RATIO_PCT: u64 = 200;
/// `net.ipv4.tcp_pacing_ca_ratio` default (ip-sysctl.rst: 120 %).
const CA_RATIO_PCT: u64 = 120;
/// `tcp_update_skb_after_send`: the first data segments leave unpaced (`data_segs_out >= 10`).
const UNPACED_SEGMENTS: u32 = 9;

/// The pacing state: the next departure time and whether a send is waiting for it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pacing {
    /// `tp->tcp_wstamp_ns`: the earliest departure of the next data segment.
    next: Option<Time>,
    /// `poll_transmit` held a send back: the wake-up is due at `next`.
    holding: bool,
    /// `tp->data_segs_out`.
    data_segs_out: u32,
}

impl TcpSender {
    /// `tcp_pacing_check`: whether the departure time holds sending at `now`.
    #[inline]
    pub(super) fn pacing_holds(&mut self, now: Time) -> bool {
        if !self.cfg.pacing {
            return false;
        }
        let p = &mut self.pacing;
        p.holding = p.next.is_some_and(|t| t > now);
        p.holding
    }

    /// The wake-up a held send needs (`poll_timeout` takes the earlier of it and the timers).
    #[inline]
    pub(super) fn pacing_wake(&self) -> Option<Time> {
        self.pacing.next.filter(|_| self.pacing.holding)
    }

    /// The wake-up for a held send came: `poll_transmit` decides again.
    #[inline]
    pub(super) fn pacing_wake_fired(&mut self, now: Time) {
        if self.pacing.next.is_some_and(|t| t <= now) {
            self.pacing.holding = false;
        }
    }

    /// `tcp_update_skb_after_send` for a data segment of `len` bytes that left at `now`.
    #[cold]
    pub(super) fn pacing_on_send(&mut self, now: Time, len: u32) {
        self.pacing.data_segs_out += 1;
        if self.pacing.data_segs_out <= UNPACED_SEGMENTS || len == 0 {
            return;
        }
        let Some(rate) = self.pacing_rate() else {
            return;
        };
        let prior = self.pacing.next.unwrap_or(now);
        let start = prior.max(now);
        // len / rate, in ns; the lateness (credit) shortens it by at most half.
        let gap = Dur::from_nanos(len as u64 * 1_000_000_000 / rate.max(1));
        let credit = start.saturating_since(prior);
        let gap = gap.saturating_sub(credit.min(Dur::from_nanos(gap.as_nanos() / 2)));
        self.pacing.next = Some(start + gap);
    }

    /// `tcp_update_pacing_rate`, in bytes per second; `None` before an RTT sample (Linux's
    /// rate is then unlimited).
    fn pacing_rate(&self) -> Option<u64> {
        let srtt = self.rtt.srtt().as_nanos();
        if srtt == 0 {
            return None;
        }
        let (cwnd, ssthresh) = (self.cc.cwnd() as u64, self.cc.ssthresh() as u64);
        let ratio = if cwnd < ssthresh / 2 {
            SS_RATIO_PCT
        } else {
            CA_RATIO_PCT
        };
        let out = (self.snd_max - self.snd_una) as u64;
        Some(ratio * cwnd.max(out) * 1_000_000_000 / 100 / srtt)
    }
}
