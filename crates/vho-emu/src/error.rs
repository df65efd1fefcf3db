//! What can stop an emulation, each with one line for the user.

#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// Creating namespaces and TUN devices needs CAP_NET_ADMIN and CAP_SYS_ADMIN.
    #[error(
        "vho emulate needs root or CAP_NET_ADMIN with CAP_SYS_ADMIN (it creates network \
         namespaces and TUN devices); run it as root"
    )]
    NotPermitted,
    /// A scenario the emulator cannot carry (yet).
    #[error("{0}")]
    Unsupported(String),
    /// A command the emulator ran to set up the namespaces failed.
    #[error("{cmd}: {msg}")]
    Setup { cmd: String, msg: String },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the simulator's model failed: {0}")]
    Model(String),
    /// SIGINT or SIGTERM asked the run to stop; everything it made is removed.
    #[error("interrupted: the emulation was stopped before it ended")]
    Interrupted,
}

impl EmuError {
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        EmuError::Io {
            what: what.into(),
            source,
        }
    }
}
