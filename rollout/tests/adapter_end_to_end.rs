//! The engine on the real adapters: a 3-control, 6-worker cluster in the CloudStack and
//! Kubernetes fakes (sharing one world, so a VM restart reboots its node with a new boot ID),
//! a real 3-member etcd named after the control nodes, the SQLite store and the system clock.
//! The kubeconfig points at the first control node, so while it restarts the engine must go
//! through another control node's API server.
//! One rollout finishes Running with every node up to date; one whose drain a budget blocks
//! finishes Alert with `lasterror` naming the pod and the budget.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::adapter_support::{CONTROL, Cluster, WORKERS, cluster};
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::engine::observe::observe;
use cks_rollout::engine::preflight::{Verdict, preflight};
use cks_rollout::engine::{EngineConfig, NoProgress, UpdateOutcome, UpdateRequest, update};
use cks_rollout::model::{ClusterState, NodeType, ROLLOUT_ANNOTATION};

fn run(c: &mut Cluster, request: &UpdateRequest, drain_timeout: Duration) -> UpdateOutcome {
    let config = EngineConfig {
        owner: "e2e".into(),
        batch_timeout: Duration::from_secs(60),
        drain_timeout,
        poll_interval: Duration::from_millis(20),
        lease_timeout: Duration::from_secs(60),
        ..EngineConfig::default()
    };
    let mut clock = SystemClock;
    let id = c.cluster_id.clone();
    let mut ports = c.ports(&mut clock);
    update(&mut ports, &id, request, &config, &mut NoProgress).expect("the update call runs")
}

fn preflight_allows(c: &mut Cluster, node: &str) -> (bool, String) {
    let mut clock = SystemClock;
    let id = c.cluster_id.clone();
    let mut ports = c.ports(&mut clock);
    let snap = observe(&mut ports, &id).expect("observe");
    let verdict = preflight(&snap, NodeType::Control, &[node.to_string()]);
    let allows = !matches!(verdict, Verdict::Fail { .. });
    (allows, format!("{verdict:?}"))
}

fn offerings(to: &str, max_unavailable: i64) -> UpdateRequest {
    UpdateRequest {
        node_offerings: [
            ("control".to_string(), to.to_string()),
            ("worker".to_string(), to.to_string()),
        ]
        .into(),
        rollout: true,
        max_unavailable: Some(max_unavailable),
        ..Default::default()
    }
}

#[test]
fn a_rollout_restarts_every_node_onto_the_new_offering_and_ends_running() {
    let mut c = cluster();
    // As on a real cluster: a stopped node still shows its old Ready until it boots, and a
    // booted kubelet takes a while to report Ready with the new boot ID.
    {
        let mut kube = c.kube.lock();
        kube.stale_ready = true;
        kube.boot_delay = Duration::from_millis(150);
    }
    let boots: BTreeMap<String, String> = CONTROL
        .iter()
        .chain(WORKERS.iter())
        .map(|n| (n.to_string(), c.kube.boot_id(n).expect("boot id")))
        .collect();
    let request = offerings(&c.big, 2);
    let outcome = run(&mut c, &request, Duration::from_secs(30));
    let UpdateOutcome::RolledOut(report) = outcome else {
        panic!("expected a rollout, got {outcome:?}")
    };
    let trace: Vec<String> = report
        .events
        .iter()
        .map(|e| format!("{:?} {:?} {}", e.step, e.node, e.detail))
        .collect();
    assert_eq!(report.run.error, None, "{trace:#?}");
    assert_eq!(report.run.done.len(), 9, "{trace:#?}");
    let release = report.release.expect("release ran");
    assert_eq!(release.state, ClusterState::Running);
    assert_eq!((release.cores, release.memory_mb), (36, 9 * 8192));

    for (name, before) in &boots {
        assert_ne!(
            c.kube.boot_id(name).as_ref(),
            Some(before),
            "{name} restarted"
        );
        let node = c.kube.node(name).expect("node");
        assert!(
            node["spec"].get("unschedulable").is_none(),
            "{name} uncordoned"
        );
        assert!(
            node["metadata"]["annotations"]
                .get(ROLLOUT_ANNOTATION)
                .is_none(),
            "{name} annotation removed"
        );
        assert_eq!(
            c.cloud.vm_named(name).expect("vm").service_offering_id,
            c.big
        );
    }
    let stored = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(stored.state, ClusterState::Running);
    assert_eq!(stored.last_error, None);
    // Replaying the CloudStack calls: one control node down at a time, at most two workers.
    let names: BTreeMap<String, String> = c
        .cloud
        .lock()
        .vms
        .values()
        .map(|v| (v.id.clone(), v.name.clone()))
        .collect();
    let mut down: Vec<String> = Vec::new();
    let (mut stops, mut most_control, mut most_workers) = (0, 0, 0);
    for call in c.cloud.calls() {
        let Some((command, rest)) = call.split_once(' ') else {
            continue;
        };
        let Some(name) = rest.strip_prefix("id=").and_then(|id| names.get(id)) else {
            continue;
        };
        match command {
            "stopvirtualmachine" => {
                stops += 1;
                down.push(name.clone());
            }
            "startvirtualmachine" => down.retain(|n| n != name),
            _ => continue,
        }
        most_control = most_control.max(down.iter().filter(|n| n.contains("-control-")).count());
        most_workers = most_workers.max(down.iter().filter(|n| n.contains("-node-")).count());
    }
    assert_eq!(stops, 9, "every node restarted once");
    assert_eq!(most_control, 1);
    assert!(
        (1..=2).contains(&most_workers),
        "{most_workers} workers down at once"
    );
    assert!(
        c.cloud
            .vm_named("k1-control-1")
            .is_some_and(|v| v.service_offering_id != c.small)
    );
}

#[test]
fn a_drain_a_budget_never_allows_ends_running_with_lasterror_naming_the_pod() {
    let mut c = cluster();
    // Both web replicas must stay: k1-node-1 cannot be drained.
    c.kube
        .lock()
        .pdbs
        .values_mut()
        .for_each(|pdb| pdb["spec"]["minAvailable"] = 2.into());
    let request = UpdateRequest {
        node_offerings: [("worker".to_string(), c.big.clone())].into(),
        rollout: true,
        max_unavailable: Some(1),
        ..Default::default()
    };
    let outcome = run(&mut c, &request, Duration::from_secs(1));
    let UpdateOutcome::RolledOut(report) = outcome else {
        panic!("expected a rollout, got {outcome:?}")
    };
    assert!(
        report.run.done.is_empty(),
        "no worker was restarted: {:?}",
        report.run.done
    );
    let release = report.release.expect("release ran");
    // No node went down: the cluster is healthy and ends Running, lasterror naming the error.
    assert_eq!(release.state, ClusterState::Running);
    let stored = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(stored.state, ClusterState::Running);
    let error = stored.last_error.expect("lasterror is set");
    assert!(error.contains("default/web-0"), "{error}");
    assert!(error.contains("default/web-pdb"), "{error}");
    // The node whose drain failed never went down and was uncordoned.
    for name in WORKERS {
        assert!(c.kube.is_ready(name));
        assert_eq!(c.cloud.vm_named(name).expect("vm").state, "Running");
        assert!(
            c.kube.node(name).expect("node")["spec"]
                .get("unschedulable")
                .is_none(),
            "{name} uncordoned"
        );
    }
}

#[test]
fn preflight_on_real_etcd_refuses_a_control_restart_that_would_lose_quorum() {
    let mut c = cluster();
    assert!(
        preflight_allows(&mut c, "k1-control-1").0,
        "all members healthy"
    );

    // k1-control-3's member stops: restarting k1-control-1 would leave one of three.
    c.etcd.stop_member(2).expect("stop");
    let wait = |c: &mut Cluster, node: &str, want: bool| {
        let mut last = String::new();
        let ok = cks_fixtures::process::wait_until("the verdict", Duration::from_secs(20), || {
            let (allows, verdict) = preflight_allows(c, node);
            last = verdict;
            allows == want
        });
        assert!(
            ok.is_ok(),
            "preflight for {node}: expected allows={want}, last verdict {last}"
        );
        last
    };
    let refused = wait(&mut c, "k1-control-1", false);
    assert!(
        refused.contains("etcd") || refused.contains("quorum"),
        "{refused}"
    );
    // Restarting the node whose member is already down loses nothing more.
    wait(&mut c, "k1-control-3", true);

    // A second member stops: quorum is lost, no control node may go.
    c.etcd.stop_member(1).expect("stop");
    wait(&mut c, "k1-control-3", false);
}
