//! The resolved scenario written back as TOML: the general form ([[node]], [[link]] with both
//! directions spelt out), every default filled in, every TCP key the scenario format has. A
//! run writes it beside its summary (`scenario.resolved.toml`) and `vho run --dry-run` prints
//! it; loading it gives the same `Spec` (a test checks the round trip), so it is also the way to
//! freeze a scenario against a change of presets or profiles.

use crate::spec::*;
use crate::tcp::config::{
    CcAlgorithm, CwndCounting, CwndValidation, FastRetransmitTimer, FrtoVariant, LossDetection,
    RttSampling, SackRecovery, SpuriousResponse, TcpConfig, TimeoutSsthresh, UndoRules,
};
use crate::time::Dur;
use std::fmt::Write;

/// The TOML text of a resolved scenario.
pub fn to_toml(spec: &Spec) -> String {
    let mut o = String::new();
    let node = |i: NodeIdx| q(&spec.nodes[i].name);
    let link = |i: LinkIdx| q(&spec.links[i].name);
    let _ = writeln!(
        o,
        "# The resolved scenario: every default filled in (vho {}).\n",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(o, "[run]\nname = {}\nseed = {}", q(&spec.name), spec.seed);
    let _ = writeln!(o, "stop = {}\n", dur(Dur(spec.stop_at.as_nanos())));
    for n in &spec.nodes {
        let kind = match n.kind {
            NodeKind::Host => "host",
            NodeKind::Router => "router",
            NodeKind::Mobile => "mobile",
        };
        let _ = writeln!(o, "[[node]]\nname = {}\nkind = \"{kind}\"\n", q(&n.name));
    }
    for l in &spec.links {
        let _ = writeln!(o, "[[link]]\nname = {}", q(&l.name));
        let _ = writeln!(o, "between = [{}, {}]", node(l.a), node(l.b));
        if let Some(p) = &l.preset {
            let _ = writeln!(o, "# from preset {}", q(p));
        }
        if let QueueLimit::Bdp { mtu_bytes } = l.ab.queue {
            let _ = writeln!(o, "mtu = {mtu_bytes}");
        }
        let _ = writeln!(o, "forward = {}", dir(&l.ab));
        let _ = writeln!(o, "reverse = {}\n", dir(&l.ba));
    }
    for m in &spec.mobiles {
        let ifs: Vec<String> = m.interfaces.iter().map(|&l| link(l)).collect();
        let _ = writeln!(
            o,
            "{}\nnode = {}\ninterfaces = [{}]\nstart = {}\n",
            if spec.mobiles.len() > 1 {
                "[[mobile]]"
            } else {
                "[mobile]"
            },
            node(m.node),
            ifs.join(", "),
            link(m.initial)
        );
    }
    for h in &spec.handovers {
        let _ = writeln!(o, "[[handover]]\nat = {}", dur(Dur(h.at.as_nanos())));
        if h.window > Dur::ZERO {
            let _ = writeln!(o, "window = {}", dur(h.window));
        }
        let _ = writeln!(o, "from = {}\nto = {}", link(h.from), link(h.to));
        let (kind, loss) = match h.kind {
            HandoverKind::SoftDrainOld => ("soft", None),
            HandoverKind::SoftReconfigure { shrink: false } => ("soft-reconfigure", None),
            HandoverKind::SoftReconfigure { shrink: true } => ("soft-shrink", None),
            HandoverKind::Hard { loss_fraction } => ("hard", Some(loss_fraction)),
        };
        let _ = writeln!(o, "kind = \"{kind}\"");
        if let Some(l) = loss {
            let _ = writeln!(o, "loss = {l:?}");
        }
        if h.delay > Dur::ZERO {
            let _ = writeln!(o, "delay = {}", dur(h.delay));
        }
        match h.notify {
            None => {}
            Some(0) => o.push_str("notify = \"at\"\n"),
            Some(ns) => {
                let side = if ns < 0 { "before" } else { "after" };
                let _ = writeln!(
                    o,
                    "notify = \"{side}\"\nnotify_offset = {}",
                    dur(Dur(ns.unsigned_abs()))
                );
            }
        }
        if h.uplink_delay > Dur::ZERO {
            let _ = writeln!(o, "uplink_delay = {}", dur(h.uplink_delay));
        }
        if h.in_flight == InFlight::Delivered {
            o.push_str("in_flight = \"delivered\"\n");
        }
        match h.flush {
            Flush::Off => {}
            Flush::Move => o.push_str("flush = \"move\"\n"),
            Flush::Discard => o.push_str("flush = \"discard\"\n"),
        }
        o.push('\n');
    }
    for s in &spec.schedules {
        schedule(&mut o, s, &link(s.link));
    }
    let mut i = 0;
    while i < spec.flows.len() {
        let n = identical_run(spec, &spec.flows[i..]);
        let f = &spec.flows[i];
        match n {
            Some(n) => flow(
                &mut o,
                spec,
                f,
                f.name.strip_suffix("-0").unwrap_or(&f.name),
                Some(n),
            ),
            None => flow(&mut o, spec, f, &f.name, None),
        }
        i += n.unwrap_or(1);
    }
    for f in &spec.functions {
        let _ = writeln!(
            o,
            "[[node_function]]\nnode = {}\nkind = {}\n",
            node(f.node),
            q(f.kind.name())
        );
    }
    if let Some(m) = &spec.mipv6 {
        mipv6(&mut o, spec, m);
    }
    if let Some(n) = &spec.nemo {
        nemo(&mut o, spec, n);
    }
    let pcap: Vec<String> = spec.record.pcap_at.iter().map(|&n| node(n)).collect();
    let _ = writeln!(
        o,
        "[record]\npcap = [{}]\nsnaplen = {}\nseries = {}\nqueues = {}\npcap_cross = {}",
        pcap.join(", "),
        spec.record.snaplen,
        spec.record.series,
        spec.record.queues,
        spec.record.pcap_cross
    );
    if let Some((from, until)) = spec.record.goodput_window {
        let _ = writeln!(
            o,
            "goodput_from = {}\ngoodput_until = {}",
            dur(Dur(from.as_nanos())),
            dur(Dur(until.as_nanos()))
        );
    }
    o
}

/// `[mipv6]` with every setting, and one `[[mipv6.router]]` per access link.
/// How many flows from the first form a run that one `[[flow]]` table with `count` gives back:
/// named `NAME-0`, `NAME-1`, ... and alike in all else (at least two; else `None`).
fn identical_run(spec: &Spec, flows: &[FlowSpec]) -> Option<usize> {
    let base = flows.first()?.name.strip_suffix("-0")?;
    let body = |f: &FlowSpec| {
        let mut o = String::new();
        flow_body(&mut o, spec, f);
        (f.src, f.dst, o)
    };
    let first = body(&flows[0]);
    let n = flows
        .iter()
        .enumerate()
        .take_while(|(k, f)| f.name == format!("{base}-{k}") && body(f) == first)
        .count();
    (n >= 2).then_some(n)
}

/// One `[[flow]]` table: `name`, with `count` when it stands for several.
fn flow(o: &mut String, spec: &Spec, f: &FlowSpec, name: &str, count: Option<usize>) {
    let _ = writeln!(o, "[[flow]]\nname = {}", q(name));
    if let Some(n) = count {
        let _ = writeln!(o, "count = {n}");
    }
    let _ = writeln!(
        o,
        "from = {}\nto = {}",
        q(&spec.nodes[f.src].name),
        q(&spec.nodes[f.dst].name)
    );
    flow_body(o, spec, f);
}

/// A flow's keys after its name and ends.
fn flow_body(o: &mut String, spec: &Spec, f: &FlowSpec) {
    if f.bytes != u64::MAX {
        let _ = writeln!(o, "size = \"{} B\"", f.bytes);
    }
    let _ = writeln!(o, "start = {}", dur(Dur(f.start.as_nanos())));
    if matches!(f.kind, crate::spec::FlowKind::Tfrc(_)) {
        let _ = writeln!(o, "kind = \"tfrc\"");
    }
    if let crate::spec::FlowKind::Pareto(c) = &f.kind {
        let _ = writeln!(
            o,
            "kind = \"pareto\"\n[flow.pareto]\nrate = \"{} b/s\"\npacket_size = \"{} B\"\n\
             burst_time = {}\nidle_time = {}\nshape = {:?}\n",
            c.rate_bps,
            c.packet_size,
            dur(c.burst_time),
            dur(c.idle_time),
            c.shape
        );
        return;
    }
    if let crate::spec::FlowKind::Cbr(c) = &f.kind {
        let _ = writeln!(
            o,
            "kind = \"cbr\"\n[flow.cbr]\nrate = \"{} b/s\"\npacket_size = \"{} B\"\n",
            c.rate_bps, c.packet_size
        );
        return;
    }
    if let crate::spec::FlowKind::Mptcp(c) = &f.kind {
        let _ = writeln!(
            o,
            "kind = \"mptcp\"\n[flow.mptcp]\nscheduler = {}\ncongestion_control = {}\n\
             stale_loss_cnt = {}\nmax_subflows = {}\nadd_addr_accepted = {}\n\
             [flow.mptcp.endpoints]",
            q(c.scheduler.name()),
            q(c.coupling.name()),
            c.stale_loss_cnt,
            c.max_subflows,
            c.add_addr_accepted
        );
        let m = spec
            .mobiles
            .iter()
            .find(|m| m.node == f.src || m.node == f.dst);
        for e in c.endpoints() {
            let Some(&l) = m.and_then(|m| m.interfaces.get(usize::from(e.interface))) else {
                continue;
            };
            use crate::traffic::mptcp::flags as fl;
            let names: Vec<String> = [
                (fl::SIGNAL, "signal"),
                (fl::SUBFLOW, "subflow"),
                (fl::BACKUP, "backup"),
                (fl::FULLMESH, "fullmesh"),
            ]
            .iter()
            .filter(|(b, _)| e.flags & b != 0)
            .map(|(_, n)| q(n))
            .collect();
            let _ = writeln!(o, "{} = [{}]", q(&spec.links[l].name), names.join(", "));
        }
        let _ = writeln!(o, "[flow.tcp]\n{}", tcp(&f.tcp));
        return;
    }
    if !f.remedies.is_empty() {
        let names: Vec<String> = f.remedies.iter().map(|r| q(r.name())).collect();
        let _ = writeln!(o, "remedies = [{}]", names.join(", "));
    }
    match &f.kind {
        crate::spec::FlowKind::Tfrc(c) => {
            let _ = writeln!(
                o,
                "[flow.tfrc]\npacket_size = \"{} B\"\noscillation_prevention = {}\n",
                c.segment_size, c.oscillation_prevention
            );
        }
        crate::spec::FlowKind::Tcp => {
            let _ = writeln!(o, "[flow.tcp]\n{}", tcp(&f.tcp));
        }
        // Written whole above (a Pareto or CBR flow has no remedies, TCP or probe).
        crate::spec::FlowKind::Pareto(_)
        | crate::spec::FlowKind::Cbr(_)
        | crate::spec::FlowKind::Mptcp(_) => {}
    }
    if f.probe.enabled {
        let p = &f.probe;
        let _ = writeln!(
            o,
            "[flow.probe]\nenabled = true\nihn = {}\nehn = {}\nfra = {}\nfra_cap = {}\n\
             err = {}\npair_every = {}\nfilter = \"{}\"\nwindow = {}\nalpha = {:?}\n\
             beta = {:?}\n",
            p.ihn,
            p.ehn,
            p.fra,
            p.fra_cap,
            p.err,
            p.pair_every,
            p.filter.name(),
            p.window,
            p.alpha,
            p.beta
        );
    }
}

fn mipv6(o: &mut String, spec: &Spec, m: &crate::mip::MipSpec) {
    use crate::mip::{Dad, Detection, RoStart};
    let node = |i: NodeIdx| q(&spec.nodes[i].name);
    let link = |i: LinkIdx| q(&spec.links[i].name);
    let _ = writeln!(o, "[mipv6]\nhome_agent = {}", node(m.home_agent));
    let cns: Vec<String> = m.correspondents.iter().map(|&n| node(n)).collect();
    let _ = writeln!(o, "correspondents = [{}]", cns.join(", "));
    match m.detection {
        Detection::RaMiss { k } => {
            let _ = writeln!(o, "detection = \"ra-miss\"\nra_missed = {k}");
        }
        Detection::L2Trigger { delay } => {
            let _ = writeln!(o, "detection = \"l2-trigger\"\nl2_delay = {}", dur(delay));
        }
    }
    let dad = match m.dad {
        Dad::Full => "full",
        Dad::Optimistic => "optimistic",
        Dad::None => "none",
    };
    let _ = writeln!(o, "dad = {}", q(dad));
    let _ = writeln!(o, "preconfigured = {}", m.preconfigured);
    let _ = writeln!(o, "route_optimisation = {}", m.route_optimisation);
    let (start, delay) = match m.ro_start {
        RoStart::AfterBa => ("after-ba", Dur::ZERO),
        RoStart::AfterBaDelay(d) => ("after-ba-delay", d),
        RoStart::OnTraffic => ("on-traffic", Dur::ZERO),
        RoStart::Parallel => ("parallel", Dur::ZERO),
    };
    let _ = writeln!(o, "ro_start = {}\nro_delay = {}", q(start), dur(delay));
    let attached: Vec<String> = m.attached.iter().flatten().map(|&l| link(l)).collect();
    let _ = writeln!(o, "attached = [{}]", attached.join(", "));
    let _ = writeln!(o, "rs_delay = {}\ncn_ack = {}", m.rs_delay, m.cn_ack);
    // Only when set: every scenario rendered before the key existed renders as it did.
    if !m.cn_bound {
        let _ = writeln!(o, "cn_bound = false");
    }
    let _ = writeln!(o, "processing = {}\n", dur(m.processing));
    for r in &m.routers {
        let _ = writeln!(
            o,
            "[[mipv6.router]]\nlink = {}\nnode = {}\nra_min = {}\nra_max = {}\nlink_layer = {}\n\
             min_delay_between_ras = {}\n",
            link(r.link),
            node(r.node),
            dur(r.ra_min),
            dur(r.ra_max),
            r.link_layer,
            dur(r.min_delay_between_ras)
        );
    }
}

/// `[nemo]` with every setting.
fn nemo(o: &mut String, spec: &Spec, n: &crate::mip::bicast::NemoSpec) {
    use crate::net::combine::apc::InitialEDelay;
    use crate::net::nemo_combiner::Combining;
    let node = |i: NodeIdx| q(&spec.nodes[i].name);
    let router = spec.mobiles.get(n.router).map_or(0, |m| m.node);
    let network: Vec<String> = n.network.iter().map(|&x| node(x)).collect();
    let _ = writeln!(
        o,
        "[nemo]\nrouter = {}\nnetwork = [{}]",
        node(router),
        network.join(", ")
    );
    if let Some((from, until)) = n.bicast {
        let _ = writeln!(
            o,
            "bicast_from = {}\nbicast_until = {}\nbicast_uplink = {}",
            dur(Dur(from.as_nanos())),
            dur(Dur(until.as_nanos())),
            n.uplink
        );
    }
    match n.combining {
        Combining::None => {
            let _ = writeln!(o, "combining = \"none\"\n");
        }
        Combining::NemoSho => {
            let _ = writeln!(o, "combining = \"nemo-sho\"\n");
        }
        Combining::Apc(c) => {
            let _ = writeln!(o, "combining = \"apc\"\napc_alpha = {}", c.alpha);
            match c.initial {
                InitialEDelay::Fixed(d) => {
                    let _ = writeln!(o, "apc_initial_delay = {}\n", dur(d));
                }
                InitialEDelay::FirstSlowDelay { .. } => {
                    let _ = writeln!(o, "apc_first_measured = true\n");
                }
            }
        }
    }
}

/// One `[[schedule]]`, its directions named as the general form's (forward, reverse).
fn schedule(o: &mut String, s: &ScheduleSpec, link: &str) {
    let direction = match (s.ab, s.ba) {
        (true, false) => "forward",
        (false, true) => "reverse",
        _ => "both",
    };
    let _ = writeln!(
        o,
        "[[schedule]]\nlink = {link}\ndirection = \"{direction}\""
    );
    let _ = writeln!(o, "at = {}", dur(Dur(s.at.as_nanos())));
    if let Some(u) = s.until {
        let _ = writeln!(o, "until = {}", dur(Dur(u.as_nanos())));
    }
    fn level<T: Copy>(l: Level<T>, f: impl Fn(T) -> String) -> String {
        match l {
            Level::To(v) => f(v),
            Level::Ramp(a, b) => format!("[{}, {}]", f(a), f(b)),
        }
    }
    let stepped = matches!(s.rate_bps, Some(Level::Ramp(..)))
        || matches!(s.delay, Some(Level::Ramp(..)))
        || matches!(s.bler, Some(Level::Ramp(..)))
        || matches!(s.ber, Some(Level::Ramp(..)));
    if stepped {
        let _ = writeln!(o, "step = {}", dur(s.step));
    }
    if let Some(r) = s.rate_bps {
        let _ = writeln!(o, "rate = {}", level(r, |v| format!("\"{v} b/s\"")));
    }
    if let Some(d) = s.delay {
        let _ = writeln!(o, "delay = {}", level(d, dur));
    }
    if let Some(p) = s.loss {
        let _ = writeln!(o, "loss = {}", level(p, |v| format!("{v:?}")));
    }
    if let Some(p) = s.bler {
        let _ = writeln!(o, "bler = {}", level(p, |v| format!("{v:?}")));
    }
    if let Some(p) = s.ber {
        let _ = writeln!(o, "ber = {}", level(p, |v| format!("{v:?}")));
    }
    if let Some(st) = s.state {
        let _ = writeln!(o, "state = {}", q(st.name()));
    }
    if let Some(src) = s.trace.as_ref().and_then(|t| t.source.as_ref()) {
        let _ = writeln!(o, "trace_file = {}", q(&src.path));
        let _ = writeln!(o, "trace_sha256 = {}", q(&src.sha256));
    } else if let Some(t) = &s.trace {
        let ms: Vec<String> = t.opportunities.iter_ms().map(|m| m.to_string()).collect();
        let _ = writeln!(o, "trace = [{}]", ms.join(", "));
    }
    o.push('\n');
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A duration in the largest unit that holds it exactly.
fn dur(d: Dur) -> String {
    let ns = d.as_nanos();
    for (unit, k) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns.is_multiple_of(k) {
            return format!("\"{} {unit}\"", ns / k);
        }
    }
    format!("\"{ns} ns\"")
}

fn dir(d: &DirSpec) -> String {
    let queue = match d.queue {
        QueueLimit::Packets(p) => format!("\"{p} packets\""),
        QueueLimit::Bytes(b) => format!("\"{b} B\""),
        QueueLimit::Bdp { .. } => "\"bdp\"".into(),
    };
    let model = match d.queue_model {
        QueueModel::DropTail => "droptail",
        QueueModel::Ns2DropTail => "ns2-droptail",
        QueueModel::Ns2DropTailDelayer => "ns2-droptail-delayer",
        QueueModel::Red => "red",
    };
    // RED's overrides as given (the automatic values are worked out again at load).
    let r = &d.red;
    let red: Vec<String> = [
        r.min_thresh.map(|v| format!("min_thresh = {v:?}")),
        r.max_thresh.map(|v| format!("max_thresh = {v:?}")),
        r.max_p.map(|v| format!("max_p = {v:?}")),
        r.q_weight.map(|v| format!("q_weight = {v:?}")),
        r.gentle.map(|v| format!("gentle = {v}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let red = if red.is_empty() {
        String::new()
    } else {
        format!(", red = {{ {} }}", red.join(", "))
    };
    let loss = match &d.loss {
        LossSpec::None => "loss = 0.0".to_string(),
        LossSpec::Bernoulli { p } => format!("loss = {p:?}"),
        LossSpec::List(l) => {
            let v: Vec<String> = l.iter().map(|i| i.to_string()).collect();
            format!("drop_packets = [{}]", v.join(", "))
        }
    };
    let at = match d.loss_at {
        LossAt::Air => "air",
        LossAt::Entry => "entry",
    };
    let jitter = match d.jitter {
        Some(j) => format!(", jitter_mean = {}, jitter_sd = {}", dur(j.mean), dur(j.sd)),
        None => String::new(),
    };
    let layer = match d.link_layer {
        LinkLayerSpec::Plain => String::new(),
        LinkLayerSpec::RlcAm(c) => format!(
            ", link_layer = \"rlc-am\", bler = {:?}, max_dat = {}",
            c.bler, c.max_dat
        ),
        LinkLayerSpec::Dcf(c) => format!(
            ", link_layer = \"dcf\", ber = {:?}, retry_limit = {}",
            c.ber, c.short_retry_limit
        ),
    };
    format!(
        "{{ rate = \"{} b/s\", delay = {}, queue = {queue}, queue_model = \"{model}\"{red}, \
         {loss}, loss_at = \"{at}\"{jitter}{layer} }}",
        d.rate_bps,
        dur(d.delay)
    )
}

/// Every TCP key of the scenario format (the rest follow from the profile).
fn tcp(c: &TcpConfig) -> String {
    tcp_lines(c).join("\n") + "\n"
}

/// `key = value` for every TCP key of the scenario format.
pub fn tcp_lines(c: &TcpConfig) -> Vec<String> {
    let sack_recovery = match c.sack_recovery {
        SackRecovery::Rfc6675 => "rfc6675",
        SackRecovery::Ns2Sack1 => "ns2-sack1",
    };
    let cc = match c.cc {
        CcAlgorithm::Reno => "reno",
        CcAlgorithm::NewReno => "newreno",
        CcAlgorithm::Ns2Sack1 => "ns2-sack1",
        CcAlgorithm::Cubic => "cubic",
    };
    let timer = match c.timer_at_fast_retransmit {
        FastRetransmitTimer::Keep => "keep",
        FastRetransmitTimer::Restart => "restart",
        FastRetransmitTimer::Ns2Reset => "ns2-reset",
    };
    let ssthresh = match c.timeout_ssthresh {
        TimeoutSsthresh::Rfc5681 => "rfc5681",
        TimeoutSsthresh::Linux => "linux",
        TimeoutSsthresh::Always => "always",
    };
    let spurious = c
        .spurious_detection
        .names()
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let response = match c.spurious_response {
        SpuriousResponse::Conservative => "conservative",
        SpuriousResponse::Eifel => "eifel",
        SpuriousResponse::Undo => "undo",
        SpuriousResponse::NoRestore => "no-restore",
    };
    let cwv = match c.cwnd_validation {
        CwndValidation::Off => "off",
        CwndValidation::CwndLimited => "cwnd-limited",
    };
    vec![
        format!("profile = \"{}\"", c.profile),
        format!("mss = {}", c.mss),
        format!("cc = \"{cc}\""),
        format!("sack = {}", c.sack),
        format!("sack_recovery = \"{sack_recovery}\""),
        format!(
            "loss_detection = \"{}\"",
            match c.loss_detection {
                LossDetection::Rfc6675 => "rfc6675",
                LossDetection::Rack => "rack",
            }
        ),
        format!("dsack = {}", c.dsack),
        format!("timestamps = {}", c.timestamps),
        format!("paws = {}", c.paws),
        format!("pacing = {}", c.pacing),
        format!("handshake = {}", c.handshake),
        format!("one_way_syn = {}", c.one_way_syn),
        format!("fin = {}", c.fin),
        format!("initial_window = {}", c.initial_window_segments),
        format!("dupthresh = {}", c.dupthresh),
        format!("limited_transmit = {}", c.limited_transmit),
        format!("sack_is_lost_trigger = {}", c.sack_is_lost_trigger),
        format!(
            "dupacks_after_timeout_new_ack = {}",
            c.dupacks_after_timeout_new_ack
        ),
        format!("sack_forget_on_new_ack = {}", c.sack_forget_on_new_ack),
        format!("timer_at_fast_retransmit = \"{timer}\""),
        format!("timeout_ssthresh = \"{ssthresh}\""),
        format!("rto_keeps_sack = {}", c.rto_keeps_sack),
        format!("spurious_detection = [{spurious}]"),
        format!("spurious_response = \"{response}\""),
        format!("rto_reset = {}", c.rto_reset),
        format!("new_path = {}", c.new_path),
        format!("fast_rto_decrease = {}", c.fast_rto_decrease),
        format!("rtt_injection = {}", c.rtt_injection),
        format!("adaptive_dupthresh = {}", c.adaptive_dupthresh),
        format!("oracle = {}", c.oracle),
        format!("rescue_retransmission = {}", c.rescue_retransmission),
        format!("retransmission_marks = {}", c.retransmission_marks),
        format!("prr = {}", c.prr),
        format!("tlp = {}", c.tlp),
        format!(
            "frto_variant = \"{}\"",
            match c.frto_variant {
                FrtoVariant::Rfc5682 => "rfc5682",
                FrtoVariant::Linux => "linux",
            }
        ),
        format!(
            "undo = \"{}\"",
            match c.undo {
                UndoRules::Detectors => "detectors",
                UndoRules::Linux => "linux",
            }
        ),
        format!(
            "cwnd_counting = \"{}\"",
            match c.cwnd_counting {
                CwndCounting::Rfc5681 => "rfc5681",
                CwndCounting::Linux => "linux",
            }
        ),
        format!("cwnd_validation = \"{cwv}\""),
        format!("handshake_rtt_sample = {}", c.handshake_rtt_sample),
        format!(
            "rtt_sampling = \"{}\"",
            match c.rtt_sampling {
                RttSampling::OnePerRtt => "one-per-rtt",
                RttSampling::EveryFreedSegment => "every-freed-segment",
            }
        ),
        format!("timeout_holds_new_data = {}", c.timeout_holds_new_data),
        format!("receive_window = \"{} B\"", c.receive_window),
        format!("send_window = \"{} B\"", c.send_window_cap),
        format!("initial_rto = {}", dur(c.rto.initial)),
        format!("min_rto = {}", dur(c.rto.min)),
        format!("max_rto = {}", dur(c.rto.max)),
        format!("granularity = {}", dur(c.rto.granularity)),
        format!("delayed_ack = {}", c.delack.enabled),
        format!("delayed_ack_timeout = {}", dur(c.delack.timeout)),
    ]
}
