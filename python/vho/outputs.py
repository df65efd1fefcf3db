"""What vho writes, every key and column with its meaning, as `vho schema` is for a scenario's
keys: `summary.json` (`vho run`), the Parquet series beside it, `metrics.json` (`vho analyze`),
a sweep's results table, and the addresses in the captures. `python3 -m vho.outputs` prints it
as Markdown (`docs/output-reference.md`); `tests/test_output_reference.py` runs every bundled
example (and analyses its captures, and sweeps it) and fails on a key or column written that is
not documented here, on an address a capture holds that the plan does not give, and on a
document that differs from what this prints.

Times are simulated seconds from the run's start unless a key says otherwise; `null` means
"did not happen" or "cannot be measured", never zero.
"""

from __future__ import annotations

#: (key path, meaning). A list's items are `[]`; `NAME` stands for a name the run chooses.
SUMMARY: tuple[tuple[str, str], ...] = (
    ("run.scenario", "the scenario's `run.name` (or its file's)"),
    ("run.seed", "the seed every random draw came from"),
    ("run.vho_version", "the version of vho that made the run"),
    (
        "run.scenario_hash",
        "a hash of the resolved scenario (what was simulated, not where its files were)",
    ),
    ("run.events", "events the simulator handled"),
    ("run.simulated_s", "where the run's clock ended (the stop time with `ended_by` stop_time)"),
    (
        "run.ended_by",
        "completed (every flow done), stop_time (`run.stop` came first) or idle "
        "(nothing left to happen: the flows not completed are stuck)",
    ),
    ("run.peak_packets_in_network", "the most packets in the network at once"),
    (
        "run.conservation_ok",
        "every link direction accounts for each packet offered to it "
        "(delivered, dropped, moved or still in the network)",
    ),
    (
        "run.warnings[]",
        "what a user should know about how the run went, a line each "
        "(`vho run` prints them on stderr): a handover not reached, a run cut or stuck",
    ),
    ("flows[].name", "the flow's name"),
    ("flows[].from", "the sending node"),
    ("flows[].to", "the receiving node"),
    (
        "flows[].kind",
        "what carries the flow (`flow.kind`): tcp, tfrc, pareto, cbr or mptcp; the keys from "
        "`data_packets_sent` to `duplicate_acks` are a TCP flow's only, `tfrc`, `cross`, "
        "`cbr` and `mptcp` the other kinds' own",
    ),
    ("flows[].tcp_profile", "a TCP flow's profile (`flow.tcp.profile`)"),
    ("flows[].bytes", "the bytes the flow was given to send (null: it sends until the run ends)"),
    ("flows[].bytes_delivered", "bytes delivered in order to the receiving application"),
    ("flows[].completed", "every byte was delivered"),
    ("flows[].start_s", "when the flow started"),
    (
        "flows[].transfer_time_s",
        "from the start to the last byte delivered in order (null if not completed)",
    ),
    ("flows[].goodput_bps", "bytes_delivered x 8 over the transfer time (null if not completed)"),
    ("flows[].data_packets_sent", "data segments the sender sent, retransmissions included"),
    ("flows[].retransmissions", "data segments sent again (ground truth: every resend)"),
    ("flows[].spurious_retransmissions", "resends of data the receiver already had (ground truth)"),
    ("flows[].timeouts", "retransmission timeouts"),
    ("flows[].spurious_timeouts", "timeouts whose segment had not been lost (ground truth)"),
    (
        "flows[].fast_retransmits",
        "fast retransmissions (loss recovery entered by duplicate ACKs, SACK or RACK)",
    ),
    (
        "flows[].spurious_timeouts_detected",
        "timeouts the sender itself found spurious "
        "(`tcp.spurious_detection`; 0 when off): compare with the ground truth's "
        "`spurious_timeouts`",
    ),
    (
        "flows[].spurious_fast_retransmits_detected",
        "fast retransmits the sender found spurious (D-SACK, RFC 3708)",
    ),
    ("flows[].tlp_probes", "tail loss probes sent (Linux's TCPLossProbes)"),
    ("flows[].tlp_recoveries", "probes whose ACK showed they repaired a lost tail"),
    ("flows[].tlp_retransmissions", "probes that resent a segment (the rest sent new data)"),
    (
        "flows[].handover_notices",
        "handover notifications that reached the sender (`handover.notify`)",
    ),
    ("flows[].rtt_injections", "RTTs injected at a notification (`rtt_injection`)"),
    (
        "flows[].rtt_injections_without_hint",
        "notifications that found no RTT recorded for the interface taken (its first visit)",
    ),
    (
        "flows[].out_of_order_deliveries",
        "segments the receiver got above a hole (lost or late data before them)",
    ),
    (
        "flows[].reordered_deliveries",
        "first transmissions the network reordered (ground "
        "truth: a segment sent once arriving after one sent later)",
    ),
    ("flows[].duplicate_acks", "duplicate ACKs the receiver sent"),
    ("flows[].drops[]", "the flow's packets lost, by link direction and cause"),
    ("flows[].drops[].link", "the link"),
    ("flows[].drops[].from", "the node the direction leaves"),
    ("flows[].drops[].to", "the node it reaches"),
    (
        "flows[].drops[].cause",
        "queue_overflow, handover_flush (the old link's queue at a "
        "hard handover), in_flight (on the old link's air or in its pipe at a hard handover), "
        "random_loss, early_drop (RED), link_state (a scheduled outage or blackhole), "
        "link_layer_discard (RLC-AM's MaxDAT, DCF's retry limit)",
    ),
    ("flows[].drops[].packets", "packets lost there for that cause"),
    (
        "flows[].adaptation_time_s",
        "t_a, Cottingham & Vidales §5, after the flow's first "
        "handover (null without one, or when the flow never reaches its mean again)",
    ),
    (
        "flows[].first_on_new_link_s",
        "the first data packet the receiver got over the new link: where t_a starts",
    ),
    (
        "flows[].probe",
        "TCP Probe's or TFRC Probe's record (Chen et al. §3; null without the probe)",
    ),
    ("flows[].probe.pairs", "packet pairs the receiver measured"),
    ("flows[].probe.pairs_refused", "pairs refused for having no dispersion"),
    ("flows[].probe.final_estimate_bps", "the CapProbe capacity estimate at the end, bit/s"),
    (
        "flows[].probe.detections[]",
        "every handoff the sender learnt of (IHN or EHN), in "
        "order: at_s, by (ihn, ehn), direction, from_bps, to_bps, action (fra, err or null), "
        "after_handover_s (IHN's detection lag)",
    ),
    ("flows[].tfrc.packet_size", 'a TFRC flow (`kind = "tfrc"`): its packet size, bytes'),
    ("flows[].tfrc.packets_sent", "data packets sent"),
    ("flows[].tfrc.bytes_sent", "data bytes sent"),
    ("flows[].tfrc.packets_received", "data packets the receiver got"),
    ("flows[].tfrc.bytes_received", "data bytes the receiver got (TFRC does not retransmit)"),
    (
        "flows[].tfrc.mean_sending_rate_bps",
        "data bits sent over the flow's time (its start to the end of the run), bit/s",
    ),
    ("flows[].tfrc.mean_throughput_bps", "data bits received over the same time, bit/s"),
    ("flows[].tfrc.final_rate_bps", "X, the allowed sending rate at the end, bit/s"),
    ("flows[].tfrc.final_p", "the receiver's loss event rate p at the end (RFC 5348 §5.4)"),
    ("flows[].tfrc.mean_p", "p time-weighted over the flow"),
    ("flows[].tfrc.final_rtt_s", "the sender's R at the end (null before its first feedback)"),
    ("flows[].tfrc.packets_lost", "data packets lost"),
    ("flows[].tfrc.loss_events", "loss events (RFC 5348 §5.2)"),
    ("flows[].tfrc.feedback_sent", "feedback packets the receiver sent"),
    ("flows[].tfrc.feedback_received", "feedback packets the sender got"),
    ("flows[].tfrc.expedited_feedback", "feedback sent early because p rose (§6.1)"),
    ("flows[].tfrc.nofeedback_expiries", "expiries of the sender's nofeedback timer (§4.4)"),
    ("flows[].cbr.rate_bps", 'a CBR flow (`kind = "cbr"`): its payload bit rate'),
    ("flows[].cbr.packet_size", "payload bytes of each datagram (28 of IPv4 and UDP on top)"),
    ("flows[].cbr.packets_sent", "datagrams sent"),
    ("flows[].cbr.packets_received", "datagrams received (each sequence number once)"),
    (
        "flows[].cbr.packets_lost",
        "sequence numbers below the highest received that never arrived "
        "(RFC 3550 §6.4.1's cumulative loss)",
    ),
    ("flows[].cbr.loss_ratio", "packets_lost over those expected (the highest received + 1)"),
    (
        "flows[].cbr.packets_after_last",
        "sent after the highest received: on the way when the run ended, or lost at the tail",
    ),
    ("flows[].cbr.packets_reordered", "datagrams that arrived after one sent later"),
    ("flows[].cbr.duplicates", "second copies received"),
    ("flows[].cbr.delay_min_s", "the smallest one-way delay (arrival less send time), s"),
    ("flows[].cbr.delay_mean_s", "the mean one-way delay, s"),
    ("flows[].cbr.delay_p50_s", "the median one-way delay (nearest rank), s"),
    ("flows[].cbr.delay_p95_s", "the 95th percentile of the one-way delay (nearest rank), s"),
    ("flows[].cbr.delay_max_s", "the largest one-way delay, s"),
    ("flows[].cbr.jitter_s", "RFC 3550 §6.4.1's interarrival jitter at the end, s"),
    (
        "flows[].cbr.max_gap_s",
        "the longest time between two arrivals (a handover's outage as the stream saw it), s",
    ),
    ("flows[].cbr.max_gap_from_s", "when that gap began (the arrival before it)"),
    ("flows[].mptcp.scheduler", 'an MPTCP flow (`kind = "mptcp"`): its packet scheduler'),
    (
        "flows[].mptcp.congestion_control",
        "how its subflows' windows relate: uncoupled, lia or olia",
    ),
    (
        "flows[].mptcp.subflows_created",
        "subflows it had over its life (ids never reused; `vho emulate`: those its readings saw)",
    ),
    (
        "flows[].mptcp.bytes_retrans",
        "data-level bytes sent again on another subflow (MPTCP_INFO's mptcpi_bytes_retrans; "
        "`vho emulate`: the kernel's, which leaves out stranded data pushed again when a subflow "
        "goes stale, docs/design/mptcp.md)",
    ),
    (
        "flows[].mptcp.reinjections",
        "reinjections: the connection timer's and stranded data's (not in `vho emulate`'s)",
    ),
    (
        "flows[].mptcp.stale_subflows",
        "subflows found stale (Linux's MPTcpExtSubflowStale; not in `vho emulate`'s)",
    ),
    (
        "flows[].mptcp.duplicate_bytes",
        "bytes the receiver got twice at the data level (`vho emulate`: its subflows' "
        "tcpi_bytes_received summed, less the transfer)",
    ),
    (
        "flows[].mptcp.subflows[].id",
        "the subflow's id: its order of creation from 0 (`vho emulate`: of first sighting)",
    ),
    (
        "flows[].mptcp.subflows[].kernel_id",
        "`vho emulate` only: the kernel's subflow_id (from 1; MPTCP_FULL_INFO)",
    ),
    ("flows[].mptcp.subflows[].interface", "the mobile's interface (access link) it runs over"),
    (
        "flows[].mptcp.subflows[].backup",
        "a backup subflow (the endpoint's backup flag; not in `vho emulate`'s)",
    ),
    (
        "flows[].mptcp.subflows[].opened_s",
        "when the data sender took its SYN (`vho emulate`: the first reading, every 10 ms, that "
        "listed it; at a listening sender after the join's third ACK)",
    ),
    (
        "flows[].mptcp.subflows[].closed_s",
        "when its interface's address was removed (null: open; `vho emulate`: the first "
        "reading that no longer listed it, or found it closed)",
    ),
    ("flows[].mptcp.subflows[].bytes_sent", "data bytes sent, resent included (tcpi_bytes_sent)"),
    ("flows[].mptcp.subflows[].bytes_acked", "data bytes acknowledged (tcpi_bytes_acked)"),
    ("flows[].mptcp.subflows[].total_retrans", "segments retransmitted (tcpi_total_retrans)"),
    (
        "flows[].mptcp.subflows[].bytes_reinjected",
        "data-level bytes reinjected onto it (not in `vho emulate`'s)",
    ),
    (
        "flows[].mptcp.subflows[].bytes_received",
        "data bytes the receiver got on it (`vho emulate`: its end's tcpi_bytes_received)",
    ),
    ("flows[].mptcp.handovers[].at_s", "a handover of the flow's mobile"),
    ("flows[].mptcp.handovers[].lost", "the interface it left (its path lost)"),
    ("flows[].mptcp.handovers[].taken", "the interface it took"),
    (
        "flows[].mptcp.handovers[].resume_s",
        "time to resume: to the connection's in-order data moving on again with data over "
        "another interface than the one lost (null: never; `vho emulate`: the first reading of "
        "the receiver's, every 10 ms, at which mptcpi_rcv_nxt and such a subflow had moved on)",
    ),
    (
        "flows[].mptcp.handovers[].failback_s",
        "time to fail back: to the first data over the interface taken when an earlier "
        "handover had left it (null otherwise; `vho emulate`: a reading of the receiver's)",
    ),
    (
        "flows[].mptcp.outages[].at_s",
        "a link schedule taking one of the mobile's interfaces' paths away (a state other "
        "than up; the path manager hears nothing), reached by the run",
    ),
    (
        "flows[].mptcp.outages[].until_s",
        "when the path returned (the entry's until, or a later entry setting it up; null: never)",
    ),
    ("flows[].mptcp.outages[].interface", "the interface whose path went"),
    ("flows[].mptcp.outages[].state", "the state the schedule set: blackhole, outage or down"),
    (
        "flows[].mptcp.outages[].resume_s",
        "time to resume, as a handover's: to the connection's in-order data moving on again "
        "with data over another interface (null: never)",
    ),
    (
        "flows[].mptcp.outages[].failback_s",
        "time to fail back: from until_s to the first data arriving over the interface again "
        "(null: no return, or none came)",
    ),
    ("handovers[].at_s", "the handover's instant"),
    ("handovers[].mobile", "the mobile node that hands over"),
    ("handovers[].from", "the access link it leaves"),
    ("handovers[].to", "the access link it takes"),
    ("handovers[].kind", "soft, soft-reconfigure, hard (`handover.kind`)"),
    ("handovers[].delay_s", "the handover's fixed delay (`handover.delay`; 0 with [mipv6])"),
    (
        "handovers[].interruption_s",
        "from the instant to the first packet reaching the "
        "mobile over the new link (null if none did)",
    ),
    (
        "handovers[].happened",
        "the run reached the instant (a run that ends first never hands over)",
    ),
    (
        "handovers[].mipv6.t_d_s",
        "with [mipv6]: movement detection, from the instant to the mobile's decision to move",
    ),
    (
        "handovers[].mipv6.t_c_s",
        "configuration: from that decision to the new care-of "
        "address being usable (duplicate address detection)",
    ),
    (
        "handovers[].mipv6.t_r_s",
        "registration: from then to the first packet "
        "route-optimised to the new care-of address (tunnelled there, without route "
        "optimisation)",
    ),
    ("handovers[].mipv6.t_n_s", "T_n = t_d + t_c + t_r (Cottingham & Vidales eq. 1)"),
    ("handovers[].mipv6.detected_s", "when the mobile decided to move"),
    ("handovers[].mipv6.configured_s", "when the new care-of address became usable"),
    ("handovers[].mipv6.bu_sent_s", "when the first Binding Update to the home agent left"),
    ("handovers[].mipv6.ba_s", "when the home agent's acknowledgement arrived"),
    (
        "handovers[].mipv6.bu_cn_sent_s",
        "when return routability completed and the Binding "
        "Update to the (first) correspondent left",
    ),
    (
        "handovers[].mipv6.first_tunnelled_s",
        "the first packet tunnelled to the new care-of address",
    ),
    (
        "handovers[].mipv6.first_route_optimised_s",
        "the first packet route-optimised to it (T_n ends here)",
    ),
    (
        "handovers[].mipv6.bu_transmissions",
        "Binding Updates sent to the home agent for this handover (1 without a loss)",
    ),
    ("links[].link", "a link direction's link"),
    ("links[].from", "the node it leaves"),
    ("links[].to", "the node it reaches"),
    ("links[].offered", "packets offered to it (queue drops included)"),
    ("links[].delivered", "packets it delivered to the far node"),
    ("links[].delivered_bytes", "their bytes"),
    ("links[].moved_in", "packets moved into its queue from another (a handover's queue move)"),
    ("links[].moved_out", "packets moved out of its queue to another"),
    ("links[].dropped_queue_overflow", "drops for a full queue"),
    ("links[].dropped_handover_flush", "its queue lost at a hard handover"),
    ("links[].dropped_in_flight", "lost on its air or in its pipe at a hard handover"),
    ("links[].dropped_random_loss", "lost to the loss model"),
    ("links[].dropped_link_layer_discard", "discarded by its link layer (only with one)"),
    ("links[].link_layer.kind", "rlc-am or dcf"),
    (
        "links[].link_layer.transmissions",
        "the link layer's transmissions (RLC PDUs, 802.11 frames)",
    ),
    ("links[].link_layer.retransmissions", "of which retransmissions"),
    ("links[].link_layer.lost", "transmissions lost on the air"),
    ("links[].link_layer.discarded", "SDUs or MSDUs given up (MaxDAT, the retry limit)"),
    ("links[].still_in_network", "packets still in it when the run ended"),
    (
        "links[].conserved",
        "offered + moved in = delivered + dropped + moved out + still in the network",
    ),
    ("node_functions[].node", "the node a function sits at"),
    (
        "node_functions[].kind",
        "the function: window-clamp, link-flow-control, ip-in-ip, "
        "mipv6-mobile-node, mipv6-home-agent, mipv6-correspondent, mipv6-access-router, "
        "nemo-combiner",
    ),
    ("node_functions[].counters.NAME", "what it counted, by name (below)"),
    ("nemo.router", "with [nemo]: the mobile router"),
    ("nemo.combining", "none, nemo-sho or apc"),
    ("nemo.packets_bicast", "packets the home agent duplicated (each sent through both tunnels)"),
    ("nemo.copies", "copies carrying a Packet Identifier Option that reached the router"),
    ("nemo.forwarded", "copies forwarded to the mobile network (at once or released)"),
    (
        "nemo.duplicates_dropped",
        "copies discarded as duplicates (or outside the Sequence Number Table)",
    ),
    ("nemo.held", "fast-link copies APC held (eq. 2)"),
    ("nemo.max_hold_s", "the longest hold"),
    ("nemo.released_at_completion", "held copies released at the handover's completion"),
)

#: Per node function kind, its counters (`node_functions[].counters.NAME`).
COUNTERS: tuple[tuple[str, str, str], ...] = (
    ("mipv6-mobile-node", "signalling_sent", "signalling messages sent"),
    ("mipv6-mobile-node", "binding_updates_sent", "Binding Updates sent to the home agent"),
    ("mipv6-mobile-node", "neighbor_solicitations_sent", "DAD Neighbor Solicitations"),
    ("mipv6-mobile-node", "router_solicitations_sent", "Router Solicitations"),
    (
        "mipv6-mobile-node",
        "binding_updates_to_correspondents",
        "Binding Updates to correspondents, retransmissions included",
    ),
    ("mipv6-mobile-node", "handovers_completed", "handovers that reached route optimisation"),
    (
        "mipv6-mobile-node",
        "binding_errors_received",
        "Binding Errors acted on (RFC 6275 §11.3.6; only when there were some)",
    ),
    ("mipv6-mobile-node", "packets_bicast", "a mobile router's packets bicast upward"),
    (
        "mipv6-mobile-node",
        "mobile_network_packets_reverse_tunnelled",
        "a mobile router's network's packets reverse-tunnelled to the home agent",
    ),
    ("mipv6-home-agent", "packets_tunnelled", "packets tunnelled to a care-of address"),
    ("mipv6-home-agent", "binding_updates", "Binding Updates processed"),
    (
        "mipv6-home-agent",
        "dropped_without_binding",
        "packets for a home address without a binding, dropped",
    ),
    ("mipv6-home-agent", "packets_bicast", "packets duplicated by bicasting"),
    ("mipv6-correspondent", "packets_route_optimised", "packets sent route-optimised"),
    ("mipv6-correspondent", "binding_updates", "Binding Updates accepted"),
    (
        "mipv6-correspondent",
        "binding_updates_out_of_sequence",
        "Binding Updates refused with status 135 (only when there were some)",
    ),
    (
        "mipv6-correspondent",
        "packets_refused_unknown_binding",
        "packets with a Home Address "
        "option its binding does not match, dropped (RFC 6275 §9.3.1; only when some were)",
    ),
    ("mipv6-correspondent", "binding_errors_sent", "Binding Errors sent about them"),
    ("mipv6-access-router", "advertisements", "Router Advertisements sent"),
    ("mipv6-access-router", "solicited_advertisements", "of which answering a solicitation"),
    ("nemo-combiner", "copies", "copies with a Packet Identifier Option that arrived"),
    ("nemo-combiner", "forwarded_without_combining", "copies forwarded with no combining"),
    ("nemo-combiner", "duplicates_dropped", "copies absorbed as duplicates"),
    ("nemo-combiner", "arrived_fast", "copies over the fast link"),
    ("nemo-combiner", "arrived_slow", "copies over the slow link"),
    ("nemo-combiner", "forwarded_at_once", "copies forwarded as they arrived"),
    ("nemo-combiner", "held", "copies held (APC's eq. 2)"),
    ("nemo-combiner", "released_by_timer", "held copies released when their hold expired"),
    (
        "nemo-combiner",
        "released_in_order",
        "held copies released early, a higher number having been forwarded",
    ),
    (
        "nemo-combiner",
        "released_by_slow_copy",
        "held copies released when their slow-link copy arrived",
    ),
    (
        "nemo-combiner",
        "released_at_completion",
        "held copies released at the handover's completion",
    ),
    ("nemo-combiner", "duplicates", "second copies seen"),
    ("nemo-combiner", "outside_table", "copies outside the Sequence Number Table"),
    ("nemo-combiner", "max_hold_us", "the longest a copy stayed, microseconds"),
    ("window-clamp", "segments_seen", "segments it saw"),
    ("window-clamp", "windows_rewritten", "advertised windows it lowered"),
    ("window-clamp", "connections", "connections it tracked"),
    ("link-flow-control", "packets_held", "packets it held"),
    ("link-flow-control", "packets_released", "packets it released"),
    ("link-flow-control", "packets_rerouted", "packets re-routed over a new link"),
    ("link-flow-control", "packets_dropped", "packets dropped"),
    ("link-flow-control", "max_held", "the most held at once"),
    ("link-flow-control", "held_at_end", "packets held when the run ended"),
    ("ip-in-ip", "packets_encapsulated", "packets it encapsulated"),
)

#: The Parquet series `vho run` writes beside `summary.json` (when the scenario records series,
#: `record.series`, the default; `series_cross.parquet` whenever there is cross traffic):
#: (file, column, meaning). Times are simulated seconds.
PARQUET: tuple[tuple[str, str, str], ...] = (
    ("series_tcp.parquet", "t_s", "when the sender's state changed"),
    ("series_tcp.parquet", "flow", "the flow's name"),
    ("series_tcp.parquet", "cwnd", "congestion window, bytes"),
    (
        "series_tcp.parquet",
        "ssthresh",
        "slow-start threshold, bytes (2^31 - 1 before the first loss)",
    ),
    ("series_tcp.parquet", "flight", "bytes in flight as the sender counts them"),
    ("series_tcp.parquet", "srtt_s", "smoothed RTT (RFC 6298's SRTT; 0 before the first sample)"),
    ("series_tcp.parquet", "rttvar_s", "RTT variation (RFC 6298's RTTVAR)"),
    ("series_tcp.parquet", "rto_s", "the retransmission timeout"),
    ("series_queues.parquet", "t_s", "when a link direction's queue changed"),
    ("series_queues.parquet", "link", "the link"),
    ("series_queues.parquet", "from", "the node the direction leaves"),
    ("series_queues.parquet", "to", "the node it reaches"),
    ("series_queues.parquet", "packets", "packets queued (the one on the air excluded)"),
    ("series_queues.parquet", "bytes", "their bytes"),
    ("series_drops.parquet", "t_s", "when a data segment was dropped in the network"),
    ("series_drops.parquet", "flow", "its flow"),
    ("series_drops.parquet", "seq", "its first byte, as an offset from the flow's first data byte"),
    ("series_drops.parquet", "len", "its payload bytes"),
    ("series_drops.parquet", "link", "the link it was dropped on"),
    ("series_drops.parquet", "from", "the node that direction leaves"),
    ("series_drops.parquet", "to", "the node it reaches"),
    ("series_drops.parquet", "cause", "why (the causes of `flows[].drops[].cause`)"),
    ("series_tfrc.parquet", "t_s", "when a TFRC sender's state changed"),
    ("series_tfrc.parquet", "flow", "the flow's name"),
    ("series_tfrc.parquet", "x_bps", "X, the allowed sending rate (RFC 5348 §4.3), bit/s"),
    ("series_tfrc.parquet", "x_recv_bps", "X_recv, the receive rate the last feedback reported"),
    ("series_tfrc.parquet", "p", "the loss event rate the last feedback reported"),
    ("series_tfrc.parquet", "rtt_s", "R, the sender's RTT estimate"),
    ("series_probe.parquet", "t_s", "when the CapProbe estimate changed"),
    ("series_probe.parquet", "flow", "the flow's name"),
    ("series_probe.parquet", "estimate_bps", "the capacity estimate, bit/s (Chen et al. §3.1)"),
    ("series_cross.parquet", "t_s", "the start of an interval of a Pareto flow"),
    ("series_cross.parquet", "flow", "the flow's name"),
    ("series_cross.parquet", "sent_bytes", "bytes its source sent in the interval"),
    ("series_cross.parquet", "delivered_bytes", "bytes its sink got in the interval"),
    ("series_cross.parquet", "sent_bps", "the same as bit/s"),
    ("series_cross.parquet", "delivered_bps", "the same as bit/s"),
    ("series_cbr.parquet", "t_s", "when a CBR datagram reached its receiver (arrival order)"),
    ("series_cbr.parquet", "flow", "the flow's name"),
    ("series_cbr.parquet", "seq", "the datagram's sequence number, from 0"),
    ("series_cbr.parquet", "sent_s", "when its source sent it"),
    ("series_cbr.parquet", "delay_s", "its one-way delay, t_s less sent_s"),
    (
        "series_mptcp.parquet",
        "t_s",
        "when an MPTCP subflow's state changed (`vho emulate --multipath`: a reading of the "
        "kernel's, every 10 ms, that found it changed)",
    ),
    ("series_mptcp.parquet", "flow", "the flow's name"),
    ("series_mptcp.parquet", "subflow", "the subflow's id (stable: never reused)"),
    ("series_mptcp.parquet", "interface", "the mobile's interface it runs over"),
    ("series_mptcp.parquet", "snd_cwnd", "its congestion window, segments (tcpi_snd_cwnd)"),
    ("series_mptcp.parquet", "snd_mss", "its segment size, bytes (tcpi_snd_mss)"),
    ("series_mptcp.parquet", "rtt_s", "its smoothed RTT, s (tcpi_rtt)"),
    ("series_mptcp.parquet", "bytes_sent", "data bytes sent so far (tcpi_bytes_sent)"),
    ("series_mptcp.parquet", "bytes_acked", "data bytes acknowledged so far (tcpi_bytes_acked)"),
    (
        "series_mptcp.parquet",
        "open",
        "whether the subflow is open (false once closed; `vho emulate`: once the kernel no "
        "longer lists it, a row)",
    ),
)

#: The columns of a sweep's results (`DIR/results/*.parquet`, one row per run; `vho compare`
#: keeps its runs in the same form under `DIR/runs/`): (column, meaning). UPPER-case parts
#: stand for names the sweep or scenario chooses.
SWEEP: tuple[tuple[str, str], ...] = (
    ("task", "the run's number in the sweep (points x replications)"),
    ("point", "the grid point's number"),
    ("replication", "the replication's number at its point, from 0"),
    ("seed", "the run's seed (from the sweep's seed policy)"),
    ("AXIS", 'an axis\'s value as the sweep file gives it (`handover.0.at`: "0.5 s")'),
    ("AXIS_si", "an axis with units: its number in base units (s, b/s, bytes)"),
    ("vho_version", "`run.vho_version`"),
    ("scenario_hash", "`run.scenario_hash` (differs between points: the overrides differ)"),
    ("events", "`run.events`"),
    ("simulated_s", "`run.simulated_s`"),
    ("ended_by", "`run.ended_by`"),
    ("conservation_ok", "`run.conservation_ok`"),
    ("METRIC", "a flow's metric (`flows[].METRIC`), for a one-flow scenario"),
    ("flow.NAME.METRIC", "the same per flow, when the scenario has several"),
    ("drops", "the flow's packets dropped (all links and causes; `flow.NAME.drops` likewise)"),
    ("handover.I.at_s", "`handovers[I].at_s`"),
    ("handover.I.interruption_s", "`handovers[I].interruption_s`"),
    ("nemo.KEY", "`nemo.KEY` (a number), with [nemo]"),
    ("dropped_CAUSE", "drops for that cause summed over every link direction"),
    ("error", "null for a run that succeeded; else its one-line error (or `timed out: ...`)"),
    ("wall_s", "the run's wall time"),
)

#: `metrics.json`, what `vho analyze` writes: (key path, meaning). `flows.jsonl` holds the
#: same entries as `flows[]`, one a line. Times are seconds from the capture's first packet
#: (a simulator's capture keeps its simulated clock: `time.origin`).
METRICS: tuple[tuple[str, str], ...] = (
    ("vho_version", "the version of vho that analysed the capture"),
    ("capture", "the capture file"),
    ("packets", "frames read"),
    ("tcp_segments", "of which TCP segments"),
    ("skipped.not_tcp", "frames that were not TCP (ICMPv6, Mobility Header, UDP, ...)"),
    ("skipped.fragment", "IP fragments (not reassembled)"),
    ("skipped.malformed", "frames whose headers do not parse"),
    ("skipped.truncated_headers", "frames cut before the end of the TCP header (snap length)"),
    ("skipped.unknown_link_type", "frames of a link type vho does not read"),
    ("max_open_flows", "the most conversations open at once"),
    ("ta_mean", "`--ta-mean`, when given: the mean every flow's t_a is measured against"),
    (
        "time.origin",
        "first_packet (times from the first packet) or simulated_clock (a "
        "simulator's capture stamped from 1970-01-01: times are its clock)",
    ),
    ("time.origin_epoch_s", "the origin's absolute stamp, seconds since 1970"),
    ("time.origin_utc", "the same in UTC"),
    ("time.end_s", "the capture's last packet"),
    ("warnings[]", "what a user should know (a capture cut short in its last record, ...)"),
    ("handover.source", "given (`--handover-at`), detected (found in the data) or none"),
    ("handover.at_s", "the handover used for t_a (null when none)"),
    ("handover.after_s", "where the search put the change's start (detected only)"),
    (
        "handover.signal",
        "what showed it: tunnel (a new care-of address), hops (a new TTL or hop "
        "limit), rtt, data-rate, or two joined by +",
    ),
    ("handover.evidence", "the numbers behind it, in words"),
    ("handover.flow", "the flow it was found in"),
    (
        "handover.all[]",
        "every change of path found, each with at_s, after_s, signal, evidence "
        "and adaptation_time_s (a path that changes and changes back is two)",
    ),
    ("handover.all[].at_s", "as `handover.at_s`"),
    ("handover.all[].after_s", "as `handover.after_s`"),
    ("handover.all[].signal", "as `handover.signal`"),
    ("handover.all[].evidence", "as `handover.evidence`"),
    ("handover.all[].adaptation_time_s", "t_a after this change"),
    ("flows_total", "TCP conversations in the capture"),
    ("flows_listed", "those listed in full under `flows` (the 100 largest, or `--flow`'s)"),
    ("flows_file", "flows.jsonl when more conversations were analysed than listed, else null"),
    ("small_flows.flows", "conversations not listed, summed: how many"),
    ("small_flows.packets", "their packets"),
    ("small_flows.bytes", "their data bytes"),
    ("small_flows.syn_only", "of which a SYN and nothing else"),
    (
        "small_flows.max_data_segments",
        "a conversation with at most this many data segments counts as small",
    ),
    ("flows[].index", "the conversation's number (`--flow N`)"),
    ("flows[].id", "sender ADDR:PORT -> receiver ADDR:PORT"),
    ("flows[].sender.addr", "the data sender (the side that sent more data)"),
    ("flows[].sender.port", "its port"),
    ("flows[].receiver.addr", "the data receiver"),
    ("flows[].receiver.port", "its port"),
    ("flows[].first_s", "its first packet"),
    ("flows[].duration_s", "first to last packet"),
    ("flows[].packets", "packets both ways"),
    ("flows[].data_segments", "segments carrying data from the sender"),
    ("flows[].bytes", "the data's span in sequence space (each byte once)"),
    ("flows[].bytes_sent", "data bytes seen, resends included"),
    ("flows[].acked_bytes", "bytes the receiver acknowledged"),
    (
        "flows[].goodput_bps",
        "bytes over the time from the first data to the last ACK, bit/s "
        "(null when it cannot be told)",
    ),
    (
        "flows[].capture_point.point",
        "sender, receiver or unknown: where the capture was taken "
        "relative to the data (`--capture-point` gives it)",
    ),
    (
        "flows[].capture_point.evidence",
        "why: the handshake's timing, or the data between a segment and its ACK",
    ),
    ("flows[].retransmissions", "the headline count, as `retransmissions_by` says"),
    (
        "flows[].retransmissions_by",
        "segments-sent-again (at the sender: every data segment, SYN "
        "or FIN sent again) or wireshark (elsewhere: tcp.analysis.retransmission)",
    ),
    ("flows[].fast_retransmissions", "Wireshark's tcp.analysis.fast_retransmission"),
    ("flows[].out_of_order", "Wireshark's tcp.analysis.out_of_order on the data"),
    (
        "flows[].spurious_retransmissions",
        "retransmissions shown needless by the evidence `spurious_evidence` names",
    ),
    (
        "flows[].spurious_evidence",
        "receiver-capture (a copy whose bytes had all arrived), dsack "
        "and/or timestamps (at the sender: RFC 3708, Eifel RFC 3522), or none: cannot be told "
        "here, which is not 'none found'",
    ),
    ("flows[].spurious_by.receiver_capture", "spurious retransmissions found that way"),
    ("flows[].spurious_by.dsack", "found by a D-SACK"),
    ("flows[].spurious_by.timestamps", "found by a timestamp echo"),
    (
        "flows[].wireshark_retransmissions",
        "tcp.analysis.retransmission on the data, as tshark counts it",
    ),
    ("flows[].wireshark_out_of_order", "tcp.analysis.out_of_order on the data, as tshark"),
    ("flows[].wireshark_spurious_retransmissions", "tcp.analysis.spurious_retransmission"),
    (
        "flows[].wireshark.NAME",
        "every tcp.analysis count of both directions added, as "
        "`tshark -Y tcp.analysis.NAME` gives them (retransmissions, fast_retransmissions, "
        "spurious_retransmissions, out_of_order, lost_segment, ack_lost_segment, duplicate_acks, "
        "zero_window, zero_window_probe, window_full, window_update, keep_alive)",
    ),
    ("flows[].duplicate_acks", "duplicate ACKs from the receiver (tcp.analysis.duplicate_ack)"),
    (
        "flows[].lost_segments",
        "holes before a segment: data the capture never saw (tcp.analysis.lost_segment)",
    ),
    ("flows[].zero_windows", "zero windows the receiver advertised"),
    ("flows[].sack_blocks", "SACK blocks the receiver sent"),
    ("flows[].dsack_blocks", "of which D-SACK blocks (RFC 2883)"),
    ("flows[].longest_stall_s", "the longest time without new data"),
    (
        "flows[].rtt",
        "at a sender-side capture: a data segment to the ACK that covers it "
        "(samples, min_s, mean_s, max_s; Karn's rule); null at a receiver-side capture",
    ),
    ("flows[].rtt.samples", "RTT samples"),
    ("flows[].rtt.min_s", "their least"),
    ("flows[].rtt.mean_s", "their mean"),
    ("flows[].rtt.max_s", "their largest"),
    ("flows[].rtt_timestamps", "the same from timestamp echoes (RFC 7323)"),
    ("flows[].rtt_timestamps.samples", "samples"),
    ("flows[].rtt_timestamps.min_s", "least"),
    ("flows[].rtt_timestamps.mean_s", "mean"),
    ("flows[].rtt_timestamps.max_s", "largest"),
    (
        "flows[].ack_delay",
        "at a receiver-side capture: a segment's arrival to its ACK, the "
        "receiver's ACK delay (not a round trip); null elsewhere",
    ),
    ("flows[].ack_delay.samples", "samples"),
    ("flows[].ack_delay.min_s", "least"),
    ("flows[].ack_delay.mean_s", "mean"),
    ("flows[].ack_delay.max_s", "largest"),
    ("flows[].ack_delay_timestamps", "the same from timestamp echoes"),
    ("flows[].ack_delay_timestamps.samples", "samples"),
    ("flows[].ack_delay_timestamps.min_s", "least"),
    ("flows[].ack_delay_timestamps.mean_s", "mean"),
    ("flows[].ack_delay_timestamps.max_s", "largest"),
    (
        "flows[].handshake_rtt_s",
        "SYN to SYN/ACK, or SYN/ACK to ACK, whichever side the capture "
        "is near (null without a handshake)",
    ),
    ("flows[].syn_seen", "the capture holds the SYN"),
    ("flows[].fin_seen", "a FIN"),
    ("flows[].rst_seen", "a RST"),
    ("flows[].path_changes[]", "the changes of path found in this flow, as `handover.all[]`"),
    ("flows[].path_changes[].at_s", "as `handover.at_s`"),
    ("flows[].path_changes[].after_s", "as `handover.after_s`"),
    ("flows[].path_changes[].signal", "as `handover.signal`"),
    ("flows[].path_changes[].evidence", "as `handover.evidence`"),
    ("flows[].path_changes[].adaptation_time_s", "t_a after it"),
    ("flows[].first_after_handover_s", "the first data after the handover (where t_a starts)"),
    (
        "flows[].adaptation_time_s",
        "t_a (Cottingham & Vidales §5): from the first data after the "
        "handover until the throughput per 0.1 s first reaches the mean; null without a handover "
        "or when it never does",
    ),
    (
        "flows[].ta_mean",
        "`--ta-mean`: whole-connection or after-handover, the mean t_a is measured against",
    ),
    (
        "flows[].adaptation_time_by_mean.whole-connection.mean_bps",
        "with `--ta-mean`: the whole connection's mean throughput, bit/s",
    ),
    ("flows[].adaptation_time_by_mean.whole-connection.adaptation_time_s", "t_a against it"),
    (
        "flows[].adaptation_time_by_mean.after-handover.mean_bps",
        "the mean throughput after the handover, bit/s",
    ),
    ("flows[].adaptation_time_by_mean.after-handover.adaptation_time_s", "t_a against it"),
    (
        "mptcp",
        "only for a capture holding a Multipath TCP option (RFC 8684): its connections, "
        "subflows joined by token (each subflow is also a conversation of `flows[]`)",
    ),
    ("mptcp.connections_total", "MPTCP connections (an MP_CAPABLE handshake each)"),
    (
        "mptcp.options.NAME",
        "MPTCP options seen by subtype (mp_capable, mp_join, dss, "
        "add_addr, remove_addr, mp_prio, mp_fail, mp_fastclose, mp_tcprst, other) and malformed "
        "ones (a length their subtype does not allow, or cut by the header's end)",
    ),
    ("mptcp.connections[].index", "the connection's number (as Wireshark's `mptcp.stream`)"),
    ("mptcp.connections[].version", "MP_CAPABLE's version (1: RFC 8684, 0: RFC 6824)"),
    ("mptcp.connections[].checksum", "DSS checksums negotiated (MP_CAPABLE's A flag)"),
    ("mptcp.connections[].client.addr", "the initial subflow's MP_CAPABLE SYN sender"),
    ("mptcp.connections[].client.port", "its port"),
    ("mptcp.connections[].client.key", "its key (hex), when the handshake showed it"),
    (
        "mptcp.connections[].client.token",
        "its token (hex): the top 32 bits of SHA-256 of its key (RFC 8684 §3.1)",
    ),
    ("mptcp.connections[].server.addr", "the other host of the initial subflow"),
    ("mptcp.connections[].server.port", "its port"),
    ("mptcp.connections[].server.key", "its key (hex)"),
    ("mptcp.connections[].server.token", "its token (hex): what MP_JOIN SYNs to it name"),
    ("mptcp.connections[].first_s", "its first subflow's first packet"),
    ("mptcp.connections[].last_s", "the last packet of any of its subflows"),
    ("mptcp.connections[].subflows[]", "the initial subflow, then each joined one"),
    ("mptcp.connections[].subflows[].index", "the subflow's conversation (`flows[].index`)"),
    ("mptcp.connections[].subflows[].role", "initial (MP_CAPABLE), join (MP_JOIN), unknown"),
    ("mptcp.connections[].subflows[].token", "the token its MP_JOIN SYN named (hex)"),
    ("mptcp.connections[].subflows[].first_s", "its first packet"),
    ("mptcp.connections[].subflows[].last_s", "its last packet"),
    ("mptcp.connections[].subflows[].packets", "its packets, both ways"),
    ("mptcp.connections[].subflows[].client.addr", "its SYN's sender"),
    ("mptcp.connections[].subflows[].client.port", "its port"),
    (
        "mptcp.connections[].subflows[].client.addr_id",
        "the address ID it used (MP_JOIN; 0 on the initial subflow, RFC 8684 §3.4.1)",
    ),
    (
        "mptcp.connections[].subflows[].client.backup",
        "it asked for the subflow to be a backup (MP_JOIN's B flag, or its last MP_PRIO)",
    ),
    ("mptcp.connections[].subflows[].client.data_segments", "data segments it sent"),
    ("mptcp.connections[].subflows[].client.bytes", "their payload bytes"),
    ("mptcp.connections[].subflows[].client.mappings", "distinct DSS mappings it sent"),
    (
        "mptcp.connections[].subflows[].client.unmapped_segments",
        "its data segments no mapping covered",
    ),
    ("mptcp.connections[].subflows[].server.addr", "the other end"),
    ("mptcp.connections[].subflows[].server.port", "its port"),
    ("mptcp.connections[].subflows[].server.addr_id", "its address ID (MP_JOIN's SYN/ACK)"),
    ("mptcp.connections[].subflows[].server.backup", "as `client.backup`"),
    ("mptcp.connections[].subflows[].server.data_segments", "data segments it sent"),
    ("mptcp.connections[].subflows[].server.bytes", "their payload bytes"),
    ("mptcp.connections[].subflows[].server.mappings", "distinct DSS mappings it sent"),
    ("mptcp.connections[].subflows[].server.unmapped_segments", "as `client.unmapped_segments`"),
    (
        "mptcp.connections[].DIR.data_segments",
        "DIR is client_to_server or server_to_client: "
        "data segments of that direction, every subflow",
    ),
    ("mptcp.connections[].DIR.bytes", "their payload bytes, every copy counted"),
    ("mptcp.connections[].DIR.unique_bytes", "data sequence bytes seen at least once"),
    ("mptcp.connections[].DIR.mappings", "distinct DSS mappings over every subflow"),
    (
        "mptcp.connections[].DIR.reinjections",
        "segments whose DSN range overlaps one sent earlier on another subflow "
        "(Wireshark's `mptcp.reinjection_of`)",
    ),
    ("mptcp.connections[].DIR.reinjected_bytes", "their payload bytes"),
    (
        "mptcp.connections[].DIR.reinjected_later",
        "segments overlapped by one sent later on another subflow (`mptcp.reinjected_in`)",
    ),
    (
        "mptcp.connections[].DIR.data_retransmissions",
        "segments carrying DSN bytes seen before on any subflow (a data-level retransmission)",
    ),
    ("mptcp.connections[].DIR.retransmitted_bytes", "the bytes seen before"),
    (
        "mptcp.connections[].DIR.out_of_order",
        "new data starting below the highest DSN seen before it: at a receiver-side capture, "
        "MPTCP-level reordering between subflows; at a sender-side one, the scheduler's order",
    ),
    ("mptcp.connections[].DIR.max_out_of_order_bytes", "the farthest behind such a segment was"),
    ("mptcp.connections[].DIR.unmapped_segments", "data segments no DSS mapping covered"),
    ("mptcp.connections[].DIR.data_fin", "a DATA_FIN was seen (RFC 8684 §3.3.3)"),
    (
        "mptcp.connections[].DIR.data_ack",
        "the highest DATA_ACK for this data, relative to the sender's IDSN",
    ),
    ("mptcp.connections[].addresses[]", "ADD_ADDR and REMOVE_ADDR seen (RFC 8684 §3.4)"),
    ("mptcp.connections[].addresses[].t_s", "when"),
    ("mptcp.connections[].addresses[].from", "client or server"),
    ("mptcp.connections[].addresses[].kind", "add or remove"),
    ("mptcp.connections[].addresses[].addr_id", "the address ID"),
    ("mptcp.connections[].addresses[].addr", "the address announced (null for a removal)"),
    ("mptcp.connections[].addresses[].port", "the port announced, if any"),
    ("mptcp.connections[].mp_fail", "MP_FAIL options (RFC 8684 §3.7)"),
    ("mptcp.connections[].mp_fastclose", "an MP_FASTCLOSE was seen (§3.5)"),
    ("mptcp.connections[].mp_tcprst", "MP_TCPRST options (§3.6)"),
    (
        "mptcp.unjoined_subflows[]",
        "subflows whose connection the capture does not show, with the keys of "
        "`connections[].subflows[]`",
    ),
    ("mptcp.segments_file", "mptcp_segments.parquet (null without an output directory)"),
    ("mptcp.mappings_file", "mptcp_mappings.parquet"),
    ("mptcp.data_acks_file", "mptcp_data_acks.parquet"),
)

#: The Parquet tables `vho analyze` writes beside metrics.json for a capture with MPTCP:
#: (file, column, meaning).
ANALYZE_PARQUET: tuple[tuple[str, str, str], ...] = (
    ("mptcp_segments.parquet", "connection", "the connection (`mptcp.connections[].index`)"),
    ("mptcp_segments.parquet", "direction", "client_to_server or server_to_client"),
    ("mptcp_segments.parquet", "subflow", "the subflow's conversation (`flows[].index`)"),
    ("mptcp_segments.parquet", "frame", "the frame's number in the capture, from 1"),
    ("mptcp_segments.parquet", "t_s", "its time"),
    ("mptcp_segments.parquet", "ssn", "its first byte's subflow sequence, relative to the ISN"),
    (
        "mptcp_segments.parquet",
        "dsn",
        "its first byte's data sequence number relative to the sender's IDSN (the first "
        "data byte is 1, as Wireshark's `mptcp.dsn`)",
    ),
    ("mptcp_segments.parquet", "dsn_raw", "the same, 64 bits as on the wire"),
    ("mptcp_segments.parquet", "len", "payload bytes"),
    ("mptcp_segments.parquet", "mapping_frame", "the frame that first carried its DSS mapping"),
    ("mptcp_segments.parquet", "reinjection", "overlaps a segment sent earlier on another subflow"),
    (
        "mptcp_segments.parquet",
        "reinjected_later",
        "overlapped by a segment sent later on another subflow",
    ),
    ("mptcp_segments.parquet", "data_retransmission", "carries DSN bytes seen before"),
    ("mptcp_segments.parquet", "out_of_order", "new data below the highest DSN seen before"),
    ("mptcp_mappings.parquet", "connection", "the connection"),
    ("mptcp_mappings.parquet", "subflow", "the subflow that sent it"),
    ("mptcp_mappings.parquet", "direction", "client_to_server or server_to_client"),
    ("mptcp_mappings.parquet", "frame", "the first frame that carried it"),
    ("mptcp_mappings.parquet", "t_s", "its time"),
    ("mptcp_mappings.parquet", "dsn", "the mapping's first DSN, relative as in the segments"),
    ("mptcp_mappings.parquet", "ssn", "its first subflow sequence number (RFC 8684 §3.3.1)"),
    ("mptcp_mappings.parquet", "len", "its data-level length"),
    ("mptcp_data_acks.parquet", "connection", "the connection"),
    ("mptcp_data_acks.parquet", "direction", "the direction of the data acknowledged"),
    ("mptcp_data_acks.parquet", "t_s", "when the DATA_ACK advanced"),
    ("mptcp_data_acks.parquet", "ack", "the DATA_ACK, relative to that data's IDSN"),
)


def ipv4_address(node: int) -> str:
    """The IPv4 address of the scenario's node number `node` (from 0, in the order
    `scenario.resolved.toml` lists `[[node]]`) in `vho run`'s captures."""
    n = node + 1
    return f"10.0.{n >> 8}.{n & 0xFF}"


def ipv6_address(node: int, *, home_agent: int | None = None, link: int | None = None) -> str:
    """A Mobile IPv6 run's addresses: a fixed node `node`'s; a mobile's home address (give its
    `home_agent`'s number); or its care-of address on access link number `link` (from 0, in the
    order the resolved scenario lists `[[link]]`)."""
    import ipaddress

    if link is not None:
        prefix, iid = (0x2001, 0xDB8, link + 1, 0), 0x100 + node
    elif home_agent is not None:
        prefix, iid = (0x2001, 0xDB8, 0, home_agent), 0x100 + node
    else:
        prefix, iid = (0x2001, 0xDB8, 0, node), 1
    value = 0
    for p in prefix:
        value = value << 16 | p
    return str(ipaddress.IPv6Address(value << 64 | iid))


#: Port numbers of flow number `f` (from 0, in the order of `[[flow]]`): (data sender, data
#: receiver).
def tcp_ports(flow: int) -> tuple[int, int]:
    return 5001 + flow, 40001 + flow


ADDRESSES = """\
`vho run` writes a pcap per node `record.pcap` names (`NODE.pcap`), with nanosecond timestamps
from the run's start (stamped from 1970-01-01) and link type RAW: each record is an IP packet
with valid checksums, the payload as zero bytes.

- **IPv4** (every run without `[mipv6]`): node number *i* (from 0, in the order
  `scenario.resolved.toml` lists `[[node]]`; the common form's are `ch`, `ha`, then `mh`, then
  the access links' routers if any) is `10.0.x.y` with x.y = *i* + 1: `ch` 10.0.0.1, `ha`
  10.0.0.2, `mh` 10.0.0.3. `python3 -c 'import vho.outputs as o; print(o.ipv4_address(2))'`
  prints node 2's.
- **IPv6** (with `[mipv6]`): a fixed node *i* is `2001:db8:0:i::1`; a mobile node *m*'s home
  address is `2001:db8:0:h::(100 + m in hex)` on its home agent *h*'s prefix, and its care-of
  address on access link *l* (from 0, in the `[[link]]` order) `2001:db8:l+1::(100 + m)`;
  link-local addresses are `fe80::` with the same interface identifier (`fe80::200 + i` for a
  fixed node). The cottingham example's correspondent is `2001:db8::1`, the mobile's home
  address `2001:db8:0:1::104`.
- **Ports**: flow number *f* (from 0, in the order of `[[flow]]`) runs from port 5001 + *f* at
  its data sender to port 40001 + *f* at its receiver; a TFRC flow likewise over UDP; a Pareto
  flow's datagrams (with `record.pcap_cross`) from 6001 + *f* to 50001 + *f*.
- **TTL and hop limit**: a packet leaves its host with 64 (Neighbor Discovery messages 255) and
  loses one at every router that forwards it (RFC 791, RFC 8200 §3), so a capture shows 64 less
  the routers between the packet's source and the capture point on a shortest path: in the
  common form `mh.pcap`'s data from `ch` have TTL 63, as do `ch.pcap`'s ACKs. A tunnel's outer
  header counts from the tunnel's entry; the inner header keeps what it had there, less the
  entry's own forwarding (RFC 2473 §3.1).
- `vho emulate`'s captures hold the real hosts' packets, addressed as its `VHO_<NODE>_ADDR`
  variables say.
"""


def documented(path: str) -> bool:
    """Whether `summary.json`'s key `path` (list items as `[]`) is documented."""
    if path.startswith("node_functions[].counters."):
        name = path.rsplit(".", 1)[1]
        return any(c[1] == name for c in COUNTERS)
    return any(p == path for p, _ in SUMMARY)


def documented_metric(path: str) -> bool:
    """Whether `metrics.json`'s key `path` is documented."""
    import re

    if path.startswith("flows[].wireshark."):
        return True
    if path.startswith("mptcp.options."):
        return True
    path = re.sub(
        r"^mptcp\.connections\[\]\.(client_to_server|server_to_client)\.",
        "mptcp.connections[].DIR.",
        path,
    )
    path = re.sub(r"^mptcp\.unjoined_subflows\[\]\.", "mptcp.connections[].subflows[].", path)
    return any(p == path for p, _ in METRICS)


def documented_column(file: str, column: str) -> bool:
    """Whether a Parquet series' (or `vho analyze`'s MPTCP tables') column is documented."""
    return (file, column) in {(f, c) for f, c, _ in PARQUET + ANALYZE_PARQUET}


def sweep_column_pattern(column: str, axes: list[str], metrics: set[str]) -> str | None:
    """The documented form of a sweep results column (`AXIS`, `flow.NAME.METRIC`, ...), or
    None. `axes` are the sweep's axis names, `metrics` the keys of `flows[]`."""
    import re

    fixed = {c for c, _ in SWEEP}
    if column in fixed:
        return column
    if column in axes:
        return "AXIS"
    if column.endswith("_si") and column[:-3] in axes:
        return "AXIS_si"
    if column in metrics:
        return "METRIC"
    m = re.fullmatch(r"flow\.[^.]+\.(.+)", column)
    if m and (m.group(1) in metrics or m.group(1) == "drops"):
        return "flow.NAME.METRIC"
    if re.fullmatch(r"handover\.\d+\.(at_s|interruption_s)", column):
        return "handover.I." + column.rsplit(".", 1)[1]
    if column.startswith("nemo."):
        return "nemo.KEY"
    if column.startswith("dropped_"):
        return "dropped_CAUSE"
    return None


def markdown() -> str:
    """The reference as `docs/output-reference.md` holds it."""
    intro = __doc__.split("\n\n")[1].replace("\n", " ")
    out = [
        "# Outputs: every key, column and address",
        "",
        "Generated by `python3 -m vho.outputs` from `python/vho/outputs.py`; "
        "`tests/test_output_reference.py` fails on a key, column or address vho writes that "
        "is not here. " + intro,
        "",
        "## `summary.json` (`vho run`)",
        "",
        "| key | meaning |",
        "|---|---|",
    ]
    out += [f"| `{p}` | {m} |" for p, m in SUMMARY]
    out += ["", "### Node function counters", "", "| kind | counter | meaning |", "|---|---|---|"]
    out += [f"| {k} | `{n}` | {m} |" for k, n, m in COUNTERS]
    out += ["", "## Parquet series (`vho run`)", ""]
    for file in dict.fromkeys(f for f, _, _ in PARQUET):
        out += [f"### `{file}`", "", "| column | meaning |", "|---|---|"]
        out += [f"| `{c}` | {m} |" for f, c, m in PARQUET if f == file]
        out.append("")
    out += ["## Sweep results (`vho sweep`)", "", "| column | meaning |", "|---|---|"]
    out += [f"| `{c}` | {m} |" for c, m in SWEEP]
    out += ["", "## `metrics.json` (`vho analyze`)", "", "| key | meaning |", "|---|---|"]
    out += [f"| `{p}` | {m} |" for p, m in METRICS]
    out += ["", "### MPTCP tables (`vho analyze`)", ""]
    for file in dict.fromkeys(f for f, _, _ in ANALYZE_PARQUET):
        out += [f"#### `{file}`", "", "| column | meaning |", "|---|---|"]
        out += [f"| `{c}` | {m} |" for f, c, m in ANALYZE_PARQUET if f == file]
        out.append("")
    out += ["", "## pcap address plan", "", ADDRESSES]
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(), end="")
