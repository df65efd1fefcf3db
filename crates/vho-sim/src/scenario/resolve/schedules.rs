//! `[[schedule]]`: a link's rate, delay, loss or state changing in place at `at`, or ramping
//! linearly until `until` (`link::change`, `world::schedule`), checked with their lines.

use super::*;
use crate::link::change::LinkState;
use crate::link::trace::{Opportunities, OpportunitiesBuilder};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The interval of a rate or delay ramp's steps when `step` is not given. vho's choice (no
/// source gives one): 200 steps over Naoe et al.'s 20 s scenario (Fig. 5), 10 events a
/// second per direction. A loss ramp is exact per packet and has no steps.
pub const DEFAULT_RAMP_STEP_MS: u64 = 100;

/// The shortest `step`: 1 ms. A step is an event per direction that re-times the link; below
/// a millisecond (the resolution of a Mahimahi trace, far under any RTT or link-layer timer)
/// a ramp is no smoother for TCP, it only multiplies events (`step = "1 ns"` was a billion a
/// simulated second).
pub const MIN_RAMP_STEP_MS: u64 = 1;

/// The largest `trace_file` read: 64 MiB. mm-link's traces are a line per 1504-byte
/// opportunity, a few bytes each: 64 MiB holds over 10 million opportunities, 15 GB
/// delivered (a minute at 2 Gb/s). The bound keeps a file that never ends, or a huge one,
/// from filling memory; the trace is parsed as it is read and kept compacted
/// (`link::trace::Opportunities`), never as text.
pub const MAX_TRACE_FILE_BYTES: u64 = 64 << 20;

impl Ctx<'_> {
    pub(super) fn schedules(&self, file: &File, b: &Builder) -> R<Vec<ScheduleSpec>> {
        let mut out = Vec::new();
        for entry in &file.schedule {
            let st = entry.get_ref();
            let link = b.link(self, &st.link, "schedule.link")?;
            let (ab, ba) = self.schedule_dirs(st, &b.nodes, &b.links[link])?;
            let at = self.with(&st.at, "schedule.at", units::duration)?;
            let until = match &st.until {
                None => None,
                Some(u) => {
                    let until = self.with(u, "schedule.until", units::duration)?;
                    if until <= at {
                        return Err(self.err(
                            u.span(),
                            "schedule.until",
                            format!("a time after `at` ({} s)", at.as_secs_f64()),
                            Some(format!("{:?}", u.get_ref())),
                        ));
                    }
                    Some(Time(until.as_nanos()))
                }
            };
            let ramps = until.is_some();
            let rate_bps = st
                .rate
                .as_ref()
                .map(|v| self.level(v, "schedule.rate", ramps, |x| self.text(x, units::rate_bps)))
                .transpose()?;
            let delay = st
                .delay
                .as_ref()
                .map(|v| {
                    self.level(v, "schedule.delay", ramps, |x| {
                        self.text(x, units::duration)
                    })
                })
                .transpose()?;
            let loss = st
                .loss
                .as_ref()
                .map(|v| self.level(v, "schedule.loss", ramps, probability))
                .transpose()?;
            let bler = st
                .bler
                .as_ref()
                .map(|v| self.level(v, "schedule.bler", ramps, probability))
                .transpose()?;
            let ber = st
                .ber
                .as_ref()
                .map(|v| self.level(v, "schedule.ber", ramps, bit_error_rate))
                .transpose()?;
            let state = match &st.state {
                None => None,
                Some(s) => Some(LinkState::from_name(s.get_ref()).ok_or_else(|| {
                    let names: Vec<&str> = LinkState::ALL.iter().map(|l| l.name()).collect();
                    self.err(
                        s.span(),
                        "schedule.state",
                        format!("one of {}", names.join(", ")),
                        Some(format!("{:?}", s.get_ref())),
                    )
                })?),
            };
            let trace_at = match (&st.trace, &st.trace_file) {
                (Some(t), _) => Some((t.span(), "schedule.trace", format!("{:?}", t.get_ref()))),
                (None, Some(f)) => Some((
                    f.span(),
                    "schedule.trace_file",
                    format!("{:?}", f.get_ref()),
                )),
                (None, None) => None,
            };
            if let Some((span, field, found)) = trace_at {
                if ramps || st.rate.is_some() {
                    return Err(self.err(
                        span,
                        field,
                        "no `until` or `rate` beside a trace (it replaces the rate from `at` on)",
                        Some(found),
                    ));
                }
            }
            if let (Some(h), None) = (&st.trace_sha256, &st.trace_file) {
                return Err(self.err(
                    h.span(),
                    "schedule.trace_sha256",
                    "a trace_file beside it (the digest it is checked against)",
                    Some(format!("{:?}", h.get_ref())),
                ));
            }
            let trace = match (&st.trace, &st.trace_file) {
                (None, None) => None,
                (Some(t), None) => Some(crate::spec::TraceSpec {
                    opportunities: self.delivery_trace(t)?,
                    source: None,
                }),
                (None, Some(f)) => {
                    let (ops, src) = self.delivery_trace_file(f, st.trace_sha256.as_ref())?;
                    Some(crate::spec::TraceSpec {
                        opportunities: ops,
                        source: Some(src),
                    })
                }
                (Some(_), Some(f)) => {
                    return Err(self.err(
                        f.span(),
                        "schedule.trace_file",
                        "either trace or trace_file, not both",
                        Some(format!("{:?}", f.get_ref())),
                    ))
                }
            };
            if rate_bps.is_none()
                && delay.is_none()
                && loss.is_none()
                && state.is_none()
                && trace.is_none()
                && bler.is_none()
                && ber.is_none()
            {
                return Err(self.err(
                    entry.span(),
                    "schedule",
                    "at least one of rate, delay, loss, state, trace, trace_file, bler, ber",
                    None,
                ));
            }
            let stepped = matches!(rate_bps, Some(Level::Ramp(..)))
                || matches!(delay, Some(Level::Ramp(..)))
                || matches!(bler, Some(Level::Ramp(..)))
                || matches!(ber, Some(Level::Ramp(..)));
            let step = match &st.step {
                None => Dur::from_millis(DEFAULT_RAMP_STEP_MS),
                Some(s) if !stepped => {
                    return Err(self.err(
                        s.span(),
                        "schedule.step",
                        "no `step` except with a rate, delay, bler or ber ramp",
                        Some(format!("{:?}", s.get_ref())),
                    ))
                }
                Some(s) => {
                    let d = self.with(s, "schedule.step", units::duration)?;
                    if d < Dur::from_millis(MIN_RAMP_STEP_MS) {
                        return Err(self.err(
                            s.span(),
                            "schedule.step",
                            format!(
                                "at least {MIN_RAMP_STEP_MS} ms (MIN_RAMP_STEP_MS: each step is \
                                 an event per direction; finer than a millisecond a ramp only \
                                 multiplies events)"
                            ),
                            Some(format!("{:?}", s.get_ref())),
                        ));
                    }
                    d
                }
            };
            self.schedule_layer(
                st,
                &b.links[link],
                (ab, ba),
                (&rate_bps, &delay, &trace, &bler, &ber),
            )?;
            out.push(ScheduleSpec {
                link,
                ab,
                ba,
                at: Time(at.as_nanos()),
                until,
                step,
                rate_bps,
                delay,
                loss,
                state,
                trace,
                bler,
                ber,
            });
        }
        Ok(out)
    }

    /// The directions named: `both` (the default), `forward` / `reverse` (from the link's
    /// first node / second), or `down` / `up` (towards / from a mobile host at one end).
    fn schedule_dirs(&self, st: &ScheduleT, nodes: &[NodeSpec], l: &LinkSpec) -> R<(bool, bool)> {
        let Some(d) = &st.direction else {
            return Ok((true, true));
        };
        let mobile = MobileEnd::of(nodes, l.a, l.b);
        let towards_b = match (d.get_ref().as_str(), mobile) {
            ("both", _) => return Ok((true, true)),
            ("forward", _) => true,
            ("reverse", _) => false,
            ("down", MobileEnd::B) | ("up", MobileEnd::A) => true,
            ("down", MobileEnd::A) | ("up", MobileEnd::B) => false,
            ("down" | "up", _) => {
                return Err(self.err(
                    d.span(),
                    "schedule.direction",
                    format!(
                        "both, forward or reverse (link {:?} has no mobile host at exactly one \
                         end, so no down and up)",
                        l.name
                    ),
                    Some(format!("{:?}", d.get_ref())),
                ))
            }
            (other, _) => {
                return Err(self.err(
                    d.span(),
                    "schedule.direction",
                    "one of both, down, up, forward, reverse",
                    Some(format!("{other:?}")),
                ))
            }
        };
        Ok((towards_b, !towards_b))
    }

    /// A Mahimahi delivery trace: offsets in ms as mm-link takes them (`link::trace`),
    /// instead of a rate, from `at` on.
    fn delivery_trace(&self, t: &toml::Spanned<Vec<i64>>) -> R<Opportunities> {
        let bad = |expected: &str| {
            self.err(
                t.span(),
                "schedule.trace",
                expected,
                Some(format!("{:?}", t.get_ref())),
            )
        };
        if t.get_ref().iter().any(|&m| m < 0) {
            return Err(bad("millisecond offsets from 0 up"));
        }
        let ms: Vec<u64> = t.get_ref().iter().map(|&m| m as u64).collect();
        Opportunities::new(&ms).map_err(|e| bad(&e))
    }

    /// A Mahimahi delivery trace read from a file, as mm-link reads one (one millisecond
    /// offset per line; `link_queue.cc`'s constructor): the path relative to the scenario
    /// file's folder (or to the working folder for a scenario given as text). An error in
    /// the trace names the trace file and its line. At most [`MAX_TRACE_FILE_BYTES`], read
    /// a line at a time. With its absolute path and SHA-256 (`spec::TraceSource`), checked
    /// against `trace_sha256` if given (a resolved scenario's: the same trace, or an error).
    fn delivery_trace_file(
        &self,
        f: &S,
        sha256: Option<&S>,
    ) -> R<(Opportunities, crate::spec::TraceSource)> {
        let path = trace_path(self.file, f.get_ref());
        let unreadable = |what: String| {
            self.err(
                f.span(),
                "schedule.trace_file",
                what,
                Some(format!("{:?}", f.get_ref())),
            )
        };
        let file = open_regular(&path).map_err(unreadable)?;
        let too_large = |size: String| {
            self.err(
                f.span(),
                "schedule.trace_file",
                format!(
                    "a trace file of at most {MAX_TRACE_FILE_BYTES} bytes (MAX_TRACE_FILE_BYTES, \
                     64 MiB: over 10 million opportunities)"
                ),
                Some(format!("{} of {size}", path.display())),
            )
        };
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        if size > MAX_TRACE_FILE_BYTES {
            return Err(too_large(format!("{size} bytes")));
        }
        // Bounded even if the file grows while it is read.
        let reader = std::io::BufReader::with_capacity(
            1 << 16,
            std::io::Read::take(file, MAX_TRACE_FILE_BYTES + 1),
        );
        let (ops, digest) = parse_mahimahi(reader).map_err(|e| match e {
            TraceError::Read(e) => {
                unreadable(format!("a readable trace file ({}: {e})", path.display()))
            }
            TraceError::TooLarge => too_large(format!("more than {MAX_TRACE_FILE_BYTES} bytes")),
            TraceError::At(line, expected, found) => ScenarioError {
                file: path.display().to_string(),
                line,
                field: "schedule.trace_file".into(),
                expected,
                found,
            },
        })?;
        if let Some(h) = sha256 {
            if !h.get_ref().eq_ignore_ascii_case(&digest) {
                return Err(self.err(
                    h.span(),
                    "schedule.trace_sha256",
                    format!(
                        "the SHA-256 of {} (the trace as the scenario was resolved; the file \
                         changed since)",
                        path.display()
                    ),
                    Some(format!("{:?}, the file's is {digest:?}", h.get_ref())),
                ));
            }
        }
        let absolute = std::path::absolute(&path).unwrap_or(path);
        let source = crate::spec::TraceSource {
            path: absolute.to_string_lossy().into_owned(),
            sha256: digest,
        };
        Ok((ops, source))
    }

    /// A scheduled value: one, or with `until` a pair `[from, to]`.
    fn level<T>(
        &self,
        v: &toml::Spanned<toml::Value>,
        field: &str,
        ramps: bool,
        one: impl Fn(&toml::Value) -> Result<T, String>,
    ) -> R<Level<T>> {
        let bad =
            |expected: String| self.err(v.span(), field, expected, Some(v.get_ref().to_string()));
        match (v.get_ref(), ramps) {
            (toml::Value::Array(pair), true) if pair.len() == 2 => {
                let from = one(&pair[0]).map_err(&bad)?;
                let to = one(&pair[1]).map_err(&bad)?;
                Ok(Level::Ramp(from, to))
            }
            (_, true) => Err(bad("a pair [from, to] with `until` (a linear ramp)".into())),
            (toml::Value::Array(_), false) => Err(bad(
                "a single value (a pair [from, to] ramps, and needs `until`)".into(),
            )),
            (x, false) => one(x).map(Level::To).map_err(bad),
        }
    }

    fn text<T>(&self, v: &toml::Value, f: impl Fn(&str) -> Result<T, String>) -> Result<T, String> {
        match v {
            toml::Value::String(s) => f(s),
            _ => f(""),
        }
    }
}

/// A loss probability per packet, from 0 to 1.
fn probability(v: &toml::Value) -> Result<f64, String> {
    let p = match v {
        toml::Value::Float(f) => *f,
        toml::Value::Integer(i) => *i as f64,
        _ => f64::NAN,
    };
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err("a probability from 0 to 1".into())
    }
}

/// A bit error rate, in [0, 1) (at 1 no frame would ever pass: `DcfConfig::validate`).
fn bit_error_rate(v: &toml::Value) -> Result<f64, String> {
    match v {
        toml::Value::Float(f) if (0.0..1.0).contains(f) => Ok(*f),
        toml::Value::Integer(0) => Ok(0.0),
        _ => Err("a bit error rate in [0, 1)".into()),
    }
}

type Scheduled<'a> = (
    &'a Option<Level<u64>>,
    &'a Option<Level<Dur>>,
    &'a Option<crate::spec::TraceSpec>,
    &'a Option<Level<f64>>,
    &'a Option<Level<f64>>,
);

impl Ctx<'_> {
    /// An entry's values against the link layers of the directions it names: `bler` needs an
    /// RLC-AM bearer, `ber` a DCF station, and a link layer's own timing replaces `rate`,
    /// `delay` and `trace` (`link::layer`).
    fn schedule_layer(
        &self,
        st: &ScheduleT,
        l: &LinkSpec,
        (ab, ba): (bool, bool),
        (rate, delay, trace, bler, ber): Scheduled<'_>,
    ) -> R<()> {
        let dirs = [(ab, &l.ab), (ba, &l.ba)];
        for (on, d) in dirs {
            if !on {
                continue;
            }
            let layer = &d.link_layer;
            let refuse = |key: &str, span: Range<usize>, what: String| {
                Err(self.err(
                    span,
                    &format!("schedule.{key}"),
                    what,
                    Some(format!(
                        "link {:?} with link_layer {:?}",
                        l.name,
                        layer.name()
                    )),
                ))
            };
            let span_of = |v: &Option<toml::Spanned<toml::Value>>| {
                v.as_ref().map(|v| v.span()).unwrap_or(0..0)
            };
            if bler.is_some() && !matches!(layer, LinkLayerSpec::RlcAm(_)) {
                return refuse(
                    "bler",
                    span_of(&st.bler),
                    "a link with link_layer = \"rlc-am\"".into(),
                );
            }
            if ber.is_some() && !matches!(layer, LinkLayerSpec::Dcf(_)) {
                return refuse(
                    "ber",
                    span_of(&st.ber),
                    "a link with link_layer = \"dcf\"".into(),
                );
            }
            if *layer != LinkLayerSpec::Plain {
                let what = || {
                    "no rate, delay or trace on a link layer (its own timing replaces them)"
                        .to_string()
                };
                if rate.is_some() {
                    return refuse("rate", span_of(&st.rate), what());
                }
                if delay.is_some() {
                    return refuse("delay", span_of(&st.delay), what());
                }
                if trace.is_some() {
                    let span = st.trace.as_ref().map(|t| t.span()).unwrap_or(0..0);
                    return refuse("trace", span, what());
                }
            }
        }
        Ok(())
    }
}

/// Where a schedule's `trace_file` is: as given if absolute, else beside the scenario file
/// `label` names (a scenario given as text has no folder: the working folder).
fn trace_path(label: &str, given: &str) -> PathBuf {
    let given = Path::new(given);
    if given.is_absolute() {
        return given.to_path_buf();
    }
    match Path::new(label).parent() {
        Some(dir) if Path::new(label).is_file() => dir.join(given),
        _ => given.to_path_buf(),
    }
}

/// Opens `path` for reading if it is a regular file; anything else (a FIFO, `/dev/stdin`, a
/// device, a directory) is refused without blocking, as `vho.files.read_text` refuses a
/// scenario: opened with O_NONBLOCK (so that a FIFO without a writer does not wait for one),
/// then its type checked on the open file. The error is what was expected, for the message.
fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, libc::O_NONBLOCK);
    let file = opts
        .open(path)
        .map_err(|e| format!("a readable trace file ({}: {e})", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("a readable trace file ({}: {e})", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "a trace file (a regular file; {} is {})",
            path.display(),
            file_kind(&meta.file_type())
        ));
    }
    Ok(file)
}

/// What a path that is not a regular file is, in words (as `vho.files._kind`).
fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        return "a directory";
    }
    "not a regular file"
}

/// Why a trace file was refused: it could not be read, it is larger than
/// [`MAX_TRACE_FILE_BYTES`], or a line of it is wrong (`(line, expected, found)`).
enum TraceError {
    Read(std::io::Error),
    TooLarge,
    At(Option<usize>, String, Option<String>),
}

/// mm-link's trace format, checked as `LinkQueue`'s constructor checks it (link_queue.cc):
/// one nonnegative integer per line, the millisecond offset of a delivery opportunity; no
/// empty line; nondecreasing; the last above zero. Lines end in `\n` or `\r\n`. The rest
/// is refused with its line. Read a line at a time (the text is never held whole), at most
/// [`MAX_TRACE_FILE_BYTES`].
/// With the SHA-256 of the bytes read.
fn parse_mahimahi(mut r: impl BufRead) -> Result<(Opportunities, String), TraceError> {
    let mut ops = OpportunitiesBuilder::default();
    let mut sha = super::super::sha256::Sha256::default();
    let mut last_line = None;
    let (mut buf, mut read, mut i) = (Vec::new(), 0u64, 0usize);
    loop {
        buf.clear();
        let n = r.read_until(b'\n', &mut buf).map_err(TraceError::Read)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        if read > MAX_TRACE_FILE_BYTES {
            return Err(TraceError::TooLarge);
        }
        sha.update(&buf);
        i += 1;
        let mut l = &buf[..];
        if let Some(rest) = l.strip_suffix(b"\n") {
            l = rest.strip_suffix(b"\r").unwrap_or(rest);
        }
        if l.is_empty() {
            return Err(TraceError::At(
                Some(i),
                "a millisecond offset on every line (mm-link refuses empty lines)".into(),
                Some("an empty line".into()),
            ));
        }
        let v: u64 = std::str::from_utf8(l)
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| {
                TraceError::At(
                    Some(i),
                    "a millisecond offset (a nonnegative integer) per line".to_string(),
                    Some(format!("{:?}", String::from_utf8_lossy(l))),
                )
            })?;
        ops.push(v)
            .map_err(|(expected, found)| TraceError::At(Some(i), expected, Some(found)))?;
        last_line = Some(i);
    }
    let ops = ops.finish().map_err(|expected| {
        let found = if last_line.is_none() {
            "an empty file"
        } else {
            "a last offset of 0"
        };
        TraceError::At(last_line, expected, Some(found.into()))
    })?;
    Ok((ops, sha.hex()))
}
