//! `run --restart`: nodes whose settings do not differ restarted by the same safe path — all,
//! one type, or those where `/var/run/reboot-required` exists.

use crate::common::{cfg, cluster, offerings, report};
use cks_rollout::engine::{EngineConfig, RestartScope, UpdateRequest};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::Simulation;

const SEED: u64 = 4;

fn restarting(scope: RestartScope) -> EngineConfig {
    EngineConfig {
        restart: Some(scope),
        ..cfg()
    }
}

fn resume() -> UpdateRequest {
    UpdateRequest {
        rollout: true,
        ..Default::default()
    }
}

/// Engine stops per node.
fn stops(sim: &Simulation) -> Vec<(String, u32)> {
    sim.world()
        .vms
        .values()
        .map(|v| (v.name.clone(), v.engine_stops))
        .collect()
}

#[test]
fn reboot_required_restarts_only_the_nodes_that_need_it_once_each() {
    let mut spec = cluster(3, 0, 5);
    spec.reboot_required = vec!["w-2".into(), "w-4".into()];
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&resume(), &restarting(RestartScope::RebootRequired));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(r.run.done, ["w-2", "w-4"]);
    for (name, n) in stops(&sim) {
        let want = u32::from(name == "w-2" || name == "w-4");
        assert_eq!(n, want, "{name} stopped {n} times");
    }
    let w = sim.world();
    assert!(w.reboot_required.is_empty(), "the reboots cleared the flag");
    assert_eq!(w.record.state, ClusterState::Running);
    // Every node checked, each once.
    let looks = run
        .trace
        .iter()
        .filter(|l| l.contains("hooks.reboot_required("))
        .count();
    assert_eq!(looks, 8);
}

#[test]
fn restart_control_takes_one_control_node_at_a_time_and_leaves_the_workers() {
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    let run = sim.run(&resume(), &restarting(RestartScope::Control));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(r.run.plan.phases.len(), 1);
    assert!(
        r.run.plan.phases[0]
            .batches
            .iter()
            .all(|b| b.nodes.len() == 1)
    );
    for (name, n) in stops(&sim) {
        assert_eq!(n, u32::from(name.starts_with("c-")), "{name}");
    }
}

#[test]
fn restart_all_with_a_change_restarts_every_node_once() {
    let sim = Simulation::new(&cluster(3, 0, 3), SEED).expect("simulable");
    let run = sim.run(
        &offerings(&[("worker", "medium")]),
        &restarting(RestartScope::All),
    );
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    for (name, n) in stops(&sim) {
        assert_eq!(n, 1, "{name}");
    }
    let w = sim.world();
    assert!(
        w.vms
            .values()
            .filter(|v| v.name.starts_with("w-"))
            .all(|v| v.offering == "medium")
    );
}

#[test]
fn restart_worker_on_a_single_control_cluster_leaves_control_alone() {
    let sim = Simulation::new(&cluster(1, 0, 2), SEED).expect("simulable");
    let run = sim.run(&resume(), &restarting(RestartScope::All));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    // The lone control node cannot be lost: skipped and reported, the workers restarted.
    assert!(r.run.plan.skipped.iter().any(|s| s.node == "c-1"));
    assert_eq!(r.run.done, ["w-1", "w-2"]);
}

#[test]
fn the_real_reboot_check_reads_the_file_over_ssh() {
    use cks_rollout::adapters::gate_command::CommandHooks;
    use cks_rollout::ports::Hooks;
    use cks_ssh::openssh::{HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
    let sshd = cks_fixtures::sshd::Sshd::start().expect("sshd starts");
    let runner = SshRunner::new(SshConfig::new(
        NodeAddress::BehindNat {
            public_address: "127.0.0.1".to_string(),
            port: sshd.port(),
        },
        sshd.user(),
        &sshd.client_key(),
        HostKeyPolicy::KnownHosts {
            path: sshd.known_hosts().expect("known_hosts"),
        },
    ));
    let mut hooks = CommandHooks::new().with_ssh("w-1", Box::new(runner));
    // The node is this host: the answer is whether the file exists here.
    let here = std::path::Path::new("/var/run/reboot-required").exists();
    assert_eq!(
        hooks.reboot_required("w-1"),
        Ok(here),
        "sshd log:\n{}",
        sshd.log()
    );
    let e = hooks.reboot_required("w-2").expect_err("no route to w-2");
    assert!(
        e.message.contains("no SSH route to w-2: pass --ssh-key"),
        "{e}"
    );
}

#[test]
fn a_real_run_restarts_the_workers_and_asks_each_node_over_ssh_for_reboot_required() {
    use crate::discovery_support::{WORKERS, cluster, text};
    let c = cluster();
    let run = c
        .rollout("run")
        .args([
            "--restart",
            "worker",
            "--poll-interval",
            "50ms",
            "--drain-timeout",
            "30s",
        ])
        .output()
        .expect("runs");
    let shown = text(&run);
    assert!(run.status.success(), "{shown}");
    assert!(
        shown.contains(&format!("restarted {} node(s)", WORKERS.len())),
        "{shown}"
    );
    // The control nodes answer over SSH (this host has no reboot pending, or the check says so);
    // the workers of this cluster run no SSH server: the run stops before any batch, naming one.
    let pending = std::path::Path::new("/var/run/reboot-required").exists();
    let run = c
        .rollout("run")
        .args(["--restart", "reboot-required", "--poll-interval", "50ms"])
        .output()
        .expect("runs");
    let shown = text(&run);
    if !pending {
        assert_eq!(run.status.code(), Some(3), "{shown}");
        assert!(
            shown.contains("cannot tell whether k1-node-1 needs a reboot"),
            "{shown}"
        );
        assert!(shown.contains("nothing was taken down"), "{shown}");
    }
}
