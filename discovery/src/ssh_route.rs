//! Where a node's SSH server is, as CKS reaches it: behind the virtual router, the cluster's
//! public address on the port its port-forwarding rule gives (CKS makes them 2222 + index, but
//! the rules say, not the index); on a network the caller reaches directly (a Shared or L2
//! network, or no public address), the node's own address on port 22.

use cks_ssh::openssh::NodeAddress;

use super::cluster_api::PortForward;
use super::nodes::MatchedNode;
use crate::error::DiscoveryError;

/// How the cluster's nodes are reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SshRoute {
    /// Through the public address's port-forwarding rules.
    Nat {
        /// The cluster's public address.
        public_address: String,
    },
    /// Each node's private address, port 22.
    Direct,
}

impl SshRoute {
    /// The route for a cluster on a network of `network_kind` with `public_address`.
    pub fn for_network(network_kind: Option<&str>, public_address: Option<&str>) -> Self {
        let direct_network = network_kind
            .is_some_and(|k| k.eq_ignore_ascii_case("Shared") || k.eq_ignore_ascii_case("L2"));
        match public_address {
            Some(address) if !direct_network => SshRoute::Nat {
                public_address: address.to_string(),
            },
            _ => SshRoute::Direct,
        }
    }

    /// Where `node`'s SSH server is on this route.
    pub fn address(
        &self,
        node: &MatchedNode,
        rules: &[PortForward],
    ) -> Result<NodeAddress, DiscoveryError> {
        match self {
            SshRoute::Direct => Ok(NodeAddress::direct(&node.address)),
            SshRoute::Nat { public_address } => rules
                .iter()
                .find(|r| r.vm_id == node.vm_id && r.private_port == 22)
                .map(|r| NodeAddress::BehindNat {
                    public_address: r.public_address.clone(),
                    port: r.public_port,
                })
                .ok_or_else(|| DiscoveryError::NoPortForward {
                    node: node.node_name.clone(),
                    vm: node.vm_id.clone(),
                    public_address: public_address.clone(),
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node_type::NodeType;

    fn node(vm: &str, name: &str) -> MatchedNode {
        MatchedNode {
            vm_id: vm.into(),
            vm_name: name.into(),
            node_name: name.into(),
            node_type: NodeType::Control,
            address: "10.1.1.11".into(),
        }
    }

    fn rule(vm: &str, public: u16, private: u16) -> PortForward {
        PortForward {
            public_address: "203.0.113.7".into(),
            public_port: public,
            private_port: private,
            vm_id: vm.into(),
        }
    }

    #[test]
    fn behind_nat_the_rule_gives_the_port() {
        let route = SshRoute::for_network(Some("Isolated"), Some("203.0.113.7"));
        // Rules in any order, and a 6443 rule for the same VM that is not SSH.
        let rules = [
            rule("v2", 6443, 6443),
            rule("v2", 2224, 22),
            rule("v1", 2222, 22),
        ];
        let address = route
            .address(&node("v2", "k1-control-2"), &rules)
            .expect("found");
        assert_eq!(address.to_string(), "203.0.113.7:2224");
    }

    #[test]
    fn a_missing_rule_names_the_node_and_the_flag() {
        let route = SshRoute::for_network(None, Some("203.0.113.7"));
        let error = route
            .address(&node("v3", "k1-control-3"), &[rule("v1", 2222, 22)])
            .expect_err("no rule");
        let text = error.to_string();
        assert!(
            text.contains("k1-control-3") && text.contains("--ssh-endpoint k1-control-3=HOST:PORT"),
            "{text}"
        );
    }

    #[test]
    fn shared_networks_and_clusters_without_a_public_address_go_direct_on_port_22() {
        for route in [
            SshRoute::for_network(Some("Shared"), Some("203.0.113.7")),
            SshRoute::for_network(Some("Isolated"), None),
        ] {
            assert_eq!(route, SshRoute::Direct);
            let address = route
                .address(&node("v1", "k1-control-1"), &[])
                .expect("direct");
            assert_eq!(address.to_string(), "10.1.1.11:22");
        }
    }
}
