//! What two endpoints agreed on in the handshake (RFC 9293 §3.7.1 MSS, RFC 2018 §2
//! SACK-permitted, RFC 7323 §2–3 window scale and timestamps). Without a handshake both ends
//! are configured alike and assume the configured options (ns-2's one-way agents).

use super::config::TcpConfig;
use super::segment::TcpOptions;

/// RFC 9293 §3.7.1: without an MSS option, the sender assumes 536 bytes.
pub const DEFAULT_MSS: u32 = 536;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Negotiated {
    pub mss: u32,
    pub sack: bool,
    pub timestamps: bool,
    /// Shift applied to the windows this end advertises.
    pub own_wscale: u8,
    /// Shift applied to the windows this end receives.
    pub peer_wscale: u8,
    /// Whether the peer offered window scaling (so we answer with ours).
    pub peer_wscale_offered: bool,
}

impl Negotiated {
    pub fn assumed(cfg: &TcpConfig) -> Self {
        let ws = cfg.window_scale.unwrap_or(0);
        Negotiated {
            mss: cfg.mss,
            sack: cfg.sack,
            timestamps: cfg.timestamps,
            own_wscale: ws,
            peer_wscale: ws,
            peer_wscale_offered: cfg.window_scale.is_some(),
        }
    }
}

/// Agreement from the options of the peer's SYN (or SYN-ACK).
pub fn negotiate(cfg: &TcpConfig, peer: &TcpOptions) -> Negotiated {
    let mss = cfg.mss.min(peer.mss.map_or(DEFAULT_MSS, |m| m as u32));
    // RFC 7323 §2.2: scaling is in effect only if both ends sent the option; shifts above 14
    // are treated as 14.
    let (own, theirs, offered) = match (cfg.window_scale, peer.window_scale) {
        (Some(o), Some(t)) => (o.min(14), t.min(14), true),
        _ => (0, 0, false),
    };
    Negotiated {
        mss,
        sack: cfg.sack && peer.sack_permitted,
        timestamps: cfg.timestamps && peer.timestamps.is_some(),
        own_wscale: own,
        peer_wscale: theirs,
        peer_wscale_offered: offered,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::profile::profile;

    #[test]
    fn mss_is_the_smaller_of_ours_and_the_peers() {
        // RFC 9293 §3.7.1: send segments no larger than the peer's MSS option.
        let cfg = profile("linux").expect("profile");
        let peer = TcpOptions {
            mss: Some(1000),
            sack_permitted: true,
            ..TcpOptions::default()
        };
        let n = negotiate(&cfg, &peer);
        assert_eq!(n.mss, 1000);
        assert!(n.sack);
        assert_eq!(negotiate(&cfg, &TcpOptions::default()).mss, DEFAULT_MSS);
        assert!(!negotiate(&cfg, &TcpOptions::default()).sack);
    }
}
