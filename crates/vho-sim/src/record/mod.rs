//! Recording: ground truth, time series and captures. Each part is switchable; a part that
//! is off costs one `Option` check.

pub mod hops;
pub mod pcap;
pub mod pcap6;
pub mod pcap_cross;
pub mod pcap_tfrc;
pub mod series;
pub mod truth;
