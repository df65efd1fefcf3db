//! Mobile IPv6's messages as the simulator carries them (`crate::mip`'s entities send and
//! read them; `mip::message` is this module): what each says and how many bytes it
//! takes on the wire. The bytes themselves are written only for captures (`record::pcap6`).
//!
//! Sizes are whole IPv6 packets (40-byte header included), laid out as RFC 6275 §6.1 and
//! RFC 4861 §4 define them and checked with tshark 4.0.17 on hand-built packets
//! (`docs/design/issue-20-sources.md` §4).

/// A care-of or home address, a router's or a node's (dense: `crate::packet`'s module doc).
pub type Addr = u32;

/// Bytes of an IPv6 header (RFC 8200 §3).
pub const IPV6_HEADER: u32 = 40;
/// Bytes an IPv6-in-IPv6 tunnel adds (RFC 2473 §4, no Tunnel Encapsulation Limit option).
pub const TUNNEL_BYTES: u32 = IPV6_HEADER;
/// Bytes of a Home Address destination option header (RFC 6275 §6.3: 2 + PadN 4 + option 18).
pub const HAO_BYTES: u32 = 24;
/// Bytes of a type 2 routing header (RFC 6275 §6.4: 8 + one address).
pub const RH2_BYTES: u32 = 24;
/// Bytes of the Destination Options header carrying a Packet Identifier Option (Naoe et al.,
/// seed 002, Fig. 3: type, length, 16-bit sequence, 16-bit timestamp; RFC 8200 §4.6: 2 bytes
/// of header, the 6-byte option, 8 in all, no padding).
pub const PIO_BYTES: u32 = 8;

/// A signalling message: Neighbor Discovery (RFC 4861) or a Mobility Header message
/// (RFC 6275 §6.1). `None` on a TCP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Signal {
    #[default]
    None,
    /// RFC 4861 §4.1, to all-routers; `sllao`: with a source link-layer address option (not on
    /// a point-to-point link such as GPRS, which has no link-layer address).
    RouterSolicitation {
        sllao: bool,
    },
    /// RFC 4861 §4.2 with a Prefix Information option and RFC 6275 §7.3's Advertisement
    /// Interval option (`interval_ms`).
    RouterAdvertisement {
        interval_ms: u32,
        sllao: bool,
    },
    /// RFC 4862 §5.4.2: duplicate address detection, from the unspecified address, for the
    /// care-of address `target` or (`link_local`) the link-local address of its interface.
    NeighborSolicitation {
        target: Addr,
        link_local: bool,
    },
    /// RFC 4861 §4.4.
    NeighborAdvertisement {
        target: Addr,
    },
    /// RFC 6275 §6.1.7; `home`: the H flag (a home registration), `ack`: the A flag.
    BindingUpdate {
        seq: u16,
        lifetime_4s: u16,
        home: bool,
        ack: bool,
    },
    /// RFC 6275 §6.1.8; status 0 accepted, 128 and above rejected.
    BindingAck {
        status: u8,
        seq: u16,
        lifetime_4s: u16,
    },
    /// RFC 6275 §6.1.9: a correspondent's error about a packet from the mobile; `status` 1:
    /// a Home Address option without a matching binding (§9.3.3); `home`: the home address
    /// the option carried.
    BindingError {
        status: u8,
        home: Addr,
    },
    /// RFC 6275 §6.1.3-6.1.6: the return routability test's four messages.
    HomeTestInit {
        cookie: u32,
    },
    CareOfTestInit {
        cookie: u32,
    },
    HomeTest {
        nonce: u16,
        cookie: u32,
        token: u32,
    },
    CareOfTest {
        nonce: u16,
        cookie: u32,
        token: u32,
    },
}

impl Signal {
    /// Bytes on the wire of the message in its own IPv6 packet, without a tunnel around it
    /// (a HoTI or HoT crosses the MN-HA leg tunnelled: `TUNNEL_BYTES` more there). A Binding
    /// Update carries a Home Address option and a Binding Acknowledgement to a mobile a type
    /// 2 routing header; both are counted here.
    pub fn wire_bytes(self) -> u32 {
        match self {
            Signal::None => IPV6_HEADER,
            // ICMPv6 8 + SLLAO 8.
            Signal::RouterSolicitation { sllao } => IPV6_HEADER + 8 + 8 * u32::from(sllao),
            // ICMPv6 16 + SLLAO 8 + Prefix Information 32 + MTU 8 + Advertisement Interval 8.
            Signal::RouterAdvertisement { sllao, .. } => {
                IPV6_HEADER + 16 + 8 * u32::from(sllao) + 32 + 8 + 8
            }
            // ICMPv6 8 + target 16 (DAD: no SLLAO, RFC 4862 §5.4.2).
            Signal::NeighborSolicitation { .. } => IPV6_HEADER + 24,
            // ICMPv6 8 + target 16 + TLLAO 8.
            Signal::NeighborAdvertisement { .. } => IPV6_HEADER + 32,
            // To the home agent: HAO + MH 16 (6 + seq 2 + flags 2 + lifetime 2 + PadN 4). To a
            // correspondent: HAO + MH 32 (12 + Nonce Indices 6 + Binding Authorization Data 14).
            Signal::BindingUpdate { home, .. } => {
                IPV6_HEADER + HAO_BYTES + if home { 16 } else { 32 }
            }
            // RH2 + MH 16 (6 + status 1 + flags 1 + seq 2 + lifetime 2 + PadN 4).
            Signal::BindingAck { .. } => IPV6_HEADER + RH2_BYTES + 16,
            // MH 24 (6 + status 1 + reserved 1 + home address 16), no option.
            Signal::BindingError { .. } => IPV6_HEADER + 24,
            // MH 16 (6 + reserved 2 + cookie 8).
            Signal::HomeTestInit { .. } | Signal::CareOfTestInit { .. } => IPV6_HEADER + 16,
            // MH 24 (6 + nonce index 2 + cookie 8 + token 8).
            Signal::HomeTest { .. } | Signal::CareOfTest { .. } => IPV6_HEADER + 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_layouts_tshark_dissected() {
        // docs/design/issue-20-sources.md §4: BU 80, BA 80, HoTI 56 (96 tunnelled), CoTI 56,
        // HoT/CoT 64, BU to a correspondent 96, RS 56, RA 112, NS 64, NA 72.
        let bu = |home| Signal::BindingUpdate {
            seq: 1,
            lifetime_4s: 1,
            home,
            ack: home,
        };
        assert_eq!(bu(true).wire_bytes(), 80);
        assert_eq!(bu(false).wire_bytes(), 96);
        let ba = Signal::BindingAck {
            status: 0,
            seq: 1,
            lifetime_4s: 1,
        };
        assert_eq!(ba.wire_bytes(), 80);
        let be = Signal::BindingError { status: 1, home: 4 };
        assert_eq!(be.wire_bytes(), 64);
        assert_eq!(Signal::HomeTestInit { cookie: 1 }.wire_bytes(), 56);
        assert_eq!(
            Signal::HomeTestInit { cookie: 1 }.wire_bytes() + TUNNEL_BYTES,
            96
        );
        assert_eq!(Signal::CareOfTestInit { cookie: 1 }.wire_bytes(), 56);
        let hot = Signal::HomeTest {
            nonce: 0,
            cookie: 1,
            token: 2,
        };
        assert_eq!(hot.wire_bytes(), 64);
        assert_eq!(Signal::RouterSolicitation { sllao: true }.wire_bytes(), 56);
        assert_eq!(Signal::RouterSolicitation { sllao: false }.wire_bytes(), 48);
        let ra = Signal::RouterAdvertisement {
            interval_ms: 90,
            sllao: true,
        };
        assert_eq!(ra.wire_bytes(), 112);
        let ns = |link_local| Signal::NeighborSolicitation {
            target: 3,
            link_local,
        };
        assert_eq!(ns(false).wire_bytes(), 64);
        assert_eq!(ns(true).wire_bytes(), 64);
        assert_eq!(Signal::NeighborAdvertisement { target: 3 }.wire_bytes(), 72);
    }
}
