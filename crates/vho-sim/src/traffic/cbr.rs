//! A constant-bit-rate source's parameters (`[[flow]] kind = "cbr"`, `agent::cbr`): datagrams
//! of `packet_size` payload bytes every `packet_size · 8 / rate_bps` seconds, what users run
//! beside TCP to see a link's own delay and loss across a handover (a voice call's stream,
//! iperf's UDP mode, ns-2's `Application/Traffic/CBR`).

use crate::time::Dur;

/// IPv4 (20 bytes) and UDP (8 bytes) headers below a CBR datagram's payload.
pub const CBR_HEADER_BYTES: u32 = 20 + 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbrConfig {
    /// Payload bits per second.
    pub rate_bps: u64,
    /// Payload bytes per datagram.
    pub packet_size: u32,
}

impl Default for CbrConfig {
    /// A G.711 voice stream: 64 kb/s in 160-byte frames, one every 20 ms (ITU-T G.711; RFC
    /// 3551 §4.5.14 PCMU, and §4.2's default packetization interval of 20 ms).
    fn default() -> Self {
        CbrConfig {
            rate_bps: 64_000,
            packet_size: 160,
        }
    }
}

impl CbrConfig {
    /// The time between two datagrams, rounded to the nanosecond (at least one).
    pub fn interval(&self) -> Dur {
        let ns =
            (u128::from(self.packet_size) * 8 * 1_000_000_000) / u128::from(self.rate_bps.max(1));
        Dur(ns.clamp(1, u128::from(u64::MAX)) as u64)
    }
}
