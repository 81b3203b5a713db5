//! Random clusters, updates and fault schedules for property tests, from one seed.

use super::spec::{ClusterSpec, Fault, NodeGroupSpec, PdbSpec, PodSpec};
use crate::engine::UpdateRequest;
use crate::model::{AffinityGroup, ServiceOffering};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn offerings() -> Vec<ServiceOffering> {
    [("small", 2, 4096), ("medium", 4, 8192), ("large", 8, 16384)]
        .into_iter()
        .map(|(id, c, m)| ServiceOffering {
            id: id.to_string(),
            name: id.to_string(),
            cpu_cores: c,
            memory_mb: m,
            customized: false,
            inactive: false,
        })
        .collect()
}

fn pick<'a>(rng: &mut StdRng, xs: &'a [&'a str]) -> &'a str {
    xs[rng.random_range(0..xs.len())]
}

/// A random cluster, update request and fault schedule for `seed`.
pub fn scenario(seed: u64) -> (ClusterSpec, UpdateRequest) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed_cafe);
    let control = [1, 2, 3, 3, 5][rng.random_range(0..5)];
    let etcd = [0, 0, 0, 1, 2, 3, 5][rng.random_range(0..7)];
    let workers = rng.random_range(1..=7);
    let group = |count| NodeGroupSpec {
        count,
        offering: None,
        root_disk_gb: 20,
        root_disk_offering: None,
        affinity_groups: vec![],
    };
    let mut spec = ClusterSpec {
        id: "cluster-1".into(),
        name: "random".into(),
        service_offering: "small".into(),
        offerings: offerings(),
        disk_offerings: vec![],
        affinity_groups: vec![
            AffinityGroup {
                id: "ag-1".into(),
                name: "spread".into(),
                kind: "host anti-affinity".into(),
            },
            AffinityGroup {
                id: "ag-dedicated".into(),
                name: "dedicated".into(),
                kind: "ExplicitDedication".into(),
            },
        ],
        control: group(control),
        workers: group(workers),
        etcd: (etcd > 0).then(|| group(etcd)),
        settings: Default::default(),
        nodes: vec![],
        pods: vec![],
        pdbs: vec![],
        faults: vec![],
        gates: Vec::new(),
        clock_start: None,
        reboot_required: Vec::new(),
        jobs: Default::default(),
        state: crate::model::ClusterState::Running,
        kubernetes_version: None,
        autoscaling: false,
        cloudstack_version: None,
    };
    let apps = rng.random_range(0..3);
    for a in 0..apps {
        let replicas = rng.random_range(1..=4);
        spec.pods.push(PodSpec {
            app: format!("app-{a}"),
            namespace: "default".into(),
            replicas,
            daemonset: false,
        });
        if rng.random_bool(0.6) {
            spec.pdbs.push(PdbSpec {
                name: format!("pdb-{a}"),
                namespace: "default".into(),
                app: format!("app-{a}"),
                min_available: rng.random_range(0..=replicas),
            });
        }
    }
    if rng.random_bool(0.5) {
        spec.pods.push(PodSpec {
            app: "logs".into(),
            namespace: "kube-system".into(),
            replicas: 1,
            daemonset: true,
        });
    }
    let mut names: Vec<String> = (1..=control).map(|i| format!("c-{i}")).collect();
    names.extend((1..=workers).map(|i| format!("w-{i}")));
    names.extend((1..=etcd).map(|i| format!("e-{i}")));
    let node = |rng: &mut StdRng| names[rng.random_range(0..names.len())].clone();
    let faults = rng.random_range(0..=4);
    for _ in 0..faults {
        let n = node(&mut rng);
        let at_step = rng.random_range(1..=250);
        let times = rng.random_range(1..=3);
        let f = match rng.random_range(0..18) {
            0 => Fault::StopFails { node: n, times },
            1 => Fault::StartFails { node: n, times },
            2 => Fault::ScaleFails { node: n, times },
            3 => Fault::ResizeFails { node: n, times },
            4 => Fault::NeverReady { node: n },
            5 => Fault::StaleReady { node: n },
            6 => Fault::PdbBlocks {
                pdb: format!("pdb-{}", rng.random_range(0..3)),
                times: times * 40,
            },
            7 => Fault::EtcdUnhealthy {
                member: n,
                at_step,
                until_step: Some(at_step + rng.random_range(1..200)),
            },
            8 => Fault::ApiDown {
                node: n,
                at_step,
                until_step: Some(at_step + rng.random_range(1..200)),
            },
            9 => Fault::OutsideCordon { node: n, at_step },
            10 => Fault::OutsideUncordon { node: n, at_step },
            11 => Fault::Crash { at_step },
            12 => Fault::StaleCapacity { node: n },
            13 => Fault::StopTimesOut {
                node: n,
                times,
                stopping: rng.random_bool(0.5),
                stopping_seconds: 20,
            },
            14 => Fault::UncordonFails { node: n, times },
            15 => Fault::CloudStackState {
                at_step,
                state: "Scaling".into(),
                until_step: Some(at_step + rng.random_range(1..100)),
            },
            16 => Fault::AddWorker { at_step },
            _ => Fault::Cancel { at_step },
        };
        spec.faults.push(f);
    }
    if rng.random_bool(0.15) {
        let n = node(&mut rng);
        let stopped = rng.random_bool(0.5);
        let cordoned = rng.random_bool(0.5);
        // Started again by an earlier run, its kubelet not yet posted.
        let restarting = !stopped && cordoned && rng.random_bool(0.5);
        let mut annotations = std::collections::BTreeMap::new();
        if cordoned && rng.random_bool(0.5) && !n.starts_with('e') {
            // Left by an earlier rollout that stopped.
            annotations.insert(
                crate::model::ROLLOUT_ANNOTATION.to_string(),
                format!("boot-{n}-0"),
            );
        }
        spec.nodes.push(super::spec::NodeOverride {
            node: n,
            offering: None,
            root_disk_gb: None,
            affinity_groups: None,
            stopped,
            cordoned,
            annotations,
            restarting,
            ip: None,
            member_name: None,
            member_address: None,
            unmatched: false,
        });
    }
    let mut req = UpdateRequest {
        rollout: true,
        ..Default::default()
    };
    let offers = ["small", "medium", "large"];
    for t in ["control", "worker", "etcd"] {
        if t == "etcd" && etcd == 0 {
            continue;
        }
        // Types that cannot lose a node refuse new settings: ask for them now and then only.
        let fragile = match t {
            "control" => control == 1 || (etcd == 0 && control == 2),
            "etcd" => etcd <= 2,
            _ => false,
        };
        let p = if fragile { 0.1 } else { 1.0 };
        if rng.random_bool(0.6 * p) {
            req.node_offerings
                .insert(t.into(), pick(&mut rng, &offers).into());
        }
        if rng.random_bool(0.3 * p) {
            req.node_root_disk_sizes
                .insert(t.into(), rng.random_range(20..=40));
        }
        if rng.random_bool(0.2 * p) {
            req.node_affinity_groups
                .insert(t.into(), vec!["ag-1".into()]);
        }
    }
    if rng.random_bool(0.5) {
        req.max_unavailable = Some(rng.random_range(1..=4));
    }
    (spec, req)
}

/// Random rollout controls for `seed` on `spec`: a soak (none, short, or longer than the lease
/// timeout), with some a node that turns NotReady (perhaps during a soak) and back, and gates
/// that pass, fail or run past their timeout before random batches, and with some a clock start
/// and maintenance windows (waited for or not; with some the window closes minutes after the
/// start and gates run past its end), and with some a `--restart` scope (nodes waiting for a
/// reboot drawn too).
pub fn controls(seed: u64, spec: &mut ClusterSpec, cfg: &mut crate::engine::EngineConfig) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0xc0_47_20_15);
    cfg.soak = std::time::Duration::from_secs([0, 0, 30, 120, 600, 900][rng.random_range(0..6)]);
    if rng.random_bool(0.4) {
        let workers = spec.workers.count.max(1);
        let node = if rng.random_bool(0.8) {
            format!("w-{}", rng.random_range(1..=workers))
        } else {
            format!("c-{}", rng.random_range(1..=spec.control.count.max(1)))
        };
        let at_step = rng.random_range(1..=400);
        let until_step = rng
            .random_bool(0.5)
            .then(|| at_step + rng.random_range(1..=100));
        spec.faults.push(Fault::NodeNotReady {
            node,
            at_step,
            until_step,
        });
    }
    if rng.random_bool(0.4) {
        cfg.gates = vec!["./gate-a".into(), "./gate-b".into()];
        cfg.gate_timeout = std::time::Duration::from_secs(rng.random_range(30..=900));
        for _ in 0..rng.random_range(0..=2) {
            spec.gates.push(super::gates::GateSpec {
                batch: rng.random_range(1..=6),
                command: Some(["gate-a", "gate-b"][rng.random_range(0..2)].into()),
                exit: [0, 1, 2][rng.random_range(0..3)],
                output: "random gate".into(),
                seconds: rng.random_range(0..=1200),
            });
        }
    }
    if rng.random_bool(0.4) {
        let day = rng.random_range(7..=13);
        let hour = rng.random_range(0..24);
        spec.clock_start = Some(format!(
            "2026-12-{day:02}T{hour:02}:{:02}:00Z",
            rng.random_range(0..60)
        ));
        let spec_text = [
            "Mon-Fri 22:00-05:00 Europe/Berlin",
            "daily 01:00-01:10 UTC",
            "daily 12:00-18:00 America/New_York",
            "daily 06:00-06:30 Asia/Kolkata",
        ][rng.random_range(0..4)];
        if let Ok(w) = crate::engine::window::Window::parse(spec_text) {
            cfg.windows = vec![w];
        }
        cfg.wait_for_window = rng.random_bool(0.5);
        if rng.random_bool(0.6) {
            slow_gates_at_a_close(&mut rng, spec, cfg);
        }
    }
    if rng.random_bool(0.4) {
        use crate::engine::RestartScope;
        cfg.restart = Some(
            [
                RestartScope::All,
                RestartScope::Control,
                RestartScope::Worker,
                RestartScope::Etcd,
                RestartScope::RebootRequired,
            ][rng.random_range(0..5)],
        );
        for i in 1..=spec.workers.count {
            if rng.random_bool(0.4) {
                spec.reboot_required.push(format!("w-{i}"));
            }
        }
        if rng.random_bool(0.3) {
            spec.reboot_required.push("c-1".into());
        }
    }
}

/// A window that closes soon after the rollout starts, and gates before random batches that
/// run past its end (minutes to an hour and a half, within the gate timeout mostly): the
/// window must be seen again before any node is taken down.
fn slow_gates_at_a_close(
    rng: &mut StdRng,
    spec: &mut ClusterSpec,
    cfg: &mut crate::engine::EngineConfig,
) {
    // Each window with the UTC time it closes on 2026-12-08 (a Tuesday, Berlin at UTC+1).
    let (text, close_h, close_m) = [
        ("Mon-Fri 22:00-05:00 Europe/Berlin", 4, 0),
        ("daily 01:00-01:10 UTC", 1, 10),
        ("daily 12:00-18:00 America/New_York", 23, 0),
        ("daily 06:00-06:30 Asia/Kolkata", 1, 0),
    ][rng.random_range(0..4)];
    let Ok(w) = crate::engine::window::Window::parse(text) else {
        return;
    };
    cfg.windows = vec![w];
    let before = rng.random_range(1..=9u32);
    let (h, m) = if close_m >= before {
        (close_h, close_m - before)
    } else {
        (close_h - 1, close_m + 60 - before)
    };
    spec.clock_start = Some(format!("2026-12-08T{h:02}:{m:02}:00Z"));
    if cfg.gates.is_empty() {
        cfg.gates = vec!["./gate-a".into(), "./gate-b".into()];
    }
    cfg.gate_timeout = std::time::Duration::from_secs(rng.random_range(1800..=7200));
    for _ in 0..rng.random_range(1..=2) {
        spec.gates.push(super::gates::GateSpec {
            batch: rng.random_range(1..=4),
            command: Some(["gate-a", "gate-b"][rng.random_range(0..2)].into()),
            exit: if rng.random_bool(0.85) { 0 } else { 1 },
            output: "slow gate".into(),
            seconds: rng.random_range(60..=5400),
        });
    }
}
