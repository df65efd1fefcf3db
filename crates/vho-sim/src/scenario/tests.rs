//! Scenario loading: resolution of the common form, and one test per class of bad input
//! checking the exact one-line message.

use super::*;
use crate::spec::{Flush, HandoverKind, Level, QueueLimit};
use crate::tcp::config::SpuriousResponse;
use crate::time::{Dur, Time};

const GOOD: &str = r#"[run]
name = "t"
seed = 3

[access.wlan]
preset = "dk-wlan"

[access.gprs]
preset = "dk-gprs"
rate = "64 kb/s"

[mobile]
start = "wlan"

[[handover]]
at = "0.6 s"
from = "wlan"
to = "gprs"
kind = "soft-reconfigure"

[[flow]]
from = "ch"
to = "mh"
size = "200 KB"
tcp = { profile = "ns2", mss = 1460, send_window = "100 pkt" }

[record]
pcap = ["ch", "mh"]
"#;

/// Appended to GOOD (whose last line is 28): a rate and loss ramp on the GPRS downlink from
/// line 30, an outage of both WLAN directions from line 38.
const SCHED: &str = r#"
[[schedule]]
link = "gprs"
direction = "down"
at = "1 s"
until = "3 s"
rate = ["64 kb/s", "32 kb/s"]
loss = [0, 0.2]

[[schedule]]
link = "wlan"
at = "2 s"
until = "2.5 s"
state = "outage"
"#;

fn load_str(text: &str, sets: &[&str]) -> Result<Spec, ScenarioError> {
    let presets = PresetSet::builtin().expect("presets");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load("s.toml", text, &sets, &presets)
}

fn message(text: &str, sets: &[&str]) -> String {
    load_str(text, sets)
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn the_common_form_resolves_presets_units_and_names() {
    let s = load_str(GOOD, &[]).expect("valid");
    assert_eq!(s.seed, 3);
    assert_eq!(
        s.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
        ["ch", "ha", "mh"]
    );
    // Access links in name order after the wired link: gprs = 1, wlan = 2.
    assert_eq!(s.links[1].name, "gprs");
    assert_eq!(s.links[1].ab.rate_bps, 64_000);
    assert_eq!(s.links[1].ab.delay, Dur::from_millis(300));
    assert_eq!(s.links[2].ab.queue, QueueLimit::Bdp { mtu_bytes: 1500 });
    assert_eq!(s.mobiles[0].initial, 2);
    assert_eq!(s.handovers[0].at, Time::from_millis(600));
    assert_eq!(
        s.handovers[0].kind,
        HandoverKind::SoftReconfigure { shrink: false }
    );
    assert_eq!(s.flows[0].bytes, 200_000);
    assert_eq!(
        (s.flows[0].tcp.mss, s.flows[0].tcp.send_window_cap),
        (1460, 146_000)
    );
    assert_eq!(s.record.pcap_at, vec![0, 2]);
}

#[test]
fn ns2_windows_count_packets_so_they_scale_with_the_mss() {
    // ns-default.tcl:934 window_ 20 (packets); tcp.cc:473 ssthresh_ = window_ at reset.
    let explicit = load_str(GOOD, &[]).expect("valid");
    assert_eq!(explicit.flows[0].tcp.send_window_cap, 100 * 1460);
    let t = &load_str(GOOD, &["flow.0.tcp={profile=\"ns2\", mss=1460}"])
        .expect("valid")
        .flows[0]
        .tcp;
    assert_eq!(
        (t.send_window_cap, t.initial_ssthresh),
        (20 * 1460, 20 * 1460)
    );
    let t = &load_str(GOOD, &["flow.0.tcp=\"ns2\""])
        .expect("valid")
        .flows[0]
        .tcp;
    assert_eq!((t.mss, t.send_window_cap), (1000, 20 * 1000));
}

#[test]
fn overrides_replace_values_in_place() {
    let s = load_str(
        GOOD,
        &[
            "flow.0.size=\"2 MB\"",
            "run.seed=9",
            "access.gprs.delay=150 ms",
        ],
    )
    .expect("valid");
    assert_eq!((s.flows[0].bytes, s.seed), (2_000_000, 9));
    assert_eq!(s.links[1].ab.delay, Dur::from_millis(150));
    assert_eq!(
        hash(&s),
        hash(
            &load_str(GOOD, &["flow.0.size=\"2 MB\"", "access.gprs.delay=150 ms"]).expect("valid")
        )
    );
}

#[test]
fn overrides_reach_into_inline_tables() {
    // GOOD's flow has `tcp = { profile = "ns2", mss = 1460, send_window = "100 pkt" }`.
    let s = load_str(GOOD, &["flow.0.tcp.send_window=\"12 packets\""]).expect("valid");
    assert_eq!(s.flows[0].tcp.send_window_cap, 12 * 1460);
    // Limited Transmit is on in every profile and can be switched off.
    assert!(s.flows[0].tcp.limited_transmit);
    let s = load_str(GOOD, &["flow.0.tcp.limited_transmit=false"]).expect("valid");
    assert!(!s.flows[0].tcp.limited_transmit);
    // The ns2 profile recovers as ns-2's Sack1; RFC 6675's recovery is one key away.
    use crate::tcp::config::SackRecovery;
    assert_eq!(s.flows[0].tcp.sack_recovery, SackRecovery::Ns2Sack1);
    let s = load_str(GOOD, &["flow.0.tcp.sack_recovery=\"rfc6675\""]).expect("valid");
    assert_eq!(s.flows[0].tcp.sack_recovery, SackRecovery::Rfc6675);
    let e = message(GOOD, &["flow.0.tcp.sack_recovery=\"fack\""]);
    assert!(e.contains("expected one of rfc6675, ns2-sack1"), "{e}");
}

#[test]
fn loss_recovery_rules_and_drop_lists_are_scenario_keys() {
    use crate::spec::{LossAt, LossSpec};
    use crate::tcp::config::{CwndValidation, FastRetransmitTimer, TimeoutSsthresh};
    let s = load_str(
        GOOD,
        &[
            "flow.0.tcp.timer_at_fast_retransmit=\"keep\"",
            "flow.0.tcp.timeout_ssthresh=\"linux\"",
            "flow.0.tcp.cwnd_validation=\"cwnd-limited\"",
            "flow.0.tcp.rto_keeps_sack=true",
            "flow.0.tcp.dsack=true",
            "access.gprs.down.drop_packets=[2, 7]",
            "access.gprs.down.loss_at=\"entry\"",
        ],
    )
    .expect("valid");
    let t = &s.flows[0].tcp;
    assert_eq!(t.timer_at_fast_retransmit, FastRetransmitTimer::Keep);
    assert_eq!(t.timeout_ssthresh, TimeoutSsthresh::Linux);
    assert_eq!(t.cwnd_validation, CwndValidation::CwndLimited);
    assert!(t.rto_keeps_sack);
    assert!(t.dsack);
    let gprs = s.links.iter().find(|l| l.name == "gprs").expect("gprs");
    let down = if s.nodes[gprs.b].name == "mh" {
        &gprs.ab
    } else {
        &gprs.ba
    };
    assert_eq!(down.loss, LossSpec::List(vec![2, 7].into()));
    assert_eq!(down.loss_at, LossAt::Entry);
    let e = message(
        GOOD,
        &["access.gprs.loss=0.1", "access.gprs.drop_packets=[1]"],
    );
    assert!(
        e.contains("either a loss rate or a drop list, not both"),
        "{e}"
    );
}

#[test]
fn bad_inputs_get_one_line_naming_file_line_field_and_expectation() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("unknown key", "[run]\nname = \"x\"\ncolour = 1\n", &[], "s.toml:3: run: unknown field `colour`, expected one of `name`, `seed`, `stop`"),
        ("rate unit", "[access.w]\nrate = \"5 Mbs\"\ndelay = \"1 ms\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:2: access.w.rate: expected a rate such as \"200 kb/s\" (b/s, kb/s, Mb/s, Gb/s (or bps, kbps, Mbps, Gbps)), got \"5 Mbs\""),
        ("negative delay", "[access.w]\nrate = \"5 Mb/s\"\ndelay = \"-2 ms\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.delay: expected a time that is not negative, got \"-2 ms\""),
        ("unknown preset", "[access.w]\npreset = \"dk-lte\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:2: access.w.preset: expected one of cdma-1xrtt, dk-gprs, dk-gprs-64k, dk-umts-384k, dk-wlan, ethernet-10m, gprs-cottingham, gsm-ppp, lan-100m, umts-384-rlc, wavelan, wlan-11b-1m, wlan-80211b, got \"dk-lte\""),
        ("handover to an undefined link", &GOOD.replace("to = \"gprs\"", "to = \"lte\""), &[],
            "s.toml:18: handover.to: expected a link: one of wired, gprs, wlan, got \"lte\""),
        ("malformed toml", "[run\nname = 1\n", &[], "s.toml:1: invalid table header; expected `.`, `]`"),
        ("bad override value", GOOD, &["access.gprs.rate=fast"], "--set access.gprs.rate=fast: access.gprs.rate: expected a rate such as \"200 kb/s\" (b/s, kb/s, Mb/s, Gb/s (or bps, kbps, Mbps, Gbps)), got \"fast\""),
        ("override of an unknown section", GOOD, &["bogus.key=1"], "--set bogus.key=1: unknown field `bogus`, expected one of `run`, `wired`, `access`, `mobile`, `node`, `link`, `handover`, `schedule`, `flow`, `node_function`, `mipv6`, `nemo`, `record`"),
        ("override path into a value", GOOD, &["run.name.x=1"], "--set run.name.x=1: run.name.x: expected name to be a table, got a value"),
        ("override path without the index of an array of tables", GOOD, &["flow.tcp=\"ns2\""], "--set flow.tcp=\"ns2\": flow.tcp: expected an index after flow, an array of tables ([[flow]]): flow.0.tcp for the first, got flow.tcp"),
        ("override path with a bracketed index", GOOD, &["flow[0].size=1"], "--set flow[0].size=1: flow[0].size: expected a dotted key path with the index as a key, such as flow.0.size (not flow[0]), got 1"),
        ("handover from a link not in use", &GOOD.replace("from = \"wlan\"", "from = \"gprs\"").replace("to = \"gprs\"", "to = \"wlan\""), &[],
            "s.toml:17: handover.from: expected \"wlan\" (the link in use then), got \"gprs\""),
        ("no flow", "[access.w]\npreset = \"dk-wlan\"\n", &[], "s.toml:1: flow: at least one [[flow]]"),
        ("unknown tcp profile", &GOOD.replace("profile = \"ns2\"", "profile = \"bsd\""), &[],
            "s.toml:25: flow.tcp: expected a profile: one of rfc, linux, ns2, linux-2.0, got \"bsd\""),
        ("loss out of range", "[access.w]\npreset = \"dk-wlan\"\nloss = 1.5\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.loss: expected a probability from 0 to 1, got 1.5"),
        ("unknown queue model", "[access.w]\npreset = \"dk-wlan\"\nqueue_model = \"codel\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.queue_model: expected a queue model: \"droptail\", \"ns2-droptail\", \"ns2-droptail-delayer\" or \"red\", got \"codel\""),
        ("red thresholds out of order", "[access.w]\npreset = \"dk-wlan\"\nqueue_model = \"red\"\nred = { min_thresh = 10, max_thresh = 4 }\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:4: access.w.red.max_thresh: expected a threshold above min_thresh (10 packets), got 4"),
        ("red weight out of range", "[access.w]\npreset = \"dk-wlan\"\nqueue_model = \"red\"\nred = { q_weight = 0 }\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:4: access.w.red.q_weight: expected a number in (0, 1], got 0"),
        ("unknown loss position", "[access.w]\npreset = \"dk-wlan\"\nloss_at = \"queue\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.loss_at: expected where the loss model takes packets: \"air\" or \"entry\", got \"queue\""),
        ("drop list out of order", "[access.w]\npreset = \"dk-wlan\"\ndown = { drop_packets = [5, 3] }\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.drop_packets: expected packet indices in increasing order, each once, got [5, 3]"),
        ("negative drop index", "[access.w]\npreset = \"dk-wlan\"\ndrop_packets = [-1]\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.drop_packets: expected packet indices from 0 up, got [-1]"),
        ("bad value inside an inline table, from --set", GOOD, &["flow.0.tcp.timeout_ssthresh=\"bsd\""],
            "--set flow.0.tcp.timeout_ssthresh=\"bsd\": flow.tcp.timeout_ssthresh: expected one of rfc5681, linux, always, got \"bsd\""),
        ("a table replaced by --set that lacks a key", GOOD, &["access.wlan={rate=\"1 Mb/s\"}"],
            "--set access.wlan={rate=\"1 Mb/s\"}: access.wlan.delay: expected a value (or a preset that gives one), got nothing: the key is missing"),
        ("missing mobile.start", &GOOD.replace("start = \"wlan\"\n", "seed_note = 1\n").replace("seed_note = 1\n", ""), &[],
            "s.toml:12: mobile.start: expected the access link in use at time zero, one of gprs, wlan, got nothing: the key is missing"),
        ("zero maximum rto", &GOOD.replace("profile = \"ns2\"", "profile = \"ns2\", max_rto = \"0 s\""), &[],
            "s.toml:25: flow.tcp.max_rto: expected a time of at least 1 ms, got \"0 s\""),
        ("maximum rto below the minimum", &GOOD.replace("profile = \"ns2\"", "profile = \"linux\", max_rto = \"100 ms\""), &[],
            "s.toml:25: flow.tcp.max_rto: expected at least min_rto (0.200000s), got 0.100000s"),
        ("a node name that leaves the output directory", "[[node]]\nname = \"../../victim\"\nkind = \"host\"\n", &[],
            "s.toml:2: node.name: expected a name of letters, digits, '-', '_' and '.' (not first), at most 64, got \"../../victim\""),
        ("overlapping handover windows", &GOOD.replace("kind = \"soft-reconfigure\"", "kind = \"soft-reconfigure\"\nwindow = \"1 s\"\n\n[[handover]]\nat = \"0.7 s\"\nfrom = \"gprs\"\nto = \"wlan\""), &[],
            "s.toml:23: handover.at: expected a time at or after 1.6 s, where the previous handover's window ends (windows may not overlap), got \"0.7 s\""),
        ("several mobiles in the common form", &GOOD.replace("[mobile]", "[[mobile]]"), &[],
            "s.toml:12: mobile: expected one [mobile] table in the common form (several mobiles need the general form: [[node]], [[link]] and [[mobile]]), got [[mobile]] tables"),
        ("an unknown movement detection", &format!("{GOOD}\n[mipv6]\ndetection = \"psychic\"\n"), &[],
            "s.toml:31: mipv6.detection: expected \"ra-miss\" or \"l2-trigger\", got \"psychic\""),
        ("a Mobile IPv6 handover with a fixed delay", &format!("{}\n[mipv6]\n", GOOD.replace("kind = \"soft-reconfigure\"", "kind = \"hard\"\ndelay = \"1 s\"")), &[],
            "s.toml:20: handover.delay: expected no such key with [mipv6]: the handover's delay, the uplink's move and the notification come from the Mobile IPv6 signalling, got \"1 s\""),
        ("an advertisement interval below its minimum", &format!("{GOOD}\n[mipv6]\n[[mipv6.router]]\nlink = \"wlan\"\nra_min = \"2 s\"\nra_max = \"1 s\"\n"), &[],
            "s.toml:34: mipv6.router.ra_max: expected an interval above zero and at least ra_min (2 s), got 1 s"),
        // RFC 6275 §7.5's floors (a 1 ns interval ran 10^6 events a simulated second).
        ("an advertisement interval below RFC 6275's floor", &format!("{GOOD}\n[mipv6]\n[[mipv6.router]]\nlink = \"wlan\"\nra_min = \"1 ns\"\nra_max = \"1 ns\"\n"), &[],
            "s.toml:33: mipv6.router.ra_min: expected at least 30 ms (RFC 6275 §7.5's MinRtrAdvInterval floor), got 0.000000001 s"),
        ("a maximum advertisement interval below RFC 6275's floor", &format!("{GOOD}\n[mipv6]\n[[mipv6.router]]\nlink = \"wlan\"\nra_min = \"30 ms\"\nra_max = \"50 ms\"\n"), &[],
            "s.toml:34: mipv6.router.ra_max: expected at least 70 ms (RFC 6275 §7.5's MaxRtrAdvInterval floor), got 0.05 s"),
        ("a MinDelayBetweenRAs below RFC 6275's floor", &format!("{GOOD}\n[mipv6]\n[[mipv6.router]]\nlink = \"wlan\"\nmin_delay_between_ras = \"1 ms\"\n"), &[],
            "s.toml:33: mipv6.router.min_delay_between_ras: expected at least 30 ms (RFC 6275 §7.5, §13), got \"1 ms\""),
        // Issue 40 item 21: a home agent that cannot forward, a correspondent that ends no flow.
        ("a host as home agent", &format!("{GOOD}\n[mipv6]\nhome_agent = \"ch\"\n"), &[],
            "s.toml:31: mipv6.home_agent: expected a router (a home agent forwards the home network's packets through its tunnel; a host or a mobile forwards none, so the mobile never registers), got \"ch\", a host"),
        ("a router as correspondent", &format!("{GOOD}\n[mipv6]\ncorrespondents = [\"ch\", \"ha\"]\n"), &[],
            "s.toml:31: mipv6.correspondents: expected hosts (a correspondent is the fixed end of a flow, which answers return routability; a router or a mobile never does), got \"ha\", a router"),
        ("a schedule on an unknown link", &format!("{GOOD}{}", SCHED.replace("link = \"gprs\"", "link = \"lte\"")), &[],
            "s.toml:31: schedule.link: expected a link: one of wired, gprs, wlan, got \"lte\""),
        ("a negative scheduled rate", &format!("{GOOD}\n[[schedule]]\nlink = \"gprs\"\nat = \"1 s\"\nrate = \"-5 Mb/s\"\n"), &[],
            "s.toml:33: schedule.rate: expected a positive rate, got \"-5 Mb/s\""),
        ("a scheduled loss above 1", &format!("{GOOD}\n[[schedule]]\nlink = \"gprs\"\nat = \"1 s\"\nloss = 1.5\n"), &[],
            "s.toml:33: schedule.loss: expected a probability from 0 to 1, got 1.5"),
        ("a ramp's loss below 0", &format!("{GOOD}{}", SCHED.replace("loss = [0, 0.2]", "loss = [-0.1, 0.2]")), &[],
            "s.toml:36: schedule.loss: expected a probability from 0 to 1, got [-0.1, 0.2]"),
        ("until before at", &format!("{GOOD}{}", SCHED.replace("until = \"3 s\"", "until = \"0.5 s\"")), &[],
            "s.toml:34: schedule.until: expected a time after `at` (1 s), got \"0.5 s\""),
        ("a ramp without until", &format!("{GOOD}{}", SCHED.replace("until = \"3 s\"\n", "")), &[],
            "s.toml:34: schedule.rate: expected a single value (a pair [from, to] ramps, and needs `until`), got [\"64 kb/s\", \"32 kb/s\"]"),
        ("down on a link with no mobile host", &format!("{GOOD}{}", SCHED.replace("link = \"gprs\"", "link = \"wired\"")), &[],
            "s.toml:32: schedule.direction: expected both, forward or reverse (link \"wired\" has no mobile host at exactly one end, so no down and up), got \"down\""),
        ("a delivery trace out of order", &format!("{GOOD}{}", SCHED.replace("state = \"outage\"", "trace = [3, 1]").replace("until = \"2.5 s\"\n", "")), &[],
            "s.toml:41: schedule.trace: expected millisecond offsets in nondecreasing order, got [3, 1]"),
        ("a delivery trace with until", &format!("{GOOD}{}", SCHED.replace("state = \"outage\"", "trace = [1, 2]")), &[],
            "s.toml:42: schedule.trace: expected no `until` or `rate` beside a trace (it replaces the rate from `at` on), got [1, 2]"),
        // Issue 40 item 12: a step of 1 ns ended in SIGABRT (a billion steps a second).
        ("a ramp step below the floor", &format!("{GOOD}{}", SCHED.replace("until = \"3 s\"\n", "until = \"3 s\"\nstep = \"1 ns\"\n")), &[],
            "s.toml:35: schedule.step: expected at least 1 ms (MIN_RAMP_STEP_MS: each step is an event per direction; finer than a millisecond a ramp only multiplies events), got \"1 ns\""),
        ("a ramp step of 999 us set on the command line", &format!("{GOOD}{SCHED}"), &["schedule.0.step=\"999 us\""],
            "--set schedule.0.step=\"999 us\": schedule.step: expected at least 1 ms (MIN_RAMP_STEP_MS: each step is an event per direction; finer than a millisecond a ramp only multiplies events), got \"999 us\""),
        ("an unknown link state", &format!("{GOOD}{}", SCHED.replace("\"outage\"", "\"flaky\"")), &[],
            "s.toml:42: schedule.state: expected one of up, outage, blackhole, down, got \"flaky\""),
        // link::layer: the link layer's keys, each where it was given.
        ("ber out of range", "[access.w]\npreset = \"wlan-11b-1m\"\nber = 1.0\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.ber: expected a bit error rate in [0, 1), got 1"),
        ("bler on a dcf link", "[access.w]\npreset = \"wlan-11b-1m\"\nbler = 0.1\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.bler: expected link_layer = \"rlc-am\" beside it, got link_layer \"dcf\""),
        ("an unknown link layer", "[access.w]\npreset = \"dk-wlan\"\nlink_layer = \"hspa\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:3: access.w.link_layer: expected one of plain, rlc-am, dcf, got \"hspa\""),
        ("a delay beside a link layer", "[access.w]\npreset = \"umts-384-rlc\"\ndelay = \"20 ms\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n", &[],
            "s.toml:2: access.w.delay: expected delay = \"0 ms\" beside a link layer (its own timing replaces the link's delay; Table I's Iub delay is the RLC-AM bearer's iub_delay), got 0.02 s"),
        ("a bler schedule on a dcf link", "[access.w]\npreset = \"wlan-11b-1m\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n[[schedule]]\nlink = \"w\"\nat = \"1 s\"\nbler = 0.2\n", &[],
            "s.toml:10: schedule.bler: expected a link with link_layer = \"rlc-am\", got link \"w\" with link_layer \"dcf\""),
        ("a ber ramp out of range", "[access.w]\npreset = \"wlan-11b-1m\"\n[[flow]]\nfrom = \"ch\"\nto = \"mh\"\nsize = \"1 KB\"\n[[schedule]]\nlink = \"w\"\nat = \"1 s\"\nuntil = \"2 s\"\nber = [0.0, 1.5]\n", &[],
            "s.toml:11: schedule.ber: expected a bit error rate in [0, 1), got [0.0, 1.5]"),
        ("unknown timeout ssthresh rule", &GOOD.replace("profile = \"ns2\"", "profile = \"ns2\", timeout_ssthresh = \"bsd\""), &[],
            "s.toml:25: flow.tcp.timeout_ssthresh: expected one of rfc5681, linux, always, got \"bsd\""),
    ];
    for (what, text, sets, expected) in cases {
        let got = message(text, sets);
        let got_first = got.lines().next().unwrap_or("");
        let exp_first = expected.lines().next().unwrap_or("");
        assert_eq!(got_first, exp_first, "{what}");
    }
}

#[test]
fn hostile_overrides_are_refused_in_one_line_that_says_what_was_wrong() {
    // Issue 40, benches/fuzz_set.py: quoting errors, indices out of range and arrays the
    // scenario lacks each got a line that misnamed the problem (or none: a flow named "abc
    // with its quote), and a multi-line string broke the line.
    let cases: &[(&str, &str)] = &[
        ("flow.0.tcp.cc=\"reno", "--set flow.0.tcp.cc=\"reno: flow.0.tcp.cc: expected a TOML value such as \"2 MB\", 5, true, [1, 2] or { rate = \"1 Mb/s\" } (invalid basic string), got \"reno"),
        ("run.name=[1,", "--set run.name=[1,: run.name: expected a TOML value such as \"2 MB\", 5, true, [1, 2] or { rate = \"1 Mb/s\" } (invalid array; expected `]`), got [1,"),
        ("run.name=", "--set run.name=: run.name: expected a value after '=' (a quoted string for text: \"\"), got nothing"),
        ("flow.9.size=\"1 KB\"", "--set flow.9.size=\"1 KB\": flow.9.size: expected an index from 0 to 0 for [[flow]] (the scenario has 1), got 9"),
        ("flow.-1.size=\"1 KB\"", "--set flow.-1.size=\"1 KB\": flow.-1.size: expected an index from 0 to 0 for [[flow]] (the scenario has 1), got \"-1\""),
        ("flow.18446744073709551616.size=1", "--set flow.18446744073709551616.size=1: flow.18446744073709551616.size: expected an index from 0 to 0 for [[flow]] (the scenario has 1), got \"18446744073709551616\""),
        ("link.1.rate=\"1 Mb/s\"", "--set link.1.rate=\"1 Mb/s\": link.1.rate: the scenario has no [[link]] for link.1 to set (a scenario with [wired] and [access.NAME] sets them by name: access.NAME.rate)"),
        ("mipv6.router.0.ra_min=\"1 s\"", "--set mipv6.router.0.ra_min=\"1 s\": mipv6.router.0.ra_min: the scenario has no [[mipv6.router]] for mipv6.router.0 to set"),
        ("flow.0.tcp.undo=\"\"\"a\nb\"\"\"", "--set flow.0.tcp.undo=\"\"\"a\\nb\"\"\": flow.tcp.undo: expected one of detectors, linux, got \"\"\"\\na\\nb\"\"\""),
        ("node.-1.kind=\"host\"", "--set node.-1.kind=\"host\": node.-1.kind: the scenario has no [[node]] for node.-1 to set"),
        ("flow. 0.size=1", "--set flow. 0.size=1: flow. 0.size: expected a dotted key path of bare names and indices, such as flow.0.size (no quotes, spaces or comments), got 1"),
        ("\"flow\".0.size=1", "--set \"flow\".0.size=1: \"flow\".0.size: expected a dotted key path of bare names and indices, such as flow.0.size (no quotes, spaces or comments), got 1"),
        ("mobile.node=\"mh\"", "--set mobile.node=\"mh\": mobile.node: only `start` in the common form (node and interfaces are implied)"),
    ];
    for (set, expected) in cases {
        let got = message(GOOD, &[set]);
        assert_eq!(got, *expected, "{set}");
        assert!(!got.contains('\n'), "{set}: {got}");
    }
    // An error that names another field, or a key added inside the file's inline table, is
    // still the override's when the file alone loads: the first override that brings it.
    let blamed: &[(&[&str], &str)] = &[
        (
            &["flow.0.tcp.min_rto=\"1e9 s\""],
            "--set flow.0.tcp.min_rto=\"1e9 s\": flow.tcp.max_rto: expected at least min_rto",
        ),
        (
            &["flow.0.tcp.profile=\"rack\""],
            "--set flow.0.tcp.profile=\"rack\": flow.tcp: expected a profile",
        ),
        (
            &["run.seed=4", "flow.0.kind=\"tfrc\"", "run.seed=5"],
            "--set flow.0.kind=\"tfrc\": flow.tcp: no flow.tcp on a TFRC flow",
        ),
    ];
    for (sets, start) in blamed {
        let got = message(GOOD, sets);
        assert!(got.starts_with(start), "{sets:?}: {got}");
    }
    // The file's own error stays the file's, whatever the overrides.
    let bad_file = GOOD.replace("profile = \"ns2\"", "profile = \"bsd\"");
    let got = message(&bad_file, &["run.seed=4"]);
    assert!(
        got.starts_with("s.toml:25: flow.tcp: expected a profile"),
        "{got}"
    );
    // A name that is no section is the schema's unknown field, its index no matter.
    let got = message(GOOD, &["flows.0.size=1"]);
    assert!(
        got.starts_with("--set flows.0.size=1: unknown field `flows`, expected one of `run`"),
        "{got}"
    );
    // A bare word is still a string (a shell user's --set flow.0.tcp.cc=reno).
    let presets = PresetSet::builtin().expect("presets");
    let sets = ["run.name=bare".to_string()];
    assert!(load("s.toml", GOOD, &sets, &presets).is_ok());
}

#[test]
fn the_resolved_scenario_loads_back_to_the_same_run() {
    // render::to_toml writes the general form with every default; loading it must give the
    // same Spec (presets aside: the values they gave are written out).
    let norm = |mut s: Spec| {
        for l in &mut s.links {
            l.preset = None;
        }
        format!("{s:?}")
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut texts = vec![
        GOOD.to_string(),
        format!("{GOOD}{SCHED}"),
        format!(
            "{GOOD}{SCHED}\n[[schedule]]\nlink = \"wlan\"\ndirection = \"down\"\nat = \"4 s\"\ntrace = [1, 1, 3]\ndelay = \"5 ms\"\n"
        ),
    ];
    for f in [
        "scenarios/examples/dk-fig1-wlan-gprs.toml",
        "scenarios/examples/thesis-wavelan-gsm.toml",
        "scenarios/examples/cottingham-wlan-gprs.toml",
        "scenarios/examples/naoe-apc.toml",
        "scenarios/examples/naoe-links.toml",
        "scenarios/studies/daniel-kojo.toml",
        "benches/scenarios/lossy-link.toml",
    ] {
        texts.push(std::fs::read_to_string(root.join(f)).expect("bundled scenario"));
    }
    let sets: &[&[&str]] = &[
        &[],
        &[
            "access.gprs.down.drop_packets=[1, 5]",
            "handover.0.kind=\"hard\"",
        ],
        &["access.gprs={preset=\"gprs-cottingham\", up={loss=0.01}}"],
        // A link layer per direction (link::layer): the bearer down, DCF up.
        &[
            "access.gprs={preset=\"umts-384-rlc\", down={bler=0.2, max_dat=3}, up={link_layer=\"dcf\", ber=1e-5, retry_limit=4}}",
        ],
        &[
            "access.gprs.queue_model=\"red\"",
            "access.gprs.down.red={ min_thresh = 3, q_weight = 0.01, gentle = false }",
        ],
    ];
    for (i, text) in texts.iter().enumerate() {
        for extra in sets.iter().filter(|_| i == 0).chain([&(&[] as &[&str])]) {
            let first = load_str(text, extra).expect("valid");
            let rendered = super::render::to_toml(&first);
            let again = load_str(&rendered, &[])
                .unwrap_or_else(|e| panic!("scenario {i}: {e}\n{rendered}"));
            assert_eq!(norm(again), norm(first), "scenario {i}:\n{rendered}");
        }
    }
}

// ---- The reference (vho schema) against the loader ----

/// The fields serde accepts for a table: from its "unknown field" message.
fn accepted<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
    let e = toml::from_str::<T>("zz_not_a_key = 1").expect_err("unknown field");
    let msg = e.to_string();
    let tail = msg.split("expected").nth(1).expect("a list of fields");
    tail.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_reference_lists_exactly_the_keys_the_loader_takes() {
    use super::reference::keys;
    use super::schema::*;
    let documented = |table: &str| -> Vec<String> {
        let mut v: Vec<String> = keys()
            .iter()
            .filter(|d| d.table == table)
            .map(|d| d.key.to_string())
            .collect();
        v.sort();
        v
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(documented("run"), sorted(accepted::<RunT>()));
    assert_eq!(documented("wired"), sorted(accepted::<LinkT>()));
    assert_eq!(documented("access.NAME"), sorted(accepted::<LinkT>()));
    assert_eq!(documented("access.NAME.down"), sorted(accepted::<DirT>()));
    assert_eq!(documented("access.NAME.red"), sorted(accepted::<RedT>()));
    assert_eq!(documented("mobile"), sorted(accepted::<MobileT>()));
    assert_eq!(documented("node"), sorted(accepted::<NodeT>()));
    assert_eq!(documented("link"), sorted(accepted::<GeneralLinkT>()));
    assert_eq!(documented("handover"), sorted(accepted::<HandoverT>()));
    assert_eq!(documented("schedule"), sorted(accepted::<ScheduleT>()));
    assert_eq!(documented("flow"), sorted(accepted::<FlowT>()));
    assert_eq!(documented("flow.tfrc"), sorted(accepted::<TfrcT>()));
    assert_eq!(documented("record"), sorted(accepted::<RecordT>()));
    assert_eq!(documented("mipv6"), sorted(accepted::<Mipv6T>()));
    assert_eq!(documented("mipv6.router"), sorted(accepted::<RouterT>()));
    assert_eq!(documented("nemo"), sorted(accepted::<NemoT>()));
    assert_eq!(
        documented(super::reference::PRESET_TABLE),
        sorted(accepted::<super::presets::Preset>())
    );
    // flow.tcp: the settings the loader names when it refuses an unknown one.
    let e = message(GOOD, &["flow.0.tcp.zz_not_a_key=1"]);
    let list = e.split("a known TCP setting: ").nth(1).expect("the list");
    let list = list.split(", got").next().expect("the list");
    let tcp: Vec<String> = list.split(", ").map(str::to_string).collect();
    assert_eq!(documented("flow.tcp"), sorted(tcp));
    // Every table of the file is documented.
    let top: Vec<String> = accepted::<File>();
    for t in top {
        assert!(
            keys()
                .iter()
                .any(|d| d.table == t || d.table.starts_with(&format!("{t}."))),
            "table {t} undocumented"
        );
    }
}

#[test]
fn every_value_the_reference_lists_for_a_tcp_or_link_key_loads() {
    // "one of a, b, c": each of them is accepted where the reference says.
    for d in super::reference::keys() {
        let Some(values) = d.ty.strip_prefix("one of ") else {
            continue;
        };
        let path = match d.table {
            "flow.tcp" => format!("flow.0.tcp.{}", d.key),
            "access.NAME" | "access.NAME.down" | "wired" => format!("access.gprs.{}", d.key),
            "handover" => format!("handover.0.{}", d.key),
            _ => continue, // node.kind: the general form (its values are checked by its tests)
        };
        // `flush` is for soft handovers only, `in_flight = "lost"` for hard ones.
        let soft = match d.key {
            "flush" => "handover.0.kind=\"soft\"",
            "in_flight" => "handover.0.kind=\"hard\"",
            _ => "run.seed=1",
        };
        // A link layer's timing replaces the link's delay (link::layer).
        let zero_delay = "access.gprs.delay=\"0 ms\"";
        let extra = if d.key == "link_layer" {
            zero_delay
        } else {
            "run.seed=1"
        };
        for v in values.split(", ") {
            load_str(GOOD, &[soft, extra, &format!("{path}=\"{v}\"")])
                .unwrap_or_else(|e| panic!("{path} = {v}: {e}"));
        }
    }
}

#[test]
fn the_reference_document_is_what_vho_schema_prints() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/scenario-reference.md")).unwrap_or_default();
    assert!(
        doc == super::reference::markdown(),
        "docs/scenario-reference.md is stale: regenerate it with `vho schema > \
         docs/scenario-reference.md`"
    );
}

#[test]
fn remedies_set_what_they_need_and_refuse_unknown_names() {
    // Issue 19: a remedy by name sets its mechanism's settings; listed twice or in another
    // order it does the same; the resolved scenario lists it and shows its effect.
    let s = load_str(
        GOOD,
        &[
            "handover.0.kind=\"soft\"",
            "flow.0.remedies=[\"no-restore\", \"frto\", \"flush-on-handover\", \"frto\"]",
        ],
    )
    .expect("loads");
    let f = &s.flows[0];
    assert!(f.tcp.spurious_detection.frto);
    assert_eq!(f.tcp.spurious_response, SpuriousResponse::NoRestore);
    // WLAN -> GPRS is to a slower link: flush-on-handover leaves it (thesis §7.2.3 moves the
    // queue from the slower link to the faster); the way back would be flushed.
    assert_eq!(s.handovers[0].flush, Flush::Off);
    let back = load_str(
        &GOOD
            .replace("start = \"wlan\"", "start = \"gprs\"")
            .replace(
                "from = \"wlan\"\nto = \"gprs\"",
                "from = \"gprs\"\nto = \"wlan\"",
            ),
        &[
            "handover.0.kind=\"soft\"",
            "flow.0.remedies=[\"flush-on-handover\"]",
        ],
    )
    .expect("loads");
    assert_eq!(back.handovers[0].flush, Flush::Move);
    assert_eq!(f.remedies.len(), 3);
    let s = load_str(GOOD, &["flow.0.remedies=[\"dsack-undo\"]"]).expect("loads");
    let t = &s.flows[0].tcp;
    assert!(t.sack && t.dsack && t.spurious_detection.dsack);
    assert_eq!(t.spurious_response, SpuriousResponse::Undo);
    // A soft-reconfigure handover already moves its queue: flush-on-handover leaves it.
    assert_eq!(s.handovers[0].flush, Flush::Off);
    let e = load_str(GOOD, &["flow.0.remedies=[\"rto-rest\"]"]).unwrap_err();
    // The message lists every remedy by name, then what was given.
    let names: Vec<&str> = crate::remedy::Remedy::ALL
        .iter()
        .map(|r| r.name())
        .collect();
    let want = format!(
        "flow.remedies: expected remedies among {}, got \"rto-rest\"",
        names.join(", ")
    );
    assert!(e.to_string().contains(&want), "{e}");
    assert!(names.contains(&"rto-reset") && names.contains(&"cwnd-clamp"));
    let e = load_str(GOOD, &["handover.0.flush=\"move\""]).unwrap_err();
    assert!(
        e.to_string()
            .contains("no `flush` except with kind = \"soft\""),
        "{e}"
    );
}

#[test]
fn a_hard_handover_loses_what_is_in_flight_unless_told_otherwise() {
    // Issue 33 point 4: the old interface goes down (Cottingham & Vidales §6.1-6.2), so
    // `in_flight` is "lost" by default; "delivered" keeps ns-2's reconfigured link (Daniel &
    // Kojo's study); a soft handover takes only "delivered" (its old interface stays up).
    let hard = "handover.0.kind=\"hard\"";
    let s = load_str(GOOD, &[hard]).expect("loads");
    assert_eq!(s.handovers[0].in_flight, crate::spec::InFlight::Lost);
    let s = load_str(GOOD, &[hard, "handover.0.in_flight=\"delivered\""]).expect("loads");
    assert_eq!(s.handovers[0].in_flight, crate::spec::InFlight::Delivered);
    let e = load_str(GOOD, &["handover.0.in_flight=\"lost\""]).unwrap_err();
    assert!(
        e.to_string()
            .contains("no `in_flight = \"lost\"` except with kind = \"hard\""),
        "{e}"
    );
    let e = load_str(GOOD, &[hard, "handover.0.in_flight=\"gone\""]).unwrap_err();
    assert!(e.to_string().contains("one of lost, delivered"), "{e}");
}

#[test]
fn the_oracle_remedies_and_adaptive_dupthresh_set_their_settings() {
    // Issue 19 items 2-3: `oracle` switches the oracle sender on and nothing else;
    // `oracle-system` also moves the old link's queue at a soft handover to a faster link
    // (digest §4.4; not to a slower one: remedy/oracle.rs); `adaptive-dupthresh` switches its
    // rule on and makes the mobile announce its handovers at the instant.
    let soft = "handover.0.kind=\"soft\"";
    let s = load_str(GOOD, &[soft, "flow.0.remedies=[\"oracle\"]"]).expect("loads");
    assert!(s.flows[0].tcp.oracle);
    assert_eq!(s.handovers[0].flush, Flush::Off);
    assert_eq!(s.handovers[0].notify, None);
    let s = load_str(GOOD, &[soft, "flow.0.remedies=[\"oracle-system\"]"]).expect("loads");
    assert!(s.flows[0].tcp.oracle);
    assert_eq!(s.handovers[0].flush, Flush::Off); // WLAN -> GPRS: to a slower link
    let back = GOOD
        .replace("start = \"wlan\"", "start = \"gprs\"")
        .replace(
            "from = \"wlan\"\nto = \"gprs\"",
            "from = \"gprs\"\nto = \"wlan\"",
        );
    let s = load_str(&back, &[soft, "flow.0.remedies=[\"oracle-system\"]"]).expect("loads");
    assert_eq!(s.handovers[0].flush, Flush::Move);
    let s = load_str(GOOD, &["flow.0.remedies=[\"adaptive-dupthresh\"]"]).expect("loads");
    assert!(s.flows[0].tcp.adaptive_dupthresh && !s.flows[0].tcp.oracle);
    assert_eq!(s.handovers[0].notify, Some(0));
    let plain = load_str(GOOD, &[]).expect("loads");
    assert!(!plain.flows[0].tcp.adaptive_dupthresh && !plain.flows[0].tcp.oracle);
}

#[test]
fn a_links_jitter_loads_renders_and_refuses_a_spread_without_a_mean() {
    // link::jitter: a seeded extra delay per packet; sd defaults to the mean.
    let s = load_str(GOOD, &["access.gprs.jitter_mean=\"150 ms\""]).expect("loads");
    let gprs = s.links.iter().find(|l| l.name == "gprs").expect("gprs");
    let j = gprs.ab.jitter.expect("jitter");
    assert_eq!(
        (j.mean, j.sd),
        (Dur::from_millis(150), Dur::from_millis(150))
    );
    assert!(s
        .links
        .iter()
        .find(|l| l.name == "wlan")
        .expect("wlan")
        .ab
        .jitter
        .is_none());
    let text = crate::scenario::render::to_toml(&s);
    assert!(
        text.contains("jitter_mean = \"150 ms\", jitter_sd = \"150 ms\""),
        "{text}"
    );
    let e = load_str(GOOD, &["access.gprs.jitter_sd=\"50 ms\""]).unwrap_err();
    assert!(e.to_string().contains("jitter_sd"), "{e}");
    let e = load_str(GOOD, &["access.gprs.jitter_mean=\"-5 ms\""]).unwrap_err();
    assert!(e.to_string().contains("access.gprs.jitter_mean"), "{e}");
}

// ---- Asymmetric presets: `_down` towards the mobile host, `_up` from it ----

/// A preset that sets every key both ways and differently per direction.
const ASYM: &str = r#"name = "asym"
description = "every key, and every key per direction"
rate = "1 Mb/s"
delay = "10 ms"
queue = "10 pkt"
loss = 0.01
jitter_mean = "1 ms"
jitter_sd = "1 ms"
rate_down = "4 Mb/s"
rate_up = "2 Mb/s"
delay_down = "40 ms"
delay_up = "20 ms"
queue_down = "40 pkt"
queue_up = "20 pkt"
loss_down = 0.04
loss_up = 0.02
jitter_mean_down = "4 ms"
jitter_mean_up = "2 ms"
jitter_sd_down = "3 ms"
jitter_sd_up = "1.5 ms"
"#;

/// The general form: `ch` — `core` — `ha` — `gprs` — `mh`, `gprs` written BETWEEN.
const GENERAL: &str = r#"[[node]]
name = "ch"
kind = "host"

[[node]]
name = "ha"
kind = "router"

[[node]]
name = "mh"
kind = "mobile"

[[link]]
name = "core"
between = ["ch", "ha"]
preset = "lan-100m"

[[link]]
name = "gprs"
between = BETWEEN
preset = "asym"

[mobile]
node = "mh"
interfaces = ["gprs"]

[[flow]]
from = "ch"
to = "mh"
size = "1 KB"
"#;

fn load_asym(text: &str, sets: &[&str]) -> Result<Spec, ScenarioError> {
    let mut presets = PresetSet::builtin().expect("presets");
    presets.add("asym.toml", ASYM).expect("asym parses");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load("s.toml", text, &sets, &presets)
}

/// A link's (towards the mobile host, from it) directions.
fn down_up<'a>(s: &'a Spec, link: &str) -> (&'a crate::spec::DirSpec, &'a crate::spec::DirSpec) {
    use crate::spec::NodeKind;
    let l = s.links.iter().find(|l| l.name == link).expect("the link");
    if s.nodes[l.b].kind == NodeKind::Mobile {
        (&l.ab, &l.ba)
    } else {
        assert_eq!(s.nodes[l.a].kind, NodeKind::Mobile);
        (&l.ba, &l.ab)
    }
}

type DirValues = (
    u64,
    Dur,
    QueueLimit,
    crate::spec::LossSpec,
    Option<(Dur, Dur)>,
);

fn values(d: &crate::spec::DirSpec) -> DirValues {
    (
        d.rate_bps,
        d.delay,
        d.queue,
        d.loss.clone(),
        d.jitter.map(|j| (j.mean, j.sd)),
    )
}

/// ASYM's down and up values, read from the preset above by hand.
fn asym_down_up() -> (DirValues, DirValues) {
    use crate::spec::LossSpec::Bernoulli;
    let ms = Dur::from_millis;
    (
        (
            4_000_000,
            ms(40),
            QueueLimit::Packets(40),
            Bernoulli { p: 0.04 },
            Some((ms(4), ms(3))),
        ),
        (
            2_000_000,
            ms(20),
            QueueLimit::Packets(20),
            Bernoulli { p: 0.02 },
            Some((ms(2), Dur::from_micros(1500))),
        ),
    )
}

#[test]
fn an_asymmetric_preset_gives_its_down_values_towards_the_mobile_host_at_either_end() {
    let (down, up) = asym_down_up();
    // Mobile host at end b: a -> b is down.
    let s = load_asym(&GENERAL.replace("BETWEEN", "[\"ha\", \"mh\"]"), &[]).expect("loads");
    let l = s.links.iter().find(|l| l.name == "gprs").expect("gprs");
    assert_eq!((values(&l.ab), values(&l.ba)), (down.clone(), up.clone()));
    // Mobile host at end a: a -> b is up.
    let s = load_asym(&GENERAL.replace("BETWEEN", "[\"mh\", \"ha\"]"), &[]).expect("loads");
    let l = s.links.iter().find(|l| l.name == "gprs").expect("gprs");
    assert_eq!((values(&l.ab), values(&l.ba)), (up.clone(), down.clone()));
    // The common form's access link runs ha -> mh.
    let s = load_asym(GOOD, &["access.gprs={preset=\"asym\"}"]).expect("loads");
    let (d, u) = down_up(&s, "gprs");
    assert_eq!((values(d), values(u)), (down, up));
    // The symmetric link beside it is untouched.
    let core = load_asym(&GENERAL.replace("BETWEEN", "[\"ha\", \"mh\"]"), &[]).expect("loads");
    let core = core.links.iter().find(|l| l.name == "core").expect("core");
    assert_eq!(values(&core.ab), values(&core.ba));
}

#[test]
fn a_links_own_keys_then_its_direction_tables_override_an_asymmetric_preset() {
    // Layers: preset, preset per direction, the link's keys, the link's direction tables.
    let (down, up) = asym_down_up();
    let ms = Dur::from_millis;
    // The link's own rate replaces the preset's rate_down and rate_up alike.
    let s = load_asym(GOOD, &["access.gprs={preset=\"asym\", rate=\"1 Mb/s\"}"]).expect("loads");
    let (d, u) = down_up(&s, "gprs");
    assert_eq!((d.rate_bps, u.rate_bps), (1_000_000, 1_000_000));
    assert_eq!((d.delay, u.delay), (down.1, up.1));
    // A direction table replaces its own direction only, over the link's keys too.
    let s = load_asym(
        GOOD,
        &["access.gprs={preset=\"asym\", delay=\"7 ms\", up={delay=\"5 ms\", loss=0}}"],
    )
    .expect("loads");
    let (d, u) = down_up(&s, "gprs");
    assert_eq!((d.delay, u.delay), (ms(7), ms(5)));
    assert_eq!(
        (d.loss.clone(), u.loss.clone()),
        (down.3, crate::spec::LossSpec::None)
    );
    assert_eq!((d.queue, u.queue), (down.2, up.2));
    // The general form's forward/reverse, with the mobile host at end a (forward is up).
    let text = GENERAL.replace("BETWEEN", "[\"mh\", \"ha\"]").replace(
        "preset = \"asym\"\n",
        "preset = \"asym\"\nforward = { queue = \"3 pkt\" }\nreverse = { jitter_mean = \"9 ms\" }\n",
    );
    let s = load_asym(&text, &[]).expect("loads");
    let (d, u) = down_up(&s, "gprs");
    assert_eq!(u.queue, QueueLimit::Packets(3));
    assert_eq!(d.queue, down.2);
    assert_eq!(d.jitter.map(|j| (j.mean, j.sd)), Some((ms(9), ms(3))));
    assert_eq!(u.jitter.map(|j| (j.mean, j.sd)), up.4);
}

#[test]
fn an_asymmetric_preset_is_refused_on_a_link_without_a_mobile_host_at_exactly_one_end() {
    let expected = |at: &str, field: &str, preset: &str, keys: &str, got: &str| {
        format!(
            "{at}: {field}: expected a link with a mobile host at exactly one end (preset \
             \"{preset}\" sets {keys}: _down applies towards the mobile host, _up from it), got \
             {got}"
        )
    };
    let asym_keys = "rate_down, rate_up, delay_down, delay_up, queue_down, queue_up, loss_down, \
                     loss_up, jitter_mean_down, jitter_mean_up, jitter_sd_down, jitter_sd_up";
    // The common form's wired link joins ch and ha.
    let text = GOOD.replace(
        "[access.wlan]",
        "[wired]\npreset = \"gprs-cottingham\"\n\n[access.wlan]",
    );
    assert_eq!(
        message(&text, &[]),
        expected(
            "s.toml:6",
            "wired.preset",
            "gprs-cottingham",
            "rate_up",
            "no mobile host at either end (\"ch\", \"ha\")"
        )
    );
    assert_eq!(
        message(GOOD, &["wired.preset=\"gprs-cottingham\""]),
        expected(
            "--set wired.preset=\"gprs-cottingham\"",
            "wired.preset",
            "gprs-cottingham",
            "rate_up",
            "no mobile host at either end (\"ch\", \"ha\")"
        )
    );
    // The general form: two routers, then two mobile hosts.
    let between_routers = GENERAL
        .replace("BETWEEN", "[\"ha\", \"mh\"]")
        .replace("preset = \"lan-100m\"", "preset = \"asym\"");
    let e = load_asym(&between_routers, &[]).expect_err("refused");
    assert_eq!(
        e.to_string(),
        expected(
            "s.toml:16",
            "link.core.preset",
            "asym",
            asym_keys,
            "no mobile host at either end (\"ch\", \"ha\")"
        )
    );
    let two_mobiles = GENERAL.replace("BETWEEN", "[\"ha\", \"mh\"]").replace(
        "name = \"ha\"\nkind = \"router\"",
        "name = \"ha\"\nkind = \"mobile\"",
    );
    let e = load_asym(&two_mobiles, &[]).expect_err("refused");
    assert_eq!(
        e.to_string(),
        expected(
            "s.toml:21",
            "link.gprs.preset",
            "asym",
            asym_keys,
            "mobile hosts at both ends (\"ha\", \"mh\")"
        )
    );
}

#[test]
fn every_builtin_preset_loads_on_an_access_link() {
    let presets = PresetSet::builtin().expect("presets");
    for name in presets.names() {
        load_str(GOOD, &[&format!("access.gprs={{preset=\"{name}\"}}")])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn the_gprs_cottingham_preset_gives_an_idle_ping_rtt_of_0_7_s() {
    // docs/design/issue-20-sources.md §5.1: 4+1 x CS-2 (000 l.59), 53.6 kb/s down and 13.4 kb/s
    // up, a fixed delay fitted to an idle 84-byte ping RTT of about 0.7 s. By hand: 672 bits take
    // 12,537,314 ns at 53.6 kb/s and 50,149,254 ns at 13.4 kb/s (rounded up), plus 2 x 319 ms:
    // 700,686,568 ns.
    let s = load_str(GOOD, &["access.gprs={preset=\"gprs-cottingham\"}"]).expect("loads");
    let (down, up) = down_up(&s, "gprs");
    assert_eq!((down.rate_bps, up.rate_bps), (53_600, 13_400));
    assert_eq!(
        (down.queue, up.queue),
        (QueueLimit::Packets(30), QueueLimit::Packets(30))
    );
    let ping = Dur::serialization(84, down.rate_bps)
        + down.delay
        + Dur::serialization(84, up.rate_bps)
        + up.delay;
    assert_eq!(ping, Dur(700_686_568));
    let target = 0.7;
    assert!(
        (ping.as_secs_f64() - target).abs() <= 0.05 * target,
        "{ping:?}"
    );
    // With the jitter's mean each way the mean RTT is about 1 s (000 l.22, "of the order of 1000
    // ms").
    let ms = Dur::from_millis;
    for d in [down, up] {
        assert_eq!(d.jitter.map(|j| (j.mean, j.sd)), Some((ms(150), ms(150))));
    }
}

#[test]
fn the_wired_links_direction_tables_apply() {
    // [wired] down (ch -> ha, towards the mobile host) and up (ha -> ch) were accepted and
    // documented but once ignored.
    let text = GOOD.replace(
        "[access.wlan]",
        "[wired]\ndown = { rate = \"1 Mb/s\" }\nup = { delay = \"7 ms\" }\n\n[access.wlan]",
    );
    let spec = load_str(&text, &[]).expect("valid");
    let wired = &spec.links[0];
    assert_eq!(wired.name, "wired");
    assert_eq!(wired.ab.rate_bps, 1_000_000);
    assert_eq!(wired.ba.rate_bps, 100_000_000);
    assert_eq!(wired.ba.delay, Dur::from_millis(7));
    assert_eq!(wired.ab.delay, Dur::from_millis(1));
}

#[test]
fn schedules_resolve_their_link_directions_instants_and_values() {
    // [[schedule]]: `down` is the direction towards the mobile host (gprs runs ha -> mh, its
    // a -> b); no direction is both; a ramp's pair is (from, to); a ramp of rate or delay
    // steps every 100 ms by default.
    use crate::link::change::LinkState;
    let s = load_str(&format!("{GOOD}{SCHED}"), &[]).expect("valid");
    let (gprs, wlan) = (&s.schedules[0], &s.schedules[1]);
    assert_eq!((gprs.link, gprs.ab, gprs.ba), (1, true, false));
    assert_eq!(
        (gprs.at, gprs.until),
        (Time::from_secs(1), Some(Time::from_secs(3)))
    );
    assert_eq!(gprs.rate_bps, Some(Level::Ramp(64_000, 32_000)));
    assert_eq!(gprs.loss, Some(Level::Ramp(0.0, 0.2)));
    assert_eq!(gprs.step, Dur::from_millis(100));
    assert_eq!((gprs.delay, gprs.state), (None, None));
    assert_eq!((wlan.link, wlan.ab, wlan.ba), (2, true, true));
    assert_eq!(wlan.state, Some(LinkState::Outage));
    // up is the other way; forward and reverse name a -> b and b -> a on any link; every
    // state loads.
    for (dir, ab) in [("up", false), ("forward", true), ("reverse", false)] {
        let t = format!("{GOOD}{}", SCHED.replace("\"down\"", &format!("{dir:?}")));
        let s = load_str(&t, &[]).expect("valid");
        assert_eq!((s.schedules[0].ab, s.schedules[0].ba), (ab, !ab), "{dir}");
    }
    let t = format!(
        "{GOOD}{}",
        SCHED
            .replace("state = \"outage\"", "trace = [0, 5, 5, 20]")
            .replace("until = \"2.5 s\"\n", "")
    );
    let s = load_str(&t, &[]).expect("valid");
    let ms: Option<Vec<u64>> = s.schedules[1]
        .trace
        .as_ref()
        .map(|t| t.opportunities.iter_ms().collect());
    assert_eq!(ms.as_deref(), Some(&[0u64, 5, 5, 20][..]));
    for st in LinkState::ALL {
        let t = format!(
            "{GOOD}{}",
            SCHED.replace("\"outage\"", &format!("{:?}", st.name()))
        );
        let s = load_str(&t, &[]).expect("valid");
        assert_eq!(s.schedules[1].state, Some(st));
    }
}

/// `trace_file`: a Mahimahi trace file beside the scenario file is read as mm-link reads it
/// (link_queue.cc: one millisecond offset per line), and an error in it names the trace
/// file and its line.
#[test]
fn trace_files_are_read_beside_the_scenario_and_checked_by_line() {
    let dir = std::env::temp_dir().join(format!("vho-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("traces")).expect("temp dir");
    let scenario = dir.join("s.toml");
    let text = format!(
        "{GOOD}{}",
        SCHED
            .replace("state = \"outage\"", "trace_file = \"traces/t.down\"")
            .replace("until = \"2.5 s\"\n", "")
    );
    std::fs::write(&scenario, &text).expect("write scenario");
    let label = scenario.to_string_lossy().to_string();
    let presets = PresetSet::builtin().expect("presets");
    let load_at = |trace: &str| {
        std::fs::write(dir.join("traces/t.down"), trace).expect("write trace");
        load(&label, &text, &[], &presets)
    };
    // Repeated offsets are several opportunities at one instant; \r\n line ends are fine.
    let s = load_at("0\n5\n5\r\n20\n").expect("valid");
    let ms: Option<Vec<u64>> = s.schedules[1]
        .trace
        .as_ref()
        .map(|t| t.opportunities.iter_ms().collect());
    assert_eq!(ms.as_deref(), Some(&[0u64, 5, 5, 20][..]));
    let trace_label = dir.join("traces/t.down").to_string_lossy().to_string();
    let e = load_at("0\n5\n3\n").expect_err("out of order").to_string();
    assert_eq!(
        e,
        format!(
            "{trace_label}:3: schedule.trace_file: expected millisecond offsets in \
             nondecreasing order, got 3 after 5"
        )
    );
    let e = load_at("1\n\n2\n").expect_err("empty line").to_string();
    assert!(e.starts_with(&format!("{trace_label}:2: schedule.trace_file: expected a millisecond offset on every line (mm-link refuses empty lines), got an empty line")), "{e}");
    let e = load_at("1\n2 ms\n").expect_err("not a number").to_string();
    assert!(
        e.starts_with(&format!("{trace_label}:2: ")) && e.ends_with("got \"2 ms\""),
        "{e}"
    );
    let e = load_at("0\n0\n").expect_err("lasting 0 ms").to_string();
    assert!(e.contains("a trace lasting more than 0 ms"), "{e}");
    let e = load_at("").expect_err("empty").to_string();
    assert!(e.contains("at least one delivery opportunity"), "{e}");
    // A missing file is the scenario's error, on the trace_file line.
    std::fs::remove_file(dir.join("traces/t.down")).expect("remove");
    let e = load(&label, &text, &[], &presets)
        .expect_err("missing")
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{label}:41: schedule.trace_file: expected a readable trace file"
        )),
        "{e}"
    );
    // Both forms at once are refused.
    let both = text.replace("trace_file =", "trace = [1]\ntrace_file =");
    let e = load(&label, &both, &[], &presets)
        .expect_err("both")
        .to_string();
    assert!(e.contains("either trace or trace_file, not both"), "{e}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A trace file scenario: GOOD with SCHED's outage replaced by `trace_file = "{trace}"`,
/// written into a fresh folder `vho-<tag>-<pid>`; (folder, scenario label, text).
fn trace_scenario(tag: &str, trace: &str) -> (std::path::PathBuf, String, String) {
    let dir = std::env::temp_dir().join(format!("vho-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scenario = dir.join("s.toml");
    let text = format!(
        "{GOOD}{}",
        SCHED
            .replace("state = \"outage\"", &format!("trace_file = {trace:?}"))
            .replace("until = \"2.5 s\"\n", "")
    );
    std::fs::write(&scenario, &text).expect("write scenario");
    (dir, scenario.to_string_lossy().to_string(), text)
}

/// Issue 40 item 5: a trace_file that is a FIFO (or /dev/stdin, a device, a folder) is
/// refused at once, as a scenario file is, instead of blocking in open() for a writer.
#[cfg(unix)]
#[test]
fn a_trace_file_that_is_not_a_regular_file_is_refused_without_blocking() {
    let dir = std::env::temp_dir().join(format!("vho-trace-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fifo = dir.join("t.fifo");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    for (given, kind) in [
        (fifo.to_string_lossy().to_string(), "a FIFO"),
        ("/dev/zero".to_string(), "a device"),
        (dir.to_string_lossy().to_string(), "a directory"),
    ] {
        let (_, label, text) = trace_scenario("trace-fifo-s", &given);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let presets = PresetSet::builtin().expect("presets");
            let _ = tx.send(load(&label, &text, &[], &presets).map(|_| ()));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("loading a trace_file that is {kind} blocked"));
        let e = got.expect_err("refused").to_string();
        assert!(
            e.contains(":41: schedule.trace_file: expected a trace file (a regular file; ")
                && e.contains(&format!(" is {kind}), got ")),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(
        std::env::temp_dir().join(format!("vho-trace-fifo-s-{}", std::process::id())),
    );
}

/// Issue 40 item 13: a trace file is read with a bound (MAX_TRACE_FILE_BYTES, named in the
/// error) and kept compacted, a distinct offset once however many lines repeat it (a
/// 189 MB trace took 2 GB as text, a Vec and a copy of it in ns).
#[test]
fn a_trace_file_is_bounded_and_kept_compacted() {
    use super::resolve::MAX_TRACE_FILE_BYTES;
    let (dir, label, text) = trace_scenario("trace-bound", "t.down");
    let presets = PresetSet::builtin().expect("presets");
    let trace = dir.join("t.down");
    // 2 s of a 120 Mb/s trace: 10 opportunities every ms, 20,000 lines, 2,000 offsets.
    let mut lines = String::new();
    for ms in 1..=2000u64 {
        for _ in 0..10 {
            lines.push_str(&format!("{ms}\n"));
        }
    }
    std::fs::write(&trace, &lines).expect("write trace");
    let s = load(&label, &text, &[], &presets).expect("valid");
    let ops = &s.schedules[1]
        .trace
        .as_ref()
        .expect("a trace")
        .opportunities;
    assert_eq!((ops.len(), ops.distinct()), (20_000, 2_000));
    assert_eq!(ops.iter_ms().filter(|&m| m == 7).count(), 10);
    // One byte over the bound (a sparse file: nothing is written) is refused before it is
    // read, naming the bound.
    let f = std::fs::File::create(&trace).expect("create");
    f.set_len(MAX_TRACE_FILE_BYTES + 1).expect("set_len");
    drop(f);
    let e = load(&label, &text, &[], &presets)
        .expect_err("too large")
        .to_string();
    assert_eq!(
        e,
        format!(
            "{label}:41: schedule.trace_file: expected a trace file of at most 67108864 bytes \
             (MAX_TRACE_FILE_BYTES, 64 MiB: over 10 million opportunities), got {} of 67108865 \
             bytes",
            trace.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 40 item 24: the resolved scenario of a run with a trace_file names the file (its
/// absolute path) and its SHA-256 instead of inlining the trace, so it stays small and
/// re-runs from anywhere; a re-run checks the digest and refuses a changed file.
#[test]
fn a_resolved_scenario_names_its_trace_file_by_path_and_digest_and_reruns() {
    let (dir, label, text) = trace_scenario("trace-resolved", "t.down");
    let presets = PresetSet::builtin().expect("presets");
    let trace = dir.join("t.down");
    // 200,000 lines (1.2 MB: inlined, the resolved scenario passed the 1 MiB limit).
    let lines: String = (0..200_000u64)
        .map(|i| format!("{}\n", 1 + i / 10))
        .collect();
    std::fs::write(&trace, &lines).expect("write trace");
    let s = load(&label, &text, &[], &presets).expect("valid");
    let resolved = super::render::to_toml(&s);
    assert!(resolved.len() < 64 << 10, "{} bytes", resolved.len());
    let abs = std::path::absolute(&trace).expect("absolute");
    // `printf '1\n...' | sha256sum` of the file's bytes.
    let mut sha = super::sha256::Sha256::default();
    sha.update(lines.as_bytes());
    let digest = sha.hex();
    assert!(
        resolved.contains(&format!(
            "trace_file = {}\ntrace_sha256 = \"{digest}\"\n",
            toml::Value::String(abs.to_string_lossy().into_owned())
        )),
        "{resolved}"
    );
    // Re-run from another folder: the same scenario (hash) and trace.
    let again = load("elsewhere/scenario.resolved.toml", &resolved, &[], &presets)
        .expect("the resolved scenario loads");
    let norm = |mut s: Spec| {
        for l in &mut s.links {
            l.preset = None; // the preset's values are written out, its name not
        }
        hash(&s)
    };
    assert_eq!(norm(again.clone()), norm(s.clone()));
    assert_eq!(again.schedules[1].trace, s.schedules[1].trace);
    let again_text = super::render::to_toml(&again);
    assert_eq!(
        again_text
            .lines()
            .filter(|l| l.starts_with("trace"))
            .count(),
        2
    );
    assert!(resolved
        .lines()
        .all(|l| !l.starts_with("trace") || again_text.contains(l)));
    // The trace file changed since: refused on the trace_sha256 line, naming both digests.
    std::fs::write(&trace, "1\n2\n").expect("rewrite trace");
    let e = load("r.toml", &resolved, &[], &presets)
        .expect_err("changed")
        .to_string();
    assert!(
        e.starts_with("r.toml:")
            && e.contains(": schedule.trace_sha256: expected the SHA-256 of ")
            && e.contains(&format!("got \"{digest}\", the file's is \"")),
        "{e}"
    );
    // A digest with no trace_file to check it against.
    let lone = text.replace(
        "trace_file = \"t.down\"",
        &format!("state = \"outage\"\ntrace_sha256 = \"{digest}\""),
    );
    let e = load(&label, &lone, &[], &presets)
        .expect_err("lone digest")
        .to_string();
    assert!(
        e.contains(":42: schedule.trace_sha256: expected a trace_file beside it"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The hash of a scenario names what it simulates, not where a trace came from: the same trace
/// file's bytes at two paths give one hash, other bytes another; an inline trace is hashed by
/// its values. (It was once pinned to values, which moved whenever the resolved spec gained a
/// field; what must hold is this.)
#[test]
fn the_hash_of_a_scenario_with_a_trace_depends_on_the_trace_not_on_its_path() {
    let presets = PresetSet::builtin().expect("presets");
    let (d1, l1, t1) = trace_scenario("hash-a", "t.down");
    let (d2, l2, t2) = trace_scenario("hash-b", "t.down");
    std::fs::write(d1.join("t.down"), "1\n1\n3\n").expect("write");
    std::fs::write(d2.join("t.down"), "1\n1\n3\n").expect("write");
    let h1 = hash(&load(&l1, &t1, &[], &presets).expect("valid"));
    assert_eq!(h1, hash(&load(&l2, &t2, &[], &presets).expect("valid")));
    std::fs::write(d2.join("t.down"), "1\n2\n3\n").expect("write");
    assert_ne!(h1, hash(&load(&l2, &t2, &[], &presets).expect("valid")));
    let _ = std::fs::remove_dir_all(&d1);
    let _ = std::fs::remove_dir_all(&d2);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("scenarios/examples/naoe-links.toml"))
        .expect("the example");
    let inline = |t: &str| {
        let extra = format!("\n[[schedule]]\nlink = \"wired\"\nat = \"4 s\"\ntrace = {t}\n");
        hash(&load("naoe-links.toml", &format!("{text}{extra}"), &[], &presets).expect("valid"))
    };
    assert_eq!(inline("[1, 1, 3]"), inline("[1, 1, 3]"));
    assert_ne!(inline("[1, 1, 3]"), inline("[1, 2, 3]"));
}

#[test]
fn a_snap_length_below_the_longest_header_or_above_tcpdumps_largest_is_refused() {
    // record.snaplen: 256 keeps every header vho writes (record::pcap::MIN_SNAPLEN); 262144
    // is tcpdump's MAXIMUM_SNAPLEN.
    let s = load_str(GOOD, &["record.snaplen=256"]).expect("loads");
    assert_eq!(s.record.snaplen, 256);
    assert_eq!(load_str(GOOD, &[]).expect("loads").record.snaplen, 65_535);
    for bad in ["96", "262145", "-1"] {
        assert_eq!(
            message(GOOD, &[&format!("record.snaplen={bad}")]),
            format!(
                "--set record.snaplen={bad}: record.snaplen: expected an integer from 256 to \
                 262144 (bytes kept of each packet), got {bad}"
            )
        );
    }
}

#[test]
fn a_value_of_the_wrong_type_is_named_by_its_field() {
    // The TOML parser's type errors name no field: the loader finds it from the error's span.
    let e = message(&GOOD.replace("seed = 3", "seed = \"three\""), &[]);
    assert_eq!(
        e,
        "s.toml:3: run.seed: invalid type: string \"three\", expected an integer"
    );
    let e = message(
        &GOOD.replace("rate = \"64 kb/s\"", "rate = \"64 kb/s\"\nloss = \"lots\""),
        &[],
    );
    assert_eq!(
        e,
        "s.toml:11: access.gprs.loss: invalid type: string \"lots\", expected a number"
    );
    let e = message(
        &GOOD.replace("pcap = [\"ch\", \"mh\"]", "pcap = [\"ch\", 3]"),
        &[],
    );
    assert!(
        e.starts_with("s.toml:28: record.pcap: invalid type: integer `3`"),
        "{e}"
    );
    // An unknown key is named by its table (the message names the key).
    let e = message(&format!("{GOOD}zz_not_a_key = 1\n"), &[]);
    assert!(
        e.starts_with("s.toml:29: record: unknown field `zz_not_a_key`"),
        "{e}"
    );
}

// ---- [[flow]] count ----

const CROSS: &str = r#"
[[flow]]
name = "cross"
count = 3
from = "ch"
to = "mh"
kind = "pareto"
pareto = { rate = "32 kb/s" }
"#;

#[test]
fn a_flow_with_count_is_that_many_flows_named_by_their_index() {
    let s = load_str(&format!("{GOOD}{CROSS}"), &[]).expect("loads");
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["flow0", "cross-0", "cross-1", "cross-2"]);
    // Alike in all else: three tables written out give the same spec, and the same hash.
    let three: String = (0..3)
        .map(|k| {
            format!(
                "\n[[flow]]\nname = \"cross-{k}\"\nfrom = \"ch\"\nto = \"mh\"\nkind = \"pareto\"\n\
                 pareto = {{ rate = \"32 kb/s\" }}\n"
            )
        })
        .collect();
    let t = load_str(&format!("{GOOD}{three}"), &[]).expect("loads");
    assert_eq!(super::hash(&s), super::hash(&t));
}

#[test]
fn a_count_outside_one_to_ten_thousand_is_refused_with_its_line() {
    for bad in ["0", "-2", "10001"] {
        let text = format!(
            "{GOOD}{}",
            CROSS.replace("count = 3", &format!("count = {bad}"))
        );
        let e = load_str(&text, &[]).expect_err(bad).to_string();
        assert!(e.contains("flow.count") && e.contains("1 to 10000"), "{e}");
        assert!(e.contains(&format!("got {bad}")), "{e}");
    }
}

#[test]
fn the_resolved_scenario_writes_identical_flows_as_one_table_with_their_count() {
    let s = load_str(&format!("{GOOD}{CROSS}"), &[]).expect("loads");
    let text = super::render::to_toml(&s);
    assert_eq!(text.matches("[[flow]]").count(), 2, "{text}");
    assert!(text.contains("name = \"cross\"\ncount = 3\n"), "{text}");
    let back = load_str(&text, &[]).expect("the resolved form loads");
    assert_eq!(format!("{:?}", back.flows), format!("{:?}", s.flows));
    // Flows that differ stay apart: one of the three given another rate.
    let other = load_str(
        &format!("{GOOD}{CROSS}"),
        &["flow.1.pareto.rate=\"64 kb/s\""],
    );
    let text = super::render::to_toml(&other.expect("loads"));
    assert!(
        text.contains("count = 3"),
        "an override of the table applies to every copy"
    );
}

#[test]
fn an_index_past_the_tables_is_reported_as_the_index() {
    // It said `expected an index below 1 for flow, got "1 MB"`: the value, not the index.
    let e = load_str(GOOD, &["flow.3.size=\"1 MB\""])
        .expect_err("no fourth flow")
        .to_string();
    assert!(e.contains("an index from 0 to 0 for [[flow]]"), "{e}");
    assert!(e.ends_with("got 3"), "{e}");
}

#[test]
fn an_override_sets_one_element_of_an_array() {
    // Issue 36: a calibration moves one end of a ramp (`schedule.0.loss.1`), the other end
    // as the file gives it; the array keeps its length and the element's place.
    let text = format!("{GOOD}{SCHED}");
    let s = load_str(
        &text,
        &["schedule.0.loss.1=0.3", "schedule.0.rate.0=\"48 kb/s\""],
    )
    .expect("valid");
    assert_eq!(s.schedules[0].loss, Some(Level::Ramp(0.0, 0.3)));
    assert_eq!(s.schedules[0].rate_bps, Some(Level::Ramp(48_000, 32_000)));
    // The same as writing the whole pair.
    let whole = load_str(
        &text,
        &[
            "schedule.0.loss=[0, 0.3]",
            "schedule.0.rate=[\"48 kb/s\", \"32 kb/s\"]",
        ],
    )
    .expect("valid");
    assert_eq!(hash(&s), hash(&whole));
    // An array of tables is still set key by key.
    let cases: &[(&[&str], &str)] = &[
        (&["schedule.0.loss.2=0.1"],
            "--set schedule.0.loss.2=0.1: schedule.0.loss.2: expected an index from 0 to 1 for loss (the array has 2), got 2"),
        (&["schedule.1.state.0=\"up\""],
            "--set schedule.1.state.0=\"up\": schedule.1.state.0: expected state to be an array such as [0, 0.2] to set element 0 of, got a value"),
        (&["schedule.1.loss.0=0.1"],
            "--set schedule.1.loss.0=0.1: schedule.1.loss.0: the scenario has no array loss there to set element 0 of"),
        (&["schedule.0.loss.1=1.5"],
            "--set schedule.0.loss.1=1.5: schedule.loss: expected a probability from 0 to 1, got [0, 1.5]"),
        (&["flow.0=1"],
            "--set flow.0=1: flow.0: expected a key name last, not an index (a table of an array is set key by key: flow.0.size=..., flow.0.start=...), got 1"),
        (&["0=1"],
            "--set 0=1: 0: expected a key name before an index, such as schedule.0.loss.1 (an array's element), got 1"),
    ];
    for (sets, want) in cases {
        assert_eq!(message(&text, sets), *want);
    }
}

#[test]
fn a_notifications_delivery_delay_moves_its_instant() {
    // Issue 36: Chen et al. do not say how EHN reached its sender; notify_delay is how late
    // the notice arrives after it is generated, whichever side of the instant that is.
    let at = |sets: &[&str]| load_str(GOOD, sets).expect("loads").handovers[0].notify;
    assert_eq!(
        at(&[
            "handover.0.notify=\"at\"",
            "handover.0.notify_delay=\"500 ms\""
        ]),
        Some(500_000_000)
    );
    assert_eq!(
        at(&[
            "handover.0.notify=\"before\"",
            "handover.0.notify_offset=\"44 ms\"",
            "handover.0.notify_delay=\"500 ms\""
        ]),
        Some(456_000_000)
    );
    assert_eq!(
        at(&[
            "handover.0.notify=\"at\"",
            "handover.0.notify_delay=\"0 s\""
        ]),
        at(&["handover.0.notify=\"at\""])
    );
    let e = message(GOOD, &["handover.0.notify_delay=\"1 s\""]);
    assert_eq!(e, "--set handover.0.notify_delay=\"1 s\": handover.notify_delay: expected no `notify_delay` without a notification (notify = \"at\", \"before\" or \"after\"), got \"1 s\"");
}

#[test]
fn a_key_of_another_kind_of_flow_is_refused_at_its_line() {
    // Each kind refuses the others' keys through one table (`resolve::kind_keys`); TFRC's
    // refusal named no line (its span was 0..0), the others named theirs.
    let tcp_line = GOOD
        .lines()
        .position(|l| l.starts_with("tcp = {"))
        .expect("GOOD has a tcp table")
        + 1;
    for (kind, on) in [
        ("tfrc", "a TFRC flow"),
        ("cbr", "a CBR flow"),
        ("pareto", "a Pareto flow"),
    ] {
        let text = GOOD.replacen("[[flow]]\n", &format!("[[flow]]\nkind = \"{kind}\"\n"), 1);
        let got = message(&text, &[]);
        // The inserted `kind` line moves the tcp table down one.
        let at = format!("s.toml:{}:", tcp_line + 1);
        assert!(got.starts_with(&at), "{kind}: {got}");
        assert!(
            got.contains(&format!("flow.tcp: no flow.tcp on {on}")),
            "{kind}: {got}"
        );
    }
}
