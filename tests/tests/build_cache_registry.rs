//! `--cache-registry` with the real CNCF distribution registry (`docker-registry`): a second
//! runner with an empty `--cache-dir` builds from the cache registry alone and gives the same
//! ISO; a damaged blob is ignored and replaced; a registry stopped mid-build or read-only costs a
//! warning, never the build.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use cks_builder::pipeline::Inputs;
use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::process::{Spawned, free_port, require_program, wait_for_port};

/// A `docker-registry` over a storage folder that outlives it (so one store can be served
/// writable, then read-only), stopped on drop.
struct CacheServer {
    addr: SocketAddr,
    process: Spawned,
}

impl CacheServer {
    fn start(storage: &Path, read_only: bool) -> CacheServer {
        let program = require_program("docker-registry", "docker-registry").expect("registry");
        let port = free_port().expect("a free port");
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let maintenance = if read_only {
            "  maintenance:\n    readonly:\n      enabled: true\n"
        } else {
            ""
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\n{maintenance}http:\n  addr: {addr}\n  secret: cache-secret\nhealth:\n  storagedriver:\n    enabled: false\n",
            storage.join("data").display()
        );
        let config_path = storage.join(format!("config-{port}.yml"));
        std::fs::write(&config_path, config).expect("write the registry config");
        let mut command = Command::new(program);
        command
            .arg("serve")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut process = Spawned::start("docker-registry", command).expect("start the registry");
        wait_for_port(addr, Duration::from_secs(10)).expect("the registry listens");
        process.check_running().expect("the registry runs");
        CacheServer { addr, process }
    }

    fn host(&self) -> String {
        self.addr.to_string()
    }

    fn url(&self) -> String {
        format!("http://{}/ci/cks-cache", self.host())
    }
}

/// The registry's blob data files under `storage`, largest first.
fn blob_files(storage: &Path) -> Vec<(PathBuf, u64)> {
    let root = storage.join("data/docker/registry/v2/blobs/sha256");
    let mut out = Vec::new();
    for prefix in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        for blob in std::fs::read_dir(prefix.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let data = blob.path().join("data");
            if let Ok(meta) = std::fs::metadata(&data) {
                out.push((data, meta.len()));
            }
        }
    }
    out.sort_by_key(|b| std::cmp::Reverse(b.1));
    out
}

/// The demo inputs of one runner: its own empty cache folder, the shared cache registry.
fn runner_inputs(upstream: &DemoUpstream, out: &Path, cache_dir: &Path, cache: &str) -> Inputs {
    let mut inputs = demo_inputs(upstream, out, "x86_64");
    inputs.cache_dir = Some(cache_dir.to_path_buf());
    inputs.cache_registry = Some(cache.to_string());
    // Signature material is asked of upstream by every build (image signature manifests are
    // not in the cache registry): these builds are about the caches alone.
    inputs.signatures.mode = Some(cks_builder::signature::Mode::Off);
    let host = cache
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    inputs.insecure_registries.push(host);
    inputs
}

/// The `cks-iso` binary of this build, built first if the test run did not build it.
fn cks_iso() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary sits in target/<profile>/deps");
    let target_dir = profile_dir.parent().expect("target dir");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "-p", "cks-builder", "--bin", "cks-iso"])
        .arg("--target-dir")
        .arg(target_dir);
    if profile_dir.file_name().is_some_and(|p| p == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "building cks-iso failed"
    );
    profile_dir.join("cks-iso")
}

/// Runs `cks-iso build` for `inputs` as a CI runner does; returns the ISO's sha256 and everything it printed.
fn build_process(binary: &Path, inputs: &Inputs, docker_config: &Path) -> (String, String) {
    let mut command = Command::new(binary);
    command.arg("build");
    let mut flag = |name: &str, value: &Option<String>| {
        if let Some(value) = value {
            command.arg(format!("--{name}")).arg(value);
        }
    };
    flag("kubernetes-version", &inputs.kubernetes_version);
    flag("cni-version", &inputs.cni_version);
    flag("crictl-version", &inputs.crictl_version);
    flag("network-yaml", &inputs.network_yaml);
    flag("dashboard-yaml", &inputs.dashboard_yaml);
    flag("build-name", &inputs.build_name);
    flag("arch", &inputs.arch);
    flag("etcd-version", &inputs.etcd_version);
    flag("csi-version", &inputs.csi_version);
    flag("ccm-version", &inputs.ccm_version);
    flag("cache-registry", &inputs.cache_registry);
    if inputs.signatures.mode == Some(cks_builder::signature::Mode::Off) {
        command.args(["--signatures", "off"]);
    }
    for (name, values) in [
        ("mirror", &inputs.mirrors),
        ("registry-mirror", &inputs.registry_mirrors),
        ("insecure-registry", &inputs.insecure_registries),
    ] {
        for value in values {
            command.arg(format!("--{name}")).arg(value);
        }
    }
    let out = inputs.output_path.clone().expect("an output path");
    command
        .arg("--output-path")
        .arg(&out)
        .arg("--cache-dir")
        .arg(inputs.cache_dir.clone().expect("a cache dir"))
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("DOCKER_CONFIG", docker_config);
    let output = command.output().expect("cks-iso runs");
    // The summary (with its `warning:` lines) is on stdout, the progress on stderr: both count.
    let stderr = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "cks-iso build failed:\n{stderr}");
    let iso = out.join("cks-e2e-x86_64.iso");
    let sha256 = cks_builder::digest::sha256_file(&iso)
        .expect("hash the ISO")
        .into_hex();
    (sha256, stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn runner_b_builds_from_the_cache_registry_alone_and_gives_the_same_iso() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let docker_config = tempfile::tempdir().expect("an empty docker config");
    let binary = cks_iso();

    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &cache.url());
    let (a_sha, a_err) = build_process(&binary, &a, docker_config.path());
    assert!(!a_err.contains("warning: cache registry"), "{a_err}");
    assert!(upstream.file_server().total_requests() > 0);
    assert!(upstream.registry().log().total() > 0);
    assert!(!blob_files(storage.path()).is_empty(), "runner A pushed");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &cache.url());
    let (b_sha, b_err) = build_process(&binary, &b, docker_config.path());
    assert_eq!(b_sha, a_sha, "runner B gives the same ISO");
    assert!(!b_err.contains("warning: cache registry"), "{b_err}");
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "runner B asked the upstream file server nothing: {:?}\n{b_err}",
        upstream.file_server().requested_paths()
    );
    assert_eq!(
        upstream.registry().log().total(),
        0,
        "runner B asked the upstream image registry nothing: {:?}",
        upstream.registry().log().snapshot()
    );
    drop(cache);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_blob_in_the_cache_registry_is_ignored_with_a_warning() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &cache.url());
    let cold = run_build(&a, Request::default()).await.expect("runner A");

    // Flip one byte in the middle of the largest blob (same size, wrong content).
    let (damaged, _) = blob_files(storage.path())
        .into_iter()
        .next()
        .expect("a blob");
    let mut bytes = std::fs::read(&damaged).expect("read the blob");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&damaged, bytes).expect("damage the blob");
    let digest = format!(
        "sha256:{}",
        damaged
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .expect("the blob folder is its digest")
    );

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &cache.url());
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256, "the damaged copy was not used");
    let warning = warm
        .warnings
        .iter()
        .find(|w| w.contains("damaged") && w.contains(&digest))
        .unwrap_or_else(|| panic!("a warning names {digest}: {:?}", warm.warnings));
    assert!(warning.contains("fetched from upstream"), "{warning}");
    let upstream_requests =
        upstream.file_server().total_requests() + upstream.registry().log().total();
    assert!(
        upstream_requests > 0,
        "the damaged entry came from upstream"
    );
    drop(cache);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cache_registry_stopped_mid_build_is_a_warning_and_the_build_succeeds() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let reference = {
        let out = tempfile::tempdir().expect("out");
        let mut inputs = demo_inputs(&upstream, out.path(), "x86_64");
        // As the runners build: without signature lines in versions.txt.
        inputs.signatures.mode = Some(cks_builder::signature::Mode::Off);
        run_build(&inputs, Request::default())
            .await
            .expect("a build without the cache")
            .sha256
    };
    let storage = tempfile::tempdir().expect("registry storage");
    let mut cache = CacheServer::start(storage.path(), false);
    let (out, dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let inputs = runner_inputs(&upstream, out.path(), dir.path(), &cache.url());
    let done = std::sync::atomic::AtomicBool::new(false);
    let build = async {
        let result = run_build(&inputs, Request::default()).await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        result
    };
    // Stop the registry as soon as the build has pushed its first blob.
    let stopper = async {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while blob_files(storage.path()).is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let finished = done.load(std::sync::atomic::Ordering::SeqCst);
        cache.process.stop();
        finished
    };
    let (result, finished_before_stop) = tokio::join!(build, stopper);
    assert!(
        !finished_before_stop,
        "the registry stopped while the build ran"
    );
    let summary = result.expect("the build succeeds");
    assert_eq!(summary.sha256, reference);
    assert!(
        summary
            .warnings
            .iter()
            .any(|w| w.contains("cache registry") && w.contains("unavailable")),
        "{:?}",
        summary.warnings
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_cache_registry_serves_and_refuses_pushes_with_a_warning() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");

    // An empty read-only registry: every look-up misses, the first push is refused.
    let read_only = CacheServer::start(storage.path(), true);
    let (out, dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let inputs = runner_inputs(&upstream, out.path(), dir.path(), &read_only.url());
    let refused = run_build(&inputs, Request::default())
        .await
        .expect("build on read-only");
    let warnings: Vec<&String> = refused
        .warnings
        .iter()
        .filter(|w| w.contains("cache registry"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning for the build: {warnings:?}");
    assert!(warnings[0].contains("refused a push"), "{}", warnings[0]);
    assert!(blob_files(storage.path()).is_empty(), "nothing was written");
    drop(read_only);

    // Filled by a writable run, then served read-only: a runner builds from it alone.
    let writable = CacheServer::start(storage.path(), false);
    let (a_out, a_dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_dir.path(), &writable.url());
    let cold = run_build(&a, Request::default()).await.expect("runner A");
    assert_eq!(cold.sha256, refused.sha256);
    drop(writable);
    let read_only = CacheServer::start(storage.path(), true);
    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_dir.path(), &read_only.url());
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256);
    assert!(
        warm.warnings.iter().all(|w| !w.contains("cache registry")),
        "{:?}",
        warm.warnings
    );
    assert_eq!(
        upstream.file_server().total_requests() + upstream.registry().log().total(),
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_auth_cache_registry_takes_pushes_with_docker_credentials() {
    use cks_fixtures::registry::{Auth, PASSWORD, Registry, USER};
    let upstream = start_upstream(DemoConfig::default()).await;
    let registry = Registry::start(Auth::Token).expect("a token-auth registry");
    let url = format!("http://{}/ci/cks-cache", registry.host());
    let docker_config = tempfile::tempdir().expect("docker config");
    let auth = {
        use std::io::Write;
        let mut encoded = Vec::new();
        let mut child = Command::new("base64")
            .arg("-w0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("base64 runs");
        if let Some(stdin) = child.stdin.as_mut() {
            stdin
                .write_all(format!("{USER}:{PASSWORD}").as_bytes())
                .expect("write to base64");
        }
        encoded.extend(child.wait_with_output().expect("base64").stdout);
        String::from_utf8(encoded).expect("base64 text")
    };
    std::fs::write(
        docker_config.path().join("config.json"),
        format!(
            r#"{{"auths": {{"{}": {{"auth": "{auth}"}}}}}}"#,
            registry.host()
        ),
    )
    .expect("write the docker config");
    let binary = cks_iso();

    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &url);
    let (a_sha, a_err) = build_process(&binary, &a, docker_config.path());
    assert!(!a_err.contains("warning: cache registry"), "{a_err}");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &url);
    let (b_sha, b_err) = build_process(&binary, &b, docker_config.path());
    assert_eq!(b_sha, a_sha);
    assert!(!b_err.contains("warning: cache registry"), "{b_err}");
    assert_eq!(
        upstream.file_server().total_requests() + upstream.registry().log().total(),
        0,
        "runner B built from the token-auth cache registry alone"
    );
}
