//! Traffic sources that are not TCP's own sending: what cross traffic sends, and when.
//!
//! - `pareto`: ns-2's `Application/Traffic/Pareto`, an on/off source whose burst lengths and
//!   idle times are Pareto distributed (Chen et al., seed 004 §5: 16 such flows of cross
//!   traffic, shape 1.9).
//!
//! In the world as `[[flow]] kind = "pareto"` (`world::cross`): datagrams of the source's size
//! at the instants it gives, recorded as aggregates.

pub mod pareto;
