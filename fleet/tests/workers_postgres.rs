//! Three `cks-fleet run` processes on the real PostgreSQL over a fleet of 30 clusters in the
//! CloudStack fake (every fourth owned by a project), each upgrade done by the real
//! `cks-upgrade-hook upgrade` (its job followed, the cloud controller manager refreshed over the
//! real sshd): one worker is killed while it holds a cluster of the last stage, another takes
//! that cluster over once the lease lapsed; no cluster is upgraded twice; the one whose
//! CloudStack job fails is reported with CloudStack's error.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cks_fixtures::fleet_cloud::FleetCloud;
use cks_fixtures::postgres::Postgres;
use cks_fixtures::skip::skip;
use cks_fixtures::sshd::Sshd;

use crate::support::{KUBECTL, Killed, events_of, tool, wait_for};

const KEY: &str = "fleet-api-key";
const SECRET: &str = "fleet-secret-SECRETMARK";

#[test]
fn three_workers_upgrade_thirty_clusters_and_take_a_killed_workers_cluster_over() {
    let pg = match Postgres::start() {
        Ok(pg) => pg,
        Err(e) if e.to_string().contains("not installed") => {
            return skip(&format!("no PostgreSQL here: {e}"));
        }
        Err(e) => panic!("PostgreSQL starts: {e}"),
    };
    let sshd = Sshd::start().expect("sshd starts");
    let fleet = FleetCloud::start(30, sshd.port(), KEY, SECRET, 4).expect("the fleet's cloud");
    fleet
        .cloud
        .set_upgrade_duration(Duration::from_millis(1500));
    let failing = fleet
        // In the second stage, so it fails before a worker is killed in the last: its error is
        // then always reported by the worker that followed the job.
        .cluster_named("fleet-03")
        .expect("fleet-03")
        .id
        .clone();
    fleet.cloud.fail_upgrade_of(
        &failing,
        "Failed to upgrade Kubernetes cluster : fleet-03 as unable to upgrade control node",
    );
    let work = tempfile::tempdir().expect("work dir");
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
    let hook = tool("cks-upgrade-hook", "cks-upgrade-hook");

    let worker = |name: &str| -> Child {
        let events = work.path().join(format!("{name}.events"));
        let mut args: Vec<String> = [
            "run",
            "--fleet",
            "to-1.33",
            "--store",
            &pg.url(),
            "--to",
            "1.33.1",
            "--no-preload",
            "--stage",
            "name=canary,clusters=1",
            "--stage",
            "name=ten,percent=10,parallelism=2",
            "--stage",
            "name=rest,parallelism=4",
            "--halt-after",
            "3",
            "--lease-timeout",
            "10s",
            "--poll-interval",
            "1s",
            "--concurrency",
            "2",
            "--worker",
            name,
            "--json",
            "--ssh-user",
            sshd.user(),
        ]
        .map(String::from)
        .to_vec();
        args.extend([
            "--ssh-key".into(),
            key.display().to_string(),
            "--known-hosts".into(),
            known_hosts.display().to_string(),
        ]);
        args.extend([
            "--events".into(),
            events.display().to_string(),
            "--upgrade-hook".into(),
            hook.display().to_string(),
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
        Command::new(env!("CARGO_BIN_EXE_cks-fleet"))
            .args(&args)
            .env("CLOUDSTACK_ENDPOINT", fleet.api.endpoint())
            .env("CLOUDSTACK_KEY", KEY)
            .env("CLOUDSTACK_SECRET", SECRET)
            .env_remove("CLOUDSTACK_CONFIG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cks-fleet runs")
    };
    let mut children = Killed(vec![worker("w1"), worker("w2"), worker("w3")]);

    // The first worker seen to claim a cluster of the last stage is killed while it holds it.
    // Which one it is, is the race's: the stage's parallelism (4) is less than the workers'
    // slots (6), so any one of them may find the stage full every time it looks.
    let names = ["w1", "w2", "w3"];
    let events = |i: usize| events_of(&work.path().join(format!("{}.events", names[i])));
    let mut victim = None;
    wait_for(
        "a worker to claim a cluster of the last stage",
        Duration::from_secs(300),
        || {
            victim = (0..names.len()).find(|&i| {
                events(i)
                    .iter()
                    .any(|e| e["step"] == "claim" && e["stage"] == "rest")
            });
            victim.is_some()
        },
    );
    let victim = victim.expect("a worker claimed a cluster of the last stage");
    children.0[victim].kill().expect("kill the worker");
    let _ = children.0[victim].wait();
    // What it held when it died: claimed, not ended.
    let killed = events(victim);
    let ended: Vec<&str> = killed
        .iter()
        .filter(|e| e["step"] == "done" || e["step"] == "failed")
        .filter_map(|e| e["cluster"].as_str())
        .collect();
    let held: Vec<String> = killed
        .iter()
        .filter(|e| e["step"] == "claim" || e["step"] == "takeover")
        .filter_map(|e| e["cluster"].as_str())
        .filter(|c| !ended.contains(c))
        .map(str::to_string)
        .collect();
    let others: Vec<usize> = (0..names.len()).filter(|&i| i != victim).collect();
    assert!(
        !held.is_empty(),
        "{} held a cluster when it was killed",
        names[victim]
    );
    let mut summaries = Vec::new();
    for &i in &others {
        let child = std::mem::replace(
            &mut children.0[i],
            Command::new("true").spawn().expect("true"),
        );
        let out = child.wait_with_output().expect("worker ends");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(3), "one cluster failed: {stderr}");
        assert!(!stderr.contains("SECRETMARK"), "{stderr}");
        summaries.push(
            serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("a JSON summary"),
        );
    }
    let summary = &summaries[0];
    let clusters = summary["clusters"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 30);
    let done = clusters.iter().filter(|c| c["ending"] == "done").count();
    assert_eq!(done, 29, "{summary:#}");
    let failed: Vec<_> = clusters
        .iter()
        .filter(|c| c["ending"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["id"], failing.as_str());
    assert!(
        failed[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("unable to upgrade control node")),
        "{:#}",
        failed[0]
    );

    // Every cluster upgraded once, the project-owned ones too; the killed worker's last cluster
    // was taken over.
    let calls = fleet.cloud.calls();
    for c in &fleet.clusters {
        let upgrades = calls
            .iter()
            .filter(|call| {
                call.to_lowercase().starts_with("upgradekubernetescluster")
                    && call.contains(&format!("id={}", c.id))
            })
            .count();
        assert_eq!(upgrades, 1, "{} upgraded {upgrades} times", c.name);
    }
    assert!(fleet.project_clusters().count() >= 7);
    let all_events: Vec<serde_json::Value> = others.iter().flat_map(|&i| events(i)).collect();
    let taken: Vec<&str> = all_events
        .iter()
        .filter(|e| e["step"] == "takeover")
        .filter_map(|e| e["cluster"].as_str())
        .collect();
    // Never more clusters of a stage in progress than it allows: each cluster from its first
    // claim to its end, both stamped by the store's clock (the record `status --json` shows).
    let shown = Command::new(env!("CARGO_BIN_EXE_cks-fleet"))
        .args([
            "status",
            "--fleet",
            "to-1.33",
            "--store",
            &pg.url(),
            "--json",
        ])
        .output()
        .expect("status runs");
    let record: serde_json::Value =
        serde_json::from_slice(&shown.stdout).expect("the record as JSON");
    assert!(record["ended_ms"].is_u64(), "the fleet ended");
    // Each cluster the killed worker held when it died was taken over, unless it had ended it
    // in the store just before its event line (then it was claimed once).
    for cluster in &held {
        let claims = record["clusters"][cluster.as_str()]["claims"].as_u64();
        assert!(
            taken.contains(&cluster.as_str()) || claims == Some(1),
            "{cluster} taken over: {taken:?}"
        );
    }
    let stages = record["plan"]["stages"].as_array().expect("stages");
    for (i, stage) in stages.iter().enumerate() {
        let parallelism = stage["parallelism"].as_u64().expect("parallelism") as usize;
        let spans: Vec<(u64, u64)> = record["clusters"]
            .as_object()
            .expect("clusters")
            .values()
            .filter(|c| c["stage"].as_u64() == Some(i as u64))
            .map(|c| {
                (
                    c["started_ms"].as_u64().expect("started"),
                    c["ended_ms"].as_u64().expect("ended"),
                )
            })
            .collect();
        let most = spans
            .iter()
            .map(|(start, _)| {
                spans
                    .iter()
                    .filter(|(s, e)| s <= start && start < e)
                    .count()
            })
            .max()
            .unwrap_or(0);
        assert!(
            most <= parallelism,
            "stage {}: {most} clusters at once, parallelism {parallelism}",
            stage["name"]
        );
    }
    for e in &all_events {
        assert_eq!(e["kind"], "fleet");
        assert_eq!(e["fleet"], "to-1.33");
    }
}
