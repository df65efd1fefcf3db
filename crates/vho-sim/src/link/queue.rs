//! Drop-tail FIFO queue with a limit in packets or bytes.
//!
//! The limit counts packets *waiting*, not the one being serialised, as ns-2's
//! `Queue/DropTail` does (the link holds the packet in transmission; the queue is blocked
//! meanwhile). An arriving packet that would exceed the limit is dropped.

use crate::packet::PktIdx;
use std::collections::VecDeque;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

#[derive(Clone, Debug)]
pub struct DropTail {
    items: VecDeque<(PktIdx, u32)>,
    bytes: u64,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail {
            items: VecDeque::new(),
            bytes: 0,
            limit,
        }
    }
    pub fn limit(&self) -> Limit {
        self.limit
    }
    pub fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Whether a packet of `size` bytes fits.
    pub fn has_room(&self, size: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.items.len() as u64) < n as u64,
            Limit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }
    /// Appends the packet; `false` (and nothing stored) when it does not fit.
    pub fn offer(&mut self, idx: PktIdx, size: u32) -> bool {
        if !self.has_room(size) {
            return false;
        }
        self.push_unchecked(idx, size);
        true
    }
    /// Appends ignoring the limit (packets moved over at a soft handover stay, as in ns-2
    /// when a queue's limit shrinks without `shrink_queue`).
    pub fn push_unchecked(&mut self, idx: PktIdx, size: u32) {
        self.items.push_back((idx, size));
        self.bytes += size as u64;
    }
    pub fn pop(&mut self) -> Option<(PktIdx, u32)> {
        let head = self.items.pop_front()?;
        self.bytes -= head.1 as u64;
        Some(head)
    }
    /// Removes everything, in FIFO order.
    pub fn drain_all(&mut self) -> impl Iterator<Item = (PktIdx, u32)> + '_ {
        self.bytes = 0;
        self.items.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_drops_the_arrival_that_overflows() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.offer(1, 1500));
        assert!(q.offer(2, 40));
        assert!(!q.offer(3, 40));
        assert_eq!(q.pop(), Some((1, 1500)));
        assert!(q.offer(3, 40));
        assert_eq!(q.bytes(), 80);
    }

    #[test]
    fn byte_limit_counts_bytes_not_packets() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert!(q.offer(1, 1500));
        assert!(q.offer(2, 1500));
        assert!(!q.offer(3, 1));
    }
}
