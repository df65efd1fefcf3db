//! Detection of spurious retransmissions and timeouts, and the responses to them (issue 19):
//! a timeout that fired only because the path's delay grew (a handover to a slower link)
//! resent a window that was never lost. Each detector is sans-IO: the sender tells it what it
//! sent and what came back, and it answers whether the timeout was spurious.
//!
//! - [`dsack`]: D-SACK-based detection of spurious retransmissions (RFC 3708).
//! - [`eifel`]: Eifel detection with timestamps (RFC 3522).
//! - [`frto`]: F-RTO, new data after the timeout and the next two ACKs (RFC 5682).
//! - [`response`]: what the sender does once a timeout is found spurious (RFC 4015, Linux's
//!   undo and conservative responses, and Daniel & Kojo §8's "do not restore").

pub mod dsack;
pub mod eifel;
pub mod frto;
pub mod response;

use super::segment::Segment;
use super::seq::SeqNum;
use crate::time::Dur;

/// What the sender keeps of a recovery while it may yet prove spurious.
#[derive(Clone, Debug, Default)]
pub struct SpuriousState {
    pub eifel: eifel::EifelDetector,
    pub dsack: dsack::DsackDetector,
    /// The state before the recovery's first reduction, and SND.MAX then.
    pub prior: Option<(response::Prior, SeqNum)>,
    /// RFC 4015 step (11) pending: SND.MAX at the timeout, SRTT_prev, RTTVAR_prev.
    pub adapt: Option<(SeqNum, Dur, Dur)>,
}

/// Whether an ACK carries a D-SACK block ([`super::sack::dsack_block`]).
pub fn carries_dsack(seg: &Segment) -> bool {
    super::sack::dsack_block(seg.ack, seg.options.sack.as_slice()).is_some()
}
