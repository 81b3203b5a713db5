//! `cks-upgrade-hook redeploy` from the cluster id alone: the first control node and the
//! autoscaling settings read from the CloudStack fake (checked by the real `cs` client), the
//! node a real sshd reached through its port-forwarding rule; the cloud controller manager
//! refreshed from the provider.yaml the upgrade left on the node; each missing piece one line
//! naming its flag, and no secret printed.

use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use serde_json::Value;

use crate::common::*;

pub const API_KEY: &str = "hook-api-key";
pub const SECRET_KEY: &str = "hook-secret-key-SECRETMARK";

/// A cluster of one control node (the sshd, behind a port-forwarding rule on 127.0.0.1) and a
/// worker, on an isolated network.
pub struct Cluster {
    pub node: Node,
    pub cloud: CloudWorld,
    pub api: CloudStackFake,
    pub id: String,
}

impl Cluster {
    pub fn start(rule: bool) -> Cluster {
        let node = Node::start();
        let cloud = CloudWorld::new(API_KEY, SECRET_KEY);
        let small = cloud.add_service_offering("small", 2, 4096);
        let disk = cloud.add_disk_offering("custom", 0);
        let control = cloud.add_vm("k1-control-1", &small, 20, &disk, &[]);
        let worker = cloud.add_vm("k1-node-1", &small, 20, &disk, &[]);
        cloud.set_vm_address(&control, "10.1.1.11");
        cloud.set_vm_address(&worker, "10.1.1.21");
        let id = cloud.add_cluster("k1", &[control.clone(), worker.clone()]);
        let ip = cloud
            .set_cluster_network(&id, "Isolated", Some("127.0.0.1"))
            .expect("public address");
        if rule {
            cloud.add_port_forward(&ip, node.sshd.port(), &control, 22);
        }
        let api = CloudStackFake::start(cloud.clone()).expect("fake starts");
        Cluster {
            node,
            cloud,
            api,
            id,
        }
    }

    pub fn manifest(&self) -> String {
        self.node
            .scripts
            .path()
            .join("provider.yaml")
            .display()
            .to_string()
    }

    pub fn args(&self, command: &str) -> Vec<String> {
        let known_hosts = self.node.sshd.known_hosts().expect("known_hosts");
        vec![
            command.to_string(),
            "--cluster-id".into(),
            self.id.clone(),
            "--ssh-key".into(),
            self.node.key().display().to_string(),
            "--known-hosts".into(),
            known_hosts.display().to_string(),
            "--user".into(),
            self.node.sshd.user().to_string(),
            "--script-dir".into(),
            self.node.scripts.path().display().to_string(),
            "--no-sudo".into(),
            "--provider-manifest".into(),
            self.manifest(),
            "--json".into(),
        ]
    }

    pub fn run(&self, args: &[String]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
            .args(args)
            .env("CLOUDSTACK_ENDPOINT", self.api.endpoint())
            .env("CLOUDSTACK_KEY", API_KEY)
            .env("CLOUDSTACK_SECRET", SECRET_KEY)
            .env_remove("CLOUDSTACK_CONFIG")
            .output()
            .expect("cks-upgrade-hook runs")
    }

    pub fn secrets(&self) -> Vec<String> {
        let mut secrets = self.node.secrets(&[self.node.key()]);
        secrets.push(SECRET_KEY.to_string());
        secrets
    }
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn all(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn assert_clean(out: &Output, secrets: &[String]) {
    let text = all(out);
    for secret in secrets {
        assert!(!text.contains(secret.as_str()), "leaks {secret:?}:\n{text}");
    }
}

#[test]
fn with_autoscaling_disabled_only_the_ccm_is_refreshed() {
    let cluster = Cluster::start(true);
    cluster
        .cloud
        .set_autoscaling_sizes(&cluster.id, false, 0, 0);
    std::fs::write(cluster.manifest(), "kind: Deployment\n").expect("manifest");
    let out = cluster.run(&cluster.args("redeploy"));
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let value = json(&out);
    assert_eq!(value["provider"]["outcome"], "refreshed", "{value}");
    assert_eq!(value["provider"]["images"], serde_json::json!([CCM_IMAGE]));
    assert_eq!(
        value["provider"]["rollout_status"],
        "deployment \"cloud-controller-manager\" successfully rolled out"
    );
    assert_eq!(value["autoscaler"]["outcome"], "skipped");
    assert_eq!(value["autoscaler"]["reason"], "autoscaling_disabled");
    let manifest = cluster.manifest();
    assert_eq!(
        cluster.node.calls(),
        [
            "kubectl [-n] [kube-system] [get] [secret] [cloudstack-secret] [-o] [name]".to_string(),
            format!("kubectl [apply] [-f] [{manifest}]"),
            "kubectl [-n] [kube-system] [rollout] [status] [deployment/cloud-controller-manager] [--timeout=120s]"
                .to_string(),
            "kubectl [-n] [kube-system] [get] [deployment] [cloud-controller-manager] [-o] \
             [jsonpath={.spec.template.spec.containers[*].image}]"
                .to_string(),
        ]
    );
    let calls = cluster.cloud.calls().join("\n");
    assert!(
        calls.contains("listKubernetesClusters") || calls.contains("listkubernetesclusters"),
        "{calls}"
    );
    assert!(
        calls.to_lowercase().contains("listportforwardingrules"),
        "{calls}"
    );
    assert_clean(&out, &cluster.secrets());
}

#[test]
fn autoscaling_enabled_in_cloudstack_redeploys_the_autoscaler_with_its_sizes() {
    let cluster = Cluster::start(true);
    cluster.cloud.set_autoscaling_sizes(&cluster.id, true, 2, 4);
    std::fs::write(cluster.manifest(), "kind: Deployment\n").expect("manifest");
    let out = cluster.run(&cluster.args("redeploy"));
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let value = json(&out);
    assert_eq!(value["provider"]["outcome"], "refreshed", "{value}");
    assert_eq!(value["autoscaler"]["outcome"], "redeployed", "{value}");
    let id = &cluster.id;
    assert!(
        cluster.node.calls().contains(&format!(
            "autoscale-kube-cluster [-i] [{id}] [-e] [-M] [4] [-m] [2]"
        )),
        "{:?}",
        cluster.node.calls()
    );
    assert_clean(&out, &cluster.secrets());

    // The real `cs` reads the same settings from the fake.
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("home");
    let listed = Command::new(program)
        .args(["listKubernetesClusters", &format!("id={id}")])
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", cluster.api.endpoint())
        .env("CLOUDSTACK_KEY", API_KEY)
        .env("CLOUDSTACK_SECRET", SECRET_KEY)
        .output()
        .expect("cs runs");
    assert!(listed.status.success(), "{}", all(&listed));
    let entry = &json(&listed)["kubernetescluster"][0];
    assert_eq!(entry["autoscalingenabled"], true);
    assert_eq!(
        (entry["minsize"].as_u64(), entry["maxsize"].as_u64()),
        (Some(2), Some(4))
    );
}

#[test]
fn a_missing_ccm_manifest_warns_and_leaves_the_running_ccm_alone() {
    let cluster = Cluster::start(true);
    let out = cluster.run(&cluster.args("redeploy-provider"));
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let value = json(&out);
    assert_eq!(value["outcome"], "manifest_missing", "{value}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: cloud controller manager: skipped:")
            && stderr.contains("left as it is"),
        "{stderr}"
    );
    assert!(
        cluster.node.calls().is_empty(),
        "{:?}",
        cluster.node.calls()
    );
}

#[test]
fn each_missing_piece_is_one_line_naming_its_flag() {
    let cluster = Cluster::start(false);
    let drop_flag = |flag: &str| -> Vec<String> {
        let args = cluster.args("redeploy");
        let at = args.iter().position(|a| a == flag).expect("flag");
        args.iter()
            .enumerate()
            .filter(|(i, _)| *i != at && *i != at + 1)
            .map(|(_, a)| a.clone())
            .collect()
    };
    let no_rule = cluster.run(&cluster.args("redeploy"));
    for (out, says) in [
        (cluster.run(&drop_flag("--ssh-key")), "--ssh-key FILE"),
        (
            cluster.run(&drop_flag("--known-hosts")),
            "--known-hosts FILE",
        ),
        (no_rule, "pass --host HOST --port PORT"),
    ] {
        assert_eq!(out.status.code(), Some(2), "{}", all(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty());
        assert_clean(&out, &cluster.secrets());
    }
    // Without CloudStack credentials the node must come from --host.
    let out = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(cluster.args("redeploy"))
        .env_remove("CLOUDSTACK_ENDPOINT")
        .env_remove("CLOUDSTACK_KEY")
        .env_remove("CLOUDSTACK_SECRET")
        .env_remove("CLOUDSTACK_CONFIG")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", all(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--host HOST"), "{stderr}");
}

/// A new ISO's content in a folder: `docker/` and, when given, `provider.yaml`.
fn iso_folder(provider: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("iso folder");
    std::fs::create_dir_all(dir.path().join("docker")).expect("docker");
    if let Some(text) = provider {
        std::fs::write(dir.path().join("provider.yaml"), text).expect("provider.yaml");
    }
    dir
}

#[test]
fn with_the_iso_its_provider_manifest_is_written_to_the_node_and_applied() {
    let cluster = Cluster::start(true);
    std::fs::write(cluster.manifest(), "stale: the creation-time copy\n").expect("stale");
    let content = iso_folder(Some("kind: Deployment\n# from the new ISO\n"));
    let iso = content.path().with_extension("iso");
    let made = Command::new(
        cks_fixtures::process::require_program("xorriso", "xorriso").expect("xorriso"),
    )
    .args(["-as", "mkisofs", "-R", "-V", "CDROM", "-o"])
    .arg(&iso)
    .arg(content.path())
    .output()
    .expect("xorriso runs");
    assert!(made.status.success(), "{}", all(&made));
    let mut args = cluster.args("redeploy-provider");
    args.extend(["--iso".to_string(), iso.display().to_string()]);
    let out = cluster.run(&args);
    std::fs::remove_file(&iso).expect("rm iso");
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    assert_eq!(json(&out)["outcome"], "refreshed", "{}", all(&out));
    assert_eq!(
        std::fs::read_to_string(cluster.manifest()).expect("manifest"),
        "kind: Deployment\n# from the new ISO\n"
    );
    assert!(
        cluster
            .node
            .calls()
            .contains(&format!("kubectl [apply] [-f] [{}]", cluster.manifest())),
        "{:?}",
        cluster.node.calls()
    );
    assert_clean(&out, &cluster.secrets());
}

#[test]
fn an_iso_without_provider_yaml_leaves_the_running_ccm_and_the_node_alone() {
    let cluster = Cluster::start(true);
    std::fs::write(cluster.manifest(), "stale: the creation-time copy\n").expect("stale");
    let old = iso_folder(None);
    let mut args = cluster.args("redeploy");
    args.extend(["--iso".to_string(), old.path().display().to_string()]);
    let out = cluster.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let value = json(&out);
    assert_eq!(value["provider"]["outcome"], "manifest_missing", "{value}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: cloud controller manager"));
    assert!(
        cluster.node.calls().is_empty(),
        "{:?}",
        cluster.node.calls()
    );
    assert_eq!(
        std::fs::read_to_string(cluster.manifest()).expect("manifest"),
        "stale: the creation-time copy\n"
    );
}
