//! vho-trace: streaming reading of packet captures (pcap, pcapng) down to TCP segments, for
//! the simulator's captures and real ones alike, and the per-flow TCP analysis over them
//! (`analysis::analyze`: Wireshark's tcp.analysis flags, RTT, SACK/D-SACK, stalls, t_a).

pub mod analysis;
pub mod decode;
pub mod error;
pub mod reader;

pub use decode::{decode, Segment, Skip};
pub use error::TraceError;
pub use reader::{Reader, Record};
