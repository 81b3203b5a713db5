//! The kubelet units (`kubelet.service`, `10-kubeadm.conf`): every `/opt/bin/...` command their
//! `Exec*=` lines name must be there on a node, either shipped by the ISO or installed by
//! CloudStack. (A build rewrites `/usr/bin` to `/opt/bin` in both, as the node setup expects, so
//! a unit that runs a system tool from `/usr/bin` ends up naming a command no node has.)

use super::contract::rel;
use super::finding::{Finding, Problem};
use crate::iso::IsoEntry;

/// The unit files nodes install from the ISO root.
pub const UNIT_FILES: [&str; 2] = ["kubelet.service", "10-kubeadm.conf"];

/// What CloudStack itself copies to a node's `/opt/bin` (the CKS scripts), whatever the ISO.
pub const NODE_OPT_BIN: [&str; 8] = [
    "setup-kube-system",
    "deploy-kube-system",
    "autoscale-kube-cluster",
    "deploy-cloudstack-secret",
    "deploy-provider",
    "deploy-csi-driver",
    "mount-cks-iso",
    "upgrade-kubernetes",
];

/// The commands the ISO puts in `/opt/bin`: the Kubernetes binaries of `k8s/`, crictl from the
/// cri-tools tarball and, when bundled, etcd's.
pub fn shipped(entries: &[IsoEntry]) -> Vec<&'static str> {
    let has = |test: &dyn Fn(&str) -> bool| entries.iter().any(|e| test(rel(&e.path)));
    let mut out = Vec::new();
    for bin in ["kubeadm", "kubelet", "kubectl"] {
        let path = format!("k8s/{bin}");
        if has(&|p| p == path) {
            out.push(bin);
        }
    }
    if has(&|p| p.starts_with("cri-tools/crictl-linux-") && p.ends_with(".tar.gz")) {
        out.push("crictl");
    }
    if has(&|p| p == super::contract::ETCD_TARBALL) {
        out.extend(["etcd", "etcdctl", "etcdutl"]);
    }
    out
}

/// Every `/opt/bin/<name>` an `Exec*=` line of `text` names, with its 1-based line number.
pub fn opt_bin_commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some((key, value)) = line.trim_start().split_once('=') else {
            continue;
        };
        if !key.trim_end().starts_with("Exec") {
            continue;
        }
        let mut rest = value;
        while let Some(at) = rest.find("/opt/bin/") {
            let after = &rest[at + "/opt/bin/".len()..];
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || "._-+".contains(c)))
                .unwrap_or(after.len());
            if end > 0 {
                out.push((index + 1, after[..end].to_string()));
            }
            rest = &after[end..];
        }
    }
    out
}

/// Findings for the unit file `name` (one of [`UNIT_FILES`]) with contents `text`.
pub fn check(name: &str, text: &str, entries: &[IsoEntry]) -> Vec<Finding> {
    let shipped = shipped(entries);
    opt_bin_commands(text)
        .into_iter()
        .filter(|(_, command)| {
            !shipped.contains(&command.as_str()) && !NODE_OPT_BIN.contains(&command.as_str())
        })
        .map(|(line, command)| {
            Finding::new(
                name,
                Problem::UnitCommand,
                format!(
                    "line {line} runs /opt/bin/{command}, which the ISO does not ship and a node does not have; \
                     systemd fails the kubelet unit (a /usr/bin command is rewritten to /opt/bin by the build: \
                     name it by another path, such as /bin/{command})"
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_opt_bin_command_of_the_exec_lines() {
        let text = "[Service]\nEnvironment=\"X=/opt/bin/not-a-command\"\n\
                    ExecStartPre=-/opt/bin/test -d /var/lib/kubelet\nExecStart=\n\
                    ExecStart=/opt/bin/kubelet $ARGS\n\
                    ExecStartPost=/bin/sh -c '/opt/bin/kubectl version; /opt/bin/crictl info'\n";
        assert_eq!(
            opt_bin_commands(text),
            [
                (3, "test".to_string()),
                (5, "kubelet".to_string()),
                (6, "kubectl".to_string()),
                (6, "crictl".to_string()),
            ]
        );
    }
}
