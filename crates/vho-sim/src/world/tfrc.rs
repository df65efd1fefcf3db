//! TFRC flows in the world (`[[flow]] kind = "tfrc"`): the sans-IO sender and receiver of
//! `crate::tfrc` driven as the TCP endpoints are, their packets carried as UDP datagrams.
//!
//! A TFRC packet is a [`Packet`] with the `net::TFRC` bit; its header (RFC 5348 §3.2.1 data,
//! §3.2.2 feedback) rides beside the slab in `World::tfrc_headers`, indexed by the packet's
//! slot, so that `Packet` stays 136 bytes and the TCP path does not see TFRC at all: a TFRC
//! packet takes the `net != 0` branch at its destination (`forward::arrive`), its drops the
//! not-TCP one (`Packet::is_tcp`), its timers their own event (`Event::TfrcWake`).
//!
//! Not supported yet: TFRC with `[mipv6]` (a Mobile IPv6 entity routes TCP only) and node
//! functions that act on TCP (they leave a TFRC packet alone).

use super::{Event, World};
use crate::link::DropCause;
use crate::net::routes::DirIdx;
use crate::packet::{net, Packet, PktIdx};
use crate::probe::ProbeConfig;
use crate::record::series::{ProbeSeries, TfrcSample, TfrcSeries};
use crate::spec::{FlowKind, NodeIdx};
use crate::tfrc::{
    TfrcConfig, TfrcHeader, TfrcReceiver, TfrcSender, DATA_HEADER_BYTES, FEEDBACK_BYTES,
};
use crate::time::Time;

const SENDER: usize = 0;

/// A TFRC flow's two endpoints and what the run keeps of them.
pub(super) struct TfrcFlow {
    pub(super) sender: TfrcSender,
    pub(super) receiver: TfrcReceiver,
    /// Earliest live wake-up scheduled per side.
    wake: [Option<Time>; 2],
    pub(super) series: Option<TfrcSeries>,
    /// TFRC Probe's estimate over time (with series and the probe).
    pub(super) probe_series: Option<ProbeSeries>,
    /// X_recv of the last feedback the sender got, bytes per second.
    pub(super) x_recv: f64,
    /// The receiver's p integrated over time (p·ns) since the flow started, and when p last
    /// changed: its time-weighted mean at the end.
    p_area: f64,
    p_since: Time,
    p_last: f64,
    segment_size: u32,
    /// Data packets sent and not yet delivered or dropped: a sized flow (`flow.size`) that
    /// has sent its bytes completes when this is 0 (TFRC does not retransmit: what was lost
    /// stays lost, `bytes_received` tells what arrived).
    data_in_network: u64,
    /// The sender has sent the flow's `size` (it sends no more and arms no timer).
    sent_all: bool,
}

impl TfrcFlow {
    pub(super) fn new(cfg: &TfrcConfig, probe: &ProbeConfig, start: Time, series: bool) -> Self {
        TfrcFlow {
            sender: TfrcSender::new(cfg, start).with_probe(probe),
            receiver: TfrcReceiver::new(cfg).with_probe(probe),
            wake: [None, None],
            series: series.then(TfrcSeries::default),
            probe_series: (series && probe.enabled).then(ProbeSeries::default),
            x_recv: 0.0,
            p_area: 0.0,
            p_since: start,
            p_last: 0.0,
            segment_size: cfg.segment_size,
            data_in_network: 0,
            sent_all: false,
        }
    }

    /// What `summary.json` says of the flow, run from `start` to `now`.
    pub(super) fn summary(&self, start: Time, now: Time) -> super::summary::TfrcSummary {
        let (st, rs) = (self.sender.stats(), self.receiver.stats());
        let span = now.saturating_since(start).as_secs_f64();
        let per_s = |bytes: u64| {
            if span > 0.0 {
                bytes as f64 * 8.0 / span
            } else {
                0.0
            }
        };
        let probe = self.sender.probe();
        super::summary::TfrcSummary {
            packet_size: self.segment_size,
            packets_sent: st.packets_sent,
            bytes_sent: st.bytes_sent,
            packets_received: rs.packets_received,
            bytes_received: rs.bytes_received,
            mean_sending_rate_bps: per_s(st.bytes_sent),
            mean_throughput_bps: per_s(rs.bytes_received),
            final_rate_bps: probe.x * 8.0,
            final_p: self.receiver.loss_event_rate(),
            mean_p: self.mean_p(start, now),
            final_rtt_s: probe.rtt.map(|r| r.as_secs_f64()),
            packets_lost: rs.packets_lost,
            loss_events: rs.loss_events,
            feedback_sent: rs.feedbacks_sent,
            feedback_received: st.feedbacks,
            expedited_feedback: rs.expedited_feedbacks,
            nofeedback_expiries: st.nofeedback_expiries,
        }
    }

    /// TFRC Probe's pairs, estimate and detections.
    pub(super) fn probe_summary(&self, handovers: &[Time]) -> super::summary::ProbeSummary {
        super::summary::probe_summary(
            self.receiver.probe_pairs(),
            self.receiver.capacity_estimate(),
            self.sender
                .detections()
                .iter()
                .map(|d| (d.handoff, d.action)),
            handovers,
        )
    }

    /// The receiver's loss event rate, time-weighted over [start, `now`].
    pub(super) fn mean_p(&self, start: Time, now: Time) -> f64 {
        let span = now.saturating_since(start).as_nanos() as f64;
        if span == 0.0 {
            return 0.0;
        }
        let tail = self.p_last * now.saturating_since(self.p_since).as_nanos() as f64;
        (self.p_area + tail) / span
    }

    fn note_p(&mut self, now: Time) {
        let p = self.receiver.loss_event_rate();
        if p != self.p_last {
            self.p_area += self.p_last * now.saturating_since(self.p_since).as_nanos() as f64;
            self.p_since = now;
            self.p_last = p;
        }
    }

    fn sample(&mut self, now: Time) {
        if let Some(series) = &mut self.series {
            let probe = self.sender.probe();
            series.push(
                now,
                TfrcSample {
                    x: probe.x,
                    x_recv: self.x_recv,
                    p: probe.p,
                    rtt_ns: probe.rtt.map_or(0, |r| r.as_nanos()),
                },
            );
        }
    }
}

/// The TFRC endpoints of every flow that has them (`None` for TCP flows), built from the spec.
pub(super) fn build(spec: &crate::spec::Spec) -> Vec<Option<Box<TfrcFlow>>> {
    spec.flows
        .iter()
        .map(|fs| match fs.kind {
            FlowKind::Tcp | FlowKind::Pareto(_) => None,
            FlowKind::Tfrc(cfg) => Some(Box::new(TfrcFlow::new(
                &cfg,
                &fs.probe,
                fs.start,
                spec.record.series,
            ))),
        })
        .collect()
}

impl World {
    fn tfrc_flow(&mut self, f: usize) -> &mut TfrcFlow {
        self.flows[f]
            .tfrc
            .as_deref_mut()
            .expect("invariant: a TFRC event names a TFRC flow")
    }

    /// A TFRC endpoint's timer may have expired.
    #[cold]
    #[inline(never)]
    pub(super) fn on_tfrc_wake(&mut self, f: usize, side: usize) {
        let now = self.now;
        let flow = self.tfrc_flow(f);
        if flow.wake[side] == Some(now) {
            flow.wake[side] = None;
        }
        if side == SENDER {
            flow.sender.handle_timeout(now);
        } else {
            flow.receiver.handle_timeout(now);
        }
        self.pump_tfrc(f, side);
    }

    /// Lets one TFRC endpoint send all it may now, then re-arms its wake-up.
    pub(super) fn pump_tfrc(&mut self, f: usize, side: usize) {
        let now = self.now;
        if !self.flows[f].started {
            return;
        }
        let offered = self.spec.flows[f].bytes;
        loop {
            let flow = self.tfrc_flow(f);
            let hdr = if side == SENDER {
                // The application's bytes (`flow.size`; unbounded by default) are all sent:
                // the sender stops (issue 40 item 19: its next send time stayed due, a wake-up
                // at the same instant without end).
                if flow.sender.stats().bytes_sent >= offered {
                    flow.sent_all = true;
                    None
                } else {
                    flow.sender.poll_transmit(now).map(TfrcHeader::Data)
                }
            } else {
                flow.receiver.poll_transmit(now).map(TfrcHeader::Feedback)
            };
            let Some(hdr) = hdr else { break };
            self.emit_tfrc(f, side, hdr);
        }
        let flow = self.flows[f]
            .tfrc
            .as_deref_mut()
            .expect("invariant: a TFRC event names a TFRC flow");
        let next = if side == SENDER && flow.sent_all {
            None
        } else if side == SENDER {
            flow.sender.poll_timeout()
        } else if flow.sent_all && flow.data_in_network == 0 {
            None // nothing more will arrive: no more feedback
        } else {
            flow.receiver.poll_timeout()
        };
        if let Some(t) = next {
            let t = t.max(now);
            if flow.wake[side].is_none_or(|w| t < w || w < now) {
                flow.wake[side] = Some(t);
                let ev = Event::TfrcWake {
                    flow: f as u32,
                    side: side as u8,
                };
                self.queue.schedule(t, ev);
            }
        }
        if side == SENDER {
            flow.sample(now);
        }
    }

    /// Wraps a TFRC header into a UDP packet at its host and sends it on its way.
    fn emit_tfrc(&mut self, f: usize, side: usize, hdr: TfrcHeader) {
        let spec = &self.spec.flows[f];
        let (src, dst) = if side == SENDER {
            (spec.src, spec.dst)
        } else {
            (spec.dst, spec.src)
        };
        let wire_bytes = match hdr {
            TfrcHeader::Data(d) => DATA_HEADER_BYTES + d.size,
            TfrcHeader::Feedback(_) => FEEDBACK_BYTES,
        };
        if let TfrcHeader::Data(_) = hdr {
            self.tfrc_flow(f).data_in_network += 1;
        }
        let flow = &mut self.flows[f];
        let ip_id = flow.ip_id[side];
        flow.ip_id[side] = ip_id.wrapping_add(1);
        let idx = self.slab.insert(Packet {
            flow: f as u32,
            to_receiver: side == SENDER,
            src: src as u32,
            dst: dst as u32,
            wire_bytes,
            ip_id,
            sent_at: self.now,
            net: net::TFRC,
            ..Packet::default()
        });
        let i = idx as usize;
        if self.tfrc_headers.len() <= i {
            self.tfrc_headers.resize(i + 1, hdr);
        }
        self.tfrc_headers[i] = hdr;
        if self.capture[src] {
            self.tap_tfrc(src, idx);
        }
        self.forward(src, idx, None);
    }

    fn tap_tfrc(&mut self, node: NodeIdx, idx: PktIdx) {
        let (now, pkt, hdr) = (
            self.now,
            *self.slab.get(idx),
            self.tfrc_headers[idx as usize],
        );
        for (n, tap) in self.taps.iter_mut() {
            if *n == node {
                tap.tfrc_packet(now, &pkt, &hdr);
            }
        }
    }

    /// Hands a TFRC packet that reached its destination to its endpoint.
    #[cold]
    #[inline(never)]
    pub(super) fn deliver_tfrc(&mut self, node: NodeIdx, via: DirIdx, idx: PktIdx) {
        if self.capture[node] {
            self.tap_tfrc(node, idx);
        }
        let now = self.now;
        let (f, to_receiver) = {
            let pkt = self.slab.get(idx);
            (pkt.flow as usize, pkt.to_receiver)
        };
        let hdr = self.tfrc_headers[idx as usize];
        self.slab.release(idx);
        let flow = self.tfrc_flow(f);
        match (hdr, to_receiver) {
            (TfrcHeader::Data(d), true) => {
                flow.data_in_network = flow.data_in_network.saturating_sub(1);
                let before = flow.receiver.stats().bytes_received;
                flow.receiver.handle_data(now, &d);
                flow.note_p(now);
                if let (Some(series), Some(c)) = (
                    flow.probe_series.as_mut(),
                    flow.receiver.capacity_estimate(),
                ) {
                    series.push(now, c);
                }
                let after = flow.receiver.stats().bytes_received;
                let f_ = &mut self.flows[f];
                // The same receiver throughput and first packet over a new link as TCP's.
                f_.tput.push(now.as_nanos(), after - before);
                if f_.await_new_link == Some(crate::net::routes::dir_link(via)) {
                    f_.await_new_link = None;
                    f_.first_on_new_link = Some(now);
                    f_.tput.set_first_new(now.as_nanos());
                }
                if let Some(w) = &mut f_.window {
                    w.note(now, after);
                }
                if let Some(bins) = &mut f_.rx_bins {
                    bins.add(now, after - before);
                }
                if f_.completed_at.is_none() && after >= self.spec.flows[f].bytes {
                    f_.completed_at = Some(now);
                }
                self.pump_tfrc(f, 1);
                self.tfrc_maybe_complete(f);
            }
            (TfrcHeader::Feedback(fb), false) => {
                flow.x_recv = fb.x_recv;
                flow.sender.handle_feedback(now, &fb);
                self.pump_tfrc(f, SENDER);
            }
            _ => {}
        }
    }

    /// A sized flow that has sent its bytes completes once none of its data is left in the
    /// network (each packet delivered or dropped), if it did not by receiving them all.
    fn tfrc_maybe_complete(&mut self, f: usize) {
        let now = self.now;
        let Some(fl) = self.flows.get_mut(f) else {
            return;
        };
        let Some(t) = fl.tfrc.as_deref() else { return };
        if fl.completed_at.is_none() && t.sent_all && t.data_in_network == 0 {
            fl.completed_at = Some(now);
        }
        if fl.completed_at.is_some() {
            self.maybe_done = true;
        }
    }

    /// Books a dropped TFRC packet to its flow, and a data packet to the drop series (with
    /// series: Chen et al. Fig. 9 counts the packets lost around a handoff), its `seq` the
    /// packet's offset from the flow's first data byte as TCP's (sequence number times s).
    pub(super) fn book_tfrc_drop(
        &mut self,
        idx: PktIdx,
        pkt: &Packet,
        d: Option<DirIdx>,
        cause: DropCause,
    ) {
        let slot = DropCause::ALL.iter().position(|&c| c == cause).unwrap_or(0);
        if let (Some(d), Some(flow)) = (d, self.flows.get_mut(pkt.flow as usize)) {
            flow.drops[d as usize][slot] += 1;
        }
        let f = pkt.flow as usize;
        if pkt.to_receiver {
            if let Some(t) = self.flows.get_mut(f).and_then(|x| x.tfrc.as_deref_mut()) {
                t.data_in_network = t.data_in_network.saturating_sub(1);
            }
            self.tfrc_maybe_complete(f);
        }
        // The header stays in its slot until the slot is reused (after this drop).
        if let (Some(ds), Some(TfrcHeader::Data(h))) = (
            &mut self.drop_series,
            self.tfrc_headers.get(idx as usize).copied(),
        ) {
            let offset = h.seq.wrapping_mul(u64::from(h.size)) as u32;
            ds.push(self.now, pkt.flow, offset, h.size, d, slot as u8);
        }
    }
}
