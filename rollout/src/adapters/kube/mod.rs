//! The Kubernetes side: a small blocking client of our own (a handful of calls, each on an API
//! server chosen per call, synchronous like the engine) and the kubeconfig it reads.

pub mod answer;
pub mod client;
mod error;
pub mod kubeconfig;
pub mod parse;
pub mod port;

pub use client::{DrainReport, KubeClient};
pub use error::KubeError;
pub use kubeconfig::KubeAccess;
pub use port::KubeApi;
