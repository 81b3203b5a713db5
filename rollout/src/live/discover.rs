//! Discovery for the live commands: from the cluster id and CloudStack alone, the kubeconfig,
//! which VM is which node, each control node's API server and etcd checked over SSH on a control
//! (or external etcd) node. Flags override each piece; what cannot be found is kept as a
//! one-line error naming the flag that supplies it, returned when a command needs it.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::adapters::cloudstack::{CloudStackClient, CloudStackCloud};
use crate::adapters::etcd_ssh::{EtcdNode, EtcdOverSsh, EtcdctlCommand};
use crate::adapters::kube::{KubeAccess, KubeApi, KubeClient, list_nodes};
use crate::model::NodeType;
use crate::ports::{Etcd, Kube};
use cks_discovery::HostKeys;
use cks_discovery::ssh_access;
use cks_discovery::{
    FetchedKubeconfig, MatchedNode, NodeMap, cluster_api, fetched_kubeconfig, nodes,
};
use cks_ssh::openssh::{SshConfig, SshRunner};

use super::options::LiveOptions;

/// What discovery found, and what it could not.
#[derive(Default)]
pub struct Discovery {
    /// The Kubernetes port, when a kubeconfig (given or from CloudStack) was read.
    pub kube: Option<Box<dyn Kube>>,
    /// The etcd port over SSH, when etcd answered through it.
    pub etcd: Option<Box<dyn Etcd>>,
    /// VM id → node name, for the VMs matched to a node.
    node_names: BTreeMap<String, String>,
    /// Why a node type cannot be rolled out.
    blocked: BTreeMap<NodeType, Vec<String>>,
    /// What could not be found, one line each, and whether the Kubernetes port, the etcd port
    /// or both needed it.
    errors: Vec<(Needs, String)>,
    /// Held so the private kubeconfig file lives as long as the ports.
    _kubeconfig: Option<FetchedKubeconfig>,
    /// Each node's SSH way in (for the reboot check), when one was found.
    pub node_ssh: Vec<(String, SshConfig)>,
}

const TIMEOUT: Duration = Duration::from_secs(30);

/// Which ports a failed discovery step leaves without what they need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    /// Both (the cluster, its kubeconfig or its nodes could not be read).
    Both,
    /// The Kubernetes port.
    Kube,
    /// The etcd port.
    Etcd,
}

/// A failed step and the ports it leaves short.
struct Failed(Needs, anyhow::Error);

fn step<E: Into<anyhow::Error>>(needs: Needs) -> impl FnOnce(E) -> Failed {
    move |e| Failed(needs, e.into())
}

fn url_host(address: &str) -> String {
    if address.contains(':') {
        format!("[{address}]")
    } else {
        address.to_string()
    }
}

impl Discovery {
    /// Finds what `args` does not give, through `client`.
    pub fn run(args: &LiveOptions, client: Option<&CloudStackClient>) -> Self {
        let mut found = Discovery::default();
        let Some(client) = client else {
            return found;
        };
        if let Err(Failed(needs, e)) = found.find(args, client) {
            tracing::debug!("discovery: {e:#}");
            found.errors.push((needs, format!("{e:#}")));
        }
        found
    }

    fn find(&mut self, args: &LiveOptions, client: &CloudStackClient) -> Result<(), Failed> {
        let both = Needs::Both;
        let info = cluster_api::cluster_info(client, &args.cluster_id).map_err(step(both))?;
        let path = match &args.kubeconfig {
            Some(path) => path.clone(),
            None => {
                let data =
                    cluster_api::kubeconfig_data(client, &args.cluster_id).map_err(step(both))?;
                fetched_kubeconfig::check_fetched_kubeconfig(&data).map_err(step(both))?;
                let kept = FetchedKubeconfig::keep(&data).map_err(step(both))?;
                let path = kept.path().to_path_buf();
                super::cleanup::remove_on_exit(&path);
                self._kubeconfig = Some(kept);
                path
            }
        };
        let access = KubeAccess::from_kubeconfig(&path, args.context.as_deref()).map_err(|e| {
            Failed(
                both,
                anyhow::anyhow!(
                    "the cluster's kubeconfig{}: {e}; pass --kubeconfig FILE",
                    if args.kubeconfig.is_none() {
                        " from CloudStack"
                    } else {
                        ""
                    }
                ),
            )
        })?;
        let listed = list_nodes(&access, TIMEOUT, args.max_answer_size).map_err(step(both))?;
        // Without any NIC address in CloudStack's answer there is nothing to match by: the VMs
        // keep their names, and the flags must give the endpoints.
        let addressed = info.vms.iter().any(|vm| !vm.addresses.is_empty());
        let map = if addressed {
            nodes::match_nodes(&info.vms, &listed)
        } else {
            NodeMap::default()
        };
        self.node_names = map
            .matched
            .iter()
            .filter(|m| m.node_type != NodeType::Etcd)
            .map(|m| (m.vm_id.clone(), m.node_name.clone()))
            .collect();
        self.blocked = map.blocked();

        // Each control node's own API server, checked with the kubeconfig's CA; flags win.
        let mut control: BTreeMap<String, String> = map
            .of_type(NodeType::Control)
            .map(|m| {
                (
                    m.node_name.clone(),
                    format!("https://{}:6443", url_host(&m.address)),
                )
            })
            .collect();
        control.extend(args.control_endpoints.clone());
        let client_kube = KubeClient::new(&access, TIMEOUT)
            .map_err(step(Needs::Kube))?
            .with_max_answer(args.max_answer_size);
        self.kube = Some(Box::new(KubeApi::new(client_kube, &control)));

        if args.etcd_endpoints.is_empty() {
            if !addressed {
                return Err(Failed(
                    Needs::Etcd,
                    anyhow::anyhow!(
                        "CloudStack reports no NIC address for the VMs of cluster {}, so no node to check etcd on is known; pass --etcd-endpoint NAME=URL per member",
                        args.cluster_id
                    ),
                ));
            }
            let mut node_ssh = Vec::new();
            let etcd = self.etcd_over_ssh(args, client, &info, &map, &mut node_ssh);
            self.node_ssh = node_ssh;
            let mut etcd = etcd.map_err(step(Needs::Etcd))?;
            etcd.prime().map_err(step(Needs::Etcd))?;
            self.etcd = Some(Box::new(etcd));
        }
        Ok(())
    }

    /// The first error that leaves the port `needs` names without what it needs.
    fn first_error(&self, kube: bool) -> Option<&str> {
        self.errors
            .iter()
            .find(|(needs, _)| match needs {
                Needs::Both => true,
                Needs::Kube => kube,
                Needs::Etcd => !kube,
            })
            .map(|(_, text)| text.as_str())
    }

    fn etcd_over_ssh(
        &self,
        args: &LiveOptions,
        client: &CloudStackClient,
        info: &cluster_api::ClusterInfo,
        map: &NodeMap,
        node_ssh: &mut Vec<(String, SshConfig)>,
    ) -> Result<EtcdOverSsh> {
        let ssh = &args.ssh;
        let Some(key) = &ssh.ssh_key else {
            bail!(
                "no way to check etcd: pass --ssh-key FILE (the cluster's SSH key; etcd is then checked on a control node) or --etcd-endpoint NAME=URL per member"
            );
        };
        if ssh.known_hosts.is_none() && ssh.host_key_fingerprints.is_empty() {
            bail!(
                "no trusted SSH host keys for the nodes: pass --known-hosts FILE or --host-key-fingerprint SHA256:..."
            );
        }
        let host_keys = HostKeys::new(ssh.known_hosts.as_deref(), &ssh.host_key_fingerprints)?;
        let overrides = &ssh.ssh_endpoints;
        let members_on = if map.of_type(NodeType::Etcd).next().is_some() {
            NodeType::Etcd
        } else {
            NodeType::Control
        };
        let candidates: Vec<_> = map.of_type(members_on).collect();
        let config_for = |node: &MatchedNode, address| -> Result<SshConfig> {
            let policy = host_keys.policy_for(&node.node_name)?;
            let mut config = SshConfig::new(address, &ssh.ssh_user, key, policy);
            config.command_timeout = Duration::from_secs(60);
            Ok(config)
        };
        let addresses = ssh_access::node_addresses(client, info, &candidates, overrides)?;
        let mut etcd_nodes = Vec::new();
        for (node, address) in candidates.into_iter().zip(addresses) {
            etcd_nodes.push(EtcdNode {
                node: node.node_name.clone(),
                address: node.address.clone(),
                runner: Box::new(SshRunner::new(config_for(node, address)?)),
            });
        }
        // Every node's way in, for the look at /var/run/reboot-required (`run --restart
        // reboot-required`); a node with none is named when it is looked at.
        let all: Vec<_> = [NodeType::Control, NodeType::Etcd, NodeType::Worker]
            .into_iter()
            .flat_map(|t| map.of_type(t))
            .collect();
        let addressed: Vec<_> = match ssh_access::node_addresses(client, info, &all, overrides) {
            Ok(addresses) => all
                .into_iter()
                .zip(addresses.into_iter().map(Some))
                .collect(),
            // One node without a route: each asked alone, so the others keep theirs.
            Err(_) => all
                .into_iter()
                .map(|node| {
                    let address = ssh_access::node_addresses(client, info, &[node], overrides)
                        .ok()
                        .and_then(|mut a| a.pop());
                    (node, address)
                })
                .collect(),
        };
        for (node, address) in addressed {
            if let Some(address) = address
                && let Ok(config) = config_for(node, address)
            {
                node_ssh.push((node.node_name.clone(), config));
            }
        }
        let command = EtcdctlCommand {
            etcdctl: ssh.etcdctl.clone(),
            pki_dir: ssh.etcd_pki_dir.clone(),
            sudo: true,
        };
        Ok(EtcdOverSsh::new(etcd_nodes, command))
    }

    /// The cloud port, naming each VM after the node matched to it and saying which node
    /// types could not be matched.
    pub fn named(&self, cloud: CloudStackCloud) -> CloudStackCloud {
        cloud.with_nodes(self.node_names.clone(), self.blocked.clone())
    }

    /// Why there is no Kubernetes port, for the port that answers in its place.
    pub fn kube_hint(&self) -> String {
        self.first_error(true)
            .map(str::to_string)
            .unwrap_or_else(|| "no kubeconfig: pass --kubeconfig or set KUBECONFIG".into())
    }

    /// Why there is no etcd port, for the port that answers in its place.
    pub fn etcd_hint(&self) -> String {
        self.first_error(false).map(str::to_string).unwrap_or_else(|| {
            "no etcd route: pass --ssh-key with --known-hosts, or --etcd-endpoint NAME=URL per member"
                .into()
        })
    }

    /// For `plan` and `run`: the first thing not found that the command needs, as an error.
    pub fn check_found(&self, args: &LiveOptions) -> Result<()> {
        if args.kubeconfig.is_none()
            && let Some(first) = self.first_error(true)
        {
            bail!("{first}");
        }
        if args.etcd_endpoints.is_empty()
            && let Some(first) = self.first_error(false)
        {
            bail!("{first}");
        }
        Ok(())
    }
}
