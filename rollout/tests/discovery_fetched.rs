//! A kubeconfig fetched from CloudStack is data: one that names a token file (which the real
//! kubectl reads and sends) is refused naming the field before any request is made; and the
//! private copy of the fetched kubeconfig is removed when the command is ended by SIGTERM or
//! SIGINT.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::kube_api::{KubeApiFake, KubeWorld};
use cks_fixtures::tls::TestCa;

use crate::kube_support::{kubectl, kubectl_ok};

const KEY: &str = "fetched-key";
const SECRET: &str = "fetched-secret";

/// A two-VM cluster in the CloudStack fake whose stored kubeconfig is `kubeconfig`.
struct Cloud {
    cluster_id: String,
    api: CloudStackFake,
    dir: tempfile::TempDir,
}

fn cloud_with(kubeconfig: &str) -> Cloud {
    let cloud = CloudWorld::new(KEY, SECRET);
    let small = cloud.add_service_offering("small", 2, 4096);
    let disk = cloud.add_disk_offering("custom", 0);
    let control = cloud.add_vm("k1-control-1", &small, 20, &disk, &[]);
    let worker = cloud.add_vm("k1-node-1", &small, 20, &disk, &[]);
    cloud.set_vm_address(&control, "10.1.1.11");
    cloud.set_vm_address(&worker, "10.1.1.21");
    let cluster_id = cloud.add_cluster("k1", &[control, worker]);
    cloud.set_kubeconfig(&cluster_id, kubeconfig);
    let api = CloudStackFake::start(cloud).expect("CloudStack fake");
    Cloud {
        cluster_id,
        api,
        dir: tempfile::tempdir().expect("temp dir"),
    }
}

impl Cloud {
    fn tmp(&self) -> PathBuf {
        let tmp = self.dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmp dir");
        tmp
    }

    /// `cks-rollout plan` with the CloudStack credentials only, its TMPDIR in the test's dir.
    fn plan(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
        cmd.current_dir(self.dir.path())
            .args(["plan", "--cluster-id", &self.cluster_id])
            .args(["--offering", "worker=anything"])
            .env("CLOUDSTACK_ENDPOINT", self.api.endpoint())
            .env("CLOUDSTACK_KEY", KEY)
            .env("CLOUDSTACK_SECRET", SECRET)
            .env_remove("CLOUDSTACK_CONFIG")
            .env_remove("KUBECONFIG")
            .env_remove("CKS_ROLLOUT_STORE")
            .env("TMPDIR", self.tmp());
        cmd
    }

    /// The kubeconfig copies left in the command's TMPDIR.
    fn kept(&self) -> Vec<PathBuf> {
        kept_in(&self.tmp())
    }
}

fn kept_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("tmp dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("cks-rollout-kubeconfig-"))
        })
        .collect()
}

#[test]
fn kubectl_follows_a_token_file_that_a_fetched_kubeconfig_may_not_name() {
    let secret = "local-secret-of-this-host";
    let world = KubeWorld::new();
    world.add_node("k1-control-1", 2, 4096);
    world.require_token(secret);
    let ca = TestCa::new().expect("CA");
    let kube = KubeApiFake::start_with(
        world.clone(),
        None,
        Some(ca.server_config(false).expect("tls")),
    )
    .expect("kube fake");
    let ca_data = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(ca.cert_pem())
    };
    let dir = tempfile::tempdir().expect("temp dir");
    // A 0600 secret of this host that the kubeconfig points at.
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, secret).expect("token file");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: k1\n  cluster:\n    server: {}\n    certificate-authority-data: {ca_data}\n\
         users:\n- name: admin\n  user:\n    tokenFile: {}\n\
         contexts:\n- name: k1\n  context:\n    cluster: k1\n    user: admin\ncurrent-context: k1\n",
        kube.url(),
        token_file.display()
    );
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, &text).expect("kubeconfig");

    // kubectl reads the file and sends the secret as a Bearer token: the fake, which requires
    // that token, answers.
    let names = kubectl_ok(&kubectl(
        &config,
        &dir.path().join("cache"),
        &["get", "nodes", "-o", "jsonpath={.items[0].metadata.name}"],
    ));
    assert_eq!(names.trim(), "k1-control-1");
    let seen_by_kubectl = world.requests().len();
    assert!(seen_by_kubectl > 0);

    // Handed out by CloudStack, the same kubeconfig is refused, naming the field, and nothing
    // is sent to the server it names.
    let c = cloud_with(&text);
    let out = c.plan().output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`tokenFile`")
            && stderr.contains("a token file on this host would be read and sent")
            && stderr.contains("pass --kubeconfig FILE"),
        "{stderr}"
    );
    assert!(!stderr.contains(secret), "{stderr}");
    assert_eq!(
        world.requests().len(),
        seen_by_kubectl,
        "no request reached the server"
    );
    assert!(c.kept().is_empty(), "{:?}", c.kept());
}

#[test]
fn a_fetched_kubeconfig_skipping_tls_checks_or_over_http_is_refused_naming_the_field() {
    let ca = TestCa::new().expect("CA");
    let ca_data = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(ca.cert_pem())
    };
    let with_cluster = |cluster: &str| {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: k1\n  cluster:\n{cluster}\
             users:\n- name: admin\n  user:\n    token: t\n\
             contexts:\n- name: k1\n  context:\n    cluster: k1\n    user: admin\ncurrent-context: k1\n"
        )
    };
    let cases = [
        (
            format!("    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\n    certificate-authority-data: {ca_data}\n"),
            "`insecure-skip-tls-verify`",
        ),
        (
            format!("    server: http://127.0.0.1:1\n    certificate-authority-data: {ca_data}\n"),
            "`server`",
        ),
        (
            "    server: https://127.0.0.1:1\n    certificate-authority: /etc/ssl/certs/ca-certificates.crt\n".to_string(),
            "`certificate-authority`",
        ),
    ];
    for (cluster, field) in cases {
        let c = cloud_with(&with_cluster(&cluster));
        let out = c.plan().output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(field), "{field}: {stderr}");
    }
}

/// Ends `cks-rollout plan` with `signal` while it waits on an API server that never answers,
/// and checks the private kubeconfig it kept is gone.
fn removed_on(signal: &str) {
    // An https server that accepts and never answers: the command waits on it, kubeconfig kept.
    let silent = TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = silent.local_addr().expect("address").port();
    let (reached, waiting) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
            let _ = reached.send(());
        }
    });
    let ca = TestCa::new().expect("CA");
    let ca_data = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(ca.cert_pem())
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: k1\n  cluster:\n    server: https://127.0.0.1:{port}\n    certificate-authority-data: {ca_data}\n\
         users:\n- name: admin\n  user:\n    token: cluster-admin\n\
         contexts:\n- name: k1\n  context:\n    cluster: k1\n    user: admin\ncurrent-context: k1\n"
    );
    let c = cloud_with(&text);
    let mut child = c
        .plan()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    // The command reaches the API server only after it kept the kubeconfig (and registered it
    // for removal).
    waiting
        .recv_timeout(Duration::from_secs(60))
        .expect("the command reached the API server");
    let kept = c.kept();
    assert_eq!(
        kept.len(),
        1,
        "the kubeconfig is kept while the command runs"
    );
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let ended = child.wait().expect("ends");
    assert!(!ended.success(), "{ended:?}");
    for path in kept {
        assert!(
            !path.exists(),
            "{} left behind after SIG{signal}",
            path.display()
        );
    }
}

#[test]
fn the_fetched_kubeconfig_is_removed_on_sigterm() {
    removed_on("TERM");
}

#[test]
fn the_fetched_kubeconfig_is_removed_on_sigint() {
    removed_on("INT");
}
