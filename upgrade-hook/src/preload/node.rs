//! Preloading one node: list its images, send the tarballs it lacks (appending to a partial
//! file named after the tarball's sha256, so a run cut off mid-copy is finished by the next
//! one, sending only the missing bytes), check the sha256 on the node, rename, import with
//! `ctr -n k8s.io images import --platform` once its sha256 is checked again right before, and
//! check the digests it now lists. The spool folder is the commands' user's own (mode 0700).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cks_ssh::RemoteCommand;
use cks_ssh::openssh::SshRunner;
use cks_ssh::openssh::exec::Input;
use serde::Serialize;

use super::Settings;
use super::archive::Tarball;
use super::plan::{self, NodeImage};
use super::source::IsoSource;
use crate::runner::{RemoteOutput, RemoteRunner};

/// What preloading did on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum NodeOutcome {
    /// The node already held every image: nothing sent.
    Complete {
        /// How many images the ISO carries.
        images: usize,
    },
    /// The missing tarballs were sent, imported and their digests checked.
    Preloaded {
        /// The tarballs sent and imported.
        tarballs: usize,
        /// The images they hold.
        images: usize,
    },
    /// A step failed.
    Failed {
        /// What was being done.
        step: String,
        /// Why.
        detail: String,
    },
}

/// One node's line of the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeReport {
    /// The node.
    pub node: String,
    /// What happened.
    #[serde(flatten)]
    pub outcome: NodeOutcome,
    /// Bytes sent to it.
    pub bytes_sent: u64,
}

/// A node to preload: its name and its SSH runner.
pub struct Node {
    /// Its name.
    pub name: String,
    /// How to run commands on it.
    pub runner: SshRunner,
    /// Bytes sent so far (for progress).
    pub sent: Arc<AtomicU64>,
    /// Bytes it needs in all, once known (for progress).
    pub needed: Arc<AtomicU64>,
}

struct Failure(String, String);

/// Creates the spool folder `$0` as the user the commands run as (root through sudo), mode
/// 0700, and refuses one that is anything else: a symlink, another owner, another mode, or in
/// a parent others may write to without the sticky bit (where it could be swapped).
const PRIVATE_SPOOL: &str = r#"d=$0; me=$(id -u); parent=$(dirname -- "$d")
p=$(stat -L -c '%u %a' -- "$parent") || exit 1
set -- $p; m=0$2
if [ "$1" != 0 ] && [ "$1" != "$me" ]; then echo "$parent is owned by uid $1, not root: pass another --spool-dir" >&2; exit 1; fi
if [ $((m & 022)) -ne 0 ] && [ $((m & 01000)) -eq 0 ]; then echo "$parent (mode $2) is writable by others without the sticky bit: pass another --spool-dir" >&2; exit 1; fi
mkdir -m 0700 -- "$d" 2>/dev/null
s=$(stat -c '%u:%a:%F' -- "$d") || exit 1
if [ "$s" != "$me:700:directory" ]; then echo "$d is not a folder of uid $me with mode 700 (uid:mode:type is $s), so another user may write there; remove it or pass another --spool-dir" >&2; exit 1; fi"#;

/// Imports the tarball `$1` with the command that follows `$2` only when its sha256 is `$2`,
/// hashed right before the import.
const IMPORT_CHECKED: &str = r#"f=$1; want=$2; shift 2
sum=$(sha256sum -- "$f") || exit 1
if [ "${sum%% *}" != "$want" ]; then echo "$f has sha256 ${sum%% *}, not the $want sent and checked; not imported" >&2; exit 1; fi
exec "$@""#;

fn words(settings: &Settings, args: &[&str]) -> RemoteCommand {
    let mut words = Vec::new();
    if settings.sudo {
        words.push("sudo".to_string());
    }
    words.extend(args.iter().map(|a| a.to_string()));
    RemoteCommand::new(words)
}

fn ok(
    output: Result<RemoteOutput, crate::runner::RunError>,
    step: &str,
) -> Result<RemoteOutput, Failure> {
    match output {
        Ok(output) if output.exit_code == 0 => Ok(output),
        Ok(output) => Err(Failure(
            step.to_string(),
            format!(
                "exited with {}{}",
                output.exit_code,
                if output.stderr_tail.is_empty() {
                    String::new()
                } else {
                    format!(": {}", output.stderr_tail.join(" | "))
                }
            ),
        )),
        Err(error) => Err(Failure(step.to_string(), error.to_string())),
    }
}

/// The node's images, each line cut to `REF DIGEST` on the node so that hundreds fit in the
/// output kept of a command.
fn list(node: &Node, settings: &Settings) -> Result<Vec<NodeImage>, Failure> {
    let step = "listing the node's images (ctr images ls)";
    let ls = words(
        settings,
        &[
            "sh",
            "-c",
            "out=$(\"$0\" -n k8s.io images ls) || exit $?; printf '%s\\n' \"$out\" | awk '{print $1, $3}'",
            &settings.ctr,
        ],
    );
    let output = ok(node.runner.run(&ls), step)?;
    if output.stdout.len() >= crate::runner::KEEP_STDOUT_BYTES {
        return Err(Failure(
            step.to_string(),
            format!(
                "the list is longer than the {} bytes kept; remove unused images on the node",
                crate::runner::KEEP_STDOUT_BYTES
            ),
        ));
    }
    Ok(plan::parse_ctr_ls(&output.stdout))
}

/// Preloads `node` with the tarballs of `tarballs` it lacks, read from `source`.
pub fn preload(
    node: &Node,
    tarballs: &[Tarball],
    source: &IsoSource,
    settings: &Settings,
) -> NodeReport {
    let outcome = match run(node, tarballs, source, settings) {
        Ok(outcome) => outcome,
        Err(Failure(step, detail)) => NodeOutcome::Failed { step, detail },
    };
    NodeReport {
        node: node.name.clone(),
        outcome,
        bytes_sent: node.sent.load(Ordering::Relaxed),
    }
}

fn run(
    node: &Node,
    tarballs: &[Tarball],
    source: &IsoSource,
    settings: &Settings,
) -> Result<NodeOutcome, Failure> {
    let present = list(node, settings)?;
    let lacking = plan::lacking(tarballs, &present);
    if lacking.is_empty() {
        return Ok(NodeOutcome::Complete {
            images: tarballs.iter().map(|t| t.images.len()).sum(),
        });
    }
    node.needed
        .store(lacking.iter().map(|t| t.size).sum(), Ordering::Relaxed);
    let platform = match &settings.platform {
        Some(p) => p.clone(),
        None => {
            let out = ok(
                node.runner
                    .run(&RemoteCommand::new(vec!["uname".into(), "-m".into()])),
                "reading the node's machine type (uname -m)",
            )?;
            plan::platform_of(&out.stdout)
                .ok_or_else(|| {
                    Failure(
                        "choosing the import platform".to_string(),
                        format!(
                            "unknown machine type {:?}; pass --platform linux/ARCH",
                            out.stdout.trim()
                        ),
                    )
                })?
                .to_string()
        }
    };
    let spool = settings.spool_dir.trim_end_matches('/');
    ok(
        node.runner
            .run(&words(settings, &["sh", "-c", PRIVATE_SPOOL, spool])),
        "creating the spool folder on the node",
    )?;
    for tarball in &lacking {
        let file = format!("{spool}/{}.tar", tarball.sha256);
        send(node, tarball, source, settings, &file)?;
        let import = words(
            settings,
            &[
                "sh",
                "-c",
                IMPORT_CHECKED,
                "sh",
                &file,
                &tarball.sha256,
                &settings.ctr,
                "-n",
                "k8s.io",
                "images",
                "import",
                "--platform",
                &platform,
                &file,
            ],
        );
        ok(
            node.runner.run(&import),
            &format!("importing docker/{} (ctr images import)", tarball.file),
        )?;
        ok(
            node.runner.run(&words(settings, &["rm", "-f", &file])),
            "removing the imported tarball",
        )?;
    }
    let after = list(node, settings)?;
    let missing = plan::still_missing(&lacking, &after);
    if !missing.is_empty() {
        let names: Vec<String> = missing
            .iter()
            .map(|i| format!("{}@{}", i.name, i.digest.as_deref().unwrap_or("?")))
            .collect();
        return Err(Failure(
            "checking the imported digests".to_string(),
            format!("the node does not list {}", names.join(", ")),
        ));
    }
    Ok(NodeOutcome::Preloaded {
        tarballs: lacking.len(),
        images: lacking.iter().map(|t| t.images.len()).sum(),
    })
}

/// Sends `tarball` to `file` on the node: appends what its `.partial` lacks, checks the sha256
/// there, renames it. A partial that does not check out is removed and sent again once.
fn send(
    node: &Node,
    tarball: &Tarball,
    source: &IsoSource,
    settings: &Settings,
    file: &str,
) -> Result<(), Failure> {
    let partial = format!("{file}.partial");
    let step = format!("sending docker/{}", tarball.file);
    for attempt in 0..2 {
        let size = words(
            settings,
            &[
                "sh",
                "-c",
                "if [ -f \"$1\" ]; then stat -c %s \"$1\"; else echo 0; fi",
                "sh",
                &partial,
            ],
        );
        let have: u64 = ok(node.runner.run(&size), &step)?
            .stdout
            .trim()
            .parse()
            .unwrap_or(0);
        if have > tarball.size {
            ok(
                node.runner.run(&words(settings, &["rm", "-f", &partial])),
                &step,
            )?;
            continue;
        }
        if have < tarball.size {
            let reader = source
                .reader(&tarball.file, have)
                .map_err(|e| Failure(step.clone(), e.to_string()))?;
            let append = words(settings, &["sh", "-c", "cat >> \"$1\"", "sh", &partial]);
            let input = Input {
                reader: Box::new(std::io::Read::take(reader, tarball.size - have)),
                sent: node.sent.clone(),
            };
            ok(node.runner.run_with_input(&append, input), &step)?;
        }
        let sum = ok(
            node.runner.run(&words(settings, &["sha256sum", &partial])),
            &step,
        )?;
        if sum.stdout.split_whitespace().next() == Some(tarball.sha256.as_str()) {
            ok(
                node.runner
                    .run(&words(settings, &["mv", "-f", &partial, file])),
                &step,
            )?;
            return Ok(());
        }
        ok(
            node.runner.run(&words(settings, &["rm", "-f", &partial])),
            &step,
        )?;
        if attempt == 1 {
            break;
        }
    }
    Err(Failure(
        step,
        format!(
            "the copy on the node does not have sha256 {}; the partial file was removed, run again",
            tarball.sha256
        ),
    ))
}
