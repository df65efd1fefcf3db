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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        match &self.found {
            Some(found) => write!(f, ": expected {}, got {}", self.expected, found),
            None => write!(f, ": {}", self.expected),
        }
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
