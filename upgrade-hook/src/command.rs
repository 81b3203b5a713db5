//! The one command builder for both callers of `autoscale-kube-cluster`: enabling autoscaling
//! and redeploying it after an upgrade, plus the `kubectl` checks that follow a redeploy.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

pub use cks_ssh::RemoteCommand;

/// Where the node keeps the CKS scripts, as CKS lays it out.
pub const DEFAULT_SCRIPT_DIR: &str = "/opt/bin";

/// Why a command could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum CommandError {
    /// The cluster id is not a UUID.
    #[error(
        "cluster id {id:?} is not a UUID; expected 8-4-4-4-12 hexadecimal digits such as \
         2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b (the cluster's `id` in CloudStack)"
    )]
    InvalidClusterId {
        /// The id given.
        id: String,
    },
    /// The minimum size is zero.
    #[error("autoscaling minimum size is {min}; it must be at least 1")]
    MinTooSmall {
        /// The minimum given.
        min: u32,
    },
    /// The minimum is above the maximum.
    #[error("autoscaling minimum size {min} is above the maximum {max}; expected 1 <= min <= max")]
    MinAboveMax {
        /// The minimum given.
        min: u32,
        /// The maximum given.
        max: u32,
    },
    /// The script directory is empty or holds a NUL byte.
    #[error("script directory {dir:?} is not usable; give a directory path such as /opt/bin")]
    InvalidScriptDir {
        /// The directory given.
        dir: String,
    },
}

/// How the node runs the CKS scripts: the directory holding `autoscale-kube-cluster` and
/// `kubectl`, and whether to run them through `sudo` (CKS logs in as an unprivileged user).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeLayout {
    script_dir: String,
    sudo: bool,
}

impl Default for NodeLayout {
    fn default() -> Self {
        NodeLayout {
            script_dir: DEFAULT_SCRIPT_DIR.to_string(),
            sudo: true,
        }
    }
}

impl NodeLayout {
    /// A layout with scripts in `script_dir`, run through `sudo` when `sudo` is true.
    pub fn new(script_dir: &str, sudo: bool) -> Result<Self, CommandError> {
        let trimmed = script_dir.trim_end_matches('/');
        let trimmed = if trimmed.is_empty() && script_dir.starts_with('/') {
            "/"
        } else {
            trimmed
        };
        if trimmed.is_empty() || trimmed.contains('\0') {
            return Err(CommandError::InvalidScriptDir {
                dir: script_dir.to_string(),
            });
        }
        Ok(NodeLayout {
            script_dir: trimmed.to_string(),
            sudo,
        })
    }

    /// The script directory, without a trailing slash.
    pub fn script_dir(&self) -> &str {
        &self.script_dir
    }

    /// Whether commands run through `sudo`.
    pub fn sudo(&self) -> bool {
        self.sudo
    }

    fn program(&self, name: &str) -> Vec<String> {
        let path = if self.script_dir == "/" {
            format!("/{name}")
        } else {
            format!("{}/{name}", self.script_dir)
        };
        let mut words = Vec::new();
        if self.sudo {
            words.push("sudo".to_string());
        }
        words.push(path);
        words
    }
}

/// A CloudStack cluster id, checked to be a UUID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ClusterId(String);

impl ClusterId {
    /// Checks `id` is a UUID (8-4-4-4-12 hexadecimal digits, either case).
    pub fn parse(id: &str) -> Result<Self, CommandError> {
        let groups: Vec<&str> = id.split('-').collect();
        let lengths = [8, 4, 4, 4, 12];
        let ok = groups.len() == lengths.len()
            && groups.iter().zip(lengths).all(|(group, len)| {
                group.len() == len && group.chars().all(|c| c.is_ascii_hexdigit())
            });
        if ok {
            Ok(ClusterId(id.to_string()))
        } else {
            Err(CommandError::InvalidClusterId { id: id.to_string() })
        }
    }

    /// The id as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClusterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Autoscaling bounds, checked to satisfy 1 <= min <= max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AutoscaleBounds {
    min: u32,
    max: u32,
}

impl AutoscaleBounds {
    /// Checks 1 <= `min` <= `max`.
    pub fn new(min: u32, max: u32) -> Result<Self, CommandError> {
        if min < 1 {
            return Err(CommandError::MinTooSmall { min });
        }
        if min > max {
            return Err(CommandError::MinAboveMax { min, max });
        }
        Ok(AutoscaleBounds { min, max })
    }

    /// The minimum number of worker nodes.
    pub fn min(&self) -> u32 {
        self.min
    }

    /// The maximum number of worker nodes.
    pub fn max(&self) -> u32 {
        self.max
    }
}

/// `[sudo] <dir>/autoscale-kube-cluster -i <uuid> -e -M <max> -m <min>`, as CKS runs it when a
/// user enables autoscaling (and the upgrade hook runs it to redeploy from the new ISO).
pub fn enable(layout: &NodeLayout, cluster: &ClusterId, bounds: AutoscaleBounds) -> RemoteCommand {
    let mut words = layout.program("autoscale-kube-cluster");
    words.extend([
        "-i".to_string(),
        cluster.as_str().to_string(),
        "-e".to_string(),
        "-M".to_string(),
        bounds.max.to_string(),
        "-m".to_string(),
        bounds.min.to_string(),
    ]);
    RemoteCommand::new(words)
}

/// `[sudo] <dir>/autoscale-kube-cluster -d`, as CKS runs it when a user disables autoscaling.
pub fn disable(layout: &NodeLayout) -> RemoteCommand {
    let mut words = layout.program("autoscale-kube-cluster");
    words.push("-d".to_string());
    RemoteCommand::new(words)
}

/// `[sudo] <dir>/kubectl -n kube-system rollout status deployment/cluster-autoscaler
/// --timeout=<t>s`: waits until the new autoscaler pod is ready.
pub fn rollout_status(layout: &NodeLayout, timeout: Duration) -> RemoteCommand {
    let mut words = layout.program("kubectl");
    words.extend([
        "-n".to_string(),
        "kube-system".to_string(),
        "rollout".to_string(),
        "status".to_string(),
        "deployment/cluster-autoscaler".to_string(),
        format!("--timeout={}s", timeout.as_secs().max(1)),
    ]);
    RemoteCommand::new(words)
}

/// `[sudo] <dir>/kubectl ARGS`.
pub fn kubectl(layout: &NodeLayout, args: &[&str]) -> RemoteCommand {
    let mut words = layout.program("kubectl");
    words.extend(args.iter().map(|a| a.to_string()));
    RemoteCommand::new(words)
}

/// `[sudo] test -f PATH`: exits 0 when the file is there, 1 when it is not.
pub fn file_exists(layout: &NodeLayout, path: &str) -> RemoteCommand {
    let mut words = Vec::new();
    if layout.sudo {
        words.push("sudo".to_string());
    }
    words.extend(["test".to_string(), "-f".to_string(), path.to_string()]);
    RemoteCommand::new(words)
}

/// The jsonpath that prints the images of the autoscaler Deployment's containers.
pub const IMAGE_JSONPATH: &str = "jsonpath={.spec.template.spec.containers[*].image}";

/// `[sudo] <dir>/kubectl -n kube-system get deployment cluster-autoscaler -o
/// 'jsonpath={.spec.template.spec.containers[*].image}'`: the images the autoscaler now runs.
pub fn autoscaler_images(layout: &NodeLayout) -> RemoteCommand {
    let mut words = layout.program("kubectl");
    words.extend([
        "-n".to_string(),
        "kube-system".to_string(),
        "get".to_string(),
        "deployment".to_string(),
        "cluster-autoscaler".to_string(),
        "-o".to_string(),
        IMAGE_JSONPATH.to_string(),
    ]);
    RemoteCommand::new(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b";

    #[test]
    fn enable_is_the_command_cks_runs() {
        let cmd = enable(
            &NodeLayout::default(),
            &ClusterId::parse(ID).expect("uuid"),
            AutoscaleBounds::new(1, 5).expect("bounds"),
        );
        assert_eq!(
            cmd.to_shell(),
            format!("sudo /opt/bin/autoscale-kube-cluster -i {ID} -e -M 5 -m 1")
        );
    }

    #[test]
    fn disable_is_the_command_cks_runs() {
        assert_eq!(
            disable(&NodeLayout::default()).to_shell(),
            "sudo /opt/bin/autoscale-kube-cluster -d"
        );
    }

    #[test]
    fn script_dir_and_sudo_are_options() {
        let layout = NodeLayout::new("/tmp/my scripts/", false).expect("layout");
        let cmd = disable(&layout);
        assert_eq!(
            cmd.words(),
            ["/tmp/my scripts/autoscale-kube-cluster", "-d"]
        );
        assert_eq!(
            cmd.to_shell(),
            "'/tmp/my scripts/autoscale-kube-cluster' -d"
        );
        assert_eq!(NodeLayout::new("/", true).expect("root").script_dir(), "/");
        assert_eq!(
            disable(&NodeLayout::new("/", false).expect("root")).words()[0],
            "/autoscale-kube-cluster"
        );
    }

    #[test]
    fn rejects_bad_script_dirs() {
        assert!(matches!(
            NodeLayout::new("", true),
            Err(CommandError::InvalidScriptDir { .. })
        ));
        assert!(matches!(
            NodeLayout::new("a\0b", true),
            Err(CommandError::InvalidScriptDir { .. })
        ));
    }

    #[test]
    fn kubectl_checks_follow_the_layout() {
        let layout = NodeLayout::default();
        assert_eq!(
            rollout_status(&layout, Duration::from_secs(120)).to_shell(),
            "sudo /opt/bin/kubectl -n kube-system rollout status deployment/cluster-autoscaler --timeout=120s"
        );
        assert_eq!(
            autoscaler_images(&layout).to_shell(),
            "sudo /opt/bin/kubectl -n kube-system get deployment cluster-autoscaler -o \
             'jsonpath={.spec.template.spec.containers[*].image}'"
        );
    }

    #[test]
    fn accepts_uuids_in_either_case() {
        assert!(ClusterId::parse(ID).is_ok());
        assert!(ClusterId::parse(&ID.to_uppercase()).is_ok());
    }

    #[test]
    fn rejects_what_is_not_a_uuid() {
        for bad in [
            "",
            "abc",
            "2f9c1e3a5b7d4c1e9a0b1c2d3e4f5a6b",
            "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6",
            "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6g",
            "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b; reboot",
            "$(id)",
        ] {
            let error = ClusterId::parse(bad).expect_err(bad);
            assert_eq!(
                error,
                CommandError::InvalidClusterId {
                    id: bad.to_string()
                }
            );
            assert!(error.to_string().contains("not a UUID"));
        }
    }

    #[test]
    fn bounds_need_one_at_least_and_min_at_most_max() {
        assert!(AutoscaleBounds::new(1, 1).is_ok());
        assert!(AutoscaleBounds::new(2, 10).is_ok());
        assert_eq!(
            AutoscaleBounds::new(0, 3),
            Err(CommandError::MinTooSmall { min: 0 })
        );
        assert_eq!(
            AutoscaleBounds::new(4, 3),
            Err(CommandError::MinAboveMax { min: 4, max: 3 })
        );
    }
}
