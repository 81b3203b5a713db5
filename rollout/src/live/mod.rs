//! The ports of a real cluster, built from the live options: discovery from the cluster id and
//! CloudStack alone ([`discover`]), the ports it and the options allow ([`ports`]), and a port
//! that answers every call with what to configure where nothing could be connected
//! ([`unconfigured`]); the fetched kubeconfig removed on every exit ([`cleanup`]).

pub mod cleanup;
pub mod discover;
pub mod options;
pub mod ports;
pub mod unconfigured;

pub use discover::Discovery;
pub use options::{LiveOptions, SshOptions};
pub use ports::{LivePorts, engine_config, owner};
