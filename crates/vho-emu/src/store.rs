//! The bytes of the packets in the emulated network, by token: the world carries a packet's
//! token and size, the store its bytes. Slots are reused; once grown to the most packets in
//! flight at once it allocates nothing.

#[derive(Default)]
pub struct PacketStore {
    slots: Vec<Vec<u8>>,
    free: Vec<u32>,
}

impl PacketStore {
    pub fn insert(&mut self, bytes: &[u8]) -> u32 {
        let t = match self.free.pop() {
            Some(t) => t,
            None => {
                self.slots.push(Vec::with_capacity(bytes.len()));
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[t as usize];
        slot.clear();
        slot.extend_from_slice(bytes);
        t
    }

    pub fn get(&self, token: u32) -> &[u8] {
        &self.slots[token as usize]
    }

    pub fn release(&mut self, token: u32) {
        self.free.push(token);
    }

    /// Packets stored now.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_slot_is_reused_and_holds_the_new_bytes_only() {
        let mut s = PacketStore::default();
        let a = s.insert(&[1, 2, 3, 4]);
        let b = s.insert(&[5]);
        assert_eq!((s.get(a), s.get(b)), (&[1u8, 2, 3, 4][..], &[5u8][..]));
        s.release(a);
        assert_eq!(s.live(), 1);
        let c = s.insert(&[9, 9]);
        assert_eq!(c, a);
        assert_eq!(s.get(c), &[9u8, 9][..]);
        assert_eq!(s.live(), 2);
    }
}
