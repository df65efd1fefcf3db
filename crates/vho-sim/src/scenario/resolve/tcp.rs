//! `[[flow]] tcp`: a profile and the keys that override it, each checked.

use super::*;

impl Ctx<'_> {
    pub(super) fn tcp(&self, v: Option<&toml::Spanned<toml::Value>>) -> R<TcpConfig> {
        let Some(v) = v else {
            return Ok(profile(DEFAULT_PROFILE).expect("invariant: the default profile exists"));
        };
        let span = v.span();
        let bad_profile = |name: &str| {
            self.err(
                span.clone(),
                "flow.tcp",
                format!("a profile: one of {}", PROFILES.join(", ")),
                Some(format!("{name:?}")),
            )
        };
        match v.get_ref() {
            toml::Value::String(name) => profile(name).ok_or_else(|| bad_profile(name)),
            toml::Value::Table(t) => {
                let name = match t.get("profile") {
                    Some(toml::Value::String(s)) => s.as_str(),
                    Some(other) => {
                        return Err(self.err(
                            span,
                            "flow.tcp.profile",
                            "a profile name",
                            Some(other.to_string()),
                        ))
                    }
                    None => DEFAULT_PROFILE,
                };
                let mut c = profile(name).ok_or_else(|| bad_profile(name))?;
                for (k, val) in t {
                    if k != "profile" {
                        self.tcp_field(&mut c, k, val).map_err(|exp| {
                            self.err(
                                span.clone(),
                                &format!("flow.tcp.{k}"),
                                exp,
                                Some(val.to_string()),
                            )
                        })?;
                    }
                }
                if c.rto.max < c.rto.min {
                    return Err(self.err(
                        span,
                        "flow.tcp.max_rto",
                        format!("at least min_rto ({})", c.rto.min),
                        Some(c.rto.max.to_string()),
                    ));
                }
                Ok(c)
            }
            other => Err(self.err(
                span,
                "flow.tcp",
                "a profile name or a table",
                Some(other.to_string()),
            )),
        }
    }

    pub(super) fn tcp_field(
        &self,
        c: &mut TcpConfig,
        key: &str,
        v: &toml::Value,
    ) -> Result<(), String> {
        let time = || {
            v.as_str()
                .ok_or("a time such as \"200 ms\"".to_string())
                .and_then(units::duration)
        };
        let int = |lo: i64, hi: i64| {
            v.as_integer()
                .filter(|x| (lo..=hi).contains(x))
                .map(|x| x as u32)
                .ok_or(format!("an integer from {lo} to {hi}"))
        };
        // A timer that short cannot let a run advance (an RTO of 0 fires at the instant it is
        // set, for ever). 1 ms: Linux's smallest `rto_min` route metric and its jiffy at HZ
        // 1000 (RFC 6298 (2.4) itself asks for 1 s).
        let rto = || {
            time().and_then(|t| {
                if t < MIN_RTO_SETTING {
                    Err("a time of at least 1 ms".to_string())
                } else {
                    Ok(t)
                }
            })
        };
        let flag = || v.as_bool().ok_or_else(|| "true or false".to_string());
        let size = || {
            v.as_str()
                .ok_or("a size such as \"64 KiB\"".to_string())
                .and_then(units::size_bytes)
        };
        match key {
            "mss" => {
                let mss = int(64, 65_495)?;
                // ns-2 counts window_ and ssthresh_ in packets (ns-default.tcl:934, tcp.cc:473):
                // a different packetSize_ scales them. (Keys apply in name order, so an explicit
                // send_window, which sorts after mss, still wins.)
                if c.profile == "ns2" {
                    c.send_window_cap = c.send_window_cap / c.mss * mss;
                    c.initial_ssthresh = c.initial_ssthresh / c.mss * mss;
                }
                c.mss = mss;
            }
            "initial_window" => c.initial_window_segments = int(1, 1000)?,
            "dupthresh" => c.dupthresh = int(1, 1000)?,
            "limited_transmit" => c.limited_transmit = flag()?,
            "sack_is_lost_trigger" => c.sack_is_lost_trigger = flag()?,
            "dupacks_after_timeout_new_ack" => c.dupacks_after_timeout_new_ack = flag()?,
            "sack_forget_on_new_ack" => c.sack_forget_on_new_ack = flag()?,
            "receive_window" => c.receive_window = size()?.min(1 << 30) as u32,
            "send_window" => {
                let w = match v.as_str().and_then(units::packets) {
                    Some(p) => p? as u64 * c.mss as u64,
                    None => size()?,
                };
                c.send_window_cap = w.min(u32::MAX as u64) as u32;
                // ns-2 sets ssthresh_ = window_ at reset (tcp.cc:473).
                if c.profile == "ns2" {
                    c.initial_ssthresh = c.send_window_cap;
                }
            }
            "min_rto" => c.rto.min = rto()?,
            "initial_rto" => c.rto.initial = rto()?,
            "max_rto" => c.rto.max = rto()?,
            "granularity" => c.rto.granularity = time()?,
            "sack" => c.sack = flag()?,
            "dsack" => c.dsack = flag()?,
            "timestamps" => c.timestamps = flag()?,
            "paws" => c.paws = flag()?,
            "pacing" => c.pacing = flag()?,
            "handshake" => c.handshake = flag()?,
            "one_way_syn" => c.one_way_syn = flag()?,
            "fin" => c.fin = flag()?,
            "delayed_ack" => c.delack.enabled = flag()?,
            "delayed_ack_timeout" => c.delack.timeout = time()?,
            "sack_recovery" => {
                c.sack_recovery = match v.as_str() {
                    Some("rfc6675") => SackRecovery::Rfc6675,
                    Some("ns2-sack1") => SackRecovery::Ns2Sack1,
                    _ => return Err("one of rfc6675, ns2-sack1".into()),
                }
            }
            "loss_detection" => {
                c.loss_detection = match v.as_str() {
                    Some("rfc6675") => LossDetection::Rfc6675,
                    Some("rack") => LossDetection::Rack,
                    _ => return Err("one of rfc6675, rack".into()),
                }
            }
            "timer_at_fast_retransmit" => {
                c.timer_at_fast_retransmit = match v.as_str() {
                    Some("keep") => FastRetransmitTimer::Keep,
                    Some("restart") => FastRetransmitTimer::Restart,
                    Some("ns2-reset") => FastRetransmitTimer::Ns2Reset,
                    _ => return Err("one of keep, restart, ns2-reset".into()),
                }
            }
            "timeout_ssthresh" => {
                c.timeout_ssthresh = match v.as_str() {
                    Some("rfc5681") => TimeoutSsthresh::Rfc5681,
                    Some("linux") => TimeoutSsthresh::Linux,
                    Some("always") => TimeoutSsthresh::Always,
                    _ => return Err("one of rfc5681, linux, always".into()),
                }
            }
            "cwnd_validation" => {
                c.cwnd_validation = match v.as_str() {
                    Some("off") => CwndValidation::Off,
                    Some("cwnd-limited") => CwndValidation::CwndLimited,
                    _ => return Err("one of off, cwnd-limited".into()),
                }
            }
            "rto_keeps_sack" => c.rto_keeps_sack = flag()?,
            "rto_reset" => c.rto_reset = flag()?,
            "new_path" => c.new_path = flag()?,
            "fast_rto_decrease" => c.fast_rto_decrease = flag()?,
            "rtt_injection" => c.rtt_injection = flag()?,
            "adaptive_dupthresh" => c.adaptive_dupthresh = flag()?,
            "oracle" => c.oracle = flag()?,
            "spurious_detection" => {
                let expected = || "a list of frto, eifel, dsack (empty: none)".to_string();
                let mut d = SpuriousDetection::default();
                for name in v.as_array().ok_or_else(expected)? {
                    match name.as_str() {
                        Some("frto") => d.frto = true,
                        Some("eifel") => d.eifel = true,
                        Some("dsack") => d.dsack = true,
                        _ => return Err(expected()),
                    }
                }
                c.spurious_detection = d;
            }
            "spurious_response" => {
                c.spurious_response = match v.as_str() {
                    Some("conservative") => SpuriousResponse::Conservative,
                    Some("eifel") => SpuriousResponse::Eifel,
                    Some("undo") => SpuriousResponse::Undo,
                    Some("no-restore") => SpuriousResponse::NoRestore,
                    _ => return Err("one of conservative, eifel, undo, no-restore".into()),
                }
            }
            "rescue_retransmission" => c.rescue_retransmission = flag()?,
            "retransmission_marks" => c.retransmission_marks = flag()?,
            "prr" => c.prr = flag()?,
            "tlp" => c.tlp = flag()?,
            "frto_variant" => {
                c.frto_variant = match v.as_str() {
                    Some("rfc5682") => FrtoVariant::Rfc5682,
                    Some("linux") => FrtoVariant::Linux,
                    _ => return Err("one of rfc5682, linux".into()),
                }
            }
            "undo" => {
                c.undo = match v.as_str() {
                    Some("detectors") => UndoRules::Detectors,
                    Some("linux") => UndoRules::Linux,
                    _ => return Err("one of detectors, linux".into()),
                }
            }
            "cwnd_counting" => {
                c.cwnd_counting = match v.as_str() {
                    Some("rfc5681") => CwndCounting::Rfc5681,
                    Some("linux") => CwndCounting::Linux,
                    _ => return Err("one of rfc5681, linux".into()),
                }
            }
            "handshake_rtt_sample" => c.handshake_rtt_sample = flag()?,
            "timeout_holds_new_data" => c.timeout_holds_new_data = flag()?,
            "rtt_sampling" => {
                c.rtt_sampling = match v.as_str() {
                    Some("one-per-rtt") => RttSampling::OnePerRtt,
                    Some("every-freed-segment") => RttSampling::EveryFreedSegment,
                    _ => return Err("one of one-per-rtt, every-freed-segment".into()),
                }
            }
            "cc" => {
                c.cc = match v.as_str() {
                    Some("reno") => CcAlgorithm::Reno,
                    Some("newreno") => CcAlgorithm::NewReno,
                    Some("ns2-sack1") => CcAlgorithm::Ns2Sack1,
                    Some("cubic") => CcAlgorithm::Cubic,
                    _ => return Err("one of reno, newreno, ns2-sack1, cubic".into()),
                }
            }
            _ => {
                return Err("a known TCP setting: profile, mss, initial_window, dupthresh, limited_transmit, sack_is_lost_trigger, dupacks_after_timeout_new_ack, sack_forget_on_new_ack, sack_recovery, loss_detection, tlp, dsack, timer_at_fast_retransmit, timeout_ssthresh, rto_keeps_sack, spurious_detection, spurious_response, rto_reset, new_path, fast_rto_decrease, rtt_injection, adaptive_dupthresh, oracle, rescue_retransmission, retransmission_marks, prr, cwnd_counting, frto_variant, undo, cwnd_validation, handshake_rtt_sample, rtt_sampling, timeout_holds_new_data, receive_window, send_window, min_rto, initial_rto, max_rto, granularity, sack, timestamps, paws, pacing, handshake, one_way_syn, fin, delayed_ack, delayed_ack_timeout, cc".into())
            }
        }
        Ok(())
    }
}
