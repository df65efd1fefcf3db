//! Errors crossing into Python: each maps onto a class of `vho.errors`, so that the command
//! line can tell bad input (exit status 2, one line) from a fault of vho.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Raises `vho.errors.<class>(message)`; falls back to `RuntimeError` should the module be
/// missing (it never is in an installed package).
fn raise(class: &str, message: String) -> PyErr {
    Python::with_gil(|py| {
        let cls = py
            .import("vho.errors")
            .and_then(|m| m.getattr(class))
            .map(|c| c.unbind());
        match cls {
            Ok(cls) => PyErr::from_value(
                cls.call1(py, (message.clone(),))
                    .map(|v| v.into_bound(py))
                    .unwrap_or_else(|e| e.into_value(py).into_bound(py).into_any()),
            ),
            Err(_) => PyRuntimeError::new_err(message),
        }
    })
}

/// Errors of the core, by kind.
pub trait IntoPyError {
    fn into_py_error(self) -> PyErr;
}

impl IntoPyError for vho_sim::scenario::ScenarioError {
    fn into_py_error(self) -> PyErr {
        raise("ScenarioError", self.to_string())
    }
}

impl IntoPyError for vho_sim::world::SimError {
    fn into_py_error(self) -> PyErr {
        raise("SimulationError", self.to_string())
    }
}

pub fn to_py<E: IntoPyError>(e: E) -> PyErr {
    e.into_py_error()
}

/// A valid scenario that cannot be simulated, named by its file.
pub fn sim_error(label: &str, e: vho_sim::world::SimError) -> PyErr {
    raise("SimulationError", format!("{label}: {e}"))
}

/// A file could not be written (an output directory, a capture).
pub fn io_error(message: &str) -> PyErr {
    raise("OutputError", message.to_string())
}

/// A capture that cannot be read.
pub fn capture_error(message: &str) -> PyErr {
    raise("CaptureError", message.to_string())
}

/// A scenario the emulator cannot carry, or a machine it cannot run on: the user's to fix.
pub fn sim_error_text(message: &str) -> PyErr {
    raise("SimulationError", message.to_string())
}

/// The emulation failed while it ran (a device, a socket, a setup command).
pub fn emulation_error(message: &str) -> PyErr {
    raise("EmulationError", message.to_string())
}
