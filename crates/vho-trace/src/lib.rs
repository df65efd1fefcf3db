//! vho-trace: placeholder until the capture-analysis work lands (issue 5).
