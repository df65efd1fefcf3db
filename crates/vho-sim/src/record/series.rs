//! Time series, kept as columns: per flow the sender's TCP state at every change, per link
//! direction the queue length at every change. Only recorded when the scenario asks.

use crate::time::Time;

/// The sender state the series follow (a `TcpSender::probe()` reduced to numbers).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TcpSample {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_ns: u64,
    pub rttvar_ns: u64,
    pub rto_ns: u64,
    pub flight: u32,
}

#[derive(Clone, Debug, Default)]
pub struct TcpSeries {
    pub t_ns: Vec<u64>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt_ns: Vec<u64>,
    pub rttvar_ns: Vec<u64>,
    pub rto_ns: Vec<u64>,
    pub flight: Vec<u32>,
    last: Option<TcpSample>,
}

impl TcpSeries {
    /// Appends a row if the state differs from the last row.
    pub fn push(&mut self, now: Time, s: TcpSample) {
        if self.last == Some(s) {
            return;
        }
        self.last = Some(s);
        self.t_ns.push(now.as_nanos());
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.srtt_ns.push(s.srtt_ns);
        self.rttvar_ns.push(s.rttvar_ns);
        self.rto_ns.push(s.rto_ns);
        self.flight.push(s.flight);
    }
    pub fn len(&self) -> usize {
        self.t_ns.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct QueueSeries {
    pub t_ns: Vec<u64>,
    /// Link direction index (2·link for a → b, 2·link + 1 for b → a).
    pub dir: Vec<u32>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
}

impl QueueSeries {
    pub fn push(&mut self, now: Time, dir: u32, packets: usize, bytes: u64) {
        self.t_ns.push(now.as_nanos());
        self.dir.push(dir);
        self.packets.push(packets as u32);
        self.bytes.push(bytes);
    }
}

/// Data segments dropped in the network, as only the simulator knows them (for the
/// time-sequence graph's drop marks: the studies' key event).
#[derive(Clone, Debug, Default)]
pub struct DropSeries {
    pub t_ns: Vec<u64>,
    /// The flow's index in the scenario.
    pub flow: Vec<u32>,
    /// Offset of the segment's first byte from the flow's first data byte (mod 2^32, as
    /// sequence numbers on the wire).
    pub seq: Vec<u32>,
    /// Payload bytes.
    pub len: Vec<u32>,
    /// The link direction it was dropped at (as [`QueueSeries::dir`]), `u32::MAX` for none.
    pub dir: Vec<u32>,
    /// Index into `DropCause::ALL`.
    pub cause: Vec<u8>,
}

impl DropSeries {
    pub fn push(&mut self, now: Time, flow: u32, seq: u32, len: u32, dir: Option<u32>, cause: u8) {
        self.t_ns.push(now.as_nanos());
        self.flow.push(flow);
        self.seq.push(seq);
        self.len.push(len);
        self.dir.push(dir.unwrap_or(u32::MAX));
        self.cause.push(cause);
    }
}

/// A TFRC sender's state at one instant (`agent::tfrc`): what RFC 5348 §4.3 computes at each
/// feedback, and what the nofeedback timer (§4.4) changes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TfrcSample {
    /// X, the allowed sending rate, bytes per second.
    pub x: f64,
    /// X_recv of the last feedback, bytes per second.
    pub x_recv: f64,
    /// p of the last feedback.
    pub p: f64,
    /// R, the sender's smoothed RTT (0 before the first feedback).
    pub rtt_ns: u64,
}

/// A TFRC flow's sender over time, one row per change (`series_tfrc.parquet`).
#[derive(Clone, Debug, Default)]
pub struct TfrcSeries {
    pub t_ns: Vec<u64>,
    pub x_bps: Vec<f64>,
    pub x_recv_bps: Vec<f64>,
    pub p: Vec<f64>,
    pub rtt_ns: Vec<u64>,
    last: Option<TfrcSample>,
}

impl TfrcSeries {
    /// Appends a row if the state differs from the last row; rates go in as bytes per second
    /// and are stored in bits per second.
    pub fn push(&mut self, now: Time, s: TfrcSample) {
        if self.last == Some(s) {
            return;
        }
        self.last = Some(s);
        self.t_ns.push(now.as_nanos());
        self.x_bps.push(s.x * 8.0);
        self.x_recv_bps.push(s.x_recv * 8.0);
        self.p.push(s.p);
        self.rtt_ns.push(s.rtt_ns);
    }
}

/// TFRC Probe's capacity estimate over time, one row per change of the receiver's estimate
/// (`series_probe.parquet`; Chen et al. §3.1).
#[derive(Clone, Debug, Default)]
pub struct ProbeSeries {
    pub t_ns: Vec<u64>,
    pub estimate_bps: Vec<u64>,
}

impl ProbeSeries {
    /// Appends a row if the estimate changed.
    pub fn push(&mut self, now: Time, estimate_bps: u64) {
        if self.estimate_bps.last() == Some(&estimate_bps) {
            return;
        }
        self.t_ns.push(now.as_nanos());
        self.estimate_bps.push(estimate_bps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_state_adds_no_row() {
        let mut s = TcpSeries::default();
        let a = TcpSample {
            cwnd: 10,
            ..Default::default()
        };
        s.push(Time(1), a);
        s.push(Time(2), a);
        s.push(Time(3), TcpSample { cwnd: 11, ..a });
        assert_eq!(s.t_ns, vec![1, 3]);
    }
}
