//! Receive coalescing before a host's device, as a NIC driver's GRO does within one NAPI
//! poll: the TCP segments the model has delivered to a host by the time the loop hands them
//! over, in sequence and of one connection, enter the host's stack as one GSO packet (one
//! `writev` with a `virtio_net_hdr`, linux/Documentation/networking/tuntap.rst) instead of one
//! write and one pass through the stack each.
//!
//! Only segments already due are joined: nothing waits for a later one, so coalescing adds no
//! lateness, and each segment's lateness is still the instant of the write minus the instant
//! the model delivered it. A segment joins the open run when Linux's GRO would merge it
//! (`inet_gro_receive`, net/ipv4/af_inet.c; `tcp_gro_receive`, net/ipv4/tcp_offload.c):
//! IPv4 without options or fragments, the same addresses, TOS, TTL and DF; the same ports,
//! acknowledgement number, header length, window and TCP options byte for byte, flags equal
//! but for PSH and FIN, no CWR; the next sequence number; a payload of at most the first
//! segment's (the run's `gso_size`). A segment shorter than that, or with PSH, FIN, URG, RST
//! or SYN, closes the run after joining it; a pure ACK never starts one (its length is below
//! any MSS). The run stays under IPv4's 64 KB.

use crate::gso::{self, VnetHdr, CWR, FIN, GSO_NONE, PSH, RST, SYN, URG};

/// The IPv4 total length's limit (RFC 791 §3.1: 16 bits), GRO's own (`gro_max_size`'s
/// default, GRO_LEGACY_MAX_SIZE, is 65,536).
const MAX_IP_LEN: usize = 65_535;

/// Where an open run stands.
#[derive(Clone, Copy, Debug)]
struct Open {
    /// IP + TCP header length of its segments.
    hl: usize,
    /// Its first segment's payload (`gso_size`).
    mss: usize,
    next_seq: u32,
    /// IP length of the run so far, as one packet.
    ip_len: usize,
    /// FIN and PSH seen on its segments (`tcp_gro_receive` ORs them into the first header).
    fin_psh: u8,
    /// No segment may join any more.
    closed: bool,
}

/// One host device's run of segments; `T` is what the caller keeps per segment (its token
/// and delivery instant).
#[derive(Debug)]
pub struct Run<T> {
    open: Option<Open>,
    /// The segments, the first's bytes being the template of the merged header.
    pub segs: Vec<T>,
}

impl<T> Default for Run<T> {
    fn default() -> Self {
        Run {
            open: None,
            segs: Vec::new(),
        }
    }
}

/// What to do with a packet offered to a run.
#[derive(Debug, PartialEq, Eq)]
pub enum Offer {
    /// It joined the run.
    Joined,
    /// It cannot join: write out the run (if any) first, then offer it again to the empty
    /// run.
    FlushFirst,
    /// It starts no run (not a TCP segment with data): write it alone, after the run.
    Alone,
}

/// IPv4 without options or fragments, TCP, whole headers, total length the packet's: the
/// packets GRO looks at. (IP header length, TCP header length, payload.)
fn tcp_shape(p: &[u8]) -> Option<(usize, usize, usize)> {
    if p.len() < 40 || p[0] != 0x45 || p[9] != 6 {
        return None;
    }
    // More-fragments or an offset: never merged (inet_gro_receive flushes fragments).
    if u16::from_be_bytes([p[6], p[7]]) & 0x3fff != 0 {
        return None;
    }
    if u16::from_be_bytes([p[2], p[3]]) as usize != p.len() {
        return None;
    }
    let thl = ((p[32] >> 4) as usize) * 4;
    if thl < 20 || p.len() < 20 + thl {
        return None;
    }
    Some((20, thl, p.len() - 20 - thl))
}

fn seq(p: &[u8]) -> u32 {
    u32::from_be_bytes([p[24], p[25], p[26], p[27]])
}

/// Whether `p` matches the run's first segment `f` as `inet_gro_receive` and
/// `tcp_gro_receive` ask (see the module's list).
fn same_flow(f: &[u8], p: &[u8], hl: usize) -> bool {
    // TOS, then addresses; TTL; DF.
    f[1] == p[1]
        && f[12..20] == p[12..20]
        && f[8] == p[8]
        && (f[6] ^ p[6]) & 0x40 == 0
        // Ports, acknowledgement number.
        && f[20..24] == p[20..24]
        && f[28..32] == p[28..32]
        // Header length, flags but PSH and FIN (and CWR, refused below), window.
        && f[32] == p[32]
        && (f[33] ^ p[33]) & !(PSH | FIN | CWR) == 0
        && f[34..36] == p[34..36]
        // Options.
        && f[40..hl] == p[40..hl]
}

impl<T> Run<T> {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// No segment can join any more: write it out now.
    pub fn is_closed(&self) -> bool {
        self.open.is_some_and(|o| o.closed)
    }

    /// Offers packet `p` (kept by the caller as `keep`, the run holding only that) to the run;
    /// `first` is the bytes of the run's first segment, when it has one.
    pub fn offer(&mut self, first: Option<&[u8]>, p: &[u8], keep: T) -> Offer {
        let Some((ihl, thl, len)) = tcp_shape(p) else {
            return if self.is_empty() {
                Offer::Alone
            } else {
                Offer::FlushFirst
            };
        };
        let flags = p[33];
        let ends = flags & (PSH | FIN | URG | RST | SYN) != 0;
        match (self.open, first) {
            (None, _) => {
                if len == 0 || flags & (RST | SYN | URG) != 0 {
                    return Offer::Alone;
                }
                self.open = Some(Open {
                    hl: ihl + thl,
                    mss: len,
                    next_seq: seq(p).wrapping_add(len as u32),
                    ip_len: p.len(),
                    fin_psh: flags & (FIN | PSH),
                    closed: ends,
                });
                self.segs.push(keep);
                Offer::Joined
            }
            (Some(o), Some(f)) => {
                let joins = !o.closed
                    && ihl + thl == o.hl
                    && len > 0
                    && len <= o.mss
                    && flags & (CWR | RST | SYN | URG) == 0
                    && seq(p) == o.next_seq
                    && o.ip_len + len <= MAX_IP_LEN
                    && same_flow(f, p, o.hl);
                if !joins {
                    return Offer::FlushFirst;
                }
                self.open = Some(Open {
                    next_seq: o.next_seq.wrapping_add(len as u32),
                    ip_len: o.ip_len + len,
                    fin_psh: o.fin_psh | (flags & (FIN | PSH)),
                    closed: ends || len < o.mss,
                    ..o
                });
                self.segs.push(keep);
                Offer::Joined
            }
            (Some(_), None) => Offer::FlushFirst,
        }
    }

    /// The run's merged header (`virtio_net_hdr`, then the first segment's IP and TCP
    /// headers made the whole run's) into `out`, and how many payload bytes of each segment
    /// follow it (all after the headers). A run of one segment is written as it is, with an
    /// empty virtio header. Empties the run's state (the caller drains `segs`).
    pub fn header(&mut self, first: &[u8], out: &mut Vec<u8>) -> usize {
        out.clear();
        let o = self
            .open
            .take()
            .expect("invariant: header() on a run with segments");
        if self.segs.len() == 1 {
            out.extend_from_slice(&VnetHdr::default().bytes());
            return o.hl;
        }
        let h = VnetHdr::tcp4(o.hl as u16, o.mss as u16);
        debug_assert_ne!(h.gso_type, GSO_NONE);
        out.extend_from_slice(&h.bytes());
        let at = out.len();
        out.extend_from_slice(&first[..o.hl]);
        let ip = &mut out[at..];
        ip[2..4].copy_from_slice(&(o.ip_len as u16).to_be_bytes());
        gso::set_ip_checksum(&mut ip[..20]);
        ip[33] |= o.fin_psh;
        // CHECKSUM_PARTIAL's form (__tcp_v4_send_check, net/ipv4/tcp_ipv4.c): the
        // pseudo-header's sum over the whole run's TCP length, not complemented. The kernel
        // delivering it locally trusts it (skb_csum_unnecessary); every segment's own
        // checksum was valid in the model.
        let ps = gso::fold(gso::pseudo_sum(ip, 6, o.ip_len - 20));
        ip[36..38].copy_from_slice(&ps.to_be_bytes());
        o.hl
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gso::tests::tcp_packet;

    /// Offers each packet in turn, as the loop does: a refusal writes the run out first.
    /// Returns the runs written, each as the indices of its packets.
    fn coalesce(pkts: &[Vec<u8>]) -> Vec<Vec<usize>> {
        let mut run: Run<usize> = Run::default();
        let mut first: Option<usize> = None;
        let mut out = Vec::new();
        for (i, p) in pkts.iter().enumerate() {
            match run.offer(first.map(|f| &pkts[f][..]), p, i) {
                Offer::Joined => {
                    first.get_or_insert(i);
                }
                Offer::Alone => out.push(vec![i]),
                Offer::FlushFirst => {
                    run.header(&pkts[first.take().unwrap()], &mut Vec::new());
                    out.push(std::mem::take(&mut run.segs));
                    match run.offer(None, p, i) {
                        Offer::Joined => first = Some(i),
                        Offer::Alone => out.push(vec![i]),
                        Offer::FlushFirst => unreachable!(),
                    }
                }
            }
        }
        if let Some(f) = first {
            run.header(&pkts[f], &mut Vec::new());
            out.push(run.segs);
        }
        out
    }

    #[test]
    fn consecutive_full_segments_join_and_a_short_one_closes_the_run() {
        // tcp_gro_receive: the next sequence number and at most gso_size join; a segment
        // shorter than gso_size is merged and flushes.
        let p = [
            tcp_packet(0, 0, 1448, 1),
            tcp_packet(1448, 0, 1448, 2),
            tcp_packet(2896, 0, 100, 3),
            tcp_packet(2996, 0, 1448, 4),
        ];
        assert_eq!(coalesce(&p), vec![vec![0, 1, 2], vec![3]]);
    }

    #[test]
    fn a_gap_a_new_ack_number_or_other_options_start_a_new_run() {
        // tcp_gro_receive flushes on a sequence gap, a different ack_seq or options.
        // (Each packet follows the one before in sequence but for the first gap.)
        let mut ack = tcp_packet(3448, 0, 1448, 3);
        ack[28..32].copy_from_slice(&778u32.to_be_bytes());
        let mut ts = tcp_packet(4896, 0, 1448, 3);
        ts[28..32].copy_from_slice(&778u32.to_be_bytes());
        ts[44..48].copy_from_slice(&1001u32.to_be_bytes());
        let p = [
            tcp_packet(0, 0, 1448, 1),
            tcp_packet(2000, 0, 1448, 2),
            ack,
            ts,
        ];
        assert_eq!(coalesce(&p), vec![vec![0], vec![1], vec![2], vec![3]]);
    }

    #[test]
    fn psh_and_fin_close_the_run_cwr_and_pure_acks_do_not_join() {
        let p = [
            tcp_packet(0, 0, 1448, 1),
            tcp_packet(1448, PSH, 1448, 2),
            tcp_packet(2896, 0, 1448, 3),
            tcp_packet(4344, CWR, 1448, 4),
            tcp_packet(5792, 0, 0, 0),
            tcp_packet(5792, SYN, 0, 0),
        ];
        assert_eq!(
            coalesce(&p),
            vec![vec![0, 1], vec![2], vec![3], vec![4], vec![5]]
        );
    }

    #[test]
    fn the_merged_header_describes_the_whole_run_as_one_gso_packet() {
        let p = [
            tcp_packet(1000, 0, 1448, 1),
            tcp_packet(2448, 0, 1448, 2),
            tcp_packet(3896, PSH, 500, 3),
        ];
        let mut run: Run<usize> = Run::default();
        assert_eq!(run.offer(None, &p[0], 0), Offer::Joined);
        assert_eq!(run.offer(Some(&p[0]), &p[1], 1), Offer::Joined);
        assert_eq!(run.offer(Some(&p[0]), &p[2], 2), Offer::Joined);
        let mut out = Vec::new();
        let hl = run.header(&p[0], &mut out);
        assert_eq!(hl, 52);
        let h = VnetHdr::parse(&out).unwrap();
        assert_eq!(h, VnetHdr::tcp4(52, 1448));
        let ip = &out[10..];
        assert_eq!(ip.len(), 52);
        // 52 bytes of headers and 1448 + 1448 + 500 of payload.
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 52 + 3396);
        assert_eq!(gso::fold(gso::sum(0, &ip[..20])), 0xffff);
        assert_eq!(u32::from_be_bytes([ip[24], ip[25], ip[26], ip[27]]), 1000);
        assert_eq!(ip[33], 0x10 | PSH);
        // The partial checksum, completed over the run's bytes, is the whole packet's.
        let mut whole = ip.to_vec();
        for s in &p {
            whole.extend_from_slice(&s[52..]);
        }
        assert!(gso::complete_checksum(&h, &mut whole));
        assert!(gso::tests::checksums_ok(&whole));
    }

    #[test]
    fn one_segment_goes_out_as_it_came_with_an_empty_virtio_header() {
        let p = tcp_packet(0, PSH, 10, 1);
        let mut run: Run<usize> = Run::default();
        assert_eq!(run.offer(None, &p, 0), Offer::Joined);
        let mut out = Vec::new();
        assert_eq!(run.header(&p, &mut out), 52);
        assert_eq!(out, VnetHdr::default().bytes());
    }

    #[test]
    fn a_run_stays_under_the_ipv4_length_limit() {
        // 52 + 45 x 1448 = 65,212 bytes fit in 65,535; a 46th segment would make 66,660.
        let p: Vec<Vec<u8>> = (0..46).map(|i| tcp_packet(i * 1448, 0, 1448, 0)).collect();
        let runs = coalesce(&p);
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[0].len(), runs[1].len()), (45, 1));
    }
}
