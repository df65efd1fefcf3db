//! `red`: Random Early Detection on the wireless link queues, "at both endpoints of the
//! wireless link" (thesis §7.1.5: "RED drops packets before the queues are filled up";
//! §8.1, §8.2; its ref. [30] is RFC 2309). Both directions of every access link of the
//! mobile host the flow runs to or from get ns-2.35's RED (`link::red`) with the automatic
//! parameters, unless the scenario already gave that direction RED with its own.

use crate::spec::{QueueModel, Spec};

pub const RED: &str = "RED (ns-2.35's Queue/RED, automatic parameters) on both directions of \
                       the mobile's access links, \"at both endpoints of the wireless link\" \
                       (thesis §7.1.5, §8.2; RFC 2309)";

pub fn apply(spec: &mut Spec, flow: usize) {
    let f = &spec.flows[flow];
    let ends = [f.src, f.dst];
    for m in &spec.mobiles {
        if !ends.contains(&m.node) {
            continue;
        }
        for &l in &m.interfaces {
            let link = &mut spec.links[l];
            link.ab.queue_model = QueueModel::Red;
            link.ba.queue_model = QueueModel::Red;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{load, presets::PresetSet};
    use crate::spec::{QueueModel, Spec};

    const THESIS: &str = include_str!("../../../../scenarios/examples/thesis-wavelan-gsm.toml");

    /// A mobile on WaveLAN beside a flow between two fixed hosts.
    const FIXED_FLOW: &str = r#"
[[node]]
name = "ch"
kind = "host"
[[node]]
name = "ha"
kind = "router"
[[node]]
name = "fixed"
kind = "host"
[[node]]
name = "mh"
kind = "mobile"
[[link]]
name = "wired"
between = ["ch", "ha"]
preset = "ethernet-10m"
[[link]]
name = "lan"
between = ["ha", "fixed"]
preset = "ethernet-10m"
[[link]]
name = "wavelan"
between = ["ha", "mh"]
preset = "wavelan"
[mobile]
node = "mh"
interfaces = ["wavelan"]
[[flow]]
from = "ch"
to = "fixed"
size = "100 KB"
remedies = ["red"]
"#;

    fn thesis(sets: &[&str]) -> Spec {
        let presets = PresetSet::builtin().expect("presets");
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        load("thesis.toml", THESIS, &sets, &presets).expect("the thesis scenario loads")
    }

    fn model(s: &Spec, link: &str) -> [QueueModel; 2] {
        let l = s.links.iter().find(|l| l.name == link).expect("link");
        [l.ab.queue_model, l.ba.queue_model]
    }

    #[test]
    fn red_goes_on_both_directions_of_the_mobiles_access_links_only() {
        // Thesis §7.1.5: RED "at both endpoints of the wireless link"; the wired link keeps
        // its drop-tail queue.
        let s = thesis(&["flow.0.remedies=[\"red\"]", "record.series=false"]);
        assert_eq!(model(&s, "wavelan"), [QueueModel::Red; 2]);
        assert_eq!(model(&s, "gsm"), [QueueModel::Red; 2]);
        assert_eq!(model(&s, "wired"), [QueueModel::DropTail; 2]);
        // A flow between two fixed hosts has no mobile access link: nothing changes.
        let presets = PresetSet::builtin().expect("presets");
        let s = load("fixed.toml", FIXED_FLOW, &[], &presets).expect("loads");
        for l in ["wavelan", "lan", "wired"] {
            assert_eq!(model(&s, l), [QueueModel::DropTail; 2], "{l}");
        }
    }

    #[test]
    fn red_drops_early_in_the_thesis_run_and_drop_tail_never_does() {
        // The thesis's WaveLAN -> GSM download (16 KB window): with RED the queues see early
        // drops (none without); the cause is early_drop, separate from tail drops.
        let run = |sets: &[&str]| {
            let s = thesis(sets);
            crate::world::run(&s, Vec::new()).expect("runs").summary
        };
        let early = |sum: &crate::world::summary::Summary| -> u64 {
            sum.links.iter().filter_map(|l| l.dropped_early_drop).sum()
        };
        let plain = run(&["record.series=false", "record.pcap=[]"]);
        assert!(plain.links.iter().all(|l| l.dropped_early_drop.is_none()));
        let red = run(&[
            "flow.0.remedies=[\"red\"]",
            "record.series=false",
            "record.pcap=[]",
        ]);
        assert!(early(&red) > 0, "{:?}", red.links);
        assert!(red.flows[0].completed && red.run.conservation_ok);
        let rows: Vec<_> = red.flows[0].drops.iter().map(|d| d.cause).collect();
        assert!(rows.iter().all(|&c| c == "early_drop"), "{rows:?}");
    }
}
