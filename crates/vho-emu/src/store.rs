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
