//! `cks-iso verify`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::inspect;
use cks_builder::published::{self, Finding};
use cks_builder::register::RequiredKey;

/// What `--help` adds below the flags: the checks and the exit codes.
const EXIT_CODES: &str = "Checks every file against the sha256 in /versions.txt (and that every file is listed), the files the node scripts read (k8s/kubeadm, kubelet, kubectl executable; cni/cni-plugins-*64.tgz, cri-tools/crictl-linux-*64.tar.gz, kubelet.service, 10-kubeadm.conf, network.yaml, dashboard.yaml or headlamp.yaml, autoscaler.yaml, provider.yaml; manifest.yaml with snapshot-crds.yaml; etcd/etcd-linux-amd64.tar.gz when versions.txt names etcd), world-readable modes, every docker/*.tar an uncompressed OCI layout naming its full reference with every blob for the arch intact and matching an `image:` line, exactly one pause image, the autoscaler <min>:<max>:<cluster-id> placeholders, no `imagePullPolicy: Always`, every manifest image bundled or skipped.\n\nPrints one line per problem (`path: [kind] detail`), the CloudStack lines whose node contracts the ISO fits (`fits: 4.22, 4.23`) with one `not <line>: ...` line per reason for the others, and a summary line. With --cloudstack LINE, an ISO that does not fit LINE (or, with `any`, every line) fails.\n\nExit codes: 0 the ISO meets the node contract, 1 a problem was found, the ISO does not fit --cloudstack, or it cannot be read, 2 bad command line.\n\nA volume id other than CDROM is a problem, not a warning: newer node templates mount only `blkid -t LABEL=CDROM`.\n\nExample: cks-iso verify cks-1.33.13-x86_64.iso";

/// Flags of `cks-iso verify`.
///
/// Reads ISO and checks it as a CKS node would use it: every file against the sha256 recorded in
/// /versions.txt (and every file listed there), the files the node scripts read (k8s/kubeadm,
/// kubelet, kubectl executable; cni/cni-plugins-*64.tgz, cri-tools/crictl-linux-*64.tar.gz,
/// kubelet.service, 10-kubeadm.conf, network.yaml, dashboard.yaml or headlamp.yaml, autoscaler.yaml,
/// provider.yaml; etcd only when versions.txt names it), every docker/*.tar an uncompressed OCI
/// layout naming its full reference with every blob for the ISO's arch intact and matching an
/// `image:` line, exactly one pause image, the autoscaler's <min>:<max>:<cluster-id>
/// placeholders, no `imagePullPolicy: Always`, every manifest image bundled, volume id CDROM.
///
/// Prints one line per problem (`path: [kind] detail`) and exits 1 if there is any; prints a
/// one-line OK summary and exits 0 if there is none. Exits 1 with an error when the ISO cannot
/// be read at all.
///
/// Example: `cks-iso verify cks-1.33.13-x86_64.iso`
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXIT_CODES)]
pub struct Args {
    /// Print the report as JSON (`{"iso", "volume_id", "files", "images", "findings"}`).
    #[arg(long)]
    pub json: bool,
    /// Fail unless the ISO fits this CloudStack line's node contract: 4.20, 4.22, 4.23, or
    /// any (every line).
    #[arg(long, value_name = "LINE")]
    pub cloudstack: Option<cks_pinning::node_contract::Target>,
    /// The public key (`cks-iso keygen`'s PREFIX.pub) every `.sig` must verify with: each ISO's,
    /// and in a folder the catalog's and each SHA256SUMS-<minor>'s. Without it no `.sig` is
    /// read.
    #[arg(long, value_name = "PUB")]
    pub key: Option<PathBuf>,
    /// The image to check, such as `cks-1.33.13-x86_64.iso` (its `.sha256`, `.spdx.json` and,
    /// with --key, `.sig` beside it too), or a release folder: every ISO there with its sidecar
    /// and SBOM, `catalog.json` and the SHA256SUMS-<minor> files.
    #[arg(value_name = "ISO|DIR")]
    pub iso: PathBuf,
}

/// Runs `cks-iso verify`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let key = args
        .key
        .as_deref()
        .map(super::register_args::read_key)
        .transpose()?;
    if args.iso.is_dir() {
        return folder(args, key).await;
    }
    let iso = args.iso.clone();
    let step =
        super::progress::Step::start(&format!("verifying {}", super::progress::file_name(&iso)));
    let neighbours = {
        let (iso, key) = (iso.clone(), key.clone());
        tokio::task::spawn_blocking(move || neighbours(&iso, key.as_ref()))
    };
    let report = tokio::task::spawn_blocking(move || inspect::verify(&iso))
        .await
        .context("the verify task stopped")?
        .with_context(|| format!("verifying {}", args.iso.display()))?;
    drop(step);
    let neighbours = neighbours
        .await
        .context("the check of the neighbours stopped")?;
    if args.json {
        let mut value = serde_json::to_value(&report).context("rendering the report as JSON")?;
        // Only when something beside the ISO is wrong: the report of a bare ISO is unchanged.
        if let Some(object) = value.as_object_mut().filter(|_| !neighbours.is_empty()) {
            object.insert("neighbours".into(), serde_json::to_value(&neighbours)?);
        }
        outln!("{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        for finding in &neighbours {
            outln!("{finding}")?;
        }
        out!("{report}")?;
    }
    if !report.is_clean() {
        anyhow::bail!(
            "{} does not meet the node contract ({} problem{})",
            args.iso.display(),
            report.findings.len(),
            if report.findings.len() == 1 { "" } else { "s" }
        );
    }
    if !neighbours.is_empty() {
        anyhow::bail!(
            "{} problem{} beside {}",
            neighbours.len(),
            if neighbours.len() == 1 { "" } else { "s" },
            args.iso.display()
        );
    }
    if let Some(target) = args.cloudstack {
        let unfit: Vec<String> = target
            .lines()
            .into_iter()
            .filter_map(|line| report.fits.get(line))
            .flat_map(|fit| {
                fit.misfits
                    .iter()
                    .map(move |m| format!("CloudStack {}: {m}", fit.line))
            })
            .collect();
        if !unfit.is_empty() {
            anyhow::bail!(
                "{} does not fit --cloudstack {target}: {}",
                args.iso.display(),
                unfit.join("; ")
            );
        }
    }
    Ok(())
}

/// What is wrong beside one ISO (its sidecar, SBOM and, with a key, `.sig`, where present).
fn neighbours(iso: &std::path::Path, key: Option<&RequiredKey>) -> Vec<Finding> {
    let mut findings = Vec::new();
    published::check_neighbours(iso, key, published::Neighbours::Present, &mut findings);
    findings
}

/// `cks-iso verify DIR`: one line per finding, naming the file.
async fn folder(args: Args, key: Option<RequiredKey>) -> anyhow::Result<()> {
    let dir = args.iso.clone();
    let findings = tokio::task::spawn_blocking(move || published::check(&dir, key.as_ref()))
        .await
        .context("the verify task stopped")?
        .with_context(|| format!("verifying {}", args.iso.display()))?;
    if args.json {
        let value = serde_json::json!({ "path": args.iso, "findings": findings });
        outln!("{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        for finding in &findings {
            outln!("{finding}")?;
        }
    }
    if !findings.is_empty() {
        anyhow::bail!(
            "{}: {} problem{}",
            args.iso.display(),
            findings.len(),
            if findings.len() == 1 { "" } else { "s" }
        );
    }
    if !args.json {
        outln!(
            "OK: {}: every ISO, its sidecar, SBOM{}, the catalog and the checksum files agree",
            args.iso.display(),
            if args.key.is_some() {
                ", signature"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}
