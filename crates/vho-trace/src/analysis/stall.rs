//! The longest stall of a direction's data: the longest time during which data was
//! outstanding (sent, not yet acknowledged) and the cumulative ACK did not move. Idle time
//! with nothing outstanding is not a stall (the application had nothing to send).

/// Tracks stalls for the data one direction sends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stall {
    /// When the current wait for the ACK to advance began, if data is outstanding.
    since_ns: Option<u64>,
    pub longest_ns: u64,
}

impl Stall {
    /// Data was sent at `now`; the wait starts if nothing was outstanding.
    pub fn on_send(&mut self, now: u64) {
        self.since_ns.get_or_insert(now);
    }

    /// The cumulative ACK advanced at `now`; `outstanding` if data remains unacknowledged.
    pub fn on_advance(&mut self, now: u64, outstanding: bool) {
        if let Some(t) = self.since_ns {
            self.longest_ns = self.longest_ns.max(now.saturating_sub(t));
        }
        self.since_ns = outstanding.then_some(now);
    }

    /// The flow ended at `end`: a wait still open counts up to it.
    pub fn finish(&mut self, end: u64) {
        if let Some(t) = self.since_ns.take() {
            self.longest_ns = self.longest_ns.max(end.saturating_sub(t));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_stall_is_the_longest_gap_between_ack_advances_with_data_outstanding() {
        let mut s = Stall::default();
        s.on_send(0);
        s.on_advance(40 * MS, true);
        s.on_advance(1040 * MS, false); // a 1 s stall (RTO)
        s.on_send(5000 * MS); // idle 4 s with nothing outstanding: not a stall
        s.on_advance(5050 * MS, false);
        assert_eq!(s.longest_ns, 1000 * MS);
    }

    #[test]
    fn an_open_wait_at_the_end_counts_up_to_the_end() {
        let mut s = Stall::default();
        s.on_send(0);
        s.finish(3000 * MS);
        assert_eq!(s.longest_ns, 3000 * MS);
    }
}
