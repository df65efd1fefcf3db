//! ADD_ADDR (RFC 8684 §3.4.1) as Linux's in-kernel path manager runs it, for an endpoint
//! with the `signal` flag on the mobile host:
//!
//! - The mobile announces the endpoint's address once the connection is fully established
//!   (`mptcp_pm_nl_fully_established` -> `mptcp_pm_create_subflow_or_signal_addr`,
//!   net/mptcp/pm_kernel.c: "check first for announce", then the `subflow` endpoints), or
//!   when the endpoint is added to a fully established connection
//!   (`mptcp_nl_add_subflow_or_signal_addr`). One address at a time: the next waits for the
//!   echo of the last (`mptcp_pm_add_addr_echoed` schedules the path manager again; while
//!   `MPTCP_ADD_ADDR_SIGNAL` is pending it returns). It goes on a pure ACK of the first
//!   active subflow (`mptcp_pm_addr_send_ack`), with no other MPTCP suboption
//!   (`mptcp_pm_add_addr_signal`: "always drop every other options for pure ack ADD_ADDR").
//! - Until echoed it is sent again (`mptcp_pm_add_timer`, net/mptcp/pm.c), after the
//!   subflows' largest RTO capped at `net.mptcp.add_addr_timeout` (120 s by default;
//!   `mptcp_adjust_add_addr_timeout`, Linux 6.18), doubled per resend, at most
//!   `ADD_ADDR_RETRANS_MAX` (3) times; then the path manager moves on.
//! - The peer echoes every ADD_ADDR it gets (E flag, §3.4.1), accepted or not
//!   (`mptcp_pm_add_addr_received`; `mptcp_pm_nl_add_addr_received` echoes first), and, when
//!   its `add_addr_accepted` limit and its subflow limit allow and no subflow already goes to
//!   that address (`lookup_subflow_by_daddr`), connects to it from its own address
//!   (`fill_local_addresses_vec`, `__mptcp_subflow_connect`) at the connection's remote port
//!   when the ADD_ADDR names none ("pick id 0 port, if none is provided the remote address":
//!   `remote.port = sk->sk_dport`). Toward a mobile host that port is the mobile's
//!   ephemeral port, on which nothing listens at the announced address: the MP_JOIN SYN is
//!   answered with a RST (`tcp_v4_send_reset`), and no subflow is made. Measured on Linux
//!   6.18 (two namespaces, a `signal` endpoint on the client; and `vho emulate
//!   --multipath`, docs/design/mptcp.md).

use crate::time::{Dur, Time};

/// `net.mptcp.add_addr_timeout`'s default, 120 s (Documentation/networking/mptcp-sysctl.rst),
/// the most an ADD_ADDR waits for its echo before it is sent again.
pub const ADD_ADDR_TIMEOUT: Dur = Dur::from_secs(120);
/// `ADD_ADDR_RETRANS_MAX` (net/mptcp/pm.c): resends of an unechoed ADD_ADDR.
pub const ADD_ADDR_RETRANS_MAX: u8 = 3;
/// `TCP_RTO_MIN` (include/net/tcp.h), 200 ms: the floor of a subflow's RTO.
const TCP_RTO_MIN: Dur = Dur::from_millis(200);

/// The RTO Linux computes from a first RTT sample `r` (`tcp_rtt_estimator`: `srtt = r`,
/// `mdev = 2r` "make sure rto = 3*rtt", `rttvar = max(mdev, TCP_RTO_MIN)`;
/// `__tcp_set_rto`: `srtt + rttvar`): what the mobile's subflow knows from its handshake.
pub fn rto_from_first_sample(r: Dur) -> Dur {
    r + Dur::from_nanos(r.as_nanos().saturating_mul(2)).max(TCP_RTO_MIN)
}

/// The announce timer's interval: the subflows' largest RTO, capped at
/// [`ADD_ADDR_TIMEOUT`] (`mptcp_adjust_add_addr_timeout`).
pub fn timeout(max_rto: Option<Dur>) -> Dur {
    max_rto
        .filter(|d| d.as_nanos() > 0)
        .map_or(ADD_ADDR_TIMEOUT, |d| d.min(ADD_ADDR_TIMEOUT))
}

/// An address announced and not yet echoed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    iface: u8,
    deadline: Time,
    resent: u8,
}

/// The announcing end's ADD_ADDR state (the mobile's path manager).
#[derive(Clone, Debug, Default)]
pub struct Announcer {
    /// Interfaces whose address waits to be announced, in endpoint order.
    queue: Vec<u8>,
    pending: Option<Pending>,
    /// An ADD_ADDR to go on the next pure ACK.
    send: Option<u8>,
    /// Interfaces (bit `i`) announced or queued once: an endpoint's id is used once per
    /// connection (`msk->pm.id_avail_bitmap`).
    used: u64,
    /// ADD_ADDRs sent, resends included.
    pub sent: u32,
}

impl Announcer {
    /// Queues `iface`'s address, unless it was already.
    pub fn enqueue(&mut self, iface: u8) {
        let bit = 1u64.checked_shl(u32::from(iface)).unwrap_or(0);
        if self.used & bit == 0 {
            self.used |= bit;
            self.queue.push(iface);
        }
    }

    /// Starts the next announcement if none waits for its echo; `timeout` as [`timeout`].
    pub fn kick(&mut self, now: Time, timeout: Dur) {
        if self.pending.is_some() || self.queue.is_empty() {
            return;
        }
        let iface = self.queue.remove(0);
        self.pending = Some(Pending {
            iface,
            deadline: now + timeout,
            resent: 0,
        });
        self.send = Some(iface);
    }

    /// The ADD_ADDR to put on a pure ACK now, if one is due.
    pub fn take_send(&mut self) -> Option<u8> {
        let s = self.send.take();
        if s.is_some() {
            self.sent += 1;
        }
        s
    }

    /// Whether an ADD_ADDR waits for a pure ACK.
    pub fn wants_send(&self) -> bool {
        self.send.is_some()
    }

    /// The echo of `iface`'s ADD_ADDR came: its timer stops (`mptcp_pm_del_add_timer`) and
    /// the next address, if any, is announced.
    pub fn on_echo(&mut self, now: Time, iface: u8, timeout: Dur) {
        if self.pending.is_some_and(|p| p.iface == iface) {
            self.pending = None;
            self.kick(now, timeout);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.pending.map(|p| p.deadline)
    }

    /// The timer (`mptcp_pm_add_timer`): resent and re-armed at `timeout << resends` while
    /// under `ADD_ADDR_RETRANS_MAX`; after the last resend the path manager moves on to the
    /// next address (`mptcp_pm_subflow_established`).
    pub fn on_timeout(&mut self, now: Time, timeout: Dur) {
        let Some(mut p) = self.pending else { return };
        if p.deadline > now {
            return;
        }
        p.resent += 1;
        self.send = Some(p.iface);
        if p.resent < ADD_ADDR_RETRANS_MAX {
            p.deadline = now + Dur::from_nanos(timeout.as_nanos() << p.resent);
            self.pending = Some(p);
        } else {
            self.pending = None;
            self.kick(now, timeout);
        }
    }
}

/// The peer's side: how many ADD_ADDRs it acted on (`msk->pm.add_addr_accepted`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Acceptor {
    accepted: u8,
}

impl Acceptor {
    /// An ADD_ADDR arrived: whether the path manager connects to the address
    /// (`mptcp_pm_add_addr_received` with `accept_addr`, then `mptcp_pm_nl_add_addr_received`):
    /// `limit` is `add_addr_accepted`, `subflows` the joined subflows it has and `max` its
    /// subflow limit; `has_subflow_to` whether a subflow already goes to the address. A
    /// connection attempt counts whether or not it succeeds (`sf_created`: the connect is
    /// in progress).
    pub fn on_add_addr(
        &mut self,
        limit: u8,
        subflows: usize,
        max: u8,
        has_subflow_to: bool,
    ) -> bool {
        // `accept_addr`: set when the connection is created from both limits
        // (`mptcp_pm_nl_data_init`), cleared once either is reached.
        let accept = self.accepted < limit && subflows < usize::from(max);
        if !accept || has_subflow_to {
            return false;
        }
        self.accepted += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Dur = Dur::from_millis(500);

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    // ---- The announcing end -------------------------------------------------------------

    #[test]
    fn one_address_is_announced_at_a_time_the_next_after_the_echo() {
        // pm_kernel.c `mptcp_pm_create_subflow_or_signal_addr`: returns while an ADD_ADDR is
        // pending (MPTCP_ADD_ADDR_SIGNAL); `mptcp_pm_add_addr_echoed` schedules it again.
        let mut a = Announcer::default();
        a.enqueue(1);
        a.enqueue(2);
        a.kick(at(0), T);
        assert_eq!(a.take_send(), Some(1));
        a.kick(at(1), T);
        assert_eq!(a.take_send(), None);
        a.on_echo(at(40), 1, T);
        assert_eq!(a.take_send(), Some(2));
        assert_eq!(a.sent, 2);
    }

    #[test]
    fn an_address_is_announced_once_per_connection() {
        // The endpoint's id leaves `id_avail_bitmap` when it is announced.
        let mut a = Announcer::default();
        a.enqueue(1);
        a.kick(at(0), T);
        a.take_send();
        a.on_echo(at(40), 1, T);
        a.enqueue(1);
        a.kick(at(50), T);
        assert_eq!(a.take_send(), None);
    }

    #[test]
    fn an_unechoed_add_addr_is_resent_with_backoff_three_times_at_most() {
        // pm.c `mptcp_pm_add_timer`: resent, re-armed at timeout << retrans_times while
        // retrans_times < ADD_ADDR_RETRANS_MAX (3).
        let mut a = Announcer::default();
        a.enqueue(1);
        a.kick(at(0), T);
        a.take_send();
        assert_eq!(a.poll_timeout(), Some(at(500)));
        a.on_timeout(at(500), T);
        assert_eq!(a.take_send(), Some(1));
        assert_eq!(a.poll_timeout(), Some(at(1500)));
        a.on_timeout(at(1500), T);
        assert_eq!(a.take_send(), Some(1));
        assert_eq!(a.poll_timeout(), Some(at(3500)));
        a.on_timeout(at(3500), T);
        assert_eq!(a.take_send(), Some(1));
        assert_eq!(a.poll_timeout(), None);
        assert_eq!(a.sent, 4);
    }

    #[test]
    fn the_timer_is_the_largest_rto_capped_at_add_addr_timeout() {
        // `mptcp_adjust_add_addr_timeout`: max icsk_rto, if lower than add_addr_timeout.
        assert_eq!(timeout(None), Dur::from_secs(120));
        assert_eq!(timeout(Some(Dur::from_secs(1))), Dur::from_secs(1));
        assert_eq!(timeout(Some(Dur::from_secs(300))), Dur::from_secs(120));
        // A first sample of 40 ms: 40 + max(80, 200) ms.
        assert_eq!(
            rto_from_first_sample(Dur::from_millis(40)),
            Dur::from_millis(240)
        );
        assert_eq!(
            rto_from_first_sample(Dur::from_millis(700)),
            Dur::from_millis(2100)
        );
    }

    // ---- The peer -----------------------------------------------------------------------

    #[test]
    fn with_add_addr_accepted_zero_the_peer_only_echoes() {
        // Linux's default limit, 0 (`pm_nl_init_net`): `accept_addr` false, echo only.
        let mut p = Acceptor::default();
        assert!(!p.on_add_addr(0, 0, 8, false));
    }

    #[test]
    fn the_peer_connects_within_its_limits_and_not_to_an_address_it_has_a_subflow_to() {
        let mut p = Acceptor::default();
        // `lookup_subflow_by_daddr`: a subflow already goes there.
        assert!(!p.on_add_addr(1, 1, 8, true));
        assert!(p.on_add_addr(1, 1, 8, false));
        // `add_addr_accepted` reached.
        assert!(!p.on_add_addr(1, 1, 8, false));
        // The subflow limit reached.
        let mut q = Acceptor::default();
        assert!(!q.on_add_addr(8, 2, 2, false));
    }
}
