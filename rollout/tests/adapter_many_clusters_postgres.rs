//! Many clusters rolled at once by two OS processes sharing one PostgreSQL store: each process
//! runs the engine on every cluster at the same time (one thread and one connection each), over
//! its own CloudStack and Kubernetes fakes and a real etcd; every cluster is rolled by exactly
//! one of them, each worker restarted once, and every cluster ends Running with no lease.

use std::collections::BTreeMap;
use std::time::Duration;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::etcd::EtcdCluster;
use cks_fixtures::kube_api::{KubeApiFake, KubeWorld, Owner};
use cks_fixtures::postgres::Postgres;
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::adapters::cloudstack::{
    CloudStackClient, CloudStackCloud, CloudStackConfig, Secret,
};
use cks_rollout::adapters::etcd::{EtcdHealth, KnownMember};
use cks_rollout::adapters::kube::{KubeAccess, KubeApi, KubeClient};
use cks_rollout::adapters::store::{PostgresStore, PostgresUrl};
use cks_rollout::adapters::tls::TlsMaterial;
use cks_rollout::engine::{EngineConfig, NoProgress, UpdateOutcome, UpdateRequest, update};
use cks_rollout::model::{ClusterRecord, ClusterState};
use cks_rollout::ports::Ports;
use serde_json::{Value, json};

use super::two_processes::{self, test_name};

const CLUSTERS: usize = 6;
const WORKERS: usize = 3;
const CHILD_PLAN: &str = "CKS_MANY_CLUSTERS_PLAN";

/// One cluster of the fakes: its worlds, servers and what a rollout process needs to reach it.
struct FakeCluster {
    cloud: CloudWorld,
    id: String,
    big: String,
    reach: Value,
    _servers: (CloudStackFake, KubeApiFake),
}

fn fake_cluster(n: usize, dir: &std::path::Path) -> (FakeCluster, ClusterRecord) {
    let kube = KubeWorld::new();
    let cloud = CloudWorld::new("many-key", "many-secret");
    cloud.link_kube(kube.clone());
    let small = cloud.add_service_offering("small", 2, 4096);
    let big = cloud.add_service_offering("big", 4, 8192);
    let custom = cloud.add_disk_offering("custom", 0);
    let control = format!("c{n}-control-1");
    let names: Vec<String> = std::iter::once(control.clone())
        .chain((1..=WORKERS).map(|w| format!("c{n}-node-{w}")))
        .collect();
    let mut vm_ids = Vec::new();
    for name in &names {
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
    // Each fake numbers its objects from 1: give the cluster an id no other fake has.
    let first = cloud.add_cluster(&format!("c{n}"), &vm_ids);
    let id = format!("{n:08x}{}", &first[8..]);
    {
        let mut state = cloud.lock();
        if let Some(entry) = state.clusters.remove(&first) {
            state.clusters.insert(id.clone(), entry);
        }
    }
    let cloud_api = CloudStackFake::start(cloud.clone()).expect("CloudStack fake");
    let api = KubeApiFake::start(kube.clone(), Some(&control)).expect("Kubernetes fake");
    let kubeconfig = dir.join(format!("c{n}.kubeconfig"));
    api.write_kubeconfig(&kubeconfig, None).expect("kubeconfig");
    let reach = json!({
        "id": id,
        "cloud": cloud_api.endpoint(),
        "kubeconfig": kubeconfig,
        "control": { control.clone(): api.url() },
        "big": big,
    });
    let record = ClusterRecord {
        id: id.clone(),
        name: format!("c{n}"),
        state: ClusterState::Running,
        service_offering_id: small,
        control_count: 1,
        worker_count: WORKERS as u32,
        etcd_count: 0,
        settings: Default::default(),
        cores: 2 * names.len() as u64,
        memory_mb: 4096 * names.len() as u64,
        cancel: false,
        last_error: None,
        lease: None,
    };
    let cluster = FakeCluster {
        cloud,
        id,
        big,
        reach,
        _servers: (cloud_api, api),
    };
    (cluster, record)
}

fn open(url: &str) -> PostgresStore {
    let url: PostgresUrl = url.parse().expect("a PostgreSQL URL");
    PostgresStore::open(&url).expect("store opens")
}

/// One rollout of one cluster by `owner`; `Ok(())` when this process rolled it out.
fn roll(plan: &Value, cluster: &Value, owner: &str) -> Result<(), String> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let mut config = CloudStackConfig::new(
        text(&cluster["cloud"]),
        Secret::new("many-key"),
        Secret::new("many-secret"),
    );
    config.poll_interval = Duration::from_millis(5);
    config.job_timeout = Duration::from_secs(20);
    let mut cloud = CloudStackCloud::new(CloudStackClient::new(config).map_err(|e| e.to_string())?);
    let access =
        KubeAccess::from_kubeconfig(std::path::Path::new(&text(&cluster["kubeconfig"])), None)
            .map_err(|e| e.to_string())?;
    let control: BTreeMap<String, String> =
        serde_json::from_value(cluster["control"].clone()).map_err(|e| e.to_string())?;
    let mut kube = KubeApi::new(
        KubeClient::new(&access, Duration::from_secs(5)).map_err(|e| e.to_string())?,
        &control,
    );
    let known = vec![KnownMember {
        name: "m0".into(),
        client_url: text(&plan["etcd"]),
    }];
    let mut etcd = EtcdHealth::new(known, &TlsMaterial::default(), Duration::from_secs(3))
        .map_err(|e| e.to_string())?;
    let mut store = open(&text(&plan["store"]));
    let mut clock = SystemClock;
    let mut ports = Ports {
        cloud: &mut cloud,
        kube: &mut kube,
        etcd: &mut etcd,
        store: &mut store,
        clock: &mut clock,
        hooks: None,
    };
    let request = UpdateRequest {
        node_offerings: [("worker".to_string(), text(&cluster["big"]))].into(),
        rollout: true,
        max_unavailable: Some(1),
        ..Default::default()
    };
    let cfg = EngineConfig {
        owner: owner.to_string(),
        batch_timeout: Duration::from_secs(60),
        drain_timeout: Duration::from_secs(30),
        poll_interval: Duration::from_millis(20),
        lease_timeout: Duration::from_secs(60),
        ..EngineConfig::default()
    };
    match update(
        &mut ports,
        &text(&cluster["id"]),
        &request,
        &cfg,
        &mut NoProgress,
    ) {
        Ok(UpdateOutcome::RolledOut(r)) if r.run.error.is_none() && r.release.is_some() => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

/// Run as a child process once started: rolls every cluster of the plan at once.
fn roll_as_child(plan_path: &str, owner: &str) {
    let plan: Value =
        serde_json::from_slice(&std::fs::read(plan_path).expect("plan")).expect("plan JSON");
    let handles: Vec<_> = plan["clusters"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|cluster| {
            let plan = plan.clone();
            let owner = owner.to_string();
            std::thread::spawn(move || {
                let id = cluster["id"].as_str().unwrap_or_default().to_string();
                match roll(&plan, &cluster, &owner) {
                    Ok(()) => format!("won {id} {owner}"),
                    Err(e) => format!("lost {id} {owner}: {}", e.replace('\n', " ")),
                }
            })
        })
        .collect();
    for handle in handles {
        println!("{}", handle.join().expect("thread ends"));
    }
}

#[test]
fn many_clusters_rolled_by_two_processes_are_each_owned_by_exactly_one() {
    if let Some(name) = two_processes::child() {
        roll_as_child(&std::env::var(CHILD_PLAN).expect("the plan"), &name);
        return;
    }
    let pg = Postgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("fleet").expect("database");
    let etcd = EtcdCluster::start(1).expect("etcd");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = open(&url);
    let clusters: Vec<FakeCluster> = (0..CLUSTERS)
        .map(|n| {
            let (cluster, record) = fake_cluster(n, dir.path());
            store.put(&record).expect("record");
            cluster
        })
        .collect();
    let plan = json!({
        "store": url,
        "etcd": etcd.members[0].client_url,
        "clusters": clusters.iter().map(|c| c.reach.clone()).collect::<Vec<_>>(),
    });
    let plan_path = dir.path().join("plan.json");
    std::fs::write(&plan_path, plan.to_string()).expect("plan");

    let test = test_name(
        module_path!(),
        "many_clusters_rolled_by_two_processes_are_each_owned_by_exactly_one",
    );
    let printed = two_processes::race(&test, &[(CHILD_PLAN, plan_path.as_os_str())]);
    let winners = two_processes::winners(&printed);
    let shown = printed.concat();
    let mut per_process: BTreeMap<String, usize> = BTreeMap::new();
    for c in &clusters {
        let won = winners.get(&c.id).cloned().unwrap_or_default();
        assert_eq!(won.len(), 1, "cluster {} rolled by {won:?}:\n{shown}", c.id);
        *per_process.entry(won[0].clone()).or_default() += 1;
        let record = store.get(&c.id).expect("record");
        assert_eq!(record.state, ClusterState::Running, "{}", c.id);
        assert_eq!(record.lease, None, "{} released", c.id);
        let stops = c
            .cloud
            .calls()
            .iter()
            .filter(|call| call.starts_with("stopvirtualmachine"))
            .count();
        assert_eq!(stops, WORKERS, "each worker of {} restarted once", c.id);
        for w in 1..=WORKERS {
            let vm = c
                .cloud
                .vm_named(&format!("c{}-node-{w}", &record.name[1..]));
            let vm = vm.expect("vm");
            assert_eq!(vm.service_offering_id, c.big);
            assert_eq!(vm.state, "Running");
        }
    }
    let lost = shown.lines().filter(|l| l.contains("lost ")).count();
    assert_eq!(
        lost, CLUSTERS,
        "the other process was refused each cluster:\n{shown}"
    );
    eprintln!("clusters rolled per process: {per_process:?}");
}
