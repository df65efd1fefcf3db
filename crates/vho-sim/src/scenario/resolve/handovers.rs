//! `[[handover]]`: the instant and its window, the kind and what it does to the old queue,
//! the delay, the notification and the uplink's delay, checked with their lines; successive
//! handovers must leave the link the previous one moved to.

use super::*;

impl Ctx<'_> {
    pub(super) fn handovers(&self, file: &File, b: &Builder) -> R<Vec<HandoverSpec>> {
        let mut out = Vec::new();
        if !file.handover.is_empty() && b.mobiles.is_empty() {
            return Err(self.err(
                file.handover[0].span(),
                "handover",
                "a [mobile] host to hand over",
                None,
            ));
        }
        let mut order: Vec<(Dur, usize)> = Vec::new();
        for (i, h) in file.handover.iter().enumerate() {
            let ht = h.get_ref();
            let at = self.with(&ht.at, "handover.at", units::duration)?;
            order.push((at, i));
            let from = b.link(self, &ht.from, "handover.from")?;
            let to = b.link(self, &ht.to, "handover.to")?;
            // The mobile whose interface `from` is.
            let mobile = b
                .mobiles
                .iter()
                .position(|m| m.interfaces.contains(&from))
                .ok_or_else(|| {
                    self.err(
                        ht.from.span(),
                        "handover.from",
                        "an access link of a mobile host",
                        Some(format!("{:?}", ht.from.get_ref())),
                    )
                })?;
            if !b.mobiles[mobile].interfaces.contains(&to) {
                return Err(self.err(
                    ht.to.span(),
                    "handover.to",
                    "an access link of the mobile host `from` belongs to",
                    Some(format!("{:?}", ht.to.get_ref())),
                ));
            }
            if from == to {
                return Err(self.err(
                    ht.to.span(),
                    "handover.to",
                    "a link other than `from`",
                    Some(format!("{:?}", ht.to.get_ref())),
                ));
            }
            let kind_name = ht.kind.as_ref().map_or("soft", |k| k.get_ref().as_str());
            let kind = match kind_name {
                "soft" => HandoverKind::SoftDrainOld,
                "soft-reconfigure" => HandoverKind::SoftReconfigure { shrink: false },
                "soft-shrink" => HandoverKind::SoftReconfigure { shrink: true },
                "hard" => HandoverKind::Hard {
                    loss_fraction: ht.loss.as_ref().map_or(1.0, |l| *l.get_ref()),
                },
                other => {
                    let span = ht.kind.as_ref().map_or(h.span(), |k| k.span());
                    return Err(self.err(
                        span,
                        "handover.kind",
                        "one of soft, soft-reconfigure, soft-shrink, hard",
                        Some(format!("{other:?}")),
                    ));
                }
            };
            if let Some(l) = &ht.loss {
                if kind_name != "hard" {
                    return Err(self.err(
                        l.span(),
                        "handover.loss",
                        "no `loss` except with kind = \"hard\"",
                        Some(l.get_ref().to_string()),
                    ));
                }
                if !(0.0..=1.0).contains(l.get_ref()) {
                    return Err(self.err(
                        l.span(),
                        "handover.loss",
                        "a fraction from 0 to 1",
                        Some(l.get_ref().to_string()),
                    ));
                }
            }
            let window = match &ht.window {
                Some(w) => self.with(w, "handover.window", units::duration)?,
                None => Dur::ZERO,
            };
            let delay = match &ht.delay {
                Some(d) => self.with(d, "handover.delay", units::duration)?,
                None => Dur::ZERO,
            };
            let flush = match &ht.flush {
                None => Flush::Off,
                Some(v) => {
                    let flush = match v.get_ref().as_str() {
                        "off" => Flush::Off,
                        "move" => Flush::Move,
                        "discard" => Flush::Discard,
                        other => {
                            return Err(self.err(
                                v.span(),
                                "handover.flush",
                                "one of off, move, discard",
                                Some(format!("{other:?}")),
                            ))
                        }
                    };
                    if flush != Flush::Off && kind != HandoverKind::SoftDrainOld {
                        return Err(self.err(
                            v.span(),
                            "handover.flush",
                            "no `flush` except with kind = \"soft\" (the other kinds decide \
                             the old queue themselves)",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    }
                    flush
                }
            };
            let offset = match &ht.notify_offset {
                Some(o) => self.with(o, "handover.notify_offset", units::duration)?,
                None => Dur::from_millis(DEFAULT_NOTIFY_OFFSET_MS),
            };
            let notify = match ht.notify.as_ref().map(|n| (n, n.get_ref().as_str())) {
                None | Some((_, "none")) => None,
                Some((_, "at")) => Some(0),
                Some((_, "before")) => Some(-(offset.as_nanos() as i64)),
                Some((_, "after")) => Some(offset.as_nanos() as i64),
                Some((n, other)) => {
                    return Err(self.err(
                        n.span(),
                        "handover.notify",
                        "one of none, before, at, after",
                        Some(format!("{other:?}")),
                    ))
                }
            };
            // A notice generated at its instant and made this much later (Chen et al. do not
            // say how EHN reached its sender; issue 36).
            let notify = match &ht.notify_delay {
                None => notify,
                Some(v) => {
                    let d = self.with(v, "handover.notify_delay", units::duration)?;
                    let Some(n) = notify else {
                        return Err(self.err(
                            v.span(),
                            "handover.notify_delay",
                            "no `notify_delay` without a notification (notify = \"at\", \
                             \"before\" or \"after\")",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    };
                    Some(n + d.as_nanos() as i64)
                }
            };
            let uplink_delay = match &ht.uplink_delay {
                None => Dur::ZERO,
                Some(v) => {
                    let d = self.with(v, "handover.uplink_delay", units::duration)?;
                    if d > Dur::ZERO && kind != HandoverKind::SoftDrainOld {
                        return Err(self.err(
                            v.span(),
                            "handover.uplink_delay",
                            "no `uplink_delay` except with kind = \"soft\" (only a soft \
                             handover keeps the old link)",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    }
                    d
                }
            };
            let in_flight = match &ht.in_flight {
                None => InFlight::default(),
                Some(v) => {
                    let f = match v.get_ref().as_str() {
                        "lost" => InFlight::Lost,
                        "delivered" => InFlight::Delivered,
                        other => {
                            return Err(self.err(
                                v.span(),
                                "handover.in_flight",
                                "one of lost, delivered",
                                Some(format!("{other:?}")),
                            ))
                        }
                    };
                    // A soft handover keeps the old interface up: what it carries arrives.
                    if f == InFlight::Lost && !matches!(kind, HandoverKind::Hard { .. }) {
                        return Err(self.err(
                            v.span(),
                            "handover.in_flight",
                            "no `in_flight = \"lost\"` except with kind = \"hard\" (a soft \
                             handover's old interface stays up)",
                            Some(format!("{:?}", v.get_ref())),
                        ));
                    }
                    f
                }
            };
            out.push(HandoverSpec {
                mobile,
                from,
                to,
                at: Time(at.as_nanos()),
                window,
                kind,
                delay,
                flush,
                in_flight,
                notify,
                uplink_delay,
            });
        }
        // Each handover must leave the link the previous one moved to, whatever instants the
        // windows draw: a window must close before the next handover's `at`.
        order.sort();
        let mut active: Vec<Option<usize>> = b.mobiles.iter().map(|m| Some(m.initial)).collect();
        let mut window_ends: Vec<Option<Time>> = vec![None; b.mobiles.len()];
        for (_, i) in order {
            let h = &out[i];
            let (active, window_end) = (&mut active[h.mobile], &mut window_ends[h.mobile]);
            if let Some(end) = window_end.filter(|&e| h.at < e) {
                let s = &file.handover[i].get_ref().at;
                return Err(self.err(
                    s.span(),
                    "handover.at",
                    format!(
                        "a time at or after {} s, where the previous handover's window ends \
                         (windows may not overlap)",
                        end.as_secs_f64()
                    ),
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            *window_end = Some(h.at + h.window);
            if Some(h.from) != *active {
                let s = &file.handover[i].get_ref().from;
                let expected = active.map_or("-".to_string(), |l| {
                    format!("{:?} (the link in use then)", b.links[l].name)
                });
                return Err(self.err(
                    s.span(),
                    "handover.from",
                    expected,
                    Some(format!("{:?}", s.get_ref())),
                ));
            }
            *active = Some(h.to);
        }
        Ok(out)
    }
}
