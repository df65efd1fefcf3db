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

impl TraceError {
    /// An error at byte `offset` of `file`.
    pub fn at(file: &str, offset: u64, message: impl Into<String>) -> Self {
        TraceError {
            file: file.into(),
            offset,
            message: message.into(),
        }
    }

    /// The capture could not be read at byte `offset`.
    pub fn io(file: &str, offset: u64, e: std::io::Error) -> Self {
        Self::at(file, offset, format!("cannot read: {e}"))
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: byte {}: {}", self.file, self.offset, self.message)
    }
}

impl std::error::Error for TraceError {}
