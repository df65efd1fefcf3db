//! TCP sequence numbers: 32-bit values compared modulo 2^32 (RFC 793 §3.3, RFC 1982 serial
//! number arithmetic).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Sub};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// Signed distance `self - other`, valid while the two are within 2^31 of each other.
    pub fn diff(self, other: SeqNum) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self >= other {
            self
        } else {
            other
        }
    }
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNum {
    fn partial_cmp(&self, other: &SeqNum) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
/// Wrap-around order: `a < b` iff `b - a` (mod 2^32) is in (0, 2^31).
impl Ord for SeqNum {
    fn cmp(&self, other: &SeqNum) -> Ordering {
        self.diff(*other).cmp(&0)
    }
}

impl Add<u32> for SeqNum {
    type Output = SeqNum;
    fn add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }
}
impl Sub<u32> for SeqNum {
    type Output = SeqNum;
    fn sub(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_sub(n))
    }
}
/// Distance in bytes from `other` up to `self` (caller ensures `self >= other`).
impl Sub for SeqNum {
    type Output = u32;
    fn sub(self, other: SeqNum) -> u32 {
        self.0.wrapping_sub(other.0)
    }
}

impl fmt::Debug for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_wraps_around() {
        // RFC 1982 §3.2: 2^32 - 1 < 0 in serial arithmetic of 32 bits.
        assert!(SeqNum(u32::MAX) < SeqNum(0));
        assert!(SeqNum(u32::MAX - 10) + 20 > SeqNum(u32::MAX));
        assert_eq!((SeqNum(u32::MAX - 1) + 4) - SeqNum(u32::MAX - 1), 4);
        assert_eq!(SeqNum(5).diff(SeqNum(10)), -5);
    }
}
