//! The Kubernetes side: a small blocking client of our own (a handful of calls, each on an API
//! server chosen per call, synchronous like the engine), the kubeconfig it reads, and the node
//! list the matching rules of [`cks_discovery::nodes`] read.

pub mod answer;
pub mod client;
mod error;
pub mod kubeconfig;
pub mod node_list;
pub mod parse;
pub mod port;

pub use client::{DrainReport, KubeClient};
pub use error::KubeError;
pub use kubeconfig::KubeAccess;
pub use node_list::list_nodes;
pub use port::KubeApi;
