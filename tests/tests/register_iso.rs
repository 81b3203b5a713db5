//! The release engineer's path after the build: an ISO built against the demo upstream, served
//! over HTTP on loopback, registered with the `cks-iso register` binary (as a user runs it)
//! against the CloudStack API fake, which downloads it like secondary storage until Ready. And
//! each failure: the URL serving other bytes, a download CloudStack reports as failed, the same
//! version already registered (same checksum: exit 0; another: refused unless --replace, and
//! never while a cluster uses it), and missing credentials: each one error line naming the
//! input, a non-zero exit, and nothing registered. A download slower than `--timeout` is
//! reported with CloudStack's state and stays registered.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::demo::DemoConfig;
use cks_fixtures::http::{Fault, FileServer};
use cks_pinning::versions_txt::VersionsTxt;

pub(crate) const KEY: &str = "register-key";
pub(crate) const SECRET: &str = "register-secret";

/// The `cks-iso` binary of this build, built first if the test run did not build it.
pub(crate) fn cks_iso() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/e2e-<hash> → target/<profile>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary sits in target/<profile>/deps");
    let target_dir = profile_dir.parent().expect("target dir");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build
        .args([
            "build",
            "--quiet",
            "-p",
            "cks-builder",
            "--bin",
            "cks-iso",
            "--target-dir",
        ])
        .arg(target_dir);
    if profile_dir.file_name().is_some_and(|p| p == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building cks-iso failed");
    profile_dir.join("cks-iso")
}

/// An ISO built against the demo upstream, with its sidecar, in a temp dir.
pub(crate) struct Built {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) iso: PathBuf,
    pub(crate) version: String,
    pub(crate) sha256: String,
}

pub(crate) async fn build_iso() -> Built {
    build_iso_for("x86_64").await
}

/// [`build_iso`] for `arch`.
pub(crate) async fn build_iso_for(arch: &str) -> Built {
    let upstream = start_upstream(DemoConfig::default()).await;
    let dir = tempfile::tempdir().expect("out dir");
    let summary = run_build(
        &demo_inputs(&upstream, dir.path(), arch),
        Default::default(),
    )
    .await
    .expect("the demo build");
    let versions = VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("versions.txt");
    Built {
        iso: summary.iso.clone(),
        version: versions.kubernetes.trim_start_matches('v').to_string(),
        sha256: summary.sha256.clone(),
        dir,
    }
}

pub(crate) struct Cloud {
    pub(crate) world: CloudWorld,
    pub(crate) api: CloudStackFake,
}

pub(crate) fn cloud() -> Cloud {
    let world = CloudWorld::new(KEY, SECRET);
    let api = CloudStackFake::start(world.clone()).expect("the CloudStack fake starts");
    Cloud { world, api }
}

pub(crate) fn register(cloud: &Cloud, iso: &Path, url: &str, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp home");
    Command::new(cks_iso())
        .arg("register")
        .arg(iso)
        .args(["--url", url])
        .args(extra)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", cloud.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("CLOUDSTACK_REGION")
        .output()
        .expect("cks-iso runs")
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one error line of a failed run (progress lines may precede it on stderr).
pub(crate) fn the_error(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure: {}", stdout(out));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line:\n{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some(errors[0]),
        "the error is the last line:\n{stderr}"
    );
    errors[0].to_string()
}

pub(crate) fn iso_name(built: &Built) -> String {
    built
        .iso
        .file_name()
        .expect("the ISO has a name")
        .to_string_lossy()
        .into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_built_iso_registers_until_ready_and_again_is_already_registered() {
    let built = build_iso().await;
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{}", iso_name(&built)));
    let cloud = cloud();

    let out = register(&cloud, &built.iso, &url, &["--zone", "zone1"]);
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains(&format!("registered Kubernetes {}", built.version))
            && stdout(&out).contains("ISO Ready"),
        "{}",
        stdout(&out)
    );
    let versions = cloud.world.kubernetes_versions();
    assert_eq!(versions.len(), 1);
    let (_, version, checksum, state) = &versions[0];
    assert_eq!(version, &built.version);
    assert_eq!(
        checksum.as_deref(),
        Some(format!("{{SHA-256}}{}", built.sha256).as_str())
    );
    assert_eq!(state, "Ready");
    let calls = cloud.world.calls();
    let add = calls
        .iter()
        .find(|c| c.starts_with("addkubernetessupportedversion"))
        .expect("addKubernetesSupportedVersion called");
    for part in [
        format!("semanticversion={}", built.version),
        "mincpunumber=2".to_string(),
        "minmemory=2048".to_string(),
        "zoneid=zone-1".to_string(),
        "arch=x86_64".to_string(),
    ] {
        assert!(add.contains(&part), "{part} missing from {add}");
    }
    // `register` read the whole URL once to check it, secondary storage once to download it.
    assert_eq!(
        files.requests(&format!("/{}", iso_name(&built))),
        3,
        "HEAD, check GET, download"
    );

    let again = register(&cloud, &built.iso, &url, &["--json"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON outcome");
    assert_eq!(json["status"], "already_registered");
    assert_eq!(cloud.world.kubernetes_versions().len(), 1, "nothing added");
    let plain = register(&cloud, &built.iso, &url, &[]);
    assert!(
        stdout(&plain).starts_with("already registered:"),
        "{}",
        stdout(&plain)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_version_with_another_checksum_is_refused_unless_replaced_while_unused() {
    let built = build_iso().await;
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{}", iso_name(&built)));
    let cloud = cloud();
    let other = format!("{{SHA-256}}{}", "ab".repeat(32));
    let old = cloud
        .world
        .add_ready_kubernetes_version(&built.version, &other);
    let cluster = cloud.world.add_cluster("prod", &[]);
    cloud.world.set_cluster_version(&cluster, &old);

    let refused = the_error(&register(&cloud, &built.iso, &url, &[]));
    // CloudStack shows the registered checksum without its `{SHA-256}` prefix.
    assert!(
        refused.contains(&"ab".repeat(32))
            && refused.contains(&built.sha256)
            && refused.contains("--replace"),
        "{refused}"
    );
    let in_use = the_error(&register(&cloud, &built.iso, &url, &["--replace"]));
    assert!(in_use.contains("prod") && in_use.contains(&old), "{in_use}");
    let versions = cloud.world.kubernetes_versions();
    assert_eq!(versions.len(), 1, "nothing registered: {versions:?}");
    assert_eq!(versions[0].0, old);

    cloud
        .world
        .set_cluster_version(&cluster, "some-other-version");
    let replaced = register(&cloud, &built.iso, &url, &["--replace"]);
    assert!(
        replaced.status.success(),
        "{}",
        String::from_utf8_lossy(&replaced.stderr)
    );
    assert!(
        stdout(&replaced).contains(&format!("replacing {old}")),
        "{}",
        stdout(&replaced)
    );
    let versions = cloud.world.kubernetes_versions();
    assert_eq!(versions.len(), 1);
    assert_ne!(versions[0].0, old, "the old version is gone");
    assert_eq!(versions[0].3, "Ready");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_version_a_project_cluster_runs_is_in_use_and_not_replaced() {
    let built = build_iso().await;
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{}", iso_name(&built)));
    let cloud = cloud();
    let other = format!("{{SHA-256}}{}", "cd".repeat(32));
    let old = cloud
        .world
        .add_ready_kubernetes_version(&built.version, &other);
    let cluster = cloud.world.add_cluster("team-prod", &[]);
    cloud.world.set_cluster_version(&cluster, &old);
    cloud.world.give_cluster_to_project(&cluster, "team");

    let in_use = the_error(&register(&cloud, &built.iso, &url, &["--replace"]));
    assert!(
        in_use.contains("team-prod") && in_use.contains(&old),
        "{in_use}"
    );
    let versions = cloud.world.kubernetes_versions();
    assert_eq!(versions.len(), 1, "nothing deleted: {versions:?}");
    assert_eq!(versions[0].0, old);
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_url_content_and_a_failed_download_register_nothing() {
    let built = build_iso().await;
    let name = iso_name(&built);
    let cloud = cloud();

    // Other bytes: a different size, then the same size with one byte changed.
    let wrong = tempfile::tempdir().expect("wrong dir");
    std::fs::write(wrong.path().join(&name), b"not the ISO").expect("write");
    let wrong_files = FileServer::start(wrong.path()).expect("file server");
    let wrong_url = wrong_files.url(&format!("/{name}"));
    let size = the_error(&register(&cloud, &built.iso, &wrong_url, &[]));
    assert!(
        size.contains(&format!("--url {wrong_url}")) && size.contains("bytes"),
        "{size}"
    );
    let mut bytes = std::fs::read(&built.iso).expect("read ISO");
    bytes[40_000] ^= 0xff;
    std::fs::write(wrong.path().join(&name), &bytes).expect("write");
    let digest = the_error(&register(&cloud, &built.iso, &wrong_url, &[]));
    assert!(
        digest.contains(&format!("--url {wrong_url}")) && digest.contains(&built.sha256),
        "{digest}"
    );
    let missing = the_error(&register(
        &cloud,
        &built.iso,
        &wrong_files.url("/nothing.iso"),
        &[],
    ));
    assert!(
        missing.contains("/nothing.iso") && missing.contains("404"),
        "{missing}"
    );
    assert!(cloud.world.kubernetes_versions().is_empty());
    assert!(
        !cloud
            .world
            .calls()
            .iter()
            .any(|c| c.starts_with("addkubernetessupportedversion")),
        "CloudStack was never asked to add a version"
    );

    // CloudStack reports the download failed: its text, and the version removed again.
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{name}"));
    cloud
        .world
        .fail_next_download(" HTTP Server returned 404 (expected 200 OK) ");
    let failed = the_error(&register(&cloud, &built.iso, &url, &[]));
    // The isostate is whatever CloudStack said at that poll (two calls, as with the real
    // one: `Creating` when the version was read just before the download failed).
    assert!(
        failed.contains(&url)
            && failed.contains("status \" HTTP Server returned 404 (expected 200 OK) \"")
            && failed.contains("downloadState DOWNLOAD_ERROR")
            && failed.contains("removed again")
            && (failed.contains("isostate Allocated") || failed.contains("isostate Creating")),
        "{failed}"
    );
    assert!(
        cloud.world.kubernetes_versions().is_empty(),
        "nothing stays registered"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_download_slower_than_the_timeout_is_reported_and_stays_registered() {
    let built = build_iso().await;
    let name = iso_name(&built);
    let cloud = cloud();
    let files = FileServer::start(built.dir.path()).expect("file server");
    let path = format!("/{name}");
    // `register`'s HEAD and GET are answered at once; secondary storage's download stalls.
    let now = Fault::Stall {
        after: 0,
        pause: Duration::ZERO,
    };
    let slow = Fault::Stall {
        after: 0,
        pause: Duration::from_secs(5),
    };
    files.schedule(&path, [now.clone(), now, slow]);
    let late = the_error(&register(
        &cloud,
        &built.iso,
        &files.url(&path),
        &["--timeout", "1s"],
    ));
    assert!(
        late.contains("not Ready after") && late.contains("Creating") && late.contains("--timeout"),
        "{late}"
    );
    let versions = cloud.world.kubernetes_versions();
    assert_eq!(
        versions.len(),
        1,
        "a slow download stays registered, as the error says"
    );
    assert!(
        late.contains(&versions[0].0),
        "the error names the version's id: {late}"
    );
}

#[test]
fn missing_credentials_and_a_rejected_iso_are_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let home = tempfile::tempdir().expect("temp home");
    let iso = dir.path().join("cks.iso");
    std::fs::write(&iso, b"not an ISO").expect("write");
    let run = |endpoint: Option<&str>| {
        let mut command = Command::new(cks_iso());
        command
            .arg("register")
            .arg(&iso)
            .args(["--url", "http://127.0.0.1:9/cks.iso"])
            .env("HOME", home.path())
            .env_remove("CLOUDSTACK_ENDPOINT")
            .env_remove("CLOUDSTACK_KEY")
            .env_remove("CLOUDSTACK_SECRET")
            .env_remove("CLOUDSTACK_CONFIG");
        if let Some(endpoint) = endpoint {
            command
                .env("CLOUDSTACK_ENDPOINT", endpoint)
                .env("CLOUDSTACK_KEY", KEY)
                .env("CLOUDSTACK_SECRET", SECRET);
        }
        command.output().expect("cks-iso runs")
    };
    let none = the_error(&run(None));
    assert!(
        none.contains("CLOUDSTACK_ENDPOINT") && none.contains("CLOUDSTACK_CONFIG"),
        "{none}"
    );
    let cloud = cloud();
    let rejected = the_error(&run(Some(&cloud.api.endpoint())));
    assert!(rejected.contains(&iso.display().to_string()), "{rejected}");
    assert!(cloud.world.calls().is_empty(), "CloudStack was not called");
}
