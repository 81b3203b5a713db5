//! A signed, blocking client for the Apache CloudStack API: requests signed as CloudStack's
//! `signatureVersion=3` wants them, async jobs polled with `queryAsyncJobResult`, one error type
//! that carries CloudStack's code and text (never the keys or the URL), and a configuration that
//! reads the keys from the environment or the `cs` INI file, never from argv.
//!
//! `cks-rollout` drives VMs, volumes and offerings with it; `cks-iso register` adds the binaries
//! ISO as a Kubernetes supported version.
//!
//! ```no_run
//! use cks_cloudstack::{CloudStackClient, CloudStackConfig};
//! let client = CloudStackClient::new(CloudStackConfig::from_env()?)?;
//! for version in client.list_kubernetes_versions(None)? {
//!     println!("{} {} {}", version.semantic_version, version.name, version.iso_state);
//! }
//! # Ok::<(), cks_cloudstack::CloudStackError>(())
//! ```

pub mod capabilities;
pub mod client;
pub mod cluster;
pub mod config;
pub mod error;
pub mod job;
pub mod kubernetes;
pub mod network;
pub mod owner;
pub mod scalar;
pub mod secret;
pub mod sign;
pub mod types;
pub mod vms;

pub use capabilities::Capabilities;
pub use client::CloudStackClient;
pub use cluster::KubernetesCluster;
pub use config::{CloudStackConfig, ConfigWarning, Secret};
pub use error::CloudStackError;
pub use job::JobState;
pub use kubernetes::{DownloadDetail, Iso, KubernetesVersion, NewKubernetesVersion};
pub use types::{AffinityGroup, DiskOffering, Nic, ServiceOffering, VirtualMachine, Volume};
