//! A signalling message's retransmission timer: RFC 6275 §11.8's exponential back-off, "a
//! separate back-off process for different message types". The first wait is
//! INITIAL_BINDACK_TIMEOUT (InitialBindackTimeoutFirstReg for a first home registration), each
//! retransmission doubles it, up to MAX_BINDACK_TIMEOUT.

use super::MAX_BINDACK_TIMEOUT;
use crate::time::{Dur, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// When the message is due again, while it waits for its answer.
    pub due: Option<Time>,
    wait: Dur,
    /// Transmissions so far (the first included).
    pub sent: u32,
}

impl Backoff {
    pub const IDLE: Backoff = Backoff {
        due: None,
        wait: Dur::ZERO,
        sent: 0,
    };

    /// The message goes out now for the first time; it is due again after `first`.
    pub fn start(&mut self, now: Time, first: Dur) {
        *self = Backoff {
            due: Some(now + first),
            wait: first,
            sent: 1,
        };
    }

    /// Whether the message must be sent again now; if so the wait doubles (up to the cap).
    pub fn fire(&mut self, now: Time) -> bool {
        match self.due {
            Some(t) if t <= now => {
                self.wait = (self.wait + self.wait).min(MAX_BINDACK_TIMEOUT);
                self.due = Some(now + self.wait);
                self.sent += 1;
                true
            }
            _ => false,
        }
    }

    /// The answer came: no more retransmissions.
    pub fn stop(&mut self) {
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap() {
        // RFC 6275 §11.8: 1, 2, 4, ... s, at most MAX_BINDACK_TIMEOUT (32 s, §12).
        let mut b = Backoff::IDLE;
        let mut now = Time::ZERO;
        b.start(now, Dur::from_secs(1));
        let mut gaps = Vec::new();
        for _ in 0..8 {
            let due = b.due.unwrap();
            assert!(!b.fire(Time(due.as_nanos() - 1)));
            gaps.push(due.saturating_since(now).as_nanos() / 1_000_000_000);
            now = due;
            assert!(b.fire(now));
        }
        assert_eq!(gaps, vec![1, 2, 4, 8, 16, 32, 32, 32]);
        assert_eq!(b.sent, 9);
        b.stop();
        assert!(!b.fire(Time(u64::MAX)));
    }
}
