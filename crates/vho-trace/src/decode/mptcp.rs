//! Multipath TCP options (TCP option kind 30, RFC 8684 §3, Figure 3): every subtype read into
//! [`MptcpOption`], with the token and initial data sequence number a key gives (§3.1).
//!
//! A malformed MPTCP option (a length its subtype does not allow, or one cut by the header's
//! end) is [`MptcpOption::Malformed`]: counted, never fatal, and the other options of the
//! header are still read. Version 0 (RFC 6824) options share the layouts of version 1 for
//! MP_JOIN, DSS, REMOVE_ADDR, MP_FAIL and MP_FASTCLOSE; its MP_CAPABLE is read, but its keys
//! hash with SHA-1, which [`token_of`] does not do (Linux upstream speaks version 1 only:
//! `net/mptcp/options.c`, `MPTCP_SUPPORTED_VERSION`).

use sha2::{Digest, Sha256};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// TCP option kind of Multipath TCP (RFC 8684 §8, IANA "TCP Option Kind Numbers").
pub const KIND: u8 = 30;

/// Subtypes (RFC 8684 §8, Table 2).
pub const MP_CAPABLE: u8 = 0x0;
pub const MP_JOIN: u8 = 0x1;
pub const DSS: u8 = 0x2;
pub const ADD_ADDR: u8 = 0x3;
pub const REMOVE_ADDR: u8 = 0x4;
pub const MP_PRIO: u8 = 0x5;
pub const MP_FAIL: u8 = 0x6;
pub const MP_FASTCLOSE: u8 = 0x7;
pub const MP_TCPRST: u8 = 0x8;

/// DSS flags (RFC 8684 §3.3, Figure 9): DATA_ACK present, DATA_ACK is 8 octets, mapping
/// present, DSN is 8 octets, DATA_FIN.
pub const DSS_A: u8 = 0x01;
pub const DSS_LOWER_A: u8 = 0x02;
pub const DSS_M: u8 = 0x04;
pub const DSS_LOWER_M: u8 = 0x08;
pub const DSS_F: u8 = 0x10;

/// A DSS mapping (RFC 8684 §3.3.1): `data_len` bytes from data sequence number `dsn` are
/// the bytes from subflow sequence number `ssn` (relative to the subflow's ISN: the first
/// data byte is 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// The DSN as sent: the whole 64 bits, or its low 32 bits when `dsn_wide` is false
    /// (§3.3: "the lower 32 bits of the DSN").
    pub dsn: u64,
    pub dsn_wide: bool,
    pub ssn: u32,
    /// Data-level length; 0 with DATA_FIN alone is the "infinite mapping" or a DATA_FIN
    /// that occupies no subflow data (§3.3.3).
    pub data_len: u16,
    /// The DSS checksum, when negotiated (§3.3.1, the C flag of MP_CAPABLE).
    pub checksum: Option<u16>,
}

/// A Data Sequence Signal (RFC 8684 §3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dss {
    /// The DATA_ACK as sent, with whether it is 8 octets (else its low 32 bits).
    pub data_ack: Option<(u64, bool)>,
    pub mapping: Option<Mapping>,
    /// The F flag: the mapping's last data-level byte is followed by a DATA_FIN (§3.3.3).
    pub data_fin: bool,
}

/// One MPTCP option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MptcpOption {
    /// MP_CAPABLE (§3.1, Figure 4): the SYN's (v1: no key), the SYN/ACK's (the receiver's
    /// key as `sender_key`, since it sends it), the third ACK's (both), and the first data
    /// packet's (both, with the data-level length, and the checksum when negotiated).
    Capable {
        version: u8,
        /// A (checksum required) B (extensibility) C (no more addresses on the source
        /// address) ... H (HMAC-SHA256), as the octet.
        flags: u8,
        sender_key: Option<u64>,
        receiver_key: Option<u64>,
        data_len: Option<u16>,
        checksum: Option<u16>,
    },
    /// MP_JOIN on a SYN (§3.2, Figure 5): the connection's token at the receiver.
    JoinSyn {
        backup: bool,
        addr_id: u8,
        token: u32,
        nonce: u32,
    },
    /// MP_JOIN on the SYN/ACK (Figure 6).
    JoinSynAck {
        backup: bool,
        addr_id: u8,
        hmac: u64,
        nonce: u32,
    },
    /// MP_JOIN on the third ACK (Figure 7): the full HMAC.
    JoinAck,
    Dss(Dss),
    /// ADD_ADDR (§3.4.1, Figure 12): `echo` is the E flag (an echo carries no HMAC).
    AddAddr {
        echo: bool,
        addr_id: u8,
        addr: IpAddr,
        port: Option<u16>,
    },
    /// REMOVE_ADDR (§3.4.2, Figure 13): up to the 37 address IDs an option holds.
    RemoveAddr {
        ids: Vec<u8>,
    },
    /// MP_PRIO (§3.3.8, Figure 11): the sender asks to be a backup path or not.
    Prio {
        backup: bool,
    },
    /// MP_FAIL (§3.7, Figure 16): the DSN where the checksum failed.
    Fail {
        dsn: u64,
    },
    /// MP_FASTCLOSE (§3.5, Figure 14): the receiver's key.
    FastClose {
        key: u64,
    },
    /// MP_TCPRST (§3.6, Figure 15): the flags octet and the reason code.
    TcpRst {
        flags: u8,
        reason: u8,
    },
    /// A subtype RFC 8684 does not define (0xf is MP_EXPERIMENTAL).
    Other {
        subtype: u8,
    },
    /// An option whose length its subtype does not allow, or cut by the header's end.
    Malformed {
        subtype: u8,
        len: u8,
    },
}

fn be16(v: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([v[i], v[i + 1]])
}

fn be32(v: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]])
}

fn be64(v: &[u8], i: usize) -> u64 {
    (u64::from(be32(v, i)) << 32) | u64::from(be32(v, i + 4))
}

/// Reads one MPTCP option; `opt` is the whole option, kind and length included
/// (`opt[1] == opt.len()`, at least 2 bytes, as the TCP option walk guarantees).
pub fn parse(opt: &[u8]) -> MptcpOption {
    let len = opt.len();
    let Some(&b2) = opt.get(2) else {
        return MptcpOption::Malformed {
            subtype: 0xff,
            len: len as u8,
        };
    };
    let subtype = b2 >> 4;
    let bad = MptcpOption::Malformed {
        subtype,
        len: len as u8,
    };
    match subtype {
        MP_CAPABLE => capable(opt, b2 & 0x0f).unwrap_or(bad),
        MP_JOIN => join(opt, b2 & 0x01 != 0).unwrap_or(bad),
        DSS => dss(opt).map(MptcpOption::Dss).unwrap_or(bad),
        ADD_ADDR => add_addr(opt, b2 & 0x01 != 0).unwrap_or(bad),
        REMOVE_ADDR if len >= 4 => MptcpOption::RemoveAddr {
            ids: opt[3..].to_vec(),
        },
        // Version 1 is 3 octets; version 0 (RFC 6824 §3.3.8) added an address ID.
        MP_PRIO if len == 3 || len == 4 => MptcpOption::Prio {
            backup: b2 & 0x01 != 0,
        },
        MP_FAIL if len == 12 => MptcpOption::Fail { dsn: be64(opt, 4) },
        MP_FASTCLOSE if len == 12 => MptcpOption::FastClose { key: be64(opt, 4) },
        MP_TCPRST if len == 4 => MptcpOption::TcpRst {
            flags: b2 & 0x0f,
            reason: opt[3],
        },
        REMOVE_ADDR | MP_PRIO | MP_FAIL | MP_FASTCLOSE | MP_TCPRST => bad,
        _ => MptcpOption::Other { subtype },
    }
}

/// MP_CAPABLE by its length (§3.1): 4 (v1 SYN), 12 (SYN/ACK, or v0's SYN), 20 (third ACK),
/// 22 (v1 first data: keys and data-level length), 24 (with the checksum).
fn capable(o: &[u8], version: u8) -> Option<MptcpOption> {
    let flags = *o.get(3)?;
    let (sender_key, receiver_key, data_len, checksum) = match o.len() {
        4 => (None, None, None, None),
        12 => (Some(be64(o, 4)), None, None, None),
        20 => (Some(be64(o, 4)), Some(be64(o, 12)), None, None),
        22 => (Some(be64(o, 4)), Some(be64(o, 12)), Some(be16(o, 20)), None),
        24 => (
            Some(be64(o, 4)),
            Some(be64(o, 12)),
            Some(be16(o, 20)),
            Some(be16(o, 22)),
        ),
        _ => return None,
    };
    Some(MptcpOption::Capable {
        version,
        flags,
        sender_key,
        receiver_key,
        data_len,
        checksum,
    })
}

/// MP_JOIN by its length (§3.2): 12 on the SYN, 16 on the SYN/ACK, 24 on the third ACK.
fn join(o: &[u8], backup: bool) -> Option<MptcpOption> {
    match o.len() {
        12 => Some(MptcpOption::JoinSyn {
            backup,
            addr_id: o[3],
            token: be32(o, 4),
            nonce: be32(o, 8),
        }),
        16 => Some(MptcpOption::JoinSynAck {
            backup,
            addr_id: o[3],
            hmac: be64(o, 4),
            nonce: be32(o, 12),
        }),
        24 => Some(MptcpOption::JoinAck),
        _ => None,
    }
}

/// DSS (§3.3, Figure 9): the flags decide which fields follow; the length must be theirs,
/// with 2 octets more when the checksum is there.
fn dss(o: &[u8]) -> Option<Dss> {
    let flags = *o.get(3)?;
    let mut i = 4;
    let mut d = Dss {
        data_fin: flags & DSS_F != 0,
        ..Dss::default()
    };
    if flags & DSS_A != 0 {
        let wide = flags & DSS_LOWER_A != 0;
        let n = if wide { 8 } else { 4 };
        o.get(i..i + n)?;
        d.data_ack = Some((
            if wide {
                be64(o, i)
            } else {
                u64::from(be32(o, i))
            },
            wide,
        ));
        i += n;
    }
    if flags & DSS_M != 0 {
        let wide = flags & DSS_LOWER_M != 0;
        let n = if wide { 8 } else { 4 };
        o.get(i..i + n + 6)?;
        let dsn = if wide {
            be64(o, i)
        } else {
            u64::from(be32(o, i))
        };
        i += n;
        let checksum = match o.len() - i {
            6 => None,
            8 => Some(be16(o, i + 6)),
            _ => return None,
        };
        d.mapping = Some(Mapping {
            dsn,
            dsn_wide: wide,
            ssn: be32(o, i),
            data_len: be16(o, i + 4),
            checksum,
        });
        i = o.len();
    }
    (i == o.len()).then_some(d)
}

/// ADD_ADDR (§3.4.1): the address family from the length: IPv4 8 + (port 2) + (HMAC 8),
/// IPv6 20 + (port 2) + (HMAC 8); the echo (E) carries no HMAC.
fn add_addr(o: &[u8], echo: bool) -> Option<MptcpOption> {
    let hmac = if echo { 0 } else { 8 };
    let rest = o.len().checked_sub(4 + hmac)?;
    let (addr, port_at) = match rest {
        4 | 6 => (
            IpAddr::V4(Ipv4Addr::new(o[4], o[5], o[6], o[7])),
            (rest == 6).then_some(8),
        ),
        16 | 18 => {
            let a: [u8; 16] = o.get(4..20)?.try_into().ok()?;
            (IpAddr::V6(Ipv6Addr::from(a)), (rest == 18).then_some(20))
        }
        _ => return None,
    };
    Some(MptcpOption::AddAddr {
        echo,
        addr_id: o[3],
        addr,
        port: port_at.map(|i| be16(o, i)),
    })
}

/// The token (the most significant 32 bits) and the initial data sequence number (the least
/// significant 64 bits) of SHA-256 over a version 1 key (RFC 8684 §3.1; Linux
/// `mptcp_crypto_key_sha` hashes the key in network byte order).
pub fn token_of(key: u64) -> (u32, u64) {
    let digest = Sha256::digest(key.to_be_bytes());
    let token = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let mut idsn = [0u8; 8];
    idsn.copy_from_slice(&digest[24..32]);
    (token, u64::from_be_bytes(idsn))
}

/// A 32-bit DSN or DATA_ACK made 64 bits again, the value nearest `near` (the last 64-bit
/// sequence known for that direction) with those low 32 bits (RFC 8684 §3.3: the upper
/// bits are implicit; Linux `mptcp_expand_seq`).
pub fn expand(low: u32, near: u64) -> u64 {
    let cand = (near & !0xffff_ffff) | u64::from(low);
    let diff = cand.wrapping_sub(near) as i64;
    if diff > i64::from(i32::MAX) {
        cand.wrapping_sub(1 << 32)
    } else if diff < i64::from(i32::MIN) {
        cand.wrapping_add(1 << 32)
    } else {
        cand
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(subtype_etc: u8, rest: &[u8]) -> Vec<u8> {
        let mut o = vec![KIND, (3 + rest.len()) as u8, subtype_etc];
        o.extend_from_slice(rest);
        o
    }

    // -- MP_CAPABLE (RFC 8684 §3.1) ---------------------------------------------------------

    #[test]
    fn mp_capable_on_a_v1_syn_carries_no_key() {
        // RFC 8684 §3.1: "The SYN ... only the first four octets (Length = 4)".
        let o = opt(0x01, &[0x81]);
        assert_eq!(
            parse(&o),
            MptcpOption::Capable {
                version: 1,
                flags: 0x81,
                sender_key: None,
                receiver_key: None,
                data_len: None,
                checksum: None,
            }
        );
    }

    #[test]
    fn mp_capable_carries_one_key_on_the_syn_ack_and_both_on_the_third_ack() {
        // RFC 8684 §3.1: SYN/ACK (Length 12) the receiver's key; ACK (Length 20) both.
        let k1 = 0x0102_0304_0506_0708u64;
        let k2 = 0x1112_1314_1516_1718u64;
        let mut rest = vec![0x01];
        rest.extend_from_slice(&k1.to_be_bytes());
        assert!(matches!(
            parse(&opt(0x01, &rest)),
            MptcpOption::Capable { sender_key: Some(k), receiver_key: None, .. } if k == k1
        ));
        rest.extend_from_slice(&k2.to_be_bytes());
        assert!(matches!(
            parse(&opt(0x01, &rest)),
            MptcpOption::Capable { sender_key: Some(a), receiver_key: Some(b), data_len: None, .. }
                if a == k1 && b == k2
        ));
        // Length 22: the first data packet's, with the data-level length (§3.1, Figure 4).
        rest.extend_from_slice(&1000u16.to_be_bytes());
        assert!(matches!(
            parse(&opt(0x01, &rest)),
            MptcpOption::Capable {
                data_len: Some(1000),
                checksum: None,
                ..
            }
        ));
        rest.extend_from_slice(&0xbeefu16.to_be_bytes());
        assert!(matches!(
            parse(&opt(0x01, &rest)),
            MptcpOption::Capable {
                data_len: Some(1000),
                checksum: Some(0xbeef),
                ..
            }
        ));
    }

    #[test]
    fn a_token_is_the_top_32_bits_of_the_sha256_of_the_key() {
        // RFC 8684 §3.1: token = most significant 32 bits of SHA-256(key), IDSN = least
        // significant 64 bits. SHA-256 of the 8 octets 00 00 00 00 00 00 00 01 is
        // cd2662154e6d76b2 b2b92e70c0cac3cc f534f9b74eb5b898 19ec509083d00a50 (FIPS 180-4,
        // computed by `printf '\0\0\0\0\0\0\0\1' | sha256sum`).
        let (token, idsn) = token_of(1);
        assert_eq!(token, 0xcd26_6215);
        assert_eq!(idsn, 0x19ec_5090_83d0_0a50);
    }

    // -- MP_JOIN (RFC 8684 §3.2) ------------------------------------------------------------

    #[test]
    fn mp_join_on_the_syn_names_the_token_and_the_address_id() {
        // RFC 8684 §3.2, Figure 5: B flag, address ID, receiver's token, sender's nonce.
        let o = opt(0x11, &[7, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9]);
        assert_eq!(
            parse(&o),
            MptcpOption::JoinSyn {
                backup: true,
                addr_id: 7,
                token: 0xdead_beef,
                nonce: 9
            }
        );
    }

    #[test]
    fn mp_join_on_the_syn_ack_and_the_third_ack() {
        // Figure 6 (Length 16): truncated HMAC and nonce; Figure 7 (Length 24): full HMAC.
        let mut rest = vec![3];
        rest.extend_from_slice(&[0xaa; 8]);
        rest.extend_from_slice(&5u32.to_be_bytes());
        assert!(matches!(
            parse(&opt(0x10, &rest)),
            MptcpOption::JoinSynAck {
                backup: false,
                addr_id: 3,
                nonce: 5,
                ..
            }
        ));
        assert_eq!(parse(&opt(0x10, &[0; 21])), MptcpOption::JoinAck);
        assert!(matches!(
            parse(&opt(0x10, &[0; 10])),
            MptcpOption::Malformed {
                subtype: MP_JOIN,
                len: 13
            }
        ));
    }

    // -- DSS (RFC 8684 §3.3) ----------------------------------------------------------------

    #[test]
    fn dss_with_a_4_octet_ack_and_a_4_octet_mapping() {
        // Figure 9: flags A|M; DATA_ACK (4), DSN (4), subflow sequence (4), length (2).
        let mut rest = vec![DSS_A | DSS_M];
        rest.extend_from_slice(&100u32.to_be_bytes());
        rest.extend_from_slice(&5000u32.to_be_bytes());
        rest.extend_from_slice(&1u32.to_be_bytes());
        rest.extend_from_slice(&1448u16.to_be_bytes());
        let MptcpOption::Dss(d) = parse(&opt(0x20, &rest)) else {
            panic!("a DSS")
        };
        assert_eq!(d.data_ack, Some((100, false)));
        let m = d.mapping.expect("a mapping");
        assert_eq!(
            (m.dsn, m.dsn_wide, m.ssn, m.data_len),
            (5000, false, 1, 1448)
        );
        assert_eq!((m.checksum, d.data_fin), (None, false));
    }

    #[test]
    fn dss_with_8_octet_fields_a_checksum_and_a_data_fin() {
        // Figure 9: a and m make DATA_ACK and DSN 8 octets; the checksum follows the length
        // when MP_CAPABLE negotiated it (§3.3.1); F is DATA_FIN (§3.3.3).
        let mut rest = vec![DSS_A | DSS_LOWER_A | DSS_M | DSS_LOWER_M | DSS_F];
        rest.extend_from_slice(&(1u64 << 40).to_be_bytes());
        rest.extend_from_slice(&((1u64 << 33) + 7).to_be_bytes());
        rest.extend_from_slice(&2u32.to_be_bytes());
        rest.extend_from_slice(&0u16.to_be_bytes());
        rest.extend_from_slice(&0x1234u16.to_be_bytes());
        let MptcpOption::Dss(d) = parse(&opt(0x20, &rest)) else {
            panic!("a DSS")
        };
        assert_eq!(d.data_ack, Some((1 << 40, true)));
        let m = d.mapping.expect("a mapping");
        assert_eq!(
            (m.dsn, m.dsn_wide, m.checksum),
            ((1 << 33) + 7, true, Some(0x1234))
        );
        assert!(d.data_fin);
    }

    #[test]
    fn dss_with_an_ack_alone() {
        // A pure DATA_ACK (flag A, 4 octets): Length 8.
        let d = parse(&opt(0x20, &[DSS_A, 0, 0, 1, 0]));
        assert_eq!(
            d,
            MptcpOption::Dss(Dss {
                data_ack: Some((256, false)),
                mapping: None,
                data_fin: false
            })
        );
    }

    #[test]
    fn a_dss_cut_short_or_too_long_is_malformed() {
        // Flags promise an 8-octet DATA_ACK; 4 octets follow.
        assert!(matches!(
            parse(&opt(0x20, &[DSS_A | DSS_LOWER_A, 0, 0, 0, 1])),
            MptcpOption::Malformed { subtype: DSS, .. }
        ));
        // A mapping with 3 octets too many (neither 6 nor 8 after the DSN).
        let mut rest = vec![DSS_M];
        rest.extend_from_slice(&[0; 4 + 6 + 3]);
        assert!(matches!(
            parse(&opt(0x20, &rest)),
            MptcpOption::Malformed { subtype: DSS, .. }
        ));
        // Only kind and length.
        assert!(matches!(parse(&[KIND, 2]), MptcpOption::Malformed { .. }));
    }

    #[test]
    fn a_32_bit_dsn_is_expanded_near_the_last_known() {
        // RFC 8684 §3.3: the upper 32 bits are implied (Linux mptcp_expand_seq).
        assert_eq!(expand(10, 0x1_ffff_fff0), 0x2_0000_000a);
        assert_eq!(expand(0xffff_fff0, 0x2_0000_0005), 0x1_ffff_fff0);
        assert_eq!(expand(500, 0x7_0000_0100), 0x7_0000_01f4);
    }

    // -- Address management, priority, failure (RFC 8684 §3.4, §3.3.8, §3.5-§3.7) ----------

    #[test]
    fn add_addr_of_each_family_with_and_without_port_and_hmac() {
        // §3.4.1, Figure 12: IPv4 with HMAC (Length 16); an echo without (Length 8); IPv6
        // with port and HMAC (Length 30).
        let mut rest = vec![2, 10, 0, 2, 1];
        rest.extend_from_slice(&[0; 8]);
        assert_eq!(
            parse(&opt(0x30, &rest)),
            MptcpOption::AddAddr {
                echo: false,
                addr_id: 2,
                addr: "10.0.2.1".parse().expect("ip"),
                port: None
            }
        );
        assert!(matches!(
            parse(&opt(0x31, &[2, 10, 0, 2, 1])),
            MptcpOption::AddAddr {
                echo: true,
                port: None,
                ..
            }
        ));
        let mut rest = vec![4];
        rest.extend_from_slice(&"2001:db8::2".parse::<Ipv6Addr>().expect("ip").octets());
        rest.extend_from_slice(&8080u16.to_be_bytes());
        rest.extend_from_slice(&[0; 8]);
        assert!(matches!(
            parse(&opt(0x30, &rest)),
            MptcpOption::AddAddr {
                addr_id: 4,
                addr: IpAddr::V6(_),
                port: Some(8080),
                ..
            }
        ));
        assert!(matches!(
            parse(&opt(0x30, &[2, 10, 0])),
            MptcpOption::Malformed {
                subtype: ADD_ADDR,
                ..
            }
        ));
    }

    #[test]
    fn remove_addr_prio_fail_fastclose_and_tcprst() {
        // §3.4.2 (Length 3 + n), §3.3.8 (Length 3), §3.7 (12), §3.5 (12), §3.6 (4).
        assert_eq!(
            parse(&opt(0x40, &[1, 2])),
            MptcpOption::RemoveAddr { ids: vec![1, 2] }
        );
        assert_eq!(parse(&opt(0x51, &[])), MptcpOption::Prio { backup: true });
        let mut rest = vec![0];
        rest.extend_from_slice(&77u64.to_be_bytes());
        assert_eq!(parse(&opt(0x60, &rest)), MptcpOption::Fail { dsn: 77 });
        assert_eq!(parse(&opt(0x70, &rest)), MptcpOption::FastClose { key: 77 });
        assert_eq!(
            parse(&opt(0x81, &[3])),
            MptcpOption::TcpRst {
                flags: 1,
                reason: 3
            }
        );
        assert!(matches!(
            parse(&opt(0x60, &[0])),
            MptcpOption::Malformed {
                subtype: MP_FAIL,
                ..
            }
        ));
        assert_eq!(parse(&opt(0xf0, &[])), MptcpOption::Other { subtype: 0xf });
    }
}
