"""What `vho run` writes in `summary.json`: every key with its meaning, as `vho schema` is for a
scenario's keys. `python3 -m vho.outputs` prints it as Markdown (`docs/output-reference.md`);
`tests/test_output_reference.py` runs every bundled example and fails on a key written that
is not documented here, and on a document that differs from what this prints.

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
        "what carries the flow (`flow.kind`): tcp, tfrc, pareto or cbr; the keys from "
        "`data_packets_sent` to `duplicate_acks` are a TCP flow's only, `tfrc`, `cross` and "
        "`cbr` the other kinds' own",
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


def documented(path: str) -> bool:
    """Whether `summary.json`'s key `path` (list items as `[]`) is documented."""
    if path.startswith("node_functions[].counters."):
        name = path.rsplit(".", 1)[1]
        return any(c[1] == name for c in COUNTERS)
    return any(p == path for p, _ in SUMMARY)


def markdown() -> str:
    """The reference as `docs/output-reference.md` holds it."""
    out = [
        "# `summary.json`: every key",
        "",
        "Generated by `python3 -m vho.outputs` from `python/vho/outputs.py`; "
        "`tests/test_output_reference.py` fails on a key `vho run` writes that is not here. "
        + __doc__.split("\n\n")[1].replace("\n", " "),
        "",
        "| key | meaning |",
        "|---|---|",
    ]
    out += [f"| `{p}` | {m} |" for p, m in SUMMARY]
    out += ["", "## Node function counters", "", "| kind | counter | meaning |", "|---|---|---|"]
    out += [f"| {k} | `{n}` | {m} |" for k, n, m in COUNTERS]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
