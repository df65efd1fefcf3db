//! Capture time as vho reports it: seconds from the capture's first packet, as Wireshark's
//! "Seconds Since Beginning of Capture" (`frame.time_relative`), so that a real capture's
//! figures and metrics read 0 to its length and not "+1.795e9".
//!
//! A capture whose first packet is stamped within the first day of 1970 was written by a
//! simulator (vho, ns-2 and ns-3 stamp packets with simulated time from zero): its clock is
//! already relative to the simulation's start, and times keep it, so that they match the
//! scenario's (a flow started at 1 s is still at 1 s).

use serde::Serialize;

/// First-packet stamps below this (one day after the Unix epoch) are a simulator's clock.
pub const SIMULATED_CLOCK_BELOW_NS: u64 = 86_400 * 1_000_000_000;

/// Where a capture's time zero is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The capture's first packet (a wall-clock capture).
    #[default]
    FirstPacket,
    /// The capture's own clock: a simulator's, already from the simulation's start.
    SimulatedClock,
}

impl Origin {
    /// The origin of a capture whose first packet is stamped `first_ns` (ns since the epoch).
    pub fn of(first_ns: u64) -> Self {
        if first_ns < SIMULATED_CLOCK_BELOW_NS {
            Origin::SimulatedClock
        } else {
            Origin::FirstPacket
        }
    }
}

/// Turns a capture's stamps into times from its origin, set by the first packet.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    /// The origin's stamp (ns since the Unix epoch), once the first packet is seen.
    origin_ns: Option<u64>,
    origin: Origin,
    /// The latest time seen (from the origin).
    last_ns: u64,
    /// Packets stamped before the origin (a clock stepped back): given time zero.
    pub before_origin: u64,
}

impl Clock {
    /// The time of a packet stamped `ts_ns`, from the origin (zero for one stamped before it).
    pub fn relative(&mut self, ts_ns: u64) -> u64 {
        let origin = *self.origin_ns.get_or_insert_with(|| {
            self.origin = Origin::of(ts_ns);
            match self.origin {
                Origin::SimulatedClock => 0,
                Origin::FirstPacket => ts_ns,
            }
        });
        if ts_ns < origin {
            self.before_origin += 1;
        }
        let t = ts_ns.saturating_sub(origin);
        self.last_ns = self.last_ns.max(t);
        t
    }

    /// The origin's stamp in ns since the Unix epoch (`None` before the first packet).
    pub fn origin_ns(&self) -> Option<u64> {
        self.origin_ns
    }

    /// What the origin is.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The latest packet's time from the origin.
    pub fn last_ns(&self) -> u64 {
        self.last_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_clock_capture_starts_at_its_first_packet() {
        let mut c = Clock::default();
        let t0 = 1_795_347_750_700_000_000;
        assert_eq!(c.relative(t0), 0);
        assert_eq!(c.relative(t0 + 2_500_000_000), 2_500_000_000);
        assert_eq!(c.origin(), Origin::FirstPacket);
        assert_eq!(c.origin_ns(), Some(t0));
        assert_eq!(c.last_ns(), 2_500_000_000);
    }

    #[test]
    fn a_simulators_clock_keeps_its_times() {
        let mut c = Clock::default();
        assert_eq!(c.relative(1_000_000_000), 1_000_000_000);
        assert_eq!(c.relative(5_000_000_000), 5_000_000_000);
        assert_eq!(c.origin(), Origin::SimulatedClock);
        assert_eq!(c.origin_ns(), Some(0));
    }

    #[test]
    fn a_packet_before_the_first_is_counted_and_put_at_zero() {
        let mut c = Clock::default();
        let t0 = 1_795_347_750_000_000_000;
        c.relative(t0);
        assert_eq!(c.relative(t0 - 1_000), 0);
        assert_eq!(c.before_origin, 1);
    }
}
