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
const NEW_MARK: &str = "vho:set-new";

/// Loads and validates a scenario. `label` names the file in messages.
pub fn load(
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
        let bad = |expected: &str| ScenarioError {
            file: format!("--set {o}"),
            line: None,
            field: o.split('=').next().unwrap_or("").to_string(),
            expected: expected.into(),
            found: Some(o.split_once('=').map_or("nothing", |(_, v)| v).to_string()),
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
        let mut value: toml_edit::Value = raw
            .trim()
            .parse()
            .unwrap_or_else(|_| toml_edit::Value::from(raw.trim()));
        let (last, parents) = keys.split_last().expect("invariant: at least one key");
        if last.parse::<usize>().is_ok() {
            return Err(bad("a key name last, not an index"));
        }
        let mut cur: &mut dyn toml_edit::TableLike = doc.as_table_mut();
        let mut k = 0;
        // Inside an inline table ({ ... }) a comment is not allowed: the value goes in
        // unmarked (an error in it then names the file's line of the table).
        let mut inline = false;
        while k < parents.len() {
            let name = parents[k];
            if name.parse::<usize>().is_ok() {
                return Err(bad(
                    "an index only after the name of an array of tables such as flow",
                ));
            }
            let c = cur;
            if c.get(name).is_none() {
                // Marked like a new value, so that an error about the new table (an unknown
                // section) names the override too.
                let mut t = toml_edit::Table::new();
                t.decor_mut().set_suffix(format!(" # {NEW_MARK}:{i}"));
                c.insert(name, toml_edit::Item::Table(t));
            }
            let item = c
                .get_mut(name)
                .expect("invariant: present or just inserted");
            match parents.get(k + 1).map(|s| s.parse::<usize>()) {
                Some(Ok(n)) => {
                    let toml_edit::Item::ArrayOfTables(a) = item else {
                        return Err(bad(&format!(
                            "{name} to be an array of tables such as [[{name}]]"
                        )));
                    };
                    let len = a.len();
                    // What was wrong is the index, not the value being set.
                    cur = a.get_mut(n).ok_or_else(|| ScenarioError {
                        found: Some(n.to_string()),
                        ..bad(&format!(
                            "an index below {len} for {name} ({len} [[{name}]] table{})",
                            if len == 1 { "" } else { "s" }
                        ))
                    })?;
                    k += 2;
                }
                _ if item.is_array_of_tables() => {
                    let next = parents.get(k + 1).copied().unwrap_or(last);
                    return Err(bad(&format!(
                        "an index after {name}, an array of tables ([[{name}]]): \
                         {name}.0.{next} for the first"
                    )));
                }
                _ => {
                    inline = item.is_inline_table();
                    cur = item
                        .as_table_like_mut()
                        .ok_or_else(|| bad(&format!("{name} to be a table")))?;
                    k += 1;
                }
            }
        }
        let t = cur;
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

#[cfg(test)]
mod tests;
