//! The upgrade path of a CKS cluster: preloading the new ISO's images on every node
//! ([`preload`]), the upgrade itself with its checks ([`upgrade`]), and refreshing what the new
//! ISO carries afterwards: the cluster autoscaler and the cloud controller manager ([`provider`]).
//!
//! One command builder ([`command`]) serves both callers of `autoscale-kube-cluster`: enabling
//! autoscaling and the post-upgrade redeploy. [`redeploy_after_upgrade`] decides whether there is
//! anything to redeploy, runs the command on the cluster's first control node through a
//! [`RemoteRunner`], confirms the rollout, and returns an [`Outcome`], never an error that could
//! fail the upgrade; [`refresh_provider`] does the same for the CCM. The nodes and the
//! autoscaling settings are found from the cluster id ([`target`], on the discovery `cks-rollout`
//! uses). The real runner is [`ssh::SshRunner`] (the OpenSSH client; see [`ssh`] for why).
//!
//! ```no_run
//! use cks_upgrade_hook::ssh::{HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
//! use cks_upgrade_hook::{UpgradedCluster, redeploy_after_upgrade};
//!
//! let cluster = UpgradedCluster::new("2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b", true, Some(1), Some(5));
//! let runner = SshRunner::new(SshConfig::new(
//!     NodeAddress::behind_nat("203.0.113.7"),
//!     "cloud",
//!     "/var/lib/cloudstack/management/.ssh/id_rsa".as_ref(),
//!     HostKeyPolicy::KnownHosts { path: "/etc/cks/known_hosts".into() },
//! ));
//! let outcome = redeploy_after_upgrade(&cluster, &runner);
//! println!("{outcome}");
//! ```

// The command line is part of the library (so the packaging can render its man page and
// completions) and names this crate as its binary does.
extern crate self as cks_upgrade_hook;

#[doc(hidden)]
pub mod cli;
pub mod command;
mod docs;
pub mod hook;
#[doc(hidden)]
pub mod json_out;
pub mod outcome;
pub mod preload;
#[doc(hidden)]
pub mod preload_cli;
pub mod provider;
#[doc(hidden)]
pub mod redeploy_cli;
pub mod say;
pub mod target;
pub mod upgrade;
#[doc(hidden)]
pub mod upgrade_cli;

// The SSH runner is its own crate, shared with cks-rollout; these keep the paths it had here.
pub use cks_ssh::openssh as ssh;
pub use cks_ssh::{quote, runner};

pub use command::{AutoscaleBounds, ClusterId, CommandError, NodeLayout, RemoteCommand};
pub use hook::{Plan, UpgradedCluster, plan, redeploy_after_upgrade};
pub use outcome::{FailureCause, Outcome, SkipReason, Step};
pub use provider::{ProviderOutcome, ProviderRefresh, refresh_provider};
pub use runner::{RemoteOutput, RemoteRunner, RunError};
