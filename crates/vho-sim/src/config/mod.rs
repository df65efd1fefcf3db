//! The types the scenario (`spec`) and the models share, below both: a model's parameters as
//! the spec holds them, and the dense indices everything is addressed by. The spec imports
//! them from here, not from the models, so that no model's level imports the spec's and the
//! spec none above it (`tests/layers.rs`). Here are the data, their defaults and names; each
//! model re-exports its own types and keeps their behaviour (validation, derived values: the
//! `impl` blocks stay with the model).

pub mod link;
pub mod mip;

/// A node, an index into `Spec::nodes`.
pub type NodeIdx = usize;
/// A link, an index into `Spec::links`.
pub type LinkIdx = usize;
/// A link's direction: `2·link` for a → b, `2·link + 1` for b → a (`net::routes::dir_index`).
pub type DirIdx = u32;

/// Snap length written in the file header unless the scenario sets `record.snaplen`: whole
/// packets (`record::pcap`).
pub const SNAPLEN: u32 = 65_535;

/// A remedy, by what it does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Remedy {
    Frto,
    Eifel,
    DsackUndo,
    NoRestore,
    RtoReset,
    NewPath,
    RttInjection,
    FastRtoDecrease,
    FlushOnHandover,
    Red,
    CwndClamp,
    LinkFlowControl,
    AdaptiveDupthresh,
    Oracle,
    OracleSystem,
    Probe,
    Ihn,
    Ehn,
    Fra,
    Err,
}
