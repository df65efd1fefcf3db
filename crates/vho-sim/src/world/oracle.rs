//! The ground truth the oracle sender is told (issue 19 item 3; its rules: `tcp::oracle`): at
//! the instant a handover is carried out, the new path's base RTT, bottleneck and queues, its
//! segments still on the old link and those really lost; from then on, every drop that leaves
//! a segment with no copy in the network and none delivered. Only a flow whose sender is the oracle (`tcp.oracle`) is told anything.

use super::World;
use crate::net::routes::{dir_index, DirIdx};
use crate::tcp::oracle::PathTruth;
use crate::tcp::SeqNum;
use crate::time::{Dur, Time};

/// TCP header bytes of a data segment or a plain ACK: 20, and the timestamps option padded to
/// 12 when the connection uses it.
fn tcp_header(timestamps: bool) -> u32 {
    20 + if timestamps { 12 } else { 0 }
}

impl World {
    /// Handover `h` has just been carried out (queues handled, routes recomputed): every
    /// oracle flow to or from its mobile learns its new path, and which of its segments are
    /// still on the link left.
    #[cold]
    #[inline(never)]
    pub(super) fn tell_oracles(&mut self, h: usize) {
        let hs = &self.spec.handovers[h];
        let mobile = self.spec.mobiles[hs.mobile].node;
        let old_dirs = [dir_index(hs.from, true), dir_index(hs.from, false)];
        for f in 0..self.flows.len() {
            let fs = &self.spec.flows[f];
            if !fs.tcp.oracle || !self.flows[f].started || (fs.src != mobile && fs.dst != mobile) {
                continue;
            }
            let Some(truth) = self.path_truth(f) else {
                continue;
            };
            let mut old_path = Vec::new();
            for d in old_dirs {
                for idx in self.dirs[d as usize].held() {
                    let p = self.slab.get(idx);
                    if p.flow as usize == f && p.to_receiver && p.seg.data_seq_len() > 0 {
                        old_path.push((p.seg.seq, p.seg.data_seq_len()));
                    }
                }
            }
            let now = self.now;
            let Some(src) = self.flows[f].agents[0].as_tcp_source_mut() else {
                continue;
            };
            let lost: Vec<(SeqNum, u32)> = match src.data_base {
                Some(base) => src
                    .truth
                    .lost_now()
                    .into_iter()
                    .map(|(off, len)| (base + off, len))
                    .collect(),
                None => Vec::new(),
            };
            src.sender.handle_path_truth(now, truth, &old_path, &lost);
            self.pump(f, 0);
        }
    }

    /// The flow's path as the routes now stand: data out, ACKs back.
    fn path_truth(&self, f: usize) -> Option<PathTruth> {
        let fs = &self.spec.flows[f];
        let to = |d: DirIdx| self.dirs[d as usize].to;
        let out = self.routes.path(fs.src, fs.dst, to)?;
        let back = self.routes.path(fs.dst, fs.src, to)?;
        let sender = &self.flows[f].agents[0].as_tcp_source()?.sender;
        let header = tcp_header(sender.uses_timestamps());
        // Without SACK blocks, as `forward::emit` counts them.
        let data = fs.tcp.header_model.wire_bytes(header, 0, sender.mss());
        let ack = fs.tcp.header_model.wire_bytes(header, 0, 0);
        let mut base_rtt = Dur::ZERO;
        let mut segment_time = Dur::ZERO;
        // A segment sent at t reaches hop i at t + base_rtt-so-far; hop i is free once it is
        // ready (a handover's block over) and has served what it holds and what the hops
        // before it hold (all of which passes it): the segment meets no queue there if sent
        // no sooner than that, less its way to the hop.
        let mut clear_at = self.now;
        let mut ahead: u64 = 0;
        for &d in &out {
            let dir = &self.dirs[d as usize];
            let t = Dur::serialization(data, dir.rate_bps());
            ahead += dir.queue.bytes();
            let start = self
                .now
                .max(dir.ready_at())
                .max(dir.busy_until().unwrap_or(Time::ZERO));
            let free =
                start + Dur::serialization(ahead.min(u32::MAX as u64) as u32, dir.rate_bps());
            clear_at = clear_at.max(Time(free.as_nanos().saturating_sub(base_rtt.as_nanos())));
            ahead += dir.pipe_bytes();
            base_rtt += dir.delay + t;
            segment_time = segment_time.max(t);
        }
        for &d in &back {
            let dir = &self.dirs[d as usize];
            base_rtt += dir.delay + Dur::serialization(ack, dir.rate_bps());
        }
        Some(PathTruth {
            base_rtt,
            segment_time,
            clear_at,
        })
    }
}

#[cfg(test)]
mod tests_support {
    use crate::remedy::Remedy;
    use crate::scenario::{self, PresetSet};
    use crate::world::summary::{FlowSummary, Summary};

    pub const EXAMPLES: [&str; 3] = [
        "dk-fig1-wlan-gprs",
        "dk-fig2-gprs-wlan",
        "thesis-wavelan-gsm",
    ];

    /// Runs `scenarios/examples/<name>.toml` with `sets`.
    pub fn run(name: &str, sets: &[String]) -> Summary {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let path = root.join(format!("scenarios/examples/{name}.toml"));
        let text = std::fs::read_to_string(&path).expect("the example is in the repository");
        let presets = PresetSet::builtin().expect("presets");
        let spec = scenario::load(&path.to_string_lossy(), &text, sets, &presets)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        crate::world::run(&spec, Vec::new()).expect("runs").summary
    }

    /// The example's flow with `sets` and `remedy`.
    pub fn flow(name: &str, sets: &[&str], remedy: Option<Remedy>) -> FlowSummary {
        let mut s: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        if let Some(r) = remedy {
            s.push(format!("flow.0.remedies=[\"{}\"]", r.name()));
        }
        run(name, &s).flows.remove(0)
    }

    pub fn time(f: &FlowSummary) -> f64 {
        f.transfer_time_s.expect("the flow completes")
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::*;
    use crate::remedy::Remedy;

    #[test]
    fn the_oracle_makes_no_needless_retransmission_and_no_sender_without_one_beats_it() {
        // Issue 19 item 3: "with no loss of its own making, as the bound every remedy is
        // measured against". On each example, as shipped, with a hard handover, with a
        // handover delay of 1 s and with an early handover: no spurious retransmission, no timeout at all, and no transfer
        // slower than the baseline's or than any remedy's that itself resends nothing
        // needlessly. (Senders that resend the old path's segments over the new one can
        // finish sooner when the receiver's window is the limit: Daniel & Kojo's Fig. 2,
        // `new-path` 6.455 s and `rtt-injection` 6.327 s against the oracle's 6.515 s, 6
        // needless resends each; docs/design/issue-19-oracle.md.)
        // And with the handover during the handshake (0.1 s: ns-2's modelled SYN is still on
        // GPRS in Fig. 2), where the oracle takes charge once established.
        let variants: [&[&str]; 4] = [
            &[],
            &["handover.0.kind=\"hard\""],
            &["handover.0.delay=\"1 s\""],
            &["handover.0.at=\"0.1 s\""],
        ];
        for name in EXAMPLES {
            for sets in variants {
                if name.starts_with("thesis") && sets.iter().any(|s| s.contains(".at=")) {
                    continue; // 1.1 MB over GSM from 0.1 s: longer than the example's stop
                }
                let oracle = flow(name, sets, Some(Remedy::Oracle));
                let what = format!("{name} {sets:?}");
                assert_eq!(oracle.tcp().spurious_retransmissions, 0, "{what}");
                assert_eq!(
                    (oracle.tcp().timeouts, oracle.tcp().spurious_timeouts),
                    (0, 0),
                    "{what}"
                );
                assert_eq!(oracle.oracle.as_ref().map(|o| o.oracle_handovers), Some(1));
                let t = time(&oracle);
                let baseline = flow(name, sets, None);
                assert!(
                    t <= time(&baseline),
                    "{what}: {t} vs baseline {}",
                    time(&baseline)
                );
                for r in Remedy::ALL {
                    let other = flow(name, sets, Some(r));
                    assert!(
                        t <= time(&other) || other.tcp().spurious_retransmissions > 0,
                        "{what}: {} beats the oracle without a needless resend: {} < {t}",
                        r.name(),
                        time(&other)
                    );
                }
            }
        }
    }

    #[test]
    fn without_a_handover_the_oracle_flow_is_the_baseline_flow() {
        // Digest §4.1: the same stack until the switch. With the handover after the end of
        // the transfer the two runs are the same, event for event.
        for name in EXAMPLES {
            let late = ["handover.0.at=\"250 s\"".to_string()];
            let plain = run(name, &late);
            let mut sets = late.to_vec();
            sets.push("flow.0.remedies=[\"oracle\"]".into());
            let oracle = run(name, &sets);
            assert_eq!(plain.run.events, oracle.run.events, "{name}");
            let mut o = serde_json::to_value(&oracle.flows[0]).expect("json");
            let p = serde_json::to_value(&plain.flows[0]).expect("json");
            let obj = o.as_object_mut().expect("an object");
            assert_eq!(obj.remove("oracle_handovers"), Some(0.into()), "{name}");
            obj.retain(|k, _| !k.starts_with("oracle_"));
            assert_eq!(o, p, "{name}");
        }
    }

    #[test]
    fn a_flow_without_the_oracle_runs_as_it_did_before_the_oracle() {
        // The oracle's hooks change nothing for any other flow: the shipped examples give
        // what they give without it (main at 5a201cb, `vho run`; its summaries and pcaps are
        // this branch's byte for byte but for the scenario hash): events, transfer time, data
        // packets, retransmissions (spurious), timeouts, fast retransmits, duplicate ACKs.
        let before = [
            ("dk-fig1-wlan-gprs", 488, 3.9907728, [157, 20, 13, 2, 0, 11]),
            ("dk-fig2-gprs-wlan", 720, 7.47960672, [227, 27, 7, 1, 3, 42]),
            (
                "thesis-wavelan-gsm",
                2692,
                210.57709249,
                [792, 17, 17, 6, 0, 17],
            ),
        ];
        for (name, events, t, counts) in before {
            let s = run(name, &[]);
            let f = &s.flows[0];
            assert_eq!(s.run.events, events, "{name}");
            assert_eq!(f.transfer_time_s, Some(t), "{name}");
            let got = [
                f.tcp().data_packets_sent,
                f.tcp().retransmissions,
                f.tcp().spurious_retransmissions,
                f.tcp().timeouts,
                f.tcp().fast_retransmits,
                f.tcp().duplicate_acks,
            ];
            assert_eq!(got, counts, "{name}");
            assert!(f.oracle.is_none() && f.dupthresh_raises.is_none());
        }
    }
}

#[cfg(test)]
mod adaptive_dupthresh {
    use super::tests_support::*;
    use crate::remedy::Remedy;

    #[test]
    fn it_fires_on_the_slow_to_fast_handover_only_and_its_spurious_resends_fall() {
        // Daniel & Kojo §2 / §3.2 Fig. 2: GPRS -> WLAN reorders; WLAN -> GPRS (Fig. 1) does
        // not. The notice makes the mobile send one more ACK, so the baseline to compare with
        // is the flow with the notification and no remedy acting on it.
        let plain = flow("dk-fig2-gprs-wlan", &["handover.0.notify=\"at\""], None);
        let f2 = flow("dk-fig2-gprs-wlan", &[], Some(Remedy::AdaptiveDupthresh));
        assert_eq!(f2.dupthresh_raises, Some(1));
        assert!(
            f2.tcp().fast_retransmits < plain.tcp().fast_retransmits,
            "{f2:?}"
        );
        assert!(
            f2.tcp().spurious_retransmissions < plain.tcp().spurious_retransmissions,
            "{f2:?}"
        );
        let f1 = flow("dk-fig1-wlan-gprs", &[], Some(Remedy::AdaptiveDupthresh));
        assert_eq!(f1.dupthresh_raises, Some(0));
        let none = flow(
            "dk-fig2-gprs-wlan",
            &["handover.0.at=\"250 s\""],
            Some(Remedy::AdaptiveDupthresh),
        );
        assert_eq!(none.dupthresh_raises, Some(0));
    }
}
