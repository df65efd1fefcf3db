//! A TUN device (linux/Documentation/networking/tuntap.rst): the host's kernel routes IP
//! packets into it, and the emulator reads them from its descriptor; what the emulator writes
//! enters the host's stack as received. `IFF_TUN | IFF_NO_PI`: each read or write is one bare
//! IP packet; with offloads (`IFF_VNET_HDR` and `TUNSETOFFLOAD`, see [`crate::gso`]) each
//! starts with a `virtio_net_hdr`, and may be a GSO packet of many segments.

use crate::error::EmuError;
use crate::netns::Namespace;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca; // _IOW('T', 202, int), linux/if_tun.h
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
const IFF_VNET_HDR: libc::c_short = 0x4000;
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0; // _IOW('T', 208, unsigned int)
/// `TUN_F_CSUM | TUN_F_TSO4` (linux/if_tun.h): the device takes partial checksums and TCPv4
/// segmentation, so the kernel hands over its GSO packets whole. Not `TUN_F_TSO_ECN`: a
/// send with CWR is cut by the kernel (`tcp_gso_segment` would keep CWR on the first only).
const OFFLOADS: libc::c_ulong = 0x01 | 0x02;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (the union's first member).
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    pub name: String,
    /// Reads and writes carry a `virtio_net_hdr` (the device has offloads).
    pub vnet: bool,
}

impl Tun {
    /// Makes TUN device `name` inside `ns`, up, with `addr/prefix` and `mtu`; non-blocking.
    /// With `offload`, reads and writes carry a `virtio_net_hdr` and the device takes TCPv4
    /// segmentation and partial checksums.
    pub fn create(
        ns: &Namespace,
        name: &str,
        addr: &str,
        mtu: u32,
        offload: bool,
    ) -> Result<Tun, EmuError> {
        let ifname = name.to_string();
        // The device belongs to the namespace of the task that opened /dev/net/tun.
        let fd = ns.within(move || open(&ifname, offload))?;
        let tun = Tun {
            fd,
            name: name.to_string(),
            vnet: offload,
        };
        ns.ip(&["addr", "add", addr, "dev", name])?;
        ns.ip(&["link", "set", "dev", name, "mtu", &mtu.to_string(), "up"])?;
        Ok(tun)
    }

    pub fn raw_fd(&self) -> libc::c_int {
        self.fd.as_raw_fd()
    }

    /// One packet into `buf`; `None` when nothing waits.
    pub fn read(&self, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
        // SAFETY: reading into a buffer we own, of its length.
        let n = unsafe { libc::read(self.raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                return Ok(None);
            }
            return Err(e);
        }
        Ok(Some(n as usize))
    }

    /// Hands one packet to the host's stack. A full device queue drops it (`Ok(false)`), as a
    /// NIC's ring would.
    pub fn write(&self, pkt: &[u8]) -> std::io::Result<bool> {
        // SAFETY: writing a buffer we own, of its length.
        let n = unsafe { libc::write(self.raw_fd(), pkt.as_ptr().cast(), pkt.len()) };
        Self::written(n)
    }

    /// Hands one packet made of `parts` (with offloads, the virtio header first) to the host's
    /// stack in one `writev`, as [`Tun::write`].
    pub fn write_parts(&self, parts: &[libc::iovec]) -> std::io::Result<bool> {
        // SAFETY: the iovecs point into buffers the caller owns, alive for the call.
        let n = unsafe { libc::writev(self.raw_fd(), parts.as_ptr(), parts.len() as libc::c_int) };
        Self::written(n)
    }

    fn written(n: isize) -> std::io::Result<bool> {
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(true)
    }
}

fn open(name: &str, offload: bool) -> std::io::Result<OwnedFd> {
    if name.len() >= libc::IFNAMSIZ {
        return Err(std::io::Error::other(format!(
            "interface name {name} too long"
        )));
    }
    let path = c"/dev/net/tun";
    // SAFETY: opening a device by a NUL-terminated path.
    let raw = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor we just opened and own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI | if offload { IFF_VNET_HDR } else { 0 },
        _pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads a struct ifreq, which IfReq lays out.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req as *mut IfReq) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if offload {
        // SAFETY: TUNSETOFFLOAD takes its flags as the argument itself.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETOFFLOAD, OFFLOADS) };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(fd)
}
