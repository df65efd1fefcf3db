//! Errors of capture reading: one line each, naming the file, the byte offset and what was
//! expected.

use std::fmt;

#[derive(Debug)]
pub struct TraceError {
    /// The capture (a path, or a label for an in-memory reader).
    pub file: String,
    /// Byte offset in the file where the problem starts.
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: byte {}: {}", self.file, self.offset, self.message)
    }
}

impl std::error::Error for TraceError {}
