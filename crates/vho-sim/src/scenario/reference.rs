//! The scenario reference: every key of the scenario format and of a preset file, its type and
//! unit, its default and its meaning (`vho schema`, docs/scenario-reference.md). It cannot drift from the loader:
//! tests check that each table lists exactly the keys the loader accepts (serde's own list of
//! fields, the TCP settings' list), that every enumerated value loads, and the TCP defaults are
//! read from the profiles themselves.

use super::render;
use crate::tcp::profile::{profile, PROFILES};

/// One key of the scenario format.
#[derive(Clone, Copy, Debug)]
pub struct KeyDoc {
    /// Its table (`run`, `access.NAME`, `flow.tcp`, ...).
    pub table: &'static str,
    pub key: &'static str,
    /// Type and unit, or the values it takes.
    pub ty: &'static str,
    /// What it is when not given ("required", a value, or what decides it).
    pub default: &'static str,
    pub meaning: &'static str,
}

const fn k(
    table: &'static str,
    key: &'static str,
    ty: &'static str,
    default: &'static str,
    meaning: &'static str,
) -> KeyDoc {
    KeyDoc {
        table,
        key,
        ty,
        default,
        meaning,
    }
}

const TIME: &str = "time: \"300 ms\" (ns, us, ms, s)";
const RATE: &str = "rate: \"200 kb/s\" (b/s, kb/s, Mb/s, Gb/s)";
const SIZE: &str = "size: \"200 KB\" (B, KB, KiB, MB, MiB, GB, GiB)";
const QUEUE: &str = "queue limit: \"bdp\", \"20 packets\" or a size";
const QUEUE_MODEL: &str = "one of droptail, ns2-droptail, ns2-droptail-delayer, red";
const LOSS_AT: &str = "one of air, entry";

const PRESET_MEANING: &str = "values the other keys override; a preset's per-direction \
     values (rate_down, ...) go to the direction towards the mobile host (down) and from it \
     (up), so such a preset needs a link with a mobile host at exactly one end";

const LINK_LAYER: &str = "one of plain, rlc-am, dcf";
const LINK_LAYER_MEANING: &str = "what sits between the queue and the far node: plain the \
     serialiser at `rate` and the pipe of `delay`; rlc-am a 3G bearer in RLC Acknowledged Mode \
     (Naoe et al. Table I: 384 kb/s, TTI 10 ms, 12 blocks of 336 bits per TTI, Iub 20 ms, \
     selective retransmission up to MaxDAT, in-order delivery); dcf an 802.11b station at 1 \
     Mb/s under DCF (Table I; IEEE 802.11-2007's timing, frame errors from the BER, \
     retransmission with backoff up to the retry limit). A link layer's own timing replaces \
     rate and delay (delay must be 0: the Iub delay is inside the bearer); it takes the \
     queue's head whenever it has room, and what it discards is the drop cause \
     link_layer_discard";
const BLER_MEANING: &str = "rlc-am: each transport block lost independently with this \
     probability (Naoe et al. §V-B; a [[schedule]] bler changes it)";
const MAX_DAT_MEANING: &str = "rlc-am: TS 25.322's MaxDAT (Table I: 5): a block is sent at \
     most MaxDAT - 1 times; the status that would schedule it a MaxDAT-th time discards its SDU \
     and the SDUs before it back to the first unacknowledged block (§9.7.3.3)";
const BER_MEANING: &str = "dcf: bit error rate of data and ACK frames, a frame of L bits \
     corrupted with probability 1 - (1 - BER)^L (Naoe et al. §V-B; a [[schedule]] ber \
     changes it)";
const RETRY_LIMIT_MEANING: &str = "dcf: transmission attempts of a frame, the first included, \
     before it is discarded (dot11ShortRetryLimit, IEEE 802.11-2007 Annex D: 7)";

/// The keys of a link or link direction, as `[wired]`, `[access.NAME]`, `[[link]]` and their
/// per-direction tables share them.
macro_rules! link_keys {
    ($t:expr) => {
        [
            k($t, "rate", RATE, "the preset's", "serialisation rate"),
            k($t, "delay", TIME, "the preset's", "one-way propagation delay"),
            k(
                $t,
                "queue",
                QUEUE,
                "the preset's, else \"bdp\"",
                "the queue limit at the sending end; \"bdp\": rate x the longest round-trip \
                 propagation delay of a flow path through the link, in packets of `mtu`, \
                 rounded up, at least one (Daniel & Kojo Table 1)",
            ),
            k(
                $t,
                "queue_model",
                QUEUE_MODEL,
                "the preset's, else droptail",
                "what the limit counts: droptail the packets waiting (Linux pfifo); \
                 ns2-droptail ns-2's rule (an arrival is dropped once waiting + 1 reaches the \
                 limit); ns2-droptail-delayer the same plus the one packet ns-2's Delayer holds; \
                 red Random Early Detection as ns-2.35's Queue/RED (queue/red.cc; RFC 2309 §3, \
                 the thesis's ref. [30]): average queue in bytes, gentle, wait, byte-mode \
                 probability; its early drops are the cause early_drop; an arrival finding the \
                 limit reached (waiting >= limit, red.cc's rule) is a queue_overflow",
            ),
            k(
                $t,
                "red",
                "table: min_thresh, max_thresh, max_p, q_weight, gentle (see access.NAME.red)",
                "ns-2.35's automatic values",
                "RED's parameters, read with queue_model = \"red\"",
            ),
            k($t, "loss", "probability 0-1", "0", "each packet lost independently"),
            k(
                $t,
                "loss_at",
                LOSS_AT,
                "air",
                "air: a lost packet was serialised (a corrupted frame; ns-2's link-lossmodel); \
                 entry: lost before the queue (ns-2's lossmodel)",
            ),
            k(
                $t,
                "jitter_mean",
                TIME,
                "0 s (none)",
                "each packet's delay is delay plus a seeded extra delay, a lognormal of this \
                 mean, truncated at mean + 10 sd; packets still arrive in order (the GPRS RTT's \
                 variability, Cottingham & Vidales §6)",
            ),
            k(
                $t,
                "jitter_sd",
                TIME,
                "jitter_mean",
                "the extra delay's standard deviation",
            ),
            k(
                $t,
                "drop_packets",
                "list of packet indices, increasing",
                "none",
                "lose exactly these packets (0 = the first the loss model sees; ns-2's \
                 ErrorModel/List); instead of `loss`",
            ),
            k($t, "link_layer", LINK_LAYER, "the preset's, else plain", LINK_LAYER_MEANING),
            k($t, "bler", "probability 0-1", "the preset's, else 0", BLER_MEANING),
            k($t, "max_dat", "integer 2-255", "the preset's, else 5", MAX_DAT_MEANING),
            k($t, "ber", "number in [0, 1)", "the preset's, else 0", BER_MEANING),
            k($t, "retry_limit", "integer 1-255", "the preset's, else 7", RETRY_LIMIT_MEANING),
        ]
    };
}

/// RED's keys (`red = { ... }` of a link or direction); every default is ns-2.35's
/// (tcl/lib/ns-default.tcl, queue/red.cc initialize_params), ptc being the link's rate in
/// packets of 500 B (mean_pktsize_) per second.
fn red_keys(t: &'static str) -> [KeyDoc; 5] {
    [
        k(
            t,
            "min_thresh",
            "number > 0, packets of 500 B",
            "max(5, 0.005 s x ptc / 2) (thresh_ 0: automatic)",
            "th_min: no early drop while the average queue is below it",
        ),
        k(
            t,
            "max_thresh",
            "number > min_thresh, packets of 500 B",
            "3 x min_thresh (maxthresh_ 0: automatic)",
            "th_max: the drop probability reaches max_p here",
        ),
        k(
            t,
            "max_p",
            "number in (0, 1]",
            "0.1 (1/linterm_, linterm_ 10)",
            "the drop probability at th_max",
        ),
        k(
            t,
            "q_weight",
            "number in (0, 1]",
            "1 - exp(-1/(10 x RTT x ptc)), RTT = max(0.1 s, 3 (delay + 1/ptc)) (q_weight_ -1)",
            "weight of each arrival in the average queue",
        ),
        k(
            t,
            "gentle",
            "boolean",
            "true (gentle_)",
            "between th_max and 2 th_max the probability rises from max_p to 1 (else 1 at \
             th_max)",
        ),
    ]
}

/// Every key, table by table.
pub fn keys() -> Vec<KeyDoc> {
    let mut v = vec![
        k(
            "run",
            "name",
            "string",
            "the file's name",
            "the scenario's name in summaries",
        ),
        k(
            "run",
            "seed",
            "integer >= 0",
            "1",
            "every random draw derives from it (one stream per component)",
        ),
        k(
            "run",
            "stop",
            TIME,
            "3600 s",
            "the run stops here even if flows are unfinished",
        ),
    ];
    for t in ["wired", "access.NAME"] {
        v.push(k(
            t,
            "preset",
            "a preset name (`vho presets`)",
            if t == "wired" { "lan-100m" } else { "none" },
            PRESET_MEANING,
        ));
        v.extend(link_keys!(t));
        v.push(k(
            t,
            "mtu",
            "integer, bytes",
            "1500",
            "the packet size the \"bdp\" queue rule counts in",
        ));
        v.push(k(
            t,
            "down",
            "table of the keys above but preset and mtu",
            "none",
            "overrides for the direction towards the mobile host",
        ));
        v.push(k(
            t,
            "up",
            "table of the keys above but preset and mtu",
            "none",
            "overrides for the direction from the mobile host",
        ));
    }
    v.extend(link_keys!("access.NAME.down"));
    v.extend(red_keys("access.NAME.red"));
    v.extend([
        k(
            "mobile",
            "start",
            "an access link name",
            "required with two or more",
            "the access link in use at time zero",
        ),
        k(
            "mobile",
            "node",
            "a node name",
            "mh (common form)",
            "the mobile node (general form); several mobile nodes take one [[mobile]] table \
             each, and a handover belongs to the mobile whose interface its `from` is",
        ),
        k(
            "mobile",
            "interfaces",
            "list of link names",
            "every [access.*] link",
            "its access links (general form)",
        ),
        k(
            "node",
            "name",
            "letters, digits, - _ . (not first)",
            "required",
            "names its pcap",
        ),
        k(
            "node",
            "kind",
            "one of host, router, mobile",
            "required",
            "what it does",
        ),
        k("link", "name", "string", "required", "the link's name"),
        k(
            "link",
            "between",
            "list of two node names",
            "required",
            "its ends",
        ),
        k("link", "preset", "a preset name", "none", PRESET_MEANING),
    ]);
    v.extend(link_keys!("link"));
    v.extend([
        k("link", "mtu", "integer, bytes", "1500", "as in [wired]"),
        k(
            "link",
            "forward",
            "table of link keys",
            "none",
            "overrides from the first node to the second",
        ),
        k(
            "link",
            "reverse",
            "table of link keys",
            "none",
            "overrides from the second node to the first",
        ),
        k(
            "node_function",
            "node",
            "a node name",
            "required",
            "the node on whose forwarding path it acts (ha in the common form)",
        ),
        k(
            "node_function",
            "kind",
            "window-clamp | link-flow-control | ip-in-ip",
            "required",
            "window-clamp: rewrite the window advertised to a sender whose data crosses an \
             access link to that link's bandwidth-delay product plus one segment, shared by the \
             link's active connections (Cottingham & Vidales §7; the remedy cwnd-clamp); \
             link-flow-control: an IP-layer queue that admits packets to an access link's \
             device queue only while it holds less than the link's bandwidth-delay product, \
             routing them when they leave it (thesis §7.2.3; the remedy link-flow-control); \
             ip-in-ip: tunnel what goes to a mobile host, 20 bytes of outer IPv4 header on its \
             access link (RFC 2003; Mobile IP's home agent, thesis §2)",
        ),
        k("handover", "at", TIME, "required", "when it happens"),
        k(
            "handover",
            "window",
            TIME,
            "0 s",
            "the instant is drawn uniformly in [at, at + window) from the seed (Daniel & Kojo \
             §5); windows of successive handovers may not overlap",
        ),
        k(
            "handover",
            "from",
            "an access link name",
            "required",
            "the link in use",
        ),
        k(
            "handover",
            "to",
            "an access link name",
            "required",
            "the link after it",
        ),
        k(
            "handover",
            "kind",
            "one of soft, soft-reconfigure, soft-shrink, hard",
            "soft",
            "soft: make before break with two interfaces, what is queued for the old link \
             drains over it at its pace, new packets take the new link; soft-reconfigure: ns-2's \
             vhoideal soft handover, one link whose rate, delay and queue limit change in place, \
             what is queued stays and leaves at the new rate; soft-shrink: the same, but what \
             is queued beyond the new limit is dropped (ns-2's shrink-queue); hard: break before \
             make, everything queued on the old link is lost (Daniel & Kojo §5.1), and what is \
             on its air or propagating too (see in_flight)",
        ),
        k(
            "handover",
            "loss",
            "fraction 0-1",
            "1 (hard only)",
            "the share of the old link's queue a hard handover loses",
        ),
        k(
            "handover",
            "delay",
            TIME,
            "0 s",
            "nothing crosses the access link for this long after the instant (Daniel & Kojo \
             §5.2 vhodelay)",
        ),
        k(
            "handover",
            "flush",
            "one of off, move, discard",
            "off",
            "soft only: the packets waiting on the old link move to the new one, or are \
             discarded (thesis §7.2.3); the remedy flush-on-handover sets move",
        ),
        k(
            "handover",
            "notify",
            "one of none, before, at, after",
            "none",
            "the mobile's handover manager tells its TCP endpoints: a TCP option (RFC 6994 \
             kind 253, ExID 0x5648: the interfaces left and taken, whether the new one is \
             faster) on the mobile's next ACK carries it to a sender across the network; the \
             remedies rto-reset, new-path and adaptive-dupthresh act on it (and set at)",
        ),
        k(
            "handover",
            "notify_offset",
            TIME,
            "100 ms",
            "how long before (after) the instant a before (after) notification comes",
        ),
        k(
            "handover",
            "notify_delay",
            TIME,
            "0 s",
            "a delay added to the notification's instant wherever notify and notify_offset put \
             it: a notice generated then and made that much later (needs notify)",
        ),
        k(
            "handover",
            "uplink_delay",
            TIME,
            "0 s",
            "soft only: the mobile keeps sending over the old link this long after the instant \
             (MosquitoNet's mobile uses the new interface once its registration is complete, \
             the thesis §6)",
        ),
        k(
            "handover",
            "in_flight",
            "one of lost, delivered",
            "lost",
            "hard: the packet being serialised on the old link and those propagating on it are \
             lost with the interface (Cottingham & Vidales §6.1-6.2; drop cause in_flight), or \
             still delivered when due (ns-2's vhoideal hard handover, one link reconfigured: \
             its LinkDelay scheduled each arrival when the packet left the queue; Daniel & \
             Kojo's study sets it); a soft handover always delivers them, and takes only \
             delivered",
        ),
        k(
            "schedule",
            "link",
            "a link name",
            "required",
            "the link whose parameters or state change in place, its queues kept (as a \
             moving mobile's link degrades; Naoe et al. Fig. 5's BLER and BER ramps): the packet on the air finishes \
             as it started, packets propagating keep their arrival, none overtakes another",
        ),
        k(
            "schedule",
            "direction",
            "one of both, down, up, forward, reverse",
            "both",
            "down / up: towards / from the mobile host at one end; forward / reverse: from the \
             link's first node / second (the general form's)",
        ),
        k(
            "schedule",
            "at",
            TIME,
            "required",
            "when the change is made (or a ramp starts)",
        ),
        k(
            "schedule",
            "until",
            TIME,
            "none",
            "with pairs [from, to]: the values go linearly from the first at `at` to the \
             second here; with a state: the direction is up again here",
        ),
        k(
            "schedule",
            "step",
            TIME,
            "100 ms",
            "a rate, delay, bler or ber ramp changes in steps this far apart, each to the line's value at \
             its instant (vho's choice: a packet's time on the air is fixed from one rate when \
             it starts); at least 1 ms (finer only multiplies events); steps are made as they \
             fall due, so a long ramp costs no memory; a loss ramp is exact per packet",
        ),
        k(
            "schedule",
            "rate",
            "a rate, or a pair of rates with until",
            "unchanged",
            "the serialisation rate from the packet after the one on the air",
        ),
        k(
            "schedule",
            "delay",
            "a time, or a pair of times with until",
            "unchanged",
            "the one-way delay of packets leaving the air from then on; a shorter one never \
             lets a packet arrive before one ahead of it",
        ),
        k(
            "schedule",
            "loss",
            "probability 0-1, or a pair with until",
            "unchanged",
            "the loss probability per packet (Bernoulli, where the link's loss_at puts it), \
             replacing its loss model; a ramp draws each packet with the probability of its \
             instant; 0 is lossless",
        ),
        k(
            "schedule",
            "state",
            "one of up, outage, blackhole, down",
            "unchanged",
            "outage: nothing starts serialising, the queue keeps accepting and drains in order \
             once up; blackhole: the interface stays up but every packet whose serialisation \
             ends then is lost (drop cause link_state); down: the interface is down, its queue \
             is discarded as at a hard handover (handover_flush), what is on its air or \
             propagating is lost (in_flight) and packets offered are dropped (link_state); routes do not change (a handover moves traffic)",
        ),
        k(
            "schedule",
            "trace",
            "list of integers, ms",
            "none",
            "a Mahimahi packet-delivery trace serialising the direction from `at` on instead \
             of a rate (mm-link's format: a trace file's lines, nondecreasing millisecond \
             offsets from `at`, each an opportunity to deliver 1504 bytes; a packet may span \
             opportunities, what a waiting packet does not use is lost, the trace repeats \
             shifted by its last offset: link_queue.cc); a later rate ends it",
        ),
        k(
            "schedule",
            "trace_file",
            "path",
            "none",
            "the same trace read from a Mahimahi trace file (one millisecond offset per line, \
             as mm-link's --downlink/--uplink files), relative to the scenario file's folder; \
             a regular file of at most 64 MiB (MAX_TRACE_FILE_BYTES); an error in it names the \
             trace file and line. scenario.resolved.toml names the file by its absolute path \
             with its trace_sha256 rather than inlining the trace",
        ),
        k(
            "schedule",
            "trace_sha256",
            "64 hex digits",
            "none",
            "the SHA-256 of the trace_file's bytes (as sha256sum prints it): a scenario that \
             gives it runs only with that very trace, and is refused if the file changed; \
             scenario.resolved.toml writes it beside every trace_file",
        ),
        k(
            "schedule",
            "bler",
            "probability 0-1, or a pair with until",
            "unchanged",
            "the block error rate of the link's rlc-am bearer (Naoe et al. Fig. 5's ramps); a \
             ramp in steps of `step`, each block drawn with the value set when its TTI starts",
        ),
        k(
            "schedule",
            "ber",
            "number in [0, 1), or a pair with until",
            "unchanged",
            "the bit error rate of the link's dcf station (Fig. 5); a ramp in steps of `step`, \
             each frame exchange drawn with the value set when it starts",
        ),
        k(
            "flow",
            "name",
            "string",
            "flowN",
            "the flow's name in summaries",
        ),
        k("flow", "from", "a node name", "required", "the data sender"),
        k("flow", "to", "a node name", "required", "the data receiver"),
        k(
            "flow",
            "size",
            SIZE,
            "required for TCP; TFRC: unbounded",
            "bytes to transfer (up to 2^63); a TFRC flow without it sends until run.stop; with \
             it, the packets that carry it and no more, and completes when the last has been \
             delivered or dropped (TFRC does not retransmit: bytes_received tells what \
             arrived); a Pareto flow takes none (it sends until run.stop); a CBR flow without it \
             sends until run.stop, with it stops once it has sent that many payload bytes",
        ),
        k(
            "flow",
            "kind",
            "\"tcp\" | \"tfrc\" | \"pareto\" | \"cbr\" | \"mptcp\"",
            "\"tcp\"",
            "the protocol carrying the flow: TCP, or TFRC (RFC 5348: equation-based rate \
             control over UDP; no retransmission, never completes, runs to run.stop), or \
             pareto: cross traffic from a Pareto on/off source over UDP (ns-2's \
             Application/Traffic/Pareto; runs to run.stop), recorded as aggregates \
             (summary.json's flows[].cross and drops, series_cross.parquet), never captured \
             unless record.pcap_cross; or cbr: a constant-bit-rate UDP stream whose receiver \
             measures every datagram's one-way delay and loss (flows[].cbr; series_cbr.parquet \
             with record.series), what to run beside TCP to see the link's own behaviour; or \
             mptcp: Multipath TCP (RFC 8684) as Linux upstream runs it between a mobile host and \
             another host, a subflow per interface of the mobile (every interface up at once; \
             flows[].mptcp; series_mptcp.parquet with record.series); its subflows run flow.tcp",
        ),
        k(
            "flow",
            "mptcp",
            "a table of the flow.mptcp keys",
            "what vho emulate --multipath configures",
            "an MPTCP flow's path manager, scheduler and congestion control",
        ),
        k(
            "flow.mptcp",
            "scheduler",
            "\"default\"",
            "\"default\"",
            "the packet scheduler: Linux's default (mptcp_subflow_get_send: the active subflow \
             whose queued data drains first; backups only when no other is active)",
        ),
        k(
            "flow.mptcp",
            "congestion_control",
            "\"uncoupled\" | \"lia\" | \"olia\"",
            "\"uncoupled\"",
            "uncoupled: each subflow runs flow.tcp's congestion control on its own, as Linux \
             upstream; lia: RFC 6356's Linked Increases over the subflows' reno or newreno \
             (flow.tcp.cc), each congestion-avoidance increase capped at LIA's; olia: the \
             Opportunistic Linked Increases (Khalili et al. 2013, the multipath-tcp.org \
             kernel's mptcp_olia.c) in place of the subflows' reno or newreno \
             congestion-avoidance step",
        ),
        k(
            "flow.mptcp",
            "endpoints",
            "an inline table: the mobile's interface (its access link's name) = a list of \
             \"signal\", \"subflow\", \"backup\", \"fullmesh\"",
            "every interface but the initial one: [\"subflow\"]",
            "the in-kernel path manager's endpoints (ip-mptcp(8)): subflow opens a subflow over \
             the interface once the initial one is established (MP_JOIN), backup makes its \
             subflows backups, fullmesh is subflow here (the peer has one address); signal \
             announces the interface's address to the correspondent (ADD_ADDR, RFC 8684 \
             §3.4.1) once the connection is fully established or the interface comes up, \
             resent until echoed; the correspondent, within add_addr_accepted, connects to it \
             at the mobile's port, where nothing listens, and the mobile answers with a RST: \
             as on Linux 6.18, signal alone opens no subflow (signal with subflow: the \
             mobile's own subflow); signal and fullmesh together are refused, as the kernel \
             does; the initial subflow goes over the initial interface whatever its flags \
             (backup applies)",
        ),
        k(
            "flow.mptcp",
            "stale_loss_cnt",
            "an integer from 1 to 255",
            "4",
            "retransmission periods without an ACK after which a subflow is stale and its data \
             is reinjected (net.mptcp.stale_loss_cnt, Linux's default 4)",
        ),
        k(
            "flow.mptcp",
            "max_subflows",
            "an integer from 0 to 8",
            "8",
            "subflows besides the initial one (ip mptcp limits subflow; vho emulate \
             --multipath sets 8)",
        ),
        k(
            "flow.mptcp",
            "add_addr_accepted",
            "an integer from 0 to 8",
            "0",
            "the correspondent's limit on the mobile's ADD_ADDRs it acts on (ip mptcp limits \
             set add_addr_accepted; Linux's default 0: ip mptcp limits show in a new \
             namespace; vho emulate --multipath sets the correspondent's to it); it echoes \
             every one either way",
        ),
        k(
            "flow",
            "cbr",
            "a table of the flow.cbr keys",
            "a G.711 voice stream",
            "a CBR flow's parameters: a datagram of packet_size payload bytes every \
             packet_size × 8 / rate",
        ),
        k(
            "flow.cbr",
            "rate",
            RATE,
            "64 kb/s",
            "the payload bit rate (ITU-T G.711's 64 kb/s)",
        ),
        k(
            "flow.cbr",
            "packet_size",
            SIZE,
            "160 B",
            "payload bytes of each datagram, 28 bytes of IPv4 and UDP header on top (G.711 \
             at RFC 3551 §4.2's default 20 ms packetization)",
        ),
        k(
            "flow",
            "tfrc",
            "a table of the flow.tfrc keys",
            "RFC 5348's defaults",
            "a TFRC flow's parameters",
        ),
        k(
            "flow",
            "pareto",
            "a table of the flow.pareto keys",
            "ns-2.35's defaults, shape 1.9",
            "a Pareto flow's parameters; its long-run mean rate is rate × burst_time / \
             (burst_time + idle_time)",
        ),
        k(
            "flow.tfrc",
            "profile",
            "\"rfc5348\" | \"ns2\"",
            "\"rfc5348\"",
            "rfc5348: RFC 5348's values; ns2: ns-2.35 Agent/TFRC's (InitRate_ 300 B/s and its \
             nofeedback timer, df_ 0.95, numPkts_ 1, ca_ 1, increase_rate's s/R per RTT, t_RTO \
             from TCP's estimator on 100 ms ticks, PreciseLoss_ 1's round-based loss events), \
             the keys below applied over it",
        ),
        k(
            "flow.tfrc",
            "packet_size",
            SIZE,
            "1000 B",
            "s, the data bytes of each packet (RFC 5348 §3.1; ns-2.35's Agent/TFRC \
             packetSize_ 1000); 40 bytes of IPv4, UDP and TFRC header come on top",
        ),
        k(
            "flow.tfrc",
            "oscillation_prevention",
            "bool",
            "false",
            "pace at X*R_sqmean/sqrt(R_sample) (RFC 5348 §4.5, optional)",
        ),
        k(
            "flow.tfrc",
            "history_discounting",
            "bool",
            "false (ns2 profile: true)",
            "discount older loss intervals while the open one exceeds twice their mean, by \
             DF = max(2 I_mean / I_0, 0.5) (RFC 5348 §5.5, optional; ns-2.35's discount_ 1)",
        ),
        k(
            "flow.pareto",
            "rate",
            RATE,
            "64 kb/s",
            "the sending rate during a burst (ns-2.35's rate_, tcl/lib/ns-default.tcl)",
        ),
        k(
            "flow.pareto",
            "packet_size",
            SIZE,
            "210 B",
            "bytes of each datagram on the wire, no header added (ns-2.35's packetSize_; \
             Agent/UDP sends it as given)",
        ),
        k(
            "flow.pareto",
            "burst_time",
            TIME,
            "500 ms",
            "the mean burst length (ns-2.35's burst_time_)",
        ),
        k(
            "flow.pareto",
            "idle_time",
            TIME,
            "500 ms",
            "the mean idle time between bursts (ns-2.35's idle_time_)",
        ),
        k(
            "flow.pareto",
            "shape",
            "number above 1",
            "1.9",
            "the Pareto shape of burst lengths and idle times (Chen et al. §5's 1.9; ns-2.35's \
             shape_ is 1.5)",
        ),
        k(
            "flow",
            "probe",
            "table: pair_every, filter, window, alpha, beta (see flow.probe)",
            "Chen et al.'s",
            "TCP Probe's and TFRC Probe's parameters (Chen et al. §3), used with the remedies \
             probe, ihn, ehn, fra, err",
        ),
        k(
            "flow.probe",
            "enabled",
            "true or false",
            "false; the remedy probe (or any of the four below) sets true",
            "send pairs and estimate the capacity (CapProbe, Chen et al. §3)",
        ),
        k(
            "flow.probe",
            "ihn",
            "true or false",
            "false; the remedy ihn sets true",
            "implicit handoff notification from the estimates (§3.3)",
        ),
        k(
            "flow.probe",
            "ehn",
            "true or false",
            "false; the remedy ehn sets true",
            "explicit handoff notification from the handover manager, at handover.notify (§4)",
        ),
        k(
            "flow.probe",
            "fra",
            "true or false",
            "false; the remedy fra sets true",
            "fast rate adaptation (slow start) on a LOW-to-HIGH handoff (§3.3)",
        ),
        k(
            "flow.probe",
            "fra_cap",
            "true or false",
            "false (Chen et al.: doubling \"until the first packet loss occurs\", §4)",
            "TFRC's FRA stops doubling the rate at the capacity the handoff announced (vho's \
             variant); without it the rate doubles every RTT until the first loss of a packet \
             sent under FRA",
        ),
        k(
            "flow.probe",
            "err",
            "true or false",
            "false; the remedy err sets true",
            "early rate reduction to R*C2/C1 on a HIGH-to-LOW handoff (§4)",
        ),
        k(
            "flow.probe",
            "pair_every",
            "integer 2-10000",
            "20 (Chen et al. §3.1)",
            "TFRC Probe: the packet after every n-th goes at once, back to back (a packet \
             pair); TCP Probe pairs the back-to-back segments TCP sends anyway (§3.2)",
        ),
        k(
            "flow.probe",
            "filter",
            "\"runs\" or \"sliding\"",
            "\"runs\" (vho's reading of Chen et al. §3: CapProbe's runs)",
            "runs: an estimate at the end of each run of window pairs, its minimum delay-sum \
             pair's; sliding: after every pair, the minimum over the last window pairs",
        ),
        k(
            "flow.probe",
            "window",
            "integer 1-10000",
            "10 (vho's choice; the paper gives none)",
            "CapProbe's minimum delay-sum filter takes its minimum over this many pairs (a \
             run, or the last this many): IHN's lag is up to a run of pairs",
        ),
        k(
            "flow.probe",
            "alpha",
            "number above 1",
            "5 (Chen et al. §3.3)",
            "IHN: an estimate above alpha times the previous one is a LOW-to-HIGH handoff",
        ),
        k(
            "flow.probe",
            "beta",
            "number in (0, 1)",
            "0.2 (Chen et al. §3.3)",
            "IHN: an estimate below beta times the previous one is a HIGH-to-LOW handoff",
        ),
        k("flow", "start", TIME, "0 s", "when the transfer starts"),
        k(
            "flow",
            "tcp",
            "a profile name, or a table of the flow.tcp keys",
            "linux",
            "the TCP of both ends",
        ),
        k(
            "flow",
            "remedies",
            "list of remedy names",
            "[]",
            "mechanisms against what a handover does to TCP, by name (see Remedies below); \
             each sets the settings it needs, which the resolved scenario shows",
        ),
        k(
            "flow",
            "count",
            "integer 1-10000",
            "none (one flow)",
            "this many identical flows from one table, named NAME-0 to NAME-(count - 1) after \
             its name (or flowI); each draws from random streams of its own name. --set \
             flow.I.KEY indexes the tables as written; scenario.resolved.toml writes a run of \
             identical flows so named back as one table with its count",
        ),
        k(
            "record",
            "pcap",
            "list of node names",
            "[]",
            "nodes whose packets go to <node>.pcap",
        ),
        k(
            "record",
            "snaplen",
            "an integer from 256 to 262144",
            "65535 (whole packets)",
            "bytes kept of each captured packet, as tcpdump's -s: every header vho writes fits \
             in 256, so analysis loses nothing while a capture of full-sized segments shrinks \
             about fivefold (each record keeps the packet's length on the wire)",
        ),
        k(
            "record",
            "series",
            "true or false",
            "false",
            "record the senders' state and the queues over time (series_*.parquet)",
        ),
        k(
            "record",
            "goodput_from",
            TIME,
            "none (no window)",
            "with goodput_until: each flow's goodput over that window, window_goodput_bps in \
             summary.json (Naoe et al. §VI, 5-15 s)",
        ),
        k(
            "record",
            "goodput_until",
            TIME,
            "none (no window)",
            "the goodput window's end (after goodput_from)",
        ),
        k(
            "record",
            "queues",
            "true or false",
            "true",
            "with series: also each queue's length at every change (series_queues.parquet); \
             false keeps the other series only (a run with much cross traffic has tens of \
             millions of queue changes)",
        ),
        k(
            "record",
            "pcap_cross",
            "true or false",
            "false",
            "write cross traffic (kind = \"pareto\") to the captures of `pcap` too, as IPv4 + \
             UDP datagrams of packet_size bytes; off, it is recorded as aggregates only \
             (flows[].cross, series_cross.parquet)",
        ),
    ]);
    v.extend(mipv6_keys());
    v.extend(nemo_keys());
    v.extend(tcp_keys());
    v.extend(preset_keys());
    v
}

/// `[mipv6]` and `[[mipv6.router]]` (`crate::mip`).
fn mipv6_keys() -> Vec<KeyDoc> {
    let t = "mipv6";
    let r = "mipv6.router";
    vec![
        k(t, "home_agent", "a router's name", "ha", "the home agent, a router: binding cache, tunnels to the care-of addresses (RFC 6275 §10). With [mipv6] a handover is a link event and Mobile IPv6 signalling as packets; summary.json gives each handover's T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1-4)"),
        k(t, "correspondents", "list of node names", "every fixed host with a flow to or from a mobile", "hosts that answer return routability and keep a binding cache (RFC 6275 §9)"),
        k(t, "detection", "ra-miss | l2-trigger", "ra-miss", "ra-miss: the router is lost after ra_missed advertisement intervals without an advertisement, a new link found by its first advertisement (eq. 2); l2-trigger: the link layer reports links going down or up after l2_delay, and the mobile solicits an advertisement"),
        k(t, "ra_missed", "integer 1-100", "2 (MIPL, Cottingham & Vidales §4)", "advertisement intervals without one before the router counts as lost"),
        k(t, "l2_delay", TIME, "0 s", "how late the link layer reports (l2-trigger)"),
        k(t, "dad", "full | optimistic | none", "full", "duplicate address detection on a new link (RFC 4862 §5.4): full sends one Neighbor Solicitation per address, U[0, 1 s) after its start (Linux's addrconf_dad_kick), and takes the address RetransTimer (1 s) after it: the link-local address as the interface comes up (§5.3), then the care-of address once a router is heard; optimistic (RFC 4429) sends one per address at once and uses the addresses meanwhile; none sends nothing"),
        k(t, "preconfigured", "true or false", "true", "interfaces up at time zero have their router and addresses already (Cottingham & Vidales §3: GPRS attached \"simultaneously\"); otherwise only the first link has"),
        k(t, "route_optimisation", "true or false", "true", "after registering with the home agent the mobile runs return routability and sends a Binding Update to each correspondent, which then sends to the care-of address (RFC 6275 §5.2, §9.3.2); T_n ends at the first packet route-optimised to the new care-of address. false: everything goes through the home agent's tunnel and T_n ends at the first packet tunnelled there; so too with no correspondent to optimise (correspondents empty, as with NEMO's network nodes), and the handover's mipv6.note says why"),
        k(t, "ro_start", "after-ba | after-ba-delay | on-traffic | parallel", "after-ba", "when return routability starts: at the home agent's Binding Acknowledgement; ro_delay after it; when a packet from the correspondent then arrives tunnelled (at the BA for a correspondent bound to the care-of address left, whose packets never come through the tunnel); or with the home Binding Update (Cottingham & Vidales §4)"),
        k(t, "ro_delay", TIME, "0 s", "the wait of after-ba-delay"),
        k(t, "attached", "list of access link names", "every access link", "the mobile's interfaces up at time zero (with the first link); a handover to a link not up brings it up"),
        k(t, "rs_delay", "true or false", "false", "a first Router Solicitation on a new link waits U[0, 1 s] (RFC 4861 §6.3.7)"),
        k(t, "cn_ack", "true or false", "false (MIPL 2.0's UseCnBuAck)", "Binding Updates to correspondents ask for an acknowledgement"),
        k(t, "cn_bound", "true or false", "true", "the correspondents hold a binding to the mobile's first care-of address at time zero (route optimisation done on the first link); false: they send to the home address through the home agent's tunnel (RFC 6275 §10.4.1), and the mobile, with no Binding Update List entry for them (§11.7.2), starts return routability when a packet from one arrives tunnelled after the home registration (§11.3.1), whatever ro_start says, as for a mobile leaving its home link (Cottingham & Vidales §6.1: segments tunnelled between the BA and route optimisation on their LAN)"),
        k(t, "processing", TIME, "0 s", "the mobile's own time to configure router and care-of address, t_DR + t_CoA of eq. 3"),
        k(t, "router", "list of [[mipv6.router]] tables", "one per access link at the defaults", "the access routers' advertisements"),
        k(r, "link", "an access link name", "required", "the link it advertises on"),
        k(r, "node", "a node name", "the link's end that is not the mobile", "the router"),
        k(r, "ra_min", TIME, "1 s (radvd in the UMIP howtos)", "unsolicited Router Advertisements at intervals uniform in [ra_min, ra_max] (RFC 4861 §6.2.4); RFC 6275 §7.5 allows 30-70 ms"),
        k(r, "ra_max", TIME, "3 s, at least ra_min", "the advertised interval (Advertisement Interval option, RFC 6275 §7.3) is ra_max, plus 20 ms below 200 ms (§7.5); ra_min at least 30 ms and ra_max at least 70 ms (§7.5's floors)"),
        k(r, "min_delay_between_ras", TIME, "3 s (RFC 4861 §10's MIN_DELAY_BETWEEN_RAS)", "MinDelayBetweenRAs (RFC 6275 §13, at least 30 ms): an advertisement answering a Router Solicitation comes U[0, 0.5 s] after it, or that long after this delay past the last advertisement when one went out more recently (RFC 4861 §6.2.6)"),
        k(r, "link_layer", "true or false", "true", "the link has link-layer addresses (options in RS/RA); false for point-to-point links such as GPRS"),
    ]
}

/// `[nemo]` (`crate::mip::bicast`, `crate::net::nemo_combiner`).
fn nemo_keys() -> Vec<KeyDoc> {
    let t = "nemo";
    vec![
        k(t, "router", "a mobile node's name", "the one mobile", "the mobile router (NEMO Basic Support, RFC 3963), with two interfaces; needs [mipv6]. Its mobile network is routed to the home agent and tunnelled to the router's care-of address; the network's packets are reverse-tunnelled to the home agent"),
        k(t, "network", "list of node names", "required", "the local fixed nodes behind the router, each on a link to it"),
        k(t, "bicast_from", TIME, "none (no bicasting)", "T_bicasting: from then the home agent sends each packet for the mobile network through both tunnels, one per care-of address, with a Packet Identifier Option (16-bit sequence, 16-bit ms since bicast_from; Naoe et al. §IV-B, Fig. 3). Naoe: the handover's trigger, 5 s"),
        k(t, "bicast_until", TIME, "none", "the end of bicasting, the handover's completion (Naoe: 15 s); the [[handover]] at that instant switches the path, and the router's combiner releases what it holds (§IV-C) and holds nothing after. Without a window the [[handover]] alone is Make-Before-Break"),
        k(t, "bicast_uplink", "true or false", "false", "bicast upward too (§IV-B's \"and/or the up-link traffic\"): in the window the router sends each packet of its network through both reverse tunnels with a PIO, and the home agent combines the copies as the router does (same combining; its counters are the home agent's nemo-combiner entry in node_functions)"),
        k(t, "combining", "none | nemo-sho | apc", "none", "what the router does with the two copies: none forwards both; nemo-sho forwards the first and drops the later (Sequence Number Table); apc holds a fast-link copy until the slow link's copy is expected (eq. 1-3) and releases in order. The faster interface by nominal rate is the fast link (§IV)"),
        k(t, "apc_alpha", "number in [0, 1]", "0.875 (§VI)", "α of eq. 3, the weight of the old T_eDelay (read with combining = \"apc\" only, so that --set nemo.combining switches a file)"),
        k(t, "apc_initial_delay", TIME, "1 s (§VI, downward; 0 s upward)", "the initial T_eDelay"),
        k(t, "apc_first_measured", "true or false", "false", "§VII's variant: the first slow-link delay measured becomes T_eDelay (a fast copy waits at most 2 s for it)"),
    ]
}

/// The table of a preset file's keys.
pub const PRESET_TABLE: &str = "scenarios/presets/NAME.toml";

/// The keys of a preset file (`vho presets NAME` prints one).
fn preset_keys() -> Vec<KeyDoc> {
    let t = PRESET_TABLE;
    let mut v = vec![
        k(t, "name", "string", "required", "what `preset` names"),
        k(
            t,
            "description",
            "string",
            "required",
            "one line for `vho presets`",
        ),
        k(
            t,
            "rate",
            RATE,
            "required",
            "serialisation rate, both directions",
        ),
        k(
            t,
            "delay",
            TIME,
            "required",
            "one-way propagation delay, both directions",
        ),
        k(
            t,
            "queue",
            QUEUE,
            "required",
            "the queue limit, both directions",
        ),
        k(
            t,
            "queue_model",
            QUEUE_MODEL,
            "droptail",
            "what the limit counts",
        ),
        k(
            t,
            "loss",
            "probability 0-1",
            "0",
            "each packet lost independently",
        ),
        k(
            t,
            "jitter_mean",
            TIME,
            "0 s (none)",
            "the extra delay's mean, both directions",
        ),
        k(
            t,
            "jitter_sd",
            TIME,
            "jitter_mean",
            "the extra delay's standard deviation",
        ),
        k(t, "link_layer", LINK_LAYER, "plain", LINK_LAYER_MEANING),
        k(t, "bler", "probability 0-1", "0", BLER_MEANING),
        k(t, "max_dat", "integer 2-255", "5", MAX_DAT_MEANING),
        k(t, "ber", "number in [0, 1)", "0", BER_MEANING),
        k(t, "retry_limit", "integer 1-255", "7", RETRY_LIMIT_MEANING),
    ];
    // Each per-direction key defaults to the symmetric key of its name.
    const DOWN: &str = "towards the mobile host, replacing the key without _down in that \
         direction; a link using the preset must have a mobile host at exactly one end, and the \
         link's own keys and direction tables still override it";
    const UP: &str = "from the mobile host, as _down the other way";
    const LOSS: &str = "probability 0-1";
    v.extend([
        k(t, "rate_down", RATE, "rate", DOWN),
        k(t, "rate_up", RATE, "rate", UP),
        k(t, "delay_down", TIME, "delay", DOWN),
        k(t, "delay_up", TIME, "delay", UP),
        k(t, "queue_down", QUEUE, "queue", DOWN),
        k(t, "queue_up", QUEUE, "queue", UP),
        k(t, "loss_down", LOSS, "loss", DOWN),
        k(t, "loss_up", LOSS, "loss", UP),
        k(t, "jitter_mean_down", TIME, "jitter_mean", DOWN),
        k(t, "jitter_mean_up", TIME, "jitter_mean", UP),
        k(t, "jitter_sd_down", TIME, "jitter_sd", DOWN),
        k(t, "jitter_sd_up", TIME, "jitter_sd", UP),
    ]);
    v
}

/// The keys of `flow.tcp`, each with its meaning (defaults: [`tcp_defaults`]).
fn tcp_keys() -> Vec<KeyDoc> {
    let t = "flow.tcp";
    vec![
        k(
            t,
            "profile",
            "one of rfc, linux, ns2, linux-2.0",
            "linux",
            "the bundle of defaults the other keys override: rfc the standards as written; \
             linux a Linux host's defaults (CUBIC, SACK, Linux's RTO estimator); ns2 \
             ns-2.35's Agent/TCP/Sack1 and its DelAck sink; linux-2.0 the thesis testbed's \
             Linux 2.0.36 (Reno, no SACK, its own RTO)",
        ),
        k(
            t,
            "mss",
            "integer, bytes",
            "profile",
            "payload bytes of a full segment",
        ),
        k(
            t,
            "cc",
            "one of reno, newreno, ns2-sack1, cubic",
            "profile",
            "congestion control",
        ),
        k(
            t,
            "sack",
            "true or false",
            "profile",
            "SACK option and recovery (RFC 2018, 6675)",
        ),
        k(
            t,
            "sack_recovery",
            "one of rfc6675, ns2-sack1",
            "profile",
            "what SACK recovery sends: RFC 6675's pipe and NextSeg, or Sack1's own pipe_",
        ),
        k(
            t,
            "loss_detection",
            "one of rfc6675, rack",
            "profile",
            "how a SACK sender finds a segment lost: RFC 6675's DupThresh and IsLost, or RACK \
             (RFC 8985 §6, Linux's tcp_rack_detect_loss: a later-sent segment delivered and \
             rack.rtt + reo_wnd passed), with Linux's reordering degree and reorder timer",
        ),
        k(
            t,
            "dsack",
            "true or false",
            "profile",
            "the receiver reports duplicate segments in a D-SACK block (RFC 2883 §4)",
        ),
        k(
            t,
            "timestamps",
            "true or false",
            "profile",
            "timestamps option (RFC 7323)",
        ),
        k(
            t,
            "paws",
            "true or false",
            "profile",
            "with timestamps, the receiver drops a segment whose TSval is older than TS.Recent \
             and acknowledges at once (PAWS, RFC 7323 §5.3; Linux's tcp_paws_discard, one tick \
             of slack): a late original arriving after its retransmission (which raised \
             TS.Recent) is lost",
        ),
        k(
            t,
            "pacing",
            "true or false",
            "profile",
            "the sender paces its data segments as Linux does: from the tenth on, each leaves \
             len / rate after the last, the rate 200 % (slow start) or 120 % of cwnd / SRTT \
             (tcp_update_pacing_rate, tcp_pacing_check); the timeout's resend of the head \
             and the loss probe are not held back",
        ),
        k(
            t,
            "handshake",
            "true or false",
            "profile",
            "three-way handshake before data",
        ),
        k(
            t,
            "one_way_syn",
            "true or false",
            "profile",
            "without a handshake, ns-2's modelled SYN one round trip before data",
        ),
        k(t, "fin", "true or false", "profile", "close with a FIN"),
        k(
            t,
            "initial_window",
            "integer, segments",
            "profile",
            "initial cwnd (RFC 5681 §3.1, RFC 6928)",
        ),
        k(
            t,
            "dupthresh",
            "integer",
            "profile",
            "duplicate ACKs for fast retransmit",
        ),
        k(
            t,
            "limited_transmit",
            "true or false",
            "profile",
            "RFC 3042 on the first duplicate ACKs",
        ),
        k(
            t,
            "sack_is_lost_trigger",
            "true or false",
            "profile",
            "also start recovery when RFC 6675's IsLost(HighACK + 1) holds",
        ),
        k(
            t,
            "dupacks_after_timeout_new_ack",
            "true or false",
            "profile",
            "after a timeout, count duplicate ACKs again from the first new ACK (ns-2)",
        ),
        k(
            t,
            "sack_forget_on_new_ack",
            "true or false",
            "profile",
            "forget the SACK scoreboard at each new ACK outside recovery (ns-2)",
        ),
        k(
            t,
            "timer_at_fast_retransmit",
            "one of keep, restart, ns2-reset",
            "profile",
            "what fast retransmit does to the retransmission timer",
        ),
        k(
            t,
            "timeout_ssthresh",
            "one of rfc5681, linux, always",
            "profile",
            "when a timeout reduces ssthresh (RFC 5681 §3.1, tcp_enter_loss, ns-2)",
        ),
        k(
            t,
            "rto_keeps_sack",
            "true or false",
            "profile",
            "after a timeout resend only what the scoreboard does not show SACKed",
        ),
        k(
            t,
            "spurious_detection",
            "a list of frto, eifel, dsack",
            "profile",
            "which detectors of spurious retransmissions run (any together): frto = two new \
             segments after a timeout, whose ACKs acknowledge data sent before it (RFC 5682 \
             §3.1); eifel = the ACK of the retransmission echoes an older timestamp (RFC 3522; \
             needs timestamps); dsack = every retransmission of a recovery reported duplicate \
             (RFC 3708; needs the receiver's dsack)",
        ),
        k(
            t,
            "spurious_response",
            "one of conservative, eifel, undo, no-restore",
            "profile",
            "after a spurious timeout, resume new data and: cwnd <= ssthresh (conservative, \
             RFC 5682 §4), RFC 4015's window and RTO (eifel), the old cwnd and ssthresh \
             (undo, Linux), or keep the reduced window (no-restore, Daniel & Kojo §8)",
        ),
        k(
            t,
            "rto_reset",
            "true or false",
            "profile",
            "on a handover notification reset the RTO and the RTT estimate (thesis §8.1)",
        ),
        k(
            t,
            "new_path",
            "true or false",
            "profile",
            "on a handover notification start over: RTO, cwnd and ssthresh initial (thesis \
             §7.1.5; Daniel & Kojo §8)",
        ),
        k(
            t,
            "fast_rto_decrease",
            "true or false",
            "profile",
            "when 3 RTT samples agree within x1.5, all below SRTT/4, SRTT becomes their mean \
             and the RTO falls with it (thesis §7.2.2, §8.1)",
        ),
        k(
            t,
            "rtt_injection",
            "true or false",
            "profile",
            "on a handover notification raise SRTT to the one last measured on the interface \
             taken, plus 25 % (Cottingham & Vidales §7)",
        ),
        k(
            t,
            "adaptive_dupthresh",
            "true or false",
            "profile",
            "on a notification of a handover to a faster link raise dupthresh to the segments \
             outstanding until they are acknowledged (Daniel & Kojo §2; their [5], Hansmann & \
             Frank LCN'03, unverified: vho's rule, after RFC 4653's)",
        ),
        k(
            t,
            "oracle",
            "true or false",
            "profile",
            "the oracle sender: told the new path's base RTT and rate at each handover, it \
             resends only what the network dropped and never fills a queue (the \
             remedy oracle: the bound the remedies are measured against)",
        ),
        k(
            t,
            "rescue_retransmission",
            "true or false",
            "profile",
            "RFC 6675 NextSeg rule (4)",
        ),
        k(
            t,
            "retransmission_marks",
            "true or false",
            "profile",
            "a retransmission in flight stays marked across recoveries until acknowledged, \
             SACKed or timed out: RFC 6675 recovery does not resend it and counts it in the \
             pipe (Linux's TCPCB_SACKED_RETRANS, tcp_xmit_retransmit_queue)",
        ),
        k(
            t,
            "tlp",
            "true or false",
            "profile",
            "tail loss probe with SACK (RFC 8985 §7; Linux's tcp_schedule_loss_probe and \
             tcp_send_loss_probe): one segment at 2·SRTT when a lost tail would wait for the RTO",
        ),
        k(
            t,
            "prr",
            "true or false",
            "profile",
            "fast recovery's window by Proportional Rate Reduction (RFC 6937; Linux's \
             tcp_cwnd_reduction), with SACK",
        ),
        k(
            t,
            "frto_variant",
            "one of rfc5682, linux",
            "profile",
            "F-RTO (with spurious_detection frto): rfc5682 the two ACKs after the timeout \
             decide (RFC 5682 §3.1); linux also any ACK of data never retransmitted at once \
             (tcp_process_loss, FLAG_ORIG_SACK_ACKED)",
        ),
        k(
            t,
            "undo",
            "one of detectors, linux",
            "profile",
            "which rules undo a reduction: detectors each detector of spurious_detection by its \
             own document (Eifel at the first ACK, RFC 3708 at the recovery point); linux \
             Linux's undo_marker/undo_retrans/retrans_stamp at every ACK in recovery \
             (tcp_try_undo_loss/partial/recovery/dsack), an undone fast recovery raising the \
             reordering degree",
        ),
        k(
            t,
            "cwnd_counting",
            "one of rfc5681, linux",
            "profile",
            "how Reno and NewReno grow cwnd: rfc5681 per ACK in bytes (RFC 5681 §3.1 eq. 2 \
             and 3); linux per segment acknowledged (tcp_reno_cong_avoid: slow start +1 a \
             segment, congestion avoidance +1 per cwnd segments acknowledged)",
        ),
        k(
            t,
            "cwnd_validation",
            "one of off, cwnd-limited",
            "profile",
            "grow cwnd only while the window is used (tcp_is_cwnd_limited, RFC 7661 §4.3)",
        ),
        k(
            t,
            "handshake_rtt_sample",
            "true or false",
            "profile",
            "take an RTT sample from the handshake",
        ),
        k(
            t,
            "rtt_sampling",
            "one of one-per-rtt, every-freed-segment",
            "profile",
            "without timestamps, which segments are timed: one at a time, never a \
             retransmitted one (RFC 6298 §3, Karn), or every segment an ACK frees, from its \
             latest transmission, none while a timeout's retransmissions are under way (Linux \
             2.0's tcp_ack)",
        ),
        k(
            t,
            "timeout_holds_new_data",
            "true or false",
            "profile",
            "after a timeout send no new data until everything outstanding is acknowledged \
             (Linux 2.0's tcp_ack: the write queue moves only while retransmits == 0)",
        ),
        k(
            t,
            "receive_window",
            SIZE,
            "profile",
            "the receiver's advertised window",
        ),
        k(
            t,
            "send_window",
            "\"N packets\" or a size",
            "profile",
            "the sender's window cap (ns-2's window_)",
        ),
        k(
            t,
            "initial_rto",
            TIME,
            "profile",
            "RTO before an RTT sample (RFC 6298 (2.1))",
        ),
        k(
            t,
            "min_rto",
            TIME,
            "profile",
            "lower bound of the RTO, at least 1 ms",
        ),
        k(
            t,
            "max_rto",
            TIME,
            "profile",
            "upper bound of the RTO, at least min_rto",
        ),
        k(
            t,
            "granularity",
            TIME,
            "profile",
            "clock granularity G (RFC 6298), ns-2's tick, Linux's jiffy",
        ),
        k(
            t,
            "delayed_ack",
            "true or false",
            "profile",
            "delayed ACKs (RFC 1122, 5681)",
        ),
        k(
            t,
            "delayed_ack_timeout",
            TIME,
            "profile",
            "the delayed-ACK timer",
        ),
    ]
}

/// Per TCP key, its value in each profile (read from the profiles, as the resolved scenario
/// writes them): `(key, [(profile, value)])`.
pub fn tcp_defaults() -> Vec<(String, Vec<(&'static str, String)>)> {
    let mut out: Vec<(String, Vec<(&'static str, String)>)> = Vec::new();
    for name in PROFILES {
        let c = profile(name).expect("invariant: listed profiles exist");
        for line in render::tcp_lines(&c) {
            let (key, value) = line.split_once(" = ").expect("invariant: key = value");
            match out.iter_mut().find(|(k, _)| k == key) {
                Some((_, per)) => per.push((name, value.to_string())),
                None => out.push((key.to_string(), vec![(name, value.to_string())])),
            }
        }
    }
    out
}

/// The reference as Markdown (`vho schema`, docs/scenario-reference.md).
/// The keys grouped by table, each table at the place of its first key and its keys in the order
/// listed: one section per table, however the list interleaves them (`flow` had three).
fn by_table(keys: Vec<KeyDoc>) -> Vec<KeyDoc> {
    let mut tables: Vec<&'static str> = Vec::new();
    for d in &keys {
        if !tables.contains(&d.table) {
            tables.push(d.table);
        }
    }
    let mut out = keys;
    out.sort_by_key(|d| tables.iter().position(|t| *t == d.table));
    out
}

pub fn markdown() -> String {
    let mut o = String::from(
        "# Scenario reference\n\nGenerated from the code by `vho schema` (a test keeps \
         docs/scenario-reference.md equal to it). Times, rates and sizes are strings with a \
         unit. The common form is `[wired]` (correspondent host `ch` to home agent `ha`), one \
         `[access.NAME]` per access link (`ha` to the mobile host `mh`) and `[mobile]`; the \
         general form lists `[[node]]` and `[[link]]` instead. `vho run --dry-run` prints a \
         scenario with every default filled in. The last table is that of a preset file \
         (`vho presets NAME` prints one).\n",
    );
    let tcp = tcp_defaults();
    let mut table = "";
    for d in by_table(keys()) {
        if d.table != table {
            table = d.table;
            o.push_str(&format!(
                "\n## `{table}`\n\n| key | type | default | meaning |\n|---|---|---|---|\n"
            ));
        }
        let default = if d.table == "flow.tcp" && d.default == "profile" {
            tcp.iter()
                .find(|(key, _)| key == d.key)
                .map(|(_, per)| {
                    per.iter()
                        .map(|(p, v)| format!("{p}: {v}"))
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_else(|| "profile".into())
        } else {
            d.default.to_string()
        };
        o.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            d.key,
            d.ty.replace('|', "\\|"),
            default.replace('|', "\\|"),
            d.meaning.replace('|', "\\|")
        ));
    }
    o.push_str(
        "\n## Remedies\n\nNamed in `flow.remedies`, applied in this order whatever the \
         order listed (the last detector's response holds; `no-restore` replaces it).\n\n\
         | remedy | what it does |\n|---|---|\n",
    );
    for r in crate::remedy::Remedy::ALL {
        o.push_str(&format!("| `{}` | {} |\n", r.name(), r.summary()));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_has_one_section() {
        // The reference had three `## flow` sections: the key list interleaves flow's keys
        // with flow.tfrc's, flow.pareto's and flow.probe's.
        let doc = markdown();
        for d in keys() {
            let heading = format!("\n## `{}`\n", d.table);
            assert_eq!(doc.matches(&heading).count(), 1, "{heading:?}");
        }
    }

    #[test]
    fn the_reference_cites_sources_a_reader_has() {
        // Work notes ("issue 21 point 5", "the digest's §4.4") and line numbers of our plain
        // text copies of the papers ("000 l.59") mean nothing to a user.
        let doc = markdown();
        for bad in [
            "issue ", "digest", " l.1", " l.2", " l.3", " l.4", " l.5", " l.6", " l.7", " l.8",
            " l.9",
        ] {
            assert!(!doc.contains(bad), "{bad:?} in the reference");
        }
    }

    #[test]
    fn the_profile_key_lists_every_profile_vho_has() {
        // The reference said "one of rfc, linux, ns2" while linux-2.0 loaded too.
        let doc = tcp_keys()
            .into_iter()
            .find(|d| d.key == "profile")
            .expect("flow.tcp.profile is documented");
        assert_eq!(doc.ty, format!("one of {}", PROFILES.join(", ")));
        for name in PROFILES {
            assert!(
                doc.meaning.contains(&format!("{name} ")),
                "{name} not explained"
            );
        }
    }
}
