//! What a run records as it goes, besides the agents' own series: the packets its taps see
//! (pcap), every link direction's queue over time, and every data segment dropped in the
//! network. The world hands them packets, queue samples and drops; each is off unless the
//! scenario asked for it, and an unused one costs the hot path one test of a flag or an `Option`.

use super::PacketTap;
use crate::agent::Payload;
use crate::link::LinkDir;
use crate::packet::Packet;
use crate::record::series::{DropSeries, QueueSeries};
use crate::spec::{NodeIdx, Spec};
use crate::time::Time;

pub(super) struct Recorders {
    /// Per node, whether a tap records there (`record.pcap_at`).
    capture: Vec<bool>,
    pub(super) taps: Vec<(NodeIdx, Box<dyn PacketTap>)>,
    pub(super) queues: Option<QueueSeries>,
    pub(super) drops: Option<DropSeries>,
    /// Whether the world must book what its directions did (`World::book`): some direction
    /// has a loss model or a link layer, a schedule changes links, or series are recorded.
    pub(super) booking: bool,
}

impl Recorders {
    pub(super) fn build(
        spec: &Spec,
        dirs: &[LinkDir],
        schedule: &super::schedule::Schedule,
    ) -> Self {
        let mut capture = vec![false; spec.nodes.len()];
        for &node in &spec.record.pcap_at {
            capture[node] = true;
        }
        let booking = spec.record.series
            || !schedule.is_empty()
            || dirs
                .iter()
                .any(|d| !matches!(d.loss, crate::link::loss::LossModel::None))
            // A link layer's discards are booked as losses on the air are.
            || super::link_layers::any(dirs);
        Recorders {
            capture,
            taps: Vec::new(),
            queues: if spec.record.series && spec.record.queues {
                Some(QueueSeries::default())
            } else {
                None
            },
            drops: spec.record.series.then(DropSeries::default),
            booking,
        }
    }

    /// Whether node `node` has a tap (the check on the forwarding path).
    #[inline(always)]
    pub(super) fn captures(&self, node: NodeIdx) -> bool {
        self.capture[node]
    }

    /// Shows a TCP segment or a signalling message to node `node`'s taps.
    pub(super) fn packet(&mut self, now: Time, node: NodeIdx, pkt: &Packet) {
        if !self.capture[node] {
            return;
        }
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.packet(now, pkt);
            }
        }
    }

    /// Shows a TCP segment with what rides beside it to node `node`'s taps.
    pub(super) fn segment_with(
        &mut self,
        now: Time,
        node: NodeIdx,
        pkt: &Packet,
        payload: &Payload,
    ) {
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.segment_with(now, pkt, payload);
            }
        }
    }

    /// Shows an agent's datagram with its payload to node `node`'s taps.
    pub(super) fn datagram(&mut self, now: Time, node: NodeIdx, pkt: &Packet, payload: &Payload) {
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.datagram(now, pkt, payload);
            }
        }
    }
}
