//! The remedies that tell a spurious timeout and answer it: each switches on a detector of
//! `tcp::spurious` with its response.

use super::Remedy;
use crate::tcp::config::{SpuriousResponse, TcpConfig};

pub const FRTO: &str = "F-RTO (RFC 5682 §3.1): after a timeout send new data, let the next two \
                        ACKs tell whether it was spurious; RFC 4015's response";
pub const EIFEL: &str = "Eifel detection (RFC 3522, needs timestamps) with the Eifel response \
                         (RFC 4015: no go-back-N, the window and the RTO restored)";
pub const DSACK_UNDO: &str = "the receiver reports duplicates (D-SACK, RFC 2883) and the sender \
                              undoes a recovery whose every resend was one (RFC 3708; Linux's \
                              tcp_try_undo_dsack)";
pub const FAST_RTO_DECREASE: &str = "let the RTO fall at once when 3 RTT samples agree far below \
                                     SRTT (thesis §7.2.2, §8.1; after slow -> fast the RTO \
                                     climbed from 20 to over 50 s)";
pub const NO_RESTORE: &str = "after a spurious timeout keep the reduced window, do not restore \
                              the old path's cwnd and ssthresh (Daniel & Kojo §8)";

/// Switches the remedy's detector (and its response) on in `tcp`.
pub fn apply(r: Remedy, tcp: &mut TcpConfig) {
    let d = &mut tcp.spurious_detection;
    match r {
        Remedy::Frto => {
            d.frto = true;
            tcp.spurious_response = SpuriousResponse::Eifel;
        }
        Remedy::Eifel => {
            d.eifel = true;
            tcp.timestamps = true; // RFC 3522 §2: Eifel needs the timestamps option
            tcp.spurious_response = SpuriousResponse::Eifel;
        }
        Remedy::DsackUndo => {
            d.dsack = true;
            tcp.dsack = true;
            tcp.sack = true; // D-SACK rides on SACK (RFC 2883 §1)
            tcp.spurious_response = SpuriousResponse::Undo;
        }
        Remedy::NoRestore => tcp.spurious_response = SpuriousResponse::NoRestore,
        Remedy::FastRtoDecrease => tcp.fast_rto_decrease = true,
        // The others act elsewhere (`Remedy::apply` never hands them here).
        _ => {}
    }
}
