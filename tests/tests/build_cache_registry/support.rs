//! What the cache registry tests share: a `docker-registry` over a storage folder that outlives
//! it, a runner's inputs, and `cks-iso build` run as a CI runner runs it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use cks_builder::pipeline::{Inputs, Summary};
use cks_e2e::demo_inputs;
use cks_fixtures::demo::DemoUpstream;
use cks_fixtures::process::{Spawned, free_port, require_program, wait_for_port};

/// A `docker-registry` over a storage folder that outlives it (so one store can be served
/// writable, then read-only), stopped on drop.
pub(crate) struct CacheServer {
    pub(crate) addr: SocketAddr,
    pub(crate) process: Spawned,
}

impl CacheServer {
    pub(crate) fn start(storage: &Path, read_only: bool) -> CacheServer {
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

    pub(crate) fn host(&self) -> String {
        self.addr.to_string()
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}/ci/cks-cache", self.host())
    }
}

/// The registry's blob data files under `storage`, largest first.
pub(crate) fn blob_files(storage: &Path) -> Vec<(PathBuf, u64)> {
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

/// The summary's warnings about the cache registry.
pub(crate) fn cache_warnings(summary: &Summary) -> Vec<&String> {
    summary
        .warnings
        .iter()
        .filter(|w| w.contains("cache registry"))
        .collect()
}

/// The demo inputs with `--signatures off`: signature material is asked of upstream by every
/// build that checks it (image signature manifests are not in the cache registry), and these
/// builds are about the caches alone.
pub(crate) fn without_signatures(upstream: &DemoUpstream, out: &Path) -> Inputs {
    let mut inputs = demo_inputs(upstream, out, "x86_64");
    inputs.signatures.mode = Some(cks_builder::upstream_signatures::Mode::Off);
    inputs
}

/// The demo inputs of one runner: its own empty cache folder, the shared cache registry.
pub(crate) fn runner_inputs(
    upstream: &DemoUpstream,
    out: &Path,
    cache_dir: &Path,
    cache: &str,
) -> Inputs {
    let mut inputs = without_signatures(upstream, out);
    inputs.cache_dir = Some(cache_dir.to_path_buf());
    inputs.cache_registry = Some(cache.to_string());
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
pub(crate) fn cks_iso() -> PathBuf {
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
pub(crate) fn build_process(
    binary: &Path,
    inputs: &Inputs,
    docker_config: &Path,
) -> (String, String) {
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
    if inputs.signatures.mode == Some(cks_builder::upstream_signatures::Mode::Off) {
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

/// What a runner took from upstream that the cache registry should have served: every file
/// server request for a release binary or archive (the checksum files, and the manifests and
/// units no checksum is published for, come from upstream: a cache is never their source of
/// truth) and every image registry request for a blob.
pub(crate) fn upstream_bytes(upstream: &DemoUpstream) -> Vec<String> {
    let large = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        ["kubeadm", "kubelet", "kubectl"].contains(&name)
            || name.ends_with(".tgz")
            || name.ends_with(".tar.gz")
    };
    let files = upstream
        .file_server()
        .requested_paths()
        .into_iter()
        .filter(|(path, _)| large(path))
        .map(|(path, _)| path);
    let blobs = upstream
        .registry()
        .log()
        .snapshot()
        .into_keys()
        .filter(|(path, _)| path.contains("/blobs/"))
        .map(|(path, method)| format!("{method} {path}"));
    files.chain(blobs).collect()
}

/// The cache repository's folder of tags under `storage`.
pub(crate) fn tags_dir(storage: &Path) -> PathBuf {
    storage.join("data/docker/registry/v2/repositories/ci/cks-cache/_manifests/tags")
}

/// The data file of blob `digest` under `storage`.
pub(crate) fn blob_path(storage: &Path, digest: &str) -> PathBuf {
    let hex = digest.trim_start_matches("sha256:");
    storage
        .join("data/docker/registry/v2/blobs/sha256")
        .join(&hex[..2])
        .join(hex)
        .join("data")
}

/// Every artifact whose tag starts with `prefix`: its manifest's digest and the manifest.
pub(crate) fn artifacts(storage: &Path, prefix: &str) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for tag in std::fs::read_dir(tags_dir(storage))
        .into_iter()
        .flatten()
        .flatten()
    {
        if !tag.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let link = std::fs::read_to_string(tag.path().join("current/link")).expect("a tag link");
        let manifest = std::fs::read(blob_path(storage, link.trim())).expect("the manifest blob");
        let manifest: serde_json::Value = serde_json::from_slice(&manifest).expect("JSON");
        out.push((link.trim().to_string(), manifest));
    }
    out
}

/// The digest of the content (the one layer) of every artifact whose tag starts with `prefix`.
pub(crate) fn artifact_contents(storage: &Path, prefix: &str) -> Vec<String> {
    artifacts(storage, prefix)
        .into_iter()
        .map(|(_, manifest)| {
            manifest["layers"][0]["digest"]
                .as_str()
                .expect("a layer digest")
                .to_string()
        })
        .collect()
}

/// Every blob (the manifest, with the record in its annotations, its config and its layers) of
/// every artifact whose tag starts with `prefix`.
pub(crate) fn artifact_blobs(storage: &Path, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (digest, manifest) in artifacts(storage, prefix) {
        out.push(digest);
        out.extend(manifest["config"]["digest"].as_str().map(str::to_string));
        let layers = manifest["layers"].as_array().cloned().unwrap_or_default();
        out.extend(
            layers
                .iter()
                .filter_map(|l| l["digest"].as_str().map(str::to_string)),
        );
    }
    out
}

/// Removes every tag that starts with `prefix` from the cache repository (the blobs stay).
pub(crate) fn remove_tags(storage: &Path, prefix: &str) {
    for tag in std::fs::read_dir(tags_dir(storage))
        .into_iter()
        .flatten()
        .flatten()
    {
        if tag.file_name().to_string_lossy().starts_with(prefix) {
            std::fs::remove_dir_all(tag.path()).expect("remove a tag");
        }
    }
}

/// Flips one byte in the middle of the file at `path` (same size, wrong content).
pub(crate) fn damage(path: &Path) {
    let mut bytes = std::fs::read(path).expect("read the blob");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(path, bytes).expect("damage the blob");
}
