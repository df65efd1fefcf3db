//! The endpoints' timers: a fixed table indexed by a fieldless enum (as quinn's `TimerTable`).
//! Stopping a timer writes `None`; nothing is allocated or searched.

use crate::time::Time;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Timer {
    /// Retransmission timer (RFC 6298 §5); also retransmits a SYN or SYN-ACK.
    Retransmit = 0,
    /// Delayed-ACK timer (RFC 1122 §4.2.3.2).
    DelayedAck = 1,
}

const COUNT: usize = 2;

#[derive(Clone, Copy, Debug, Default)]
pub struct TimerTable {
    at: [Option<Time>; COUNT],
}

impl TimerTable {
    pub fn set(&mut self, t: Timer, at: Time) {
        self.at[t as usize] = Some(at);
    }
    pub fn stop(&mut self, t: Timer) {
        self.at[t as usize] = None;
    }
    pub fn get(&self, t: Timer) -> Option<Time> {
        self.at[t as usize]
    }
    pub fn is_running(&self, t: Timer) -> bool {
        self.at[t as usize].is_some()
    }
    /// Whether `t` has expired by `now`.
    pub fn expired(&self, t: Timer, now: Time) -> bool {
        self.at[t as usize].is_some_and(|at| at <= now)
    }
    /// The earliest deadline.
    pub fn next(&self) -> Option<Time> {
        self.at.iter().flatten().copied().min()
    }
}
