//! A Multipath TCP connection's own state, read from the kernel at the data sender
//! (`getsockopt(SOL_MPTCP, MPTCP_FULL_INFO)`, Linux 6.6 and later, `net/mptcp/sockopt.c`
//! `mptcp_getsockopt_full_info`): the connection's `mptcp_info` and, per subflow, its
//! `tcp_info` and `mptcp_subflow_info` (the kernel's subflow id and its addresses), all in one
//! consistent reading under the socket's lock.
//!
//! `MptcpTrace` turns the successive readings into what `vho run` writes for an MPTCP flow
//! (`vho_sim::agent::mptcp::summary`): a row per subflow whenever its state changed, with a
//! stable id, and each subflow's life. Ids: the simulator numbers subflows by creation from 0;
//! the kernel's `subflow_id` counts from 1 per connection (`msk->subflow_id++` in
//! `__mptcp_socket_create`, `__mptcp_subflow_connect` and `__mptcp_finish_join`), and a join
//! that fails may take one. Here a subflow's id is its order of first sighting from 0 (those
//! first seen in one reading in the order of the kernel's ids, which follow creation), so both
//! sides say 0 for the initial subflow and 1 for the first join; the kernel's id is kept
//! beside it (`kernel_id`). A subflow that opened and closed between two readings is not seen.

use serde::Serialize;
use vho_sim::time::Time;

/// `SOL_MPTCP` (linux/socket.h).
pub const SOL_MPTCP: i32 = 284;
/// `MPTCP_FULL_INFO` (include/uapi/linux/mptcp.h, since Linux 6.6).
pub const MPTCP_FULL_INFO: i32 = 4;

/// The most subflows a reading asks for. Open: our choice; the emulator's path manager limit
/// is 8 extra subflows (`emulator::MPTCP_LIMITS`), so 16 leaves room for closing ones.
pub const MAX_SUBFLOWS: usize = 16;

/// `offsetof(struct mptcp_full_info, mptcp_info)`: six `__u32` then two `__aligned_u64`
/// pointers (include/uapi/linux/mptcp.h; `MIN_FULL_INFO_OPTLEN_SIZE` in net/mptcp/sockopt.c).
const FULL_INFO_HEAD: usize = 40;
/// `sizeof(struct mptcp_info)` as of Linux 6.10 (`mptcpi_last_ack_recv` its last field); the
/// kernel copies the smaller of this and its own.
const MPTCP_INFO_SIZE: usize = 96;
/// `sizeof(struct mptcp_subflow_info)`: `__u32 id`, then `struct mptcp_subflow_addrs` (two
/// unions the size of `__kernel_sockaddr_storage`, 128 bytes, 8-aligned) at 8.
const SUBFLOW_INFO_SIZE: usize = 264;
/// `sizeof(struct tcp_info)` as far as `tcpi_reord_seen` and a little beyond (tcp.h); the
/// kernel copies the smaller of what we ask and its own, and says which.
const TCP_INFO_SIZE: usize = 256;

// Offsets in `struct mptcp_info` (include/uapi/linux/mptcp.h).
const MI_SUBFLOWS: usize = 0;
const MI_SND_UNA: usize = 24;
const MI_RCV_NXT: usize = 32;
const MI_BYTES_RETRANS: usize = 48;
const MI_BYTES_SENT: usize = 56;
const MI_BYTES_ACKED: usize = 72;

// Offsets in `struct tcp_info` (include/uapi/linux/tcp.h; checked with offsetof against the
// machine's header: 68, 16, 80, 100, 120, 200).
const TI_STATE: usize = 0;
const TI_SND_MSS: usize = 16;
const TI_RTT: usize = 68;
const TI_SND_CWND: usize = 80;
const TI_TOTAL_RETRANS: usize = 100;
const TI_BYTES_ACKED: usize = 120;
const TI_BYTES_RECEIVED: usize = 128;
const TI_BYTES_SENT: usize = 200;
/// `TCP_CLOSE` (include/net/tcp_states.h).
const TCP_CLOSE: u8 = 7;

// Offsets in `struct mptcp_subflow_info`: the local `sockaddr_in` at 8, the remote at 136
// (family, port, then the address).
const SF_LOCAL: usize = 8;
const SF_REMOTE: usize = 8 + 128;

/// One subflow as a reading shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SubflowInfo {
    /// `subflow->subflow_id`: the kernel's, from 1, never reused in a connection.
    pub kernel_id: u32,
    /// IPv4 addresses, local and remote (zero for another family).
    pub local: [u8; 4],
    pub remote: [u8; 4],
    pub state: u8,
    pub snd_mss: u32,
    pub snd_cwnd: u32,
    pub rtt_us: u32,
    pub total_retrans: u32,
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
}

/// One `MPTCP_FULL_INFO` reading.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FullInfo {
    /// `mptcpi_subflows`: the additional subflows open (the initial one not counted).
    pub subflows: u8,
    pub snd_una: u64,
    /// The data level's next expected byte (`mptcpi_rcv_nxt`).
    pub rcv_nxt: u64,
    /// `mptcpi_bytes_retrans`, `mptcpi_bytes_sent`, `mptcpi_bytes_acked` (Linux 6.9 and
    /// later; `None` from a kernel that copied less).
    pub bytes_retrans: Option<u64>,
    pub bytes_sent: Option<u64>,
    pub bytes_acked: Option<u64>,
    pub subflow: Vec<SubflowInfo>,
}

fn u8_at(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn ipv4_at(b: &[u8], at: usize) -> [u8; 4] {
    // sockaddr_in: family (host order), port, address.
    let family = b
        .get(at..at + 2)
        .map_or(0, |f| u16::from_ne_bytes([f[0], f[1]]));
    match b.get(at + 4..at + 8) {
        Some(a) if family == libc::AF_INET as u16 => [a[0], a[1], a[2], a[3]],
        _ => [0; 4],
    }
}

/// A reading from the buffers `getsockopt` filled: `head` the `struct mptcp_full_info` as
/// returned (`len` its returned length: the head and the part of `mptcp_info` copied),
/// `sfinfo` and `tcpinfo` the arrays, each element the size the kernel wrote back
/// (`size_sfinfo_user`, `size_tcpinfo_user`, the smaller of ours and its own). `None` for a
/// head too short to read.
pub fn parse(head: &[u8], len: usize, sfinfo: &[u8], tcpinfo: &[u8]) -> Option<FullInfo> {
    let head = head.get(..len.min(head.len()))?;
    let size_tcpinfo = u32_at(head, 4)? as usize;
    let size_sfinfo = u32_at(head, 12)? as usize;
    let num = u32_at(head, 16)? as usize;
    let asked = u32_at(head, 20)? as usize;
    let mi = head.get(FULL_INFO_HEAD..).unwrap_or(&[]);
    let mut info = FullInfo {
        subflows: u8_at(mi, MI_SUBFLOWS).unwrap_or(0),
        snd_una: u64_at(mi, MI_SND_UNA).unwrap_or(0),
        rcv_nxt: u64_at(mi, MI_RCV_NXT).unwrap_or(0),
        bytes_retrans: u64_at(mi, MI_BYTES_RETRANS),
        bytes_sent: u64_at(mi, MI_BYTES_SENT),
        bytes_acked: u64_at(mi, MI_BYTES_ACKED),
        subflow: Vec::new(),
    };
    for i in 0..num.min(asked) {
        let Some(sf) = sfinfo.get(i * size_sfinfo..(i + 1) * size_sfinfo) else {
            break;
        };
        let ti = tcpinfo
            .get(i * size_tcpinfo..(i + 1) * size_tcpinfo)
            .unwrap_or(&[]);
        info.subflow.push(SubflowInfo {
            kernel_id: u32_at(sf, 0).unwrap_or(0),
            local: ipv4_at(sf, SF_LOCAL),
            remote: ipv4_at(sf, SF_REMOTE),
            state: u8_at(ti, TI_STATE).unwrap_or(0),
            snd_mss: u32_at(ti, TI_SND_MSS).unwrap_or(0),
            snd_cwnd: u32_at(ti, TI_SND_CWND).unwrap_or(0),
            rtt_us: u32_at(ti, TI_RTT).unwrap_or(0),
            total_retrans: u32_at(ti, TI_TOTAL_RETRANS).unwrap_or(0),
            bytes_sent: u64_at(ti, TI_BYTES_SENT).unwrap_or(0),
            bytes_acked: u64_at(ti, TI_BYTES_ACKED).unwrap_or(0),
            bytes_received: u64_at(ti, TI_BYTES_RECEIVED).unwrap_or(0),
        });
    }
    Some(info)
}

/// The buffers of one reading, kept across readings (no allocation per sample).
pub struct Probe {
    head: Head,
    sfinfo: Vec<u8>,
    tcpinfo: Vec<u8>,
}

/// `struct mptcp_full_info`, 8-aligned as its `__aligned_u64` fields need.
#[repr(C, align(8))]
struct Head([u8; FULL_INFO_HEAD + MPTCP_INFO_SIZE]);

impl Default for Probe {
    fn default() -> Probe {
        Probe {
            head: Head([0; FULL_INFO_HEAD + MPTCP_INFO_SIZE]),
            sfinfo: vec![0; MAX_SUBFLOWS * SUBFLOW_INFO_SIZE],
            tcpinfo: vec![0; MAX_SUBFLOWS * TCP_INFO_SIZE],
        }
    }
}

impl Probe {
    /// Reads the connection at `fd`; `None` where the kernel has no `MPTCP_FULL_INFO` (before
    /// 6.6) or the socket fell back to TCP (`EOPNOTSUPP`).
    pub fn read(&mut self, fd: i32) -> Option<FullInfo> {
        let h = &mut self.head.0;
        h.fill(0);
        h[4..8].copy_from_slice(&(TCP_INFO_SIZE as u32).to_ne_bytes());
        h[12..16].copy_from_slice(&(SUBFLOW_INFO_SIZE as u32).to_ne_bytes());
        h[20..24].copy_from_slice(&(MAX_SUBFLOWS as u32).to_ne_bytes());
        h[24..32].copy_from_slice(&(self.sfinfo.as_mut_ptr() as u64).to_ne_bytes());
        h[32..40].copy_from_slice(&(self.tcpinfo.as_mut_ptr() as u64).to_ne_bytes());
        let mut len = h.len() as libc::socklen_t;
        // SAFETY: the kernel writes at most `len` bytes of the head, and through its two
        // pointers at most MAX_SUBFLOWS elements of the sizes we gave, which both buffers hold.
        let r = unsafe {
            libc::getsockopt(
                fd,
                SOL_MPTCP,
                MPTCP_FULL_INFO,
                h.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if r != 0 {
            return None;
        }
        parse(&self.head.0, len as usize, &self.sfinfo, &self.tcpinfo)
    }
}

/// A row of `series_mptcp.parquet` (as `vho_sim::agent::mptcp::summary::MptcpSample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SubflowRow {
    pub t_ns: u64,
    /// The subflow's id: its order of first sighting, from 0 (see the module's doc).
    pub subflow: u32,
    pub kernel_id: u32,
    /// Segments (`tcpi_snd_cwnd`) of `snd_mss` bytes.
    pub snd_cwnd: u32,
    pub snd_mss: u32,
    pub rtt_us: u32,
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    /// `tcpi_bytes_received` (what a receiver's subflow got).
    pub bytes_received: u64,
    pub open: bool,
}

/// A subflow's life as the readings saw it.
#[derive(Clone, Debug, Serialize)]
pub struct SubflowLife {
    pub id: u32,
    pub kernel_id: u32,
    pub local: [u8; 4],
    pub remote: [u8; 4],
    /// The first reading that listed it.
    pub opened_ns: u64,
    /// The first reading that no longer listed it, or listed it `TCP_CLOSE`.
    pub closed_ns: Option<u64>,
    /// Its last reading's `tcpi_bytes_sent`, `tcpi_bytes_acked`, `tcpi_total_retrans`.
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub total_retrans: u32,
    #[serde(skip)]
    last: Option<SubflowRow>,
}

/// A connection's readings, as rows and lives.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MptcpTrace {
    pub rows: Vec<SubflowRow>,
    pub subflows: Vec<SubflowLife>,
    /// The last reading's connection-level figures.
    pub bytes_retrans: Option<u64>,
    pub bytes_sent: Option<u64>,
    pub bytes_acked: Option<u64>,
    pub readings: u64,
    /// The readings at which the data level's `mptcpi_rcv_nxt` had moved on since the last:
    /// (instant, `rcv_nxt`). A subflow's row at the same instant with more bytes received
    /// says over which interface data came meanwhile.
    pub progress: Vec<(u64, u64)>,
    #[serde(skip)]
    rcv_nxt: Option<u64>,
}

impl MptcpTrace {
    /// One reading at `t`: a row for each subflow whose state changed (a new one included),
    /// and one `open = false` row for each that is gone or closed since the last.
    pub fn observe(&mut self, t: Time, info: &FullInfo) {
        self.readings += 1;
        if self.rcv_nxt.is_some_and(|r| info.rcv_nxt > r) {
            self.progress.push((t.as_nanos(), info.rcv_nxt));
        }
        self.rcv_nxt = Some(info.rcv_nxt);
        self.bytes_retrans = info.bytes_retrans.or(self.bytes_retrans);
        self.bytes_sent = info.bytes_sent.or(self.bytes_sent);
        self.bytes_acked = info.bytes_acked.or(self.bytes_acked);
        let mut fresh: Vec<&SubflowInfo> = info
            .subflow
            .iter()
            .filter(|s| !self.subflows.iter().any(|l| l.kernel_id == s.kernel_id))
            .collect();
        fresh.sort_by_key(|s| s.kernel_id);
        for s in fresh {
            self.subflows.push(SubflowLife {
                id: self.subflows.len() as u32,
                kernel_id: s.kernel_id,
                local: s.local,
                remote: s.remote,
                opened_ns: t.as_nanos(),
                closed_ns: None,
                bytes_sent: 0,
                bytes_acked: 0,
                total_retrans: 0,
                last: None,
            });
        }
        for life in self.subflows.iter_mut() {
            if life.closed_ns.is_some() {
                continue;
            }
            let now = info.subflow.iter().find(|s| s.kernel_id == life.kernel_id);
            let row = match now {
                Some(s) => {
                    life.bytes_sent = s.bytes_sent;
                    life.bytes_acked = s.bytes_acked;
                    life.total_retrans = s.total_retrans;
                    SubflowRow {
                        t_ns: t.as_nanos(),
                        subflow: life.id,
                        kernel_id: life.kernel_id,
                        snd_cwnd: s.snd_cwnd,
                        snd_mss: s.snd_mss,
                        rtt_us: s.rtt_us,
                        bytes_sent: s.bytes_sent,
                        bytes_acked: s.bytes_acked,
                        bytes_received: s.bytes_received,
                        open: s.state != TCP_CLOSE,
                    }
                }
                // Gone from the kernel's list: closed, its last figures kept.
                None => match life.last {
                    Some(l) => SubflowRow {
                        t_ns: t.as_nanos(),
                        open: false,
                        ..l
                    },
                    None => continue,
                },
            };
            if !row.open {
                life.closed_ns = Some(t.as_nanos());
            }
            let changed = life.last.is_none_or(|l| {
                SubflowRow {
                    t_ns: l.t_ns,
                    ..row
                } != l
            });
            if changed {
                self.rows.push(row);
                life.last = Some(row);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subflow of a hand-built answer: kernel id, local and remote addresses, cwnd, bytes
    /// sent and acknowledged.
    type Hand = (u32, [u8; 4], [u8; 4], u32, u64, u64);
    /// Local and remote addresses.
    type Ends = ([u8; 4], [u8; 4]);

    /// A hand-built `MPTCP_FULL_INFO` answer: head, `mptcp_info`, and per subflow a
    /// `mptcp_subflow_info` and a `tcp_info` at the offsets of include/uapi/linux/mptcp.h and
    /// tcp.h.
    fn answer(subflows: &[Hand]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        let mut head = vec![0u8; FULL_INFO_HEAD + MPTCP_INFO_SIZE];
        head[0..4].copy_from_slice(&232u32.to_ne_bytes()); // size_tcpinfo_kernel
        head[4..8].copy_from_slice(&232u32.to_ne_bytes()); // size_tcpinfo_user (clipped)
        head[8..12].copy_from_slice(&264u32.to_ne_bytes());
        head[12..16].copy_from_slice(&264u32.to_ne_bytes());
        head[16..20].copy_from_slice(&(subflows.len() as u32).to_ne_bytes());
        head[20..24].copy_from_slice(&16u32.to_ne_bytes());
        let mi = FULL_INFO_HEAD;
        head[mi] = subflows.len().saturating_sub(1) as u8;
        head[mi + 24..mi + 32].copy_from_slice(&123_456u64.to_ne_bytes()); // snd_una
                                                                           // rcv_nxt: here the subflows' received bytes summed.
        let rcv: u64 = subflows.iter().map(|s| s.5).sum();
        head[mi + 32..mi + 40].copy_from_slice(&rcv.to_ne_bytes());
        head[mi + 48..mi + 56].copy_from_slice(&2_896u64.to_ne_bytes()); // bytes_retrans
        let (mut sf, mut ti) = (Vec::new(), Vec::new());
        for &(id, local, remote, cwnd, sent, acked) in subflows {
            let mut s = vec![0u8; 264];
            s[0..4].copy_from_slice(&id.to_ne_bytes());
            s[8..10].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
            s[10..12].copy_from_slice(&5001u16.to_be_bytes());
            s[12..16].copy_from_slice(&local);
            s[136..138].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
            s[140..144].copy_from_slice(&remote);
            sf.extend(s);
            let mut t = vec![0u8; 232];
            t[0] = 1; // TCP_ESTABLISHED
            t[16..20].copy_from_slice(&1448u32.to_ne_bytes());
            t[68..72].copy_from_slice(&25_000u32.to_ne_bytes());
            t[80..84].copy_from_slice(&cwnd.to_ne_bytes());
            t[100..104].copy_from_slice(&1u32.to_ne_bytes());
            t[120..128].copy_from_slice(&acked.to_ne_bytes());
            t[128..136].copy_from_slice(&acked.to_ne_bytes()); // bytes_received
            t[200..208].copy_from_slice(&sent.to_ne_bytes());
            ti.extend(t);
        }
        (head, sf, ti)
    }

    #[test]
    fn a_full_info_answer_parses_at_the_uapi_offsets() {
        // include/uapi/linux/mptcp.h: mptcp_full_info, mptcp_info, mptcp_subflow_info;
        // tcp.h: tcp_info (tcpi_rtt 68, tcpi_snd_cwnd 80, tcpi_bytes_acked 120, _sent 200).
        let (h, sf, ti) = answer(&[
            (1, [10, 67, 0, 2], [10, 66, 0, 1], 10, 5_000, 4_000),
            (2, [10, 68, 0, 2], [10, 66, 0, 1], 4, 700, 600),
        ]);
        let info = parse(&h, h.len(), &sf, &ti).expect("a whole head");
        assert_eq!(info.subflows, 1);
        assert_eq!(info.snd_una, 123_456);
        assert_eq!(info.bytes_retrans, Some(2_896));
        assert_eq!(info.subflow.len(), 2);
        let b = info.subflow[1];
        assert_eq!(
            (b.kernel_id, b.local, b.remote),
            (2, [10, 68, 0, 2], [10, 66, 0, 1])
        );
        assert_eq!(
            (b.state, b.snd_mss, b.snd_cwnd, b.rtt_us),
            (1, 1448, 4, 25_000)
        );
        assert_eq!(
            (b.total_retrans, b.bytes_sent, b.bytes_acked),
            (1, 700, 600)
        );
        assert_eq!((b.bytes_received, info.rcv_nxt), (600, 4_600));
    }

    #[test]
    fn an_older_kernels_short_mptcp_info_leaves_the_newer_counters_unknown() {
        // Before Linux 6.9 mptcp_info ended at mptcpi_csum_enabled (43 bytes, 48 padded):
        // the kernel copies only that much and says so in optlen.
        let (h, sf, ti) = answer(&[(1, [10, 67, 0, 2], [10, 66, 0, 1], 10, 5_000, 4_000)]);
        let info = parse(&h, FULL_INFO_HEAD + 48, &sf, &ti).expect("a whole head");
        assert_eq!(info.snd_una, 123_456);
        assert_eq!((info.bytes_retrans, info.bytes_acked), (None, None));
        assert_eq!(info.subflow.len(), 1);
        assert!(parse(&h, 20, &sf, &ti).is_none(), "a head cut short");
    }

    #[test]
    fn ids_follow_first_sighting_and_a_vanished_subflow_closes_once() {
        let mut tr = MptcpTrace::default();
        let wlan = ([10, 67, 0, 2], [10, 66, 0, 1]);
        let gprs = ([10, 68, 0, 2], [10, 66, 0, 1]);
        let read = |s: &[(u32, Ends, u64)]| {
            let rows: Vec<_> = s
                .iter()
                .map(|&(k, (l, r), a)| (k, l, r, 10, a, a))
                .collect();
            let (h, sf, ti) = answer(&rows);
            parse(&h, h.len(), &sf, &ti).expect("a whole head")
        };
        tr.observe(Time::from_millis(10), &read(&[(1, wlan, 100)]));
        tr.observe(Time::from_millis(20), &read(&[(1, wlan, 100)])); // no change: no row
        tr.observe(
            Time::from_millis(30),
            &read(&[(3, gprs, 0), (1, wlan, 200)]),
        );
        tr.observe(Time::from_millis(40), &read(&[(3, gprs, 50)])); // the WLAN's gone
        tr.observe(Time::from_millis(50), &read(&[(3, gprs, 60)]));
        let ids: Vec<_> = tr
            .rows
            .iter()
            .map(|r| (r.t_ns / 1_000_000, r.subflow, r.open))
            .collect();
        assert_eq!(
            ids,
            [
                (10, 0, true),
                (30, 0, true),
                (30, 1, true),
                (40, 0, false),
                (40, 1, true),
                (50, 1, true)
            ]
        );
        // The kernel's id 3 (a failed join took 2) is the second subflow seen: id 1.
        assert_eq!(tr.subflows[1].kernel_id, 3);
        assert_eq!(tr.subflows[0].closed_ns, Some(40_000_000));
        assert_eq!(
            (tr.subflows[0].bytes_acked, tr.subflows[1].bytes_acked),
            (200, 60)
        );
        assert_eq!(
            tr.rows[3].bytes_acked, 200,
            "the closing row keeps its last figures"
        );
        assert_eq!(tr.bytes_retrans, Some(2_896));
        // The data level's progress: the readings at which rcv_nxt had moved on since the
        // reading before (the first is where it starts; here it is the subflows' sum, which
        // falls at 40 ms when the WLAN's goes).
        assert_eq!(tr.progress, [(30_000_000, 200), (50_000_000, 60)]);
    }
}
