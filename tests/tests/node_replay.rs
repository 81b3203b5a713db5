//! The node side replayed against an `any` ISO (both dashboards): the 4.22 scripts in
//! `../shared/upstream/cloudstack/` (setup-kube-system's offline install, deploy-kube-system's
//! offline branch, and upgrade-kubernetes.sh's main-control-node applies), cut from the real
//! files and run by bash under `-e` against the extracted ISO, with `/opt` and `/etc` moved into
//! a scratch root and `ctr`, `systemctl` and `kubectl` stubbed to record what they are asked; and
//! the 4.23 dashboard branch quoted in `../shared/upstream/cloudstack-4.23/README.md`, run the
//! same way: it must pick `headlamp.yaml`, whose image the setup imported and whose Deployment
//! gives the pod name the readiness check looks for. The core case (no `../shared`) checks the
//! same ISO against the node contracts in `cks_pinning::node_contract`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_pinning::node_contract::{Line, Need, fit};

use crate::build_dashboards::{Dashboards, HEADLAMP_IMAGE, build, cloudstack_file, extract};

/// The lines of `text` from the first containing `start` to the first after it containing
/// `end`, both included, dedented by the first line's indentation.
fn cut(text: &str, start: &str, end: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines
        .iter()
        .position(|l| l.contains(start))
        .unwrap_or_else(|| panic!("no line with {start:?}"));
    let to = from
        + lines[from..]
            .iter()
            .position(|l| l.contains(end))
            .unwrap_or_else(|| panic!("no line with {end:?} after {start:?}"));
    let indent = lines[from].len() - lines[from].trim_start().len();
    lines[from..=to]
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A scratch node: a root for `/opt` and `/etc`, the stubs, and their logs.
struct Node {
    dir: tempfile::TempDir,
    iso: PathBuf,
}

const CTR: &str = r#"#!/bin/bash
# ctr -n k8s.io image import FILE | ctr -n k8s.io images ls -q
if [ "$3" = image ] && [ "$4" = import ]; then
  test -r "$5" || exit 1
  tar -xOf "$5" index.json | python3 -c 'import json,sys
for m in json.load(sys.stdin)["manifests"]:
    print(m.get("annotations", {}).get("io.containerd.image.name", ""))' >> "$NODE_LOG_DIR/imported"
  exit ${PIPESTATUS[0]}
fi
if [ "$3" = images ] && [ "$4" = ls ]; then cat "$NODE_LOG_DIR/imported"; exit 0; fi
exit 1
"#;

const KUBECTL: &str = r#"#!/bin/bash
# kubectl apply -f FILE fails on a missing file, as the real one does; the rest is recorded.
if [ "$1" = apply ] && [ "$2" = -f ]; then
  test -f "$3" || { echo "error: the path \"$3\" does not exist" >&2; exit 1; }
  echo "apply $(basename "$3")" >> "$NODE_LOG_DIR/kubectl"
  exit 0
fi
echo "$*" >> "$NODE_LOG_DIR/kubectl"
"#;

impl Node {
    fn new(iso_tree: &Path) -> Node {
        let dir = tempfile::tempdir().expect("node dir");
        // What a node image already has.
        for sub in [
            "root/etc/containerd",
            "root/etc/systemd/system",
            "root/etc/default",
            "stubs",
            "logs",
        ] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        std::fs::write(
            dir.path().join("root/etc/containerd/config.toml"),
            "sandbox_image = \"registry.k8s.io/pause:3.6\"\n",
        )
        .expect("containerd config");
        std::fs::write(dir.path().join("logs/imported"), "").expect("log");
        for (name, text) in [
            ("ctr", CTR),
            ("systemctl", "#!/bin/bash\n"),
            ("kubectl", KUBECTL),
        ] {
            let path = dir.path().join("stubs").join(name);
            std::fs::write(&path, text).expect("stub");
            chmod_x(&path);
        }
        Node {
            dir,
            iso: iso_tree.to_path_buf(),
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join("logs").join(name)).unwrap_or_default()
    }

    /// Runs `block` under `bash -e` as the node would, with `/opt/` and `/etc/` moved into the
    /// scratch root; `/opt/bin/kubectl` is the stub.
    fn run(&self, block: &str) -> Output {
        let root = self.root();
        let body = block
            .replace("/opt/", &format!("{}/opt/", root.display()))
            .replace("/etc/", &format!("{}/etc/", root.display()));
        let script = format!(
            "set -e\nBINARIES_DIR={iso}/\nISO_MOUNT_DIR={iso}\nK8S_CONFIG_SCRIPTS_COPY_DIR={root}/tmp/k8sconfigscripts/\n\
             MAX_SETUP_CRUCIAL_CMD_ATTEMPTS=3\nEXTERNAL_CNI_PLUGIN=false\nEXTERNAL_CNI=false\nIS_MAIN_CONTROL=true\n\
             export PATH={stubs}:$PATH\n{body}\n",
            iso = self.iso.display(),
            root = root.display(),
            stubs = self.dir.path().join("stubs").display(),
        );
        let output = Command::new("bash")
            .arg("-c")
            .arg(script)
            .env("NODE_LOG_DIR", self.dir.path().join("logs"))
            .output()
            .expect("bash runs");
        // The setup copies the ISO's kubectl over the stub's place: put the stub back.
        let kubectl = root.join("opt/bin/kubectl");
        if kubectl.exists() {
            std::fs::write(&kubectl, KUBECTL).expect("kubectl stub");
            chmod_x(&kubectl);
        }
        output
    }
}

fn chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The ISO's files, as paths without a leading `/`.
fn listing(tree: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("list").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(tree) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn the_4_22_scripts_and_the_4_23_dashboard_branch_run_against_an_any_iso() {
    let upstream = cks_e2e::start_upstream(cks_fixtures::demo::DemoConfig::default()).await;
    let out = tempfile::tempdir().expect("out dir");
    let summary = build(&upstream, out.path(), Dashboards::Both).await;
    let tree = tempfile::tempdir().expect("extract dir");
    extract(&summary.iso, tree.path());

    // Core case: the ISO fits every line's contract, and 4.23's dashboard read takes headlamp.yaml.
    let files = listing(tree.path());
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    assert_eq!(fit(&files).fitting(), Line::ALL);
    let dashboard = Line::V4_23
        .contract()
        .reads
        .iter()
        .find(|r| matches!(r.need, Need::FirstOf(_)))
        .expect("4.23's dashboard read");
    assert_eq!(dashboard.need.chosen(&files), Some("headlamp.yaml"));
    let manifest =
        std::fs::read_to_string(tree.path().join("headlamp.yaml")).expect("headlamp.yaml");
    let objects = cks_pinning::manifest::objects(&manifest).expect("objects");
    // KubernetesClusterUtil's readiness check: a kube-system pod line containing `headlamp`.
    assert!(
        objects.iter().any(|o| o.kind == "Deployment"
            && o.name.contains("headlamp")
            && o.namespace.as_deref() == Some("kube-system")),
        "{objects:?}"
    );

    // Real-data case: the scripts themselves.
    let (Some(control), Some(upgrade), Some(readme)) = (
        cloudstack_file("conf/k8s-control-node.yml"),
        cloudstack_file("script/upgrade-kubernetes.sh"),
        cks_fixtures::shared::upstream("cloudstack-4.23/README.md"),
    ) else {
        return;
    };
    let control = std::fs::read_to_string(control).expect("k8s-control-node.yml");
    let upgrade = std::fs::read_to_string(upgrade).expect("upgrade-kubernetes.sh");
    let readme = std::fs::read_to_string(readme).expect("the 4.23 README");
    let setup = format!(
        "{}\n",
        cut(
            &control,
            "echo \"Installing binaries from ${BINARIES_DIR}\"",
            "sed -i \"s|sandbox_image"
        )
    ) + "fi";
    let deploy = cut(
        &control,
        "if [ -d \"$K8S_CONFIG_SCRIPTS_COPY_DIR\" ]; then",
        "rm -rf \"${K8S_CONFIG_SCRIPTS_COPY_DIR}\"",
    ) + "\nfi";
    let upgrade_applies = cut(
        &upgrade,
        "cp -a ${BINARIES_DIR}/k8s/{kubelet,kubectl} /opt/bin",
        "kubectl apply -f ${BINARIES_DIR}/dashboard.yaml",
    ) + "\nfi";
    let branch_4_23 = cut(
        &readme,
        "if [ -f \"${K8S_CONFIG_SCRIPTS_COPY_DIR}/headlamp.yaml\" ]; then",
        "Warning: No dashboard YAML found in ISO",
    ) + "\nfi";

    // 4.22: setup-kube-system, then deploy-kube-system, then an upgrade, on one node.
    let node = Node::new(tree.path());
    ok("4.22 setup-kube-system", &node.run(&setup));
    let root = node.root();
    for bin in ["kubeadm", "kubelet", "kubectl"] {
        assert!(root.join("opt/bin").join(bin).is_file(), "{bin} copied");
    }
    assert!(root.join("opt/autoscaler/autoscaler_tmpl.yaml").is_file());
    assert!(root.join("opt/provider/provider.yaml").is_file());
    assert!(root.join("opt/csi/manifest.yaml").is_file());
    let imported = node.log("imported");
    assert!(imported.lines().any(|l| l == HEADLAMP_IMAGE), "{imported}");
    let config = std::fs::read_to_string(root.join("etc/containerd/config.toml")).expect("config");
    assert_eq!(config, "sandbox_image = \"registry.k8s.io/pause:3.10\"\n");
    for copied in ["dashboard.yaml", "headlamp.yaml", "network.yaml"] {
        assert!(
            root.join("tmp/k8sconfigscripts").join(copied).is_file(),
            "{copied}"
        );
    }
    ok("4.22 deploy-kube-system", &node.run(&deploy));
    assert_eq!(
        node.log("kubectl"),
        "apply network.yaml\napply dashboard.yaml\n",
        "4.22 applies the legacy dashboard"
    );
    ok("4.22 upgrade-kubernetes.sh", &node.run(&upgrade_applies));
    assert!(node.log("kubectl").ends_with("apply dashboard.yaml\n"));

    // 4.23: the same setup, then the quoted dashboard branch.
    let node = Node::new(tree.path());
    ok("setup-kube-system", &node.run(&setup));
    ok("4.23 dashboard branch", &node.run(&branch_4_23));
    let applied = node.log("kubectl");
    assert_eq!(
        applied, "apply headlamp.yaml\n",
        "4.23 takes Headlamp first"
    );
    assert_eq!(
        cks_pinning::manifest::images(&manifest).expect("valid"),
        [HEADLAMP_IMAGE],
        "the image the manifest runs is the one imported"
    );

    // And the reason the build refuses Headlamp alone for 4.22: its deploy stops.
    std::fs::remove_file(tree.path().join("dashboard.yaml")).expect("drop dashboard.yaml");
    let node = Node::new(tree.path());
    ok("setup-kube-system", &node.run(&setup));
    let failed = node.run(&deploy);
    assert!(
        !failed.status.success(),
        "4.22 deploy-kube-system stops without dashboard.yaml"
    );
    assert!(
        String::from_utf8_lossy(&failed.stderr).contains("dashboard.yaml"),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
}
