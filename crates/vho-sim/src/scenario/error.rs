//! Scenario errors: one line each, naming the file, the line, the field and what was expected.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or `--set key=value` for an override).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// Dotted path of the field (`access.gprs.rate`), empty for a syntax error.
    pub field: String,
    /// What was expected (or, for a syntax error, the parser's message).
    pub expected: String,
    /// What was found, if it helps.
    pub found: Option<String>,
}

impl fmt::Display for ScenarioError {
    /// One line: a line break or other control character the input brought (a `--set` of a
    /// multi-line string) is written escaped (`\n`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Escaped(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", Escaped(&self.field))?;
        }
        match &self.found {
            Some(found) => write!(
                f,
                ": expected {}, got {}",
                Escaped(&self.expected),
                Escaped(found)
            ),
            None => write!(f, ": {}", Escaped(&self.expected)),
        }
    }
}

/// Text with its control characters escaped as Rust writes them (`\n`, `\u{0}`).
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A parser's message on one line: the TOML parser's messages span several.
pub fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The dotted path (`record.snaplen`, `flow.tcp.mss`) of the innermost key or value of a TOML
/// text whose span holds byte `offset`: where the TOML parser's type errors point, their
/// message naming no field. Arrays add no index (the line tells which), as the resolver's own
/// paths (`flow.size`); for an unknown key, its table. Empty if the text does not parse or
/// nothing holds the offset.
pub fn field_at(text: &str, offset: usize, message: &str) -> String {
    let Ok(doc) = toml_edit::ImDocument::parse(text) else {
        return String::new();
    };
    let mut path = Vec::new();
    if !walk_table(doc.as_table(), offset, &mut path) {
        return String::new();
    }
    // "unknown field `x`" points at the key: the field is the table that has no such key.
    if message.starts_with("unknown field") {
        path.pop();
    }
    path.join(".")
}

fn holds(span: Option<std::ops::Range<usize>>, offset: usize) -> bool {
    span.is_some_and(|s| s.contains(&offset))
}

/// Descends into whatever holds `offset`, children before the container (a standard table's
/// span may cover its body), pushing each key on `path`; `path` holds the way to the offset
/// when it returns true, else what it held before.
fn walk_table(t: &toml_edit::Table, offset: usize, path: &mut Vec<String>) -> bool {
    for (k, item) in t.iter() {
        path.push(k.to_string());
        if holds(t.key(k).and_then(|k| k.span()), offset) || walk_item(item, offset, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn walk_item(item: &toml_edit::Item, offset: usize, path: &mut Vec<String>) -> bool {
    match item {
        toml_edit::Item::Value(v) => walk_value(v, offset, path),
        toml_edit::Item::Table(t) => walk_table(t, offset, path) || holds(t.span(), offset),
        toml_edit::Item::ArrayOfTables(a) => a
            .iter()
            .any(|t| walk_table(t, offset, path) || holds(t.span(), offset)),
        toml_edit::Item::None => false,
    }
}

fn walk_value(v: &toml_edit::Value, offset: usize, path: &mut Vec<String>) -> bool {
    match v {
        toml_edit::Value::Array(a) => {
            a.iter().any(|x| walk_value(x, offset, path)) || holds(a.span(), offset)
        }
        toml_edit::Value::InlineTable(t) => {
            for (k, x) in t.iter() {
                path.push(k.to_string());
                if holds(t.key(k).and_then(|k| k.span()), offset) || walk_value(x, offset, path) {
                    return true;
                }
                path.pop();
            }
            holds(t.span(), offset)
        }
        _ => holds(v.span(), offset),
    }
}

/// serde's type names in a parser's message as a scenario's reader knows them: `expected
/// i64` is "expected an integer", `expected f64` "expected a number".
pub fn plain_types(message: &str) -> String {
    let mut m = message.to_string();
    for (rust, plain) in [
        ("expected i64", "expected an integer"),
        ("expected u64", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected f64", "expected a number"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}
