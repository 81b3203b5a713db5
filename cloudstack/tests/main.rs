//! The CloudStack client's tests: the Kubernetes version calls against the CloudStack API fake,
//! and that fake's supported versions checked with the real Python `cs` client.
//!
//! Every test file is a module of this one test binary.

mod support;

mod capabilities_cs;
mod kubernetes_versions;
mod kubernetes_versions_cs;
mod lines_cs;
mod redirect;
mod zones_cs;
