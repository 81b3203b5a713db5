//! Kubernetes: nodes, pods and the API servers' readiness, each call through a chosen endpoint.

use super::error::PortResult;
use crate::model::{Endpoint, EvictionOutcome, NodeStatus, Pod, ReadyzCheck};

/// The Kubernetes API calls the engine needs. Every call names the API server it goes to, so
/// the engine can avoid a control node that is restarting.
pub trait Kube {
    /// `GET /api/v1/nodes`.
    fn list_nodes(&mut self, via: &Endpoint) -> PortResult<Vec<NodeStatus>>;

    /// `GET /api/v1/nodes/{name}`; `Ok(None)` on 404.
    fn get_node(&mut self, via: &Endpoint, name: &str) -> PortResult<Option<NodeStatus>>;

    /// Merge-patch one annotation on a node: `Some(value)` sets it, `None` removes it.
    fn set_annotation(
        &mut self,
        via: &Endpoint,
        node: &str,
        key: &str,
        value: Option<&str>,
    ) -> PortResult<()>;

    /// Patch `spec.unschedulable` (cordon with `true`, uncordon with `false`).
    fn set_unschedulable(
        &mut self,
        via: &Endpoint,
        node: &str,
        unschedulable: bool,
    ) -> PortResult<()>;

    /// The pods bound to `node` (`fieldSelector=spec.nodeName=...`), excluding finished ones.
    fn list_pods(&mut self, via: &Endpoint, node: &str) -> PortResult<Vec<Pod>>;

    /// `POST .../pods/{name}/eviction`; a 429 is an [`EvictionOutcome::Blocked`], not an error.
    fn evict(&mut self, via: &Endpoint, pod: &Pod) -> PortResult<EvictionOutcome>;

    /// `GET /readyz` or `/readyz/etcd` on that endpoint: `Ok(true)` for 200.
    fn readyz(&mut self, via: &Endpoint, check: ReadyzCheck) -> PortResult<bool>;
}
