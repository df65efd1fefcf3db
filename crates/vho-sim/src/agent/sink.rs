//! A counting sink (ns-2's `Agent/Null`, counted): what reaches it is counted, by packets,
//! bytes and bytes per [`super::CROSS_INTERVAL`], and freed; it never sends.

use super::pareto::Bins;
use super::{Agent, AgentSeries, Arrival, Payload, Transmit};
use crate::packet::Packet;
use crate::time::Time;

pub struct Sink {
    pub packets: u64,
    pub bytes: u64,
    delivered: Bins,
    /// Whether its packets go into captures (`record.pcap_cross` for cross traffic's).
    captured: bool,
}

impl Sink {
    pub fn new(captured: bool) -> Self {
        Sink {
            packets: 0,
            bytes: 0,
            delivered: Bins::default(),
            captured,
        }
    }
}

impl Agent for Sink {
    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit> {
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn handle_timeout(&mut self, _now: Time) {}

    #[inline(always)]
    fn handle_packet(&mut self, now: Time, pkt: &Packet, _: &Payload) -> Arrival {
        let size = u64::from(pkt.wire_bytes);
        self.packets += 1;
        self.bytes += size;
        self.delivered.add(now, size);
        Arrival::default()
    }

    fn captured(&self) -> bool {
        self.captured
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            cross_delivered: Some(std::mem::take(&mut self.delivered.bytes)),
            ..Default::default()
        }
    }
}
