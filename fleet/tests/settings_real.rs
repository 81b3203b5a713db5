//! One `cks-fleet run` with both an upgrade and node settings, each done by the real one-cluster
//! tool: `cks-upgrade-hook upgrade` (its CloudStack job followed, the cloud controller manager
//! refreshed over the real sshd the cluster's port-forwarding rule leads to), then `cks-rollout
//! scan` and `cks-rollout run`, which rolls the workers of a 3-control/6-worker cluster onto a
//! bigger service offering: the CloudStack and Kubernetes fakes share one world, the kubeconfig
//! is the one CloudStack hands out (an https:// cluster endpoint under a test CA), each control
//! node has its own API server and a real 3-member etcd is named after the control nodes (both
//! given to the rollout as overrides, as its own tests give them when the VMs have no address).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::etcd::EtcdCluster;
use cks_fixtures::kube_api::{KubeApiFake, KubeWorld, Owner};
use cks_fixtures::skip::skip;
use cks_fixtures::sshd::Sshd;
use cks_fixtures::tls::TestCa;

use crate::support::{KUBECTL, Killed, events_of, tool};

const KEY: &str = "settings-api-key";
const SECRET: &str = "settings-secret-SECRETMARK";
const KUBE_TOKEN: &str = "settings-kube-token-TOKENMARK";

const CONTROL: [&str; 3] = ["k1-control-1", "k1-control-2", "k1-control-3"];
const WORKERS: [&str; 6] = [
    "k1-node-1",
    "k1-node-2",
    "k1-node-3",
    "k1-node-4",
    "k1-node-5",
    "k1-node-6",
];

const OLD_CHECKSUM: &str =
    "{SHA-256}3d9a2c52b1e5f7a0c4e8b6d2f1a09e7c5b3d1f8e6a4c2b0d9e7f5a3c1b8d6e4f";
const NEW_CHECKSUM: &str =
    "{SHA-256}7c1e5a3b9d2f8e4c6a0b1d3f5e7a9c2b4d6f8e0a1c3e5b7d9f2a4c6e8b0d1f3a";

/// The cluster `k1` in both fakes, and everything serving it; all stops when dropped.
struct World {
    cloud: CloudWorld,
    cluster_id: String,
    small: String,
    big: String,
    /// Each control node's own API server, `NODE=URL`.
    control: Vec<String>,
    etcd: EtcdCluster,
    cloud_api: CloudStackFake,
    _apis: Vec<KubeApiFake>,
}

fn world(ssh_port: u16, dir: &Path) -> anyhow::Result<World> {
    let kube = KubeWorld::new();
    kube.require_token(KUBE_TOKEN);
    let cloud = CloudWorld::new(KEY, SECRET);
    cloud.link_kube(kube.clone());
    let old = cloud.add_ready_kubernetes_version("1.32.4", OLD_CHECKSUM);
    cloud.add_ready_kubernetes_version("1.33.1", NEW_CHECKSUM);
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
    // Two web replicas on workers of different batches, and a budget keeping one: the drains
    // have something to respect.
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
    cloud.set_cluster_version(&cluster_id, &old);
    cloud.set_autoscaling_sizes(&cluster_id, false, 0, 0);
    let public = cloud
        .set_cluster_network(&cluster_id, "Isolated", Some("127.0.0.1"))
        .expect("an isolated network given a public address has one");
    cloud.add_port_forward(&public, ssh_port, &vm_ids[0], 22);

    // The cluster endpoint (the kubeconfig's server) and each control node's own API server,
    // all over TLS under one test CA, as CKS sets them up.
    let ca = TestCa::new()?;
    let endpoint = KubeApiFake::start_with(
        kube.clone(),
        Some(CONTROL[0]),
        Some(ca.server_config(false)?),
    )?;
    let mut apis = Vec::new();
    let mut control = Vec::new();
    for name in CONTROL {
        let api =
            KubeApiFake::start_with(kube.clone(), Some(name), Some(ca.server_config(false)?))?;
        control.push(format!("{name}={}", api.url()));
        apis.push(api);
    }
    let kubeconfig = dir.join("kubeconfig");
    endpoint.write_kubeconfig_with(&kubeconfig, Some(KUBE_TOKEN), Some(&ca.cert_pem()), None)?;
    cloud.set_kubeconfig(&cluster_id, &fs::read_to_string(&kubeconfig)?);
    // Only CloudStack keeps it.
    fs::remove_file(&kubeconfig)?;
    apis.push(endpoint);

    let etcd = EtcdCluster::start_named(&CONTROL)?;
    let cloud_api = CloudStackFake::start(cloud.clone())?;
    Ok(World {
        cloud,
        cluster_id,
        small,
        big,
        control,
        etcd,
        cloud_api,
        _apis: apis,
    })
}

/// Whether `call` (as the CloudStack fake records it) moves a VM to another service offering.
fn changes_offering(call: &str) -> bool {
    call.starts_with("changeserviceforvirtualmachine") || call.starts_with("scalevirtualmachine")
}

#[test]
fn a_cluster_is_upgraded_then_its_workers_rolled_onto_a_new_offering_by_the_real_tools() {
    let sshd = match Sshd::start() {
        Ok(sshd) => sshd,
        Err(e) if e.to_string().contains("not installed") => {
            return skip(&format!("no sshd here: {e}"));
        }
        Err(e) => panic!("sshd starts: {e:#}"),
    };
    let work = tempfile::tempdir().expect("work dir");
    let w = match world(sshd.port(), work.path()) {
        Ok(w) => w,
        Err(e) if e.to_string().contains("not installed") => {
            return skip(&format!("no etcd here: {e}"));
        }
        Err(e) => panic!("the world starts: {e:#}"),
    };
    let scripts = work.path().join("scripts");
    fs::create_dir(&scripts).expect("scripts");
    let kubectl = scripts.join("kubectl");
    fs::write(&kubectl, KUBECTL).expect("kubectl");
    fs::set_permissions(&kubectl, fs::Permissions::from_mode(0o755)).expect("chmod");
    let manifest = scripts.join("provider.yaml");
    fs::write(&manifest, "kind: Deployment\n").expect("manifest");
    let key = work.path().join("id");
    fs::copy(sshd.client_key(), &key).expect("key");
    fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).expect("chmod key");
    let known_hosts = sshd.known_hosts().expect("known_hosts");
    let tmp = work.path().join("tmp");
    fs::create_dir(&tmp).expect("tmp");
    let hook = tool("cks-upgrade-hook", "cks-upgrade-hook");
    let rollout = tool("cks-rollout", "cks-rollout");
    let events = work.path().join("fleet.events");
    let store = work.path().join("fleet.db");

    let mut args: Vec<String> = [
        "run",
        "--fleet",
        "f",
        "--to",
        "1.33.1",
        "--no-preload",
        "--stage",
        "name=all",
        "--poll-interval",
        "1s",
        "--json",
        "--ssh-user",
        sshd.user(),
        "--worker",
        "w1",
    ]
    .map(String::from)
    .to_vec();
    args.extend([
        "--store".into(),
        store.display().to_string(),
        "--offering".into(),
        format!("worker={}", w.big),
        "--ssh-key".into(),
        key.display().to_string(),
        "--known-hosts".into(),
        known_hosts.display().to_string(),
        "--events".into(),
        events.display().to_string(),
        "--upgrade-hook".into(),
        hook.display().to_string(),
        "--rollout".into(),
        rollout.display().to_string(),
    ]);
    for extra in [
        "--script-dir",
        &scripts.display().to_string(),
        "--no-sudo",
        "--provider-manifest",
        &manifest.display().to_string(),
    ] {
        args.push(format!("--upgrade-arg={extra}"));
    }
    // What discovery cannot find in this world (the VMs have no NIC address): each control
    // node's API server and the etcd members; and short polls.
    let mut rollout_args: Vec<String> = Vec::new();
    for c in &w.control {
        rollout_args.extend(["--control-endpoint".into(), c.clone()]);
    }
    for m in &w.etcd.members {
        rollout_args.extend([
            "--etcd-endpoint".into(),
            format!("{}={}", m.name, m.client_url),
        ]);
    }
    rollout_args.extend(["--poll-interval", "50", "--drain-timeout", "30"].map(String::from));
    args.extend(rollout_args.iter().map(|a| format!("--rollout-arg={a}")));

    let stdout_path = work.path().join("stdout");
    let stderr_path = work.path().join("stderr");
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_cks-fleet"))
        .args(&args)
        .current_dir(work.path())
        .env("CLOUDSTACK_ENDPOINT", w.cloud_api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .env("TMPDIR", &tmp)
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("KUBECONFIG")
        .env_remove("CKS_ROLLOUT_STORE")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout_path).expect("stdout file"))
        .stderr(fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("cks-fleet runs");
    let mut child = Killed(vec![child]);
    let limit = Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.0[0].try_wait().expect("waiting for cks-fleet") {
            break status;
        }
        if started.elapsed() > limit {
            panic!(
                "cks-fleet still runs after {limit:?}: {}\nevents: {}",
                fs::read_to_string(&stderr_path).unwrap_or_default(),
                fs::read_to_string(&events).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = fs::read_to_string(&stdout_path).expect("stdout");
    let stderr = fs::read_to_string(&stderr_path).expect("stderr");
    let events_text = fs::read_to_string(&events).unwrap_or_default();
    let shown = format!("{stdout}\n{stderr}\nevents:\n{events_text}");
    assert_eq!(status.code(), Some(0), "{shown}");

    // The summary: the one cluster done, by both the upgrade and the settings.
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON summary");
    let clusters = summary["clusters"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 1, "{summary:#}");
    assert_eq!(clusters[0]["id"], w.cluster_id.as_str(), "{summary:#}");
    assert_eq!(clusters[0]["ending"], "done", "{summary:#}");
    let detail = clusters[0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains("upgraded to 1.33.1") && detail.contains("node settings rolled out"),
        "{summary:#}"
    );
    assert_eq!(summary["ended"], true, "{summary:#}");

    // CloudStack: one upgrade, then (only after it) the workers moved to the big offering.
    let calls = w.cloud.calls();
    let upgrades: Vec<usize> = calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with("upgradekubernetescluster"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(upgrades.len(), 1, "{calls:#?}");
    assert!(
        calls[upgrades[0]].contains(&format!("id={}", w.cluster_id)),
        "{}",
        calls[upgrades[0]]
    );
    let moves: Vec<usize> = calls
        .iter()
        .enumerate()
        .filter(|(_, c)| changes_offering(c))
        .map(|(i, _)| i)
        .collect();
    assert!(!moves.is_empty(), "no VM changed offering: {calls:#?}");
    assert!(
        moves.iter().all(|i| *i > upgrades[0]),
        "a VM changed offering before the upgrade: {calls:#?}"
    );
    for name in WORKERS {
        let vm = w.cloud.vm_named(name).expect("worker VM");
        assert_eq!(
            vm.service_offering_id, w.big,
            "{name} is on the big offering"
        );
        assert_eq!(vm.state, "Running", "{name} runs again");
        assert!(
            moves
                .iter()
                .any(|i| calls[*i].contains(&format!("id={}", vm.id))),
            "{name} was moved by a call: {calls:#?}"
        );
    }
    for name in CONTROL {
        let vm = w.cloud.vm_named(name).expect("control VM");
        assert_eq!(vm.service_offering_id, w.small, "{name} keeps its offering");
    }
    assert_eq!(w.cloud.cluster_state(&w.cluster_id), "Running");

    // The fleet's own events: the upgrade started (and finished) before the settings started.
    let fleet_events: Vec<serde_json::Value> = events_of(&events)
        .into_iter()
        .filter(|e| e["kind"] == "fleet")
        .collect();
    let starts: Vec<&str> = fleet_events
        .iter()
        .filter(|e| e["step"] == "start")
        .filter_map(|e| e["detail"].as_str())
        .collect();
    assert_eq!(starts.len(), 2, "{events_text}");
    assert!(starts[0].starts_with("upgrade to 1.33.1"), "{events_text}");
    assert!(starts[1].contains("node settings"), "{events_text}");
    for e in &fleet_events {
        assert_eq!(e["fleet"], "f", "{e}");
    }
    // The rollout's own lines went to the same file.
    assert!(
        events_of(&events).iter().any(|e| e["kind"] != "fleet"),
        "{events_text}"
    );

    // No secret shown: not CloudStack's, not the token of the kubeconfig CloudStack handed out.
    for secret in ["SECRETMARK", "TOKENMARK"] {
        assert!(!shown.contains(secret), "{secret}: {shown}");
    }
    eprintln!("cks-fleet ran for {:?}", started.elapsed());
}
