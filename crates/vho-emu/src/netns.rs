//! Network namespaces, one per emulated host, named `vho-<pid>-<node>` so that a run's leftovers
//! can be told from a live run's (`cleanup`). Made and removed with iproute2's `ip netns`
//! (ip-netns(8): a namespace is a bind mount under /run/netns); entered per thread with
//! setns(2), which leaves the rest of the process where it was.

use crate::error::EmuError;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Command;

/// Every namespace vho makes starts with this.
pub const PREFIX: &str = "vho-";

/// Runs `ip ARGS`; its stderr becomes the error.
pub fn ip(args: &[&str]) -> Result<String, EmuError> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| EmuError::Setup {
            cmd: format!("ip {}", args.join(" ")),
            msg: format!("cannot run ip (iproute2): {e}"),
        })?;
    if !out.status.success() {
        return Err(EmuError::Setup {
            cmd: format!("ip {}", args.join(" ")),
            msg: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A network namespace this process made; removed (with every process still in it) when
/// dropped.
pub struct Namespace {
    pub name: String,
}

impl Namespace {
    pub fn create(name: &str) -> Result<Namespace, EmuError> {
        ip(&["netns", "add", name])?;
        let ns = Namespace {
            name: name.to_string(),
        };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// `ip -n NAME ARGS`.
    pub fn ip(&self, args: &[&str]) -> Result<String, EmuError> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    pub fn path(&self) -> PathBuf {
        path_of(&self.name)
    }

    /// Runs `f` on a thread inside this namespace (sockets it opens, TUN devices it makes and
    /// sysctls it writes are the namespace's).
    pub fn within<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
    ) -> Result<T, EmuError> {
        let path = self.path();
        let name = self.name.clone();
        std::thread::spawn(move || {
            enter(&path)?;
            f()
        })
        .join()
        .map_err(|_| EmuError::Model(format!("a thread in namespace {name} panicked")))?
        .map_err(|e| EmuError::io(format!("namespace {name}"), e))
    }

    /// Sets `/proc/sys/<key>` (slashes) in this namespace.
    pub fn sysctl(&self, key: &str, value: &str) -> Result<(), EmuError> {
        let (k, v) = (key.to_string(), value.to_string());
        self.within(move || std::fs::write(format!("/proc/sys/{k}"), v))
            .map_err(|e| EmuError::Setup {
                cmd: format!("sysctl {key}={value} in {}", self.name),
                msg: e.to_string(),
            })
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        remove(&self.name);
    }
}

fn path_of(name: &str) -> PathBuf {
    PathBuf::from("/run/netns").join(name)
}

/// Moves the calling thread into the namespace bound at `path`.
pub fn enter(path: &std::path::Path) -> std::io::Result<()> {
    let f = std::fs::File::open(path)?;
    // SAFETY: setns on a valid descriptor of a namespace file; affects this thread only.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Kills every process in namespace `name`, then deletes it. Errors are ignored: this runs on
/// the way out, also after a failure.
pub fn remove(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: sending a signal to a process id.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// The vho namespaces present: (name, pid of the run that made it, whether that process is
/// alive).
pub fn present() -> Result<Vec<(String, Option<i32>, bool)>, EmuError> {
    let list = ip(&["netns", "list"])?;
    let mut out = Vec::new();
    for line in list.lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if !name.starts_with(PREFIX) {
            continue;
        }
        let pid = name[PREFIX.len()..]
            .split('-')
            .next()
            .and_then(|p| p.parse::<i32>().ok());
        // SAFETY: signal 0 only checks that the process exists.
        let alive = pid.is_some_and(|p| unsafe { libc::kill(p, 0) } == 0);
        out.push((name.to_string(), pid, alive));
    }
    Ok(out)
}

/// Removes what killed runs left: every `vho-` namespace whose run is no longer alive (and the
/// processes in it). Returns the names removed.
pub fn cleanup() -> Result<Vec<String>, EmuError> {
    let mut removed = Vec::new();
    for (name, _, alive) in present()? {
        if !alive {
            remove(&name);
            removed.push(name);
        }
    }
    Ok(removed)
}

/// Whether this process may make namespaces and devices: CAP_NET_ADMIN (bit 12: devices,
/// addresses, routes) and CAP_SYS_ADMIN (bit 21: `ip netns add`'s unshare(CLONE_NEWNET) and
/// bind mount, setns(2)) in its effective set (/proc/self/status's CapEff, capabilities(7)),
/// which root has unless they were dropped.
pub fn permitted() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|caps| caps & REQUIRED_CAPS == REQUIRED_CAPS)
}

/// CAP_NET_ADMIN and CAP_SYS_ADMIN (linux/capability.h).
const REQUIRED_CAPS: u64 = (1 << 12) | (1 << 21);
