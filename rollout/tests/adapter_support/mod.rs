//! A 3-control, 6-worker CKS cluster for the adapter tests: the CloudStack and Kubernetes fakes
//! sharing one world, one API endpoint per control node plus the cluster's, a real 3-member
//! etcd (named after the control nodes on 127.0.0.1, or, as kubeadm runs it, with etcd's own
//! member names on each control VM's address under mutual TLS), and a SQLite store holding the
//! cluster record.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::etcd::EtcdCluster;
use cks_fixtures::kube_api::{KubeApiFake, KubeWorld, Owner};
use cks_fixtures::sshd::node_addresses;
use cks_fixtures::tls::TestCa;
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::adapters::cloudstack::{
    CloudStackClient, CloudStackCloud, CloudStackConfig, Secret,
};
use cks_rollout::adapters::etcd::{EtcdHealth, KnownMember};
use cks_rollout::adapters::kube::{KubeAccess, KubeApi, KubeClient};
use cks_rollout::adapters::store::SqliteStore;
use cks_rollout::adapters::tls::TlsMaterial;
use cks_rollout::model::{ClusterRecord, ClusterState};
use cks_rollout::ports::Ports;

pub const CONTROL: [&str; 3] = ["k1-control-1", "k1-control-2", "k1-control-3"];
pub const WORKERS: [&str; 6] = [
    "k1-node-1",
    "k1-node-2",
    "k1-node-3",
    "k1-node-4",
    "k1-node-5",
    "k1-node-6",
];

/// etcd's own member names in [`cluster_with_etcd_on_addresses`]: nothing like the nodes'.
pub const MEMBERS: [&str; 3] = ["etcd-alpha", "etcd-bravo", "etcd-charlie"];

pub struct Cluster {
    /// The control VMs' addresses (and one spare no member listens on) when etcd runs on them.
    pub addresses: Vec<std::net::Ipv4Addr>,
    pub vm_ids: Vec<String>,
    pub cloud_endpoint: String,
    pub kubeconfig: PathBuf,
    pub control: BTreeMap<String, String>,
    pub store_path: PathBuf,
    pub kube: KubeWorld,
    pub cloud: CloudWorld,
    pub cluster_id: String,
    pub big: String,
    pub small: String,
    pub _apis: Vec<KubeApiFake>,
    pub _cloud_api: CloudStackFake,
    pub etcd: EtcdCluster,
    pub _dir: tempfile::TempDir,
    pub kube_port: KubeApi,
    pub cloud_port: CloudStackCloud,
    pub etcd_port: EtcdHealth,
    pub store: SqliteStore,
}

pub fn cluster() -> Cluster {
    build(false)
}

/// [`cluster`] with etcd as kubeadm runs it: member `MEMBERS[i]` on control VM `i`'s address
/// (`https://<address>:2379`, mutual TLS), so only addresses tell which member is whose.
pub fn cluster_with_etcd_on_addresses() -> Cluster {
    build(true)
}

fn build(on_addresses: bool) -> Cluster {
    let kube = KubeWorld::new();
    let cloud = CloudWorld::new("e2e-key", "e2e-secret");
    cloud.link_kube(kube.clone());
    let small = cloud.add_service_offering("small", 2, 4096);
    let big = cloud.add_service_offering("big", 4, 8192);
    let custom = cloud.add_disk_offering("custom", 0);
    let mut vm_ids = Vec::new();
    for name in CONTROL.iter().chain(WORKERS.iter()) {
        kube.add_node(name, 2, 4096);
        kube.add_pod(
            "kube-system",
            &format!("proxy-{name}"),
            name,
            &[("app", "proxy")],
            Owner::DaemonSet("proxy".into()),
        );
        vm_ids.push(cloud.add_vm(name, &small, 20, &custom, &[]));
    }
    // Two web replicas, on workers of different batches, and a budget keeping one.
    for (i, worker) in ["k1-node-1", "k1-node-4"].iter().enumerate() {
        kube.add_pod(
            "default",
            &format!("web-{i}"),
            worker,
            &[("app", "web")],
            Owner::ReplicaSet("web-abc".into()),
        );
    }
    kube.add_pdb("default", "web-pdb", &[("app", "web")], 1);
    let cluster_id = cloud.add_cluster("k1", &vm_ids);

    let cloud_api = CloudStackFake::start(cloud.clone()).expect("CloudStack fake");
    let mut config = CloudStackConfig::new(
        cloud_api.endpoint(),
        Secret::new("e2e-key"),
        Secret::new("e2e-secret"),
    );
    config.poll_interval = Duration::from_millis(5);
    config.job_timeout = Duration::from_secs(10);
    let cloud_port = CloudStackCloud::new(CloudStackClient::new(config).expect("client"));

    let dir = tempfile::tempdir().expect("temp dir");
    // The kubeconfig's endpoint is the first control node's API server, as CKS writes it: while
    // that node restarts, only the other control nodes answer.
    let lb = KubeApiFake::start(kube.clone(), Some(CONTROL[0])).expect("cluster endpoint");
    let mut apis = Vec::new();
    let mut control = BTreeMap::new();
    for name in CONTROL {
        let api = KubeApiFake::start(kube.clone(), Some(name)).expect("control endpoint");
        control.insert(name.to_string(), api.url());
        apis.push(api);
    }
    let kubeconfig = dir.path().join("kubeconfig");
    let cloud_endpoint = cloud_api.endpoint();
    lb.write_kubeconfig(&kubeconfig, None).expect("kubeconfig");
    apis.push(lb);
    let access = KubeAccess::from_kubeconfig(&kubeconfig, None).expect("kubeconfig parses");
    let kube_port = KubeApi::new(
        KubeClient::new(&access, Duration::from_secs(5)).expect("client"),
        &control,
    );

    let mut addresses = Vec::new();
    let (etcd, tls) = if on_addresses {
        addresses = node_addresses(CONTROL.len() + 1).expect("loopback addresses");
        for (vm, ip) in vm_ids.iter().zip(&addresses[..CONTROL.len()]) {
            cloud.set_vm_address(vm, &ip.to_string());
        }
        let ca = TestCa::new().expect("test CA");
        let members: Vec<(&str, IpAddr)> = MEMBERS
            .iter()
            .zip(&addresses)
            .map(|(name, ip)| (*name, IpAddr::V4(*ip)))
            .collect();
        let etcd = EtcdCluster::start_on_addresses(&members, &ca).expect("etcd");
        let client = ca.client("cks-rollout").expect("client certificate");
        let tls = TlsMaterial {
            ca_pem: Some(ca.cert_pem().into_bytes()),
            identity_pem: Some(format!("{}\n{}", client.cert, client.key).into_bytes()),
            insecure: false,
        };
        (etcd, tls)
    } else {
        let etcd = EtcdCluster::start_named(&CONTROL).expect("etcd");
        (etcd, TlsMaterial::default())
    };
    let known = etcd
        .members
        .iter()
        .map(|m| KnownMember {
            name: m.name.clone(),
            client_url: m.client_url.clone(),
        })
        .collect();
    // A live member answers on loopback at once; the bound is for a machine under load, where
    // a 3 s one could count a healthy member as unknown. A stopped member refuses at once.
    let etcd_port = EtcdHealth::new(known, &tls, Duration::from_secs(15)).expect("etcd checks");

    let store_path = dir.path().join("rollout.db");
    let mut store = SqliteStore::open(&store_path).expect("store");
    store
        .put(&ClusterRecord {
            id: cluster_id.clone(),
            name: "k1".into(),
            state: ClusterState::Running,
            service_offering_id: small.clone(),
            control_count: 3,
            worker_count: 6,
            etcd_count: 0,
            settings: Default::default(),
            cores: 18,
            memory_mb: 9 * 4096,
            cancel: false,
            last_error: None,
            lease: None,
        })
        .expect("record");
    Cluster {
        addresses,
        vm_ids,
        cloud_endpoint,
        kubeconfig,
        control,
        store_path,
        kube,
        cloud,
        cluster_id,
        big,
        small,
        _apis: apis,
        _cloud_api: cloud_api,
        etcd,
        _dir: dir,
        kube_port,
        cloud_port,
        etcd_port,
        store,
    }
}

impl Cluster {
    /// The engine's ports over this cluster's adapters, on `clock`.
    pub fn ports<'a>(&'a mut self, clock: &'a mut SystemClock) -> Ports<'a> {
        Ports {
            cloud: &mut self.cloud_port,
            kube: &mut self.kube_port,
            etcd: &mut self.etcd_port,
            store: &mut self.store,
            clock,
            hooks: None,
        }
    }

    /// `cks-rollout <command>` against this cluster on its store: the CloudStack credentials in
    /// the environment, the kubeconfig, each control node's API server and each etcd member.
    pub fn cli(&self, command: &str) -> std::process::Command {
        self.cli_at(command, &self.store_path)
    }

    /// [`Cluster::cli`] on another store file.
    pub fn cli_at(&self, command: &str, store: &std::path::Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
        cmd.arg(command)
            .args(["--cluster-id", &self.cluster_id])
            .arg("--store")
            .arg(store)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .env("CLOUDSTACK_ENDPOINT", &self.cloud_endpoint)
            .env("CLOUDSTACK_KEY", "e2e-key")
            .env("CLOUDSTACK_SECRET", "e2e-secret")
            .env("CLOUDSTACK_POLL_INTERVAL", "0.01")
            .env_remove("CLOUDSTACK_CONFIG");
        for (node, url) in &self.control {
            cmd.arg("--control-endpoint").arg(format!("{node}={url}"));
        }
        for m in &self.etcd.members {
            cmd.arg("--etcd-endpoint")
                .arg(format!("{}={}", m.name, m.client_url));
        }
        cmd
    }
}

/// stdout and stderr of a finished command.
pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
