//! A CKS cluster reachable the way CKS reaches it, for the discovery tests: 3 control nodes and
//! 2 workers on their own loopback addresses (127.x.y.1-5); the CloudStack fake holding the
//! cluster's kubeconfig, its NIC addresses, its public address (127.0.0.1) and the SSH
//! port-forwarding rules; a TLS API server per control node on `<InternalIP>:6443` and the
//! cluster endpoint, all under one test CA; a real 3-member etcd listening on the control nodes'
//! addresses with member names unlike the node names; and a real sshd per control node that
//! lets the `cloud` user in with one cluster key and shows it kubeadm's etcd certificates at
//! `/etc/kubernetes/pki/etcd` (a private mount namespace per node).

#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::etcd::{EtcdCluster, write_kubeadm_client_pki};
use cks_fixtures::kube_api::{KubeApiFake, KubeWorld};
use cks_fixtures::sshd::{NodeOptions, Sshd, node_addresses};
use cks_fixtures::tls::TestCa;
use serde_json::json;

pub const CONTROL: [&str; 3] = ["k1-control-1", "k1-control-2", "k1-control-3"];
pub const WORKERS: [&str; 2] = ["k1-node-1", "k1-node-2"];
/// etcd's own member names: nothing like the nodes'.
pub const MEMBERS: [&str; 3] = ["etcd-alpha", "etcd-bravo", "etcd-charlie"];
pub const KUBE_TOKEN: &str = "discovery-token";
pub const KUBEADM_PKI: &str = "/etc/kubernetes/pki/etcd";

/// How each control node differs (to show what happens when a piece is missing).
#[derive(Debug, Clone, Default)]
pub struct Variant {
    /// Store no kubeconfig in CloudStack.
    pub no_kubeconfig: bool,
    /// Leave out the port-forwarding rule of this control node (index).
    pub no_rule_for: Option<usize>,
    /// etcdctl is not installed on any node.
    pub no_etcdctl: bool,
    /// The nodes have no etcd client certificates.
    pub no_certificates: bool,
    /// The last worker's node reports an InternalIP no VM has.
    pub stray_worker: bool,
}

pub struct Cluster {
    pub cluster_id: String,
    pub cloud: CloudWorld,
    pub kube: KubeWorld,
    pub big: String,
    pub small: String,
    pub addresses: Vec<Ipv4Addr>,
    pub vm_ids: Vec<String>,
    pub public_ip_id: String,
    pub etcd: EtcdCluster,
    pub sshds: Vec<Sshd>,
    pub key: PathBuf,
    pub known_hosts: PathBuf,
    pub dir: tempfile::TempDir,
    pub cloud_api: CloudStackFake,
    pub _apis: Vec<KubeApiFake>,
}

pub fn cluster() -> Cluster {
    cluster_with(&Variant::default())
}

pub fn cluster_with(variant: &Variant) -> Cluster {
    let addresses = node_addresses(CONTROL.len() + WORKERS.len()).expect("loopback addresses");
    let ca = TestCa::new().expect("test CA");
    let dir = tempfile::tempdir().expect("temp dir");

    let kube = KubeWorld::new();
    kube.require_token(KUBE_TOKEN);
    let cloud = CloudWorld::new("disc-key", "disc-secret");
    cloud.link_kube(kube.clone());
    let small = cloud.add_service_offering("small", 2, 4096);
    let big = cloud.add_service_offering("big", 4, 8192);
    let custom = cloud.add_disk_offering("custom", 0);
    let mut vm_ids = Vec::new();
    for (i, name) in CONTROL.iter().chain(WORKERS.iter()).enumerate() {
        kube.add_node(name, 2, 4096);
        {
            let mut state = kube.lock();
            let node = state.nodes.get_mut(*name).expect("node");
            let stray = variant.stray_worker && *name == WORKERS[WORKERS.len() - 1];
            let internal = if stray {
                "192.0.2.99".to_string()
            } else {
                addresses[i].to_string()
            };
            node["status"]["addresses"] = json!([
                {"type": "InternalIP", "address": internal},
                {"type": "Hostname", "address": name},
            ]);
            if i < CONTROL.len() {
                node["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] = json!("");
            }
        }
        let vm = cloud.add_vm(name, &small, 20, &custom, &[]);
        cloud.set_vm_address(&vm, &addresses[i].to_string());
        vm_ids.push(vm);
    }
    let cluster_id = cloud.add_cluster("k1", &vm_ids);
    let public_ip_id = cloud
        .set_cluster_network(&cluster_id, "Isolated", Some("127.0.0.1"))
        .expect("public address");

    // The cluster endpoint (the kubeconfig's server) and each control node's own API server.
    let mut apis = Vec::new();
    let endpoint = KubeApiFake::start_with(
        kube.clone(),
        Some(CONTROL[0]),
        Some(ca.server_config(false).expect("tls")),
    )
    .expect("cluster endpoint");
    for (i, name) in CONTROL.iter().enumerate() {
        let ip = IpAddr::V4(addresses[i]);
        let tls = ca.server_config_for(&[ip], false).expect("tls");
        apis.push(
            KubeApiFake::start_at(
                kube.clone(),
                Some(name),
                Some(tls),
                SocketAddr::new(ip, 6443),
            )
            .expect("control node API server"),
        );
    }
    let kubeconfig = dir.path().join("kubeconfig");
    endpoint
        .write_kubeconfig_with(&kubeconfig, Some(KUBE_TOKEN), Some(&ca.cert_pem()), None)
        .expect("kubeconfig");
    if !variant.no_kubeconfig {
        let text = std::fs::read_to_string(&kubeconfig).expect("kubeconfig text");
        cloud.set_kubeconfig(&cluster_id, &text);
    }
    std::fs::remove_file(&kubeconfig).expect("only CloudStack keeps it");
    apis.push(endpoint);

    let members: Vec<(&str, IpAddr)> = MEMBERS
        .iter()
        .zip(&addresses)
        .map(|(name, ip)| (*name, IpAddr::V4(*ip)))
        .collect();
    let etcd = EtcdCluster::start_on_addresses(&members, &ca).expect("etcd");

    let mut sshds: Vec<Sshd> = Vec::new();
    for (i, _) in CONTROL.iter().enumerate() {
        let pki = dir.path().join(format!("pki-{i}"));
        std::fs::create_dir_all(&pki).expect("pki dir");
        if !variant.no_certificates {
            write_kubeadm_client_pki(&ca, &pki).expect("pki");
        }
        let options = NodeOptions {
            user: Some("cloud".into()),
            bind_dirs: vec![(pki, PathBuf::from(KUBEADM_PKI))],
            missing_programs: if variant.no_etcdctl {
                vec![PathBuf::from("/usr/bin/etcdctl")]
            } else {
                vec![]
            },
        };
        sshds.push(Sshd::start_with(&options).expect("sshd"));
    }
    // One cluster key for every node, as CKS gives them.
    let key = sshds[0].client_key();
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    for sshd in &sshds[1..] {
        let authorized = sshd.dir().join("authorized_keys");
        let mut text = std::fs::read_to_string(&authorized).expect("authorized_keys");
        text.push_str(&public);
        std::fs::write(&authorized, text).expect("authorized_keys");
    }
    let mut known = String::new();
    for sshd in &sshds {
        let mut fields = sshd.host_public_key().split_whitespace();
        let (kind, blob) = (fields.next().expect("kind"), fields.next().expect("key"));
        known.push_str(&format!("[127.0.0.1]:{} {kind} {blob}\n", sshd.port()));
    }
    let known_hosts = dir.path().join("known_hosts");
    std::fs::write(&known_hosts, known).expect("known_hosts");
    for (i, sshd) in sshds.iter().enumerate() {
        if variant.no_rule_for != Some(i) {
            cloud.add_port_forward(&public_ip_id, sshd.port(), &vm_ids[i], 22);
        }
    }
    let cloud_api = CloudStackFake::start(cloud.clone()).expect("CloudStack fake");
    Cluster {
        cluster_id,
        cloud,
        kube,
        big,
        small,
        addresses,
        vm_ids,
        public_ip_id,
        etcd,
        sshds,
        key,
        known_hosts,
        dir,
        cloud_api,
        _apis: apis,
    }
}

impl Cluster {
    /// `cks-rollout <command> --cluster-id X --ssh-key K --known-hosts F`, with the CloudStack
    /// credentials in the environment and nothing else: run in the temp dir, so the store is
    /// its default `cks-rollout.db` there.
    pub fn rollout(&self, command: &str) -> Command {
        self.rollout_trusting(command, &self.known_hosts)
    }

    /// [`Cluster::rollout`] with another known_hosts file.
    pub fn rollout_trusting(&self, command: &str, known_hosts: &Path) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
        cmd.current_dir(self.dir.path())
            .arg(command)
            .args(["--cluster-id", &self.cluster_id])
            .arg("--ssh-key")
            .arg(&self.key)
            .arg("--known-hosts")
            .arg(known_hosts)
            .env("CLOUDSTACK_ENDPOINT", self.cloud_api.endpoint())
            .env("CLOUDSTACK_KEY", "disc-key")
            .env("CLOUDSTACK_SECRET", "disc-secret")
            .env("CLOUDSTACK_POLL_INTERVAL", "0.01")
            .env_remove("CLOUDSTACK_CONFIG")
            .env_remove("KUBECONFIG")
            .env_remove("CKS_ROLLOUT_STORE")
            .env("TMPDIR", self.tmp());
        cmd
    }

    /// The commands' TMPDIR: where a kubeconfig from CloudStack is kept while they run.
    pub fn tmp(&self) -> PathBuf {
        let tmp = self.dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmp dir");
        tmp
    }

    /// The store the commands use.
    pub fn store_path(&self) -> PathBuf {
        self.dir.path().join("cks-rollout.db")
    }

    /// Where the temp dir is (no kubeconfig may be left in it).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// stdout and stderr of a finished command.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
