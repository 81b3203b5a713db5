//! `cks-iso verify`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::inspect;

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
    /// The image to check, such as `cks-1.33.13-x86_64.iso`.
    #[arg(value_name = "ISO")]
    pub iso: PathBuf,
}

/// Runs `cks-iso verify`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let iso = args.iso.clone();
    let step =
        super::progress::Step::start(&format!("verifying {}", super::progress::file_name(&iso)));
    let report = tokio::task::spawn_blocking(move || inspect::verify(&iso))
        .await
        .context("the verify task stopped")?
        .with_context(|| format!("verifying {}", args.iso.display()))?;
    drop(step);
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).context("rendering the report as JSON")?
        )?;
    } else {
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
