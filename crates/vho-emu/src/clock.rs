//! The wall clock the emulator drives the world with: CLOCK_MONOTONIC in nanoseconds since the
//! run began, and a wait until an instant or a readable device, whichever comes first.
//!
//! The wait sleeps in ppoll(2) until `spin` before the instant, then polls without sleeping:
//! a sleep's wake-up is late by the timer slack (50 µs by default, prctl(2)
//! PR_SET_TIMERSLACK, which [`WallClock::tighten`] sets to 1 ns for the calling thread) plus
//! the scheduler's latency; the spin covers that.

use vho_sim::time::{Dur, Time};

#[derive(Clone, Copy)]
pub struct WallClock {
    base_ns: u64,
}

/// How long before an instant the wait stops sleeping and polls. Open: our choice, from the
/// wake-up lateness measured on this machine (ppoll with 1 ns slack wakes within tens of µs).
pub const DEFAULT_SPIN: Dur = Dur::from_micros(100);

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl WallClock {
    /// A clock reading zero now.
    pub fn start() -> WallClock {
        WallClock {
            base_ns: monotonic_ns(),
        }
    }

    pub fn now(&self) -> Time {
        Time(monotonic_ns().saturating_sub(self.base_ns))
    }

    /// Sets the calling thread's timer slack to 1 ns.
    pub fn tighten() {
        // SAFETY: prctl with an integer argument.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    }

    /// Waits until `until` (forever: `None`) or until one of `fds` is readable; true when a
    /// descriptor is. Returns early with false after `cap` at most, so the caller can look
    /// at its stop flag. Adds the time it spent polling without sleeping to `spun`.
    pub fn wait(
        &self,
        fds: &mut [libc::pollfd],
        until: Option<Time>,
        spin: Dur,
        cap: Dur,
        spun: &mut Dur,
    ) -> bool {
        let cap_at = self.now() + cap;
        let until = until.map_or(cap_at, |u| u.min(cap_at));
        loop {
            for f in fds.iter_mut() {
                f.revents = 0;
            }
            let now = self.now();
            if now >= until {
                return false;
            }
            let left = until.saturating_since(now);
            let sleep = if left > spin { left - spin } else { Dur::ZERO };
            let ts = libc::timespec {
                tv_sec: (sleep.as_nanos() / 1_000_000_000) as libc::time_t,
                tv_nsec: (sleep.as_nanos() % 1_000_000_000) as libc::c_long,
            };
            // SAFETY: ppoll over the pollfds we own, with a timespec on the stack.
            let n = unsafe {
                libc::ppoll(
                    fds.as_mut_ptr(),
                    fds.len() as libc::nfds_t,
                    &ts,
                    std::ptr::null(),
                )
            };
            if sleep == Dur::ZERO {
                *spun += self.now().saturating_since(now);
            }
            if n > 0 {
                return true;
            }
        }
    }
}
