//! Packets of a Mobile IPv6 run as IPv6 on the wire (RFC 8200), for captures: TCP with a type 2
//! routing header or a Home Address option (RFC 6275 §6.3-6.4), IPv6-in-IPv6 tunnels
//! (RFC 2473), Mobility Header messages (RFC 6275 §6.1) and Neighbor Discovery (RFC 4861 §4),
//! checksums computed, so that tshark dissects every one of them cleanly. Layouts and sizes are
//! those of `mip::message` (`docs/design/issue-20-sources.md` §4).
//!
//! Addresses follow one plan ([`Ipv6Plan`]): a fixed node `i` is `2001:db8:0:i::1`; a mobile's
//! home address sits on its home agent's prefix; its care-of address on access link `l` is on
//! `2001:db8:l+1::/64`; link-local addresses are `fe80::` with the same interface identifier.

use super::hops::Hops;
use super::pcap::{encode_tcp, fold, sum16};
use crate::mip::{Addr, Addresses, Signal};
use crate::packet::{ext, Packet};
use crate::spec::{NodeIdx, Spec};

const NH_TCP: u8 = 6;
const NH_IPV6: u8 = 41;
const NH_ROUTING: u8 = 43;
const NH_ICMPV6: u8 = 58;
const NH_NONE: u8 = 59;
const NH_DEST_OPTS: u8 = 60;
const NH_MOBILITY: u8 = 135;

/// How the run's addresses are written.
#[derive(Clone, Debug)]
pub struct Ipv6Plan {
    addresses: Addresses,
    home_agent: NodeIdx,
    /// Routers between nodes: the hop limit a capture shows (`record::hops`).
    hops: Hops,
}

impl Ipv6Plan {
    /// The plan of a Mobile IPv6 run (`None` without `[mipv6]`).
    pub fn of(spec: &Spec) -> Option<Ipv6Plan> {
        let m = spec.mipv6.as_ref()?;
        Some(Ipv6Plan {
            addresses: Addresses::new(spec.nodes.len(), &spec.mobiles),
            home_agent: m.home_agent,
            hops: Hops::of(spec),
        })
    }

    fn is_mobile(&self, node: NodeIdx) -> bool {
        self.addresses.coas.iter().any(|c| c.0 == node)
    }

    /// The interface identifier of a node's addresses.
    fn iid(&self, node: NodeIdx) -> u64 {
        if self.is_mobile(node) {
            0x100 + node as u64
        } else {
            1
        }
    }

    /// The global address `a` stands for.
    pub fn global(&self, a: Addr) -> [u8; 16] {
        let owner = self.addresses.owner(a);
        let (prefix, iid) = match self.addresses.link(a) {
            Some(l) => ([0x2001, 0xdb8, l as u16 + 1, 0], self.iid(owner)),
            None if self.is_mobile(owner) => {
                ([0x2001, 0xdb8, 0, self.home_agent as u16], self.iid(owner))
            }
            None => ([0x2001, 0xdb8, 0, owner as u16], 1),
        };
        addr(prefix, iid)
    }

    /// The link-local address of the node that owns `a`.
    fn link_local(&self, a: Addr) -> [u8; 16] {
        let owner = self.addresses.owner(a);
        let iid = if self.is_mobile(owner) {
            self.iid(owner)
        } else {
            0x200 + owner as u64
        };
        addr([0xfe80, 0, 0, 0], iid)
    }

    /// The home address of the mobile owning `a`.
    fn home(&self, a: Addr) -> [u8; 16] {
        self.global(self.addresses.owner(a) as Addr)
    }
}

fn addr(prefix: [u16; 4], iid: u64) -> [u8; 16] {
    let mut a = [0u8; 16];
    for (i, p) in prefix.iter().enumerate() {
        a[2 * i..2 * i + 2].copy_from_slice(&p.to_be_bytes());
    }
    a[8..].copy_from_slice(&iid.to_be_bytes());
    a
}

const ALL_NODES: [u8; 16] = [0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const ALL_ROUTERS: [u8; 16] = [0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

/// A made-up but well-formed MAC for a node's link-layer address options.
fn mac(a: &[u8; 16]) -> [u8; 6] {
    [0x02, 0, a[12], a[13], a[14], a[15]]
}

/// Where a header's hop limit is read: the node the packet is captured at, less what was taken
/// off before its header was written (the tunnel entry's forwarding, for an inner header).
#[derive(Clone, Copy)]
struct At {
    node: NodeIdx,
    less: u8,
}

impl At {
    /// The hop limit of a header from address `src`: RFC 8200 §3, one less per forwarding node.
    fn hop_limit(self, plan: &Ipv6Plan, src: Addr) -> u8 {
        let from = plan.addresses.owner(src);
        plan.hops
            .ttl(from, self.node)
            .saturating_sub(self.less)
            .max(1)
    }
}

/// Writes `pkt`'s headers as IPv6 into `out`, as captured at node `at`; returns the payload
/// bytes that follow as zeros.
pub fn encode(out: &mut Vec<u8>, pkt: &Packet, plan: &Ipv6Plan, at: NodeIdx) -> u32 {
    encode_at(out, pkt, plan, At { node: at, less: 0 })
}

fn encode_at(out: &mut Vec<u8>, pkt: &Packet, plan: &Ipv6Plan, at: At) -> u32 {
    if pkt.ext & ext::TUNNEL != 0 {
        let mut inner = *pkt;
        inner.src = pkt.inner_src;
        inner.dst = pkt.inner_dst;
        inner.ext &= !ext::TUNNEL;
        inner.wire_bytes -= crate::mip::message::TUNNEL_BYTES;
        let mut body = Vec::with_capacity(128);
        let mut nh = NH_IPV6;
        if pkt.ext & ext::PIO != 0 {
            inner.ext &= !ext::PIO;
            inner.wire_bytes -= crate::mip::message::PIO_BYTES;
            body.extend_from_slice(&pio(NH_IPV6, pkt.pio));
            nh = NH_DEST_OPTS;
        }
        // The inner header as the tunnel's entry point forwarded it into the tunnel, one hop
        // less (RFC 2473 §3.1); inside the tunnel only the outer header's hop limit changes.
        let entry = At {
            node: plan.addresses.owner(pkt.src),
            less: 1,
        };
        let zeros = encode_at(&mut body, &inner, plan, entry);
        ipv6(
            out,
            nh,
            at.hop_limit(plan, pkt.src),
            body.len() as u32 + zeros,
            &plan.global(pkt.src),
            &plan.global(pkt.dst),
        );
        out.extend_from_slice(&body);
        return zeros;
    }
    if pkt.is_tcp() {
        return tcp(out, pkt, plan, at);
    }
    match pkt.sig {
        Signal::RouterSolicitation { sllao } => {
            let src = plan.link_local(pkt.src);
            let mut body = vec![133, 0, 0, 0, 0, 0, 0, 0];
            if sllao {
                body.extend_from_slice(&[1, 1]);
                body.extend_from_slice(&mac(&src));
            }
            icmpv6(out, &src, &ALL_ROUTERS, body);
        }
        Signal::RouterAdvertisement { interval_ms, sllao } => {
            let src = plan.link_local(pkt.src);
            // Cur hop limit 64, no M/O flags, router lifetime 1800 s (RFC 4861 §6.2.1's
            // default AdvDefaultLifetime for a 600 s MaxRtrAdvInterval), reachable time and
            // retrans timer unspecified.
            let mut body = vec![134, 0, 0, 0, 64, 0, 0x07, 0x08, 0, 0, 0, 0, 0, 0, 0, 0];
            if sllao {
                body.extend_from_slice(&[1, 1]);
                body.extend_from_slice(&mac(&src));
            }
            // Prefix Information (RFC 4861 §4.6.2): /64, on-link and autonomous.
            let prefix = plan.global(pkt.dst);
            body.extend_from_slice(&[3, 4, 64, 0xc0]);
            body.extend_from_slice(&2_592_000u32.to_be_bytes());
            body.extend_from_slice(&604_800u32.to_be_bytes());
            body.extend_from_slice(&[0; 4]);
            body.extend_from_slice(&prefix[..8]);
            body.extend_from_slice(&[0; 8]);
            // MTU (§4.6.4) and Advertisement Interval (RFC 6275 §7.3).
            body.extend_from_slice(&[5, 1, 0, 0]);
            body.extend_from_slice(&1500u32.to_be_bytes());
            body.extend_from_slice(&[7, 1, 0, 0]);
            body.extend_from_slice(&interval_ms.to_be_bytes());
            icmpv6(out, &src, &ALL_NODES, body);
        }
        Signal::NeighborSolicitation { target, link_local } => {
            // DAD (RFC 4862 §5.4.2): from the unspecified address to the target's
            // solicited-node multicast address (RFC 4291 §2.7.1).
            let t = if link_local {
                plan.link_local(target)
            } else {
                plan.global(target)
            };
            let mut dst = [0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 0];
            dst[13..].copy_from_slice(&t[13..]);
            let mut body = vec![135, 0, 0, 0, 0, 0, 0, 0];
            body.extend_from_slice(&t);
            icmpv6(out, &[0; 16], &dst, body);
        }
        Signal::NeighborAdvertisement { target } => {
            let t = plan.global(target);
            let mut body = vec![136, 0, 0, 0, 0x20, 0, 0, 0];
            body.extend_from_slice(&t);
            body.extend_from_slice(&[2, 1]);
            body.extend_from_slice(&mac(&t));
            icmpv6(out, &t, &ALL_NODES, body);
        }
        sig => mobility(out, pkt, sig, plan, at),
    }
    0
}

fn ipv6(out: &mut Vec<u8>, nh: u8, hop: u8, payload: u32, src: &[u8; 16], dst: &[u8; 16]) {
    out.extend_from_slice(&[0x60, 0, 0, 0]);
    out.extend_from_slice(&(payload.min(u16::MAX as u32) as u16).to_be_bytes());
    out.extend_from_slice(&[nh, hop]);
    out.extend_from_slice(src);
    out.extend_from_slice(dst);
}

/// The pseudo-header's sum (RFC 8200 §8.1) without the upper-layer length.
fn pseudo(src: &[u8; 16], dst: &[u8; 16], nh: u8) -> u32 {
    sum16(src) + sum16(dst) + u32::from(nh)
}

fn icmpv6(out: &mut Vec<u8>, src: &[u8; 16], dst: &[u8; 16], mut body: Vec<u8>) {
    let len = body.len() as u32;
    let c = fold(pseudo(src, dst, NH_ICMPV6) + len + sum16(&body));
    body[2..4].copy_from_slice(&c.to_be_bytes());
    // Neighbor Discovery messages carry hop limit 255 (RFC 4861 §6.1, §7.1).
    ipv6(out, NH_ICMPV6, 255, len, src, dst);
    out.extend_from_slice(&body);
}

/// A Home Address destination option header (RFC 6275 §6.3): PadN 4, then the option at 8n+6.
fn hao(nh: u8, home: &[u8; 16]) -> Vec<u8> {
    let mut h = vec![nh, 2, 1, 2, 0, 0, 0xc9, 16];
    h.extend_from_slice(home);
    h
}

/// The Packet Identifier Option's type. Naoe et al. (seed 002, Fig. 3) assign none: one of
/// RFC 4727 §3.3's experimental option types, 0x1E (action 00, "skip over this option" for a
/// node that does not know it; not changed en route), which tshark shows as an unknown option.
pub const PIO_OPTION_TYPE: u8 = 0x1e;

/// A Destination Options header right after the tunnel header carrying a Packet Identifier
/// Option (seed 002 §IV-B, Fig. 3): 16-bit sequence number, 16-bit ms timestamp; 8 bytes.
fn pio(nh: u8, p: crate::net::combine::Pio) -> [u8; 8] {
    let s = p.seq.to_be_bytes();
    let t = p.sent_ms.to_be_bytes();
    [nh, 0, PIO_OPTION_TYPE, 4, s[0], s[1], t[0], t[1]]
}

/// A type 2 routing header (RFC 6275 §6.4): one address, segments left 1.
fn rh2(nh: u8, home: &[u8; 16]) -> Vec<u8> {
    let mut h = vec![nh, 2, 2, 1, 0, 0, 0, 0];
    h.extend_from_slice(home);
    h
}

/// TCP over IPv6 with its Mobile IPv6 extension header, if any.
fn tcp(out: &mut Vec<u8>, pkt: &Packet, plan: &Ipv6Plan, at: At) -> u32 {
    let wire_src = plan.global(pkt.src);
    let wire_dst = plan.global(pkt.dst);
    // The checksum covers the addresses the TCP endpoints use (RFC 6275 §6.3, §6.4).
    let (ext, src, dst) = if pkt.ext & ext::HAO != 0 {
        let home = plan.home(pkt.src);
        (hao(NH_TCP, &home), home, wire_dst)
    } else if pkt.ext & ext::RH2 != 0 {
        let home = plan.home(pkt.dst);
        (rh2(NH_TCP, &home), wire_src, home)
    } else {
        (Vec::new(), wire_src, wire_dst)
    };
    let (hdr, hlen) = encode_tcp(&pkt.seg, pseudo(&src, &dst, NH_TCP), &[]);
    let nh = match ext.first() {
        None => NH_TCP,
        Some(_) if pkt.ext & ext::HAO != 0 => NH_DEST_OPTS,
        Some(_) => NH_ROUTING,
    };
    let payload = ext.len() as u32 + hlen as u32 + pkt.seg.len;
    ipv6(
        out,
        nh,
        at.hop_limit(plan, pkt.src),
        payload,
        &wire_src,
        &wire_dst,
    );
    out.extend_from_slice(&ext);
    out.extend_from_slice(&hdr[..hlen]);
    pkt.seg.len
}

/// A Mobility Header message (RFC 6275 §6.1), with the Home Address option of a Binding Update
/// and the routing header of a Binding Acknowledgement to a mobile.
fn mobility(out: &mut Vec<u8>, pkt: &Packet, sig: Signal, plan: &Ipv6Plan, at: At) {
    let (mh_type, data): (u8, Vec<u8>) = match sig {
        Signal::BindingUpdate {
            seq,
            lifetime_4s,
            home,
            ack,
        } => {
            let flags = if ack { 0x80 } else { 0 } | if home { 0x40 } else { 0 };
            let mut d = seq.to_be_bytes().to_vec();
            d.extend_from_slice(&[flags, 0]);
            d.extend_from_slice(&lifetime_4s.to_be_bytes());
            if home {
                d.extend_from_slice(&[1, 2, 0, 0]);
            } else {
                // Nonce Indices (type 4), then Binding Authorization Data (type 5) at 8n+2,
                // last and unpadded (RFC 6275 §6.2.6-6.2.7).
                d.extend_from_slice(&[4, 4, 0, 0, 0, 0]);
                d.extend_from_slice(&[5, 12]);
                d.extend_from_slice(&[0xa5; 12]);
            }
            (5, d)
        }
        Signal::BindingAck {
            status,
            seq,
            lifetime_4s,
        } => {
            let mut d = vec![status, 0];
            d.extend_from_slice(&seq.to_be_bytes());
            d.extend_from_slice(&lifetime_4s.to_be_bytes());
            d.extend_from_slice(&[1, 2, 0, 0]);
            (6, d)
        }
        Signal::BindingError { status, home } => {
            // RFC 6275 §6.1.9: status, reserved, the home address; no option.
            let mut d = vec![status, 0];
            d.extend_from_slice(&plan.global(home));
            (7, d)
        }
        Signal::HomeTestInit { cookie } | Signal::CareOfTestInit { cookie } => {
            let mut d = vec![0, 0];
            d.extend_from_slice(&u64::from(cookie).to_be_bytes());
            (
                if matches!(sig, Signal::HomeTestInit { .. }) {
                    1
                } else {
                    2
                },
                d,
            )
        }
        Signal::HomeTest {
            nonce,
            cookie,
            token,
        }
        | Signal::CareOfTest {
            nonce,
            cookie,
            token,
        } => {
            let mut d = nonce.to_be_bytes().to_vec();
            d.extend_from_slice(&u64::from(cookie).to_be_bytes());
            d.extend_from_slice(&u64::from(token).to_be_bytes());
            (
                if matches!(sig, Signal::HomeTest { .. }) {
                    3
                } else {
                    4
                },
                d,
            )
        }
        _ => return,
    };
    let mut mh = vec![NH_NONE, 0, mh_type, 0, 0, 0];
    mh.extend_from_slice(&data);
    mh[1] = (mh.len() / 8 - 1) as u8;
    let wire_src = plan.global(pkt.src);
    let wire_dst = plan.global(pkt.dst);
    let (ext, nh, src, dst) = if pkt.ext & ext::HAO != 0 {
        let home = plan.home(pkt.src);
        (hao(NH_MOBILITY, &home), NH_DEST_OPTS, home, wire_dst)
    } else if pkt.ext & ext::RH2 != 0 {
        let home = plan.home(pkt.dst);
        (rh2(NH_MOBILITY, &home), NH_ROUTING, wire_src, home)
    } else {
        (Vec::new(), NH_MOBILITY, wire_src, wire_dst)
    };
    // RFC 6275 §6.1.1: the checksum over the pseudo-header with the home address as source
    // (Home Address option) and the final destination (routing header).
    let c = fold(pseudo(&src, &dst, NH_MOBILITY) + mh.len() as u32 + sum16(&mh));
    mh[4..6].copy_from_slice(&c.to_be_bytes());
    ipv6(
        out,
        nh,
        at.hop_limit(plan, pkt.src),
        (ext.len() + mh.len()) as u32,
        &wire_src,
        &wire_dst,
    );
    out.extend_from_slice(&ext);
    out.extend_from_slice(&mh);
}

#[cfg(test)]
mod tests;
