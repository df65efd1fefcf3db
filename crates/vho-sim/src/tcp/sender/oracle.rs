//! The oracle sender at work (its rules: `tcp::oracle`): the ground truth the world hands it,
//! and, once a handover has put it in charge, how it takes ACKs and what it sends. Every
//! method here is a no-op in any other sender (`cfg.oracle` off): nothing else reads the
//! truth.

use super::*;
use crate::tcp::oracle::{OracleStats, PathTruth};

/// What the oracle sends next.
enum Next {
    /// A segment the network dropped, at `seq`, `len` sequence numbers.
    Repair(SeqNum, u32),
    /// New data of this length at SND.NXT.
    New(u32),
    /// The FIN, first time.
    Fin,
}

impl TcpSender {
    /// Ground truth of the new path at the instant a handover is carried out
    /// (`world::oracle`), the segments still on the link left, and those the network has
    /// dropped and no copy of which is left. The oracle takes its RTT and window from it and
    /// from then on makes no loss of its own; any other sender ignores it.
    #[cold]
    #[inline(never)]
    pub fn handle_path_truth(
        &mut self,
        now: Time,
        truth: PathTruth,
        old_path: &[(SeqNum, u32)],
        lost: &[(SeqNum, u32)],
    ) {
        let Some(o) = self.oracle.as_deref_mut() else {
            return;
        };
        if !matches!(self.state, State::Established | State::Oracle) {
            // A handover during the handshake: no data yet, nothing on the old path or lost;
            // the oracle takes charge with this path once established (`take_pending_truth`).
            o.pending = Some(truth);
            return;
        }
        o.pending = None;
        o.on_handover(now, truth, old_path, lost);
        o.forget_below(self.snd_una);
        // Digest §4.2: SRTT := R, RTTVAR := R/2, RTO := max(RTO_min, SRTT + 4·RTTVAR),
        // backoff := 0.
        self.rtt.reset();
        self.rtt
            .inject(truth.base_rtt, Dur(truth.base_rtt.as_nanos() / 2));
        // cwnd := ssthresh := the path's capacity plus one segment (thesis §7.1.3).
        let w = truth.window_segments().saturating_mul(self.neg.mss);
        self.cc.set_window(w, w);
        // No recovery of its own from here: what is lost, the truth says. What a timeout's
        // go-back-N had still to resend is in flight, delivered, or known lost.
        self.recovery = Recovery::Open;
        self.dupacks = 0;
        self.pending_rtx = None;
        self.frto = None;
        self.frto_credit = 0;
        self.timed = None;
        self.snd_nxt = self.snd_max;
        self.state = State::Oracle;
        self.timers.stop(Timer::Retransmit);
    }

    /// Just established: a path the oracle was told of during the handshake puts it in charge.
    pub(super) fn take_pending_truth(&mut self, now: Time) {
        if let Some(truth) = self.oracle.as_deref_mut().and_then(|o| o.pending.take()) {
            self.handle_path_truth(now, truth, &[], &[]);
        }
    }

    /// Every copy of the segment `[seq, seq + len)` was dropped in the network (ground truth,
    /// `world::forward`). Only the oracle in charge acts on it.
    #[cold]
    #[inline(never)]
    pub fn handle_drop_truth(&mut self, now: Time, seq: SeqNum, len: u32) {
        if self.state != State::Oracle || seq + len <= self.snd_una {
            return;
        }
        if let Some(o) = self.oracle.as_deref_mut() {
            o.on_drop(seq, len, now);
        }
    }

    /// The sender's maximum segment size, as negotiated.
    pub fn mss(&self) -> u32 {
        self.neg.mss
    }

    /// Whether the connection carries timestamps.
    pub fn uses_timestamps(&self) -> bool {
        self.neg.timestamps
    }

    /// What the oracle did, for an oracle sender.
    pub fn oracle_stats(&self) -> Option<OracleStats> {
        self.oracle.as_deref().map(|o| o.stats())
    }

    /// An ACK once the oracle is in charge: the window moves, a duplicate ACK is counted and
    /// nothing more (a segment that is late or reordered is not lost; one that is lost, the
    /// truth has said so). No RTT sample: the oracle knows the path's.
    #[cold]
    #[inline(never)]
    pub(super) fn oracle_on_ack(&mut self, seg: &Segment) {
        if seg.options.handover_notice.is_some() {
            self.stats.handover_notices += 1;
        }
        let window_changed = seg.window != self.last_window;
        self.last_window = seg.window;
        self.rwnd = (seg.window as u32) << self.neg.peer_wscale;
        if let Some((tsval, _)) = seg.options.timestamps {
            if seg.seq <= self.rcv_nxt {
                self.ts_recent = tsval; // RFC 7323 §4.3 (2), as `on_ack`
            }
        }
        if self.neg.sack {
            let (ack, una) = (seg.ack, seg.ack.max(self.snd_una));
            self.sb
                .update_from_ack(ack, una, seg.options.sack.as_slice());
        }
        if seg.ack > self.snd_una {
            self.snd_una = seg.ack;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.refill();
            if let Some(o) = self.oracle.as_deref_mut() {
                o.forget_below(self.snd_una);
            }
        } else if self.is_duplicate_ack(seg, window_changed) {
            self.stats.dupacks_received += 1;
        }
    }

    /// The oracle's `poll_transmit`; leaves the wake-up it needs in the retransmission
    /// timer's slot (no timeout fires in its charge).
    #[cold]
    #[inline(never)]
    pub(super) fn poll_oracle(&mut self, now: Time) -> Option<Transmit> {
        let (tx, paced) = self.oracle_step(now);
        let o = self
            .oracle
            .as_deref()
            .expect("invariant: State::Oracle only with an oracle");
        let mut wake = o.next_repair_after(now);
        if paced {
            let t = o.next_send();
            wake = Some(wake.map_or(t, |w| w.min(t)));
        }
        match wake {
            Some(t) => self.timers.set(Timer::Retransmit, t),
            None => self.timers.stop(Timer::Retransmit),
        }
        tx
    }

    /// The next segment, if it may go now: a repair that is due (the lowest first), else new
    /// data, else the FIN; within cwnd counting only what is on the new path (outstanding less
    /// what is known lost, SACKed, or on an old path), within the receiver's window, and no
    /// sooner than the pacing allows. Also whether pacing alone held it back.
    fn oracle_step(&mut self, now: Time) -> (Option<Transmit>, bool) {
        let o = self
            .oracle
            .as_deref()
            .expect("invariant: State::Oracle only with an oracle");
        let mss = self.neg.mss;
        let next = if let Some((seq, len)) = o.due_repair(now) {
            Next::Repair(seq, len)
        } else if self.snd_nxt < self.data_end {
            if !self.rwnd_allows(self.snd_nxt) {
                return (None, false);
            }
            Next::New(mss.min(self.data_end - self.snd_nxt))
        } else if self.cfg.fin && self.at_data_end(self.snd_nxt) && self.snd_max <= self.data_end {
            Next::Fin
        } else {
            return (None, false);
        };
        let sack = self.neg.sack;
        let sacked = |from: SeqNum, to: SeqNum| {
            if sack {
                self.sb.sacked_between(from, to)
            } else {
                0
            }
        };
        let pipe = (self.snd_max - self.snd_una)
            .saturating_sub(o.lost_bytes())
            .saturating_sub(sacked(self.snd_una, self.snd_max))
            .saturating_sub(o.old_path_bytes(sacked));
        let (len, at_una) = match next {
            Next::Repair(seq, len) => (len, seq == self.snd_una),
            Next::New(len) => (len, false),
            Next::Fin => (0, false),
        };
        // The segment at SND.UNA goes whatever cwnd says: without it no ACK moves the window,
        // and without SACK the segments the receiver holds above it still count as in flight.
        if pipe + len > self.cc.cwnd() && !at_una {
            return (None, false); // an ACK will open the window
        }
        if !o.may_send(now) {
            return (None, true);
        }
        let (tx, repaired) = match next {
            Next::Repair(seq, _) if self.cfg.fin && self.at_data_end(seq) => {
                (self.send_fin(now, TxKind::RetransmitRecovery), Some(seq))
            }
            Next::Repair(seq, _) => (
                self.send_at(now, seq, TxKind::RetransmitRecovery),
                Some(seq),
            ),
            Next::New(_) => (self.send_at(now, self.snd_nxt, TxKind::New), None),
            Next::Fin => (self.send_fin(now, TxKind::New), None),
        };
        if let Some(o) = self.oracle.as_deref_mut() {
            o.on_sent(now, tx.segment.len, mss, repaired);
        }
        (Some(tx), false)
    }
}
