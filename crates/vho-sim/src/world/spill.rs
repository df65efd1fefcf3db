//! A run whose series leave it as they grow (issue 40 item 14): every recorded series gets a
//! [`RowSink`] of the driver's and hands it its rows [`SPILL_ROWS`] at a time, so that what a
//! long run holds does not grow with its length. The rows, their order and the summary are
//! those of [`super::run`]; only where the rows wait differs.
//!
//! [`SPILL_ROWS`]: crate::record::series::SPILL_ROWS

use super::{PacketTap, RunOutput, SimError, World};
use crate::record::series::{RowSink, Rows, SeriesId};
use crate::spec::{NodeIdx, Spec};

/// Runs a scenario as [`super::run`] does, the series recorded handing their rows to the
/// sinks `open` gives (one call per recorded series, before the run starts). The series in
/// the output hold the last rows: [`Rows::end_spill`] hands them on and finishes each sink.
pub fn run_spilling(
    spec: &Spec,
    taps: Vec<(NodeIdx, Box<dyn PacketTap>)>,
    open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>,
) -> Result<RunOutput, SimError> {
    let mut w = World::new(spec)?;
    w.rec.taps = taps;
    w.spill_series(open);
    let ended = w.run_loop()?;
    Ok(w.finish(ended))
}

impl World {
    /// Gives every recorded series a sink.
    fn spill_series(&mut self, open: &mut dyn FnMut(SeriesId) -> Box<dyn RowSink>) {
        for (f, flow) in self.flows.iter_mut().enumerate() {
            for agent in &mut flow.agents {
                agent.spill_series(f, open);
            }
        }
        if let Some(s) = &mut self.rec.queues {
            s.spill_to(open(SeriesId::Queues));
        }
        if let Some(s) = &mut self.rec.drops {
            s.spill_to(open(SeriesId::Drops));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::series::SPILL_ROWS;
    use crate::scenario::{self, PresetSet};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    type Sinks = Arc<Mutex<BTreeMap<String, Vec<u8>>>>;

    struct Named(String, Sinks);

    impl RowSink for Named {
        fn rows(&mut self, bytes: &[u8]) {
            let mut g = self.1.lock().expect("invariant: not poisoned");
            g.entry(self.0.clone())
                .or_default()
                .extend_from_slice(bytes);
        }
    }

    fn encoded<S: Rows>(s: &S) -> Vec<u8> {
        let mut out = vec![0; s.held() * S::ROW_BYTES];
        s.encode(&mut out);
        out
    }

    #[test]
    fn without_a_queue_series_no_direction_keeps_its_queue_changes() {
        // Issue 40 item 14: with `record.queues = false` (Chen's runs) each direction still
        // noted its queue at every serialisation start and nothing drained the notes: 24
        // bytes a packet for the whole run (628 MB at 100,000 s of tfrc-lossy.toml).
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/examples/tfrc-lossy.toml"
        ))
        .expect("the example");
        let presets = PresetSet::builtin().expect("presets");
        let sets = [
            "run.stop=\"20 s\"".to_string(),
            "record.queues=false".to_string(),
        ];
        let spec = scenario::load("tfrc-lossy.toml", &text, &sets, &presets).expect("valid");
        let mut w = World::new(&spec).expect("builds");
        w.run_loop().expect("runs");
        assert!(w.events > 10_000);
        let kept: usize = w
            .dirs
            .iter()
            .map(|d| d.starts.as_ref().map_or(0, Vec::len))
            .sum();
        assert_eq!(kept, 0);
    }

    #[test]
    fn a_spilled_run_hands_out_the_rows_a_held_run_keeps() {
        // Issue 40 item 14: the rows leave the run as it goes, the same rows in the same order.
        let text = r#"
[run]
name = "spill"
seed = 3
stop = "60 s"
[[node]]
name = "src"
kind = "host"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "dst"
kind = "host"
[[link]]
name = "access"
between = ["src", "r"]
rate = "100 Mb/s"
delay = "10 ms"
queue = "100 packets"
[[link]]
name = "bottleneck"
between = ["r", "dst"]
rate = "2 Mb/s"
delay = "40 ms"
queue = "20 packets"
forward = { loss = 0.01, loss_at = "entry" }
[[flow]]
name = "tcp"
from = "src"
to = "dst"
size = "2 MB"
[[flow]]
name = "tfrc"
from = "src"
to = "dst"
kind = "tfrc"
remedies = ["ihn", "fra"]
[record]
series = true
"#;
        let presets = PresetSet::builtin().expect("presets");
        let spec = scenario::load("spill.toml", text, &[], &presets).expect("valid scenario");
        let held = super::super::run(&spec, Vec::new()).expect("runs");
        let sinks = Sinks::default();
        let mut open =
            |id: SeriesId| -> Box<dyn RowSink> { Box::new(Named(id.name(), sinks.clone())) };
        let mut spilled = run_spilling(&spec, Vec::new(), &mut open).expect("runs");
        assert_eq!(
            serde_json::to_string(&held.summary).expect("json"),
            serde_json::to_string(&spilled.summary).expect("json")
        );
        let mut want = BTreeMap::new();
        let tcp = held.series[0].tcp.as_ref().expect("tcp series");
        want.insert("tcp-0".to_string(), encoded(tcp));
        let tfrc = held.series[1].tfrc.as_ref().expect("tfrc series");
        want.insert("tfrc-1".to_string(), encoded(tfrc));
        let probe = held.series[1].probe.as_ref().expect("probe series");
        want.insert("probe-1".to_string(), encoded(probe));
        let queues = held.queue_series.as_ref().expect("queue series");
        assert!(
            queues.held() > 2 * SPILL_ROWS,
            "{} queue rows: too few to spill",
            queues.held()
        );
        want.insert("queues".to_string(), encoded(queues));
        want.insert(
            "drops".to_string(),
            encoded(held.drop_series.as_ref().expect("drops")),
        );
        for s in spilled.series.iter_mut().filter_map(|s| s.tcp.as_mut()) {
            s.end_spill().expect("a sink").expect("no failure");
        }
        for s in spilled.series.iter_mut().filter_map(|s| s.tfrc.as_mut()) {
            s.end_spill().expect("a sink").expect("no failure");
        }
        for s in spilled.series.iter_mut().filter_map(|s| s.probe.as_mut()) {
            s.end_spill().expect("a sink").expect("no failure");
        }
        let q = spilled.queue_series.as_mut().expect("queue series");
        assert_eq!(q.end_spill(), Some(Ok(queues.held() as u64)));
        let d = spilled.drop_series.as_mut().expect("drops");
        d.end_spill().expect("a sink").expect("no failure");
        let got = sinks.lock().expect("invariant: not poisoned").clone();
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (k, v) in &want {
            assert!(!v.is_empty(), "{k}: no rows");
            assert!(
                got[k] == *v,
                "{k}: {} bytes spilled, {} held",
                got[k].len(),
                v.len()
            );
        }
    }
}
