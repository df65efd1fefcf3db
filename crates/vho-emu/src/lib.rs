//! vho's emulator: the real Linux TCP stack in network namespaces, through the simulator's own
//! links, queues, loss models and handovers, driven by the wall clock.
//!
//! Each host of a scenario (the correspondent, the mobile) gets a network namespace and a TUN
//! device; one loop carries the packets the hosts send through the same `vho_sim::world::World`
//! that `vho run` simulates with (`World::run_until`, `World::inject`), and hands each to its
//! destination host at the instant the model delivers it. Nothing of the link or handover
//! behaviour is written here: this crate is only I/O (namespaces, devices, sockets, the clock)
//! and the driver's loop.
//!
//! - `netns`: namespaces, entering them, cleaning up what a killed run left.
//! - `tun`: the TUN devices.
//! - `gso`, `gro`: segmentation offloads at the devices: a host's TCP sends read whole and
//!   cut into the wire's segments; segments due at once written to a host as one packet.
//! - `pump`: the loop's I/O between the devices and the world.
//! - `clock`: the wall clock and the precise wait.
//! - `emulator`: one run.
//! - `bulk`: the built-in traffic (real sockets, `TCP_CONGESTION`, `TCP_INFO`).
//! - `mptcp_info`: a Multipath TCP connection's subflows as the kernel reports them.
//! - `child`: a user's command inside a namespace.
//! - `capture`: the hosts' captures, written by a thread of their own.
//! - `report`: what a run reports, the emulator's check of itself included.

pub mod bulk;
pub mod capture;
pub mod child;
pub mod clock;
pub mod emulator;
pub mod error;
pub mod gro;
pub mod gso;
pub mod mptcp_info;
pub mod netns;
mod pump;
pub mod report;
pub mod store;
pub mod tun;

pub use emulator::{emulate, Options};
pub use error::EmuError;
pub use report::Report;
