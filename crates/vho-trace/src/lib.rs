//! vho-trace: streaming reading of packet captures (pcap, pcapng) down to TCP segments, for
//! the simulator's captures and real ones alike. The flow analysis (issue 5) builds on this.

pub mod analysis;
pub mod decode;
pub mod error;
pub mod reader;

pub use decode::{decode, Segment, Skip};
pub use error::TraceError;
pub use reader::{Reader, Record};
