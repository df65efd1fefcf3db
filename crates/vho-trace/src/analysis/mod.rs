//! Analyses over decoded captures (and over the simulator's own packet streams).

pub mod adaptation;
