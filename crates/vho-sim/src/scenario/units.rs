//! Quantities with units, as scenarios write them: `"5 Mb/s"`, `"300 ms"`, `"200 KB"`,
//! `"20 pkt"`. A number, optional spaces, a unit from a fixed list; anything else is refused
//! with the list of what is accepted.

use crate::time::Dur;

pub const RATE_UNITS: &str = "b/s, kb/s, Mb/s, Gb/s (or bps, kbps, Mbps, Gbps)";
pub const TIME_UNITS: &str = "ns, us, ms, s";
pub const SIZE_UNITS: &str = "B, KB, KiB, MB, MiB, GB, GiB";

/// Splits `"12.5 ms"` into (12.5, "ms"). `None` when there is no leading number.
fn split(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .map_or(s.len(), |(i, _)| i);
    // An 'e' only belongs to the number when followed by a digit (1e3), not in a unit.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    v.is_finite().then_some((v, unit.trim()))
}

/// A rate in bit/s, rounded to the nearest bit/s; must be positive.
pub fn rate_bps(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split(s).ok_or_else(|| format!("a rate such as \"200 kb/s\" ({RATE_UNITS})"))?;
    let k = match unit {
        "b/s" | "bps" => 1.0,
        "kb/s" | "kbps" => 1e3,
        "Mb/s" | "Mbps" => 1e6,
        "Gb/s" | "Gbps" => 1e9,
        _ => return Err(format!("a rate such as \"200 kb/s\" ({RATE_UNITS})")),
    };
    let bps = (v * k).round();
    if bps < 1.0 {
        return Err("a positive rate".into());
    }
    Ok(bps as u64)
}

/// A duration; must not be negative.
pub fn duration(s: &str) -> Result<Dur, String> {
    let (v, unit) = split(s).ok_or_else(|| format!("a time such as \"300 ms\" ({TIME_UNITS})"))?;
    let k = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(format!("a time such as \"300 ms\" ({TIME_UNITS})")),
    };
    if v < 0.0 {
        return Err("a time that is not negative".into());
    }
    Ok(Dur::from_secs_f64(v * k))
}

/// A size in bytes; must be positive.
pub fn size_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) = split(s).ok_or_else(|| format!("a size such as \"200 KB\" ({SIZE_UNITS})"))?;
    let k = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        "GB" => 1e9,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("a size such as \"200 KB\" ({SIZE_UNITS})")),
    };
    let b = (v * k).round();
    if b < 1.0 {
        return Err("a positive size".into());
    }
    Ok(b as u64)
}

/// A count of packets: `"20 pkt"`.
pub fn packets(s: &str) -> Option<Result<u32, String>> {
    let (v, unit) = split(s)?;
    if unit != "pkt" && unit != "packets" {
        return None;
    }
    if v < 1.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
        return Some(Err(
            "a whole positive number of packets such as \"20 pkt\"".into()
        ));
    }
    Some(Ok(v as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_times_and_sizes_resolve_exactly() {
        assert_eq!(rate_bps("9.6 kb/s"), Ok(9600));
        assert_eq!(rate_bps("5Mb/s"), Ok(5_000_000));
        assert_eq!(rate_bps("100 Mbps"), Ok(100_000_000));
        assert_eq!(duration("0.6 s"), Ok(Dur::from_millis(600)));
        assert_eq!(duration("1.75 ms"), Ok(Dur::from_micros(1750)));
        assert_eq!(size_bytes("200 KB"), Ok(200_000));
        assert_eq!(size_bytes("16 KiB"), Ok(16_384));
        assert_eq!(packets("20 pkt"), Some(Ok(20)));
        assert_eq!(packets("20 KB"), None);
    }

    #[test]
    fn bad_units_and_signs_are_refused() {
        assert!(rate_bps("5 Mbs").unwrap_err().contains("Mb/s"));
        assert!(rate_bps("0 kb/s").is_err());
        assert!(rate_bps("-5 Mb/s").is_err());
        assert!(duration("-2 ms").unwrap_err().contains("not negative"));
        assert!(duration("3 hours").is_err());
        assert!(size_bytes("lots").is_err());
        assert!(packets("2.5 pkt").is_some_and(|r| r.is_err()));
    }
}
