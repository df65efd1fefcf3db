//! Detection of spurious retransmissions and timeouts (issue 19).

pub mod dsack;
