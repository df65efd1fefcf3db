//! SACK blocks (RFC 2018) and D-SACK blocks (RFC 2883) sent by a receiver.
//!
//! RFC 2883 §4 (receiver): a D-SACK block reports a duplicate segment and is always the
//! first block. The sender tells it apart (§4.1.1 and §5) as Linux's `tcp_check_dsack` does:
//! the first block starts below the cumulative ACK, or it lies inside the second block.

use super::tcp_analysis::{seq_le, seq_lt};

/// True if the first block of an ACK's SACK option is a D-SACK (RFC 2883 §4).
pub fn first_is_dsack(ack: u32, blocks: &[(u32, u32)]) -> bool {
    let Some(&(l0, r0)) = blocks.first() else {
        return false;
    };
    if seq_lt(l0, ack) {
        return true;
    }
    matches!(blocks.get(1), Some(&(l1, r1)) if seq_le(l1, l0) && seq_le(r0, r1))
}

/// Counts of SACK and D-SACK blocks one receiver sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackCount {
    /// All SACK blocks, D-SACK ones included.
    pub blocks: u64,
    /// Blocks that are D-SACK (at most one per ACK).
    pub dsack_blocks: u64,
}

impl SackCount {
    pub fn on_ack(&mut self, ack: u32, blocks: &[(u32, u32)]) {
        self.blocks += blocks.len() as u64;
        self.dsack_blocks += u64::from(first_is_dsack(ack, blocks));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_below_the_cumulative_ack_is_dsack() {
        // RFC 2883 §4.1.1: duplicate of already-acked data, block below ACK.
        assert!(first_is_dsack(3000, &[(1000, 2000)]));
    }

    #[test]
    fn a_first_block_inside_the_second_is_dsack() {
        // RFC 2883 §4.1.2: duplicate of out-of-order data still above the ACK.
        assert!(first_is_dsack(1000, &[(4000, 5000), (3000, 6000)]));
    }

    #[test]
    fn an_ordinary_sack_block_is_not() {
        // RFC 2018 §3: a block above the ACK reporting new out-of-order data.
        assert!(!first_is_dsack(1000, &[(2000, 3000)]));
        assert!(!first_is_dsack(1000, &[(4000, 5000), (2000, 3000)]));
        assert!(!first_is_dsack(1000, &[]));
    }
}
