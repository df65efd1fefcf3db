//! What the sender does once a timeout is found spurious ([`SpuriousResponse`]).
//!
//! Every response resumes with data not sent before the timeout (RFC 4015 §3.1 step (8):
//! SND.NXT = SND.MAX, no go-back-N resend of a window that was never lost); they differ in the
//! window they leave and in the retransmission timer:
//!
//! - `conservative`: cwnd = min(cwnd, ssthresh), congestion avoidance with the ssthresh the
//!   timeout reduced (RFC 5682 §4's "respond conservatively"; Linux 2.6.22's
//!   `tcp_conservative_spur_to_response`).
//! - `eifel`: RFC 4015 §3.1: cwnd = FlightSize + min(bytes_acked, IW) and ssthresh = pipe_prev
//!   (step 9), and the RTO adapted on the first sample of new data (step 11).
//! - `undo`: Linux's `tcp_undo_cwnd`: cwnd and ssthresh back to at least what they were
//!   before the timeout.
//! - `no-restore`: Daniel & Kojo §8: "we cannot use the earlier ssthresh or cwnd value as the
//!   link has changed": RFC 4015's steps (8) and (11), not (9): the window the timeout left
//!   stays, to probe the new path.

use super::super::config::SpuriousResponse;
use crate::time::Dur;

/// The sender's state when the timeout struck, before any reduction (RFC 4015 §3.1 step (0)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prior {
    pub cwnd: u32,
    pub ssthresh: u32,
    /// max(FlightSize, ssthresh).
    pub pipe_prev: u32,
    /// SRTT + 2·G (G: the timer's granularity).
    pub srtt_prev: Dur,
    pub rttvar_prev: Dur,
}

/// The window after a spurious timeout's response: (cwnd, ssthresh), given the state before
/// the timeout, the current window (after the timeout and this ACK), the data outstanding
/// after this ACK, the bytes it acknowledged and the initial window.
pub fn window_after(
    response: SpuriousResponse,
    prior: &Prior,
    now: (u32, u32),
    flight: u32,
    bytes_acked: u32,
    initial_window: u32,
) -> (u32, u32) {
    let (cwnd, ssthresh) = now;
    match response {
        SpuriousResponse::Conservative => (cwnd.min(ssthresh), ssthresh),
        SpuriousResponse::Eifel => (
            flight.saturating_add(bytes_acked.min(initial_window)),
            prior.pipe_prev,
        ),
        SpuriousResponse::Undo => (cwnd.max(prior.cwnd), ssthresh.max(prior.ssthresh)),
        SpuriousResponse::NoRestore => (cwnd, ssthresh),
    }
}

/// Linux's `prior_ssthresh` when a recovery starts (`tcp_enter_recovery`, `tcp_enter_loss`):
/// `tcp_current_ssthresh` (include/net/tcp.h), which outside a cwnd reduction is max(ssthresh,
/// 3/4 cwnd) in segments (`(snd_cwnd >> 1) + (snd_cwnd >> 2)`) and in one (Recovery) ssthresh
/// alone. `tcp_undo_cwnd_reduction` restores it when it exceeds the ssthresh of the moment, so
/// an undo in congestion avoidance leaves ssthresh at 3/4 of the old cwnd, not at the old
/// ssthresh. Bytes in and out.
pub fn linux_prior_ssthresh(ssthresh: u32, cwnd: u32, mss: u32, in_reduction: bool) -> u32 {
    if in_reduction {
        return ssthresh;
    }
    let mss = mss.max(1);
    let segs = cwnd / mss;
    ssthresh.max(((segs >> 1) + (segs >> 2)).saturating_mul(mss))
}

/// Whether the response adapts the RTO on the first sample of new data (RFC 4015 step (11)).
pub fn adapts_rto(response: SpuriousResponse) -> bool {
    matches!(
        response,
        SpuriousResponse::Eifel | SpuriousResponse::NoRestore
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIOR: Prior = Prior {
        cwnd: 20_000,
        ssthresh: 64_000,
        pipe_prev: 64_000,
        srtt_prev: Dur::from_millis(120),
        rttvar_prev: Dur::from_millis(30),
    };

    #[test]
    fn each_response_leaves_its_window() {
        // After the timeout: cwnd one segment grown to two, ssthresh halved to 10,000; the ACK
        // acknowledged 1,000 bytes and 18,000 remain outstanding; IW 3,000.
        let now = (2_000, 10_000);
        let w = |r| window_after(r, &PRIOR, now, 18_000, 1_000, 3_000);
        // RFC 4015 (9): FlightSize + min(bytes_acked, IW); ssthresh = pipe_prev.
        assert_eq!(w(SpuriousResponse::Eifel), (19_000, 64_000));
        // Linux tcp_undo_cwnd: at least the old values.
        assert_eq!(w(SpuriousResponse::Undo), (20_000, 64_000));
        // Conservative: congestion avoidance at the reduced ssthresh (cwnd no higher).
        assert_eq!(w(SpuriousResponse::Conservative), (2_000, 10_000));
        // Daniel & Kojo §8: nothing of the old path restored.
        assert_eq!(w(SpuriousResponse::NoRestore), (2_000, 10_000));
    }

    #[test]
    fn linux_undo_restores_three_quarters_of_the_old_cwnd_when_above_ssthresh() {
        // tcp_current_ssthresh: cwnd 21 segments of 1000 B, ssthresh 10: max(10, 10 + 5) = 15
        // segments; with ssthresh 18 it stays 18; in Recovery, ssthresh alone (10).
        assert_eq!(linux_prior_ssthresh(10_000, 21_000, 1000, false), 15_000);
        assert_eq!(linux_prior_ssthresh(18_000, 21_000, 1000, false), 18_000);
        assert_eq!(linux_prior_ssthresh(10_000, 21_000, 1000, true), 10_000);
        // The undo then takes ssthresh back up to it (window_after's max).
        let prior = Prior {
            ssthresh: linux_prior_ssthresh(10_000, 21_000, 1000, false),
            cwnd: 21_000,
            ..PRIOR
        };
        let w = window_after(SpuriousResponse::Undo, &prior, (1000, 14_000), 0, 0, 3000);
        assert_eq!(w, (21_000, 15_000));
    }

    #[test]
    fn only_eifel_and_no_restore_adapt_the_rto() {
        assert!(adapts_rto(SpuriousResponse::Eifel));
        assert!(adapts_rto(SpuriousResponse::NoRestore));
        assert!(!adapts_rto(SpuriousResponse::Undo));
        assert!(!adapts_rto(SpuriousResponse::Conservative));
    }
}
