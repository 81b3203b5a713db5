//! `cks-iso build`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use cks_builder::pipeline::Lock;
use cks_builder::pipeline::{Front, Outcome, Request, build, front, kubeadm_etcd_line};
use cks_builder::pipeline::{Inputs, Options};
use cks_builder::pipeline::{Observer, Summary};

use super::build_args::BuildArgs;
use super::progress::reporter;
use crate::progress::human;

/// Runs `cks-iso build`.
pub async fn run(args: BuildArgs, interrupt: &super::interrupt::Interrupt) -> Result<()> {
    if args.arch.len() > 1 {
        anyhow::bail!(
            "cks-iso build makes one ISO, for one --arch (given {}); cks-iso release builds one per arch",
            args.arch.join(", ")
        );
    }
    // Read first, so a bad key fails in a second, not after the ISO is packed.
    let sign_key = args
        .sign_key
        .as_deref()
        .map(cks_builder::signing::SigningKey::read)
        .transpose()?;
    let config = super::build_args::read_config(args.config.as_deref())?;
    let lock = match &args.locked {
        Some(path) => Some(Lock::read(path)?),
        None => None,
    };
    let env = Inputs::from_env(|key| std::env::var(key).ok())?;
    let mut inputs = args.inputs().over(env).over(config);
    if let Some(lock) = &lock {
        inputs = inputs.over(lock.inputs.clone());
    }
    let Front { options, inputs } =
        front(inputs, lock.as_ref(), &|line| eprintln!("{line}")).await?;
    warn_crictl_minor(&options);
    let request = Request {
        dry_run: args.dry_run,
        write_lock: args.write_lock.clone(),
        locked: lock,
        temp_dir: args.tmp_dir.clone(),
        ..Request::default()
    };
    let outcome = build_with_reporting(&options, &inputs, request, interrupt).await?;
    let (Outcome::Planned(plan) | Outcome::Built(plan, _)) = &outcome;
    if let Some(line) = kubeadm_etcd_line(&options, plan) {
        eprintln!("{line}");
    }
    match outcome {
        Outcome::Planned(plan) => {
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&plan)?)?;
            } else {
                out!("{}", plan.render())?;
            }
        }
        Outcome::Built(plan, summary) => {
            let signature = match &sign_key {
                Some(key) => Some(
                    key.sign_hex_digest(&summary.iso, &summary.sha256)
                        .context("signing the ISO")?,
                ),
                None => None,
            };
            if args.json {
                let both =
                    serde_json::json!({ "plan": plan, "summary": summary, "signature": signature });
                outln!("{}", serde_json::to_string_pretty(&both)?)?;
            } else {
                out!("{}", render_summary(&summary))?;
                if let Some(signature) = &signature {
                    outln!("signature: {}", signature.display())?;
                }
            }
        }
    }
    Ok(())
}

/// Says on stderr when the build's crictl is not of its Kubernetes minor.
pub fn warn_crictl_minor(options: &Options) {
    if let Some(warning) = cks_pinning::tool_release::crictl_minor_warning(
        &options.kubernetes_version,
        &options.crictl_version,
    ) {
        eprintln!("cks-iso: warning: {warning}");
    }
}

/// Builds with the progress display this terminal calls for, stopping cleanly on Ctrl-C
/// (the build's temporary directory and any partial ISO are removed).
pub async fn build_with_reporting(
    options: &Options,
    inputs: &Inputs,
    request: Request,
    interrupt: &super::interrupt::Interrupt,
) -> Result<Outcome> {
    if interrupt.pressed() {
        anyhow::bail!(
            "interrupted; nothing was written to {}",
            options.output_path.display()
        );
    }
    let (sink, observer) = reporter();
    // The ISO writer runs on a blocking thread that cannot be stopped midway, so Ctrl-C while
    // it packs waits for it to finish and then removes what it wrote.
    let iso = options.iso_path();
    let watch = PhaseWatch {
        inner: observer,
        packing: AtomicBool::new(false),
        iso_name: super::progress::file_name(&iso),
    };
    let outputs = [
        cks_builder::iso::partial_path(&iso),
        cks_builder::iso::sidecar_path(&iso),
        cks_builder::iso::partial_path(&cks_builder::iso::sidecar_path(&iso)),
        cks_builder::pipeline::sbom_beside(&iso),
        iso.clone(),
    ];
    let run = build(options, inputs, request, sink, &watch);
    tokio::pin!(run);
    tokio::select! {
        biased;
        _ = interrupt.wait() => {
            if watch.packing.load(Ordering::SeqCst) {
                let _ = (&mut run).await;
            }
            for path in &outputs {
                let _ = std::fs::remove_file(path);
            }
            Err(anyhow::anyhow!("interrupted; nothing was written to {}", options.output_path.display()))
        }
        result = &mut run => result,
    }
    .context("the build failed")
}

/// Passes phases on, remembering whether the ISO writer is running.
struct PhaseWatch {
    inner: Arc<dyn Observer>,
    packing: AtomicBool,
    /// The ISO's file name, which the pack phase names.
    iso_name: String,
}

impl Observer for PhaseWatch {
    fn phase(&self, name: &str) {
        let packing = name == "pack";
        self.packing.store(packing, Ordering::SeqCst);
        if packing {
            self.inner.phase(&format!("pack {}", self.iso_name));
        } else {
            self.inner.phase(name);
        }
    }
}

/// The closing summary of a build.
pub fn render_summary(summary: &Summary) -> String {
    let mut out = String::new();
    out.push_str(&format!("iso: {}\n", summary.iso.display()));
    out.push_str(&format!(
        "size: {} ({})\n",
        summary.size,
        human(summary.size)
    ));
    out.push_str(&format!("sha256: {}\n", summary.sha256));
    out.push_str(&format!("sha256-file: {}\n", summary.sidecar.display()));
    out.push_str(&format!("sbom: {}\n", summary.sbom.display()));
    out.push_str(&format!(
        "files: {} ({} from cache)\nimages: {}\n",
        summary.files, summary.files_from_cache, summary.images
    ));
    for skipped in &summary.skipped_images {
        out.push_str(&format!("{skipped}\n"));
    }
    out.push_str(&format!(
        "fetched: files {}, images {} (unique image bytes {})\n",
        human(summary.file_bytes_fetched),
        human(summary.image_bytes_fetched),
        human(summary.image_unique_bytes)
    ));
    out.push_str(&format!(
        "built: {}\n",
        cks_pinning::sbom::rfc3339(summary.built)
    ));
    if !summary.mirrored.is_empty() {
        out.push_str(&format!(
            "mirrored: {} files (--json and --write-lock list the URLs used)\n",
            summary.mirrored.len()
        ));
    }
    if let Some(stats) = &summary.cache_registry {
        out.push_str(&stats.render());
    }
    let phases: Vec<String> = summary
        .phases
        .iter()
        .map(|(name, secs)| format!("{name} {secs:.1}s"))
        .collect();
    out.push_str(&format!("phases: {}\n", phases.join(", ")));
    for note in &summary.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    for warning in &summary.warnings {
        out.push_str(&format!("warning: {warning}\n"));
    }
    // Notes and warnings may quote a server or a mirror URL.
    cks_builder::redact::controls(&cks_builder::redact::passwords(&out)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_time_reads_as_a_utc_date() {
        let summary = Summary {
            iso: "out/cks.iso".into(),
            reused: false,
            sidecar: "out/cks.iso.sha256".into(),
            sbom: "out/cks.iso.spdx.json".into(),
            size: 0,
            sha256: String::new(),
            files: 0,
            images: 0,
            skipped_images: Vec::new(),
            file_bytes_fetched: 0,
            files_from_cache: 0,
            image_bytes_fetched: 0,
            image_unique_bytes: 0,
            built: 1_700_000_000,
            mirrored: Vec::new(),
            phases: Vec::new(),
            fetched_twice: 0,
            warnings: Vec::new(),
            cache_registry: None,
            notes: Vec::new(),
            existing: None,
        };
        let text = render_summary(&summary);
        assert!(
            text.lines()
                .any(|line| line == "built: 2023-11-14T22:13:20Z"),
            "{text}"
        );
    }
}
