//! A user's command run inside a host's namespace: its own process group (so that everything
//! it starts can be killed at once), killed by the kernel if the emulator dies
//! (PR_SET_PDEATHSIG), and killed by us when the run ends (also on drop).

use crate::error::EmuError;
use crate::netns::Namespace;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

pub struct Child {
    child: std::process::Child,
    done: bool,
}

/// Starts `cmd` in `ns` with `env` added, its output to `log`.
pub fn spawn(
    ns: &Namespace,
    cmd: &[String],
    env: &[(String, String)],
    log: &Path,
) -> Result<Child, EmuError> {
    let Some((prog, args)) = cmd.split_first() else {
        return Err(EmuError::Unsupported("an empty command".into()));
    };
    let ns_file = std::fs::File::open(ns.path())
        .map_err(|e| EmuError::io(format!("namespace {}", ns.name), e))?;
    let out = std::fs::File::create(log)
        .map_err(|e| EmuError::io(format!("{}: cannot create", log.display()), e))?;
    let err = out
        .try_clone()
        .map_err(|e| EmuError::io(format!("{}", log.display()), e))?;
    let ns_fd = ns_file.as_raw_fd();
    let mut c = Command::new(prog);
    c.args(args)
        .envs(env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // SAFETY: between fork and exec only async-signal-safe system calls are made.
    unsafe {
        c.pre_exec(move || {
            if libc::setns(ns_fd, libc::CLONE_NEWNET) != 0
                || libc::setpgid(0, 0) != 0
                || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = c
        .spawn()
        .map_err(|e| EmuError::io(format!("cannot start {prog}"), e))?;
    drop(ns_file);
    Ok(Child { child, done: false })
}

impl Child {
    /// Its exit status once it has exited (a signal's death as 128 + the signal).
    pub fn try_wait(&mut self) -> Option<i32> {
        match self.child.try_wait() {
            Ok(Some(st)) => {
                self.done = true;
                use std::os::unix::process::ExitStatusExt;
                Some(st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)))
            }
            _ => None,
        }
    }

    /// Kills its whole process group and reaps it.
    pub fn kill(&mut self) {
        let pid = self.child.id() as i32;
        // SAFETY: signalling the process group this child leads.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.done = true;
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if !self.done {
            self.kill();
        }
    }
}
