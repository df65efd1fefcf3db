//! A Multipath TCP connection's parameters (`[[flow]] kind = "mptcp"`, `[flow.mptcp]`,
//! `agent::mptcp`): the in-kernel path manager's endpoints on the mobile host's interfaces,
//! the packet scheduler and the congestion control of the subflows, each as Linux upstream
//! names them (ip-mptcp(8); `net/mptcp/pm_netlink.c`, `net/mptcp/sched.c`).

/// The most interfaces (and so endpoints) a connection's mobile host has: the kernel's limit
/// on subflows per connection (`MPTCP_PM_MAX_ADDR`, 8, `net/mptcp/protocol.h`).
pub const MAX_ENDPOINTS: usize = 8;

/// The endpoint flags of ip-mptcp(8) (`MPTCP_PM_ADDR_FLAG_*`, include/uapi/linux/mptcp.h).
pub mod flags {
    /// ADD_ADDR: announce the address to the peer (RFC 8684 §3.4.1).
    pub const SIGNAL: u8 = 1;
    /// Open a subflow from this address to the peer (the path manager's own MP_JOIN).
    pub const SUBFLOW: u8 = 2;
    /// The subflows over it are backups (MP_JOIN's B bit, RFC 8684 §3.2; MP_PRIO §3.3.8).
    pub const BACKUP: u8 = 4;
    /// A subflow to each of the peer's addresses (the peer has one here: as `SUBFLOW`).
    pub const FULLMESH: u8 = 8;
}

/// One endpoint: an interface of the mobile host (an index into its `interfaces`) and its
/// flags. The initial interface's endpoint carries only `BACKUP` in effect: the initial
/// subflow goes over it whatever its flags say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Endpoint {
    pub interface: u8,
    pub flags: u8,
}

impl Endpoint {
    /// Whether the path manager opens a subflow over it (`subflow` or `fullmesh`).
    pub fn opens_subflow(&self) -> bool {
        self.flags & (flags::SUBFLOW | flags::FULLMESH) != 0
    }
    pub fn backup(&self) -> bool {
        self.flags & flags::BACKUP != 0
    }
    /// Whether the path manager announces its address to the peer (ADD_ADDR, RFC 8684
    /// §3.4.1; `select_signal_address`, net/mptcp/pm_kernel.c).
    pub fn signals(&self) -> bool {
        self.flags & flags::SIGNAL != 0
    }
}

/// The packet scheduler (`net.mptcp.scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Linux's default (`mptcp_subflow_get_send`, net/mptcp/protocol.c): the active subflow
    /// whose queued data would drain first; backups only when no other is active.
    #[default]
    Default,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        "default"
    }
}

/// How the subflows' congestion windows relate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Coupling {
    /// Linux upstream: every subflow runs the connection's own TCP congestion control
    /// (`tcp.cc`) on its own, as a plain TCP connection would (net/mptcp has no coupled
    /// controller).
    #[default]
    Uncoupled,
    /// LIA, the Linked Increases Algorithm (RFC 6356), over the subflows' Reno/NewReno
    /// (`agent::mptcp::lia`; the out-of-tree multipath-tcp.org kernel's `lia`).
    Lia,
    /// OLIA (Khalili et al., IEEE/ACM ToN 2013), over the subflows' Reno/NewReno slow start
    /// and decrease (`agent::mptcp::olia`; the multipath-tcp.org kernel's `olia`).
    Olia,
}

impl Coupling {
    pub fn name(self) -> &'static str {
        match self {
            Coupling::Uncoupled => "uncoupled",
            Coupling::Lia => "lia",
            Coupling::Olia => "olia",
        }
    }
}

/// A connection's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MptcpConfig {
    /// The mobile host's endpoints, `endpoints[..n]`.
    pub endpoints: [Endpoint; MAX_ENDPOINTS],
    pub n: u8,
    pub scheduler: Scheduler,
    pub coupling: Coupling,
    /// Retransmission periods without progress after which a subflow is stale
    /// (`net.mptcp.stale_loss_cnt`, default 4: Documentation/networking/mptcp-sysctl.rst).
    pub stale_loss_cnt: u8,
    /// Subflows a connection may have besides the initial one (`ip mptcp limits subflow`;
    /// `vho emulate --multipath` sets 8, the kernel's default 2 would refuse joins there).
    pub max_subflows: u8,
    /// ADD_ADDRs the correspondent host's path manager acts on, opening a subflow toward the
    /// announced address (`ip mptcp limits set add_addr_accepted`, `add_addr_accept_max`;
    /// `mptcp_pm_nl_add_addr_received`, net/mptcp/pm_kernel.c). Linux's default is 0
    /// (`pm_nl_init_net` leaves it zero: `ip mptcp limits show` in a new namespace prints
    /// `add_addr_accepted 0 subflows 2` on Linux 6.18); `vho emulate --multipath` sets the
    /// correspondent's to this value.
    pub add_addr_accepted: u8,
}

impl Default for MptcpConfig {
    fn default() -> Self {
        MptcpConfig {
            endpoints: [Endpoint::default(); MAX_ENDPOINTS],
            n: 0,
            scheduler: Scheduler::Default,
            coupling: Coupling::Uncoupled,
            stale_loss_cnt: 4,
            max_subflows: 8,
            add_addr_accepted: 0,
        }
    }
}

impl MptcpConfig {
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints[..usize::from(self.n)]
    }
    /// The endpoint on interface `i`, if the scenario gave one.
    pub fn endpoint(&self, i: u8) -> Option<Endpoint> {
        self.endpoints().iter().copied().find(|e| e.interface == i)
    }
    /// Adds (or replaces) the endpoint on an interface; false when full.
    pub fn set(&mut self, e: Endpoint) -> bool {
        let n = usize::from(self.n);
        if let Some(x) = self.endpoints[..n]
            .iter_mut()
            .find(|x| x.interface == e.interface)
        {
            *x = e;
            return true;
        }
        if n == MAX_ENDPOINTS {
            return false;
        }
        self.endpoints[n] = e;
        self.n += 1;
        true
    }
}
