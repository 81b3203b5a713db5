//! Running one command on a cluster node over SSH, the way CKS reaches its nodes: the OpenSSH
//! client with key-only login, strict host keys (a known_hosts file or a pinned fingerprint),
//! a connect timeout and a command timeout.
//!
//! - [`RemoteCommand`]: a command as words, quoted for the remote shell ([`quote`]).
//! - [`RemoteRunner`]: the trait callers depend on; [`openssh::SshRunner`] is the real one.
//!
//! ```no_run
//! use cks_ssh::openssh::{HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
//! use cks_ssh::{RemoteCommand, RemoteRunner};
//!
//! let runner = SshRunner::new(SshConfig::new(
//!     NodeAddress::BehindNat { public_address: "203.0.113.7".into(), port: 2223 },
//!     "cloud",
//!     "/var/lib/cloudstack/management/.ssh/id_rsa".as_ref(),
//!     HostKeyPolicy::KnownHosts { path: "/etc/cks/known_hosts".into() },
//! ));
//! let output = runner.run(&RemoteCommand::new(vec!["uptime".into()]));
//! println!("{output:?}");
//! ```

pub mod command;
pub mod openssh;
pub mod quote;
pub mod runner;

pub use command::RemoteCommand;
pub use runner::{RemoteOutput, RemoteRunner, RunError};
