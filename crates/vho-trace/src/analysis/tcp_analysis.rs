//! Per-segment TCP sequence analysis as Wireshark does it, so that vho's counts can be
//! compared one to one with `tshark -Y tcp.analysis.*`.
//!
//! Source: Wireshark `epan/dissectors/packet-tcp.c`, function `tcp_analyze_sequence_number`
//! in the order tshark 4.0 applies it (checked against tshark 4.0.17 by
//! `tests/analysis.rs`): spurious retransmission, then fast retransmission, then
//! out-of-order, then plain retransmission (older releases tested spurious after
//! out-of-order; fast before out-of-order is the default of the preference
//! `tcp.fastrt_supersedes_ooo`), and with 4.0's "ACKed unseen segment" rule that flags a run
//! of such ACKs once; its helpers `verify_tcp_window_scaling` and
//! `tcp_sequence_number_analysis_print_retransmission`, and the handshake RTT
//! (`ts_mru_syn`/`ts_first_rtt`) kept by `dissect_tcp`. The rules are restated here in our
//! own words; no Wireshark code is copied.
//!
//! What the display filters match (from `tcp_sequence_number_analysis_print_retransmission`,
//! which adds the expert item `tcp.analysis.retransmission` also for fast and spurious ones):
//!
//! | filter                               | matches frames flagged                      |
//! |--------------------------------------|---------------------------------------------|
//! | `tcp.analysis.retransmission`        | RETRANSMISSION, FAST_RETRANSMISSION, SPURIOUS_RETRANSMISSION |
//! | `tcp.analysis.fast_retransmission`   | FAST_RETRANSMISSION                         |
//! | `tcp.analysis.spurious_retransmission` | SPURIOUS_RETRANSMISSION                   |
//! | `tcp.analysis.out_of_order`          | OUT_OF_ORDER                                |
//! | `tcp.analysis.duplicate_ack`         | DUPLICATE_ACK                               |
//! | `tcp.analysis.lost_segment`          | LOST_PACKET                                 |
//! | `tcp.analysis.ack_lost_segment`      | ACK_LOST_PACKET                             |
//! | `tcp.analysis.zero_window`           | ZERO_WINDOW                                 |
//!
//! Wireshark treats a stored `nextseq`, `lastack` or `maxseqtobeacked` of 0 as "not seen
//! yet", and a SYN time of 0 (the epoch) as "no SYN"; we keep those conventions so that even
//! their corner cases match.

use serde::Serialize;

use crate::decode::tcp::{ACK, FIN, RST, SYN};

/// Wireshark's `ooo_thres` when the handshake RTT is unknown: 3 ms
/// (`tcp_analyze_sequence_number`).
pub const OOO_THRESHOLD_NS: u64 = 3_000_000;
/// A retransmission within this time of the last segment from the other side, which carried
/// at least 2 duplicate ACKs for this sequence number, is a fast retransmission: 20 ms
/// (`tcp_analyze_sequence_number`).
pub const FAST_RETRANSMISSION_WINDOW_NS: u64 = 20_000_000;
/// Duplicate ACKs (after the first ACK of that value) Wireshark wants before calling a
/// retransmission "fast": `dupacknum` at least 2 (some may be missing from the trace).
pub const FAST_RETRANSMISSION_DUPACKS: i32 = 2;

/// The analysis flags of one segment (Wireshark's `TCP_A_*` bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(pub u32);

impl Flags {
    pub const RETRANSMISSION: u32 = 0x0001;
    pub const LOST_PACKET: u32 = 0x0002;
    pub const ACK_LOST_PACKET: u32 = 0x0004;
    pub const KEEP_ALIVE: u32 = 0x0008;
    pub const DUPLICATE_ACK: u32 = 0x0010;
    pub const ZERO_WINDOW: u32 = 0x0020;
    pub const ZERO_WINDOW_PROBE: u32 = 0x0040;
    pub const ZERO_WINDOW_PROBE_ACK: u32 = 0x0080;
    pub const KEEP_ALIVE_ACK: u32 = 0x0100;
    pub const OUT_OF_ORDER: u32 = 0x0200;
    pub const FAST_RETRANSMISSION: u32 = 0x0400;
    pub const WINDOW_UPDATE: u32 = 0x0800;
    pub const WINDOW_FULL: u32 = 0x1000;
    pub const SPURIOUS_RETRANSMISSION: u32 = 0x4000;

    pub fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    fn set(&mut self, bit: u32) {
        self.0 |= bit;
    }

    /// True if `tcp.analysis.retransmission` matches this frame: plain, fast and spurious
    /// retransmissions (all three add that expert item).
    pub fn is_any_retransmission(self) -> bool {
        self.has(Self::RETRANSMISSION | Self::FAST_RETRANSMISSION | Self::SPURIOUS_RETRANSMISSION)
    }
}

/// What Wireshark knows about one direction's window scale (`tcp_flow_t.win_scale`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WinScale {
    /// No SYN of this direction seen (Wireshark's -1).
    #[default]
    Unknown,
    /// The handshake was seen and scaling is off (-2): RFC 7323 §2.2, both SYNs must carry it.
    Off,
    /// The shift count from the SYN's option.
    Shift(u8),
}

/// Sequence state of one direction (Wireshark's `tcp_flow_t` with its
/// `tcp_analyze_seq_flow_info_t`).
#[derive(Clone, Debug, Default)]
pub struct SeqState {
    base_seq_set: bool,
    /// The ISN if a SYN of this direction was seen.
    pub isn: Option<u32>,
    nextseq: u32,
    nextseq_time: u64,
    maxseqtobeacked: u32,
    lastack: u32,
    lastack_time: u64,
    /// Duplicate ACKs in a row; -1 after an "ACKed unseen segment" that must not repeat.
    dupacknum: i32,
    /// Last window field, unscaled.
    window: u32,
    win_scale: WinScale,
    last_flags: Flags,
}

/// Handshake timing of a conversation (`tcp_analysis.ts_mru_syn`, `ts_first_rtt`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Handshake {
    /// Time of the most recent SYN without ACK.
    mru_syn_ns: Option<u64>,
    /// From that SYN to the first segment with ACK and without SYN.
    pub first_rtt_ns: Option<u64>,
    /// Times are stamps from the epoch (a simulator's clock), where Wireshark's "zero is
    /// none" applies; from a wall-clock capture's first packet, a time of zero is a stamp.
    zero_is_none: bool,
}

impl Handshake {
    /// The timing of a conversation whose times are stamps from the epoch
    /// (`simulated_clock`) or from the capture's first packet.
    pub fn new(simulated_clock: bool) -> Self {
        Handshake {
            zero_is_none: simulated_clock,
            ..Handshake::default()
        }
    }
}

/// The fields of a segment the analysis reads.
#[derive(Clone, Copy, Debug)]
pub struct SegInfo {
    pub ts_ns: u64,
    pub seq: u32,
    pub ack: u32,
    pub seglen: u32,
    pub flags: u8,
    pub window: u16,
    pub wscale: Option<u8>,
}

/// `a < b` in sequence space (Wireshark's `LT_SEQ`, RFC 9293 §3.4).
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `a > b` in sequence space (`GT_SEQ`).
pub fn seq_gt(a: u32, b: u32) -> bool {
    seq_lt(b, a)
}

/// `a <= b` in sequence space (`LE_SEQ`).
pub fn seq_le(a: u32, b: u32) -> bool {
    !seq_gt(a, b)
}

/// `now - then` if `now` is not earlier, as Wireshark's unsigned difference that is "huge"
/// (fails every `<` test) when the capture goes back in time.
fn since(now: u64, then: u64) -> u64 {
    now.checked_sub(then).unwrap_or(u64::MAX)
}

impl Handshake {
    /// `dissect_tcp`: remember the latest SYN; the first pure ACK after it gives the
    /// handshake RTT, Wireshark's out-of-order threshold.
    pub fn on_segment(&mut self, s: &SegInfo) {
        // Wireshark keeps the SYN's time as an nstime_t whose zero means "none": a SYN
        // stamped at the epoch itself (as simulators' captures are) gives no handshake RTT,
        // and the out-of-order threshold stays 3 ms.
        if s.flags & (SYN | ACK) == SYN && (s.ts_ns != 0 || !self.zero_is_none) {
            self.mru_syn_ns = Some(s.ts_ns);
        }
        if s.flags & (SYN | ACK) == ACK && self.first_rtt_ns.is_none() {
            if let Some(syn) = self.mru_syn_ns {
                // A zero difference is "unknown" to Wireshark (nstime_is_zero).
                self.first_rtt_ns = Some(s.ts_ns.saturating_sub(syn)).filter(|&d| d > 0);
                // (A SYN at time zero of a wall-clock capture is a real stamp: kept above.)
            }
        }
    }

    fn ooo_threshold_ns(&self) -> u64 {
        self.first_rtt_ns.unwrap_or(OOO_THRESHOLD_NS)
    }
}

/// `verify_tcp_window_scaling` with `pdu_store_window_scale_option`: a SYN fixes its
/// direction's scale; a SYN-ACK without the option (or after a SYN without it) turns scaling
/// off both ways (RFC 7323 §2.2).
pub fn on_syn_window_scale(fwd: &mut SeqState, rev: &mut SeqState, s: &SegInfo) {
    if s.flags & SYN == 0 {
        return;
    }
    let synack = s.flags & ACK != 0;
    match s.wscale {
        Some(ws) => {
            fwd.win_scale = WinScale::Shift(ws);
            if synack && rev.win_scale == WinScale::Off {
                fwd.win_scale = WinScale::Off;
            }
        }
        None => {
            fwd.win_scale = WinScale::Off;
            if synack {
                rev.win_scale = WinScale::Off;
            }
        }
    }
}

/// Classifies one segment of direction `fwd` and updates both directions' state, following
/// `tcp_analyze_sequence_number` step by step.
pub fn analyze(fwd: &mut SeqState, rev: &mut SeqState, hs: &Handshake, s: &SegInfo) -> Flags {
    let mut f = Flags::default();
    let (seq, ack) = (s.seq, s.ack);
    let not_sfr = s.flags & (SYN | FIN | RST) == 0;
    set_base_seq(fwd, rev, s);

    // ZERO WINDOW PROBE: one byte at the next expected sequence number while the other side
    // advertises a zero window. Skips the other window/ack checks (`goto finished_fwd`).
    let zwp = s.seglen == 1 && seq == fwd.nextseq && rev.window == 0;
    if zwp {
        f.set(Flags::ZERO_WINDOW_PROBE);
    } else {
        fwd_checks(fwd, rev, s, not_sfr, &mut f);
    }

    // finished_fwd: a changed ack number resets the duplicate-ACK count.
    if ack != fwd.lastack {
        fwd.dupacknum = 0;
    }

    // ACKED LOST PACKET: this ACK covers data of the other direction never captured.
    if rev.maxseqtobeacked != 0 && seq_gt(ack, rev.maxseqtobeacked) && s.flags & ACK != 0 {
        // Wireshark compares these two as plain integers, not in sequence space.
        if rev.maxseqtobeacked > rev.nextseq {
            rev.maxseqtobeacked = rev.nextseq;
            f.set(Flags::ACK_LOST_PACKET);
        } else {
            // The other side sends nothing new: flag only the first such ACK, until that
            // side's ACK number changes (its dupacknum is reused as the marker).
            if rev.dupacknum == 0 {
                f.set(Flags::ACK_LOST_PACKET);
            }
            rev.dupacknum = -1;
        }
    }

    if s.seglen > 0 || s.flags & (SYN | FIN) != 0 {
        retransmission_type(fwd, rev, hs, s, &mut f);
    }
    advance(fwd, s, f);
    f
}

/// Wireshark's base-sequence bookkeeping (only whether it is set matters here).
fn set_base_seq(fwd: &mut SeqState, rev: &mut SeqState, s: &SegInfo) {
    if !fwd.base_seq_set {
        fwd.base_seq_set = true;
    }
    if s.flags & SYN != 0 && fwd.isn.is_none() {
        fwd.isn = Some(s.seq);
    }
    if !rev.base_seq_set && s.flags & ACK != 0 {
        rev.base_seq_set = true;
    }
}

/// The checks between the zero-window probe and `finished_fwd`, in Wireshark's order.
fn fwd_checks(fwd: &mut SeqState, rev: &SeqState, s: &SegInfo, not_sfr: bool, f: &mut Flags) {
    let (seq, ack, seglen, window) = (s.seq, s.ack, s.seglen, u32::from(s.window));
    // ZERO WINDOW: a zero window on a segment that is not SYN, FIN or RST.
    if window == 0 && not_sfr {
        f.set(Flags::ZERO_WINDOW);
    }
    // LOST PACKET ("previous segment not captured"): beyond the highest nextseq seen.
    if fwd.nextseq != 0 && seq_gt(seq, fwd.nextseq) && s.flags & RST == 0 {
        f.set(Flags::LOST_PACKET);
    }
    // KEEP ALIVE: 0 or 1 byte starting one byte before the next expected sequence number.
    if seglen <= 1 && seq == fwd.nextseq.wrapping_sub(1) && not_sfr {
        f.set(Flags::KEEP_ALIVE);
    }
    let same_pos = seglen == 0 && seq == fwd.nextseq && ack == fwd.lastack && not_sfr;
    // WINDOW UPDATE: no data, same seq and ack, a new non-zero window.
    if same_pos && window != 0 && window != fwd.window {
        f.set(Flags::WINDOW_UPDATE);
    }
    // WINDOW FULL: data up to the right edge of the other side's advertised window.
    if seglen > 0 && rev.win_scale != WinScale::Unknown && not_sfr {
        let shift = match rev.win_scale {
            WinScale::Shift(n) => u32::from(n.min(14)),
            _ => 0,
        };
        let edge = rev.lastack.wrapping_add(rev.window << shift);
        if seq.wrapping_add(seglen) == edge {
            f.set(Flags::WINDOW_FULL);
        }
    }
    // KEEP ALIVE ACK: repeats the last ACK after the other side's keep-alive.
    if same_pos && window != 0 && window == fwd.window && rev.last_flags.has(Flags::KEEP_ALIVE) {
        f.set(Flags::KEEP_ALIVE_ACK);
        return;
    }
    // ZERO WINDOW PROBE ACK: repeats the zero window after the other side's probe.
    if same_pos
        && window == 0
        && window == fwd.window
        && rev.last_flags.has(Flags::ZERO_WINDOW_PROBE)
    {
        f.set(Flags::ZERO_WINDOW_PROBE_ACK);
        return;
    }
    // DUPLICATE ACK: no data, same seq, ack and (non-zero) window as this direction's last.
    if same_pos && window != 0 && window == fwd.window {
        // After an "ACKed unseen segment" marker the count restarts at one.
        fwd.dupacknum = if fwd.dupacknum == -1 {
            1
        } else {
            fwd.dupacknum + 1
        };
        f.set(Flags::DUPLICATE_ACK);
    }
}

/// RETRANSMISSION / FAST RETRANSMISSION / OUT-OF-ORDER / SPURIOUS for a segment carrying
/// data, SYN or FIN. First match wins (`goto finished_checking_retransmission_type`).
fn retransmission_type(fwd: &SeqState, rev: &SeqState, hs: &Handshake, s: &SegInfo, f: &mut Flags) {
    let (seq, seglen) = (s.seq, s.seglen);
    // A keep-alive is not a retransmission.
    if f.has(Flags::KEEP_ALIVE) {
        return;
    }
    let mut seq_not_advanced = fwd.nextseq != 0 && seq_lt(seq, fwd.nextseq);
    // More than one byte starting one before nextseq: new data after a zero-window probe.
    if seglen > 1 && fwd.nextseq.wrapping_sub(1) == seq {
        seq_not_advanced = false;
    }
    // SPURIOUS RETRANSMISSION: all of its data was already acknowledged by the other side.
    if seglen > 0 && rev.lastack != 0 && seq_le(seq.wrapping_add(seglen), rev.lastack) {
        f.set(Flags::SPURIOUS_RETRANSMISSION);
        return;
    }
    // FAST RETRANSMISSION: >= 2 duplicate ACKs from the other side for exactly this seq,
    // the last of them less than 20 ms ago.
    if seq_not_advanced
        && rev.dupacknum >= FAST_RETRANSMISSION_DUPACKS
        && rev.lastack == seq
        && since(s.ts_ns, rev.lastack_time) < FAST_RETRANSMISSION_WINDOW_NS
    {
        f.set(Flags::FAST_RETRANSMISSION);
        return;
    }
    // OUT-OF-ORDER: sent less than ooo_thres (the handshake RTT, else 3 ms) after the
    // segment that set the highest nextseq, and not ending exactly at it.
    if seq_not_advanced
        && since(s.ts_ns, fwd.nextseq_time) < hs.ooo_threshold_ns()
        && fwd.nextseq != seq.wrapping_add(seglen)
    {
        f.set(Flags::OUT_OF_ORDER);
        return;
    }
    if seq_not_advanced {
        f.set(Flags::RETRANSMISSION);
    }
}

/// `finished_checking_retransmission_type`: move nextseq, maxseqtobeacked, lastack, window.
fn advance(fwd: &mut SeqState, s: &SegInfo, f: Flags) {
    let mut nextseq = s.seq.wrapping_add(s.seglen);
    if s.flags & (SYN | FIN) != 0 {
        nextseq = nextseq.wrapping_add(1);
    }
    // Zero-window probes do not advance nextseq.
    let zwp = f.has(Flags::ZERO_WINDOW_PROBE);
    if (seq_gt(nextseq, fwd.nextseq) || fwd.nextseq == 0) && !zwp {
        fwd.nextseq = nextseq;
        fwd.nextseq_time = s.ts_ns;
    }
    // Highest contiguous sequence number, for ACKED LOST PACKET.
    if (s.seq == fwd.maxseqtobeacked || fwd.maxseqtobeacked == 0) && !zwp {
        fwd.maxseqtobeacked = fwd.nextseq;
    }
    fwd.window = u32::from(s.window);
    fwd.lastack = s.ack;
    fwd.lastack_time = s.ts_ns;
    fwd.last_flags = f;
}

/// Per-direction counts of the flags, each named after the tshark filter it matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// `tcp.analysis.retransmission`: plain + fast + spurious.
    pub retransmissions: u64,
    /// `tcp.analysis.fast_retransmission`.
    pub fast_retransmissions: u64,
    /// `tcp.analysis.spurious_retransmission`.
    pub spurious_retransmissions: u64,
    /// `tcp.analysis.duplicate_ack` (counted on the direction that sent the ACK).
    pub duplicate_acks: u64,
    /// `tcp.analysis.out_of_order`.
    pub out_of_order: u64,
    /// `tcp.analysis.lost_segment` ("previous segment not captured").
    pub lost_segment: u64,
    /// `tcp.analysis.ack_lost_segment` ("ACKed unseen segment").
    pub ack_lost_segment: u64,
    /// `tcp.analysis.zero_window`.
    pub zero_window: u64,
    /// `tcp.analysis.zero_window_probe`.
    pub zero_window_probe: u64,
    /// `tcp.analysis.window_update`.
    pub window_update: u64,
    /// `tcp.analysis.window_full`.
    pub window_full: u64,
    /// `tcp.analysis.keep_alive`.
    pub keep_alive: u64,
}

impl Counters {
    pub fn count(&mut self, f: Flags) {
        let add = |bit: u32, c: &mut u64| *c += u64::from(f.has(bit));
        add(Flags::FAST_RETRANSMISSION, &mut self.fast_retransmissions);
        add(
            Flags::SPURIOUS_RETRANSMISSION,
            &mut self.spurious_retransmissions,
        );
        add(Flags::DUPLICATE_ACK, &mut self.duplicate_acks);
        add(Flags::OUT_OF_ORDER, &mut self.out_of_order);
        add(Flags::LOST_PACKET, &mut self.lost_segment);
        add(Flags::ACK_LOST_PACKET, &mut self.ack_lost_segment);
        add(Flags::ZERO_WINDOW, &mut self.zero_window);
        add(Flags::ZERO_WINDOW_PROBE, &mut self.zero_window_probe);
        add(Flags::WINDOW_UPDATE, &mut self.window_update);
        add(Flags::WINDOW_FULL, &mut self.window_full);
        add(Flags::KEEP_ALIVE, &mut self.keep_alive);
        self.retransmissions += u64::from(f.is_any_retransmission());
    }

    /// Sum of two directions.
    pub fn plus(&self, o: &Counters) -> Counters {
        Counters {
            retransmissions: self.retransmissions + o.retransmissions,
            fast_retransmissions: self.fast_retransmissions + o.fast_retransmissions,
            spurious_retransmissions: self.spurious_retransmissions + o.spurious_retransmissions,
            duplicate_acks: self.duplicate_acks + o.duplicate_acks,
            out_of_order: self.out_of_order + o.out_of_order,
            lost_segment: self.lost_segment + o.lost_segment,
            ack_lost_segment: self.ack_lost_segment + o.ack_lost_segment,
            zero_window: self.zero_window + o.zero_window,
            zero_window_probe: self.zero_window_probe + o.zero_window_probe,
            window_update: self.window_update + o.window_update,
            window_full: self.window_full + o.window_full,
            keep_alive: self.keep_alive + o.keep_alive,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Two directions after a handshake seen at 0 / 25 / 50 ms: A (ISN 100) and B (ISN 500).
    struct Pair {
        a: SeqState,
        b: SeqState,
        hs: Handshake,
    }

    impl Pair {
        fn new() -> Self {
            let mut p = Pair {
                a: SeqState::default(),
                b: SeqState::default(),
                hs: Handshake::default(),
            };
            p.seg(true, 1, 100, 0, SYN, 0);
            p.seg(false, 25, 500, 101, SYN | ACK, 0);
            p.seg(true, 50, 101, 501, ACK, 0);
            p
        }

        /// One segment at `t_ms` from A (`from_a`) or B; returns its flags.
        fn seg(&mut self, from_a: bool, t_ms: u64, seq: u32, ack: u32, fl: u8, len: u32) -> Flags {
            self.seg_win(from_a, t_ms, seq, ack, fl, len, 1000)
        }

        #[allow(clippy::too_many_arguments)]
        fn seg_win(
            &mut self,
            from_a: bool,
            t_ms: u64,
            seq: u32,
            ack: u32,
            flags: u8,
            seglen: u32,
            window: u16,
        ) -> Flags {
            let s = SegInfo {
                ts_ns: t_ms * MS,
                seq,
                ack,
                seglen,
                flags,
                window,
                wscale: None,
            };
            self.hs.on_segment(&s);
            let (fwd, rev) = if from_a {
                (&mut self.a, &mut self.b)
            } else {
                (&mut self.b, &mut self.a)
            };
            on_syn_window_scale(fwd, rev, &s);
            analyze(fwd, rev, &self.hs, &s)
        }
    }

    // ------------------------------------------------------------ duplicate ACKs

    #[test]
    fn a_pure_ack_repeating_seq_ack_and_window_is_a_duplicate() {
        // tcp_analyze_sequence_number, DUPLICATE ACK.
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        let f = p.seg(true, 70, 101, 501, ACK, 0);
        assert!(
            f.has(Flags::DUPLICATE_ACK),
            "same ack 501 as the handshake ACK"
        );
        // A new window is a window update, not a duplicate.
        let f = p.seg_win(true, 71, 101, 501, ACK, 0, 2000);
        assert!(f.has(Flags::WINDOW_UPDATE) && !f.has(Flags::DUPLICATE_ACK));
    }

    #[test]
    fn a_segment_with_data_is_never_a_duplicate_ack() {
        let mut p = Pair::new();
        let f = p.seg(true, 60, 101, 501, ACK, 10);
        assert!(!f.has(Flags::DUPLICATE_ACK));
    }

    // ------------------------------------------------------------ retransmissions

    #[test]
    fn fast_needs_two_dupacks_and_20_ms() {
        // >= 2 duplicate ACKs for this seq; the resend < 20 ms after the last one.
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        p.seg(false, 61, 601, 101, ACK, 100);
        p.seg(true, 80, 101, 501, ACK, 0);
        p.seg(true, 81, 101, 501, ACK, 0);
        p.seg(true, 82, 101, 501, ACK, 0);
        let f = p.seg(false, 95, 501, 101, ACK, 100);
        assert!(f.has(Flags::FAST_RETRANSMISSION) && f.is_any_retransmission());
        // The same after 20 ms (and after the 49 ms handshake RTT) is a plain retransmission.
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        p.seg(false, 61, 601, 101, ACK, 100);
        p.seg(true, 80, 101, 501, ACK, 0);
        p.seg(true, 81, 101, 501, ACK, 0);
        p.seg(true, 82, 101, 501, ACK, 0);
        let f = p.seg(false, 120, 501, 101, ACK, 100);
        assert_eq!(f.0, Flags::RETRANSMISSION);
    }

    #[test]
    fn data_below_the_other_sides_ack_is_spurious_first() {
        // Spurious is tested before fast and out-of-order (tshark 4.0).
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        p.seg(true, 61, 101, 601, ACK, 0);
        let f = p.seg(false, 62, 501, 101, ACK, 100);
        assert_eq!(f.0, Flags::SPURIOUS_RETRANSMISSION);
        assert!(f.is_any_retransmission());
    }

    #[test]
    fn a_keep_alive_is_not_a_retransmission() {
        // KEEP ALIVE: 0 or 1 byte at nextseq - 1.
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        p.seg(true, 61, 101, 601, ACK, 0);
        let f = p.seg(false, 5000, 600, 101, ACK, 1);
        assert_eq!(f.0, Flags::KEEP_ALIVE);
    }

    // ------------------------------------------------------------ windows and holes

    #[test]
    fn a_zero_window_probe_does_not_advance_nextseq() {
        let mut p = Pair::new();
        p.seg(false, 60, 501, 101, ACK, 100);
        let f = p.seg_win(true, 61, 101, 601, ACK, 0, 0);
        assert!(f.has(Flags::ZERO_WINDOW));
        let f = p.seg(false, 300, 601, 101, ACK, 1);
        assert!(f.has(Flags::ZERO_WINDOW_PROBE));
        // The probe's byte is sent again with more data: new data, no flag.
        p.seg_win(true, 500, 101, 601, ACK, 0, 1000);
        let f = p.seg(false, 501, 601, 101, ACK, 100);
        assert_eq!(f.0, 0);
    }

    #[test]
    fn a_hole_is_a_lost_segment_and_its_ack_an_acked_unseen_one() {
        let mut p = Pair::new();
        let f = p.seg(false, 60, 601, 101, ACK, 100);
        assert_eq!(f.0, Flags::LOST_PACKET);
        let f = p.seg(true, 61, 101, 801, ACK, 0);
        assert!(f.has(Flags::ACK_LOST_PACKET));
        // Repeated while the sender sends nothing new: flagged once.
        let f = p.seg(true, 62, 101, 901, ACK, 0);
        assert!(!f.has(Flags::ACK_LOST_PACKET));
    }

    #[test]
    fn sequence_comparison_wraps() {
        // RFC 9293 §3.4: comparisons are modulo 2^32.
        assert!(seq_lt(u32::MAX - 10, 5));
        assert!(seq_gt(5, u32::MAX - 10));
        assert!(seq_le(7, 7));
    }
}
