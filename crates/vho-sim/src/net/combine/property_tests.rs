//! Property tests of both combiners over seeded random bicasts: the HA stamps N packets with
//! consecutive sequence numbers (crossing 65535 → 0 in half the runs) and 16-bit ms stamps
//! (crossing their wrap in some), and each copy crosses its link with a random base delay,
//! service time and jitter, or is lost with a per-link probability.
//!
//! Within a link copies keep their order in the main runs: both of the paper's links deliver in
//! order (3G RLC-AM delivers SDUs in sequence, TS 25.322; 802.11's stop-and-wait ARQ keeps
//! order) and so do the HA-MR tunnels. The guarantees checked do not rely on it, so a
//! quarter of the runs also reorder within each link (jitter without the FIFO constraint).
//!
//! Checked on every run:
//! - the Sequence Number Table rule (§IV-B): no sequence number is forwarded twice (at once
//!   or by release), and every number that arrived at least once is forwarded exactly once,
//!   unless all its copies fell below a deliberately small table ([`Verdict::OutsideTable`]);
//! - NEMO-SHO (§III): the forwarded order is the order of first arrivals;
//! - APC's order (`apc.rs` module doc): for n < m, if a copy of n arrived before m was
//!   forwarded and was not dropped as outside the table, n is forwarded before m;
//! - the handover's completion (§IV-C), at a random instant in half the runs: what is held
//!   leaves then, nothing is held after it, and the guarantees above still hold;
//! - conservation after every call: arrived = forwarded + dropped + buffered;
//! - determinism: the same seed gives the same forwarded sequence and counters.

use super::apc::{Apc, ApcConfig, InitialEDelay};
use super::sequence_table::{NemoSho, DEFAULT_TABLE_SIZE};
use super::{AnyCombiner, Combiner, CombinerStats, LinkClass, Pio, Verdict};
use crate::rng::Rng;
use crate::time::{Dur, Time, NANOS_PER_MILLI};

const SEEDS: u64 = 300;

/// One copy's arrival at the MR. Its token is `id * 2 + link`, `id` the packet's index (the
/// serial order of its sequence number).
#[derive(Clone, Copy, Debug)]
struct Arrival {
    at: Time,
    tie: u64,
    pio: Pio,
    link: LinkClass,
    id: u32,
}

fn token(a: &Arrival) -> u32 {
    a.id * 2 + (a.link == LinkClass::Slow) as u32
}

struct Bicast {
    packets: u32,
    t_combining: Time,
    arrivals: Vec<Arrival>,
    /// A timer due at the same instant as an arrival goes first.
    timer_first_on_tie: bool,
    table_size: u32,
    /// The handover's completion ([`Combiner::complete`]), in half the runs.
    complete_at: Option<Time>,
}

/// A link's copies: arrival times (or `None`: lost) for packets sent at `sent`.
fn cross_link(
    rng: &mut Rng,
    sent: &[Time],
    base_ms: u64,
    fifo: bool,
    loss: f64,
) -> Vec<Option<Time>> {
    let service = Dur::from_micros(500 + rng.below(30_000));
    let jitter_us = rng.below(if fifo { 50_000 } else { 300_000 }) + 1;
    let mut last = Time::ZERO;
    sent.iter()
        .map(|&s| {
            let mut at = s + Dur::from_millis(base_ms) + Dur::from_micros(rng.below(jitter_us));
            if fifo {
                at = at.max(last + service);
                last = at;
            }
            (!rng.bernoulli(loss)).then_some(at)
        })
        .collect()
}

fn bicast(seed: u64) -> Bicast {
    let mut rng = Rng::stream(seed, "combine-property");
    let packets = 20 + rng.below(400) as u32;
    let first_seq = if seed.is_multiple_of(2) {
        (65536 - packets as u64 / 2) as u16
    } else {
        rng.below(65536) as u16
    };
    let t_combining = Time::from_millis(rng.below(2_000));
    // The BU's transit: T_bicasting later than T_combining (§IV-B).
    let t_bicasting = t_combining + Dur::from_micros(rng.below(80_000));
    // Up to 80 s into the bicast, so that the 16-bit ms stamp wraps (at 65.536 s) in some runs.
    let mut at = t_bicasting + Dur::from_millis(rng.below(80_000));
    let mut sent = Vec::with_capacity(packets as usize);
    for _ in 0..packets {
        at += Dur::from_micros(200 + rng.below(20_000));
        sent.push(at);
    }
    let fifo = rng.below(4) != 0;
    let loss = |rng: &mut Rng| [0.0, 0.02, 0.1, 0.3, 0.6][rng.below(5) as usize];
    let (fast_base, slow_base) = (5 + rng.below(60), 50 + rng.below(1_500));
    let (fast_loss, slow_loss) = (loss(&mut rng), loss(&mut rng));
    let fast = cross_link(&mut rng, &sent, fast_base, fifo, fast_loss);
    let slow = cross_link(&mut rng, &sent, slow_base, fifo, slow_loss);
    let mut arrivals = Vec::new();
    for (i, &s) in sent.iter().enumerate() {
        let pio = Pio {
            seq: first_seq.wrapping_add(i as u16),
            // T_sent^n: ms since T_bicasting, truncated, modulo 2^16 (Fig. 3).
            sent_ms: ((s.as_nanos() - t_bicasting.as_nanos()) / NANOS_PER_MILLI) as u16,
        };
        for (link, at) in [(LinkClass::Fast, fast[i]), (LinkClass::Slow, slow[i])] {
            if let Some(at) = at {
                let (tie, id) = (rng.next_u64(), i as u32);
                arrivals.push(Arrival {
                    at,
                    tie,
                    pio,
                    link,
                    id,
                });
            }
        }
    }
    arrivals.sort_by_key(|a| (a.at, a.tie));
    // Its own stream, so that the bicasts are the ones the other draws always gave.
    let mut crng = Rng::stream(seed, "combine-property-completion");
    let complete_at = match (crng.below(2), arrivals.first(), arrivals.last()) {
        (0, Some(f), Some(l)) => {
            let span = l.at.saturating_since(f.at).as_nanos().max(1);
            Some(f.at + Dur(crng.below(span)))
        }
        _ => None,
    };
    Bicast {
        complete_at,
        packets,
        t_combining,
        arrivals,
        timer_first_on_tie: rng.below(2) == 0,
        table_size: if rng.below(5) == 0 {
            4 + rng.below(60) as u32
        } else {
            DEFAULT_TABLE_SIZE
        },
    }
}

fn apc_config(seed: u64, table_size: u32) -> ApcConfig {
    let mut rng = Rng::stream(seed, "combine-property-apc");
    let alpha = [0.0, 0.5, 0.875, 1.0][rng.below(4) as usize];
    let initial = match rng.below(4) {
        0 => InitialEDelay::Fixed(Dur::ZERO),
        1 => InitialEDelay::Fixed(Dur::from_secs(1)),
        2 => InitialEDelay::Fixed(Dur::from_millis(rng.below(3_000))),
        _ => InitialEDelay::FirstSlowDelay {
            max_wait: Dur::from_millis(rng.below(3_000)),
        },
    };
    ApcConfig {
        alpha,
        initial,
        table_size,
    }
}

/// What a run did.
#[derive(PartialEq, Debug)]
struct Outcome {
    /// Tokens in the order they left the combiner.
    out: Vec<u32>,
    stats: CombinerStats,
    /// Per packet id: how many tokens had left when its first copy arrived.
    out_len_at_first_arrival: Vec<Option<usize>>,
    /// Per packet id: whether some copy was not answered `OutsideTable`.
    inside_table: Vec<bool>,
}

/// Drives a combiner through the arrivals in virtual time, in the module doc's call order.
fn run(c: &mut impl Combiner<u32>, b: &Bicast) -> Outcome {
    let mut o = Outcome {
        out: Vec::new(),
        stats: CombinerStats::default(),
        out_len_at_first_arrival: vec![None; b.packets as usize],
        inside_table: vec![false; b.packets as usize],
    };
    let conserved = |c: &dyn Combiner<u32>| {
        let s = c.stats();
        assert_eq!(
            s.arrived(),
            s.forwarded() + s.dropped() + c.buffered() as u64
        );
    };
    let mut now = Time::ZERO;
    let mut next = 0;
    let mut steps = 0;
    let mut complete_at = b.complete_at;
    let mut held_at_completion = None;
    loop {
        steps += 1;
        assert!(
            steps < 10 * b.arrivals.len() + 100,
            "the run makes progress"
        );
        let arrival = b.arrivals.get(next);
        let timer = c.poll_timeout();
        // The completion goes before an arrival or a timer at or after its instant.
        let due = arrival.map(|a| a.at).into_iter().chain(timer).min();
        if let (Some(t), Some(d)) = (complete_at, due) {
            if t <= d {
                complete_at = None;
                now = now.max(t);
                c.complete(now);
                o.out.extend(std::iter::from_fn(|| c.poll_release(now)));
                assert_eq!(c.buffered(), 0, "completion releases everything held");
                held_at_completion = Some(c.stats().held);
                conserved(c);
                continue;
            }
        }
        if let Some(h) = held_at_completion {
            assert_eq!(c.stats().held, h, "nothing is held after completion");
        }
        let take_timer = match (arrival, timer) {
            (None, None) => break,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(a), Some(t)) => t < a.at || (t == a.at && b.timer_first_on_tie),
        };
        if take_timer {
            now = now.max(timer.expect("checked above"));
            let before = o.out.len();
            o.out.extend(std::iter::from_fn(|| c.poll_release(now)));
            assert!(o.out.len() > before, "a due timer releases something");
            conserved(c);
            continue;
        }
        let a = *arrival.expect("checked above");
        next += 1;
        now = a.at;
        let first = &mut o.out_len_at_first_arrival[a.id as usize];
        first.get_or_insert(o.out.len());
        let v = c.on_copy(now, a.pio, a.link, token(&a));
        o.out.extend(std::iter::from_fn(|| c.poll_release(now)));
        match v {
            Verdict::Forward(t) => {
                assert_eq!(t, token(&a));
                o.out.push(t);
            }
            Verdict::Held | Verdict::Duplicate(_) => {}
            Verdict::OutsideTable(_) => {}
        }
        if !matches!(v, Verdict::OutsideTable(_)) {
            o.inside_table[a.id as usize] = true;
        }
        conserved(c);
    }
    assert_eq!(c.buffered(), 0, "everything held is released in the end");
    o.stats = *c.stats();
    o
}

/// §IV-B's Sequence Number Table: each number forwarded at most once, and exactly once when it
/// arrived and some copy fell inside the table. Returns each id's position in the output.
fn check_exactly_once(o: &Outcome) -> Vec<Option<usize>> {
    let mut pos = vec![None; o.out_len_at_first_arrival.len()];
    for (p, &t) in o.out.iter().enumerate() {
        let id = (t / 2) as usize;
        assert!(pos[id].is_none(), "packet {id} forwarded twice");
        pos[id] = Some(p);
    }
    for (id, p) in pos.iter().enumerate() {
        let arrived = o.out_len_at_first_arrival[id].is_some();
        assert_eq!(p.is_some(), arrived && o.inside_table[id], "packet {id}");
    }
    assert_eq!(o.stats.forwarded(), o.out.len() as u64);
    pos
}

/// Pairs (n < m) forwarded m first: (all of them, those where a copy of n had arrived before
/// m was forwarded).
fn inversions(o: &Outcome, pos: &[Option<usize>]) -> (u64, u64) {
    let (mut all, mut broken) = (0, 0);
    for (n, pn) in pos.iter().enumerate() {
        let Some(pn) = *pn else { continue };
        let arrived = o.out_len_at_first_arrival[n].expect("forwarded, so arrived");
        for pm in pos[n + 1..].iter().flatten() {
            if *pm < pn {
                all += 1;
                if *pm >= arrived {
                    broken += 1;
                }
            }
        }
    }
    (all, broken)
}

#[test]
fn nemo_sho_forwards_each_number_once_in_first_arrival_order() {
    // §III: the first copy is forwarded at once; §IV-B: the table drops the others.
    for seed in 0..SEEDS {
        let b = bicast(seed);
        let mut c = NemoSho::new(b.table_size).expect("valid size");
        let o = run(&mut c, &b);
        check_exactly_once(&o);
        let mut firsts: Vec<(usize, Time, u64)> = Vec::new();
        let mut seen = vec![false; b.packets as usize];
        for a in &b.arrivals {
            if !std::mem::replace(&mut seen[a.id as usize], true) && o.inside_table[a.id as usize] {
                firsts.push((a.id as usize, a.at, a.tie));
            }
        }
        let order: Vec<usize> = o.out.iter().map(|t| (t / 2) as usize).collect();
        let expected: Vec<usize> = firsts.iter().map(|f| f.0).collect();
        assert_eq!(order, expected, "seed {seed}");
        assert_eq!(o.stats.held, 0);
    }
}

#[test]
fn apc_forwards_each_number_once_and_never_lets_a_higher_number_pass_a_present_lower_one() {
    // §IV-B: the table never forwards two copies; in-order release of buffered lower numbers;
    // the order guarantee stated in apc.rs's module doc.
    let mut total = CombinerStats::default();
    let (mut apc_inversions, mut sho_inversions, mut runs_with_late_inversions) = (0, 0, 0);
    for seed in 0..SEEDS {
        let b = bicast(seed);
        let cfg = apc_config(seed, b.table_size);
        let mut c = AnyCombiner::Apc(Apc::new(cfg, b.t_combining).expect("valid config"));
        let o = run(&mut c, &b);
        let pos = check_exactly_once(&o);
        let (all, broken) = inversions(&o, &pos);
        assert_eq!(
            broken, 0,
            "seed {seed}: a higher number passed a lower one present"
        );
        apc_inversions += all;
        runs_with_late_inversions += (all > 0) as u64;

        let mut sho = AnyCombiner::NemoSho(NemoSho::new(b.table_size).expect("valid size"));
        let so = run(&mut sho, &b);
        sho_inversions += inversions(&so, &check_exactly_once(&so)).0;

        let s = o.stats;
        total.held += s.held;
        total.released_by_timer += s.released_by_timer;
        total.released_in_order += s.released_in_order;
        total.released_by_slow_copy += s.released_by_slow_copy;
        total.released_at_completion += s.released_at_completion;
        total.forwarded_at_once += s.forwarded_at_once;
        total.duplicates += s.duplicates;
        total.outside_table += s.outside_table;
    }
    // Not vacuous: every path of the combiner was taken, and the exception the guarantee
    // allows (n arriving only after m went) does happen.
    assert!(total.held > 0 && total.released_by_timer > 0, "{total:?}");
    assert!(
        total.released_in_order > 0 && total.released_by_slow_copy > 0,
        "{total:?}"
    );
    assert!(
        total.forwarded_at_once > 0 && total.duplicates > 0,
        "{total:?}"
    );
    assert!(total.outside_table > 0, "{total:?}");
    assert!(total.released_at_completion > 0, "{total:?}");
    assert!(runs_with_late_inversions > 0);
    // Table II/III's direction: APC delivers out of order less than NEMO-SHO.
    assert!(
        apc_inversions < sho_inversions,
        "{apc_inversions} vs {sho_inversions}"
    );
}

#[test]
fn runs_are_deterministic() {
    // Sans-IO: the same inputs give the same outputs and counters.
    for seed in 0..20 {
        let b = bicast(seed);
        let cfg = apc_config(seed, b.table_size);
        let mut c1 = Apc::new(cfg, b.t_combining).expect("valid");
        let mut c2 = Apc::new(cfg, b.t_combining).expect("valid");
        assert_eq!(run(&mut c1, &b), run(&mut c2, &bicast(seed)));
    }
}
