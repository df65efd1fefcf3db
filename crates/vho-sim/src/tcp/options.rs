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

/// Bytes the timestamps option takes in every segment once negotiated (RFC 7323 §3.2:
/// 10 bytes, padded to 12 with two NOPs as Linux and the RFC's Appendix A lay it out).
pub const TIMESTAMPS_OVERHEAD: u32 = 12;

/// The value of the MSS option this end sends: its full-segment payload plus the option
/// bytes it will carry in every segment, since the MSS option counts no TCP options
/// (RFC 6691 §2; Linux advertises 1460 on a 1500-byte MTU and sends 1448 with timestamps).
pub fn mss_option(cfg: &TcpConfig) -> u16 {
    let ts = if cfg.timestamps {
        TIMESTAMPS_OVERHEAD
    } else {
        0
    };
    (cfg.mss + ts).min(u16::MAX as u32) as u16
}

/// Agreement from the options of the peer's SYN (or SYN-ACK).
pub fn negotiate(cfg: &TcpConfig, peer: &TcpOptions) -> Negotiated {
    let timestamps = cfg.timestamps && peer.timestamps.is_some();
    // RFC 6691 §2: the payload is the peer's MSS less the options each segment carries.
    let ts = if timestamps { TIMESTAMPS_OVERHEAD } else { 0 };
    let peer_payload = peer
        .mss
        .map_or(DEFAULT_MSS, |m| m as u32)
        .saturating_sub(ts)
        .max(1);
    let mss = cfg.mss.min(peer_payload);
    // RFC 7323 §2.2: scaling is in effect only if both ends sent the option; shifts above 14
    // are treated as 14.
    let (own, theirs, offered) = match (cfg.window_scale, peer.window_scale) {
        (Some(o), Some(t)) => (o.min(14), t.min(14), true),
        _ => (0, 0, false),
    };
    Negotiated {
        mss,
        sack: cfg.sack && peer.sack_permitted,
        timestamps,
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

    #[test]
    fn the_mss_option_counts_no_tcp_options() {
        // RFC 6691 §2: Linux on a 1500-byte MTU advertises 1460 and, with timestamps
        // (12 bytes per segment), sends 1448-byte payloads.
        let cfg = profile("linux").expect("profile");
        assert_eq!((cfg.mss, mss_option(&cfg)), (1448, 1460));
        let peer = TcpOptions {
            mss: Some(1460),
            timestamps: Some((1, 0)),
            ..TcpOptions::default()
        };
        assert_eq!(negotiate(&cfg, &peer).mss, 1448);
        let no_ts = TcpOptions {
            mss: Some(1460),
            ..TcpOptions::default()
        };
        assert_eq!(
            negotiate(&cfg, &no_ts).mss,
            1448,
            "ours is the smaller then"
        );
        let rfc = profile("rfc").expect("profile");
        assert_eq!(mss_option(&rfc), 1460);
    }
}
