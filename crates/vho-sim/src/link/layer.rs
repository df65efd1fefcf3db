//! A link direction's link layer: what sits between its queue and the far node.
//!
//! `Plain` is the serialiser at the direction's rate and the pipe of its delay (`link`'s
//! module doc). A link layer replaces both with its own timing: a 3G bearer in RLC
//! Acknowledged Mode ([`super::rlc_am`], Naoe et al.'s Table I and §V-B, after Enderle &
//! Lagrange) or an 802.11b station under DCF ([`super::dcf`], Table I and §V-B, after Pavon
//! & Choi). Enum dispatch, no `dyn`: the plain direction tests one flag (`LinkDir::layered`)
//! and never reaches this file.
//!
//! How the direction drives it (`LinkDir::replay_layered`), at every instant it is looked at:
//! 1. the queue's head goes to the link layer while the layer has room ([`LinkLayer::has_room`]:
//!    RLC's transmission buffer below [`RLC_TX_BUFFER_TTIS`] TTIs of blocks, DCF's MAC queue
//!    not full) and the direction is not blocked (a handover's delay, an outage);
//! 2. what the layer delivers by then enters the pipe at the instant it gives (the far node
//!    takes it at once: the pipe only hands it over), what it discards is a drop of cause
//!    [`super::DropCause::LinkLayerDiscard`];
//! 3. the direction's next event is the layer's [`LinkLayer::poll_timeout`] (the world arms it
//!    as an arrival).
//!
//! The direction's `delay` does not add on top: the layer's timing is the whole direction.
//! For 3G, Table I's Iub delay (20 ms each way) is already inside the bearer
//! ([`super::rlc_am::RlcAmConfig::iub_delay`], part of `one_way`), so adding the link's delay
//! would count it twice; for 802.11b the air's propagation (under 1 µs over a room) is below
//! the model's resolution. The scenario refuses a non-zero `delay` on such a link. The
//! direction's `rate` is not used either (the bearer's 384 kb/s and the DCF's 1 Mb/s are the
//! layer's own); it stays the direction's nominal rate for the `bdp` queue rule.

use super::dcf::{Dcf, DcfError};
use super::rlc_am::{RlcAm, RlcAmConfig, RlcAmError};
use super::{change::LinkState, DropCause, Held, LinkDir};
use crate::rng::Rng;
use crate::spec::LinkLayerSpec;
use crate::time::Time;

/// Open: the RLC transmission buffer the direction fills, in TTIs of blocks (2 × 12 = 24
/// PDUs by default): the bearer takes the next SDU while fewer PDUs than that wait unsent.
/// Naoe et al. do not give the RNC's buffer; two TTIs keep every TTI full under a backlog
/// (the next SDU is taken before the TTI that would find the buffer short), and leave the
/// rest of the backlog in the direction's queue, where its drop policy applies.
pub const RLC_TX_BUFFER_TTIS: u64 = 2;

/// A direction's link layer.
#[derive(Clone, Debug)]
pub enum LinkLayer {
    Plain,
    RlcAm(Box<RlcAm>),
    Dcf(Box<Dcf>),
}

/// A configuration a link layer cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LinkLayerError {
    #[error(transparent)]
    RlcAm(#[from] RlcAmError),
    #[error(transparent)]
    Dcf(#[from] DcfError),
}

/// What a link layer did over the run (`summary.json`'s `link_layer` of a direction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkLayerStats {
    /// Transmissions on the air: RLC blocks, DCF data frames (retransmissions included).
    pub transmissions: u64,
    /// Of those, the retransmissions.
    pub retransmissions: u64,
    /// Of those, the lost: blocks in error, corrupted data frames.
    pub lost: u64,
    /// Packets the layer discarded (RLC's MaxDAT, DCF's retry limit).
    pub discarded: u64,
}

impl LinkLayer {
    /// The layer `spec` names, drawing from `rng` (the direction's own stream,
    /// `link:<name>:<side>:rlc` or `:dcf`).
    pub fn new(spec: &LinkLayerSpec, rng: Rng) -> Result<LinkLayer, LinkLayerError> {
        Ok(match spec {
            LinkLayerSpec::Plain => LinkLayer::Plain,
            LinkLayerSpec::RlcAm(cfg) => LinkLayer::RlcAm(Box::new(RlcAm::new(*cfg, rng)?)),
            LinkLayerSpec::Dcf(cfg) => LinkLayer::Dcf(Box::new(Dcf::new(*cfg, rng)?)),
        })
    }

    /// The name of the stream a layer of this kind draws from, after `link:<name>:<side>:`.
    pub fn stream_suffix(spec: &LinkLayerSpec) -> &'static str {
        match spec {
            LinkLayerSpec::Plain => "plain",
            LinkLayerSpec::RlcAm(_) => "rlc",
            LinkLayerSpec::Dcf(_) => "dcf",
        }
    }

    /// Whether the layer takes another packet now (as of its last call).
    fn has_room(&self) -> bool {
        match self {
            LinkLayer::Plain => false,
            LinkLayer::RlcAm(r) => {
                let cfg: &RlcAmConfig = r.config();
                r.untransmitted_pdus() < RLC_TX_BUFFER_TTIS * cfg.blocks_per_tti as u64
            }
            LinkLayer::Dcf(d) => d.has_room(),
        }
    }

    /// Offers a packet; false if the layer refused it (a DCF whose MAC queue is full).
    fn offer(&mut self, now: Time, idx: u32, size: u32) -> bool {
        match self {
            LinkLayer::Plain => false,
            LinkLayer::RlcAm(r) => {
                r.offer(now, idx, size);
                true
            }
            LinkLayer::Dcf(d) => d.offer(now, idx, size),
        }
    }

    fn poll_delivered(&mut self, now: Time) -> Option<(u32, Time)> {
        match self {
            LinkLayer::Plain => None,
            LinkLayer::RlcAm(r) => r.poll_delivered(now),
            LinkLayer::Dcf(d) => d.poll_delivered(now),
        }
    }

    fn poll_discarded(&mut self, now: Time) -> Option<(u32, Time)> {
        match self {
            LinkLayer::Plain => None,
            LinkLayer::RlcAm(r) => r.poll_discarded(now),
            LinkLayer::Dcf(d) => d.poll_discarded(now),
        }
    }

    /// The interface went down at `now`: the layer forgets every packet it holds (the caller
    /// books them) and starts afresh, keeping its configuration, its random stream and its
    /// counts.
    pub fn abandon(&mut self, now: Time) {
        match self {
            LinkLayer::Plain => {}
            LinkLayer::RlcAm(r) => r.abandon(now),
            LinkLayer::Dcf(d) => d.abandon(now),
        }
    }

    /// When the layer must be looked at again (its next TTI, frame, delivery or room).
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            LinkLayer::Plain => None,
            LinkLayer::RlcAm(r) => r.poll_timeout(),
            LinkLayer::Dcf(d) => d.poll_timeout(),
        }
    }

    pub fn stats(&self) -> Option<LinkLayerStats> {
        match self {
            LinkLayer::Plain => None,
            LinkLayer::RlcAm(r) => {
                let s = r.stats();
                Some(LinkLayerStats {
                    transmissions: s.blocks_sent,
                    retransmissions: s.retransmissions,
                    lost: s.blocks_lost,
                    discarded: s.sdus_discarded,
                })
            }
            LinkLayer::Dcf(d) => {
                let s = d.stats();
                Some(LinkLayerStats {
                    transmissions: s.data_frames_sent,
                    retransmissions: s.retransmissions,
                    lost: s.data_frames_corrupted,
                    discarded: s.msdus_discarded,
                })
            }
        }
    }
}

impl LinkDir {
    /// Puts a link layer between this direction's queue and the far node.
    pub fn set_link_layer(&mut self, layer: LinkLayer) {
        self.layered = !matches!(layer, LinkLayer::Plain);
        self.layer = layer;
        // Its arrivals leave the drop-tail path (`offer`: one flag for the cold arrivals).
        self.refresh_flags();
    }

    /// The direction's link layer.
    pub fn link_layer(&self) -> &LinkLayer {
        &self.layer
    }

    /// A new block error rate from `now` on (a link schedule); `false` if the direction has no
    /// RLC-AM bearer (the scenario refuses that at load).
    pub fn set_bler(&mut self, now: Time, bler: f64) -> bool {
        self.advance(now);
        match &mut self.layer {
            LinkLayer::RlcAm(r) => r.set_bler(now, bler).is_ok(),
            _ => false,
        }
    }

    /// A new bit error rate from `now` on (a link schedule); `false` if the direction has no
    /// DCF station (the scenario refuses that at load).
    pub fn set_ber(&mut self, now: Time, ber: f64) -> bool {
        self.advance(now);
        match &mut self.layer {
            LinkLayer::Dcf(d) => d.set_ber(now, ber).is_ok(),
            _ => false,
        }
    }

    /// `replay` of a direction with a link layer: feed the layer from the queue, take what it
    /// delivers and discards by `now` (see the module doc).
    #[cold]
    #[inline(never)]
    pub(super) fn replay_layered(&mut self, now: Time) {
        self.idle_since = now;
        loop {
            while !self.queue.is_empty() && self.ready_at() <= now && self.layer.has_room() {
                let Some(p) = self.queue.pop() else {
                    break;
                };
                if self.layer.offer(now, p.idx, p.size) {
                    self.in_layer.push_back(p);
                } else {
                    // Not reached: `has_room` was true and room only grows with time.
                    self.drop_in_layer(p.idx, DropCause::LinkLayerDiscard);
                }
                if let Some(starts) = &mut self.starts {
                    starts.push((now, self.queue.len(), self.queue.bytes()));
                }
            }
            while let Some((idx, at)) = self.layer.poll_delivered(now) {
                let p = self.take_from_layer(idx);
                if self.state == LinkState::Blackhole {
                    self.drop_in_layer(idx, DropCause::LinkState);
                } else {
                    // Released in order, at or before `now` (the world wakes the layer at
                    // every instant it names): the pipe stays in time order.
                    self.pipe.push_back(at.max(now), p);
                }
            }
            while let Some((idx, _)) = self.layer.poll_discarded(now) {
                self.take_from_layer(idx);
                self.drop_in_layer(idx, DropCause::LinkLayerDiscard);
            }
            if self.queue.is_empty() || self.ready_at() > now || !self.layer.has_room() {
                return;
            }
        }
    }

    /// Takes a released packet out of `in_layer` (it is at or near the front: layers release
    /// in order).
    fn take_from_layer(&mut self, idx: u32) -> Held {
        let pos = self.in_layer.iter().position(|p| p.idx == idx);
        pos.and_then(|p| self.in_layer.remove(p))
            .expect("invariant: the layer releases only what it was given")
    }

    fn drop_in_layer(&mut self, idx: u32, cause: DropCause) {
        self.counters.dropped[cause.slot()] += 1;
        self.lost.push((idx, cause));
    }

    /// `retry_at` of a direction with a link layer: only a block (handover delay) needs a
    /// retry; a full layer names the instant it gains room in its `poll_timeout`.
    #[cold]
    #[inline(never)]
    pub(super) fn layered_retry_at(&self) -> Option<Time> {
        let t = self.ready_at();
        (t > self.idle_since && t != Time::MAX).then_some(t)
    }
}
