//! Adapters from the engine to the systems it drives: the CloudStack API, the Kubernetes API,
//! etcd's health endpoints, the SQLite store of cluster records, and the system clock.

pub mod clock;
pub mod cloudstack;
pub mod etcd;
pub mod etcd_answer;
pub mod etcd_ssh;
pub mod gate_command;
pub mod kube;
pub use cks_cloudstack::secret;
pub mod store;
pub mod tls;
