//! When the run's work is done: every flow delivered everything and its source saw it
//! acknowledged (`EndedBy::Completed`). The loop asks after every event; this keeps the
//! answer cheap.

use super::Flow;

pub(super) struct Completion {
    /// Set once some flow has completed both ways: from then on the loop checks them all.
    maybe: bool,
    /// The flows before this index are done: a flow once done stays done (`completed_at` is
    /// never cleared, a source's `is_complete` never turns false: a TCP sender's state never
    /// falls below Established nor `snd_una` back), so each check starts here and not at the
    /// first flow, which cost every event after the first completion a walk over the
    /// finished flows (issue 38: the 1,000-flow workload).
    prefix: usize,
}

impl Completion {
    /// A run without flows is done from the start.
    pub(super) fn new(flows: usize) -> Self {
        Completion {
            maybe: flows == 0,
            prefix: 0,
        }
    }

    /// A flow may have completed (`done`): from then on the loop checks.
    #[inline(always)]
    pub(super) fn note(&mut self, done: bool) {
        self.maybe |= done;
    }

    /// Whether every flow is done (only an endpoint receiving can complete a flow, and
    /// `note` is told then).
    #[inline(always)]
    pub(super) fn all_done(&mut self, flows: &[Flow]) -> bool {
        self.maybe && self.walk(flows)
    }

    fn walk(&mut self, flows: &[Flow]) -> bool {
        while let Some(f) = flows.get(self.prefix) {
            if !(f.completed_at.is_some() && f.agents[0].is_complete()) {
                return false;
            }
            self.prefix += 1;
        }
        true
    }
}
