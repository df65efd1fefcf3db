//! TFRC packets in captures: IPv4 + UDP (RFC 768) + a TFRC header of vho's own layout, then
//! the data as zero bytes, so that tshark reads addresses, ports, lengths and checksums as on
//! a real wire (`tshark -r x.pcap -Y udp`; the header's fields are the UDP payload's first
//! bytes, `data.data`).
//!
//! RFC 5348 §3.2 names what the packets carry, not a wire format (DCCP's CCID 3, RFC 4342,
//! is one). vho writes ns-2.35's `hdr_tfrc` / `hdr_tfrc_ack` fields (`tcp/tfrc.h`), each as a
//! 32-bit big-endian word:
//! - data (12 bytes): sequence number, timestamp (µs, mod 2^32), the sender's RTT (µs);
//! - feedback (16 bytes): the echoed timestamp (µs), the elapsed time t_delay (µs), X_recv
//!   (bytes per second), p as a fraction of 2^32 (p = 1 written as 2^32 - 1).

use super::pcap::{fold, sum16};
use crate::tfrc::TfrcHeader;

/// The TFRC header's words (see the module doc).
pub fn tfrc_words(hdr: &TfrcHeader) -> Vec<u32> {
    let us = |ns: u64| (ns / 1000) as u32;
    match hdr {
        TfrcHeader::Data(d) => vec![
            d.seq as u32,
            us(d.timestamp.as_nanos()),
            us(d.rtt.as_nanos()),
        ],
        TfrcHeader::Feedback(f) => vec![
            us(f.timestamp_echo.as_nanos()),
            us(f.elapsed.as_nanos()),
            f.x_recv.round().clamp(0.0, u32::MAX as f64) as u32,
            (f.p * 4_294_967_296.0).clamp(0.0, u32::MAX as f64) as u32,
        ],
    }
}

/// IPv4 (20 bytes, DF, TTL `ttl`, protocol 17), UDP and TFRC headers of `hdr`, checksums
/// filled in; returns the data bytes (zeros) that follow them.
pub fn encode_tfrc(
    out: &mut Vec<u8>,
    src: [u8; 4],
    dst: [u8; 4],
    ip_id: u16,
    ttl: u8,
    ports: (u16, u16),
    hdr: &TfrcHeader,
) -> u32 {
    let zeros = match hdr {
        TfrcHeader::Data(d) => d.size,
        TfrcHeader::Feedback(_) => 0,
    };
    let mut tfrc = Vec::with_capacity(16);
    for w in tfrc_words(hdr) {
        tfrc.extend_from_slice(&w.to_be_bytes());
    }
    let udp_len = 8 + tfrc.len() as u32 + zeros;
    let total = 20 + udp_len;
    let ip = super::pcap::ipv4_header(total, ip_id, ttl, 17, src, dst);
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&ports.0.to_be_bytes());
    udp[2..4].copy_from_slice(&ports.1.to_be_bytes());
    udp[4..6].copy_from_slice(&(udp_len.min(u16::MAX as u32) as u16).to_be_bytes());
    // RFC 768: the pseudo-header (src, dst, zero, 17, UDP length), the header, the data.
    let sum = sum16(&src) + sum16(&dst) + 17 + udp_len + sum16(&udp) + sum16(&tfrc);
    let mut csum = fold(sum);
    if csum == 0 {
        csum = 0xffff; // RFC 768: a computed zero is sent as all ones
    }
    udp[6..8].copy_from_slice(&csum.to_be_bytes());
    out.extend_from_slice(&ip);
    out.extend_from_slice(&udp);
    out.extend_from_slice(&tfrc);
    zeros
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tfrc::{Feedback, TfrcPacket};
    use crate::time::{Dur, Time};

    #[test]
    fn a_data_packet_is_ipv4_udp_with_seq_timestamp_and_rtt() {
        // RFC 768 and RFC 5348 §3.2.1: 20 + 8 + 12 header bytes, then s = 1000 data bytes;
        // the checksums verify (the one's complement sum over each, with its checksum, is
        // 0xffff).
        let hdr = TfrcHeader::Data(TfrcPacket {
            seq: 7,
            timestamp: Time::from_millis(1500),
            rtt: Dur::from_millis(120),
            size: 1000,
            round: 0,
            pair: Default::default(),
        });
        let mut out = Vec::new();
        let zeros = encode_tfrc(
            &mut out,
            [10, 0, 0, 1],
            [10, 0, 0, 3],
            9,
            64,
            (5001, 40001),
            &hdr,
        );
        assert_eq!((out.len(), zeros), (40, 1000));
        assert_eq!(crate::tfrc::DATA_HEADER_BYTES, 40);
        assert_eq!(u16::from_be_bytes([out[2], out[3]]), 1040);
        assert_eq!(out[9], 17);
        assert_eq!(fold(sum16(&out[..20])), 0, "IPv4 header checksum");
        assert_eq!(u16::from_be_bytes([out[24], out[25]]), 1020, "UDP length");
        let pseudo = sum16(&[10, 0, 0, 1]) + sum16(&[10, 0, 0, 3]) + 17 + 1020;
        assert_eq!(fold(pseudo + sum16(&out[20..])), 0, "UDP checksum");
        let word = |i: usize| u32::from_be_bytes(out[28 + 4 * i..32 + 4 * i].try_into().unwrap());
        assert_eq!((word(0), word(1), word(2)), (7, 1_500_000, 120_000));
    }

    #[test]
    fn feedback_carries_echo_delay_rate_and_p() {
        // RFC 5348 §3.2.2: 20 + 8 + 16 bytes, no data; p = 0.25 is 2^30 of 2^32.
        let hdr = TfrcHeader::Feedback(Feedback {
            timestamp_echo: Time::from_millis(2),
            elapsed: Dur::from_micros(250),
            x_recv: 125_000.4,
            p: 0.25,
            capacity_bps: None,
            loss_start: None,
        });
        let mut out = Vec::new();
        assert_eq!(
            encode_tfrc(
                &mut out,
                [10, 0, 0, 3],
                [10, 0, 0, 1],
                1,
                64,
                (40001, 5001),
                &hdr
            ),
            0
        );
        assert_eq!(out.len() as u32, crate::tfrc::FEEDBACK_BYTES);
        let word = |i: usize| u32::from_be_bytes(out[28 + 4 * i..32 + 4 * i].try_into().unwrap());
        assert_eq!(
            (word(0), word(1), word(2), word(3)),
            (2000, 250, 125_000, 1 << 30)
        );
    }
}
