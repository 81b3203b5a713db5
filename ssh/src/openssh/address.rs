//! Where CKS reaches a cluster's first control node over SSH.

use std::fmt;

use serde::Serialize;

/// The SSH port CKS forwards to the first control node on the cluster's public address.
pub const NAT_SSH_PORT: u16 = 2222;
/// The SSH port on a node's private address.
pub const DIRECT_SSH_PORT: u16 = 22;

/// How the first control node is reached, following CKS's addressing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "network", rename_all = "snake_case")]
pub enum NodeAddress {
    /// Behind the network's NAT: the cluster's public address, on the forwarded port (2222 for
    /// the first control node; CKS gives node `i` port `2222 + i`).
    BehindNat {
        /// The cluster's public IP address or name.
        public_address: String,
        /// The forwarded port.
        port: u16,
    },
    /// A direct-access network (shared or routed): the node's private address on port 22.
    Direct {
        /// The node's private IP address or name.
        private_address: String,
    },
}

impl NodeAddress {
    /// The first control node behind NAT: `public_address`, port 2222.
    pub fn behind_nat(public_address: &str) -> Self {
        NodeAddress::BehindNat {
            public_address: public_address.to_string(),
            port: NAT_SSH_PORT,
        }
    }

    /// A node on a direct-access network: `private_address`, port 22.
    pub fn direct(private_address: &str) -> Self {
        NodeAddress::Direct {
            private_address: private_address.to_string(),
        }
    }

    /// The host to connect to.
    pub fn host(&self) -> &str {
        match self {
            NodeAddress::BehindNat { public_address, .. } => public_address,
            NodeAddress::Direct { private_address } => private_address,
        }
    }

    /// The port to connect to.
    pub fn port(&self) -> u16 {
        match self {
            NodeAddress::BehindNat { port, .. } => *port,
            NodeAddress::Direct { .. } => DIRECT_SSH_PORT,
        }
    }
}

impl fmt::Display for NodeAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host().contains(':') {
            write!(f, "[{}]:{}", self.host(), self.port())
        } else {
            write!(f, "{}:{}", self.host(), self.port())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_cks_addressing() {
        let nat = NodeAddress::behind_nat("203.0.113.7");
        assert_eq!((nat.host(), nat.port()), ("203.0.113.7", 2222));
        let direct = NodeAddress::direct("10.1.1.5");
        assert_eq!((direct.host(), direct.port()), ("10.1.1.5", 22));
        assert_eq!(direct.to_string(), "10.1.1.5:22");
        assert_eq!(NodeAddress::direct("fd00::5").to_string(), "[fd00::5]:22");
    }
}
