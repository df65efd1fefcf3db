//! Network namespaces, one per emulated host, named `vho-<pid>-k<token>-<node>`: the pid for
//! the eye, the token (random) so that runs in different PID namespaces (containers, where
//! every run may be pid 1) never share a name. A run holds an exclusive flock(2) on each of its
//! namespaces' files (/run/netns/NAME, the namespace's own nsfs inode, shared exactly as the
//! namespace is) for as long as it lives; the kernel drops the lock when the run dies however it
//! dies, so `cleanup` removes exactly the namespaces nobody holds, whichever PID namespace made
//! them or looks. Made and removed with iproute2's `ip netns` (ip-netns(8): a namespace is a
//! bind mount under /run/netns); entered per thread with setns(2), which leaves the rest of the
//! process where it was.

use crate::error::EmuError;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

/// Every namespace vho makes starts with this.
pub const PREFIX: &str = "vho-";

/// Runs `ip ARGS`; its stderr becomes the error. Deaf to the signals that stop a run: a
/// terminal's Ctrl-C goes to the whole foreground process group, and a run it stopped removes
/// its namespaces with `ip netns del`, which a second Ctrl-C killed half-way, leaving them
/// (issue 40, benches/fuzz_emulate.py: 4 runs of 5 under repeated Ctrl-C). A process group of
/// its own keeps the group's signals away once `ip` runs, and ignoring them (inherited across
/// exec) drops one already on its way to the child before it left the group.
pub fn ip(args: &[&str]) -> Result<String, EmuError> {
    let mut cmd = Command::new("ip");
    cmd.args(args).process_group(0);
    // SAFETY: between fork and exec only sigaction(2), async-signal-safe, is called.
    unsafe {
        cmd.pre_exec(|| {
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                if libc::signal(s, libc::SIG_IGN) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let out = cmd.output().map_err(|e| EmuError::Setup {
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

/// A network namespace this process made, locked (see the module's note) until it is dropped;
/// removed (with every process still in it) when dropped.
pub struct Namespace {
    pub name: String,
    /// The namespace's file, flock(2)ed: the run that made it is alive.
    _lock: Option<std::fs::File>,
}

impl Namespace {
    pub fn create(name: &str) -> Result<Namespace, EmuError> {
        ip(&["netns", "add", name])?;
        let mut ns = Namespace {
            name: name.to_string(),
            _lock: None,
        };
        ns._lock = Some(lock(&path_of(name), false).map_err(|e| EmuError::Setup {
            cmd: format!("flock {}", path_of(name).display()),
            msg: e.to_string(),
        })?);
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

/// The name of a run's namespace for `node`: `vho-<pid>-k<token>-<node>`.
pub fn run_name(pid: i32, token: u32, node: &str) -> String {
    format!("{PREFIX}{pid}-k{token:08x}-{node}")
}

/// A token no other live run has (getrandom(2); the clock's nanoseconds where it fails).
pub fn run_token() -> u32 {
    let mut b = [0u8; 4];
    // SAFETY: getrandom fills at most `b.len()` bytes of `b`.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n == 4 {
        return u32::from_ne_bytes(b);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() ^ std::process::id())
}

/// An exclusive flock(2) of the file at `path`, waited for (`try_only`: or not, `WouldBlock`).
fn lock(path: &std::path::Path, try_only: bool) -> std::io::Result<std::fs::File> {
    let f = std::fs::File::open(path)?;
    let op = libc::LOCK_EX | if try_only { libc::LOCK_NB } else { 0 };
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(f.as_raw_fd(), op) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(f)
}

/// Whether a live run holds namespace `name`. A name of the form before the locks
/// (`vho-<pid>-<run>-<node>`, an older vho's) is judged by its pid, as then.
fn held(name: &str) -> bool {
    let rest = &name[PREFIX.len()..];
    let mut parts = rest.splitn(3, '-');
    let pid = parts.next().and_then(|p| p.parse::<i32>().ok());
    let locked_form = parts.next().is_some_and(|t| t.starts_with('k'));
    if !locked_form {
        // SAFETY: signal 0 only checks that the process exists.
        return pid.is_some_and(|p| unsafe { libc::kill(p, 0) } == 0);
    }
    match lock(&path_of(name), true) {
        Ok(_free) => young(name), // nobody holds it, unless it was made a moment ago
        Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
    }
}

/// Whether namespace `name` was made within the last [`GRACE`]: between `ip netns add` and its
/// run's flock there is a moment when nobody holds it.
fn young(name: &str) -> bool {
    std::fs::metadata(path_of(name))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < GRACE)
}

/// How long a new namespace is taken as its run's before the run has locked it (its file's
/// time is the namespace's creation). Open: our choice, far above the millisecond between `ip
/// netns add`'s exit and the lock, and below the second a user takes to look.
const GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// The vho namespaces present: (name, pid in its name, whether a live run holds it).
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
        out.push((name.to_string(), pid, held(name)));
    }
    Ok(out)
}

/// Removes what killed runs left: every `vho-` namespace no live run holds (and the processes
/// in it). Returns the names removed. One that nobody holds but that was made within the last
/// [`GRACE`] is looked at again once it is older: a run killed while it made its namespaces
/// left ones a `--cleanup` right after the kill passed over as a live run's (issue 40,
/// benches/fuzz_emulate.py).
pub fn cleanup() -> Result<Vec<String>, EmuError> {
    let mut removed = Vec::new();
    let mut young = Vec::new();
    for (name, _, alive) in present()? {
        if !alive {
            remove(&name);
            removed.push(name);
        } else if unheld(&name) {
            young.push(name);
        }
    }
    if !young.is_empty() {
        // Each is then older than GRACE: locked by its run, or nobody's.
        std::thread::sleep(GRACE);
        for name in young {
            if !held(&name) {
                remove(&name);
                removed.push(name);
            }
        }
    }
    Ok(removed)
}

/// Whether namespace `name` is of the locked form and nobody holds its lock (a young one:
/// [`held`] takes it as its run's for now).
fn unheld(name: &str) -> bool {
    let locked_form = name[PREFIX.len()..]
        .split('-')
        .nth(1)
        .is_some_and(|t| t.starts_with('k'));
    locked_form && lock(&path_of(name), true).is_ok()
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
