//! Which subflow carries data next, which one a reinjection goes on, and when a subflow is
//! stale: Linux upstream's rules (net/mptcp/protocol.c, net/mptcp/pm.c, pm_netlink.c), as
//! pure functions over what the connection knows of its subflows.

use crate::time::Dur;

/// What the scheduler reads of one subflow.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubView {
    /// `mptcp_subflow_active` (protocol.h): established, not closed, not stale.
    pub active: bool,
    pub backup: bool,
    /// `sk_stream_memory_free`, as this model bounds a subflow's buffer: it has sent all it
    /// was handed and its window has room (a mapping goes to a subflow that sends it now).
    pub room: bool,
    /// Bytes handed to it and not acknowledged (`sk_wmem_queued`).
    pub queued: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt: Dur,
}

/// Linux's pacing rate of a subflow, bytes per second times 2^-0 (`tcp_update_pacing_rate`,
/// net/ipv4/tcp_input.c): cwnd / srtt, times `tcp_pacing_ss_ratio` (200 %) while cwnd is below
/// half ssthresh (slow start), `tcp_pacing_ca_ratio` (120 %) after. `None` before an RTT.
fn pacing_rate(s: &SubView) -> Option<u128> {
    let srtt = s.srtt.as_nanos();
    if srtt == 0 {
        return None;
    }
    let ratio: u128 = if s.cwnd < s.ssthresh / 2 { 200 } else { 120 };
    Some((u128::from(s.cwnd) * 1_000_000_000 * ratio / 100 / u128::from(srtt)).max(1))
}

/// The default scheduler's pick (`mptcp_subflow_get_send`, net/mptcp/protocol.c): among the
/// active subflows, the one whose queued data would drain first at its pacing rate (its
/// "linger time", `sk_wmem_queued << 32 / pace`), the non-backup ones first; a backup only
/// when no non-backup subflow is active. The pick must then have room, or nothing is sent
/// now (the data waits for the faster subflow rather than queueing on a slower one: the
/// BLEST-like rule of the function's comment).
pub fn get_send(subs: &[SubView]) -> Option<usize> {
    let mut best: [Option<(u128, usize)>; 2] = [None, None];
    let mut nr_active = 0;
    for (i, s) in subs.iter().enumerate() {
        if !s.active {
            continue;
        }
        nr_active += usize::from(!s.backup);
        // A subflow with no RTT yet has nothing queued: it lingers for no time.
        let linger = match pacing_rate(s) {
            Some(pace) => (u128::from(s.queued) << 32) / pace,
            None => 0,
        };
        let slot = &mut best[usize::from(s.backup)];
        if slot.is_none_or(|(l, _)| linger < l) {
            *slot = Some((linger, i));
        }
    }
    let pick = if nr_active == 0 { best[1] } else { best[0] };
    pick.map(|(_, i)| i).filter(|&i| subs[i].room)
}

/// What the reinjection pick reads of one subflow.
#[derive(Clone, Copy, Debug, Default)]
pub struct RetransView {
    /// Established and not closed (`__mptcp_subflow_active`; a stale subflow may be picked).
    pub usable: bool,
    pub backup: bool,
    /// Data outstanding at its TCP level (`tcp_rtx_and_write_queues_empty` false).
    pub outstanding: bool,
    pub stale_count: u8,
}

/// Where stranded data is reinjected (`mptcp_subflow_get_retrans`, net/mptcp/protocol.c): a
/// subflow with nothing outstanding of its own (one still retransmitting is skipped: its
/// queue would hold the data behind its own), a non-backup one first; a backup only when
/// every busy subflow has gone more than one retransmission period without progress.
pub fn get_retrans(subs: &[RetransView]) -> Option<usize> {
    let (mut pick, mut backup) = (None, None);
    let mut min_stale = u8::MAX;
    for (i, s) in subs.iter().enumerate() {
        if !s.usable {
            continue;
        }
        if s.outstanding {
            min_stale = min_stale.min(s.stale_count);
            continue;
        }
        if s.backup {
            backup.get_or_insert(i);
            continue;
        }
        pick.get_or_insert(i);
    }
    pick.or(if min_stale > 1 { backup } else { None })
}

/// Whether a subflow `count` retransmission periods without progress goes stale
/// (`mptcp_pm_nl_subflow_chk_stale`, net/mptcp/pm_kernel.c; pm_netlink.c before Linux 6.15):
/// only past `stale_loss_cnt` periods (`stale_count <= stale_loss_cnt` returns; 0 turns the
/// rule off), and only if another active subflow, whose periods are `others`, has had fewer
/// than `max(stale_loss_cnt - 1, 1)` (`active_max_loss_cnt`).
pub fn goes_stale(count: u8, stale_loss_cnt: u8, others: impl IntoIterator<Item = u8>) -> bool {
    if stale_loss_cnt == 0 || count <= stale_loss_cnt {
        return false;
    }
    let active_max = stale_loss_cnt.saturating_sub(1).max(1);
    others.into_iter().any(|c| c < active_max)
}

/// A subflow's record of retransmission periods without progress
/// (`mptcp_pm_subflow_chk_stale`, net/mptcp/pm.c): compared at each expiry of the
/// connection's retransmission timer while the subflow has data outstanding.
#[derive(Clone, Copy, Debug, Default)]
pub struct StaleCheck {
    pub count: u8,
    /// What `rcv_tstamp` read at the first period (here: the ACKs received).
    acks_at: u64,
}

/// What a check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staleness {
    /// An ACK came since the last check: the count restarts (`mptcp_subflow_set_active`).
    Progress,
    /// No ACK since: the count so far.
    NoProgress(u8),
}

impl StaleCheck {
    pub fn check(&mut self, acks_now: u64) -> Staleness {
        if self.count == 0 {
            self.acks_at = acks_now;
            self.count = 1;
            Staleness::NoProgress(1)
        } else if self.acks_at == acks_now {
            self.count = self.count.saturating_add(1);
            Staleness::NoProgress(self.count)
        } else {
            self.count = 0;
            Staleness::Progress
        }
    }

    /// Whether an ACK came since the first period's reading: a stale subflow is active again
    /// at once then, without waiting for the next check (`mptcp_subflow_active`,
    /// net/mptcp/protocol.c: `stale_rcv_tstamp != rcv_tstamp` → `mptcp_subflow_set_active`).
    pub fn acked_since(&self, acks_now: u64) -> bool {
        self.acks_at != acks_now
    }
}

/// `TCP_RTO_MIN` (include/net/tcp.h, 200 ms): the connection's retransmission timer when no
/// subflow's own timer runs (`mptcp_set_timeout`).
pub const MPTCP_RTO_MIN: Dur = Dur::from_millis(200);

/// The most a timer-driven reinjection resends at once: the head data fragment
/// (`mptcp_rtx_head`, a page fragment of at most 32 KiB: `SKB_FRAG_PAGE_ORDER` 3 of 4 KiB
/// pages).
pub const RTX_HEAD_BYTES: u64 = 32 * 1024;

/// The data a Linux sender's data fragment holds: each `mptcp_data_frag` sits at the start of
/// its own 32 KiB page fragment (`mptcp_page_frag_refill`, `mptcp_carve_data_frag`), its 40
/// bytes of header before the data. A subflow's skb, hence its segments, never crosses two
/// fragments' data (`mptcp_sendmsg_frag` maps one fragment at a time), so the segment at
/// each fragment's end is short. Measured (a kernel capture of Daniel & Kojo's WLAN -> GPRS
/// soft 200 KB cell, docs/design/mptcp.md): short segments end at data offsets 98,184,
/// 130,912, 163,640 and 196,368, 32,728 apart.
pub const DFRAG_BYTES: u64 = 32 * 1024 - 40;

#[cfg(test)]
mod tests {
    use super::goes_stale;

    #[test]
    fn a_subflow_goes_stale_only_past_stale_loss_cnt_with_a_fresher_alternative() {
        // `mptcp_pm_nl_subflow_chk_stale`: `stale_count <= stale_loss_cnt` returns, so with
        // Linux's default 4 the fifth period without progress is the first that counts.
        assert!(!goes_stale(4, 4, [0]));
        assert!(goes_stale(5, 4, [0]));
        // The alternative must have had fewer than max(4 - 1, 1) = 3 periods itself.
        assert!(goes_stale(5, 4, [2]));
        assert!(!goes_stale(5, 4, [3]));
        // No other active subflow: nothing to move the data to.
        assert!(!goes_stale(9, 4, []));
        // stale_loss_cnt 1: past one period, an alternative with none (max(0, 1) = 1).
        assert!(!goes_stale(1, 1, [0]));
        assert!(goes_stale(2, 1, [0]));
        assert!(!goes_stale(2, 1, [1]));
        // 0 turns the rule off (`!stale_loss_cnt` returns).
        assert!(!goes_stale(200, 0, [0]));
    }
}
