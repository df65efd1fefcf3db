//! A packet-delivery trace driving a link direction instead of a fixed rate: Mahimahi's
//! `mm-link` format and semantics (ravinet/mahimahi, `src/frontend/link_queue.cc` at
//! ae477d4, `LinkQueue::rationalize` and `use_a_delivery_opportunity`):
//!
//! - each line of the trace is a millisecond offset from the link's start (here the run's
//!   time zero), nondecreasing, the last one above zero; each is one *delivery opportunity*
//!   of [`MAHIMAHI_PACKET_SIZE`] bytes (several lines with one offset are several);
//! - the packet at the head of the queue takes the bytes of successive opportunities until
//!   it is through (a packet may span opportunities); what the packet leaves of its last
//!   opportunity goes to the packet behind it if that one was already waiting, and is lost
//!   otherwise (`if ( packet_queue_->empty() ) break;`): unused opportunities are burnt;
//! - a packet arriving at an instant cannot use the opportunities of that instant
//!   (`read_packet` calls `rationalize( now )` before it enqueues);
//! - at the end the trace repeats, shifted by its last offset (`base_timestamp_ +=
//!   schedule_.back()`; vho always repeats, mm-link's default).
//!
//! A packet's serialisation ends at the opportunity that carries its last byte. The lazy
//! serialiser asks for that instant when the packet starts ([`DeliveryTrace::done`]).

pub use crate::config::link::Opportunities;
use crate::time::{Dur, Time};

/// Bytes per delivery opportunity (`LinkQueue::PACKET_SIZE`, "default max TUN payload size",
/// `src/frontend/link_queue.hh`).
pub const MAHIMAHI_PACKET_SIZE: u32 = 1504;

/// [`Opportunities`] built line by line, checked as mm-link checks a trace (`new`).
#[derive(Default)]
pub struct OpportunitiesBuilder {
    ms: Vec<u64>,
    count: Vec<u32>,
}

impl OpportunitiesBuilder {
    /// One more opportunity at `ms`; an offset below the last one is refused (what was
    /// expected, and what was found).
    pub fn push(&mut self, ms: u64) -> Result<(), (String, String)> {
        match (self.ms.last(), self.count.last_mut()) {
            (Some(&last), _) if ms < last => Err((
                "millisecond offsets in nondecreasing order".into(),
                format!("{ms} after {last}"),
            )),
            (Some(&last), Some(n)) if ms == last && *n < u32::MAX => {
                *n += 1;
                Ok(())
            }
            _ => {
                self.ms.push(ms);
                self.count.push(1);
                Ok(())
            }
        }
    }

    /// The opportunities, unless there are none or the last is at 0 ms.
    pub fn finish(self) -> Result<Opportunities, String> {
        match self.ms.last() {
            None => Err("at least one delivery opportunity".into()),
            Some(0) => Err("a trace lasting more than 0 ms".into()),
            Some(_) => Ok(Opportunities {
                ms: self.ms.into(),
                count: self.count.into(),
            }),
        }
    }
}

impl Opportunities {
    /// From the lines' offsets, as mm-link checks them: not empty, nondecreasing, lasting
    /// more than zero.
    pub fn new(ms: &[u64]) -> Result<Opportunities, String> {
        let mut b = OpportunitiesBuilder::default();
        for &m in ms {
            b.push(m).map_err(|(expected, _)| expected)?;
        }
        b.finish()
    }

    /// Every opportunity's offset (ms), in order: the trace's lines.
    pub fn iter_ms(&self) -> impl Iterator<Item = u64> + '_ {
        self.ms
            .iter()
            .zip(self.count.iter())
            .flat_map(|(&m, &n)| std::iter::repeat_n(m, n as usize))
    }

    /// How many opportunities (lines) in one period.
    pub fn len(&self) -> u64 {
        self.count.iter().map(|&n| n as u64).sum()
    }

    /// How many distinct offsets are kept (the memory held: 12 bytes each).
    pub fn distinct(&self) -> usize {
        self.ms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }

    /// The offset (ns) of distinct entry `i`.
    fn ns(&self, i: usize) -> u64 {
        self.ms[i].saturating_mul(1_000_000)
    }
}

/// The lines, `[1, 2, 2]`, as the list the spec held before: a scenario's hash is of its
/// `Debug` form (streamed, never a string: `scenario::hash`), and stays what it was.
impl std::fmt::Debug for Opportunities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter_ms()).finish()
    }
}

/// A delivery trace and how far the direction has used it.
#[derive(Clone, Debug)]
pub struct DeliveryTrace {
    ops: Opportunities,
    /// The trace's length: its last offset (ns).
    period: u64,
    /// Start of the current period (ns).
    base: u64,
    /// The distinct offset of the next opportunity not yet used or burnt, and how many of
    /// that offset's opportunities are.
    next: usize,
    used: u32,
    /// Bytes the last opportunity used has left, and its instant.
    left: u32,
    last_at: Time,
}

impl DeliveryTrace {
    /// A trace from its millisecond offsets, as mm-link checks them: not empty,
    /// nondecreasing, lasting more than zero.
    pub fn new(ms: &[u64]) -> Result<DeliveryTrace, String> {
        Opportunities::new(ms).map(DeliveryTrace::from_opportunities)
    }

    /// A trace of checked opportunities (`Opportunities` cannot be empty or last 0 ms).
    pub fn from_opportunities(ops: Opportunities) -> DeliveryTrace {
        DeliveryTrace {
            period: ops.ns(ops.ms.len() - 1),
            ops,
            base: 0,
            next: 0,
            used: 0,
            left: 0,
            last_at: Time::ZERO,
        }
    }

    /// The mean rate the trace delivers (bit/s), for what asks a direction its rate.
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.ops.len() as u128 * MAHIMAHI_PACKET_SIZE as u128 * 8;
        ((bits * 1_000_000_000) / self.period as u128).max(1) as u64
    }

    /// The same trace with its time zero at `t` (a schedule's `at`).
    pub fn starting_at(mut self, t: Time) -> DeliveryTrace {
        self.base = t.as_nanos();
        self.last_at = t;
        self
    }

    fn at(&self, i: usize) -> u64 {
        self.base + self.ops.ns(i)
    }

    fn step(&mut self) {
        self.used += 1;
        if self.used == self.ops.count[self.next] {
            self.used = 0;
            self.next += 1;
            if self.next == self.ops.ms.len() {
                self.next = 0;
                self.base += self.period;
            }
        }
    }

    /// The instant the serialisation of a `size`-byte packet starting at `start` ends.
    /// `queued`: it waited in the queue at `start` (it may take what the packet ahead left
    /// of an opportunity at `start`, and the opportunities at `start`); otherwise it arrived
    /// then, and only later opportunities carry it.
    pub fn done(&mut self, start: Time, size: u32, queued: bool) -> Time {
        let mut need = size;
        if queued && start == self.last_at && self.left > 0 {
            let used = need.min(self.left);
            need -= used;
            self.left -= used;
            if need == 0 {
                return start;
            }
        }
        self.left = 0;
        self.burn_before(start.as_nanos(), queued);
        loop {
            let at = Time(self.at(self.next));
            self.step();
            let used = need.min(MAHIMAHI_PACKET_SIZE);
            need -= used;
            if need == 0 {
                self.left = MAHIMAHI_PACKET_SIZE - used;
                self.last_at = at;
                return at;
            }
        }
    }

    /// Burns the opportunities before `t`, and those at `t` unless `keep_at_t` (a packet
    /// that waited keeps them), whole periods at once.
    fn burn_before(&mut self, t: u64, keep_at_t: bool) {
        let usable = |x: u64| if keep_at_t { x >= t } else { x > t };
        if t >= self.base + 2 * self.period {
            // Whole periods with nothing to carry.
            let periods = (t - self.base) / self.period - 1;
            self.base += periods * self.period;
            self.next = 0;
            self.used = 0;
        }
        loop {
            let (base, from) = (self.base, self.next);
            let skip = self.ops.ms[from..]
                .partition_point(|&m| !usable(base + m.saturating_mul(1_000_000)));
            if skip > 0 {
                self.next = from + skip;
                self.used = 0;
            }
            if self.next < self.ops.ms.len() {
                return;
            }
            self.next = 0;
            self.used = 0;
            self.base += self.period;
        }
    }
}

/// The time on the air a trace gives, as a duration from `start` (for the serialiser).
pub fn on_air(trace: &mut DeliveryTrace, start: Time, size: u32, queued: bool) -> Dur {
    trace.done(start, size, queued).saturating_since(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn each_line_is_one_opportunity_of_1504_bytes() {
        // link_queue.cc: an opportunity carries PACKET_SIZE = 1504 bytes; a 1500-byte
        // packet needs one, a 3000-byte one two.
        let mut t = DeliveryTrace::new(&[1, 2, 3, 4]).unwrap();
        assert_eq!(t.done(Time::ZERO, 1500, false), ms(1));
        assert_eq!(t.done(ms(1), 3000, false), ms(3));
    }

    #[test]
    fn a_waiting_packet_takes_what_the_one_ahead_left_and_an_arrival_does_not() {
        // 1000 B through at the 1 ms opportunity leaves 504 B; the packet waiting behind
        // it takes them and the 2 ms one (1000 - 504 = 496 B more). A packet arriving at
        // 3 ms instead (rationalize before enqueue) cannot use the 3 ms opportunity.
        let mut t = DeliveryTrace::new(&[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(t.done(Time::ZERO, 1000, false), ms(1));
        assert_eq!(t.done(ms(1), 1000, true), ms(2));
        assert_eq!(t.done(ms(3), 100, false), ms(4));
        // Waiting behind it at 4 ms: the 1404 B the 100 B packet left of that opportunity.
        assert_eq!(t.done(ms(4), 1404, true), ms(4));
    }

    #[test]
    fn opportunities_with_one_offset_are_several_and_idle_ones_are_burnt() {
        // Three lines at 10 ms: three opportunities at that instant, for packets waiting
        // then; the 20 and 30 ms ones pass unused while idle.
        let mut t = DeliveryTrace::new(&[10, 10, 10, 20, 30, 40]).unwrap();
        assert_eq!(t.done(Time::ZERO, 1500, false), ms(10));
        assert_eq!(t.done(ms(10), 1500, true), ms(10));
        assert_eq!(t.done(ms(10), 1500, true), ms(10));
        assert_eq!(t.done(ms(35), 1500, false), ms(40));
    }

    #[test]
    fn the_trace_repeats_shifted_by_its_last_offset() {
        // use_a_delivery_opportunity: on wrapping, base += schedule_.back(). Trace 5, 10:
        // opportunities at 5, 10, 15, 20, ... and after a long idle period, 1005 ms at the
        // earliest past 1002 ms.
        let mut t = DeliveryTrace::new(&[5, 10]).unwrap();
        let got: Vec<Time> = (0..4).map(|_| t.done(Time::ZERO, 1500, true)).collect();
        assert_eq!(got, [ms(5), ms(10), ms(15), ms(20)]);
        assert_eq!(t.done(ms(1002), 1500, false), ms(1005));
        assert_eq!(t.done(ms(1005), 1500, true), ms(1010));
    }

    #[test]
    fn bad_traces_are_refused_as_mm_link_refuses_them() {
        assert!(DeliveryTrace::new(&[]).is_err());
        assert!(DeliveryTrace::new(&[5, 3]).is_err());
        assert!(DeliveryTrace::new(&[0, 0]).is_err());
    }

    #[test]
    fn the_mean_rate_is_the_bytes_of_the_opportunities_over_the_period() {
        // One opportunity per ms: 1504 B x 8 / 1 ms = 12.032 Mb/s.
        let ms: Vec<u64> = (1..=1000).collect();
        assert_eq!(DeliveryTrace::new(&ms).unwrap().mean_rate_bps(), 12_032_000);
    }
}
