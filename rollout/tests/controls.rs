//! The rollout's control values are checked on their own, first: each bad one is refused,
//! naming the option and what is expected, before anything is asked of CloudStack, the cluster
//! or the store.

use crate::common::{cfg, cluster, offerings};
use cks_rollout::engine::{EngineConfig, NoProgress};
use cks_rollout::sim::Simulation;
use std::time::Duration;

#[test]
fn every_bad_control_value_is_refused_before_anything_is_asked() {
    let gated = |gate_env: &[&str]| EngineConfig {
        gates: vec!["./slo".into()],
        gate_env: gate_env.iter().map(|s| s.to_string()).collect(),
        ..cfg()
    };
    let cases = [
        (
            EngineConfig {
                lease_timeout: Duration::from_secs(15),
                ..cfg()
            },
            "--lease-timeout to at least 20 s",
        ),
        (
            EngineConfig {
                poll_interval: Duration::ZERO,
                ..cfg()
            },
            "--poll-interval is 0",
        ),
        (
            EngineConfig {
                batch_timeout: Duration::ZERO,
                ..cfg()
            },
            "--batch-timeout is 0",
        ),
        (
            EngineConfig {
                drain_timeout: Duration::ZERO,
                ..cfg()
            },
            "--drain-timeout is 0",
        ),
        (
            EngineConfig {
                gate_timeout: Duration::ZERO,
                ..gated(&[])
            },
            "--gate-timeout is 0",
        ),
        (
            EngineConfig {
                wait_for_window: true,
                ..cfg()
            },
            "--wait-for-window needs at least one --window",
        ),
        (
            EngineConfig {
                gates: vec!["  ".into()],
                ..cfg()
            },
            "a gate needs a command",
        ),
        (
            gated(&["NO SUCH=NAME"]),
            "not the name of an environment variable",
        ),
        (gated(&["CKS_NODES"]), "the engine sets this one itself"),
    ];
    let req = offerings(&[("worker", "medium")]);
    for (bad, says) in cases {
        let sim = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
        let err = sim
            .update(&req, &bad, &mut NoProgress)
            .expect_err(says)
            .to_string();
        assert!(err.contains(says), "{says}: {err}");
        let w = sim.world();
        assert!(w.trace.is_empty(), "{says}: {}", w.trace.join("\n"));
    }
    let mut none = offerings(&[("worker", "medium")]);
    none.max_unavailable = Some(0);
    let sim = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
    let err = sim
        .update(&none, &cfg(), &mut NoProgress)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("maxunavailable: must be at least 1"), "{err}");
    assert!(
        sim.world().trace.is_empty(),
        "{}",
        sim.world().trace.join("\n")
    );
}
