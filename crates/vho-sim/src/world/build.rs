//! Building the world from a resolved spec: link directions with their queue limits (the
//! `bdp` rule resolved over the paths that cross each link), routes, endpoints, handovers.

use super::{DirEvents, Flow, GoodputWindow, SimError, World};
use crate::link::loss::LossModel;
use crate::link::queue::Limit;
use crate::link::red::{Red, RedParams};
use crate::link::LinkDir;
use crate::net::routes::{dir_is_a_to_b, dir_link, DirIdx, Routes};
use crate::rng::Rng;
use crate::sched::EventQueue;
use crate::spec::{DirSpec, NodeIdx, QueueLimit, QueueModel, Spec};
use crate::time::{Dur, Time};

impl World {
    pub fn new(spec: &Spec) -> Result<World, SimError> {
        let n = spec.nodes.len();
        let ends: Vec<(NodeIdx, NodeIdx)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
        let mut up = vec![true; spec.links.len()];
        for m in &spec.mobiles {
            for &l in &m.interfaces {
                up[l] = l == m.initial;
            }
        }
        super::mip::initial_up(spec, &mut up);
        let mut dirs = Vec::with_capacity(2 * spec.links.len());
        for (l, link) in spec.links.iter().enumerate() {
            for (a_to_b, ds) in [(true, &link.ab), (false, &link.ba)] {
                let (from, to) = if a_to_b {
                    (link.a, link.b)
                } else {
                    (link.b, link.a)
                };
                let limit = resolve_limit(spec, &ends, l, ds);
                if matches!(ds.queue, QueueLimit::Bdp { .. })
                    && ds.queue_model == QueueModel::Ns2DropTail
                    && limit == Limit::Packets(1)
                {
                    // queue/drop-tail.cc drops an arrival once `length + 1 >= qlim_`: with a
                    // limit of 1 every packet. Asked for by name ("1 packets") it runs as ns-2
                    // would; worked out from "bdp" it is refused.
                    return Err(SimError::DeadQueue {
                        link: link.name.clone(),
                        from: spec.nodes[from].name.clone(),
                        to: spec.nodes[to].name.clone(),
                    });
                }
                let side = if a_to_b { "ab" } else { "ba" };
                let loss = LossModel::new(
                    ds.loss.clone(),
                    spec.seed,
                    &format!("link:{}:{side}:loss", link.name),
                );
                let mut dir = LinkDir::new(from, to, ds, limit, loss);
                if let Some(j) = ds.jitter {
                    let rng = Rng::stream(spec.seed, &format!("link:{}:{side}:jitter", link.name));
                    dir.set_jitter(crate::link::jitter::DelayJitter::new(j.mean, j.sd, rng));
                }
                if ds.queue_model == QueueModel::Red {
                    let params = RedParams::resolve(&ds.red, ds.rate_bps, ds.delay);
                    let rng = Rng::stream(spec.seed, &format!("link:{}:{side}:red", link.name));
                    dir.set_red(Red::new(params, rng));
                }
                if ds.link_layer != crate::spec::LinkLayerSpec::Plain {
                    super::link_layers::attach(&mut dir, spec, &link.name, side, ds)?;
                }
                // The queue series' rows, drained into it as the direction is booked: kept
                // only when there is one (with `record.queues = false` they grew unread).
                if spec.record.series && spec.record.queues {
                    dir.starts = Some(Vec::new());
                }
                dirs.push(dir);
            }
        }
        let mut functions = super::functions::build(spec, &dirs);
        let mip = super::mip::attach(spec, &up, &mut functions);
        let functions = super::functions::Functions::new(functions);
        let routes = match &mip {
            Some(w) => w.routes(&up),
            None => Routes::compute(n, &ends, &up),
        };
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (f, fs) in spec.flows.iter().enumerate() {
            let to = |d: DirIdx| dirs[d as usize].to;
            // Routed by address, a mobile's routes are its entities' business (Mobile IPv6).
            if !routes.by_address()
                && (routes.path(fs.src, fs.dst, to).is_none()
                    || routes.path(fs.dst, fs.src, to).is_none())
            {
                return Err(SimError::NoRoute {
                    flow: fs.name.clone(),
                    from: spec.nodes[fs.src].name.clone(),
                    to: spec.nodes[fs.dst].name.clone(),
                });
            }
            flows.push(Flow {
                agents: crate::agent::build(spec, f),
                ends: crate::agent::Ends::of(&fs.kind),
                nodes: [fs.src as u32, fs.dst as u32],
                wake: [None, None],
                started: false,
                completed_at: None,
                delivered: 0,
                source_done: false,
                tput: Default::default(),
                await_new_link: None,
                first_on_new_link: None,
                window: spec
                    .record
                    .goodput_window
                    .map(|(from, until)| GoodputWindow {
                        from,
                        until,
                        bytes: [0, 0],
                    }),
                drops: vec![[0; crate::link::DROP_CAUSES]; dirs.len()],
                ip_id: [0, 0],
                rx_bins: spec.record.series.then(vho_bins),
            });
        }
        let handovers =
            super::handover::Handovers::build(spec, super::mip::handover_mechanism(spec));
        let schedule = super::schedule::Schedule::build(spec);
        let rec = super::recorders::Recorders::build(spec, &dirs, &schedule);
        let mut w = World {
            now: Time::ZERO,
            queue: EventQueue::with_capacity(64),
            slab: Default::default(),
            payloads: Vec::new(),
            pending: vec![DirEvents::default(); dirs.len()],
            dirs,
            ends,
            up,
            routes,
            done: super::completion::Completion::new(spec.flows.len()),
            handovers,
            flows,
            mip,
            schedule,
            functions,
            rec,
            events: 0,
            external_out: None,
            spec: spec.clone(),
        };
        // A Multipath TCP flow's mobile uses every interface at once, as `vho emulate
        // --multipath` makes it (`World::multihome`): its subflows' packets take their own.
        if spec
            .flows
            .iter()
            .any(|f| matches!(f.kind, crate::spec::FlowKind::Mptcp(_)))
        {
            w.multihome();
        }
        Ok(w)
    }
}

fn vho_bins() -> super::RxBins {
    super::RxBins::new(super::ADAPTATION_INTERVAL)
}

/// Queue limit of one direction; `bdp` is rate × the longest round-trip propagation delay
/// of any flow path through the link (with each mobile host on this link when it is one of
/// its interfaces), in packets of the given MTU, rounded up, at least one.
fn resolve_limit(spec: &Spec, ends: &[(NodeIdx, NodeIdx)], link: usize, ds: &DirSpec) -> Limit {
    match ds.queue {
        QueueLimit::Packets(p) => Limit::Packets(p),
        QueueLimit::Bytes(b) => Limit::Bytes(b),
        QueueLimit::Bdp { mtu_bytes } => {
            let rtt = path_rtt_through(spec, ends, link).unwrap_or(ds.delay.saturating_mul(2));
            let bytes = (ds.rate_bps as u128 * rtt.as_nanos() as u128).div_ceil(8 * 1_000_000_000);
            let pkts = (bytes as u64).div_ceil(mtu_bytes.max(1) as u64).max(1);
            Limit::Packets(pkts.min(u32::MAX as u64) as u32)
        }
    }
}

/// The routes with each mobile host on its initial link, but the one that has `link` among
/// its interfaces on `link`: the paths a queue or a proxy on that link serves.
pub(super) fn routes_via(spec: &Spec, ends: &[(NodeIdx, NodeIdx)], link: usize) -> Routes {
    let mut up = vec![true; spec.links.len()];
    for m in &spec.mobiles {
        let on_this = m.interfaces.contains(&link);
        for &l in &m.interfaces {
            up[l] = if on_this { l == link } else { l == m.initial };
        }
    }
    Routes::compute(spec.nodes.len(), ends, &up)
}

/// The spec of link direction `d`.
pub(super) fn dir_spec(spec: &Spec, d: DirIdx) -> &DirSpec {
    let l = &spec.links[dir_link(d)];
    if dir_is_a_to_b(d) {
        &l.ab
    } else {
        &l.ba
    }
}

fn path_rtt_through(spec: &Spec, ends: &[(NodeIdx, NodeIdx)], link: usize) -> Option<Dur> {
    let routes = routes_via(spec, ends, link);
    let dir_to = |d: DirIdx| {
        let (a, b) = ends[dir_link(d)];
        if dir_is_a_to_b(d) {
            b
        } else {
            a
        }
    };
    let delay_of = |d: DirIdx| dir_spec(spec, d).delay;
    let mut best: Option<Dur> = None;
    for f in &spec.flows {
        let (Some(fwd), Some(back)) = (
            routes.path(f.src, f.dst, dir_to),
            routes.path(f.dst, f.src, dir_to),
        ) else {
            continue;
        };
        let crosses = fwd.iter().chain(&back).any(|&d| dir_link(d) == link);
        if crosses {
            let rtt = fwd
                .iter()
                .chain(&back)
                .fold(Dur::ZERO, |acc, &d| acc + delay_of(d));
            best = Some(best.map_or(rtt, |b| b.max(rtt)));
        }
    }
    best
}
