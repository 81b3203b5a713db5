//! `cks-upgrade-hook preload` against several real nodes: each a real sshd with its own real
//! containerd (own root, state and socket; the node's `ctr` is a wrapper pointing at it, and its
//! spool folder its own, both bind-mounted at the same path in the node's mount namespace), the
//! nodes found through the CloudStack fake, the images read from a valid CKS ISO (see
//! [`crate::preload_iso`]) with the builder's ISO reader.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::containerd::Containerd;
use cks_fixtures::sshd::{NodeOptions, Sshd};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::common::KEY_MARKER;
use crate::preload_iso::{ETCD, IsoImage, NewIso, Tree};

const API_KEY: &str = "preload-api-key";
const SECRET_KEY: &str = "preload-secret-SECRETMARK";

/// A node: its containerd, its sshd and its own folder, seen by its sessions at `shared`.
pub struct TestNode {
    containerd: Containerd,
    pub sshd: Sshd,
    pub own: TempDir,
}

impl TestNode {
    fn start(shared: &Path) -> TestNode {
        let containerd = Containerd::start().expect("containerd starts");
        let own = tempfile::tempdir().expect("node dir");
        fs::create_dir_all(own.path().join("bin")).expect("bin");
        let ctr = cks_fixtures::process::require_program("ctr", "containerd").expect("ctr");
        let wrapper = own.path().join("bin/ctr");
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec '{}' --address '{}' \"$@\"\n",
                ctr.display(),
                containerd.socket().display()
            ),
        )
        .expect("wrapper");
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod");
        let options = NodeOptions {
            bind_dirs: vec![(own.path().to_path_buf(), shared.to_path_buf())],
            ..NodeOptions::default()
        };
        let sshd = Sshd::start_with(&options).expect("sshd starts");
        TestNode {
            containerd,
            sshd,
            own,
        }
    }

    /// `(name, digest)` of every image the node's containerd lists.
    pub fn images(&self) -> Vec<(String, String)> {
        let mut images: Vec<_> = self
            .containerd
            .images()
            .expect("ctr images ls")
            .into_iter()
            .map(|i| (i.name, i.digest))
            .collect();
        images.sort();
        images
    }
}

pub struct Cluster {
    pub nodes: Vec<TestNode>,
    pub cloud: CloudWorld,
    pub api: CloudStackFake,
    pub id: String,
    pub iso: PathBuf,
    /// The ISO's sha256, hex.
    pub sha256: String,
    pub images: Vec<IsoImage>,
    pub known_hosts: PathBuf,
    key: PathBuf,
    pub shared: PathBuf,
    _work: TempDir,
    _key_dir: TempDir,
    /// The tree the ISO was packed from.
    pub tree: Tree,
}

impl Cluster {
    pub fn start(count: usize) -> Cluster {
        let work = tempfile::tempdir().expect("work");
        // The key sits at a path carrying the marker, which must never show in any output.
        let key_dir = tempfile::Builder::new()
            .prefix(KEY_MARKER)
            .tempdir()
            .expect("key dir");
        let shared = PathBuf::from(format!(
            "/run/cks-preload-test-{}-{:08x}",
            std::process::id(),
            rand_tag()
        ));
        let nodes: Vec<TestNode> = (0..count).map(|_| TestNode::start(&shared)).collect();
        let new_iso = NewIso::build();
        let cloud = CloudWorld::new(API_KEY, SECRET_KEY);
        let small = cloud.add_service_offering("small", 2, 4096);
        let disk = cloud.add_disk_offering("custom", 0);
        let names = ["k1-control-1", "k1-node-1", "k1-node-2", "k1-node-3"];
        let vms: Vec<String> = (0..count)
            .map(|i| cloud.add_vm(names[i], &small, 20, &disk, &[]))
            .collect();
        for (i, vm) in vms.iter().enumerate() {
            cloud.set_vm_address(vm, &format!("10.1.1.{}", 11 + i));
        }
        let id = cloud.add_cluster("k1", &vms);
        let ip = cloud
            .set_cluster_network(&id, "Isolated", Some("127.0.0.1"))
            .expect("public address");
        for (node, vm) in nodes.iter().zip(&vms) {
            cloud.add_port_forward(&ip, node.sshd.port(), vm, 22);
        }
        let api = CloudStackFake::start(cloud.clone()).expect("fake starts");

        let mut known = String::new();
        for node in &nodes {
            known.push_str(
                &fs::read_to_string(node.sshd.known_hosts().expect("known_hosts")).expect("read"),
            );
        }
        let known_hosts = work.path().join("known_hosts");
        fs::write(&known_hosts, known).expect("known_hosts");
        let key = key_dir.path().join(format!("id-{KEY_MARKER}"));
        fs::copy(nodes[0].sshd.client_key(), &key).expect("key");
        fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).expect("chmod");
        // Every sshd accepts its own client key only: authorise the one key on all nodes.
        let public =
            fs::read_to_string(nodes[0].sshd.client_key().with_extension("pub")).expect("pub");
        for node in &nodes[1..] {
            fs::write(node.sshd.dir().join("authorized_keys"), &public).expect("authorize");
        }
        Cluster {
            nodes,
            cloud,
            api,
            id,
            iso: new_iso.path,
            sha256: new_iso.sha256,
            images: new_iso.images,
            known_hosts,
            key,
            shared,
            _work: work,
            _key_dir: key_dir,
            tree: new_iso.tree,
        }
    }

    /// Runs `preload --json --sha256` of the ISO.
    pub fn preload(&self) -> (Output, Value) {
        let out = self.hook(&["preload", "--json", "--sha256", &self.sha256], None);
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("not JSON ({e}):\n{}", String::from_utf8_lossy(&out.stderr))
        });
        (out, json)
    }

    /// Runs `cks-upgrade-hook COMMAND --cluster-id ... --iso ...` with the nodes' ssh, ctr and
    /// spool settings; checks nothing secret is printed.
    pub fn hook(&self, command: &[&str], ctr: Option<&str>) -> Output {
        self.run_hook(command, &self.iso, ctr)
    }

    /// [`Cluster::hook`] with another `--iso`.
    pub fn hook_iso(&self, command: &[&str], iso: &Path) -> Output {
        self.run_hook(command, iso, None)
    }

    fn run_hook(&self, command: &[&str], iso: &Path, ctr: Option<&str>) -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
            .args(command)
            .args(["--cluster-id", &self.id, "--iso"])
            .arg(iso)
            .arg("--ssh-key")
            .arg(&self.key)
            .arg("--known-hosts")
            .arg(&self.known_hosts)
            .args([
                "--user",
                self.nodes[0].sshd.user(),
                "--no-sudo",
                "--parallel",
                "2",
            ])
            .arg("--ctr")
            .arg(ctr.map_or_else(|| self.shared.join("bin/ctr"), PathBuf::from))
            .arg("--spool-dir")
            .arg(self.shared.join("spool"))
            .env("CLOUDSTACK_ENDPOINT", self.api.endpoint())
            .env("CLOUDSTACK_KEY", API_KEY)
            .env("CLOUDSTACK_SECRET", SECRET_KEY)
            .env_remove("CLOUDSTACK_CONFIG")
            .output()
            .expect("cks-upgrade-hook runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for secret in [KEY_MARKER, SECRET_KEY] {
            assert!(!text.contains(secret), "leaks {secret}:\n{text}");
        }
        out
    }

    pub fn expected(&self) -> Vec<(String, String)> {
        let mut all: Vec<_> = self
            .images
            .iter()
            .map(|i| (i.name.clone(), i.digest.clone()))
            .collect();
        all.sort();
        all
    }
}

fn rand_tag() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    nanos ^ std::process::id()
}

#[test]
fn sends_each_node_only_the_bytes_it_lacks_and_finishes_a_copy_cut_off() {
    let cluster = Cluster::start(3);
    let by_name = |name: &str| {
        cluster
            .images
            .iter()
            .find(|i| i.name == name)
            .expect("the ISO holds it")
    };
    let (pause, etcd) = (by_name("registry.k8s.io/pause:3.10"), by_name(ETCD));
    // The control node already holds two of the images.
    let docker = tempfile::tempdir().expect("import dir");
    for image in [pause, etcd] {
        let tarball = docker.path().join("x.tar");
        let status = Command::new("xorriso")
            .args(["-osirrox", "on", "-indev"])
            .arg(&cluster.iso)
            .args(["-extract", &format!("/docker/{}", image.file)])
            .arg(&tarball)
            .output()
            .expect("xorriso extracts");
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        cluster.nodes[0]
            .containerd
            .import(&tarball, Some("linux/amd64"))
            .expect("imports");
        fs::remove_file(&tarball).expect("rm");
    }
    // The first worker was cut off mid-copy of the etcd tarball: its first 100000 bytes are there.
    let extracted = docker.path().join("etcd.tar");
    let out = Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(&cluster.iso)
        .args(["-extract", &format!("/docker/{}", etcd.file)])
        .arg(&extracted)
        .output()
        .expect("xorriso extracts");
    assert!(out.status.success());
    let bytes = fs::read(&extracted).expect("etcd tarball");
    let sha = hex::encode(Sha256::digest(&bytes));
    let cut = 100_000;
    let spool = cluster.nodes[1].own.path().join("spool");
    fs::create_dir(&spool).expect("spool");
    fs::set_permissions(&spool, fs::Permissions::from_mode(0o700)).expect("chmod");
    fs::write(spool.join(format!("{sha}.tar.partial")), &bytes[..cut]).expect("partial");

    let (out, reports) = cluster.preload();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{reports}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let total: u64 = cluster.images.iter().map(|i| i.size).sum();
    let by_node = |i: usize| &reports[i];
    assert_eq!(by_node(0)["node"], "k1-control-1");
    assert_eq!(by_node(0)["outcome"], "preloaded", "{reports}");
    assert_eq!(
        by_node(0)["bytes_sent"],
        total - pause.size - etcd.size,
        "{reports}"
    );
    assert_eq!(by_node(0)["tarballs"], cluster.images.len() - 2);
    assert_eq!(by_node(1)["bytes_sent"], total - cut as u64, "{reports}");
    assert_eq!(by_node(2)["bytes_sent"], total, "{reports}");
    for node in &cluster.nodes {
        assert_eq!(
            node.images(),
            cluster.expected(),
            "{}",
            node.containerd.log()
        );
        let left: Vec<_> = fs::read_dir(node.own.path().join("spool"))
            .expect("spool")
            .collect();
        assert!(left.is_empty(), "the spool is emptied: {left:?}");
    }

    // Run again: every node already holds every image; nothing is sent.
    let (out, again) = cluster.preload();
    assert_eq!(out.status.code(), Some(0));
    for report in again.as_array().expect("reports") {
        assert_eq!(report["outcome"], "complete", "{again}");
        assert_eq!(report["bytes_sent"], 0);
    }
}

#[test]
fn without_trusted_host_keys_preload_is_one_line_naming_the_flag() {
    let cluster = Cluster::start(1);
    let out = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(["preload", "--cluster-id", &cluster.id, "--iso"])
        .arg(&cluster.iso)
        .args(["--sha256", &cluster.sha256])
        .arg("--ssh-key")
        .arg(&cluster.key)
        .env("CLOUDSTACK_ENDPOINT", cluster.api.endpoint())
        .env("CLOUDSTACK_KEY", API_KEY)
        .env("CLOUDSTACK_SECRET", SECRET_KEY)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--known-hosts FILE"), "{stderr}");
    assert!(!stderr.contains(KEY_MARKER) && !stderr.contains(SECRET_KEY));
}
