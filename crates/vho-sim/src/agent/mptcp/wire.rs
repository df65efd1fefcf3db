//! The Multipath TCP option (kind 30, RFC 8684 §3) a subflow's segment carries, written into
//! a capture as Linux lays it out, so that `vho analyze` and tshark's MPTCP dissector read a
//! simulated connection as they read the kernel's: subflows joined by token, DSS mappings,
//! DATA_ACKs, ADD_ADDR and REMOVE_ADDR.
//!
//! The model keeps only what its rules read (`agent::mptcp::MptcpOption`: the handshake
//! kind, the mappings relative to the connection's first data byte, the DATA_ACK); the bytes
//! a capture needs beyond that are derived here, never drawn: each end's 64-bit key is the
//! first 8 bytes of SHA-256 over the run's seed, the flow's index and the end
//! ([`MptcpKeys::of`]), so a run's captures are the same bytes on every rerun and recording
//! changes nothing in the run. The token and the initial data sequence number (IDSN) follow
//! from a key (RFC 8684 §3.1: the most significant 32 bits and the least significant 64
//! bits of its SHA-256; `vho_trace::decode::mptcp::token_of`).
//!
//! Where the model and Linux differ, the capture shows the model:
//! - The third ACK of the MP_CAPABLE handshake carries a DSS DATA_ACK, not MP_CAPABLE with
//!   both keys (Linux `mptcp_established_options_mp`): the data receiver's key appears in no
//!   packet, so its IDSN, which only the data sender's DATA_ACKs are relative to, is unknown
//!   to a reader. The data sender's key is on the SYN-ACK, which is all a reader needs for the
//!   connection's DSNs and its joins' tokens.
//! - A segment the model gives two mappings (a resend across two) is written with the first
//!   (Linux sends one mapping per skb).
//! - REMOVE_ADDR, and the ADD_ADDR by which an upload's mobile asks for a re-created subflow,
//!   are written only if they fit after the DSS: the model charges their bytes on the next
//!   segment, where Linux sends them on a pure ACK. A `signal` endpoint's ADD_ADDR and its
//!   echo go on a pure ACK alone, as Linux's (`agent::mptcp::announce`).

use super::{AddrSignal, Handshake, MptcpOption};
use crate::tcp::{Flags, Segment};
use sha2::{Digest, Sha256};
use vho_trace::decode::mptcp::token_of;

/// MPTCP's TCP option kind (RFC 8684 §3, IANA).
pub const KIND: u8 = 30;
/// Version 1 (RFC 8684), the only one Linux upstream speaks.
const VERSION: u8 = 1;
/// MP_CAPABLE's flags as Linux sends them: H (HMAC-SHA256), no checksum (A clear; Linux's
/// `net.mptcp.checksum_enabled` is 0 by default).
const CAPABLE_FLAGS: u8 = 0x01;

/// The 64-bit keys of one connection's two ends in captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MptcpKeys {
    /// The data sender's (the MPTCP source's): on its SYN-ACK.
    pub source: u64,
    /// The data receiver's (the sink's, which opens every subflow in the model).
    pub sink: u64,
}

impl MptcpKeys {
    /// The keys of flow `flow` of a run of seed `seed`: derived, not drawn (a capture is
    /// written beside the run and must not move its random streams).
    pub fn of(seed: u64, flow: u32) -> Self {
        let key = |end: u8| {
            let mut h = Sha256::new();
            h.update(b"vho mptcp key");
            h.update(seed.to_be_bytes());
            h.update(flow.to_be_bytes());
            h.update([end]);
            let d = h.finalize();
            let mut k = [0u8; 8];
            k.copy_from_slice(&d[..8]);
            u64::from_be_bytes(k)
        };
        MptcpKeys {
            source: key(0),
            sink: key(1),
        }
    }

    /// The IDSN of the data sender: its first data byte is IDSN + 1 (Linux
    /// `subflow_set_remote_key` / `mptcp_sk_clone`: `write_seq = idsn + 1`).
    pub fn source_idsn(&self) -> u64 {
        token_of(self.source).1
    }

    pub fn sink_idsn(&self) -> u64 {
        token_of(self.sink).1
    }
}

/// The address id (RFC 8684 §3.2, §3.4) of the mobile's interface `iface` (its index in the
/// mobile's interfaces): one more than the index, as 0 is the initial subflow's implicit id
/// (Linux numbers its endpoints from 1).
pub fn addr_id(iface: u8) -> u8 {
    iface.saturating_add(1)
}

/// A subflow's 32-bit nonce in its MP_JOIN handshake (§3.2), derived as the keys are.
fn nonce(key: u64, seg: &Segment) -> u32 {
    let d = Sha256::new()
        .chain_update(b"vho mptcp nonce")
        .chain_update(key.to_be_bytes())
        .chain_update(seg.src_port.to_be_bytes())
        .chain_update(seg.dst_port.to_be_bytes())
        .finalize();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// HMAC-SHA256 (RFC 2104) of `msg` under `key`.
fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    k[..key.len()].copy_from_slice(key);
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Writes the MPTCP option(s) of a segment into `out` (NOP-padded to 32-bit words, at most
/// `out.len()` bytes) and returns their length. `from_source`: the segment goes from the
/// data sender to the data receiver.
pub fn encode(
    out: &mut [u8],
    opt: &MptcpOption,
    seg: &Segment,
    from_source: bool,
    keys: &MptcpKeys,
    src_addr: [u8; 4],
    dst_addr: [u8; 4],
) -> usize {
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        let padded = bytes.len().div_ceil(4) * 4;
        if n + padded > out.len() {
            return false;
        }
        let pad = padded - bytes.len();
        // NOPs first, as Linux aligns its DSS (`mptcp_write_options`).
        out[n..n + pad].fill(1);
        out[n + pad..n + padded].copy_from_slice(bytes);
        n += padded;
        true
    };
    let syn = seg.flags.contains(Flags::SYN);
    let syn_ack = syn && seg.flags.contains(Flags::ACK);
    let (own, peer) = if from_source {
        (keys.source, keys.sink)
    } else {
        (keys.sink, keys.source)
    };
    match opt.handshake {
        Handshake::None => {}
        // §3.1 Figure 4: a SYN carries no key in version 1, the SYN-ACK the responder's.
        Handshake::Capable if syn_ack => {
            let mut b = [KIND, 12, VERSION, CAPABLE_FLAGS, 0, 0, 0, 0, 0, 0, 0, 0];
            b[4..12].copy_from_slice(&own.to_be_bytes());
            put(&b);
        }
        Handshake::Capable => {
            put(&[KIND, 4, VERSION, CAPABLE_FLAGS]);
        }
        // §3.2 Figure 6: MP_JOIN's SYN carries the receiver's token and the sender's nonce;
        // Figure 7: the SYN-ACK a truncated HMAC (Key = responder's key + initiator's key,
        // Msg = responder's nonce + initiator's nonce) and the responder's nonce.
        // The correspondent's join toward an announced address: its own address's id, 0, no
        // backup bit (`mptcp_pm_nl_add_addr_received` connects from the address routing picks,
        // `fill_local_addresses_vec`'s id 0).
        Handshake::PeerJoin { .. } => {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&[KIND, 12, 0x10, 0]);
            b[4..8].copy_from_slice(&token_of(peer).0.to_be_bytes());
            b[8..12].copy_from_slice(&nonce(own, seg).to_be_bytes());
            put(&b);
        }
        Handshake::Join { interface, backup } => {
            let b_bit = u8::from(backup);
            if syn_ack {
                let r_b = nonce(own, seg);
                let mirrored = Segment {
                    src_port: seg.dst_port,
                    dst_port: seg.src_port,
                    ..*seg
                };
                let r_a = nonce(peer, &mirrored);
                let mut key = [0u8; 16];
                key[..8].copy_from_slice(&own.to_be_bytes());
                key[8..].copy_from_slice(&peer.to_be_bytes());
                let mut msg = [0u8; 8];
                msg[..4].copy_from_slice(&r_b.to_be_bytes());
                msg[4..].copy_from_slice(&r_a.to_be_bytes());
                let mac = hmac_sha256(&key, &msg);
                let mut b = [0u8; 16];
                b[..4].copy_from_slice(&[KIND, 16, 0x10 | b_bit, addr_id(interface)]);
                b[4..12].copy_from_slice(&mac[..8]);
                b[12..16].copy_from_slice(&r_b.to_be_bytes());
                put(&b);
            } else {
                let mut b = [0u8; 12];
                b[..4].copy_from_slice(&[KIND, 12, 0x10 | b_bit, addr_id(interface)]);
                b[4..8].copy_from_slice(&token_of(peer).0.to_be_bytes());
                b[8..12].copy_from_slice(&nonce(own, seg).to_be_bytes());
                put(&b);
            }
        }
        // §3.2 Figure 8: the initiator's (the data receiver's) 160-bit HMAC, Key = its key +
        // the responder's, Msg = its nonce + the responder's (the nonces of the SYN and the
        // SYN-ACK, which crossed the same ports).
        Handshake::JoinAck => {
            let r_a = nonce(own, seg);
            let mirrored = Segment {
                src_port: seg.dst_port,
                dst_port: seg.src_port,
                ..*seg
            };
            let r_b = nonce(peer, &mirrored);
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&own.to_be_bytes());
            key[8..].copy_from_slice(&peer.to_be_bytes());
            let mut msg = [0u8; 8];
            msg[..4].copy_from_slice(&r_a.to_be_bytes());
            msg[4..].copy_from_slice(&r_b.to_be_bytes());
            let mac = hmac_sha256(&key, &msg);
            let mut b = [0u8; 24];
            b[..4].copy_from_slice(&[KIND, 24, 0x10, 0]);
            b[4..24].copy_from_slice(&mac[..20]);
            put(&b);
        }
    }
    // §3.3 Figure 9: DSS with a DATA_ACK (flag A; a if 64 bits, else its low 32 bits) and,
    // on data, a 64-bit DSN mapping (M and m), no checksum. A DATA_ACK counts from the IDSN of the end whose data it
    // acknowledges; a DSN from the sender's; the subflow sequence number from the subflow's
    // first data byte, which is 1 (Linux `mptcp_established_options_dss`).
    let (own_idsn, peer_idsn) = if from_source {
        (keys.source_idsn(), keys.sink_idsn())
    } else {
        (keys.sink_idsn(), keys.source_idsn())
    };
    let map = opt.maps().first().copied();
    if opt.data_ack.is_some() || map.is_some() {
        let mut b = [0u8; 26];
        let mut len = 4;
        let mut flags = 0u8;
        if let Some(ack) = opt.data_ack {
            let ack = peer_idsn.wrapping_add(1 + ack);
            if opt.ack64 {
                flags |= 0x03;
                b[len..len + 8].copy_from_slice(&ack.to_be_bytes());
                len += 8;
            } else {
                flags |= 0x01;
                b[len..len + 4].copy_from_slice(&(ack as u32).to_be_bytes());
                len += 4;
            }
        }
        if let Some(m) = map {
            flags |= 0x0c;
            b[len..len + 8].copy_from_slice(&own_idsn.wrapping_add(1 + m.dsn).to_be_bytes());
            b[len + 8..len + 12].copy_from_slice(&((m.ssn + 1) as u32).to_be_bytes());
            b[len + 12..len + 14]
                .copy_from_slice(&(m.len.min(u32::from(u16::MAX)) as u16).to_be_bytes());
            len += 14;
        }
        b[..4].copy_from_slice(&[KIND, len as u8, 0x20, flags]);
        put(&b[..len]);
    }
    match opt.addr {
        AddrSignal::None => {}
        // §3.4.1 Figure 12: ADD_ADDR of the sender's address (IPv4, no port) with its
        // truncated HMAC (Key = the sender's key + the receiver's, Msg = address id +
        // address). The capture gives a node one address (`src_addr`), whatever its
        // interface.
        AddrSignal::Add(iface) => {
            let id = addr_id(iface);
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&own.to_be_bytes());
            key[8..].copy_from_slice(&peer.to_be_bytes());
            let mut msg = [id, 0, 0, 0, 0];
            msg[1..].copy_from_slice(&src_addr);
            let mac = hmac_sha256(&key, &msg);
            let mut b = [0u8; 16];
            b[..4].copy_from_slice(&[KIND, 16, 0x30, id]);
            b[4..8].copy_from_slice(&src_addr);
            b[8..16].copy_from_slice(&mac[..8]);
            put(&b);
        }
        // §3.4.1 Figure 12 with E set: the echo carries the address it acknowledges (the
        // announcer's: here the packet's destination) and no HMAC (Linux
        // `mptcp_write_options`: `if (!echo) ... hmac`).
        AddrSignal::Echo(iface) => {
            let mut b = [KIND, 8, 0x31, addr_id(iface), 0, 0, 0, 0];
            b[4..8].copy_from_slice(&dst_addr);
            put(&b);
        }
        // §3.4.2 Figure 16: REMOVE_ADDR of one address id.
        AddrSignal::Remove(iface) => {
            put(&[KIND, 4, 0x40, addr_id(iface)]);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::Mapping;
    use super::*;
    use crate::tcp::{SeqNum, TcpOptions};
    use vho_trace::decode::mptcp::{parse, Dss, MptcpOption as Wire};

    fn seg(flags: Flags, len: u32) -> Segment {
        Segment {
            src_port: 5001,
            dst_port: 40001,
            seq: SeqNum(1),
            ack: SeqNum(1),
            flags,
            window: 1024,
            options: TcpOptions::default(),
            len,
        }
    }

    fn written(opt: &MptcpOption, s: &Segment, from_source: bool) -> Vec<u8> {
        let keys = MptcpKeys::of(1, 0);
        let mut out = [0u8; 40];
        let n = encode(
            &mut out,
            opt,
            s,
            from_source,
            &keys,
            [10, 0, 0, 5],
            [10, 0, 0, 6],
        );
        out[..n].to_vec()
    }

    #[test]
    fn keys_are_derived_from_the_seed_and_flow_not_drawn() {
        assert_eq!(MptcpKeys::of(1, 0), MptcpKeys::of(1, 0));
        assert_ne!(MptcpKeys::of(1, 0), MptcpKeys::of(2, 0));
        assert_ne!(MptcpKeys::of(1, 0), MptcpKeys::of(1, 1));
        let k = MptcpKeys::of(1, 0);
        assert_ne!(k.source, k.sink);
    }

    #[test]
    fn the_bytes_written_are_what_the_model_charges() {
        // MptcpOption::wire_len is what the model adds to the segment's size; the capture
        // must carry as many bytes (here every case fits in the 40 option bytes).
        let map = Mapping {
            dsn: 1000,
            ssn: 0,
            len: 1460,
        };
        let mut data = MptcpOption {
            data_ack: Some(0),
            ..MptcpOption::default()
        };
        let receivers_ack = MptcpOption {
            data_ack: Some(7),
            ack64: true,
            ..MptcpOption::default()
        };
        data.maps[0] = map;
        data.n_maps = 1;
        let cases = [
            (
                MptcpOption {
                    handshake: Handshake::Capable,
                    ..MptcpOption::default()
                },
                Flags::SYN,
            ),
            (
                MptcpOption {
                    handshake: Handshake::Capable,
                    ..MptcpOption::default()
                },
                Flags(Flags::SYN.0 | Flags::ACK.0),
            ),
            (
                MptcpOption {
                    handshake: Handshake::Join {
                        interface: 1,
                        backup: true,
                    },
                    ..MptcpOption::default()
                },
                Flags::SYN,
            ),
            (
                MptcpOption {
                    handshake: Handshake::Join {
                        interface: 1,
                        backup: false,
                    },
                    ..MptcpOption::default()
                },
                Flags(Flags::SYN.0 | Flags::ACK.0),
            ),
            (
                MptcpOption {
                    handshake: Handshake::JoinAck,
                    ..MptcpOption::default()
                },
                Flags::ACK,
            ),
            (
                MptcpOption {
                    data_ack: Some(7),
                    ..MptcpOption::default()
                },
                Flags::ACK,
            ),
            (data, Flags::ACK),
            (receivers_ack, Flags::ACK),
            (
                MptcpOption {
                    data_ack: Some(7),
                    addr: AddrSignal::Add(1),
                    ..MptcpOption::default()
                },
                Flags::ACK,
            ),
            (
                MptcpOption {
                    data_ack: Some(7),
                    addr: AddrSignal::Remove(1),
                    ..MptcpOption::default()
                },
                Flags::ACK,
            ),
        ];
        for (opt, flags) in cases {
            let s = seg(flags, 0);
            let syn_ack = flags.contains(Flags::SYN) && flags.contains(Flags::ACK);
            assert_eq!(
                written(&opt, &s, true).len() as u32,
                opt.wire_len(syn_ack),
                "{opt:?} {flags:?}"
            );
        }
    }

    /// The options parsed back by `vho analyze`'s decoder (RFC 8684's layouts).
    fn parsed(bytes: &[u8]) -> Vec<Wire> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                1 => i += 1,
                KIND => {
                    let len = usize::from(bytes[i + 1]);
                    out.push(parse(&bytes[i..i + len]));
                    i += len;
                }
                k => panic!("option kind {k}"),
            }
        }
        out
    }

    #[test]
    fn a_data_segment_carries_its_mapping_counted_from_the_idsn_plus_one() {
        // RFC 8684 §3.3.1: the DSN is 64 bits from the sender's IDSN; Linux's first data byte
        // is IDSN + 1 and the subflow sequence number of a subflow's first byte is 1.
        let keys = MptcpKeys::of(1, 0);
        let mut opt = MptcpOption {
            data_ack: Some(0),
            ..MptcpOption::default()
        };
        opt.maps[0] = Mapping {
            dsn: 2920,
            ssn: 1460,
            len: 1460,
        };
        opt.n_maps = 1;
        let bytes = written(&opt, &seg(Flags::ACK, 1460), true);
        let got = parsed(&bytes);
        assert_eq!(got.len(), 1);
        match got[0] {
            Wire::Dss(Dss {
                data_ack, mapping, ..
            }) => {
                // The data sender's DATA_ACK is 32 bits (flag a clear), as Linux's.
                let low = keys.sink_idsn().wrapping_add(1) & 0xffff_ffff;
                assert_eq!(data_ack, Some((low, false)));
                let m = mapping.expect("a mapping");
                assert_eq!(m.dsn, keys.source_idsn().wrapping_add(1 + 2920));
                assert!(m.dsn_wide);
                assert_eq!(m.ssn, 1461);
                assert_eq!(m.data_len, 1460);
                assert_eq!(m.checksum, None);
            }
            ref o => panic!("{o:?}"),
        }
    }

    #[test]
    fn a_join_syn_names_the_data_senders_token() {
        // §3.2: the initiator's MP_JOIN SYN carries the token of the responder's key; the
        // model's joins come from the data receiver, so it is the source's token.
        let keys = MptcpKeys::of(1, 0);
        let opt = MptcpOption {
            handshake: Handshake::Join {
                interface: 1,
                backup: true,
            },
            ..MptcpOption::default()
        };
        let got = parsed(&written(&opt, &seg(Flags::SYN, 0), false));
        match got[0] {
            Wire::JoinSyn {
                backup,
                addr_id,
                token,
                ..
            } => {
                assert!(backup);
                assert_eq!(addr_id, super::addr_id(1));
                assert_eq!(addr_id, 2);
                assert_eq!(token, token_of(keys.source).0);
            }
            ref o => panic!("{o:?}"),
        }
    }

    #[test]
    fn the_capable_syn_ack_carries_the_data_senders_key() {
        let keys = MptcpKeys::of(1, 0);
        let opt = MptcpOption {
            handshake: Handshake::Capable,
            ..MptcpOption::default()
        };
        let syn_ack = Flags(Flags::SYN.0 | Flags::ACK.0);
        match parsed(&written(&opt, &seg(syn_ack, 0), true))[0] {
            Wire::Capable { sender_key, .. } => assert_eq!(sender_key, Some(keys.source)),
            ref o => panic!("{o:?}"),
        }
    }

    #[test]
    fn add_addr_carries_the_announcers_address_and_hmac_its_echo_neither_hmac() {
        // RFC 8684 §3.4.1 Figure 12: ADD_ADDR (IPv4, no port) is 16 bytes with the truncated
        // HMAC (Key = the announcer's key + the peer's, Msg = address id + address); the
        // receiver's echo (E = 1) repeats the address and id in 8 bytes, no HMAC.
        let keys = MptcpKeys::of(1, 0);
        let add = MptcpOption {
            addr: AddrSignal::Add(1),
            ..MptcpOption::default()
        };
        // From the data receiver (the mobile, a download) at 10.0.0.5.
        let bytes = written(&add, &seg(Flags::ACK, 0), false);
        assert_eq!(bytes.len(), 16);
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&keys.sink.to_be_bytes());
        key[8..].copy_from_slice(&keys.source.to_be_bytes());
        let mac = hmac_sha256(&key, &[2, 10, 0, 0, 5]);
        assert_eq!(&bytes[8..16], &mac[..8]);
        match &parsed(&bytes)[0] {
            Wire::AddAddr {
                echo,
                addr_id,
                addr,
                port,
            } => {
                assert!(!echo);
                assert_eq!(*addr_id, 2);
                assert_eq!(addr.to_string(), "10.0.0.5");
                assert_eq!(*port, None);
            }
            o => panic!("{o:?}"),
        }
        // The echo, from the data sender to the announcer (10.0.0.6, the destination).
        let echo = MptcpOption {
            addr: AddrSignal::Echo(1),
            ..MptcpOption::default()
        };
        let bytes = written(&echo, &seg(Flags::ACK, 0), true);
        assert_eq!(bytes.len() as u32, echo.wire_len(false));
        assert_eq!(bytes.len(), 8);
        match &parsed(&bytes)[0] {
            Wire::AddAddr {
                echo,
                addr_id,
                addr,
                ..
            } => {
                assert!(echo);
                assert_eq!(*addr_id, 2);
                assert_eq!(addr.to_string(), "10.0.0.6");
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn the_correspondents_join_toward_an_announced_address_carries_id_0_and_the_mobiles_token() {
        // RFC 8684 §3.2 Figure 6 from the correspondent (the data sender here): the receiver's
        // token (the mobile's) and its own address id, 0, as a kernel capture shows
        // (`vho emulate --multipath`, a `signal` endpoint: docs/design/mptcp.md).
        let keys = MptcpKeys::of(1, 0);
        let opt = MptcpOption {
            handshake: Handshake::PeerJoin { toward: 1 },
            ..MptcpOption::default()
        };
        let bytes = written(&opt, &seg(Flags::SYN, 0), true);
        assert_eq!(bytes.len() as u32, opt.wire_len(false));
        match parsed(&bytes)[0] {
            Wire::JoinSyn {
                backup,
                addr_id,
                token,
                ..
            } => {
                assert!(!backup);
                assert_eq!(addr_id, 0);
                assert_eq!(token, token_of(keys.sink).0);
            }
            ref o => panic!("{o:?}"),
        }
    }
}
