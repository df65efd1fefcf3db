//! Simulated time: integer nanoseconds on a `u64`.
//!
//! No float ever sits on the clock. Floats appear only at the edges: when a scenario is parsed
//! (`Dur::from_secs_f64`) and when a summary is written (`Time::as_secs_f64`). A `u64` of
//! nanoseconds spans 584 years, so overflow is not a concern for any simulated run; arithmetic
//! still saturates rather than wraps so that "never" (`Time::MAX`) stays never.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant, in nanoseconds since the start of the run.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

/// A span of time, in nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dur(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;
pub const NANOS_PER_MILLI: u64 = 1_000_000;
pub const NANOS_PER_MICRO: u64 = 1_000;

impl Time {
    pub const ZERO: Time = Time(0);
    /// "Never": a deadline that does not expire.
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * NANOS_PER_MILLI)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * NANOS_PER_SEC)
    }
    /// Parse-edge conversion; rounds to the nearest nanosecond. Negative or NaN input gives 0.
    pub fn from_secs_f64(s: f64) -> Time {
        Time(Dur::from_secs_f64(s).0)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Summary-edge conversion.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is in the future.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * NANOS_PER_MICRO)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * NANOS_PER_MILLI)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NANOS_PER_SEC)
    }
    /// Parse-edge conversion; rounds to the nearest nanosecond. Negative or NaN input gives 0
    /// (validation rejects those before they get here).
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else if s >= u64::MAX as f64 / NANOS_PER_SEC as f64 {
            Dur::MAX
        } else {
            Dur((s * NANOS_PER_SEC as f64).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_MILLI as f64
    }
    pub const fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
    pub const fn saturating_sub(self, other: Dur) -> Dur {
        Dur(self.0.saturating_sub(other.0))
    }
    /// Round up to a whole multiple of `granularity` (a clock tick). A zero granularity leaves
    /// the value unchanged.
    pub fn ceil_to(self, granularity: Dur) -> Dur {
        if granularity.0 == 0 {
            return self;
        }
        let g = granularity.0;
        Dur(self.0.div_ceil(g).saturating_mul(g))
    }

    /// Time to serialise `bytes` at `rate_bps` bits per second.
    ///
    /// Rounding rule: up to the next whole nanosecond, so a link never sends faster than its
    /// rate. A zero rate means "never" (a blocked link never finishes).
    pub fn serialization(bytes: u32, rate_bps: u64) -> Dur {
        if rate_bps == 0 {
            return Dur::MAX;
        }
        if bytes < 1 << 31 {
            // bytes * 8e9 < 2^31 * 8e9 < 2^64: no need for the (slow) 128-bit division.
            return Dur((bytes as u64 * 8 * NANOS_PER_SEC).div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
        Dur(bits.div_ceil(rate_bps as u128) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Debug for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_rounds_up_to_whole_nanoseconds() {
        // 1500 bytes at 5 Mb/s = 12000 bits / 5e6 = 2.4 ms exactly.
        assert_eq!(Dur::serialization(1500, 5_000_000), Dur::from_micros(2400));
        // 1 byte at 3 b/s = 8/3 s = 2.666...s, rounded up.
        assert_eq!(Dur::serialization(1, 3), Dur(2_666_666_667));
        assert_eq!(Dur::serialization(1, 0), Dur::MAX);
    }

    #[test]
    fn ceil_to_granularity() {
        assert_eq!(
            Dur::from_millis(201).ceil_to(Dur::from_millis(10)),
            Dur::from_millis(210)
        );
        assert_eq!(
            Dur::from_millis(200).ceil_to(Dur::from_millis(10)),
            Dur::from_millis(200)
        );
        assert_eq!(Dur::from_millis(7).ceil_to(Dur::ZERO), Dur::from_millis(7));
    }

    #[test]
    fn float_edges_round_to_nearest_and_clamp() {
        assert_eq!(Dur::from_secs_f64(0.0015), Dur::from_micros(1500));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur::ZERO);
        assert_eq!(Time::from_secs_f64(0.6).as_nanos(), 600_000_000);
        assert_eq!(Time::MAX + Dur::from_secs(1), Time::MAX);
    }
}
