//! One emulation: a namespace and a TUN device per host of the scenario, the world built from
//! the same scenario carrying their real packets between them with the wall clock, and the
//! traffic (the built-in bulk flows, or the user's command).
//!
//! The loop, on one thread: bring the world up to the present (`World::run_until`), hand the
//! hosts what reached them, read what they sent (one packet per device) and inject it at the
//! instant it was read; when nothing was read, wait for the next event or the next packet.
//! Every packet is written to its host's pcap as the host sends or receives it (the file's
//! clock is the run's: zero when it began). The devices' I/O is `pump`'s.

use crate::bulk::{self, BulkFlow, ReceiverResult, SenderResult};
use crate::capture::OffThread;
use crate::clock::{WallClock, DEFAULT_SPIN};
use crate::error::EmuError;
use crate::netns::Namespace;
use crate::pump::{Deliver, Ledger, Take};
use crate::report::{FlowReport, Report};
use crate::tun::Tun;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vho_sim::record::pcap::{CaptureSink, PcapWriter, WriteSink};
use vho_sim::spec::{NodeKind, Spec};
use vho_sim::time::{Dur, Time};
use vho_sim::world::World;

/// How the emulation runs besides its scenario.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where the hosts' captures are written (`NODE.pcap`).
    pub out_dir: PathBuf,
    /// Congestion control of the built-in bulk senders (`TCP_CONGESTION`: reno, cubic, bbr)
    /// and every namespace's default (`net.ipv4.tcp_congestion_control`) where the kernel
    /// allows it, else reno.
    pub cc: String,
    /// Instead of the built-in flows, this command runs in `command_at`'s namespace, and the
    /// run ends when it exits.
    pub command: Option<Vec<String>>,
    pub command_at: Option<String>,
    /// A command started first in `serve_at`'s namespace (a server for `command`), killed at
    /// the end.
    pub serve: Option<Vec<String>>,
    pub serve_at: Option<String>,
    /// Sysctls set in every host's namespace (`net/ipv4/tcp_sack` = "1", ...).
    pub sysctls: Vec<(String, String)>,
    /// See [`crate::clock`].
    pub spin: Dur,
    /// How often the bulk senders read `TCP_INFO`.
    pub sample: Dur,
    /// The TUN devices' MTU (bytes): 1500, Ethernet's.
    pub mtu: u32,
    /// Multipath: the mobile host gets one device and one address per access link, every
    /// link up until a handover takes it down, and the built-in flows are Multipath TCP with
    /// a subflow per interface (the mobile as the client).
    pub multipath: bool,
    /// Segmentation offloads at the devices ([`crate::gso`], [`crate::gro`]): a host's TCP
    /// sends are read whole and cut here, and the segments a host has due at once enter its
    /// stack as one packet. Off: one read and one write per packet.
    pub offload: bool,
    /// The scenario names the hosts to capture (`record.pcap`, even empty): only those are;
    /// else every host is.
    pub pcap_given: bool,
}

impl Options {
    pub fn new(out_dir: PathBuf) -> Options {
        Options {
            out_dir,
            cc: "cubic".into(),
            command: None,
            command_at: None,
            serve: None,
            serve_at: None,
            sysctls: Vec::new(),
            spin: DEFAULT_SPIN,
            // 10 ms: tcp_info changes at most once per ACK; a GPRS round trip is ~1 s, a WLAN
            // one a few ms.
            sample: Dur::from_millis(10),
            mtu: 1500,
            multipath: false,
            // On, as a Linux host's NIC has TSO and GRO on by default (ethtool -k): the kernel
            // hands its devices whole GSO packets either way (dev->features' NETIF_F_GSO).
            offload: true,
            pcap_given: false,
        }
    }
}

/// Address of host node `n` inside the emulation: 10.66.x.y/16, the same in every namespace
/// (each namespace is its own network: no run's addresses meet another's).
pub fn host_addr(n: usize) -> [u8; 4] {
    let k = n + 1;
    [10, 66, (k >> 8) as u8, (k & 0xff) as u8]
}

/// Address of multipath host `n`'s interface on access link `link`: 10.(67 + link).x.y, its
/// own /16 per link.
pub fn iface_addr(n: usize, link: usize) -> [u8; 4] {
    let k = n + 1;
    [10, 67 + link as u8, (k >> 8) as u8, (k & 0xff) as u8]
}

/// The links an interface address can name (10.67/16 up to 10.166/16).
pub const MAX_MULTIPATH_LINKS: usize = 100;

/// The host an address names, and the access link when it is a multipath interface's.
pub(crate) fn node_of(addr: &[u8]) -> Option<(usize, Option<usize>)> {
    if addr[0] != 10 || addr[1] < 66 || addr[1] as usize >= 67 + MAX_MULTIPATH_LINKS {
        return None;
    }
    let node = ((addr[2] as usize) << 8 | addr[3] as usize).checked_sub(1)?;
    let link = (addr[1] > 66).then(|| addr[1] as usize - 67);
    Some((node, link))
}

fn dotted(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// The receiver's port of flow `f` (ports as `vho run`'s captures have them).
pub fn flow_port(f: usize) -> u16 {
    5001 + f as u16
}

/// A node's or link's name as part of an environment variable's: upper case, every character
/// but an ASCII letter or digit mapped to `_` (a shell variable's name is letters, digits and
/// `_`: `m-1.a` gives `VHO_M_1_A_ADDR`).
pub fn env_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Interface names for a multipath mobile's access links, in order: the link's name where it
/// is a valid one (at most 15 bytes, IFNAMSIZ less its NUL; none of `/`, `:`, white space; not
/// `.` or `..`; netdevice(7), `dev_valid_name`), else with every other character mapped to `_`
/// and cut to 15; `vhoN` where that leaves two alike (or the loopback's or the single-path
/// device's name).
pub fn interface_names(links: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = links
        .iter()
        .map(|l| {
            l.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .take(15)
                .collect()
        })
        .collect();
    let cut = names.clone();
    for (i, name) in names.iter_mut().enumerate() {
        let alike = cut.iter().filter(|&c| c == name).count() > 1;
        if alike || matches!(name.as_str(), "" | "." | ".." | "lo" | TUN_NAME) {
            *name = format!("vho{i}");
        }
    }
    names
}

/// The device name inside each host's namespace.
pub const TUN_NAME: &str = "vho0";

/// A host's capture: written to its file by a thread of its own, or none where the scenario's
/// `record.pcap` leaves the host out.
pub(crate) struct FileSink(Option<WriteSink<OffThread>>);

impl CaptureSink for FileSink {
    fn write_bytes(&mut self, bytes: &[u8]) {
        if let Some(s) = &mut self.0 {
            s.write_bytes(bytes);
        }
    }
}

impl FileSink {
    fn waited(&self) -> std::time::Duration {
        self.0
            .as_ref()
            .map_or(std::time::Duration::ZERO, |s| s.get_ref().waited())
    }

    /// Whether a write to the file failed (a full disk).
    fn failed(&self) -> bool {
        self.0.as_ref().is_some_and(|s| s.get_ref().failed())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.0.as_mut().map_or(Ok(()), |s| s.finish())
    }
}

/// A host's device: the TUN, the access link it stands for (a multipath mobile's), its
/// address.
pub(crate) type Device = (Tun, Option<usize>, [u8; 4]);

pub(crate) struct Host {
    pub(crate) node: usize,
    ns: Namespace,
    /// One device, or with multipath at the mobile one per access link.
    pub(crate) tuns: Vec<Device>,
    pub(crate) pcap: PcapWriter<FileSink>,
}

impl Host {
    /// The device a packet to `dst` enters by: the interface owning the address.
    pub(crate) fn dev_for(&self, dst: &[u8]) -> usize {
        self.tuns
            .iter()
            .position(|t| dst.len() >= 4 && t.2 == dst[..4])
            .unwrap_or(0)
    }

    /// Its address as a flow's end: the first device's.
    fn addr(&self) -> [u8; 4] {
        self.tuns[0].2
    }
}

/// Raises its flag when dropped.
struct RaiseOnDrop(Arc<AtomicBool>);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What the emulator refuses, before it makes anything.
pub fn check(spec: &Spec) -> Result<(), EmuError> {
    if spec.mipv6.is_some() {
        return Err(EmuError::Unsupported(
            "vho emulate does not carry [mipv6] scenarios yet: its signalling runs in the \
             simulated mobile node, not in the real host"
                .into(),
        ));
    }
    // What a flow asks that the kernel's TCP would not do: refused, not run as something else.
    for f in &spec.flows {
        // An MPTCP flow is the kernel's Multipath TCP (`--multipath`), its endpoints and the
        // correspondent's limit as the scenario sets them (`mptcp_config`).
        let mptcp = matches!(f.kind, vho_sim::spec::FlowKind::Mptcp(_));
        if f.kind != vho_sim::spec::FlowKind::Tcp && !mptcp {
            return Err(EmuError::Unsupported(format!(
                "flow {}: kind = {:?}: vho emulate carries TCP flows only (the kernel's bulk \
                 transfers); a {} flow would run as a TCP transfer",
                f.name,
                f.kind.name(),
                f.kind.name().to_uppercase()
            )));
        }
        if !f.remedies.is_empty() {
            return Err(EmuError::Unsupported(format!(
                "flow {}: remedies: vho emulate carries no remedies (they act on the simulated \
                 TCP and nodes, not the kernel's); remove them",
                f.name
            )));
        }
    }
    if !spec.functions.is_empty() {
        return Err(EmuError::Unsupported(
            "vho emulate carries no node functions ([[node_function]] and the remedies that add \
             them act on simulated TCP segments)"
                .into(),
        ));
    }
    if let Some(&r) = spec
        .record
        .pcap_at
        .iter()
        .find(|&&n| spec.nodes[n].kind == NodeKind::Router)
    {
        return Err(EmuError::Unsupported(format!(
            "record.pcap: {} is a router; vho emulate captures its hosts only",
            spec.nodes[r].name
        )));
    }
    if spec.nodes.len() >= 65_000 {
        return Err(EmuError::Unsupported("too many nodes to address".into()));
    }
    Ok(())
}

/// What the emulator refuses of its options, before it makes anything: a sysctl that is not a
/// network namespace's own (`net/...`): `kernel/`, `vm/`, `fs/` keys are the whole machine's,
/// which a run would change and never restore.
pub fn check_options(opts: &Options) -> Result<(), EmuError> {
    for (key, _) in &opts.sysctls {
        if !namespace_sysctl(key) {
            return Err(EmuError::Unsupported(format!(
                "--sysctl {}: expected a per-namespace net.* key (net.ipv4.tcp_frto); other keys \
                 (kernel.*, vm.*, fs.*) change the whole machine",
                key.replace('/', ".")
            )));
        }
    }
    Ok(())
}

/// Whether `key` (a `/proc/sys` path, slashes) is a network namespace's: under `net/`, every
/// component a name (no `..`, no empty one).
pub fn namespace_sysctl(key: &str) -> bool {
    let mut parts = key.split('/');
    parts.next() == Some("net")
        && key.len() > 4
        && parts.all(|p| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
        })
}

/// Runs the emulation of `spec` until its flows complete (or the command exits), its stop
/// time passes, or `stop` is raised (then [`EmuError::Interrupted`], after removing
/// everything). Every namespace, device and child process it made is removed on return.
pub fn emulate(spec: &Spec, opts: &Options, stop: &AtomicBool) -> Result<Report, EmuError> {
    check(spec)?;
    check_options(opts)?;
    if let (false, Some(f)) = (
        opts.multipath,
        spec.flows
            .iter()
            .find(|f| matches!(f.kind, vho_sim::spec::FlowKind::Mptcp(_))),
    ) {
        return Err(EmuError::Unsupported(format!(
            "flow {}: kind = \"mptcp\" runs on the kernel's Multipath TCP: give --multipath",
            f.name
        )));
    }
    if !crate::netns::permitted() {
        return Err(EmuError::NotPermitted);
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    let token = crate::netns::run_token();
    let mut hosts: Vec<Host> = Vec::new();
    let mut appear: Vec<Appear> = Vec::new();
    let mut adding: Vec<Adding> = Vec::new();
    for (n, node) in spec.nodes.iter().enumerate() {
        if node.kind == NodeKind::Router {
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return Err(EmuError::Interrupted); // what was made is removed on the way out
        }
        let ns = Namespace::create(&crate::netns::run_name(pid, token, &node.name))?;
        // IPv6 off: the emulated network carries IPv4; a kernel's own IPv6 chatter (router
        // solicitations, MLD) would only be counted as unroutable.
        ns.sysctl("net/ipv6/conf/all/disable_ipv6", "1")?;
        ns.sysctl("net/ipv6/conf/default/disable_ipv6", "1")?;
        // A socket born with one congestion control and switched by TCP_CONGESTION keeps
        // what the first set up: born with BBR (a new namespace takes the machine's default,
        // here bbr), `bbr_init` sets `sk_pacing_status` to SK_PACING_NEEDED, which no switch
        // undoes, and the socket paces internally (`tcp_needs_internal_pacing`) as reno or
        // cubic never do. So the namespace's default is the run's congestion control, which
        // commands' sockets get too; a namespace may only have one of the machine's
        // `tcp_allowed_congestion_control` (EPERM otherwise: here reno and bbr, not cubic),
        // and reno, which sets up nothing, stands in; the bulk flows set theirs per socket
        // before the handshake.
        if ns
            .sysctl("net/ipv4/tcp_congestion_control", &opts.cc)
            .is_err()
        {
            ns.sysctl("net/ipv4/tcp_congestion_control", "reno")?;
        }
        for (k, v) in &opts.sysctls {
            ns.sysctl(k, v)?;
        }
        let multi = spec
            .mobiles
            .iter()
            .find(|m| m.node == n && opts.multipath)
            .map(multipath_order);
        let tuns = match multi {
            None => {
                let a = host_addr(n);
                let tun = Tun::create(
                    &ns,
                    TUN_NAME,
                    &format!("{}/16", dotted(a)),
                    opts.mtu,
                    opts.offload,
                )?;
                if opts.multipath {
                    // The mobile's interface addresses are in other /16s; the mobile's
                    // subflows are accepted (the default limit of extra subflows may be 0 or
                    // 2 depending on the kernel: ip-mptcp(8)).
                    ns.ip(&["route", "add", "10.0.0.0/8", "dev", TUN_NAME])?;
                    let accept = mptcp_config(spec, n)
                        .unwrap_or_default()
                        .add_addr_accepted
                        .to_string();
                    ns.ip(&correspondent_limits(&accept))?;
                }
                vec![(tun, None, a)]
            }
            Some(links) => {
                let (devs, later) = multipath_interfaces(spec, &ns, n, &links, opts)?;
                appear.extend(later);
                devs
            }
        };
        // Every host, unless the scenario names the ones to capture (`record.pcap`).
        let sink = if opts.pcap_given && !spec.record.pcap_at.contains(&n) {
            FileSink(None)
        } else {
            let path = opts.out_dir.join(format!("{}.pcap", node.name));
            let writer = OffThread::create(&path).map_err(|e| {
                EmuError::io(format!("{}: cannot create capture", path.display()), e)
            })?;
            FileSink(Some(WriteSink::new(writer)))
        };
        let pcap = PcapWriter::with_snaplen(sink, spec.record.snaplen);
        hosts.push(Host {
            node: n,
            ns,
            tuns,
            pcap,
        });
    }
    appear.sort_by_key(|x| x.at);
    // The world keeps the flows (they size the `bdp` queues, as in `vho run`) but never starts
    // them: the kernel's sockets are the endpoints.
    let mut world_spec = spec.clone();
    world_spec.record = Default::default();
    let mut world = World::new(&world_spec).map_err(|e| EmuError::Model(e.to_string()))?;
    if opts.multipath {
        world.multihome();
    }
    let host_of = |node: usize, hosts: &[Host]| hosts.iter().position(|h| h.node == node);

    let clock = WallClock::start();
    let finish = Arc::new(AtomicBool::new(false));
    // However the run ends (an error returns early too), the traffic threads stop.
    let _stop_threads = RaiseOnDrop(finish.clone());
    let mut children = Vec::new();
    let mut poller: Option<std::thread::JoinHandle<Vec<(ReceiverResult, SenderResult)>>> = None;
    let by_name = |name: &Option<String>, default: usize| -> Result<usize, EmuError> {
        match name {
            None => Ok(default),
            Some(n) => hosts
                .iter()
                .position(|h| spec.nodes[h.node].name == *n)
                .ok_or_else(|| EmuError::Unsupported(format!("no host named {n} in the scenario"))),
        }
    };
    let mobile = spec
        .mobiles
        .first()
        .and_then(|m| host_of(m.node, &hosts))
        .unwrap_or(0);
    let fixed = hosts
        .iter()
        .position(|h| spec.nodes[h.node].kind == NodeKind::Host)
        .unwrap_or(0);
    let mut env: Vec<(String, String)> = Vec::new();
    for h in &hosts {
        let name = env_part(&spec.nodes[h.node].name);
        env.push((format!("VHO_{name}_ADDR"), dotted(h.addr())));
        for (_, link, a) in &h.tuns {
            if let Some(l) = link {
                env.push((
                    format!("VHO_{name}_{}_ADDR", env_part(&spec.links[*l].name)),
                    dotted(*a),
                ));
            }
        }
    }
    if let Some(cmd) = &opts.serve {
        let at = by_name(&opts.serve_at, fixed)?;
        children.push(crate::child::spawn(
            &hosts[at].ns,
            cmd,
            &env,
            &opts.out_dir.join("serve.log"),
        )?);
    }
    let command = match &opts.command {
        Some(cmd) => {
            let at = by_name(&opts.command_at, mobile)?;
            if opts.serve.is_some() {
                // A server's socket must be listening before the client starts.
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            Some(crate::child::spawn(
                &hosts[at].ns,
                cmd,
                &env,
                &opts.out_dir.join("command.log"),
            )?)
        }
        None => {
            let mut bulk = Vec::with_capacity(spec.flows.len());
            for (f, fs) in spec.flows.iter().enumerate() {
                let (Some(s), Some(d)) = (host_of(fs.src, &hosts), host_of(fs.dst, &hosts)) else {
                    return Err(EmuError::Unsupported(format!(
                        "flow {}: both ends must be hosts",
                        fs.name
                    )));
                };
                let mobile_receives = spec.mobiles.iter().any(|m| m.node == fs.dst);
                bulk.push(BulkFlow {
                    src_ns: hosts[s].ns.path(),
                    dst_ns: hosts[d].ns.path(),
                    src_addr: hosts[s].addr(),
                    dst_addr: hosts[d].addr(),
                    mptcp: opts.multipath,
                    // Single-path: the receiver opens the connection, as `vho run`'s TCP
                    // does (its sender is the passive side), so both sides' first windows
                    // leave at the same point of the scenario. Multipath: the mobile host,
                    // whose path manager opens the subflows.
                    receiver_connects: !opts.multipath || mobile_receives,
                    port: flow_port(f),
                    bytes: fs.bytes,
                    start: fs.start,
                    cc: opts.cc.clone(),
                    // TCP_MAXSEG is the MSS without options (tcp(7)); the scenario's is the
                    // payload per segment, 12 bytes less with timestamps (RFC 7323 §3: the
                    // option, padded), as Linux's 1448 on a 1500-byte MTU.
                    mss: fs.tcp.mss + if fs.tcp.timestamps { 12 } else { 0 },
                });
            }
            // One thread for every flow's both ends (issue 40 item 8: two a flow, each polling,
            // were 6,000 threads for 3,000 flows). Its listeners are made first; the run waits
            // for them, and a signal stops the wait.
            let (tx, rx) = std::sync::mpsc::channel();
            let (fin, sample) = (finish.clone(), opts.sample);
            let handle = std::thread::Builder::new()
                .name("vho-flows".into())
                .spawn(move || bulk::run(bulk, clock, sample, tx, fin))
                .map_err(|e| EmuError::io("starting the flows' thread", e))?;
            loop {
                use std::sync::mpsc::RecvTimeoutError;
                match rx.recv_timeout(std::time::Duration::from_millis(5)) {
                    Ok(Ok(())) => break,
                    Ok(Err((f, e))) => {
                        return Err(EmuError::io(format!("flow {}", spec.flows[f].name), e))
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if stop.load(Ordering::Relaxed) {
                            return Err(EmuError::Interrupted);
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(EmuError::Model("the flows' thread stopped".into()))
                    }
                }
            }
            poller = Some(handle);
            None
        }
    };

    WallClock::tighten();
    let mut cpu0 = thread_cpu();
    let wall0 = clock.now();
    world.start_external();
    let mut led = Ledger::default();
    let mut deliver = Deliver::new(&hosts);
    let mut take = Take::default();
    let host_index: Vec<Option<usize>> =
        (0..spec.nodes.len()).map(|n| host_of(n, &hosts)).collect();
    let mut fds: Vec<libc::pollfd> = hosts
        .iter()
        .flat_map(|h| h.tuns.iter())
        .map(|t| libc::pollfd {
            fd: t.0.raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let mut command = command;
    let mut exit_code = None;
    let stop_at = spec.stop_at;
    let mut interrupted = false;
    let mut last_deadline: Option<Time> = None;
    let mut spun = Dur::ZERO;
    let outcome: Result<(), EmuError> = loop {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break Ok(());
        }
        let now = clock.now();
        if now >= stop_at {
            break Ok(());
        }
        if let Some(d) = last_deadline.take() {
            led.acc.wakeup.push(now.saturating_since(d));
        }
        if let Err(e) = world.run_until(now) {
            break Err(EmuError::Model(e.to_string()));
        }
        add_due_endpoints(&mut appear, world.now(), &mut adding);
        // What reached the hosts: into their stacks.
        if let Some(out) = world.take_external() {
            deliver.deliver(out, &mut hosts, |n| host_index[n], &mut led, &clock)?;
        }
        // What the hosts sent: into the world, at the instant it was read. One read per
        // device, then the next turn (what came due is delivered between reads).
        let more = take.take(&mut hosts, &mut world, &mut led, &clock, spec.nodes.len())?;
        led.em.max_in_flight = led.em.max_in_flight.max(led.store.live() as u64);
        // A capture that cannot be written (a full disk): stop now, keep what was written.
        if hosts.iter_mut().any(|h| h.pcap.sink_mut().failed()) {
            break Ok(());
        }
        // Done?
        if let Some(child) = &mut command {
            if let Some(code) = child.try_wait() {
                exit_code = Some(code);
                break Ok(());
            }
        } else if poller.as_ref().is_none_or(|p| p.is_finished()) {
            break Ok(());
        }
        if more {
            continue;
        }
        let next = world.next_event_at();
        let cap = Dur::from_millis(5);
        if next.is_some_and(|t| t <= clock.now() + cap) {
            last_deadline = next;
        }
        clock.wait(&mut fds, next, opts.spin, cap, &mut spun);
    };
    let wall = clock.now().saturating_since(wall0);
    let cpu = thread_cpu().saturating_sub(std::mem::take(&mut cpu0));
    finish.store(true, Ordering::Relaxed);
    let mut flows = Vec::new();
    if let Some(p) = poller.take() {
        let mut results = p.join().unwrap_or_default().into_iter();
        for f in 0..spec.flows.len() {
            let (r, s) = results.next().unwrap_or_default();
            flows.push(FlowReport::new(spec, f, flow_port(f), &opts.cc, r, s));
        }
    }
    for c in children.iter_mut() {
        c.kill();
    }
    if let Some(c) = &mut command {
        c.kill();
    }
    let mut capture_wait = std::time::Duration::ZERO;
    let mut capture_error = None;
    for h in hosts.iter_mut() {
        capture_wait += h.pcap.sink_mut().waited();
        if let Err(e) = h.pcap.sink_mut().finish() {
            // Reported with what the run measured up to then, its output kept.
            capture_error.get_or_insert(format!("{}.pcap: {e}", spec.nodes[h.node].name));
        }
    }
    outcome?;
    // An endpoint that could not be added leaves its subflow unmade: not a complete run.
    for a in adding {
        a.join()
            .map_err(|_| EmuError::Model("adding an MPTCP endpoint panicked".into()))??;
    }
    if interrupted {
        return Err(EmuError::Interrupted);
    }
    let Ledger { acc, mut em, .. } = led;
    em.wall_s = wall.as_secs_f64();
    em.loop_cpu_s = cpu.as_secs_f64();
    em.loop_spin_s = spun.as_secs_f64();
    em.spin_us = opts.spin.as_nanos() / 1000;
    em.offload = opts.offload;
    em.capture_wait_s = capture_wait.as_secs_f64();
    em.accuracy = acc.summarise();
    em.judge();
    em.kernel = kernel_release();
    Ok(Report {
        world: world.finish_external(),
        emulator: em,
        flows,
        command_exit: exit_code,
        addresses: hosts
            .iter()
            .map(|h| (spec.nodes[h.node].name.clone(), dotted(h.addr())))
            .collect(),
        multipath: opts.multipath,
        capture_error,
    })
}

/// The mobile's Multipath TCP limits: up to 8 extra subflows and 8 addresses announced (the
/// kernel's defaults, 2 and 0 or less, would refuse joins; ip-mptcp(8)). Open: our choice,
/// above any scenario's interface count. The correspondent's are `correspondent_limits`.
const MPTCP_LIMITS: &[&str] = &[
    "mptcp",
    "limits",
    "set",
    "subflow",
    "8",
    "add_addr_accepted",
    "8",
];

/// A correspondent's limits: 8 extra subflows (as the mobile's) and the scenario's
/// `flow.mptcp.add_addr_accepted` (Linux's default 0 unless the scenario says otherwise:
/// `MptcpConfig::add_addr_accepted`), so that it acts on the mobile's ADD_ADDRs as `vho run`'s
/// correspondent does.
fn correspondent_limits(add_addr_accepted: &str) -> [&str; 7] {
    [
        "mptcp",
        "limits",
        "set",
        "subflow",
        "8",
        "add_addr_accepted",
        add_addr_accepted,
    ]
}

/// The path manager's parameters of the MPTCP flow (`kind = "mptcp"`) with an end at host
/// `n`, if there is one (the first); a TCP flow run with `--multipath` has the defaults.
fn mptcp_config(spec: &Spec, n: usize) -> Option<vho_sim::traffic::mptcp::MptcpConfig> {
    spec.flows.iter().find_map(|f| match f.kind {
        vho_sim::spec::FlowKind::Mptcp(c) if f.src == n || f.dst == n => Some(c),
        _ => None,
    })
}

/// The `ip mptcp endpoint` flags of the scenario's endpoint on the mobile's interface
/// `iface` (an index into its `interfaces`), `None` without one. `fullmesh` is the model's
/// (`traffic::mptcp::Endpoint::opens_subflow`: a subflow to each of the peer's addresses) so
/// it goes with `subflow`, without which the kernel opens none from the endpoint
/// (`select_local_address` takes only MPTCP_PM_ADDR_FLAG_SUBFLOW endpoints).
fn endpoint_flags(
    cfg: &vho_sim::traffic::mptcp::MptcpConfig,
    iface: u8,
) -> Option<Vec<&'static str>> {
    use vho_sim::traffic::mptcp::flags as fl;
    let e = cfg.endpoint(iface)?;
    let mut out = Vec::new();
    if e.flags & fl::SIGNAL != 0 {
        out.push("signal");
    }
    if e.flags & (fl::SUBFLOW | fl::FULLMESH) != 0 {
        out.push("subflow");
    }
    if e.flags & fl::BACKUP != 0 {
        out.push("backup");
    }
    if e.flags & fl::FULLMESH != 0 {
        out.push("fullmesh");
    }
    Some(out)
}

/// A multipath mobile's access links, the initial one first (its address is the host's).
fn multipath_order(m: &vho_sim::spec::MobileSpec) -> Vec<usize> {
    let mut links = vec![m.initial];
    links.extend(m.interfaces.iter().copied().filter(|&l| l != m.initial));
    links
}

/// A multipath mobile's devices, one per access link, named after the link: each with its
/// own address, its own routing table for what leaves from that address (policy routing,
/// ip-rule(8)), and an MPTCP endpoint with the scenario's flags (`flow.mptcp.endpoints`;
/// without an MPTCP flow, `subflow` on every interface but the first, which carries the
/// initial subflow), so that the path manager opens a subflow over it or announces it
/// (ip-mptcp(8)).
fn multipath_interfaces(
    spec: &Spec,
    ns: &Namespace,
    n: usize,
    links: &[usize],
    opts: &Options,
) -> Result<(Vec<Device>, Vec<Appear>), EmuError> {
    let mut tuns = Vec::new();
    let mut later = Vec::new();
    // The interfaces a handover brings up (`vho_sim::handover::appearing`: the world keeps
    // their links down until then) get their endpoint at that instant, not now.
    let appearing = spec
        .mobiles
        .iter()
        .position(|m| m.node == n)
        .map(|m| vho_sim::handover::appearing(spec, m))
        .unwrap_or_default();
    ns.ip(MPTCP_LIMITS)?;
    let mobile = spec.mobiles.iter().find(|m| m.node == n);
    let cfg = mptcp_config(spec, n);
    let link_names: Vec<&str> = links.iter().map(|&l| spec.links[l].name.as_str()).collect();
    let names = interface_names(&link_names);
    for (i, &l) in links.iter().enumerate() {
        if l >= MAX_MULTIPATH_LINKS {
            return Err(EmuError::Unsupported(format!(
                "multipath: at most {MAX_MULTIPATH_LINKS} links"
            )));
        }
        let name = names[i].clone();
        let a = iface_addr(n, l);
        let tun = Tun::create(
            ns,
            &name,
            &format!("{}/16", dotted(a)),
            opts.mtu,
            opts.offload,
        )?;
        let table = (100 + i).to_string();
        ns.ip(&["rule", "add", "from", &dotted(a), "table", &table])?;
        ns.ip(&["route", "add", "10.0.0.0/8", "dev", &name, "table", &table])?;
        let flags = match &cfg {
            Some(c) => mobile
                .and_then(|m| m.interfaces.iter().position(|&x| x == l))
                .and_then(|ix| endpoint_flags(c, ix as u8))
                .filter(|f| i > 0 || !f.is_empty()),
            None => (i > 0).then(|| vec!["subflow"]),
        };
        let endpoint = |ns: &str, flags: &[&str]| -> Vec<String> {
            let mut v: Vec<String> = [
                "-n",
                ns,
                "mptcp",
                "endpoint",
                "add",
                &dotted(a),
                "dev",
                &name,
            ]
            .map(String::from)
            .to_vec();
            v.extend(flags.iter().map(|f| f.to_string()));
            v
        };
        if i == 0 {
            ns.ip(&["route", "add", "10.66.0.0/16", "dev", &name])?;
            // The initial interface's endpoint only if the scenario gives it flags (backup
            // applies to the initial subflow; the kernel accounts it to the MPC subflow).
            if let Some(f) = &flags {
                let args = endpoint(&ns.name, f);
                let args: Vec<&str> = args[2..].iter().map(String::as_str).collect();
                ns.ip(&args)?;
            }
        } else if flags.is_none() {
            // No endpoint on it: no subflow, no ADD_ADDR (as the model's).
        } else if let Some(&(h, _)) = appearing.iter().find(|&&(_, x)| x == l) {
            later.push(Appear {
                at: vho_sim::handover::draw_instant(&spec.handovers[h], spec.seed, h),
                args: endpoint(&ns.name, flags.as_deref().unwrap_or_default()),
            });
        } else {
            let args = endpoint(&ns.name, flags.as_deref().unwrap_or_default());
            let args: Vec<&str> = args[2..].iter().map(String::as_str).collect();
            ns.ip(&args)?;
        }
        tuns.push((tun, Some(l), a));
    }
    Ok((tuns, later))
}

/// An MPTCP endpoint added when its interface comes up: at `at` on the run's clock,
/// `ip ARGS` (`-n NS mptcp endpoint add ADDR dev NAME subflow`). The kernel's path manager
/// then opens a subflow from it on every fully established connection
/// (`mptcp_pm_nl_add_addr_doit` -> `mptcp_nl_add_subflow_or_signal_addr`,
/// net/mptcp/pm_kernel.c), as NetworkManager's or mptcpd's endpoint on a new address does.
struct Appear {
    at: Time,
    args: Vec<String>,
}

/// Adds the endpoints of `appear` due by `now`, each on a thread of its own (`ip` takes
/// milliseconds the packet loop must not wait; `-n` names the namespace, so the thread needs
/// no setns), whose outcome the run collects at its end (`added`).
fn add_due_endpoints(appear: &mut Vec<Appear>, now: Time, added: &mut Vec<Adding>) {
    while appear.first().is_some_and(|x| x.at <= now) {
        let x = appear.remove(0);
        added.push(std::thread::spawn(move || {
            let args: Vec<&str> = x.args.iter().map(String::as_str).collect();
            crate::netns::ip(&args).map(|_| ())
        }));
    }
}

type Adding = std::thread::JoinHandle<Result<(), EmuError>>;

/// CPU time of the calling thread (getrusage RUSAGE_THREAD).
fn thread_cpu() -> Dur {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let us = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
    Dur::from_micros(us(ru.ru_utime) + us(ru.ru_stime))
}

fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_index_has_an_address_that_maps_back() {
        for n in [0usize, 1, 2, 254, 255, 256, 1000, 64_999] {
            let a = host_addr(n);
            assert_eq!(node_of(&a), Some((n, None)), "{a:?}");
            for l in [0, 1, 99] {
                assert_eq!(node_of(&iface_addr(n, l)), Some((n, Some(l))));
            }
        }
        // Addresses outside 10.66/16 are no host's (a kernel's own traffic).
        assert_eq!(node_of(&[10, 0, 0, 1]), None);
        assert_eq!(node_of(&[192, 168, 0, 1]), None);
    }

    #[test]
    fn names_become_shell_variables_and_valid_interface_names() {
        assert_eq!(env_part("m-1.a"), "M_1_A");
        assert_eq!(env_part("ch"), "CH");
        assert_eq!(
            interface_names(&[
                "wlan",
                "a very long link name",
                "x/y:z",
                "lo",
                "twelve-chars-and-more"
            ]),
            [
                "wlan",
                "a_very_long_lin",
                "x_y_z",
                "vho3",
                "twelve-chars-an"
            ]
        );
        // Two cut alike: both get a name of their own.
        assert_eq!(
            interface_names(&["access-link-number-1", "access-link-number-2"]),
            ["vho0", "vho1"]
        );
    }

    #[test]
    fn only_a_network_namespaces_own_sysctls_are_accepted() {
        for good in [
            "net/ipv4/tcp_frto",
            "net/ipv4/conf/all/rp_filter",
            "net/ipv4/conf/eth0.1/forwarding",
        ] {
            assert!(namespace_sysctl(good), "{good}");
        }
        for bad in [
            "kernel/pid_max",
            "vm/swappiness",
            "fs/file-max",
            "net",
            "net/",
            "net/../kernel/pid_max",
            "net/ipv4//tcp_frto",
            "/net/ipv4/tcp_frto",
        ] {
            assert!(!namespace_sysctl(bad), "{bad}");
        }
        let mut opts = Options::new(PathBuf::from("/nonexistent"));
        opts.sysctls = vec![("kernel/pid_max".into(), "4194304".into())];
        let e = check_options(&opts).unwrap_err().to_string();
        assert!(
            e.starts_with("--sysctl kernel.pid_max: expected a per-namespace net.*"),
            "{e}"
        );
    }

    #[test]
    fn scenarios_the_emulator_cannot_carry_are_refused_before_anything_is_made() {
        let presets = vho_sim::scenario::PresetSet::builtin().unwrap();
        let text = r#"
[run]
name = "x"
[wired]
preset = "lan-100m"
[access.wlan]
preset = "dk-wlan"
[access.gprs]
preset = "dk-gprs"
[mobile]
start = "wlan"
[[flow]]
from = "ch"
to = "mh"
size = "10 KB"
remedies = ["cwnd-clamp"]
"#;
        let spec = vho_sim::scenario::load("x.toml", text, &[], &presets).unwrap();
        let e = check(&spec).unwrap_err().to_string();
        assert!(e.starts_with("flow flow0: remedies:"), "{e}");
        for (kind, want) in [
            ("kind = \"tfrc\"", "kind = \"tfrc\""),
            ("kind = \"pareto\"", "kind = \"pareto\""),
        ] {
            let t = text.replace("size = \"10 KB\"\nremedies = [\"cwnd-clamp\"]", kind);
            let spec = vho_sim::scenario::load("x.toml", &t, &[], &presets)
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
            let e = check(&spec).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("TCP flows only"), "{e}");
        }
    }

    #[test]
    fn an_mptcp_flows_endpoints_and_limit_are_what_the_kernel_is_given() {
        let presets = vho_sim::scenario::PresetSet::builtin().unwrap();
        let text = "[run]\nname = \"x\"\n[wired]\npreset = \"lan-100m\"\n\
                    [access.wlan]\npreset = \"dk-wlan\"\n[access.gprs]\npreset = \"dk-gprs\"\n\
                    [mobile]\nstart = \"wlan\"\n\
                    [[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"10 KB\"\nkind = \"mptcp\"\n\
                    [flow.mptcp]\nadd_addr_accepted = 2\n\
                    endpoints = { gprs = [\"signal\", \"backup\"], wlan = [\"fullmesh\"] }\n";
        let spec = vho_sim::scenario::load("x.toml", text, &[], &presets).unwrap();
        assert!(
            check(&spec).is_ok(),
            "an MPTCP flow is the kernel's Multipath TCP"
        );
        let ch = spec.flows[0].src;
        let mh = spec.flows[0].dst;
        let cfg = mptcp_config(&spec, mh).expect("the flow's");
        assert_eq!(
            mptcp_config(&spec, ch).map(|c| c.add_addr_accepted),
            Some(2)
        );
        let ix = |name: &str| {
            let l = spec.links.iter().position(|l| l.name == name).unwrap();
            spec.mobiles[0]
                .interfaces
                .iter()
                .position(|&x| x == l)
                .unwrap() as u8
        };
        assert_eq!(
            endpoint_flags(&cfg, ix("gprs")),
            Some(vec!["signal", "backup"])
        );
        assert_eq!(
            endpoint_flags(&cfg, ix("wlan")),
            Some(vec!["subflow", "fullmesh"])
        );
        assert_eq!(correspondent_limits("2")[6], "2");
        // Without --multipath an MPTCP flow is refused before anything is made.
        let opts = Options::new(std::env::temp_dir());
        match emulate(&spec, &opts, &AtomicBool::new(false)) {
            Err(e) => assert!(e.to_string().contains("--multipath"), "{e}"),
            Ok(_) => panic!("refused"),
        }
    }
}
