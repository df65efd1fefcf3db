//! The loop's two halves of I/O: what the world delivered, into the hosts' devices, and what
//! the hosts sent, from their devices into the world. Every packet is written to its host's
//! capture as the host sends or receives it, and every delivered packet's lateness (the
//! instant of its write minus the instant the model delivered it) is recorded.
//!
//! With offloads ([`crate::gso`], [`crate::gro`]) a read may be a GSO packet, cut here into
//! the segments the model carries (each injected at the instant of the read), and the
//! segments a device has due in one turn may be written as one GSO packet.

use crate::clock::WallClock;
use crate::emulator::Host;
use crate::error::EmuError;
use crate::gro::{Offer, Run};
use crate::gso::{self, VnetHdr, F_NEEDS_CSUM, GSO_NONE, VNET_HDR_LEN};
use crate::report::{Accuracy, EmulatorReport};
use crate::store::PacketStore;
use crate::tun::Tun;
use vho_sim::record::pcap::PcapWriter;
use vho_sim::time::Time;
use vho_sim::world::{ExternalOut, World};

type Pcap = PcapWriter<crate::emulator::FileSink>;

/// What the loop keeps beside the world: the packets' bytes, the timing errors, the counts.
#[derive(Default)]
pub struct Ledger {
    pub store: PacketStore,
    pub acc: Accuracy,
    pub em: EmulatorReport,
}

/// A delivered packet waiting in a run: its token and the instant the model delivered it.
type Due = (u32, Time);

/// The delivery side's state: one run per host device, and buffers reused between writes.
pub struct Deliver {
    /// `runs[h][i]`: host `h`'s device `i`.
    runs: Vec<Vec<Run<Due>>>,
    hdr: Vec<u8>,
    iov: Vec<libc::iovec>,
}

impl Deliver {
    pub fn new(hosts: &[Host]) -> Deliver {
        Deliver {
            runs: hosts
                .iter()
                .map(|h| h.tuns.iter().map(|_| Run::default()).collect())
                .collect(),
            hdr: Vec::with_capacity(VNET_HDR_LEN + 120),
            iov: Vec::new(),
        }
    }

    /// Hands the hosts what reached them (`out.delivered`), and releases what the network
    /// dropped. `host_of` maps a node to its host's index.
    pub fn deliver(
        &mut self,
        out: &mut ExternalOut,
        hosts: &mut [Host],
        host_of: impl Fn(usize) -> Option<usize>,
        led: &mut Ledger,
        clock: &WallClock,
    ) -> Result<(), EmuError> {
        for (at, node, token) in out.delivered.drain(..) {
            let Some(h) = host_of(node) else {
                led.store.release(token);
                continue;
            };
            let bytes = led.store.get(token);
            let i = hosts[h].dev_for(&bytes[16.min(bytes.len())..]);
            if !hosts[h].tuns[i].0.vnet {
                let t = clock.now();
                led.acc.delivery.push(t.saturating_since(at));
                let r = hosts[h].tuns[i].0.write(bytes);
                book_write(r, &mut hosts[h].pcap, t, &[(token, at)], led)?;
                continue;
            }
            loop {
                let run = &mut self.runs[h][i];
                let first = run.segs.first().map(|s| led.store.get(s.0));
                match run.offer(first, led.store.get(token), (token, at)) {
                    Offer::Joined => {
                        if run.is_closed() {
                            self.flush(h, i, hosts, led, clock)?;
                        }
                        break;
                    }
                    Offer::Alone => {
                        // A packet of its own, after the run it would have broken.
                        let t = clock.now();
                        led.acc.delivery.push(t.saturating_since(at));
                        let none = VnetHdr::default().bytes();
                        let bytes = led.store.get(token);
                        let parts = [iovec(&none), iovec(bytes)];
                        let r = hosts[h].tuns[i].0.write_parts(&parts);
                        book_write(r, &mut hosts[h].pcap, t, &[(token, at)], led)?;
                        break;
                    }
                    Offer::FlushFirst => self.flush(h, i, hosts, led, clock)?,
                }
            }
        }
        for (token, _, _) in out.dropped.drain(..) {
            led.store.release(token);
            led.em.dropped_in_network += 1;
        }
        for h in 0..self.runs.len() {
            for i in 0..self.runs[h].len() {
                if !self.runs[h][i].is_empty() {
                    self.flush(h, i, hosts, led, clock)?;
                }
            }
        }
        Ok(())
    }

    /// Writes host `h`'s device `i`'s run as one packet.
    fn flush(
        &mut self,
        h: usize,
        i: usize,
        hosts: &mut [Host],
        led: &mut Ledger,
        clock: &WallClock,
    ) -> Result<(), EmuError> {
        let run = &mut self.runs[h][i];
        let t = clock.now();
        let first = led.store.get(run.segs[0].0);
        let hl = run.header(first, &mut self.hdr);
        self.iov.clear();
        self.iov.push(iovec(&self.hdr));
        if run.segs.len() == 1 {
            self.iov.push(iovec(first));
        } else {
            for &(token, _) in &run.segs {
                self.iov.push(iovec(&led.store.get(token)[hl..]));
            }
            led.em.gro_writes += 1;
            led.em.gro_segments += run.segs.len() as u64;
        }
        for &(_, at) in &run.segs {
            led.acc.delivery.push(t.saturating_since(at));
        }
        let r = hosts[h].tuns[i].0.write_parts(&self.iov);
        self.iov.clear();
        let segs = std::mem::take(&mut run.segs);
        let res = book_write(r, &mut hosts[h].pcap, t, &segs, led);
        // The run's vector back, emptied, for its next segments.
        run.segs = segs;
        run.segs.clear();
        res
    }
}

fn iovec(b: &[u8]) -> libc::iovec {
    libc::iovec {
        iov_base: b.as_ptr() as *mut libc::c_void,
        iov_len: b.len(),
    }
}

/// Books one write of `segs` (each captured at `t`), and releases them.
fn book_write(
    r: std::io::Result<bool>,
    pcap: &mut Pcap,
    t: Time,
    segs: &[Due],
    led: &mut Ledger,
) -> Result<(), EmuError> {
    let ok = match r {
        Ok(ok) => ok,
        Err(e) => {
            for &(token, _) in segs {
                led.store.release(token);
            }
            return Err(EmuError::io("writing to a TUN device", e));
        }
    };
    for &(token, _) in segs {
        let bytes = led.store.get(token);
        if ok {
            pcap.write_record(t, bytes, 0);
            led.em.packets_out += 1;
            led.em.bytes_out += bytes.len() as u64;
        } else {
            led.em.host_queue_drops += 1;
        }
        led.store.release(token);
    }
    Ok(())
}

/// The reading side's buffers: a read (virtio header and up to a 64 KB GSO packet) and a
/// segment cut from it.
pub struct Take {
    buf: Vec<u8>,
    seg: Vec<u8>,
}

/// The largest read: the virtio header and IPv4's largest packet.
const READ_BUF: usize = VNET_HDR_LEN + 65_535;

impl Default for Take {
    fn default() -> Self {
        Take {
            buf: vec![0; READ_BUF],
            seg: Vec::with_capacity(2048),
        }
    }
}

impl Take {
    /// Reads what the hosts sent into the world: one read per device (the devices take
    /// turns); true if any had something. The loop delivers what came due before it reads
    /// again, so a burst read does not hold up deliveries behind the rest of the backlog.
    /// `nodes` is the scenario's node count.
    pub fn take(
        &mut self,
        hosts: &mut [Host],
        world: &mut World,
        led: &mut Ledger,
        clock: &WallClock,
        nodes: usize,
    ) -> Result<bool, EmuError> {
        let mut more = false;
        for host in hosts.iter_mut() {
            for i in 0..host.tuns.len() {
                let tun: &Tun = &host.tuns[i].0;
                let n = match tun.read(&mut self.buf) {
                    Ok(Some(n)) => n,
                    Ok(None) => continue,
                    Err(e) => return Err(EmuError::io("reading a TUN device", e)),
                };
                more = true;
                let t = clock.now();
                let from_link = host.tuns[i].1;
                if !tun.vnet {
                    inject(host, from_link, t, &self.buf[..n], world, led, nodes)?;
                    continue;
                }
                let Some(h) = VnetHdr::parse(&self.buf[..n]) else {
                    led.em.unroutable += 1;
                    continue;
                };
                let pkt = &mut self.buf[VNET_HDR_LEN..n];
                if h.gso_type == GSO_NONE {
                    if h.flags & F_NEEDS_CSUM != 0 && !gso::complete_checksum(&h, pkt) {
                        led.em.unroutable += 1;
                        continue;
                    }
                    inject(host, from_link, t, pkt, world, led, nodes)?;
                    continue;
                }
                let mut failed = Ok(());
                let cut = gso::split(&h, pkt, &mut self.seg, |seg| {
                    if failed.is_ok() {
                        failed = inject(host, from_link, t, seg, world, led, nodes);
                    }
                });
                failed?;
                match cut {
                    Ok(k) => {
                        led.em.gso_reads += 1;
                        led.em.gso_segments += k as u64;
                    }
                    Err(_) => led.em.unroutable += 1,
                }
            }
        }
        Ok(more)
    }
}

/// One packet `pkt` that `host` sent at `t` (from access link `from_link`, a multipath
/// interface's): captured, and into the world to its destination host.
fn inject(
    host: &mut Host,
    from_link: Option<usize>,
    t: Time,
    pkt: &[u8],
    world: &mut World,
    led: &mut Ledger,
    nodes: usize,
) -> Result<(), EmuError> {
    let n = pkt.len();
    host.pcap.write_record(t, pkt, 0);
    led.em.packets_in += 1;
    led.em.bytes_in += n as u64;
    let dst = (n >= 20 && pkt[0] >> 4 == 4)
        .then(|| crate::emulator::node_of(&pkt[16..20]))
        .flatten();
    let Some((dst, to_link)) = dst.filter(|&(d, _)| d < nodes && d != host.node) else {
        led.em.unroutable += 1;
        return Ok(());
    };
    world
        .run_until(t)
        .map_err(|e| EmuError::Model(e.to_string()))?;
    let token = led.store.insert(pkt);
    // A multipath interface's packets cross its own link, both ways.
    world.inject(host.node, dst, n as u32, token, from_link.or(to_link));
    Ok(())
}
