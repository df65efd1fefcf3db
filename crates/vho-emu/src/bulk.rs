//! The built-in traffic: a bulk sender and receiver over real sockets per scenario flow, all of
//! them driven by one thread (`run`) that enters each host's namespace to make its sockets and
//! then polls every socket at once. The sender sets its congestion control per socket
//! (`TCP_CONGESTION`, tcp(7)) and its MSS (`TCP_MAXSEG`), and samples the kernel's own state
//! (`TCP_INFO`) as it goes; over Multipath TCP, each subflow's too (`MPTCP_FULL_INFO`,
//! `crate::mptcp_info`).
//!
//! Over single-path TCP the receiver connects to the listening sender at the flow's start, as
//! in `vho run` (the simulated sender is the passive side): the first window leaves one round
//! trip after the start in both. With Multipath TCP (RFC 8684, `IPPROTO_MPTCP`, Linux's
//! `net/mptcp/`) the mobile host is the client whichever way the data flows, as a phone is: its
//! path manager opens a subflow over each of its interfaces (`ip mptcp endpoint ...
//! subflow`).

use crate::clock::WallClock;
use crate::mptcp_info::{MptcpTrace, Probe};
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
    /// Multipath TCP: the connection's and its subflows' readings (`None` for TCP, or where
    /// the kernel has no `MPTCP_FULL_INFO`).
    pub mptcp: Option<MptcpTrace>,
    pub error: Option<String>,
}

#[derive(Debug, Default, serde::Serialize)]
pub struct ReceiverResult {
    /// Multipath TCP: the receiver's readings of its subflows (as `SenderResult::mptcp`).
    pub mptcp: Option<MptcpTrace>,
    pub received_bytes: u64,
    pub completed_at_ns: Option<u64>,
    pub error: Option<String>,
}

/// The poller's longest wait: how often it looks at the finish flag when nothing happens.
/// Open: our choice (short against any run, long against a syscall).
const STEP: Dur = Dur::from_millis(5);

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

/// The kernel's state of the connection at `fd` at `t`: `TCP_INFO`, and each subflow's.
fn read_kernel(
    samples: &mut Vec<TcpInfoSample>,
    mptcp: &mut Option<(Box<Probe>, MptcpTrace)>,
    fd: i32,
    t: Time,
) {
    if let Some(x) = tcp_info(fd, t) {
        samples.push(x);
    }
    read_mptcp(mptcp, fd, t);
}

/// A Multipath TCP end's reading of its subflows (`MPTCP_FULL_INFO`) at `t`.
fn read_mptcp(mptcp: &mut Option<(Box<Probe>, MptcpTrace)>, fd: i32, t: Time) {
    if let Some((probe, trace)) = mptcp {
        if let Some(info) = probe.read(fd) {
            trace.observe(t, &info);
        }
    }
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

/// One end of a flow as the poller drives it.
struct End {
    /// The data sender (else the receiver).
    sends: bool,
    /// It connects (else it listens and accepts one connection).
    dials: bool,
    ns: PathBuf,
    listener: Option<TcpListener>,
    stream: Option<TcpStream>,
    /// A non-blocking connect under way.
    connecting: bool,
    done: bool,
    /// The sender has shut its side.
    closed: bool,
    next_sample: Time,
    sent: u64,
    received: u64,
    completed_at_ns: Option<u64>,
    connected_at_ns: Option<u64>,
    samples: Vec<TcpInfoSample>,
    /// A Multipath TCP sender's reading buffers and what they read.
    mptcp: Option<(Box<Probe>, MptcpTrace)>,
    error: Option<String>,
}

impl End {
    fn new(sends: bool, dials: bool, ns: PathBuf, mptcp: bool) -> End {
        End {
            sends,
            dials,
            ns,
            listener: None,
            stream: None,
            connecting: false,
            done: false,
            closed: false,
            next_sample: Time::ZERO,
            sent: 0,
            received: 0,
            completed_at_ns: None,
            connected_at_ns: None,
            samples: Vec::new(),
            mptcp: mptcp.then(|| (Box::default(), MptcpTrace::default())),
            error: None,
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        self.error = Some(e.to_string());
        self.done = true;
        self.stream = None;
        self.connecting = false;
    }

    fn fd(&self) -> Option<i32> {
        match (&self.stream, &self.listener) {
            (Some(s), _) => Some(s.as_raw_fd()),
            (None, Some(l)) => Some(l.as_raw_fd()),
            _ => None,
        }
    }
}

/// The network namespaces the poller enters, each opened once.
#[derive(Default)]
struct Namespaces(std::collections::HashMap<PathBuf, std::fs::File>);

impl Namespaces {
    /// Moves the poller's thread into the namespace at `path` (sockets made next are its).
    fn enter(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        if !self.0.contains_key(path) {
            let f = std::fs::File::open(path)?;
            self.0.insert(path.to_path_buf(), f);
        }
        let fd = self.0.get(path).map_or(-1, |f| f.as_raw_fd());
        // SAFETY: setns on a descriptor of a namespace file; affects this thread only.
        if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Every flow's both ends on one thread (named `vho-flows`): the listeners are made first
/// (`ready` gets `Ok` once all listen, or the first flow that could not, with its error), then
/// one `poll(2)` over every socket drives the connections, the transfers and the `TCP_INFO`
/// samples until every end is done or `finish` is raised. Returns each flow's results, in
/// order. Issue 40 item 8: 3,000 flows were 6,000 threads each polling every 5 ms, and the
/// setup never ended.
pub fn run(
    flows: Vec<BulkFlow>,
    clock: WallClock,
    sample: Dur,
    ready: std::sync::mpsc::Sender<Result<(), (usize, std::io::Error)>>,
    finish: Arc<AtomicBool>,
) -> Vec<(ReceiverResult, SenderResult)> {
    let mut ns = Namespaces::default();
    // Per flow: the receiver's end, the sender's.
    let mut ends: Vec<(End, End)> = flows
        .iter()
        .map(|f| {
            (
                End::new(false, f.receiver_connects, f.dst_ns.clone(), f.mptcp),
                End::new(true, !f.receiver_connects, f.src_ns.clone(), f.mptcp),
            )
        })
        .collect();
    for (i, (f, (r, s))) in flows.iter().zip(ends.iter_mut()).enumerate() {
        if finish.load(Ordering::Relaxed) {
            break;
        }
        let (end, addr, cc) = if f.receiver_connects {
            // An MPTCP listener keeps the default (its subflows take the connection's
            // congestion control when it is set after the accept).
            (s, f.src_addr, (!f.mptcp).then_some(f.cc.as_str()))
        } else {
            (r, f.dst_addr, None)
        };
        match listen(&mut ns, &end.ns, addr, f.port, f.mptcp, cc) {
            Ok(l) => end.listener = Some(l),
            Err(e) => {
                let _ = ready.send(Err((i, e)));
                return collect(ends);
            }
        }
    }
    let _ = ready.send(Ok(()));
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut who: Vec<(usize, bool)> = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let chunk = vec![0x5au8; 1 << 16];
    loop {
        if finish.load(Ordering::Relaxed) {
            break;
        }
        let now = clock.now();
        let mut wake = now + STEP;
        fds.clear();
        who.clear();
        for (i, (f, pair)) in flows.iter().zip(ends.iter_mut()).enumerate() {
            for (sends, end) in [(false, &mut pair.0), (true, &mut pair.1)] {
                if end.done {
                    continue;
                }
                if end.dials && end.stream.is_none() {
                    if now < f.start {
                        wake = wake.min(f.start);
                        continue;
                    }
                    let addr = if sends { f.dst_addr } else { f.src_addr };
                    match dial(&mut ns, &end.ns, f, addr) {
                        Ok((s, pending)) => {
                            end.stream = Some(s);
                            end.connecting = pending;
                            if !pending {
                                if let Err(e) = connected(end, f, &clock) {
                                    end.fail(e);
                                    continue;
                                }
                            }
                        }
                        Err(e) => {
                            end.fail(e);
                            continue;
                        }
                    }
                }
                // A Multipath TCP receiver reads its subflows too (what arrived over which
                // interface, `mptcpi_rcv_nxt`): the time to resume and to fail back.
                if !end.sends && end.mptcp.is_some() && !end.connecting {
                    if let Some(fd) = end.stream.as_ref().map(|s| s.as_raw_fd()) {
                        if now >= end.next_sample {
                            read_mptcp(&mut end.mptcp, fd, now);
                            end.next_sample = now + sample;
                        }
                        wake = wake.min(end.next_sample);
                    }
                }
                if end.sends && end.connected_at_ns.is_some() {
                    if let Some(s) = &end.stream {
                        let fd = s.as_raw_fd();
                        if now >= end.next_sample {
                            read_kernel(&mut end.samples, &mut end.mptcp, fd, now);
                            end.next_sample = now + sample;
                        }
                        wake = wake.min(end.next_sample);
                        // Multipath TCP: shut the sending side only once every byte is
                        // acknowledged (a join is admitted only while the connection is
                        // ESTABLISHED, `mptcp_can_accept_new_subflow`); a kernel without
                        // MPTCP's SIOCOUTQ (before 6.7) shuts at once.
                        if end.sent >= f.bytes
                            && !end.closed
                            && (!f.mptcp || queued_bytes(fd).is_none_or(|n| n == 0))
                        {
                            if let Err(e) = s.shutdown(std::net::Shutdown::Write) {
                                end.fail(e);
                                continue;
                            }
                            end.closed = true;
                        }
                    }
                }
                // A connect under way, or a sender with bytes to write: room; else data (or
                // a connection to accept).
                let writing = end.stream.is_some() && end.sends && end.sent < f.bytes;
                let events = if end.connecting || writing {
                    libc::POLLOUT
                } else {
                    libc::POLLIN
                };
                if let Some(fd) = end.fd() {
                    fds.push(libc::pollfd {
                        fd,
                        events,
                        revents: 0,
                    });
                    who.push((i, sends));
                }
            }
        }
        if ends.iter().all(|(r, s)| r.done && s.done) {
            break;
        }
        let wait = wake.saturating_since(clock.now()).min(STEP);
        let ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: wait.as_nanos() as libc::c_long,
        };
        // SAFETY: ppoll over our own array of pollfds, no signal mask change.
        let n = unsafe {
            libc::ppoll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
        if n <= 0 {
            continue;
        }
        for (p, &(i, sends)) in fds.iter().zip(who.iter()) {
            if p.revents == 0 {
                continue;
            }
            let f = &flows[i];
            let end = if sends {
                &mut ends[i].1
            } else {
                &mut ends[i].0
            };
            if let Err(e) = step(end, f, &clock, &mut buf, &chunk) {
                end.fail(e);
            }
        }
    }
    collect(ends)
}

/// What the poller found ready at `end`: an accept, a connection completed, data to read or
/// room to write.
fn step(
    end: &mut End,
    f: &BulkFlow,
    clock: &WallClock,
    buf: &mut [u8],
    chunk: &[u8],
) -> std::io::Result<()> {
    if end.stream.is_none() {
        let Some(l) = &end.listener else {
            return Ok(());
        };
        let (s, _) = match l.accept() {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) => return Err(e),
        };
        s.set_nonblocking(true)?;
        end.stream = Some(s);
        return connected(end, f, clock);
    }
    let Some(s) = &mut end.stream else {
        return Ok(());
    };
    if end.connecting {
        if let Some(e) = s.take_error()? {
            return Err(e);
        }
        end.connecting = false;
        return connected(end, f, clock);
    }
    if end.sends && end.sent < f.bytes {
        let n = (f.bytes - end.sent).min(chunk.len() as u64) as usize;
        // SAFETY: send from our buffer; MSG_NOSIGNAL: a reset peer is an error, not SIGPIPE.
        let w = unsafe {
            libc::send(
                s.as_raw_fd(),
                chunk.as_ptr().cast(),
                n,
                libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
            )
        };
        if w < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::WouldBlock {
                return Err(e);
            }
        } else {
            end.sent += w as u64;
        }
        return Ok(());
    }
    match s.read(buf) {
        Ok(0) => {
            let fd = s.as_raw_fd();
            if end.sends {
                // Every byte acknowledged and read: the last sample.
                read_kernel(&mut end.samples, &mut end.mptcp, fd, clock.now());
            } else {
                // The receiver's last, at the DATA_FIN: what every subflow got.
                read_mptcp(&mut end.mptcp, fd, clock.now());
            }
            end.done = true;
            end.stream = None;
            end.listener = None;
        }
        Ok(n) if !end.sends => {
            end.received += n as u64;
            if end.completed_at_ns.is_none() && end.received >= f.bytes {
                // The receiver's reading with every byte in.
                read_mptcp(&mut end.mptcp, s.as_raw_fd(), clock.now());
            }
            if end.completed_at_ns.is_none() && end.received >= f.bytes {
                end.completed_at_ns = Some(clock.now().as_nanos());
            }
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Err(e) => return Err(e),
    }
    Ok(())
}

/// A connection made (accepted or dialled): the sender sets its congestion control (a no-op
/// when it has it; a Multipath TCP connection's is set here) and starts its clock.
fn connected(end: &mut End, f: &BulkFlow, clock: &WallClock) -> std::io::Result<()> {
    if end.sends {
        if let Some(s) = &end.stream {
            set_cc(s.as_raw_fd(), &f.cc)?;
        }
        let now = clock.now();
        end.connected_at_ns = Some(now.as_nanos());
        end.next_sample = now;
    }
    Ok(())
}

fn collect(ends: Vec<(End, End)>) -> Vec<(ReceiverResult, SenderResult)> {
    ends.into_iter()
        .map(|(r, s)| {
            (
                ReceiverResult {
                    mptcp: r.mptcp.map(|(_, t)| t),
                    received_bytes: r.received,
                    completed_at_ns: r.completed_at_ns,
                    error: r.error,
                },
                SenderResult {
                    connected_at_ns: s.connected_at_ns,
                    sent_bytes: s.sent,
                    samples: s.samples,
                    mptcp: s.mptcp.map(|(_, t)| t),
                    error: s.error,
                },
            )
        })
        .collect()
}

/// A listening socket at `addr:port` in the namespace at `path`, non-blocking; with `cc`, that
/// congestion control, which an accepted connection inherits from its first segment
/// (`tcp_ca_openreq_child`). It lives as long as its connection: Multipath TCP's further
/// subflows (MP_JOIN SYNs) arrive at it.
fn listen(
    ns: &mut Namespaces,
    path: &std::path::Path,
    addr: [u8; 4],
    port: u16,
    mptcp: bool,
    cc: Option<&str>,
) -> std::io::Result<TcpListener> {
    ns.enter(path)?;
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
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// A non-blocking connect from the namespace at `path` to `addr:flow.port`, with the MSS and
/// (single-path) the congestion control set before the SYN; whether it is still under way.
fn dial(
    ns: &mut Namespaces,
    path: &std::path::Path,
    flow: &BulkFlow,
    addr: [u8; 4],
) -> std::io::Result<(TcpStream, bool)> {
    ns.enter(path)?;
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
        set_cc(fd, &flow.cc)?; // before the SYN, as on a listener
    }
    stream.set_nonblocking(true)?;
    let sa = sockaddr(addr, flow.port);
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
        return Ok((stream, true));
    }
    Ok((stream, false))
}
