//! The Eifel detection algorithm (RFC 3522 §3.2): the retransmission that starts a
//! timeout recovery carries a timestamp (RetransmitTS); if the first acceptable ACK after it
//! echoes an older one, the ACK was for the original transmission, and the timeout was
//! spurious.

/// RFC 7323 §5.2: timestamp comparison modulo 2^32.
fn ts_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// The state of RFC 3522 §3.2 across one recovery and the connection's lifetime.
#[derive(Clone, Copy, Debug, Default)]
pub struct EifelDetector {
    /// Step (2): the TSval of the retransmission that started the recovery, until the first
    /// acceptable ACK (step 3) consumes it.
    retransmit_ts: Option<u32>,
    /// Step (5): an ACK with a D-SACK block was seen on this connection.
    dsack_seen: bool,
}

/// What the first acceptable ACK after the retransmission shows.
#[derive(Clone, Copy, Debug)]
pub struct AcceptableAck {
    /// Its TSecr (`None`: no timestamp option).
    pub tsecr: Option<u32>,
    /// It carries a D-SACK block (RFC 2883).
    pub carries_dsack: bool,
    /// It acknowledges all outstanding data (SND.MAX).
    pub acks_all: bool,
}

impl EifelDetector {
    /// Step (2): the retransmission starting a recovery goes out with `tsval`. A later
    /// timeout of the same recovery must not overwrite it (RFC 3522 §3.2 (2): "must not be
    /// overwritten"); the caller starts a new recovery only when the previous one ended.
    pub fn on_recovery_start(&mut self, tsval: u32) {
        self.retransmit_ts.get_or_insert(tsval);
    }

    /// Whether a retransmission awaits its acceptable ACK.
    pub fn armed(&self) -> bool {
        self.retransmit_ts.is_some()
    }

    /// Any ACK with a D-SACK block (step 5's "during the lifetime of the TCP connection").
    pub fn on_dsack(&mut self) {
        self.dsack_seen = true;
    }

    /// Steps (3)-(6) on the first acceptable ACK (one that acknowledges new data): `Some(true)`
    /// when the timeout was spurious, `Some(false)` when not, `None` when no recovery was
    /// being watched.
    pub fn on_acceptable_ack(&mut self, ack: AcceptableAck) -> Option<bool> {
        let retransmit_ts = self.retransmit_ts.take()?;
        if ack.carries_dsack {
            self.dsack_seen = true;
        }
        // (4) An echo older than RetransmitTS: the ACK is for the original. Strictly smaller:
        // an equal echo (both sent within one timestamp tick) proves nothing.
        let Some(tsecr) = ack.tsecr else {
            return Some(false);
        };
        if !ts_lt(tsecr, retransmit_ts) {
            return Some(false);
        }
        // (5) A D-SACK on this ACK means the retransmission arrived as a duplicate of an
        // original that arrived: §3.3's case where every ACK of the window was lost and the
        // timeout was genuine is told apart from a spurious one only by D-SACK history, or by
        // the ACK leaving data outstanding.
        if ack.carries_dsack {
            return Some(false);
        }
        Some(self.dsack_seen || !ack.acks_all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(tsecr: u32, acks_all: bool) -> AcceptableAck {
        AcceptableAck {
            tsecr: Some(tsecr),
            carries_dsack: false,
            acks_all,
        }
    }

    #[test]
    fn an_echo_older_than_the_retransmission_is_a_spurious_timeout() {
        // RFC 3522 §3.2 (4)-(6): the original went out at TSval 100, the retransmission at
        // 300; the ACK echoes 100 and leaves data outstanding.
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        assert_eq!(d.on_acceptable_ack(ack(100, false)), Some(true));
        // The verdict is given once per recovery.
        assert_eq!(d.on_acceptable_ack(ack(100, false)), None);
    }

    #[test]
    fn an_echo_of_the_retransmission_is_a_genuine_timeout() {
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        assert_eq!(d.on_acceptable_ack(ack(300, false)), Some(false));
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        assert_eq!(d.on_acceptable_ack(ack(301, false)), Some(false));
    }

    #[test]
    fn all_data_acknowledged_without_dsack_history_is_not_called_spurious() {
        // RFC 3522 §3.3: if every ACK of a window was lost, the timeout was genuine, yet the
        // ACK of the retransmission may echo the last original's timestamp (TS.Recent). It
        // acknowledges everything; without D-SACK history Eifel stays conservative.
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        assert_eq!(d.on_acceptable_ack(ack(100, true)), Some(false));
        // With D-SACK seen earlier on the connection the receiver would have reported the
        // duplicate: the same ACK is a spurious timeout.
        let mut d = EifelDetector::default();
        d.on_dsack();
        d.on_recovery_start(300);
        assert_eq!(d.on_acceptable_ack(ack(100, true)), Some(true));
    }

    #[test]
    fn an_acceptable_ack_with_a_dsack_ends_detection() {
        // RFC 3522 §3.2 (5): "If the acceptable ACK carries a DSACK option, then proceed to
        // step (DONE)".
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        let a = AcceptableAck {
            tsecr: Some(100),
            carries_dsack: true,
            acks_all: false,
        };
        assert_eq!(d.on_acceptable_ack(a), Some(false));
    }

    #[test]
    fn a_later_timeout_keeps_the_first_retransmit_ts_and_wraps_are_compared_mod_2_32() {
        let mut d = EifelDetector::default();
        d.on_recovery_start(u32::MAX - 5);
        d.on_recovery_start(20); // the retransmission timed out again: not overwritten
        assert!(d.armed());
        // u32::MAX - 10 is before u32::MAX - 5 (mod 2^32).
        assert_eq!(d.on_acceptable_ack(ack(u32::MAX - 10, false)), Some(true));
        let mut d = EifelDetector::default();
        d.on_recovery_start(3); // after the wrap
        assert_eq!(d.on_acceptable_ack(ack(u32::MAX - 1, false)), Some(true));
    }

    #[test]
    fn without_a_timestamp_there_is_no_verdict_of_spurious() {
        let mut d = EifelDetector::default();
        d.on_recovery_start(300);
        let a = AcceptableAck {
            tsecr: None,
            carries_dsack: false,
            acks_all: false,
        };
        assert_eq!(d.on_acceptable_ack(a), Some(false));
    }
}
