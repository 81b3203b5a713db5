//! No server grows `cks-rollout`'s memory: an endless `listKubernetesClusters` answer stops
//! `plan` at the answer limit with an error naming the limit and `--max-answer-size`, its peak
//! memory (measured by `/usr/bin/time -v`) well under 100 MiB; an endless Kubernetes node list
//! and an endless etcd answer are cut at the limit too.

use std::process::Command;
use std::time::Duration;

use cks_fixtures::endless::{
    CLOUDSTACK_LIST_ITEM, CLOUDSTACK_LIST_OPENING, EndlessServer, KUBE_LIST_ITEM,
    KUBE_LIST_OPENING, peak_memory,
};
use cks_rollout::adapters::etcd::{EtcdHealth, KnownMember};
use cks_rollout::adapters::kube::{KubeAccess, KubeClient, KubeError};
use cks_rollout::adapters::tls::TlsMaterial;
use cks_rollout::model::MemberHealth;

const CLUSTER: &str = "4b6e7a52-0c4f-4d8e-9d39-0a6f1c2b3d4e";

fn plan(server: &EndlessServer, store: &std::path::Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
    command
        .args(["plan", "--cluster-id", CLUSTER, "--offering", "worker=big"])
        .arg("--store")
        .arg(store)
        .args(extra)
        .env(
            "CLOUDSTACK_ENDPOINT",
            format!("{}/client/api", server.url()),
        )
        .env("CLOUDSTACK_KEY", "key")
        .env("CLOUDSTACK_SECRET", "secret")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("KUBECONFIG")
        .env_remove("CKS_ROLLOUT_STORE");
    command
}

#[test]
fn plan_against_an_endless_cloudstack_answer_stops_at_the_limit_under_100_mib() {
    let server =
        EndlessServer::start(CLOUDSTACK_LIST_OPENING, CLOUDSTACK_LIST_ITEM).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store.db");

    let run = peak_memory(plan(&server, &store, &[])).expect("cks-rollout runs");
    let stderr = String::from_utf8_lossy(&run.output.stderr).into_owned();
    println!(
        "cks-rollout plan, endless listKubernetesClusters: peak memory {} KiB, {} bytes sent",
        run.max_rss_kib,
        server.bytes_sent()
    );
    assert!(!run.output.status.success(), "{stderr}");
    assert!(
        stderr.contains("listKubernetesClusters")
            && stderr.contains("32 MiB")
            && stderr.contains("--max-answer-size"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("larger than the limit").count(),
        1,
        "said once: {stderr}"
    );
    assert!(
        run.max_rss_kib < 100 * 1024,
        "peak memory {} KiB",
        run.max_rss_kib
    );

    let run = peak_memory(plan(&server, &store, &["--max-answer-size", "4MiB"])).expect("runs");
    let stderr = String::from_utf8_lossy(&run.output.stderr).into_owned();
    assert!(
        stderr.contains("4 MiB") && stderr.contains("--max-answer-size"),
        "the flag sets the limit: {stderr}"
    );
    let bad = plan(&server, &store, &["--max-answer-size", "lots"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && stderr.contains("--max-answer-size") && stderr.contains("MiB"),
        "{stderr}"
    );
}

#[test]
fn an_endless_node_list_and_an_endless_etcd_answer_are_cut_at_the_limit() {
    let kube = EndlessServer::start(KUBE_LIST_OPENING, KUBE_LIST_ITEM).expect("server");
    let access = KubeAccess {
        server: kube.url(),
        tls: TlsMaterial::default(),
        token: None,
    };
    let client = KubeClient::new(&access, Duration::from_secs(30))
        .expect("client")
        .with_max_answer(2 << 20);
    let err = client.list_nodes().expect_err("an endless list is refused");
    assert!(matches!(err, KubeError::Answer { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("2 MiB") && text.contains("--max-answer-size"),
        "{text}"
    );

    let etcd = EndlessServer::start(r#"{"health":"#, r#"""#).expect("server");
    let health = EtcdHealth::new(
        vec![KnownMember {
            name: "etcd-0".into(),
            client_url: etcd.url(),
        }],
        &TlsMaterial::default(),
        Duration::from_secs(30),
    )
    .expect("checks")
    .with_max_answer(1 << 20);
    assert_eq!(health.member_health(&etcd.url()), MemberHealth::Unhealthy);
    assert!(health.member_list().is_none());
    assert!(etcd.bytes_sent() >= 1 << 20);
}
