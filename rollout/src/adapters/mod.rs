//! Adapters from the engine to the systems it drives: the CloudStack API, the Kubernetes API,
//! etcd's health endpoints, and the SQLite store of cluster records.

pub mod cloudstack;
pub mod etcd;
pub mod kube;
pub mod secret;
pub mod tls;
