//! Which VM is which Kubernetes node: a node belongs to the VM one of whose NIC addresses is
//! the node's InternalIP, whatever the two are called. A node no VM has, or a VM no node has,
//! is reported by name and blocks only the rollout of its own type.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::kube_node::NodeList;

use super::cluster_api::ClusterVm;
use crate::node_type::NodeType;

/// The label kubeadm puts on control-plane nodes.
pub const CONTROL_PLANE_LABEL: &str = "node-role.kubernetes.io/control-plane";

/// A Kubernetes node, as far as matching needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeNode {
    /// `metadata.name`.
    pub name: String,
    /// The `kubernetes.io/hostname` label.
    pub hostname: Option<String>,
    /// `status.addresses` of type InternalIP.
    pub internal_ips: Vec<String>,
    /// True when it carries the control-plane label.
    pub control_plane: bool,
}

/// A VM and its node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedNode {
    /// The VM's id.
    pub vm_id: String,
    /// The VM's name.
    pub vm_name: String,
    /// The node's name.
    pub node_name: String,
    /// The node type (from the VM).
    pub node_type: NodeType,
    /// The address they share (the node's InternalIP).
    pub address: String,
}

/// The outcome of matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMap {
    /// The VMs with their nodes.
    pub matched: Vec<MatchedNode>,
    /// VMs no node has an address of: (VM name, type).
    pub vms_without_node: Vec<(String, NodeType)>,
    /// Nodes whose InternalIP no VM has: (node name, type: control for the control-plane label,
    /// else worker).
    pub nodes_without_vm: Vec<(String, NodeType)>,
}

impl NodeMap {
    /// The matched nodes of `t`.
    pub fn of_type(&self, t: NodeType) -> impl Iterator<Item = &MatchedNode> {
        self.matched.iter().filter(move |m| m.node_type == t)
    }

    /// Why each node type cannot be rolled out, naming the VMs and nodes.
    pub fn blocked(&self) -> BTreeMap<NodeType, Vec<String>> {
        let mut out: BTreeMap<NodeType, Vec<String>> = BTreeMap::new();
        for (vm, t) in &self.vms_without_node {
            out.entry(*t).or_default().push(format!(
                "VM {vm} has no Kubernetes node (no node's InternalIP is one of its addresses)"
            ));
        }
        for (node, t) in &self.nodes_without_vm {
            out.entry(*t).or_default().push(format!(
                "node {node} has no VM in the cluster (no VM has its InternalIP)"
            ));
        }
        out
    }
}

/// Reads the nodes of one `GET /api/v1/nodes` answer (a node without a name left out).
pub fn parse_nodes(list: &Value) -> Vec<KubeNode> {
    NodeList::read(list.clone())
        .items
        .into_iter()
        .filter(|n| !n.metadata.name.is_empty())
        .map(|n| {
            let labels = &n.metadata.labels;
            KubeNode {
                hostname: labels.get("kubernetes.io/hostname").cloned(),
                control_plane: labels.contains_key(CONTROL_PLANE_LABEL)
                    || labels.contains_key("node-role.kubernetes.io/master"),
                internal_ips: n.internal_ips(),
                name: n.metadata.name,
            }
        })
        .collect()
}

/// Matches VMs to nodes by address. External etcd VMs run no kubelet, so they have no node:
/// each keeps its VM name and first address.
pub fn match_nodes(vms: &[ClusterVm], nodes: &[KubeNode]) -> NodeMap {
    let mut map = NodeMap::default();
    let mut taken = vec![false; nodes.len()];
    for vm in vms {
        if vm.node_type == NodeType::Etcd {
            map.matched.push(MatchedNode {
                vm_id: vm.id.clone(),
                vm_name: vm.name.clone(),
                node_name: vm.name.to_lowercase(),
                node_type: vm.node_type,
                address: vm.addresses.first().cloned().unwrap_or_default(),
            });
            continue;
        }
        let found = nodes.iter().enumerate().find_map(|(i, n)| {
            let address = n.internal_ips.iter().find(|ip| vm.addresses.contains(ip))?;
            (!taken[i]).then(|| (i, address.clone()))
        });
        match found {
            Some((i, address)) => {
                taken[i] = true;
                map.matched.push(MatchedNode {
                    vm_id: vm.id.clone(),
                    vm_name: vm.name.clone(),
                    node_name: nodes[i].name.clone(),
                    node_type: vm.node_type,
                    address,
                });
            }
            None => map.vms_without_node.push((vm.name.clone(), vm.node_type)),
        }
    }
    for (node, taken) in nodes.iter().zip(taken) {
        if !taken {
            let t = if node.control_plane {
                NodeType::Control
            } else {
                NodeType::Worker
            };
            map.nodes_without_vm.push((node.name.clone(), t));
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vm(id: &str, name: &str, t: NodeType, ip: &str) -> ClusterVm {
        ClusterVm {
            id: id.into(),
            name: name.into(),
            node_type: t,
            addresses: vec![ip.into()],
        }
    }

    fn node(name: &str, ip: &str, control: bool) -> KubeNode {
        KubeNode {
            name: name.into(),
            hostname: Some(name.into()),
            internal_ips: vec![ip.into()],
            control_plane: control,
        }
    }

    #[test]
    fn matches_by_address_not_by_name() {
        let vms = [
            vm("v1", "k1-control-18a2f", NodeType::Control, "10.1.1.10"),
            vm("v2", "k1-node-77c1e", NodeType::Worker, "10.1.1.20"),
        ];
        // The worker's node carries the control VM's name: the address decides.
        let nodes = [
            node("k1-control-18a2f", "10.1.1.20", false),
            node("cp-a.internal", "10.1.1.10", true),
        ];
        let map = match_nodes(&vms, &nodes);
        assert_eq!(map.matched.len(), 2);
        assert_eq!(map.matched[0].node_name, "cp-a.internal");
        assert_eq!(map.matched[1].node_name, "k1-control-18a2f");
        assert_eq!(map.matched[1].vm_name, "k1-node-77c1e");
        assert!(map.blocked().is_empty());
    }

    #[test]
    fn a_name_alone_is_no_match_and_each_gap_blocks_only_its_type() {
        let vms = [
            vm("v1", "k1-control-1", NodeType::Control, "10.1.1.10"),
            vm("v2", "k1-node-1", NodeType::Worker, "10.1.1.20"),
        ];
        let nodes = [
            node("k1-control-1", "10.1.1.10", true),
            // Same name as the worker VM, another address.
            node("k1-node-1", "10.9.9.9", false),
        ];
        let map = match_nodes(&vms, &nodes);
        assert_eq!(map.matched.len(), 1);
        assert_eq!(
            map.vms_without_node,
            [("k1-node-1".to_string(), NodeType::Worker)]
        );
        assert_eq!(
            map.nodes_without_vm,
            [("k1-node-1".to_string(), NodeType::Worker)]
        );
        let blocked = map.blocked();
        assert_eq!(
            blocked.keys().copied().collect::<Vec<_>>(),
            [NodeType::Worker]
        );
        assert!(blocked[&NodeType::Worker][0].contains("VM k1-node-1"));
        assert!(blocked[&NodeType::Worker][1].contains("node k1-node-1"));
    }

    #[test]
    fn reads_internal_ips_hostnames_and_the_control_plane_label() {
        let list = json!({"items": [{
            "metadata": {"name": "a", "labels": {"kubernetes.io/hostname": "a-host", CONTROL_PLANE_LABEL: ""}},
            "status": {"addresses": [{"type": "Hostname", "address": "a-host"}, {"type": "InternalIP", "address": "10.0.0.5"}]}
        }]});
        let nodes = parse_nodes(&list);
        assert_eq!(
            nodes,
            [KubeNode {
                name: "a".into(),
                hostname: Some("a-host".into()),
                internal_ips: vec!["10.0.0.5".into()],
                control_plane: true
            }]
        );
    }
}
