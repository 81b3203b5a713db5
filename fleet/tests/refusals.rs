//! Bad input is refused naming the entry, before anything acts: a stage file with an unknown
//! key, parallelism 0, an empty selection, a version older than a cluster's. CloudStack is asked
//! nothing that changes a cluster, and no store is created.

use std::process::Command;

use cks_fixtures::fleet_cloud::FleetCloud;

const KEY: &str = "fleet-api-key";
const SECRET: &str = "fleet-secret";

fn fleet(fleet: &FleetCloud, dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cks-fleet"))
        .arg("run")
        .args([
            "--fleet",
            "f",
            "--store",
            &dir.join("store.db").display().to_string(),
            "--no-preload",
        ])
        .args(args)
        .env("CLOUDSTACK_ENDPOINT", fleet.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env_remove("CLOUDSTACK_CONFIG")
        .output()
        .expect("cks-fleet runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_stage_files_empty_selections_and_downgrades_are_refused_before_anything_acts() {
    let cloud = FleetCloud::start(4, 1, KEY, SECRET, 2).expect("cloud");
    let dir = tempfile::tempdir().expect("dir");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let unknown = file(
        "unknown.toml",
        "to = \"1.33.1\"\n[[stage]]\nname = \"canary\"\nclusterz = 1\n",
    );
    let zero = file(
        "zero.toml",
        "to = \"1.33.1\"\n[[stage]]\nname = \"canary\"\nparallelism = 0\n",
    );
    let cases: [(&[&str], &str); 5] = [
        (&["--file", &unknown], "unknown field `clusterz`"),
        (&["--file", &zero], "stage \"canary\": parallelism = 0"),
        (
            &["--to", "1.33.1", "--cluster-name", "nothing-*"],
            "the selection is empty",
        ),
        (
            &["--to", "1.33.1", "--stage", "name=canary,parallelism=0"],
            "stage \"canary\": parallelism = 0",
        ),
        (
            &["--to", "1.33.1", "--stage", "name=canary,size=1"],
            "unknown key \"size\"",
        ),
    ];
    for (args, says) in cases {
        let (code, stderr) = fleet(&cloud, dir.path(), args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?} says {says:?}: {stderr}");
    }
    // A cluster newer than the target: the fleet is refused naming it.
    let newer = cloud
        .cluster_named("fleet-03")
        .expect("fleet-03")
        .id
        .clone();
    cloud.cloud.set_cluster_version(&newer, &cloud.new_version);
    let (code, stderr) = fleet(&cloud, dir.path(), &["--to", "1.32.4"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("fleet-03") && stderr.contains("newer than the target 1.32.4"),
        "{stderr}"
    );
    let calls = cloud.cloud.calls();
    assert!(
        calls.iter().all(|c| c.to_lowercase().starts_with("list")),
        "only lists: {calls:?}"
    );
    assert!(
        !dir.path().join("store.db").exists(),
        "no store was created"
    );
}
