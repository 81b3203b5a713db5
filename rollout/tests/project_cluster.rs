//! A cluster owned by a CloudStack project: the fake hides its VMs, volumes, groups, network
//! and rules from `listall=true` calls without `projectid` (unless one `id` is named), as the
//! real server does, and `cks-rollout plan` and `run` still find every node, through
//! discovery alone, by naming the cluster's project.

use serde_json::Value;

use cks_rollout::adapters::cloudstack::{CloudStackClient, CloudStackConfig, Secret};

use crate::discovery_support::{WORKERS, cluster, text};

fn client(endpoint: String) -> CloudStackClient {
    CloudStackClient::new(CloudStackConfig::new(
        endpoint,
        Secret::new("disc-key"),
        Secret::new("disc-secret"),
    ))
    .expect("client")
}

#[test]
fn the_fake_lists_a_project_clusters_vms_only_by_one_id_its_projectid_or_projectid_minus_one() {
    let c = cluster();
    let project = c.cloud.give_cluster_to_project(&c.cluster_id, "team");
    let cs = client(c.cloud_api.endpoint());
    let count = |params: &[(&str, String)]| {
        cs.list::<Value>("listVirtualMachines", "virtualmachine", params)
            .expect("listVirtualMachines")
            .len()
    };
    let ids = ("ids", c.vm_ids.join(","));
    let all = ("listall", "true".to_string());
    assert_eq!(count(&[ids.clone(), all.clone()]), 0, "skipped by ids");
    assert_eq!(count(&[("id", c.vm_ids[0].clone()), all.clone()]), 1);
    let mine = ("projectid", project.clone());
    assert_eq!(count(&[ids.clone(), all.clone(), mine]), c.vm_ids.len());
    let every = ("projectid", "-1".to_string());
    assert_eq!(count(&[ids, all, every]), c.vm_ids.len());
    let cluster = cs.kubernetes_cluster(&c.cluster_id).expect("by its id");
    assert_eq!(cluster.project_id.as_deref(), Some(project.as_str()));
    let listed = cs.list_kubernetes_clusters().expect("every cluster");
    assert_eq!(listed.len(), 1, "the project's cluster is listed once");
}

#[test]
fn plan_and_run_find_every_node_of_a_project_cluster() {
    let c = cluster();
    let project = c.cloud.give_cluster_to_project(&c.cluster_id, "team");
    let offering = ["--offering".to_string(), format!("worker={}", c.big)];

    let plan = c
        .rollout("plan")
        .args(&offering)
        .arg("--json")
        .output()
        .expect("runs");
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: Value = serde_json::from_slice(&plan.stdout).expect("JSON plan");
    let planned: usize = plan["phases"][0]["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .map(|b| b["nodes"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(planned, WORKERS.len(), "{plan}");
    let calls = c.cloud.calls();
    let named = |command: &str| {
        calls
            .iter()
            .filter(|call| call.starts_with(command))
            .all(|call| call.contains(&format!("projectid={project}")))
    };
    for command in [
        "listvirtualmachines",
        "listvolumes",
        "listnetworks",
        "listportforwardingrules",
    ] {
        assert!(
            calls.iter().any(|call| call.starts_with(command)) && named(command),
            "{command} names the project: {calls:#?}"
        );
    }

    let run = c
        .rollout("run")
        .args(&offering)
        .args(["--poll-interval", "50ms", "--drain-timeout", "30s"])
        .output()
        .expect("runs");
    let shown = text(&run);
    assert!(run.status.success(), "{shown}");
    assert!(
        shown.contains(&format!("restarted {} node(s)", WORKERS.len())),
        "{shown}"
    );
    for name in WORKERS {
        let vm = c.cloud.vm_named(name).expect("vm");
        assert_eq!(vm.service_offering_id, c.big, "{name} moved");
    }
}
