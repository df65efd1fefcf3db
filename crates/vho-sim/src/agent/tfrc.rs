//! TFRC's two ends as agents (`[[flow]] kind = "tfrc"`): `crate::tfrc`'s sender and receiver,
//! their packets UDP datagrams whose header (RFC 5348 §3.2.1 data, §3.2.2 feedback) rides
//! beside the slab as [`Payload::Tfrc`].

use super::{Agent, AgentSeries, Arrival, Fate, FateOut, HandoverNote, Payload, Transmit};
use crate::packet::Packet;
use crate::probe::summary::ProbeSummary;
use crate::record::series::{ProbeSeries, RowSink, Rows, SeriesId, TfrcSample, TfrcSeries};
use crate::spec::FlowSpec;
use crate::tfrc::{
    TfrcConfig, TfrcHeader, TfrcReceiver, TfrcSender, DATA_HEADER_BYTES, FEEDBACK_BYTES,
};
use crate::time::Time;
use serde::Serialize;

/// The sender.
pub struct TfrcSource {
    sender: TfrcSender,
    /// The application's bytes (`flow.size`; unbounded by default).
    offered: u64,
    /// X_recv of the last feedback the sender got, bytes per second.
    x_recv: f64,
    /// Data packets sent and not yet delivered or dropped (ground truth): a sized flow that
    /// has sent its bytes is finished when this is 0 (TFRC does not retransmit: what was lost
    /// stays lost, `bytes_received` tells what arrived).
    data_in_network: u64,
    /// The sender has sent the flow's `size` (it sends no more and arms no timer).
    sent_all: bool,
    segment_size: u32,
    series: Option<TfrcSeries>,
}

/// The receiver.
pub struct TfrcSink {
    receiver: TfrcReceiver,
    /// The receiver's p integrated over time (p·ns) since the flow started, and when p last
    /// changed: its time-weighted mean at the end.
    p_area: f64,
    p_since: Time,
    p_last: f64,
    /// TFRC Probe's estimate over time (with series and the probe).
    probe_series: Option<ProbeSeries>,
    /// The sender has finished: nothing more will arrive, no more feedback.
    source_done: bool,
}

impl TfrcSource {
    pub fn new(cfg: &TfrcConfig, fs: &FlowSpec, series: bool) -> Self {
        TfrcSource {
            sender: TfrcSender::new(cfg, fs.start).with_probe(&fs.probe),
            offered: fs.bytes,
            x_recv: 0.0,
            data_in_network: 0,
            sent_all: false,
            segment_size: cfg.segment_size,
            series: series.then(TfrcSeries::default),
        }
    }

    fn finished(&self) -> bool {
        self.sent_all && self.data_in_network == 0
    }
}

impl TfrcSink {
    pub fn new(cfg: &TfrcConfig, fs: &FlowSpec, series: bool) -> Self {
        TfrcSink {
            receiver: TfrcReceiver::new(cfg).with_probe(&fs.probe),
            p_area: 0.0,
            p_since: fs.start,
            p_last: 0.0,
            probe_series: (series && fs.probe.enabled).then(ProbeSeries::default),
            source_done: false,
        }
    }

    /// The receiver's loss event rate, time-weighted over [start, `now`].
    pub fn mean_p(&self, start: Time, now: Time) -> f64 {
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
}

impl Agent for TfrcSource {
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        // The application's bytes are all sent: the sender stops (its next send time stayed
        // due, a wake-up at the same instant without end).
        if self.sender.stats().bytes_sent >= self.offered {
            self.sent_all = true;
            return None;
        }
        let d = self.sender.poll_transmit(now)?;
        self.data_in_network += 1;
        let wire = DATA_HEADER_BYTES + d.size;
        Some(Transmit::datagram(Payload::Tfrc(TfrcHeader::Data(d)), wire))
    }

    fn poll_timeout(&self) -> Option<Time> {
        if self.sent_all {
            None
        } else {
            self.sender.poll_timeout()
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.sender.handle_timeout(now);
    }

    fn handle_packet(&mut self, now: Time, _: &Packet, payload: &Payload) -> Arrival {
        if let Payload::Tfrc(TfrcHeader::Feedback(fb)) = payload {
            self.x_recv = fb.x_recv;
            self.sender.handle_feedback(now, fb);
        }
        Arrival {
            respond: true,
            ..Arrival::default()
        }
    }

    fn fate(&mut self, _: Time, _: &Packet, payload: &Payload, fate: Fate) -> FateOut {
        let Payload::Tfrc(TfrcHeader::Data(h)) = payload else {
            return FateOut::default();
        };
        if matches!(fate, Fate::Delivered | Fate::Dropped) {
            self.data_in_network = self.data_in_network.saturating_sub(1);
        }
        FateOut {
            // Chen et al. Fig. 9 counts the packets lost around a handoff: the offset is the
            // packet's from the flow's first data byte, as TCP's (sequence number times s).
            drop_ref: (fate == Fate::Dropped)
                .then(|| (h.seq.wrapping_mul(u64::from(h.size)) as u32, h.size)),
            source_finished: self.finished(),
        }
    }

    fn notify_handover(&mut self, now: Time, h: &HandoverNote) -> bool {
        // TFRC Probe's EHN (Chen et al. §5: "the EHN is sent directly to TCP/TFRC
        // applications"), with both interfaces' nominal rates for ERR's C_2/C_1.
        if h.flow_at_mobile {
            self.sender.notify_handover(now, h.from_bps, h.to_bps);
        }
        h.flow_at_mobile
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

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            tfrc: self.series.take(),
            ..Default::default()
        }
    }

    fn spill_series(&mut self, f: usize, open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {
        if let Some(s) = &mut self.series {
            s.spill_to(open(SeriesId::Tfrc(f)));
        }
    }
}

impl Agent for TfrcSink {
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        let fb = self.receiver.poll_transmit(now)?;
        Some(Transmit::datagram(
            Payload::Tfrc(TfrcHeader::Feedback(fb)),
            FEEDBACK_BYTES,
        ))
    }

    fn poll_timeout(&self) -> Option<Time> {
        if self.source_done {
            None // nothing more will arrive: no more feedback
        } else {
            self.receiver.poll_timeout()
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.receiver.handle_timeout(now);
    }

    fn handle_packet(&mut self, now: Time, _: &Packet, payload: &Payload) -> Arrival {
        let Payload::Tfrc(TfrcHeader::Data(d)) = payload else {
            return Arrival::default();
        };
        let before = self.receiver.stats().bytes_received;
        self.receiver.handle_data(now, d);
        self.note_p(now);
        if let (Some(series), Some(c)) = (
            self.probe_series.as_mut(),
            self.receiver.capacity_estimate(),
        ) {
            series.push(now, c);
        }
        let after = self.receiver.stats().bytes_received;
        Arrival {
            data: Some(after - before),
            delivered: Some(after),
            respond: true,
        }
    }

    fn peer_finished(&mut self) {
        self.source_done = true;
    }

    fn take_series(&mut self) -> AgentSeries {
        AgentSeries {
            probe: self.probe_series.take(),
            ..Default::default()
        }
    }

    fn spill_series(&mut self, f: usize, open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {
        if let Some(s) = &mut self.probe_series {
            s.spill_to(open(SeriesId::Probe(f)));
        }
    }
}

/// A TFRC flow (RFC 5348) from its start to the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct TfrcSummary {
    pub packet_size: u32,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    /// Data bytes the receiver got (TFRC does not retransmit: a loss stays lost).
    pub bytes_received: u64,
    /// Data bits sent over the flow's time (start to end of run), bits per second.
    pub mean_sending_rate_bps: f64,
    /// Data bits received over the same time.
    pub mean_throughput_bps: f64,
    /// X, the allowed sending rate at the end of the run, bits per second.
    pub final_rate_bps: f64,
    /// The receiver's loss event rate p (§5.4) at the end, and time-weighted over the flow.
    pub final_p: f64,
    pub mean_p: f64,
    /// The sender's R at the end (`null` before its first feedback).
    pub final_rtt_s: Option<f64>,
    pub packets_lost: u64,
    pub loss_events: u64,
    pub feedback_sent: u64,
    pub feedback_received: u64,
    /// Feedback the receiver sent early because p rose (§6.1).
    pub expedited_feedback: u64,
    /// Expiries of the sender's nofeedback timer (§4.4).
    pub nofeedback_expiries: u64,
}

/// The flow's TFRC record, run from `start` to `now`.
pub fn summary(s: &TfrcSource, r: &TfrcSink, start: Time, now: Time) -> TfrcSummary {
    let (st, rs) = (s.sender.stats(), r.receiver.stats());
    let span = now.saturating_since(start).as_secs_f64();
    let per_s = |bytes: u64| {
        if span > 0.0 {
            bytes as f64 * 8.0 / span
        } else {
            0.0
        }
    };
    let probe = s.sender.probe();
    TfrcSummary {
        packet_size: s.segment_size,
        packets_sent: st.packets_sent,
        bytes_sent: st.bytes_sent,
        packets_received: rs.packets_received,
        bytes_received: rs.bytes_received,
        mean_sending_rate_bps: per_s(st.bytes_sent),
        mean_throughput_bps: per_s(rs.bytes_received),
        final_rate_bps: probe.x * 8.0,
        final_p: r.receiver.loss_event_rate(),
        mean_p: r.mean_p(start, now),
        final_rtt_s: probe.rtt.map(|r| r.as_secs_f64()),
        packets_lost: rs.packets_lost,
        loss_events: rs.loss_events,
        feedback_sent: rs.feedbacks_sent,
        feedback_received: st.feedbacks,
        expedited_feedback: rs.expedited_feedbacks,
        nofeedback_expiries: st.nofeedback_expiries,
    }
}

/// TFRC Probe's pairs (the receiver's), estimate and detections (the sender's).
pub fn probe_summary(s: &TfrcSource, r: &TfrcSink, handovers: &[Time]) -> ProbeSummary {
    crate::probe::summary::probe_summary(
        r.receiver.probe_pairs(),
        r.receiver.capacity_estimate(),
        s.sender.detections().iter().map(|d| (d.handoff, d.action)),
        handovers,
    )
}
