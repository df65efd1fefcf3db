//! Cross-traffic datagrams in captures (`record.pcap_cross = true`; `agent::pareto`): IPv4 +
//! UDP (RFC 768) and zero bytes, as long in all as the datagram's `packet_size`, which ns-2's
//! `Agent/UDP` puts on the wire with no header added. A datagram shorter than the 28 bytes of
//! headers is written as the headers alone.

use super::pcap::{fold, sum16};

/// IPv4 (20 bytes, DF, TTL `ttl`, protocol 17) and UDP headers of a datagram of `wire_bytes`,
/// checksums filled in; returns the payload bytes (zeros) that follow them.
pub fn encode_cross(
    out: &mut Vec<u8>,
    src: [u8; 4],
    dst: [u8; 4],
    ip_id: u16,
    ttl: u8,
    ports: (u16, u16),
    wire_bytes: u32,
) -> u32 {
    let zeros = wire_bytes.saturating_sub(28).min(u32::from(u16::MAX) - 28);
    let udp_len = 8 + zeros;
    let ip = super::pcap::ipv4_header(20 + udp_len, ip_id, ttl, 17, src, dst);
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&ports.0.to_be_bytes());
    udp[2..4].copy_from_slice(&ports.1.to_be_bytes());
    udp[4..6].copy_from_slice(&(udp_len as u16).to_be_bytes());
    // RFC 768: the pseudo-header (src, dst, zero, 17, UDP length), the header, zero data.
    let mut csum = fold(sum16(&src) + sum16(&dst) + 17 + udp_len + sum16(&udp));
    if csum == 0 {
        csum = 0xffff; // RFC 768: a computed zero is sent as all ones
    }
    udp[6..8].copy_from_slice(&csum.to_be_bytes());
    out.extend_from_slice(&ip);
    out.extend_from_slice(&udp);
    zeros
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_210_byte_datagram_is_28_bytes_of_headers_and_182_of_data() {
        // ns-2.35's Pareto packetSize_ 210 as the IPv4 total length; RFC 768's length field
        // counts the UDP header and data: 8 + 182.
        let mut out = Vec::new();
        let zeros = encode_cross(&mut out, [10, 0, 0, 1], [10, 0, 0, 2], 7, 64, (9, 10), 210);
        assert_eq!((out.len(), zeros), (28, 182));
        assert_eq!(u16::from_be_bytes([out[2], out[3]]), 210);
        assert_eq!(out[9], 17);
        assert_eq!(u16::from_be_bytes([out[24], out[25]]), 190);
        // The checksum verifies: the ones' complement sum over pseudo-header and datagram is
        // all ones, so `fold` (which complements it) gives zero.
        let udp = &out[20..28];
        let sum = sum16(&[10, 0, 0, 1]) + sum16(&[10, 0, 0, 2]) + 17 + 190 + sum16(udp);
        assert_eq!(fold(sum), 0);
    }
}
