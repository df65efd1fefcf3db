//! Scenarios: TOML in, a validated [`Spec`] out, or one [`ScenarioError`] naming the file,
//! line, field and what was expected.
//!
//! `--set key.path=value` overrides are applied to the document before validation, in place
//! (the value keeps its line), marked so that an error in an overridden value names the
//! override rather than the file.

pub mod error;
pub mod presets;
pub mod reference;
pub mod render;
pub mod resolve;
pub mod schema;
pub mod sha256;
pub mod units;

pub use error::ScenarioError;
pub use presets::PresetSet;

use crate::rng::fnv1a64;
use crate::spec::Spec;
use error::{field_at, line_of, one_line, plain_types};

const SET_MARK: &str = "vho:set";
/// The arrays of tables a scenario may have (`schema::File`), as their tables are written: an
/// override indexing one the scenario lacks is told so; any other name is left to the
/// schema's "unknown field".
const TABLE_ARRAYS: [&str; 8] = [
    "node",
    "link",
    "handover",
    "schedule",
    "flow",
    "node_function",
    "mobile",
    "mipv6.router",
];
const NEW_MARK: &str = "vho:set-new";

/// Loads and validates a scenario. `label` names the file in messages.
pub fn load(
    label: &str,
    text: &str,
    overrides: &[String],
    presets: &PresetSet,
) -> Result<Spec, ScenarioError> {
    load_marked(label, text, overrides, presets)
        .map_err(|e| blame(e, label, text, overrides, presets))
}

/// An error that names the file although an override caused it (a check across fields, such
/// as max_rto against a min_rto the override set, names the other field; a key an override
/// added to a table the file wrote inline has no line of its own) is the override's: the
/// first one whose prefix of the overrides gives the same error.
fn blame(
    e: ScenarioError,
    label: &str,
    text: &str,
    overrides: &[String],
    presets: &PresetSet,
) -> ScenarioError {
    if overrides.is_empty() || e.file != label {
        return e;
    }
    let same =
        |a: &ScenarioError| (&a.field, &a.expected, &a.found) == (&e.field, &e.expected, &e.found);
    for k in 0..overrides.len() {
        if let Err(x) = load_marked(label, text, &overrides[..k], presets) {
            if same(&x) {
                // The file's own error (k = 0), or one an earlier override already caused.
                return if k == 0 {
                    e
                } else {
                    ScenarioError {
                        file: format!("--set {}", overrides[k - 1]),
                        line: None,
                        ..e
                    }
                };
            }
        }
    }
    ScenarioError {
        file: format!("--set {}", overrides[overrides.len() - 1]),
        line: None,
        ..e
    }
}

fn load_marked(
    label: &str,
    text: &str,
    overrides: &[String],
    presets: &PresetSet,
) -> Result<Spec, ScenarioError> {
    let (text, marks) = if overrides.is_empty() {
        (text.to_string(), Vec::new())
    } else {
        apply_overrides(label, text, overrides)?
    };
    let file: schema::File = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| line_of(&text, s.start));
        relocate(
            ScenarioError {
                file: label.into(),
                line,
                field: e
                    .span()
                    .map_or_else(String::new, |s| field_at(&text, s.start, e.message())),
                expected: plain_types(&one_line(e.message())),
                found: None,
            },
            &text,
            &marks,
        )
    })?;
    let cx = resolve::Ctx {
        file: label,
        text: &text,
        presets,
    };
    cx.resolve(file).map_err(|e| relocate(e, &text, &marks))
}

/// The hash of a resolved scenario: FNV-1a (64-bit) of its canonical form, seed excluded so
/// that the replications of one scenario share it.
pub fn hash(spec: &Spec) -> String {
    let mut s = spec.clone();
    s.seed = 0;
    // Streamed into the hash, never a string (a trace file's millions of lines).
    struct Fnv(u64);
    impl std::fmt::Write for Fnv {
        fn write_str(&mut self, t: &str) -> std::fmt::Result {
            for &b in t.as_bytes() {
                self.0 ^= b as u64;
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
            }
            Ok(())
        }
    }
    let mut h = Fnv(fnv1a64(b""));
    let _ = std::fmt::Write::write_fmt(&mut h, format_args!("{s:?}"));
    format!("{:016x}", h.0)
}

/// Maps a line of the rewritten text back to the file, or to the override that wrote it.
fn relocate(mut e: ScenarioError, text: &str, marks: &[String]) -> ScenarioError {
    // An error in what an override set (its key, or inside a table it replaced) is the
    // override's, even where no line mark can show it (a value inside an inline table, a key
    // missing from a table the override wrote whole).
    let unindexed = |k: &str| {
        k.split('.')
            .filter(|p| p.parse::<usize>().is_err())
            .collect::<Vec<_>>()
            .join(".")
    };
    let blamed = marks.iter().rev().find(|o| {
        let key = unindexed(o.split('=').next().unwrap_or("").trim());
        !key.is_empty()
            && (e.field == key
                || e.field
                    .strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.starts_with('.')))
    });
    if let Some(o) = blamed {
        e.file = format!("--set {o}");
        e.line = None;
        return e;
    }
    let Some(l) = e.line else { return e };
    let lines: Vec<&str> = text.lines().collect();
    if let Some(line) = lines.get(l - 1) {
        if let Some(pos) = line.find(SET_MARK) {
            let which: usize = line[pos..]
                .split(':')
                .nth(2)
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
            e.file = format!("--set {}", marks.get(which).map_or("", |s| s.as_str()));
            e.line = None;
            return e;
        }
    }
    let inserted_before = lines
        .iter()
        .take(l - 1)
        .filter(|x| x.contains(NEW_MARK))
        .count();
    e.line = Some(l - inserted_before);
    e
}

fn apply_overrides(
    label: &str,
    text: &str,
    overrides: &[String],
) -> Result<(String, Vec<String>), ScenarioError> {
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ScenarioError {
                file: label.into(),
                line: e.span().map(|s| line_of(text, s.start)),
                field: String::new(),
                expected: one_line(e.message()),
                found: None,
            })?;
    for (i, o) in overrides.iter().enumerate() {
        let at = |expected: &str, found: Option<String>| ScenarioError {
            file: format!("--set {o}"),
            line: None,
            field: o.split('=').next().unwrap_or("").to_string(),
            expected: expected.into(),
            found,
        };
        let bad = |expected: &str| {
            at(
                expected,
                Some(o.split_once('=').map_or("nothing", |(_, v)| v).to_string()),
            )
        };
        let Some((path, raw)) = o.split_once('=') else {
            return Err(bad("key.path=value"));
        };
        let keys: Vec<&str> = path.trim().split('.').collect();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(bad("a dotted key path such as flow.0.size"));
        }
        if keys.iter().any(|k| k.contains('[') || k.contains(']')) {
            return Err(bad(
                "a dotted key path with the index as a key, such as flow.0.size (not flow[0])",
            ));
        }
        if keys
            .iter()
            .any(|k| k.contains(['"', '\'', '#', '=']) || k.chars().any(char::is_whitespace))
        {
            return Err(bad(
                "a dotted key path of bare names and indices, such as flow.0.size (no quotes, \
                 spaces or comments)",
            ));
        }
        let mut value = override_value(raw).map_err(|e| {
            let raw = raw.trim();
            at(
                &e,
                Some(if raw.is_empty() { "nothing" } else { raw }.into()),
            )
        })?;
        let (mut last, mut parents) = keys.split_last().expect("invariant: at least one key");
        // An index last sets one element of an array value (a ramp's end:
        // schedule.0.loss.1=0.2); an array of tables is set key by key.
        let mut element = None;
        if let Ok(n) = last.parse::<usize>() {
            let Some((name, above)) = parents.split_last() else {
                return Err(bad(
                    "a key name before an index, such as schedule.0.loss.1 (an array's element)",
                ));
            };
            if name.parse::<usize>().is_ok() {
                return Err(bad(
                    "a key name last, not an index (a table of an array is set key by key: \
                     flow.0.size=..., flow.0.start=...)",
                ));
            }
            element = Some(n);
            last = name;
            parents = above;
        }
        let mut cur: &mut dyn toml_edit::TableLike = doc.as_table_mut();
        let mut k = 0;
        // Inside an inline table ({ ... }) a comment is not allowed: the value goes in
        // unmarked (an error in it then names the file's line of the table).
        let mut inline = false;
        // Below a name that is no section of a scenario, created here: every part is a key,
        // and the schema's "unknown field" names the first.
        let mut unknown = false;
        while k < parents.len() {
            let name = parents[k];
            // The array's path as its tables are written ([[mipv6.router]]).
            let table = keys[..=k]
                .iter()
                .filter(|p| p.parse::<usize>().is_err())
                .copied()
                .collect::<Vec<_>>()
                .join(".");
            if name.parse::<usize>().is_ok() && !unknown {
                return Err(bad(
                    "an index only after the name of an array of tables such as flow",
                ));
            }
            let c = cur;
            let absent = c.get(name).is_none();
            if absent {
                // Marked like a new value, so that an error about the new table (an unknown
                // section) names the override too.
                let mut t = toml_edit::Table::new();
                t.decor_mut().set_suffix(format!(" # {NEW_MARK}:{i}"));
                c.insert(name, toml_edit::Item::Table(t));
            }
            let item = c
                .get_mut(name)
                .expect("invariant: present or just inserted");
            let next = parents.get(k + 1).copied();
            if absent && TABLE_ARRAYS.contains(&table.as_str()) {
                if let Some(next) = next.filter(|n| looks_like_an_index(n)) {
                    // Nothing to index: the scenario has no such table.
                    let hint = if table == "link" {
                        " (a scenario with [wired] and [access.NAME] sets them by name: \
                         access.NAME.rate)"
                    } else {
                        ""
                    };
                    return Err(at(
                        &format!("the scenario has no [[{table}]] for {table}.{next} to set{hint}"),
                        None,
                    ));
                }
            }
            unknown |= absent;
            match next.map(|s| s.parse::<usize>()) {
                Some(Ok(n)) if !unknown => {
                    let toml_edit::Item::ArrayOfTables(a) = item else {
                        return Err(at(
                            &format!("{table} to be an array of tables such as [[{table}]]"),
                            Some(what(item).into()),
                        ));
                    };
                    let len = a.len();
                    cur = a.get_mut(n).ok_or_else(|| {
                        at(
                            &format!(
                                "an index from 0 to {} for [[{table}]] (the scenario has {len})",
                                len.saturating_sub(1)
                            ),
                            Some(n.to_string()),
                        )
                    })?;
                    k += 2;
                }
                _ if item.is_array_of_tables() => {
                    let len = item.as_array_of_tables().map_or(0, |a| a.len());
                    let next = next.unwrap_or(last);
                    // Something meant as an index (-1, 1e0, 2^64): say which are valid.
                    if looks_like_an_index(next) {
                        return Err(at(
                            &format!(
                                "an index from 0 to {} for [[{table}]] (the scenario has {len})",
                                len.saturating_sub(1)
                            ),
                            Some(format!("{next:?}")),
                        ));
                    }
                    return Err(at(
                        &format!(
                            "an index after {name}, an array of tables ([[{table}]]): \
                             {name}.0.{next} for the first"
                        ),
                        Some(path.trim().to_string()),
                    ));
                }
                _ => {
                    inline = item.is_inline_table();
                    let found = what(item);
                    cur = item
                        .as_table_like_mut()
                        .ok_or_else(|| at(&format!("{name} to be a table"), Some(found.into())))?;
                    k += 1;
                }
            }
        }
        let t = cur;
        if let Some(n) = element {
            let name = last;
            let Some(item) = t.get_mut(name) else {
                return Err(at(
                    &format!("the scenario has no array {name} there to set element {n} of"),
                    None,
                ));
            };
            if item.is_array_of_tables() {
                return Err(bad(
                    "a key name last, not an index (a table of an array is set key by key: \
                     flow.0.size=..., flow.0.start=...)",
                ));
            }
            let found = what(item);
            let Some(a) = item.as_array_mut() else {
                return Err(at(
                    &format!("{name} to be an array such as [0, 0.2] to set element {n} of"),
                    Some(found.into()),
                ));
            };
            let len = a.len();
            if n >= len {
                return Err(at(
                    &format!(
                        "an index from 0 to {} for {name} (the array has {len})",
                        len.saturating_sub(1)
                    ),
                    Some(n.to_string()),
                ));
            }
            // The element keeps its place and spacing; the array's line is marked (a comment
            // inside a one-line array would end it).
            let decor = a.get(n).map(|v| v.decor().clone());
            if let Some(d) = decor {
                *value.decor_mut() = d;
            }
            a.replace(n, value);
            if !inline {
                if let Some(v) = t.get_mut(name).and_then(|i| i.as_value_mut()) {
                    v.decor_mut().set_suffix(format!(" # {SET_MARK}:{i}"));
                }
            }
            continue;
        }
        let existed = t.get(last).is_some();
        if !inline {
            value.decor_mut().set_suffix(format!(
                " # {}:{i}",
                if existed { SET_MARK } else { NEW_MARK }
            ));
        }
        t.insert(last, toml_edit::Item::Value(value));
    }
    Ok((doc.to_string(), overrides.to_vec()))
}

/// An override's value: TOML, or a bare word taken as a string (`--set flow.0.tcp.cc=reno`).
/// Nothing, or what starts as TOML (a quote, a bracket, a brace) and does not parse, is
/// refused rather than taken as a string of its own characters (`flow.0.name="abc` once
/// named the flow `"abc`).
fn override_value(raw: &str) -> Result<toml_edit::Value, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(r#"a value after '=' (a quoted string for text: "")"#.into());
    }
    match raw.parse::<toml_edit::Value>() {
        Ok(v) => Ok(v),
        Err(e) if raw.starts_with(['"', '\'', '[', '{']) => Err(format!(
            "a TOML value such as \"2 MB\", 5, true, [1, 2] or {{ rate = \"1 Mb/s\" }} ({})",
            one_line(e.message())
        )),
        Err(_) => Ok(toml_edit::Value::from(raw)),
    }
}

/// Whether an override's path part was meant as an index: a number of any form.
fn looks_like_an_index(part: &str) -> bool {
    let t = part.trim();
    t != part || t.parse::<i128>().is_ok() || t.parse::<f64>().is_ok_and(|f| f.is_finite())
}

/// What an override's path ran into, for its error.
fn what(item: &toml_edit::Item) -> &'static str {
    match item {
        toml_edit::Item::None => "nothing",
        toml_edit::Item::Value(v) if v.is_inline_table() => "an inline table",
        toml_edit::Item::Value(v) if v.is_array() => "an array",
        toml_edit::Item::Value(_) => "a value",
        toml_edit::Item::Table(_) => "a table",
        toml_edit::Item::ArrayOfTables(_) => "an array of tables",
    }
}

#[cfg(test)]
mod tests;
