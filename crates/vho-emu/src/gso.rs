//! Segmentation offload at the TUN device (linux/Documentation/networking/tuntap.rst,
//! `IFF_VNET_HDR`, `TUNSETOFFLOAD`): every read and write starts with a `virtio_net_hdr`, and a
//! read may be a whole TCP send of up to 64 KB (a GSO packet) that the emulator cuts into the
//! wire's segments itself, as a NIC's TSO would, instead of the kernel doing it packet by
//! packet in `validate_xmit_skb` before each one is read on its own.
//!
//! The segments come out as Linux's software GSO makes them (`inet_gso_segment`,
//! net/ipv4/af_inet.c; `tcp_gso_segment`, net/ipv4/tcp_offload.c): IPv4 total length, an IP ID
//! one more per segment and the header checksum per segment; the TCP sequence number advanced
//! by `gso_size` each; CWR on the first segment only, FIN and PSH on the last only; each
//! segment's TCP checksum computed whole (RFC 9293 §3.1), so the captures and the model carry
//! real wire packets.

/// `struct virtio_net_hdr` (linux/virtio_net.h): the legacy 10-byte header, TUN's default
/// (`TUNSETVNETHDRSZ` not set), in the host's byte order (legacy virtio: native endian, and
/// `TUNSETVNETLE`/`BE` not set). vho-emu runs on little-endian Linux (x86-64, aarch64).
pub const VNET_HDR_LEN: usize = 10;

/// `VIRTIO_NET_HDR_F_NEEDS_CSUM`: the checksum from `csum_start` to the end is to be put at
/// `csum_start + csum_offset`; the field holds the pseudo-header's sum.
pub const F_NEEDS_CSUM: u8 = 1;
/// `VIRTIO_NET_HDR_GSO_NONE` / `_TCPV4` / `_ECN` (linux/virtio_net.h).
pub const GSO_NONE: u8 = 0;
pub const GSO_TCPV4: u8 = 1;
pub const GSO_ECN: u8 = 0x80;

const IPPROTO_TCP: u8 = 6;
/// TCP's header flags (RFC 9293 §3.1; CWR RFC 3168 §6.1).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const URG: u8 = 0x20;
pub const CWR: u8 = 0x80;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VnetHdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
}

impl VnetHdr {
    /// A TCP/IPv4 GSO packet's header (`virtio_net_hdr`): headers of `hdr_len` bytes, segments
    /// of `gso_size`, the TCP checksum to complete (it starts after a 20-byte IP header and
    /// sits 16 bytes into the TCP header).
    pub fn tcp4(hdr_len: u16, gso_size: u16) -> VnetHdr {
        VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: GSO_TCPV4,
            hdr_len,
            gso_size,
            csum_start: 20,
            csum_offset: 16,
        }
    }

    pub fn parse(b: &[u8]) -> Option<VnetHdr> {
        let w = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        (b.len() >= VNET_HDR_LEN).then(|| VnetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: w(2),
            gso_size: w(4),
            csum_start: w(6),
            csum_offset: w(8),
        })
    }

    pub fn bytes(&self) -> [u8; VNET_HDR_LEN] {
        let mut b = [0u8; VNET_HDR_LEN];
        b[0] = self.flags;
        b[1] = self.gso_type;
        b[2..4].copy_from_slice(&self.hdr_len.to_le_bytes());
        b[4..6].copy_from_slice(&self.gso_size.to_le_bytes());
        b[6..8].copy_from_slice(&self.csum_start.to_le_bytes());
        b[8..10].copy_from_slice(&self.csum_offset.to_le_bytes());
        b
    }
}

/// The ones'-complement sum of `b` as big-endian 16-bit words (RFC 1071), an odd last byte
/// padded with zero, added to `acc` unfolded. Summed eight bytes at a time with the carry
/// wrapped around, which gives the same folded sum (RFC 1071 §2(B), parallel summation).
pub fn sum(acc: u64, b: &[u8]) -> u64 {
    let mut s: u64 = 0;
    let mut add = |x: u64| {
        let (v, carry) = s.overflowing_add(x);
        s = v + carry as u64;
    };
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        add(u64::from_be_bytes([
            w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
        ]));
    }
    // The rest (every chunk before it is of even length): zeros on the right.
    let rest = words.remainder();
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    add(u64::from_be_bytes(last));
    acc + (s & 0xffff_ffff) + (s >> 32)
}

/// `acc` folded to 16 bits (RFC 1071 §4.1), not complemented.
pub fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The TCP/UDP pseudo-header's sum over IPv4 (RFC 9293 §3.1): addresses, protocol, length.
pub fn pseudo_sum(ip: &[u8], proto: u8, len: usize) -> u64 {
    sum(0, &ip[12..20]) + proto as u64 + len as u64
}

/// The IPv4 header's checksum, set in place (RFC 791 §3.1).
pub fn set_ip_checksum(ip: &mut [u8]) {
    let ihl = ((ip[0] & 0x0f) as usize) * 4;
    ip[10] = 0;
    ip[11] = 0;
    let c = !fold(sum(0, &ip[..ihl]));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Completes a partial checksum as `VIRTIO_NET_HDR_F_NEEDS_CSUM` asks: the sum from
/// `csum_start` to the end (the field holds the pseudo-header's), complemented, at
/// `csum_start + csum_offset` (skb_checksum_help, net/core/dev.c). False if out of bounds.
pub fn complete_checksum(h: &VnetHdr, pkt: &mut [u8]) -> bool {
    let (start, at) = (
        h.csum_start as usize,
        (h.csum_start + h.csum_offset) as usize,
    );
    if start > pkt.len() || at + 2 > pkt.len() {
        return false;
    }
    let c = !fold(sum(0, &pkt[start..]));
    // skb_checksum_help (CSUM_MANGLED_0): a sum that comes out zero is sent as all ones, its
    // equal in ones' complement (RFC 768 asks it of UDP).
    let c = if c == 0 { 0xffff } else { c };
    pkt[at..at + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Why a GSO packet could not be cut.
#[derive(Debug, PartialEq, Eq)]
pub enum SplitError {
    /// Not a TCP-over-IPv4 GSO packet with whole headers and a positive `gso_size`.
    Malformed,
}

/// Cuts a TCPv4 GSO packet (`pkt`: the IP packet after the virtio header `h`) into its wire
/// segments, calling `each` with every one in order (a buffer reused between calls). Returns
/// how many.
pub fn split(
    h: &VnetHdr,
    pkt: &[u8],
    seg: &mut Vec<u8>,
    mut each: impl FnMut(&[u8]),
) -> Result<usize, SplitError> {
    if h.gso_type & !GSO_ECN != GSO_TCPV4 {
        return Err(SplitError::Malformed);
    }
    if pkt.len() < 20 || pkt[0] >> 4 != 4 || pkt[9] != IPPROTO_TCP {
        return Err(SplitError::Malformed);
    }
    let ihl = ((pkt[0] & 0x0f) as usize) * 4;
    if ihl < 20 || pkt.len() < ihl + 20 {
        return Err(SplitError::Malformed);
    }
    let thl = ((pkt[ihl + 12] >> 4) as usize) * 4;
    let hl = ihl + thl;
    let mss = h.gso_size as usize;
    if thl < 20 || pkt.len() < hl || mss == 0 {
        return Err(SplitError::Malformed);
    }
    let payload = &pkt[hl..];
    let id0 = u16::from_be_bytes([pkt[4], pkt[5]]);
    let seq0 = u32::from_be_bytes([pkt[ihl + 4], pkt[ihl + 5], pkt[ihl + 6], pkt[ihl + 7]]);
    let flags = pkt[ihl + 13];
    let n = payload.len().div_ceil(mss).max(1);
    for (i, chunk) in payload.chunks(mss).enumerate() {
        seg.clear();
        seg.extend_from_slice(&pkt[..hl]);
        seg.extend_from_slice(chunk);
        let total = (hl + chunk.len()) as u16;
        seg[2..4].copy_from_slice(&total.to_be_bytes());
        // inet_gso_segment: each segment's ID one more (the non-FIXEDID case; the virtio
        // header cannot say FIXEDID).
        seg[4..6].copy_from_slice(&id0.wrapping_add(i as u16).to_be_bytes());
        set_ip_checksum(&mut seg[..ihl]);
        let tcp = &mut seg[ihl..];
        let seq = seq0.wrapping_add((i * mss) as u32);
        tcp[4..8].copy_from_slice(&seq.to_be_bytes());
        // tcp_gso_segment: CWR stays on the first segment, FIN and PSH on the last.
        let mut f = flags;
        if i > 0 {
            f &= !CWR;
        }
        if i + 1 < n {
            f &= !(FIN | PSH);
        }
        tcp[13] = f;
        tcp[16] = 0;
        tcp[17] = 0;
        let len = tcp.len();
        let c = !fold(sum(pseudo_sum(&seg[..ihl], IPPROTO_TCP, len), &seg[ihl..]));
        seg[ihl + 16..ihl + 18].copy_from_slice(&c.to_be_bytes());
        each(seg);
    }
    Ok(n)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An IPv4/TCP packet from 10.66.0.1:5001 to 10.66.0.2:40000 with the timestamp option
    /// (12 bytes, RFC 7323 §3), `payload` bytes of `fill`, valid checksums.
    pub(crate) fn tcp_packet(seq: u32, flags: u8, payload: usize, fill: u8) -> Vec<u8> {
        let mut p = vec![0u8; 20 + 32 + payload];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&((52 + payload) as u16).to_be_bytes());
        p[4..6].copy_from_slice(&0x1234u16.to_be_bytes());
        p[6] = 0x40; // DF
        p[8] = 64;
        p[9] = IPPROTO_TCP;
        p[12..16].copy_from_slice(&[10, 66, 0, 1]);
        p[16..20].copy_from_slice(&[10, 66, 0, 2]);
        let t = &mut p[20..];
        t[0..2].copy_from_slice(&5001u16.to_be_bytes());
        t[2..4].copy_from_slice(&40000u16.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&777u32.to_be_bytes());
        t[12] = 8 << 4;
        t[13] = flags | 0x10; // ACK
        t[14..16].copy_from_slice(&502u16.to_be_bytes());
        t[20..24].copy_from_slice(&[1, 1, 8, 10]);
        t[24..28].copy_from_slice(&1000u32.to_be_bytes());
        t[28..32].copy_from_slice(&2000u32.to_be_bytes());
        for b in &mut t[32..] {
            *b = fill;
        }
        set_ip_checksum(&mut p[..20]);
        let len = p.len() - 20;
        let c = !fold(sum(pseudo_sum(&p, IPPROTO_TCP, len), &p[20..]));
        p[36..38].copy_from_slice(&c.to_be_bytes());
        p
    }

    /// True when both checksums of an IPv4/TCP packet verify (the sums come out all ones).
    pub(crate) fn checksums_ok(p: &[u8]) -> bool {
        let ip = fold(sum(0, &p[..20])) == 0xffff;
        let tcp = fold(sum(pseudo_sum(p, IPPROTO_TCP, p.len() - 20), &p[20..])) == 0xffff;
        ip && tcp
    }

    #[test]
    fn the_rfc_1071_example_sums_to_its_stated_value() {
        // RFC 1071 §3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 (folded).
        let b = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum(0, &b)), 0xddf2);
        // The odd byte is padded with zero on the right.
        assert_eq!(fold(sum(0, &[0x12, 0x34, 0x56])), 0x1234 + 0x5600);
        // Carries wrap around: ffff + 0001 is 0001 (RFC 1071 §1), over 8-byte words too.
        assert_eq!(fold(sum(0, &[0xff, 0xff, 0, 1])), 1);
        let ones = [0xffu8; 16];
        assert_eq!(fold(sum(0, &[&ones[..], &[0, 1]].concat())), 1);
    }

    #[test]
    fn the_virtio_header_round_trips_in_little_endian() {
        let h = VnetHdr::tcp4(52, 1448);
        let b = h.bytes();
        assert_eq!(&b[..6], &[1, 1, 52, 0, 0xa8, 0x05]);
        assert_eq!(VnetHdr::parse(&b), Some(h));
    }

    #[test]
    fn a_gso_packet_is_cut_as_tcp_gso_segment_cuts_it() {
        // 3000 bytes at gso_size 1448: 1448, 1448, 104; sequence numbers 1000, 2448, 3896.
        let mut big = tcp_packet(1000, CWR | PSH | FIN, 3000, 0xab);
        // As the kernel hands it over: the TCP checksum holds the pseudo-header's sum only.
        big[36] = 0;
        big[37] = 0;
        let h = VnetHdr::tcp4(52, 1448);
        let mut segs = Vec::new();
        let n = split(&h, &big, &mut Vec::new(), |s| segs.push(s.to_vec())).unwrap();
        assert_eq!(n, 3);
        let lens: Vec<usize> = segs.iter().map(|s| s.len() - 52).collect();
        assert_eq!(lens, [1448, 1448, 104]);
        for (i, s) in segs.iter().enumerate() {
            let total = u16::from_be_bytes([s[2], s[3]]) as usize;
            assert_eq!(total, s.len());
            assert_eq!(u16::from_be_bytes([s[4], s[5]]), 0x1234 + i as u16);
            let seq = u32::from_be_bytes([s[24], s[25], s[26], s[27]]);
            assert_eq!(seq, 1000 + 1448 * i as u32);
            assert!(checksums_ok(s), "segment {i}");
            // Each segment equals a packet built whole with its sequence number and flags.
            let flags = match i {
                0 => CWR,
                1 => 0,
                _ => PSH | FIN,
            };
            let mut want = tcp_packet(seq, flags, lens[i], 0xab);
            want[4..6].copy_from_slice(&(0x1234 + i as u16).to_be_bytes());
            set_ip_checksum(&mut want[..20]);
            assert_eq!(s, &want, "segment {i}");
        }
    }

    #[test]
    fn a_packet_that_is_no_tcp_over_ipv4_is_not_cut() {
        let h = VnetHdr {
            gso_type: GSO_TCPV4,
            gso_size: 1448,
            ..Default::default()
        };
        let mut udp = tcp_packet(0, 0, 100, 0);
        udp[9] = 17;
        assert_eq!(
            split(&h, &udp, &mut Vec::new(), |_| {}),
            Err(SplitError::Malformed)
        );
        let zero = VnetHdr { gso_size: 0, ..h };
        let tcp = tcp_packet(0, 0, 100, 0);
        assert_eq!(
            split(&zero, &tcp, &mut Vec::new(), |_| {}),
            Err(SplitError::Malformed)
        );
    }

    #[test]
    fn a_partial_checksum_is_completed_where_the_header_says() {
        let good = tcp_packet(5, PSH, 333, 7);
        let mut p = good.clone();
        // The kernel's partial form: the pseudo-header's sum, folded, not complemented.
        let ps = fold(pseudo_sum(&p, IPPROTO_TCP, p.len() - 20));
        p[36..38].copy_from_slice(&ps.to_be_bytes());
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            csum_start: 20,
            csum_offset: 16,
            ..Default::default()
        };
        assert!(complete_checksum(&h, &mut p));
        assert_eq!(p, good);
        let far = VnetHdr {
            csum_start: 400,
            ..h
        };
        assert!(!complete_checksum(&far, &mut p));
    }
}
