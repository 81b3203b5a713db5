//! The engine's [`Kube`] port on the Kubernetes client: [`Endpoint::Cluster`] is the
//! kubeconfig's server, [`Endpoint::Control`] a control node's own API server from a map of
//! node name to URL, and client errors are classed for the engine.

use std::collections::BTreeMap;

use super::client::KubeClient;
use super::error::KubeError;
use crate::model::{Endpoint, EvictionOutcome, NodeStatus, Pod, ReadyzCheck};
use crate::ports::{Kube, PortError, PortErrorKind, PortResult};

/// The [`Kube`] port over the Kubernetes API.
#[derive(Debug, Clone)]
pub struct KubeApi {
    cluster: KubeClient,
    control: BTreeMap<String, KubeClient>,
}

impl KubeApi {
    /// The port over `cluster` (the kubeconfig's endpoint), with each control node's API server
    /// URL (`https://<node ip>:6443`) in `control`.
    pub fn new(cluster: KubeClient, control: &BTreeMap<String, String>) -> Self {
        let control = control
            .iter()
            .map(|(node, url)| (node.clone(), cluster.via(url)))
            .collect();
        KubeApi { cluster, control }
    }

    fn client(&self, via: &Endpoint) -> PortResult<&KubeClient> {
        match via {
            Endpoint::Cluster => Ok(&self.cluster),
            Endpoint::Control(node) => self.control.get(node).ok_or_else(|| {
                PortError::unavailable(format!("no API server URL known for control node {node}; add it to the control endpoints"))
            }),
        }
    }
}

/// Classes a client error for the engine.
pub fn port_error(e: KubeError) -> PortError {
    let kind = match &e {
        KubeError::Http { .. } => PortErrorKind::Unavailable,
        KubeError::Answer { reason, .. } if !reason.is_too_large() => PortErrorKind::Unavailable,
        KubeError::Status { status, .. } => match status {
            404 => PortErrorKind::NotFound,
            409 => PortErrorKind::Conflict,
            429 | 500..=599 => PortErrorKind::Unavailable,
            400..=499 => PortErrorKind::Refused,
            _ => PortErrorKind::Other,
        },
        _ => PortErrorKind::Other,
    };
    PortError::new(kind, e.to_string())
}

impl Kube for KubeApi {
    fn list_nodes(&mut self, via: &Endpoint) -> PortResult<Vec<NodeStatus>> {
        self.client(via)?.list_nodes().map_err(port_error)
    }

    fn get_node(&mut self, via: &Endpoint, name: &str) -> PortResult<Option<NodeStatus>> {
        self.client(via)?.get_node(name).map_err(port_error)
    }

    fn set_annotation(
        &mut self,
        via: &Endpoint,
        node: &str,
        key: &str,
        value: Option<&str>,
    ) -> PortResult<()> {
        self.client(via)?
            .set_annotation(node, key, value)
            .map_err(port_error)
    }

    fn set_unschedulable(
        &mut self,
        via: &Endpoint,
        node: &str,
        unschedulable: bool,
    ) -> PortResult<()> {
        self.client(via)?
            .set_unschedulable(node, unschedulable)
            .map_err(port_error)
    }

    fn list_pods(&mut self, via: &Endpoint, node: &str) -> PortResult<Vec<Pod>> {
        self.client(via)?.list_pods(node).map_err(port_error)
    }

    fn evict(&mut self, via: &Endpoint, pod: &Pod) -> PortResult<EvictionOutcome> {
        self.client(via)?.evict(pod).map_err(port_error)
    }

    fn readyz(&mut self, via: &Endpoint, check: ReadyzCheck) -> PortResult<bool> {
        self.client(via)?.readyz(check).map_err(port_error)
    }
}
