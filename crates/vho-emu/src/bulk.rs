//! The built-in traffic: a bulk sender and receiver over real sockets, one pair per scenario
//! flow, each on a thread inside its host's namespace. The sender sets its congestion control
//! per socket (`TCP_CONGESTION`, tcp(7)) and its MSS (`TCP_MAXSEG`), and samples the kernel's
//! own state (`TCP_INFO`) as it goes.
//!
//! Over single-path TCP the receiver connects to the listening sender at the flow's start, as
//! in `vho run` (the simulated sender is the passive side): the first window leaves one round
//! trip after the start in both. With Multipath TCP (RFC 8684, `IPPROTO_MPTCP`, Linux's
//! `net/mptcp/`) the mobile host is the client whichever way the data flows, as a phone is: its
//! path manager opens a subflow over each of its interfaces (`ip mptcp endpoint ...
//! subflow`).

use crate::clock::WallClock;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vho_sim::time::{Dur, Time};

/// One flow as the threads need it.
#[derive(Clone)]
pub struct BulkFlow {
    pub src_ns: PathBuf,
    pub dst_ns: PathBuf,
    pub src_addr: [u8; 4],
    pub dst_addr: [u8; 4],
    /// Multipath TCP sockets (`IPPROTO_MPTCP`).
    pub mptcp: bool,
    /// The receiver connects to the listening sender (else the sender to the receiver).
    pub receiver_connects: bool,
    pub port: u16,
    pub bytes: u64,
    pub start: Time,
    pub cc: String,
    pub mss: u32,
}

/// One `TCP_INFO` reading (tcp(7); the units are the kernel's: µs, segments).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct TcpInfoSample {
    pub t_ns: u64,
    pub ca_state: u8,
    pub retransmits: u8,
    pub backoff: u8,
    pub rto_us: u32,
    pub snd_mss: u32,
    pub unacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub rtt_us: u32,
    pub rttvar_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    /// The reordering degree the sender assumes (`tp->reordering`; 3 until reordering is
    /// seen, raised by `tcp_check_sack_reordering` and D-SACK undo).
    pub reordering: u32,
}

#[derive(Debug, Default, serde::Serialize)]
pub struct SenderResult {
    pub connected_at_ns: Option<u64>,
    pub sent_bytes: u64,
    pub samples: Vec<TcpInfoSample>,
    pub error: Option<String>,
}

#[derive(Debug, Default, serde::Serialize)]
pub struct ReceiverResult {
    pub received_bytes: u64,
    pub completed_at_ns: Option<u64>,
    pub error: Option<String>,
}

/// Poll step of both ends: how often a blocked end looks at the finish flag. Open: our
/// choice (short against any run, long against a syscall).
const STEP_MS: i32 = 5;

fn poll_one(fd: i32, events: i16, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: polling one descriptor we own.
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

fn tcp_info(fd: i32, t: Time) -> Option<TcpInfoSample> {
    // SAFETY: tcp_info is plain data; getsockopt fills at most `len` bytes of it.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(TcpInfoSample {
        t_ns: t.as_nanos(),
        ca_state: info.tcpi_ca_state,
        retransmits: info.tcpi_retransmits,
        backoff: info.tcpi_backoff,
        rto_us: info.tcpi_rto,
        snd_mss: info.tcpi_snd_mss,
        unacked: info.tcpi_unacked,
        lost: info.tcpi_lost,
        retrans: info.tcpi_retrans,
        rtt_us: info.tcpi_rtt,
        rttvar_us: info.tcpi_rttvar,
        snd_ssthresh: info.tcpi_snd_ssthresh,
        snd_cwnd: info.tcpi_snd_cwnd,
        total_retrans: info.tcpi_total_retrans,
        reordering: info.tcpi_reordering,
    })
}

fn set_opt(fd: i32, level: i32, name: i32, value: &[u8]) -> std::io::Result<()> {
    // SAFETY: setsockopt reads `value.len()` bytes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value.as_ptr().cast(),
            value.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `IPPROTO_MPTCP` (linux/in.h).
const IPPROTO_MPTCP: i32 = 262;

fn new_socket(mptcp: bool) -> std::io::Result<i32> {
    let proto = if mptcp { IPPROTO_MPTCP } else { 0 };
    // SAFETY: a new socket; the caller takes ownership.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, proto) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd)
}

/// Bytes written and not yet acknowledged (`SIOCOUTQ`, tcp(7); Multipath TCP's since Linux 6.7).
fn queued_bytes(fd: i32) -> Option<i32> {
    let mut n: libc::c_int = 0;
    // SAFETY: SIOCOUTQ (TIOCOUTQ) writes one int.
    let r = unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut n) };
    (r == 0).then_some(n)
}

/// Sets the socket's congestion control (`TCP_CONGESTION`, tcp(7)); a no-op when it has it.
fn set_cc(fd: i32, cc: &str) -> std::io::Result<()> {
    set_opt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_bytes())
        .map_err(|e| std::io::Error::new(e.kind(), format!("congestion control {cc:?}: {e}")))
}

fn sockaddr(addr: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(addr),
        },
        sin_zero: [0; 8],
    }
}

/// Listens at `addr:port` in the namespace at `ns` (says so on `ready`), accepts one
/// connection; `None` if `finish` is raised first. With `cc` the listener has that congestion
/// control, which the connection inherits from its first segment (`tcp_ca_openreq_child`).
/// The listener comes back with it: Multipath TCP's further subflows (MP_JOIN SYNs) arrive at
/// the listening socket, so it must live as long as the connection.
fn serve(
    ns: &std::path::Path,
    addr: [u8; 4],
    port: u16,
    mptcp: bool,
    cc: Option<&str>,
    ready: &std::sync::mpsc::Sender<std::io::Result<()>>,
    finish: &AtomicBool,
) -> std::io::Result<Option<(TcpStream, TcpListener)>> {
    crate::netns::enter(ns)?;
    let fd = new_socket(mptcp)?;
    // SAFETY: `fd` is ours; the listener closes it.
    let listener = unsafe { TcpListener::from_raw_fd(fd) };
    set_opt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_REUSEADDR,
        &1i32.to_ne_bytes(),
    )?;
    if let Some(cc) = cc {
        set_cc(fd, cc)?;
    }
    let sa = sockaddr(addr, port);
    // SAFETY: bind with a sockaddr_in of its size.
    let r = unsafe {
        libc::bind(
            fd,
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    // SAFETY: listen on a bound socket.
    if r != 0 || unsafe { libc::listen(fd, 4) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let _ = ready.send(Ok(()));
    while !poll_one(listener.as_raw_fd(), libc::POLLIN, STEP_MS) {
        if finish.load(Ordering::Relaxed) {
            return Ok(None);
        }
    }
    let (stream, _) = listener.accept()?;
    Ok(Some((stream, listener)))
}

/// Connects from the namespace at `ns` to `addr:port` once the clock reads `start`, with the
/// congestion control and MSS set first; `None` if `finish` is raised first.
fn dial(
    ns: &std::path::Path,
    flow: &BulkFlow,
    addr: [u8; 4],
    clock: WallClock,
    finish: &AtomicBool,
) -> std::io::Result<Option<TcpStream>> {
    crate::netns::enter(ns)?;
    while clock.now() < flow.start {
        if finish.load(Ordering::Relaxed) {
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let fd = new_socket(flow.mptcp)?;
    // SAFETY: `fd` is ours; the stream closes it.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    set_opt(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_MAXSEG,
        &(flow.mss as i32).to_ne_bytes(),
    )?;
    if !flow.mptcp {
        set_cc(fd, &flow.cc)?; // before the SYN, as on a listener (see `serve`)
    }
    let sa = sockaddr(addr, flow.port);
    // Non-blocking, so that a connection that never completes (a path down) gives way to
    // `finish`.
    stream.set_nonblocking(true)?;
    // SAFETY: connect with a sockaddr_in of its size.
    let r = unsafe {
        libc::connect(
            fd,
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
        while !poll_one(fd, libc::POLLOUT, STEP_MS) {
            if finish.load(Ordering::Relaxed) {
                return Ok(None);
            }
        }
        if let Some(e) = stream.take_error()? {
            return Err(e);
        }
    }
    stream.set_nonblocking(false)?;
    Ok(Some(stream))
}

/// The receiving end: serves (or, with `receiver_connects`, dials) and reads until the
/// sender closes or `finish` is raised.
pub fn receiver(
    flow: BulkFlow,
    clock: WallClock,
    ready: std::sync::mpsc::Sender<std::io::Result<()>>,
    finish: Arc<AtomicBool>,
) -> ReceiverResult {
    let mut res = ReceiverResult::default();
    let mut run = || -> std::io::Result<()> {
        let conn = if flow.receiver_connects {
            let _ = ready.send(Ok(()));
            dial(&flow.dst_ns, &flow, flow.src_addr, clock, &finish)?.map(|c| (c, None))
        } else {
            serve(
                &flow.dst_ns,
                flow.dst_addr,
                flow.port,
                flow.mptcp,
                None,
                &ready,
                &finish,
            )?
            .map(|(c, l)| (c, Some(l)))
        };
        let Some((mut conn, _listener)) = conn else {
            return Ok(());
        };
        let mut buf = vec![0u8; 1 << 16];
        loop {
            if !poll_one(conn.as_raw_fd(), libc::POLLIN, STEP_MS) {
                if finish.load(Ordering::Relaxed) {
                    return Ok(());
                }
                continue;
            }
            let n = conn.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            res.received_bytes += n as u64;
            if res.completed_at_ns.is_none() && res.received_bytes >= flow.bytes {
                res.completed_at_ns = Some(clock.now().as_nanos());
            }
        }
    };
    if let Err(e) = run() {
        let _ = ready.send(Err(std::io::Error::new(e.kind(), e.to_string())));
        res.error = Some(e.to_string());
    }
    res
}

/// The sending end: dials at its start time (or, with `receiver_connects`, serves) and writes
/// `bytes`, sampling `TCP_INFO` every `sample`; then closes its side and keeps sampling until
/// the receiver closes. `ready` says when it listens (when it serves).
pub fn sender(
    flow: BulkFlow,
    clock: WallClock,
    sample: Dur,
    ready: std::sync::mpsc::Sender<std::io::Result<()>>,
    finish: Arc<AtomicBool>,
) -> SenderResult {
    let mut res = SenderResult::default();
    let mut run = || -> std::io::Result<()> {
        let stream = if flow.receiver_connects {
            serve(
                &flow.src_ns,
                flow.src_addr,
                flow.port,
                flow.mptcp,
                // An MPTCP listener keeps the default (its subflows take the connection's
                // congestion control when it is set after the accept, below).
                (!flow.mptcp).then_some(flow.cc.as_str()),
                &ready,
                &finish,
            )?
            .map(|(c, l)| (c, Some(l)))
        } else {
            let _ = ready.send(Ok(()));
            dial(&flow.src_ns, &flow, flow.dst_addr, clock, &finish)?.map(|c| (c, None))
        };
        let Some((mut stream, _listener)) = stream else {
            return Ok(());
        };
        let fd = stream.as_raw_fd();
        set_cc(fd, &flow.cc)?;
        res.connected_at_ns = Some(clock.now().as_nanos());
        stream.set_nonblocking(true)?;
        let chunk = vec![0x5au8; 1 << 16];
        let mut next_sample = clock.now();
        let mut closed = false;
        let mut buf = [0u8; 512];
        loop {
            let now = clock.now();
            if now >= next_sample {
                if let Some(s) = tcp_info(fd, now) {
                    res.samples.push(s);
                }
                next_sample = now + sample;
            }
            if finish.load(Ordering::Relaxed) {
                return Ok(());
            }
            if res.sent_bytes < flow.bytes {
                if poll_one(fd, libc::POLLOUT, STEP_MS) {
                    let n = (flow.bytes - res.sent_bytes).min(chunk.len() as u64) as usize;
                    match std::io::Write::write(&mut stream, &chunk[..n]) {
                        Ok(w) => res.sent_bytes += w as u64,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e),
                    }
                }
            } else {
                // Multipath TCP: shut the sending side only once every byte is acknowledged.
                // Linux admits a subflow's join only while the connection is ESTABLISHED
                // (`mptcp_can_accept_new_subflow`), and a shut side is FIN-WAIT-1 at once: a
                // transfer written whole into the socket before the second subflow joined
                // could never move to it (the MPTCP test's GPRS join, refused at its third ACK).
                // A kernel without MPTCP's SIOCOUTQ (before 6.7) shuts at once, as before.
                if !closed && (!flow.mptcp || queued_bytes(fd).is_none_or(|n| n == 0)) {
                    stream.shutdown(std::net::Shutdown::Write)?;
                    closed = true;
                }
                // Until the receiver closes: every byte acknowledged and read.
                if poll_one(fd, libc::POLLIN, STEP_MS) {
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            if let Some(s) = tcp_info(fd, clock.now()) {
                                res.samples.push(s);
                            }
                            return Ok(());
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
    };
    if let Err(e) = run() {
        let _ = ready.send(Err(std::io::Error::new(e.kind(), e.to_string())));
        res.error = Some(e.to_string());
    }
    res
}
