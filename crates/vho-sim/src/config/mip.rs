//! Mobile IPv6's and NEMO's parameters as the scenario gives them (`[mipv6]`, `[nemo]`): the
//! entities' settings (`mip`), the home agent's bicasting window (`mip::bicast`) and the mobile
//! router's packet combining (`net::nemo_combiner`, `net::combine::apc`). Each model's
//! behaviour stays with it.

use super::{LinkIdx, NodeIdx};
use crate::time::{Dur, Time};

/// How the mobile node learns that it must move (Cottingham & Vidales §4: t_d).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Detection {
    /// The current router is declared lost after `k` of its advertisement intervals without an
    /// advertisement (MIPL's "2 lost RAs", 000 l.108-110); a new link is found by its
    /// router's first advertisement (eq. 2's wait).
    RaMiss { k: u32 },
    /// The link layer tells the mobile node at once (after `delay`) that a link went down or
    /// came up; on a new link it solicits an advertisement.
    L2Trigger { delay: Dur },
}

/// Duplicate address detection on a new link (RFC 4862 §5.4; eq. 3's t_DAD_LL and t_DAD_NL).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dad {
    /// DupAddrDetectTransmits = 1: one Neighbor Solicitation per address, U[0,
    /// MAX_RTR_SOLICITATION_DELAY) after its start (Linux's `addrconf_dad_kick`), the address
    /// taken RetransTimer after it; link-local first (as the interface comes up), then the
    /// care-of address (`mobile::MobileNode::start_dad`).
    Full,
    /// RFC 4429: the Neighbor Solicitations are sent, the addresses used at once.
    Optimistic,
    /// DupAddrDetectTransmits = 0: no solicitation, the addresses used at once.
    None,
}

/// When the mobile node starts return routability with a correspondent after moving.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum RoStart {
    /// When its home agent acknowledges the new binding.
    AfterBa,
    /// `delay` after that acknowledgement (the bare phenomenon of §6.1's unexplained LAN
    /// time, 000 l.183).
    AfterBaDelay(Dur),
    /// When the home agent's acknowledgement has come and a data packet from the
    /// correspondent then arrives tunnelled (the mobile starts route optimisation for a
    /// correspondent it hears from through its home agent, RFC 6275 §11.3.1's "MAY").
    OnTraffic,
    /// With the home registration, in parallel (000 l.106: "can be done simultaneously").
    Parallel,
}

/// An access router and the access link it advertises on.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct RouterSpec {
    pub node: NodeIdx,
    pub link: LinkIdx,
    /// Unsolicited advertisements at intervals uniform in [ra_min, ra_max] (RFC 4861 §6.2.4).
    pub ra_min: Dur,
    pub ra_max: Dur,
    /// The link has link-layer addresses, carried in RS/RA options (RFC 4861 §4.1-4.2); not
    /// on a point-to-point link such as GPRS.
    pub link_layer: bool,
    /// MinDelayBetweenRAs (RFC 6275 §13): a solicited advertisement comes no sooner than this
    /// after the last multicast one (RFC 4861 §6.2.6).
    pub min_delay_between_ras: Dur,
}

/// Mobile IPv6 in a scenario (`[mipv6]`): one home agent, its mobile nodes' settings, the
/// correspondents doing route optimisation, the access routers.
#[derive(Clone, PartialEq)]
pub struct MipSpec {
    pub home_agent: NodeIdx,
    /// Hosts that take part in route optimisation (correspondent nodes).
    pub correspondents: Vec<NodeIdx>,
    pub routers: Vec<RouterSpec>,
    pub detection: Detection,
    pub dad: Dad,
    /// The mobile's interfaces that are up at time zero have their router, link-local and
    /// care-of addresses already (000 l.59: GPRS attached "simultaneously"); otherwise only the
    /// initial one has.
    pub preconfigured: bool,
    pub route_optimisation: bool,
    pub ro_start: RoStart,
    /// Per mobile (in `Spec::mobiles` order), its interfaces up at time zero.
    pub attached: Vec<Vec<LinkIdx>>,
    /// Whether a first Router Solicitation on a new link waits U[0, MAX_RTR_SOLICITATION_DELAY]
    /// (RFC 4861 §6.3.7).
    pub rs_delay: bool,
    /// Whether the Binding Update to a correspondent asks for an acknowledgement (RFC 6275
    /// §6.1.7's A flag; MIPL 2.0's default `UseCnBuAck` is off).
    pub cn_ack: bool,
    /// Processing time of the default-router and care-of address configuration, t_DR + t_CoA
    /// (eq. 3; "terminal characteristics", 000 l.66; open, 0 by default).
    pub processing: Dur,
    /// Whether the correspondents hold a binding to the mobile's first care-of address at time
    /// zero (route optimisation done on the first link). Without one a correspondent sends to
    /// the home address, the home agent tunnels (RFC 6275 §10.4.1), and the mobile, which has
    /// no Binding Update List entry to update for it (§11.7.2), starts return routability
    /// when a packet from it arrives tunnelled after the home registration (§11.3.1's "MAY"),
    /// whatever `ro_start` says: as for a mobile leaving its home link, where it had none
    /// (Cottingham & Vidales l.183: LAN -> GPRS's extra time, "a few packets are tunneled via
    /// the HA in the meantime").
    pub cn_bound: bool,
}

/// As derived, but `cn_bound` shown only when false: `scenario::hash` reads this, and every
/// scenario written before the key existed keeps its hash.
impl std::fmt::Debug for MipSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("MipSpec");
        s.field("home_agent", &self.home_agent)
            .field("correspondents", &self.correspondents)
            .field("routers", &self.routers)
            .field("detection", &self.detection)
            .field("dad", &self.dad)
            .field("preconfigured", &self.preconfigured)
            .field("route_optimisation", &self.route_optimisation)
            .field("ro_start", &self.ro_start)
            .field("attached", &self.attached)
            .field("rs_delay", &self.rs_delay)
            .field("cn_ack", &self.cn_ack)
            .field("processing", &self.processing);
        if !self.cn_bound {
            s.field("cn_bound", &self.cn_bound);
        }
        s.finish()
    }
}

/// A NEMO soft handover in a scenario (`[nemo]`): which mobile is a mobile router, the nodes
/// behind it, the home agent's bicasting window and the router's combining.
#[derive(Clone, PartialEq, Debug)]
pub struct NemoSpec {
    /// The mobile router, an index into `Spec::mobiles`.
    pub router: usize,
    /// Its mobile network: the local fixed nodes (LFNs) behind it, each on a link to it.
    pub network: Vec<NodeIdx>,
    /// The bicasting window [from, until): the handover's trigger and its completion (§V-C:
    /// 5 s and 15 s). `None`: no bicasting, the Make-Before-Break baseline (the path switches
    /// with the `[[handover]]`).
    pub bicast: Option<(Time, Time)>,
    /// Bicasting upward too (§IV-B: "applied to the down-link traffic from the HA to the MR
    /// and/or the up-link traffic"): the router sends the network's packets through both
    /// reverse tunnels, the home agent combines them.
    pub uplink: bool,
    pub combining: Combining,
}

/// What the mobile router does with the two copies (`[nemo] combining`).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Combining {
    None,
    NemoSho,
    Apc(ApcConfig),
}

/// How many sequence numbers the table remembers below the highest recorded. Open: the paper
/// gives no size. 4096 numbers is 512 bytes, and covers a later copy that lags the first by
/// 4096 packets: 49 s of 1500-byte packets at the WLAN's 1 Mb/s, or 0.6 s of 40-byte ACKs at
/// 2 Mb/s (upward bicasting of a TCP ACK stream), both beyond the second copy's lag in the
/// paper's runs (Fig. 6b's largest, about 1.1 s, at 1 Mb/s of data).
pub const DEFAULT_TABLE_SIZE: u32 = 4096;

/// α of eq. 3: "We set 0.875 to the filter gain constant α in (3)" (§VI).
pub const DEFAULT_ALPHA: f64 = 0.875;

/// Initial T_eDelay for a downward handover (3G to WLAN): "set 1 second to the initial value
/// of T_eDelay in case of downward handover" (§VI).
pub const DOWNWARD_INITIAL_E_DELAY: Dur = Dur::from_secs(1);

/// Initial T_eDelay for an upward handover (WLAN to 3G): "set to zero in case of handover from
/// the fast link to the slow link so that smooth increase of delay is performed" (§IV-B, §VI).
pub const UPWARD_INITIAL_E_DELAY: Dur = Dur::ZERO;

/// With [`InitialEDelay::FirstSlowDelay`], the longest a fast copy waits for the first
/// slow-link measurement. Open: §VII proposes waiting but names no bound, and one is needed in
/// case the slow link delivers nothing. 2 s is twice §VI's fixed 1 s and above the 1.1 s lag
/// of Fig. 6b, the case the variant is meant for.
pub const DEFAULT_FIRST_DELAY_WAIT: Dur = Dur::from_secs(2);

/// Where T_eDelay starts.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum InitialEDelay {
    /// A fixed value (§VI: [`DOWNWARD_INITIAL_E_DELAY`], [`UPWARD_INITIAL_E_DELAY`]).
    Fixed(Dur),
    /// §VII: the first measured slow-link delay becomes T_eDelay (not filtered with eq. 3).
    /// Until it is measured, a fast copy is held at most `max_wait`; once measured, every
    /// held copy's hold is recomputed with eq. 2 from its own arrival (a hold already past
    /// falls due at once).
    FirstSlowDelay { max_wait: Dur },
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ApcConfig {
    /// α of eq. 3, the weight of the old estimate, in [0, 1].
    pub alpha: f64,
    pub initial: InitialEDelay,
    /// Size of the Sequence Number Table ([`DEFAULT_TABLE_SIZE`], open).
    pub table_size: u32,
}

impl ApcConfig {
    /// §VI's downward handover: α = 0.875, T_eDelay from 1 s.
    pub fn downward() -> ApcConfig {
        ApcConfig {
            alpha: DEFAULT_ALPHA,
            initial: InitialEDelay::Fixed(DOWNWARD_INITIAL_E_DELAY),
            table_size: DEFAULT_TABLE_SIZE,
        }
    }

    /// §VI's upward handover: α = 0.875, T_eDelay from 0.
    pub fn upward() -> ApcConfig {
        ApcConfig {
            initial: InitialEDelay::Fixed(UPWARD_INITIAL_E_DELAY),
            ..ApcConfig::downward()
        }
    }
}

impl Default for ApcConfig {
    fn default() -> Self {
        ApcConfig::downward()
    }
}
