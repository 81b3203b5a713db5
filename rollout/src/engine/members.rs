//! Which etcd member runs on which node: by address (a client or peer URL on one of the VM's
//! IP addresses), or by name when the addresses do not tell. Never by name alone when names
//! could belong to another node.

use crate::model::{EtcdMember, Vm};

/// The host part of a URL (`https://10.1.0.5:2379` → `10.1.0.5`, `[fd00::5]` → `fd00::5`).
pub fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or(v6);
    }
    authority.split(':').next().unwrap_or(authority)
}

fn on_address(m: &EtcdMember, ips: &[String]) -> bool {
    std::iter::once(&m.client_url)
        .chain(m.peer_urls.iter())
        .any(|u| ips.iter().any(|ip| ip == url_host(u)))
}

/// A node whose own etcd member cannot be told apart; the message names the node, its VM and
/// addresses, and every member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the etcd member of node {node} (VM {vm}, {addresses}) cannot be identified: {why} among members {members}; it is not stopped"
)]
pub struct UnknownMember {
    /// The node.
    pub node: String,
    /// Its VM.
    pub vm: String,
    /// The VM's addresses, or "no known address".
    pub addresses: String,
    /// Why the addresses and names do not tell.
    pub why: &'static str,
    /// Every member, as `name (client URL)`.
    pub members: String,
}

/// The member running on `vm`: the one member with a URL on one of the VM's addresses; among
/// several (or none), the one named after the node or VM. [`UnknownMember`] when it cannot be
/// told.
pub fn member_of<'a>(vm: &Vm, members: &'a [EtcdMember]) -> Result<&'a EtcdMember, UnknownMember> {
    let by_address: Vec<&EtcdMember> = members
        .iter()
        .filter(|m| on_address(m, &vm.ip_addresses))
        .collect();
    if by_address.len() == 1 {
        return Ok(by_address[0]);
    }
    let candidates: Vec<&EtcdMember> = if by_address.is_empty() {
        members.iter().collect()
    } else {
        by_address.clone()
    };
    let by_name: Vec<&EtcdMember> = candidates
        .into_iter()
        .filter(|m| m.name == vm.node_name || m.name.eq_ignore_ascii_case(&vm.name))
        .collect();
    if by_name.len() == 1 {
        return Ok(by_name[0]);
    }
    let listed: Vec<String> = members
        .iter()
        .map(|m| format!("{} ({})", m.name, m.client_url))
        .collect();
    Err(UnknownMember {
        node: vm.node_name.clone(),
        vm: vm.name.clone(),
        addresses: if vm.ip_addresses.is_empty() {
            "no known address".to_string()
        } else {
            vm.ip_addresses.join(", ")
        },
        // Here no member, or several, listen on its address.
        why: if by_address.is_empty() {
            "no member listens on its address or is named after it"
        } else {
            "several members listen on its address and none is named after it"
        },
        members: listed.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MemberHealth, NodeType, VmState};

    fn vm(name: &str, ip: &str) -> Vm {
        Vm {
            id: format!("vm-{name}"),
            name: name.to_uppercase(),
            node_name: name.to_string(),
            node_type: NodeType::Control,
            state: VmState::Running,
            service_offering_id: "small".into(),
            affinity_group_ids: vec![],
            ip_addresses: vec![ip.to_string()],
        }
    }

    fn member(name: &str, host: &str) -> EtcdMember {
        EtcdMember {
            name: name.to_string(),
            id: Some(7),
            client_url: format!("https://{host}:2379"),
            peer_urls: vec![format!("https://{host}:2380")],
            health: MemberHealth::Healthy,
            learner: false,
        }
    }

    #[test]
    fn hosts_of_urls() {
        assert_eq!(url_host("https://10.1.0.5:2379"), "10.1.0.5");
        assert_eq!(url_host("http://[fd00::5]:2380/x"), "fd00::5");
        assert_eq!(url_host("10.1.0.6"), "10.1.0.6");
    }

    #[test]
    fn a_member_is_found_by_address_whatever_its_name() {
        let members = [member("etcd-b", "10.0.0.2"), member("c-1", "10.0.0.3")];
        // c-1's member is on 10.0.0.2 even though another member is named c-1.
        assert_eq!(
            member_of(&vm("c-1", "10.0.0.2"), &members).map(|m| &m.name),
            Ok(&"etcd-b".to_string())
        );
    }

    #[test]
    fn a_member_named_after_the_node_or_after_the_vm_is_its_own() {
        // A VM whose name is not its node's: each name alone tells its member.
        let mut v = vm("k1-control-1", "127.0.0.1");
        v.name = "k1-cp-vm-1".into();
        let by_node = [
            member("k1-control-1", "127.0.0.1"),
            member("k1-control-2", "127.0.0.1"),
        ];
        assert_eq!(
            member_of(&v, &by_node).map(|m| &m.name),
            Ok(&"k1-control-1".to_string())
        );
        let by_vm = [
            member("K1-CP-VM-1", "127.0.0.1"),
            member("k1-cp-vm-2", "127.0.0.1"),
        ];
        assert_eq!(
            member_of(&v, &by_vm).map(|m| &m.name),
            Ok(&"K1-CP-VM-1".to_string())
        );
    }

    #[test]
    fn a_shared_address_is_told_apart_by_name_and_otherwise_refused() {
        let members = [member("c-1", "127.0.0.1"), member("c-2", "127.0.0.1")];
        assert_eq!(
            member_of(&vm("c-2", "127.0.0.1"), &members).map(|m| &m.name),
            Ok(&"c-2".to_string())
        );
        let e = member_of(&vm("c-3", "10.9.9.9"), &members)
            .expect_err("unknown")
            .to_string();
        assert!(
            e.contains("c-3") && e.contains("c-1 (") && e.contains("c-2 ("),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_member_says_whether_its_address_was_shared_or_unheard_of() {
        let shared = [member("c-1", "127.0.0.1"), member("c-2", "127.0.0.1")];
        let e = member_of(&vm("c-3", "127.0.0.1"), &shared).expect_err("unknown");
        assert_eq!(
            e.why,
            "several members listen on its address and none is named after it"
        );
        let one = [member("c-1", "127.0.0.2")];
        let e = member_of(&vm("c-3", "127.0.0.1"), &one).expect_err("unknown");
        assert_eq!(
            e.why,
            "no member listens on its address or is named after it"
        );
        let none = [member("c-1", "10.0.0.1"), member("c-2", "10.0.0.2")];
        let e = member_of(&vm("c-3", "127.0.0.1"), &none).expect_err("unknown");
        assert_eq!(
            e.why,
            "no member listens on its address or is named after it"
        );
    }
}
