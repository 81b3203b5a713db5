use super::*;
use crate::model::{
    Actions, ClusterStatus, FleetPlan, FleetRecord, Lease, Phase, PlannedStage, StageStatus,
};

fn record(stages: &[(usize, u32, u64)]) -> FleetRecord {
    let mut n = 0;
    let planned = stages
        .iter()
        .enumerate()
        .map(|(i, (count, parallelism, soak_ms))| PlannedStage {
            name: format!("s{i}"),
            clusters: (0..*count)
                .map(|_| {
                    n += 1;
                    format!("c{n}")
                })
                .collect(),
            parallelism: *parallelism,
            soak_ms: *soak_ms,
            gates: vec![],
            halt_after: 1,
        })
        .collect::<Vec<_>>();
    let ids: Vec<String> = planned.iter().flat_map(|s| s.clusters.clone()).collect();
    let plan = FleetPlan {
        stages: planned,
        actions: Actions::default(),
        windows: vec![],
        lease_ms: 1000,
        gate_timeout_ms: 1000,
        gate_env: vec![],
        skipped: vec![],
    };
    FleetRecord::new(
        "f",
        0,
        plan,
        ids.into_iter()
            .map(|id| (id.clone(), id, None, "1.32.4".to_string())),
    )
}

fn act(next: Next) -> (String, Lease) {
    match next {
        Next::Act { cluster, lease, .. } => (cluster, lease),
        other => panic!("expected a claim, got {other:?}"),
    }
}

#[test]
fn a_stage_holds_its_parallelism_and_soaks_before_the_next() {
    let mut r = record(&[(2, 1, 500), (1, 1, 0)]);
    let (c1, l1) = act(next(&mut r, "w1", 10));
    assert!(matches!(
        next(&mut r, "w2", 11),
        Next::Wait {
            why: WaitFor::Busy,
            ..
        }
    ));
    assert_eq!(
        end_cluster(&mut r, &c1, &l1, Ok("done".into()), 20),
        Held::Yes
    );
    let (c2, l2) = act(next(&mut r, "w2", 21));
    assert_eq!(
        end_cluster(&mut r, &c2, &l2, Ok("done".into()), 30),
        Held::Yes
    );
    assert!(matches!(
        next(&mut r, "w1", 31),
        Next::Wait {
            why: WaitFor::Soak { stage: 0 },
            ..
        }
    ));
    assert!(matches!(
        next(&mut r, "w1", 530),
        Next::Wait {
            why: WaitFor::Soak { stage: 0 },
            ..
        }
    ));
    let (c3, l3) = act(next(&mut r, "w1", 531));
    assert_eq!(r.stages[0].status, StageStatus::Passed);
    assert_eq!(
        end_cluster(&mut r, &c3, &l3, Ok("done".into()), 540),
        Held::Yes
    );
    assert_eq!(next(&mut r, "w1", 541), Next::Finished);
}

#[test]
fn a_lapsed_hold_is_taken_over_and_the_old_holder_can_act_no_more() {
    let mut r = record(&[(1, 1, 0)]);
    let (c, mut old) = act(next(&mut r, "w1", 0));
    assert!(
        matches!(next(&mut r, "w2", 999), Next::Wait { .. }),
        "live until the lease ends"
    );
    let Next::Act {
        lease: new,
        takeover: true,
        phase: Phase::Start,
        ..
    } = next(&mut r, "w2", 1000)
    else {
        panic!("a takeover");
    };
    assert_eq!(renew_cluster(&mut r, &c, &mut old, 1001), Held::Lost);
    assert_eq!(
        end_cluster(&mut r, &c, &old, Ok("x".into()), 1001),
        Held::Lost
    );
    assert_eq!(
        end_cluster(
            &mut r,
            &c,
            &new,
            Err(ClusterFailure::NotRunning {
                state: "Stopped".into()
            }),
            1002
        ),
        Held::Yes
    );
    assert!(
        r.halted
            .as_deref()
            .is_some_and(|h| h.contains("1 cluster failed"))
    );
    assert!(matches!(
        r.clusters[&c].status,
        ClusterStatus::Failed { .. }
    ));
}

#[test]
fn a_halted_or_cancelled_fleet_starts_nothing_new() {
    let mut r = record(&[(3, 3, 0)]);
    let (c, l) = act(next(&mut r, "w1", 0));
    assert!(cancel(&mut r));
    assert!(matches!(
        next(&mut r, "w2", 1),
        Next::Wait {
            why: WaitFor::Stopping,
            ..
        }
    ));
    assert_eq!(end_cluster(&mut r, &c, &l, Ok("done".into()), 2), Held::Yes);
    assert_eq!(next(&mut r, "w2", 3), Next::Finished);
    assert!(!cancel(&mut r), "an ended fleet is not cancelled again");
}
