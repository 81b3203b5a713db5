//! etcd health the way CKS checks it: over SSH on a control node (or an external etcd node),
//! `sudo etcdctl ... member list -w json` and `endpoint health --cluster -w json` with the
//! kubeadm client certificates under `/etc/kubernetes/pki/etcd/`. Members are named after the
//! node whose address is in their peer or client URLs, so a member named otherwise still
//! counts for its node.

use std::collections::BTreeMap;

use cks_ssh::{RemoteCommand, RemoteOutput, RemoteRunner, RunError};
use serde_json::Value;

use super::etcd_answer::{EndpointHealth, MemberList};
use crate::model::{EtcdMember, MemberHealth};
use crate::ports::{self, PortError, PortResult};

/// Where kubeadm keeps the etcd certificates on a node.
pub const KUBEADM_ETCD_PKI: &str = "/etc/kubernetes/pki/etcd";

/// How etcdctl is run on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdctlCommand {
    /// The etcdctl program on the node.
    pub etcdctl: String,
    /// The directory holding `ca.crt`, `healthcheck-client.crt` and `healthcheck-client.key`.
    pub pki_dir: String,
    /// Run through `sudo` (the certificates are root's).
    pub sudo: bool,
}

impl Default for EtcdctlCommand {
    fn default() -> Self {
        EtcdctlCommand {
            etcdctl: "etcdctl".to_string(),
            pki_dir: KUBEADM_ETCD_PKI.to_string(),
            sudo: true,
        }
    }
}

impl EtcdctlCommand {
    /// `[sudo] etcdctl --endpoints E --cacert --cert --key ... <words> -w json`.
    pub fn words(&self, endpoints: &[String], words: &[&str]) -> RemoteCommand {
        let dir = self.pki_dir.trim_end_matches('/');
        let mut all: Vec<String> = Vec::new();
        if self.sudo {
            all.push("sudo".into());
        }
        all.push(self.etcdctl.clone());
        all.push(format!("--endpoints={}", endpoints.join(",")));
        all.push(format!("--cacert={dir}/ca.crt"));
        all.push(format!("--cert={dir}/healthcheck-client.crt"));
        all.push(format!("--key={dir}/healthcheck-client.key"));
        all.push("--dial-timeout=2s".into());
        all.push("--command-timeout=3s".into());
        all.extend(words.iter().map(|w| w.to_string()));
        all.extend(["-w".to_string(), "json".to_string()]);
        RemoteCommand::new(all)
    }
}

/// A node etcdctl can be run on.
pub struct EtcdNode {
    /// The node's name.
    pub node: String,
    /// Its address (where its member listens, `https://<address>:2379`).
    pub address: String,
    /// The way to it.
    pub runner: Box<dyn RemoteRunner>,
}

/// Why etcd could not be checked on a node. Each message names the flag that fixes it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EtcdSshError {
    /// SSH refused the connection.
    #[error(
        "SSH to {node} refused: {error}; check the port-forwarding rule in CloudStack or pass --ssh-endpoint {node}=HOST:PORT"
    )]
    Refused {
        /// The node.
        node: String,
        /// The runner's error.
        error: RunError,
    },
    /// The node's host key is not the trusted one.
    #[error(
        "SSH to {node}: {error}; add its key to the --known-hosts file or pin it with --host-key-fingerprint SHA256:..."
    )]
    HostKey {
        /// The node.
        node: String,
        /// The runner's error.
        error: RunError,
    },
    /// The node did not take the key.
    #[error(
        "SSH to {node}: {error}; pass the cluster's key with --ssh-key FILE (and the user with --ssh-user)"
    )]
    Authentication {
        /// The node.
        node: String,
        /// The runner's error.
        error: RunError,
    },
    /// Another SSH failure.
    #[error(
        "SSH to {node}: {error}; check --ssh-endpoint, or give the members with --etcd-endpoint"
    )]
    Ssh {
        /// The node.
        node: String,
        /// The runner's error.
        error: RunError,
    },
    /// etcdctl is not on the node.
    #[error(
        "etcdctl is not installed on {node} ({detail}); install etcd-client there, pass --etcdctl PATH, or give the members with --etcd-endpoint"
    )]
    EtcdctlMissing {
        /// The node.
        node: String,
        /// What the node said.
        detail: String,
    },
    /// The client certificates could not be read.
    #[error(
        "etcdctl on {node} could not read the etcd client certificates in {dir} ({detail}); pass --etcd-pki-dir DIR, or give the members with --etcd-endpoint and --etcd-cacert/--etcd-cert/--etcd-key"
    )]
    Certificates {
        /// The node.
        node: String,
        /// The certificate directory.
        dir: String,
        /// What etcdctl said.
        detail: String,
    },
    /// etcdctl failed otherwise.
    #[error("etcdctl on {node} failed with status {code}: {detail}")]
    Etcdctl {
        /// The node.
        node: String,
        /// Its exit code.
        code: i32,
        /// What it said.
        detail: String,
    },
    /// No node to run etcdctl on.
    #[error("no control or etcd node to check etcd on; give the members with --etcd-endpoint")]
    NoNode,
}

/// The [`ports::Etcd`] port over SSH.
pub struct EtcdOverSsh {
    nodes: Vec<EtcdNode>,
    command: EtcdctlCommand,
    /// Every member node's address → its name, to name the members.
    names: BTreeMap<String, String>,
    /// The answer of a check made just before the first `members` call (see [`EtcdOverSsh::prime`]).
    primed: Option<Vec<EtcdMember>>,
}

fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let hostport = rest.split('/').next().unwrap_or(rest);
    if let Some(v6) = hostport.strip_prefix('[') {
        return v6.split(']').next().unwrap_or(v6);
    }
    hostport.rsplit_once(':').map_or(hostport, |(host, _)| host)
}

fn detail(output: &RemoteOutput) -> String {
    let lines: Vec<&str> = output
        .stderr_tail
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        output
            .stdout
            .trim()
            .lines()
            .last()
            .unwrap_or("no output")
            .to_string()
    } else {
        lines.join(" | ")
    }
}

impl EtcdOverSsh {
    /// Checks over `nodes`, tried in order until one answers.
    pub fn new(nodes: Vec<EtcdNode>, command: EtcdctlCommand) -> Self {
        let names = nodes
            .iter()
            .map(|n| (n.address.clone(), n.node.clone()))
            .collect();
        EtcdOverSsh {
            nodes,
            command,
            names,
            primed: None,
        }
    }

    /// Checks now, returning the error if etcd cannot be checked; the answer serves the next
    /// `members` call, so a caller that probes the route first does not pay for two checks.
    pub fn prime(&mut self) -> Result<(), EtcdSshError> {
        self.primed = Some(self.check()?);
        Ok(())
    }

    fn endpoints(&self, first: &EtcdNode) -> Vec<String> {
        let url = |address: &str| {
            if address.contains(':') {
                format!("https://[{address}]:2379")
            } else {
                format!("https://{address}:2379")
            }
        };
        let mut out = vec![url(&first.address)];
        out.extend(
            self.nodes
                .iter()
                .filter(|n| n.address != first.address)
                .map(|n| url(&n.address)),
        );
        out
    }

    fn run(&self, node: &EtcdNode, words: &[&str]) -> Result<RemoteOutput, EtcdSshError> {
        let command = self.command.words(&self.endpoints(node), words);
        let name = node.node.clone();
        node.runner.run(&command).map_err(|error| match error {
            RunError::ConnectionRefused { .. } | RunError::ConnectTimeout { .. } => {
                EtcdSshError::Refused { node: name, error }
            }
            RunError::HostKeyRejected { .. } => EtcdSshError::HostKey { node: name, error },
            RunError::Authentication { .. } => EtcdSshError::Authentication { node: name, error },
            _ => EtcdSshError::Ssh { node: name, error },
        })
    }

    /// Why a finished etcdctl run is an error, if it is.
    fn failure(&self, node: &EtcdNode, output: &RemoteOutput) -> EtcdSshError {
        let said = detail(output);
        let lower = said.to_lowercase();
        let node = node.node.clone();
        if output.exit_code == 127
            || lower.contains("command not found")
            || (lower.contains("not found") && lower.contains(&self.command.etcdctl.to_lowercase()))
        {
            return EtcdSshError::EtcdctlMissing { node, detail: said };
        }
        let dir = self.command.pki_dir.trim_end_matches('/');
        if lower.contains(&dir.to_lowercase())
            || lower.contains("pem")
            || lower.contains("certificate")
            || lower.contains("x509")
        {
            return EtcdSshError::Certificates {
                node,
                dir: dir.to_string(),
                detail: said,
            };
        }
        EtcdSshError::Etcdctl {
            node,
            code: output.exit_code,
            detail: said,
        }
    }

    fn check_on(&self, node: &EtcdNode) -> Result<Vec<EtcdMember>, EtcdSshError> {
        let listed = self.run(node, &["member", "list"])?;
        let list: Value = match serde_json::from_str(listed.stdout.trim()) {
            Ok(value) if listed.exit_code == 0 => value,
            _ => return Err(self.failure(node, &listed)),
        };
        let health = self.run(node, &["endpoint", "health", "--cluster"])?;
        // etcdctl exits 1 when a member is unhealthy but still prints every endpoint's result.
        let health: Value = match serde_json::from_str(health.stdout.trim()) {
            Ok(value) => value,
            Err(_) => return Err(self.failure(node, &health)),
        };
        Ok(self.members(&list, &health))
    }

    /// The members of a `member list -w json` answer with the health of an
    /// `endpoint health --cluster -w json` answer, named after their nodes.
    pub fn members(&self, list: &Value, health: &Value) -> Vec<EtcdMember> {
        let healthy: BTreeMap<String, bool> = EndpointHealth::read_all(health.clone())
            .into_iter()
            .map(|h| (h.endpoint.trim_end_matches('/').to_string(), h.health))
            .collect();
        MemberList::read(list.clone())
            .map(|l| l.members)
            .unwrap_or_default()
            .into_iter()
            .map(|m| {
                let client_url = m.client_urls.first().cloned().unwrap_or_default();
                let node = m
                    .client_urls
                    .iter()
                    .chain(m.peer_urls.iter())
                    .find_map(|u| self.names.get(url_host(u)));
                let health = match healthy.get(client_url.trim_end_matches('/')) {
                    Some(true) => MemberHealth::Healthy,
                    Some(false) => MemberHealth::Unhealthy,
                    None => MemberHealth::Unknown,
                };
                EtcdMember {
                    name: node.cloned().unwrap_or(m.name),
                    id: m.id,
                    client_url,
                    peer_urls: m.peer_urls,
                    health,
                    learner: m.learner,
                }
            })
            .collect()
    }

    /// Every member with its health, from the first node that answers; the first node's error
    /// when none does.
    pub fn check(&self) -> Result<Vec<EtcdMember>, EtcdSshError> {
        let mut first_error = None;
        for node in &self.nodes {
            match self.check_on(node) {
                Ok(members) => return Ok(members),
                Err(e) => {
                    tracing::debug!(node = %node.node, error = %e, "etcd check over ssh failed");
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or(EtcdSshError::NoNode))
    }
}

impl ports::Etcd for EtcdOverSsh {
    fn members(&mut self) -> PortResult<Vec<EtcdMember>> {
        if let Some(members) = self.primed.take() {
            return Ok(members);
        }
        self.check()
            .map_err(|e| PortError::unavailable(format!("etcd: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Answers(Vec<RemoteOutput>, std::sync::Mutex<usize>);

    impl RemoteRunner for Answers {
        fn run(&self, _: &RemoteCommand) -> Result<RemoteOutput, RunError> {
            let mut at = self.1.lock().unwrap_or_else(|p| p.into_inner());
            let out = self.0[(*at).min(self.0.len() - 1)].clone();
            *at += 1;
            Ok(out)
        }
    }

    fn said(code: i32, stdout: &str, stderr: &str) -> RemoteOutput {
        RemoteOutput {
            exit_code: code,
            stdout: stdout.into(),
            stderr_tail: vec![stderr.into()],
        }
    }

    fn port(answers: Vec<RemoteOutput>) -> EtcdOverSsh {
        EtcdOverSsh::new(
            vec![EtcdNode {
                node: "k1-control-1".into(),
                address: "10.1.1.11".into(),
                runner: Box::new(Answers(answers, Default::default())),
            }],
            EtcdctlCommand::default(),
        )
    }

    #[test]
    fn the_command_is_kubeadms_etcdctl_through_sudo() {
        let command = EtcdctlCommand::default().words(
            &["https://10.1.1.11:2379".into()],
            &["endpoint", "health", "--cluster"],
        );
        assert_eq!(
            command.to_shell(),
            "sudo etcdctl --endpoints=https://10.1.1.11:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt \
             --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key \
             --dial-timeout=2s --command-timeout=3s endpoint health --cluster -w json"
        );
    }

    #[test]
    fn members_are_named_after_the_node_with_their_address() {
        let etcd = EtcdOverSsh::new(
            vec![
                EtcdNode {
                    node: "k1-control-1".into(),
                    address: "10.1.1.11".into(),
                    runner: Box::new(Answers(vec![], Default::default())),
                },
                EtcdNode {
                    node: "k1-control-2".into(),
                    address: "10.1.1.12".into(),
                    runner: Box::new(Answers(vec![], Default::default())),
                },
            ],
            EtcdctlCommand::default(),
        );
        let list = json!({"members": [
            {"ID": 17_000_000_000_000_000_001u64, "name": "etcd-alpha", "peerURLs": ["https://10.1.1.12:2380"], "clientURLs": ["https://10.1.1.12:2379"]},
            {"ID": 2, "name": "etcd-beta", "peerURLs": ["https://10.1.1.11:2380"], "clientURLs": ["https://10.1.1.11:2379"]},
            {"ID": 3, "name": "etcd-gamma", "peerURLs": ["https://10.1.1.99:2380"], "clientURLs": ["https://10.1.1.99:2379"], "isLearner": true}
        ]});
        let health = json!([
            {"endpoint": "https://10.1.1.12:2379", "health": true},
            {"endpoint": "https://10.1.1.11:2379", "health": false, "error": "context deadline exceeded"}
        ]);
        let members = etcd.members(&list, &health);
        let view: Vec<(&str, Option<u64>, MemberHealth, bool)> = members
            .iter()
            .map(|m| (m.name.as_str(), m.id, m.health, m.learner))
            .collect();
        assert_eq!(
            view,
            [
                (
                    "k1-control-2",
                    Some(17_000_000_000_000_000_001),
                    MemberHealth::Healthy,
                    false
                ),
                ("k1-control-1", Some(2), MemberHealth::Unhealthy, false),
                ("etcd-gamma", Some(3), MemberHealth::Unknown, true),
            ]
        );
        assert_eq!(members[0].peer_urls, ["https://10.1.1.12:2380"]);
    }

    #[test]
    fn a_missing_etcdctl_and_unreadable_certificates_name_their_flags() {
        let missing = port(vec![said(1, "", "sudo: etcdctl: command not found")]).check();
        let text = missing.expect_err("missing").to_string();
        assert!(
            text.starts_with("etcdctl is not installed on k1-control-1")
                && text.contains("--etcdctl PATH"),
            "{text}"
        );
        let certs = port(vec![said(
            1,
            "",
            "Error: open /etc/kubernetes/pki/etcd/healthcheck-client.crt: no such file or directory",
        )])
        .check();
        let text = certs.expect_err("unreadable").to_string();
        assert!(
            text.contains("could not read the etcd client certificates")
                && text.contains("--etcd-pki-dir DIR"),
            "{text}"
        );
    }

    #[test]
    fn urls_give_their_hosts() {
        assert_eq!(url_host("https://10.0.0.1:2379"), "10.0.0.1");
        assert_eq!(url_host("https://[fd00::1]:2379/"), "fd00::1");
        assert_eq!(url_host("http://node-a:2380"), "node-a");
    }
}
