//! The ports of a real cluster, built from the live options and the environment: CloudStack
//! (keys from the environment or its config file), Kubernetes (kubeconfig and per-control-node
//! endpoints), etcd (member URLs and client certificates), the store (SQLite or PostgreSQL) and
//! the clock.

use std::time::Duration;

use anyhow::{Context, Result};

use crate::adapters::clock::SystemClock;
use crate::adapters::cloudstack::{
    CloudStackClient, CloudStackCloud, CloudStackConfig, imported_record,
};
use crate::adapters::etcd::{EtcdHealth, KnownMember};
use crate::adapters::gate_command::CommandHooks;
use crate::adapters::kube::{KubeAccess, KubeApi, KubeClient};
use crate::adapters::store::{AnyStore, StoreError};
use crate::adapters::tls::TlsMaterial;
use crate::engine::EngineConfig;
use crate::model::ClusterRecord;
use crate::ports::{Cloud, Etcd, Kube, Ports};
use cks_ssh::openssh::SshRunner;

use super::discover::Discovery;
use super::options::LiveOptions;
use super::unconfigured::Unconfigured;

/// Everything a command needs to act on a real cluster.
pub struct LivePorts {
    cloud: Box<dyn Cloud>,
    kube: Box<dyn Kube>,
    etcd: Box<dyn Etcd>,
    store: AnyStore,
    clock: SystemClock,
    hooks: CommandHooks,
    /// What was found from the cluster id, and what was not.
    pub discovery: Discovery,
    /// What the caller should be warned of (a world-readable key file, a store without TLS),
    /// one line each.
    pub warnings: Vec<String>,
}

/// The lease owner of this process: host, process id and start time.
pub fn owner() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_string());
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("{host}:{}:{started}", std::process::id())
}

/// The engine settings the options ask for.
pub fn engine_config(args: &LiveOptions) -> EngineConfig {
    EngineConfig {
        owner: owner(),
        batch_timeout: args.batch_timeout,
        drain_timeout: args.drain_timeout,
        poll_interval: args.poll_interval,
        lease_timeout: args.lease_timeout,
        ..EngineConfig::default()
    }
}

/// The cluster record from `listKubernetesClusters`, for a store that has none yet.
fn import_record(client: &CloudStackClient, cluster_id: &str) -> Result<ClusterRecord> {
    let cluster = client
        .find_kubernetes_cluster(cluster_id)
        .with_context(|| format!("reading cluster {cluster_id} from CloudStack"))?
        .with_context(|| {
            format!("CloudStack has no Kubernetes cluster with id {cluster_id}; check --cluster-id")
        })?;
    Ok(imported_record(cluster_id, &cluster))
}

impl LivePorts {
    /// Opens the store and connects what the options and environment allow; the rest answers
    /// every call with what to configure.
    pub fn connect(args: &LiveOptions) -> Result<Self> {
        // What a gate shows is cleared of these (the keys may come from a config file).
        let mut secrets: Vec<String> = args.store_secret.iter().cloned().collect();
        let mut warnings = Vec::new();
        let cloud_client = match CloudStackConfig::from_env() {
            Ok(mut config) => {
                config.max_answer_size = args.max_answer_size;
                secrets.push(config.api_key.expose().to_string());
                secrets.push(config.secret_key.expose().to_string());
                warnings.extend(config.warnings().into_iter().map(|w| w.to_string()));
                Some(CloudStackClient::new(config).context("setting up the CloudStack client")?)
            }
            Err(e) => {
                tracing::debug!("CloudStack not configured: {e}");
                None
            }
        };
        let store_url = &args.store;
        warnings.extend(store_url.warning().map(|w| w.to_string()));
        if store_url.is_missing() && cloud_client.is_none() {
            anyhow::bail!(
                "the cluster store {} does not exist and CloudStack is not configured to import cluster {} into it: set CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET, or pass --store with an existing store",
                store_url,
                args.cluster_id
            );
        }
        // A store file is made only for a cluster CloudStack knows: its record is read first,
        // so a wrong --cluster-id leaves no new `cks-rollout.db` behind.
        let imported = match (store_url.is_missing(), cloud_client.as_ref()) {
            (true, Some(client)) => Some(import_record(client, &args.cluster_id)?),
            _ => None,
        };
        let mut store = AnyStore::open(store_url)
            .with_context(|| format!("opening the cluster store {store_url}"))?;
        let missing = match store.get(&args.cluster_id) {
            Ok(_) => false,
            Err(StoreError::NoSuchCluster { .. }) => true,
            Err(e) => {
                return Err(e).with_context(|| format!("reading cluster {}", args.cluster_id));
            }
        };
        if missing {
            let client = cloud_client.as_ref().with_context(|| {
                format!(
                    "cluster {} is not in the store {} yet and CloudStack is not configured to import it: set CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET",
                    args.cluster_id, store_url
                )
            })?;
            let record = match imported {
                Some(record) => record,
                None => import_record(client, &args.cluster_id)?,
            };
            // Another host may have imported it meanwhile: its record stands.
            store
                .insert_new(&record)
                .context("storing the imported cluster record")?;
        }
        let mut discovery = Discovery::run(args, cloud_client.as_ref());
        let cloud: Box<dyn Cloud> = match cloud_client {
            Some(client) => Box::new(discovery.named(CloudStackCloud::new(client))),
            None => Box::new(Unconfigured(
                "CloudStack is not configured: set CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET (or CLOUDSTACK_CONFIG)".into(),
            )),
        };
        let kube: Box<dyn Kube> = match (discovery.kube.take(), &args.kubeconfig) {
            (Some(kube), _) => kube,
            (None, Some(path)) => {
                let access = KubeAccess::from_kubeconfig(path, args.context.as_deref())?;
                let client = KubeClient::new(&access, Duration::from_secs(30))?
                    .with_max_answer(args.max_answer_size);
                Box::new(KubeApi::new(client, &args.control_endpoints))
            }
            (None, None) => Box::new(Unconfigured(discovery.kube_hint())),
        };
        let members = args.etcd_endpoints.clone();
        let etcd: Box<dyn Etcd> = if members.is_empty() {
            match discovery.etcd.take() {
                Some(etcd) => etcd,
                None => Box::new(Unconfigured(discovery.etcd_hint())),
            }
        } else {
            let read = |p: &Option<std::path::PathBuf>| -> Result<Option<Vec<u8>>> {
                p.as_ref()
                    .map(|p| std::fs::read(p).with_context(|| format!("reading {}", p.display())))
                    .transpose()
            };
            let identity = match (read(&args.etcd_cert)?, read(&args.etcd_key)?) {
                (Some(mut cert), Some(key)) => {
                    cert.push(b'\n');
                    cert.extend(key);
                    Some(cert)
                }
                _ => None,
            };
            let tls = TlsMaterial {
                ca_pem: read(&args.etcd_ca)?,
                identity_pem: identity,
                insecure: false,
            };
            let known = members
                .into_iter()
                .map(|(name, client_url)| KnownMember { name, client_url })
                .collect();
            Box::new(
                EtcdHealth::new(known, &tls, Duration::from_secs(5))?
                    .with_max_answer(args.max_answer_size),
            )
        };
        Ok(LivePorts {
            cloud,
            kube,
            etcd,
            store,
            clock: SystemClock,
            hooks: discovery.node_ssh.iter().fold(
                CommandHooks::new().with_secrets(secrets),
                |hooks, (node, config)| {
                    hooks.with_ssh(node, Box::new(SshRunner::new(config.clone())))
                },
            ),
            discovery,
            warnings,
        })
    }

    /// The ports, as the engine takes them.
    pub fn ports(&mut self) -> Ports<'_> {
        Ports {
            cloud: self.cloud.as_mut(),
            kube: self.kube.as_mut(),
            etcd: self.etcd.as_mut(),
            store: &mut self.store,
            clock: &mut self.clock,
            hooks: Some(&mut self.hooks),
        }
    }
}
