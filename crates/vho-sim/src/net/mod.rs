//! The network layer: static routing over the links that are up.
//!
//! Routes are shortest paths in hop count over the links currently usable: every wired link,
//! and for each mobile host only its active access link. They are recomputed as a dense table
//! whenever a handover changes which access link is active (rare), so forwarding a packet is
//! one array lookup.

pub mod routes;
