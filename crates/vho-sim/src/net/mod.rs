//! The network layer: static routing over the links that are up.
//!
//! Routes are shortest paths in hop count over the links currently usable: every wired link,
//! and for each mobile host only its active access link. They are recomputed as a dense table
//! whenever a handover changes which access link is active (rare), so forwarding a packet is
//! one array lookup.

//!
//! Node functions ([`function`]) act on the packets a node forwards: a window-clamping proxy
//! ([`window_clamp`]), an IP-layer queue in front of slow links ([`flow_control`]), the home
//! agent's IP-in-IP tunnel ([`tunnel`]); a mobile router's combining of bicast copies
//! ([`combine`]: NEMO-SHO's first copy wins, Adaptive Packet Combining; in the world as
//! [`nemo_combiner`]).

pub mod combine;
pub mod flow_control;
pub mod function;
pub mod nemo_combiner;
pub mod routes;
pub mod tunnel;
pub mod window_clamp;
