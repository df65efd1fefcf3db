//! Drop-tail FIFO queue with a limit in packets or bytes.
//!
//! What the limit counts is the [`QueueModel`]: packets *waiting* (the one being serialised
//! has left the queue, as in Linux's `pfifo`), or ns-2's rule, where an arrival is dropped
//! once `waiting + 1` reaches the limit, so that the packet on the air counts (queue/
//! drop-tail.cc, `DropTail::enque`). Every arrival passes the queue, even to an idle link,
//! in both. An arriving packet that would exceed the limit is dropped.

use super::Held;
use crate::packet::PktIdx;
pub use crate::spec::QueueModel;
use std::collections::VecDeque;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

#[derive(Clone, Debug)]
pub struct DropTail {
    items: VecDeque<Held>,
    bytes: u64,
    limit: Limit,
    model: QueueModel,
}

impl DropTail {
    pub fn new(limit: Limit, model: QueueModel) -> Self {
        DropTail {
            items: VecDeque::new(),
            bytes: 0,
            limit,
            model,
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
    #[inline]
    pub fn has_room(&self, size: u32) -> bool {
        let (len, bytes) = (self.items.len() as u64, self.bytes + size as u64);
        match (self.limit, self.model) {
            // ns-2 drops once waiting + 1 reaches the limit; with its Delayer the head waits
            // outside the queue, so as many wait as with the plain rule.
            (Limit::Packets(n), m) => len + u64::from(m == QueueModel::Ns2DropTail) < n as u64,
            (Limit::Bytes(b), QueueModel::DropTail) => bytes <= b,
            // red.cc enque: forced when the bytes already waiting reach the limit.
            (Limit::Bytes(b), QueueModel::Red) => self.bytes < b,
            (Limit::Bytes(b), QueueModel::Ns2DropTail) => bytes < b,
            (Limit::Bytes(b), QueueModel::Ns2DropTailDelayer) => {
                bytes - self.items.front().map_or(0, |h| h.size as u64) < b
            }
        }
    }
    /// Appends the packet; `false` (and nothing stored) when it does not fit.
    pub fn offer(&mut self, p: Held) -> bool {
        if !self.has_room(p.size) {
            return false;
        }
        self.push_unchecked(p);
        true
    }
    /// Appends ignoring the limit (packets moved over at a soft handover stay, as in ns-2
    /// when a queue's limit shrinks without `shrink_queue`).
    pub fn push_unchecked(&mut self, p: Held) {
        self.items.push_back(p);
        self.bytes += p.size as u64;
    }
    pub fn pop(&mut self) -> Option<Held> {
        let head = self.items.pop_front()?;
        self.bytes -= head.size as u64;
        Some(head)
    }
    /// Removes everything, in FIFO order.
    /// The packets waiting, head first.
    pub fn iter(&self) -> impl Iterator<Item = PktIdx> + '_ {
        self.items.iter().map(|p| p.idx)
    }

    pub fn drain_all(&mut self) -> impl Iterator<Item = Held> + '_ {
        self.bytes = 0;
        self.items.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(idx: PktIdx, size: u32) -> Held {
        Held::test(idx, size)
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_overflows() {
        let mut q = DropTail::new(Limit::Packets(2), QueueModel::DropTail);
        assert!(q.offer(h(1, 1500)));
        assert!(q.offer(h(2, 40)));
        assert!(!q.offer(h(3, 40)));
        assert_eq!(q.pop(), Some(h(1, 1500)));
        assert!(q.offer(h(3, 40)));
        assert_eq!(q.bytes(), 80);
    }

    #[test]
    fn byte_limit_counts_bytes_not_packets() {
        let mut q = DropTail::new(Limit::Bytes(3000), QueueModel::DropTail);
        assert!(q.offer(h(1, 1500)));
        assert!(q.offer(h(2, 1500)));
        assert!(!q.offer(h(3, 1)));
    }

    #[test]
    fn ns2_drops_when_waiting_plus_one_reaches_the_limit() {
        // ns-2.35 queue/drop-tail.cc DropTail::enque: drop if length + 1 >= qlim_; the
        // packet being transmitted was dequeued, so qlim_ 3 holds 2 waiting + 1 on the air.
        let mut q = DropTail::new(Limit::Packets(3), QueueModel::Ns2DropTail);
        assert!(q.offer(h(1, 1500)));
        assert!(q.offer(h(2, 1500)));
        assert!(!q.offer(h(3, 1500)));
        // Bytes: byteLength + size >= qlim_ * mean_pktsize_ drops.
        let mut b = DropTail::new(Limit::Bytes(3000), QueueModel::Ns2DropTail);
        assert!(b.offer(h(1, 1500)));
        assert!(!b.offer(h(2, 1500)));
        assert!(b.offer(h(2, 1499)));
    }

    #[test]
    fn red_drops_when_what_waits_reaches_the_limit() {
        // ns-2.35 red.cc REDQueue::enque: `if (qlen >= qlim) droptype = DTYPE_FORCED`, qlen
        // before the arrival: qlim_ 3 lets 3 wait (one more than DropTail's `length + 1`).
        let mut q = DropTail::new(Limit::Packets(3), QueueModel::Red);
        assert!(q.offer(h(1, 1500)) && q.offer(h(2, 1500)) && q.offer(h(3, 1500)));
        assert!(!q.offer(h(4, 40)));
        // Bytes: 2999 waiting < 3000 admits a whole packet more.
        let mut b = DropTail::new(Limit::Bytes(3000), QueueModel::Red);
        assert!(b.offer(h(1, 1500)) && b.offer(h(2, 1499)) && b.offer(h(3, 1500)));
        assert!(!b.offer(h(4, 1)));
    }

    #[test]
    fn ns2s_delayer_holds_one_packet_more() {
        // delayer.cc: the Delayer between queue and link holds one packet (`pkt_`) that the
        // DropTail queue no longer counts: with qlim_ 3, 3 wait here (one of them in the
        // Delayer) where plain ns2-droptail lets 2 wait.
        let mut q = DropTail::new(Limit::Packets(3), QueueModel::Ns2DropTailDelayer);
        assert!(q.offer(h(1, 1500)) && q.offer(h(2, 1500)) && q.offer(h(3, 1500)));
        assert!(!q.offer(h(4, 1500)));
        // Bytes: the head is not counted; 1500 more waiting + 1500 arriving reach 3000.
        let mut b = DropTail::new(Limit::Bytes(3000), QueueModel::Ns2DropTailDelayer);
        assert!(b.offer(h(1, 1500)) && b.offer(h(2, 1500)));
        assert!(!b.offer(h(3, 1500)));
        assert!(b.offer(h(3, 1499)));
    }
}
