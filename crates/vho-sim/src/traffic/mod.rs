//! Traffic sources that are not TCP's own sending: what they send, and when.
//!
//! - `pareto`: ns-2's `Application/Traffic/Pareto`, an on/off source whose burst lengths and
//!   idle times are Pareto distributed (Chen et al., "Improving TCP/TFRC over vertical
//!   handoffs", 2005, §5: 16 such flows of cross traffic, shape 1.9);
//! - `cbr`: a constant-bit-rate source's parameters.
//!
//! In the world as agents (`crate::agent`): `kind = "pareto"` sends datagrams of the source's
//! size at the instants it gives, recorded as aggregates; `kind = "cbr"` a stream whose
//! receiver measures each datagram's delay and loss.

pub mod cbr;
pub mod mptcp;
pub mod pareto;
