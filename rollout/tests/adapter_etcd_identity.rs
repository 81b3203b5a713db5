//! Quorum counted by identity against a real 3-member etcd whose member names are nothing like
//! the node names (`etcd-alpha` on k1-control-1's address, ...): preflight and the recheck just
//! before each stop leave the batch's own member out by address, so with one *other* member down
//! a control restart is refused before any VM stops; and a control node no member can be told
//! for is refused with a message naming the node and every member.

use std::time::Duration;

use crate::adapter_support::{CONTROL, Cluster, MEMBERS, cluster_with_etcd_on_addresses};
use cks_fixtures::etcd::EtcdCluster;
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::engine::{
    EngineConfig, Event, NoProgress, Progress, RolloutReport, StepKind, UpdateOutcome,
    UpdateRequest, update,
};
use cks_rollout::model::ClusterState;
use cks_rollout::ports::Ports;

fn control_to(offering: &str) -> UpdateRequest {
    UpdateRequest {
        node_offerings: [("control".to_string(), offering.to_string())].into(),
        rollout: true,
        ..Default::default()
    }
}

fn config() -> EngineConfig {
    EngineConfig {
        owner: "identity".into(),
        batch_timeout: Duration::from_secs(60),
        drain_timeout: Duration::from_secs(20),
        poll_interval: Duration::from_millis(20),
        lease_timeout: Duration::from_secs(60),
        ..EngineConfig::default()
    }
}

/// Runs the control rollout to `big`, reporting each step to `progress`.
fn roll_control(c: &mut Cluster, progress: &mut dyn Progress) -> RolloutReport {
    let request = control_to(&c.big);
    let mut clock = SystemClock;
    let id = c.cluster_id.clone();
    let mut ports = c.ports(&mut clock);
    match update(&mut ports, &id, &request, &config(), progress).expect("the update call runs") {
        UpdateOutcome::RolledOut(report) => *report,
        other => panic!("expected a rollout, got {other:?}"),
    }
}

fn stops(c: &Cluster) -> Vec<String> {
    c.cloud
        .calls()
        .into_iter()
        .filter(|call| call.starts_with("stopvirtualmachine"))
        .collect()
}

fn trace(report: &RolloutReport) -> Vec<String> {
    report
        .events
        .iter()
        .map(|e| format!("{:?} {:?} {}", e.step, e.node, e.detail))
        .collect()
}

/// Stops one etcd member the moment the engine cordons a given node: after that batch's
/// preflight, before its recheck.
struct StopMemberOnCordon<'a> {
    etcd: &'a mut EtcdCluster,
    node: &'static str,
    member: usize,
    done: bool,
}

impl Progress for StopMemberOnCordon<'_> {
    fn on_event(&mut self, event: &Event) {
        if !self.done && event.step == StepKind::Cordon && event.node.as_deref() == Some(self.node)
        {
            self.etcd.stop_member(self.member).expect("member stops");
            self.done = true;
        }
    }
}

#[test]
fn with_another_member_down_preflight_refuses_the_control_restart_by_address() {
    let mut c = cluster_with_etcd_on_addresses();
    // etcd-charlie (on k1-control-3's address) stops; k1-control-1's own member is etcd-alpha.
    c.etcd.stop_member(2).expect("stops");
    // If etcd-charlie led, alpha and bravo elect a new leader first; until then they are not
    // healthy, and the quorum counted would not be the one this test is about.
    let left: Vec<String> = c.etcd.client_urls().into_iter().take(2).collect();
    let until = std::time::Instant::now() + Duration::from_secs(60);
    while !c.etcd.etcdctl_healthy(&left) {
        assert!(
            std::time::Instant::now() < until,
            "etcd-alpha and etcd-bravo never became healthy"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let report = roll_control(&mut c, &mut NoProgress);
    let error = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    // Counted by name, no member is k1-control-1's and alpha + bravo would look like a quorum
    // of the others; by address alpha is its own, leaving bravo alone.
    assert!(
        error.contains("k1-control-1")
            && error.contains("etcd quorum: 1 of the other members healthy, 2 of 3 needed"),
        "{error}\n{:#?}",
        trace(&report)
    );
    assert!(stops(&c).is_empty(), "no VM was stopped: {:?}", stops(&c));
    for name in CONTROL {
        assert_eq!(
            c.cloud.vm_named(name).expect("vm").service_offering_id,
            c.small
        );
    }
    let record = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running, "nothing went down");
    assert!(
        record
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("etcd quorum")),
        "{:?}",
        record.last_error
    );
}

#[test]
fn a_member_lost_after_preflight_is_caught_by_the_recheck_before_the_stop() {
    let mut c = cluster_with_etcd_on_addresses();
    let small = c.small.clone();
    let big = c.big.clone();
    let report = {
        // Split borrows: the engine drives the ports while the progress hook holds etcd.
        let Cluster {
            cloud_port,
            kube_port,
            etcd_port,
            store,
            etcd,
            cluster_id,
            ..
        } = &mut c;
        let mut hook = StopMemberOnCordon {
            etcd,
            node: CONTROL[1],
            member: 2,
            done: false,
        };
        let mut clock = SystemClock;
        let mut ports = Ports {
            cloud: cloud_port,
            kube: kube_port,
            etcd: etcd_port,
            store,
            clock: &mut clock,
            hooks: None,
        };
        match update(
            &mut ports,
            cluster_id,
            &control_to(&big),
            &config(),
            &mut hook,
        )
        .expect("the update call runs")
        {
            UpdateOutcome::RolledOut(report) => *report,
            other => panic!("expected a rollout, got {other:?}"),
        }
    };
    let error = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    // k1-control-2's own member is etcd-bravo, found by its address; of the others only alpha
    // is left (and just after the loss it may itself report unhealthy while a leader is elected).
    let own = format!(
        "etcd quorum before stopping {} (member {}): ",
        CONTROL[1], MEMBERS[1]
    );
    assert!(
        error.contains(&own)
            && error.contains("other members healthy, 2 of 3 needed")
            && !error.contains("2 other members healthy"),
        "{error}\n{:#?}",
        trace(&report)
    );
    assert_eq!(report.run.done, vec![CONTROL[0].to_string()]);
    assert_eq!(stops(&c).len(), 1, "only k1-control-1 was stopped");
    assert_eq!(
        c.cloud
            .vm_named(CONTROL[0])
            .expect("vm")
            .service_offering_id,
        big
    );
    for name in &CONTROL[1..] {
        assert_eq!(
            c.cloud.vm_named(name).expect("vm").service_offering_id,
            small
        );
        assert_eq!(c.cloud.vm_named(name).expect("vm").state, "Running");
    }
    let node = c.kube.node(CONTROL[1]).expect("node");
    assert!(
        node["spec"].get("unschedulable").is_none(),
        "the node that never went down is back in service: {node}"
    );
}

#[test]
fn a_control_node_whose_member_cannot_be_told_is_refused_naming_both() {
    let mut c = cluster_with_etcd_on_addresses();
    // k1-control-1's VM now has an address no member listens on, and no member bears its name.
    let spare = c.addresses[CONTROL.len()].to_string();
    c.cloud.set_vm_address(&c.vm_ids[0], &spare);
    let report = roll_control(&mut c, &mut NoProgress);
    let error = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        error.contains(&format!(
            "the etcd member of node {} (VM {}, {spare}) cannot be identified",
            CONTROL[0], CONTROL[0]
        )),
        "{error}\n{:#?}",
        trace(&report)
    );
    for (member, ip) in MEMBERS.iter().zip(&c.addresses) {
        assert!(
            error.contains(&format!("{member} (https://{ip}:2379)")),
            "every member is named: {error}"
        );
    }
    assert!(stops(&c).is_empty(), "no VM was stopped: {:?}", stops(&c));
}
