//! What one build asks its upstream, seen from the upstream: every URL once (kubeadm's
//! signature material, checked before kubeadm runs, is the material the signature phase
//! checks), the summary's `fetched_twice` 0; the plan's small lookups (the manifests, every
//! binary's signature material) sent together, not one after another; and the kubeadm that
//! lists the images downloading before the other large files, which start once it is in.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::http::{Fault, Span, most_at_once};
use cks_pinning::arch::Arch;

/// Runs `cks-iso` with `args` and `--json`; the printed document.
fn build_json(args: &[String]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .arg("--json")
        .env("CI", "true")
        .output()
        .expect("cks-iso runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    serde_json::from_str(&stdout).expect("--json prints JSON")
}

/// The file server's path of each upstream URL the plan names, with the signature material
/// beside each Kubernetes binary.
fn planned_paths(upstream: &DemoUpstream, plan: &serde_json::Value) -> (Vec<String>, Vec<String>) {
    let path_of = |url: &str| {
        let served = upstream.served_url(url).expect("a URL the demo serves");
        let rest = served.split_once("://").map_or(served.as_str(), |(_, r)| r);
        rest.find('/')
            .map(|at| rest[at..].to_string())
            .unwrap_or_default()
    };
    let mut files = Vec::new();
    let mut material = Vec::new();
    for file in plan["files"].as_array().expect("the plan's files") {
        let url = file["urls"][0].as_str().expect("a URL");
        files.push(path_of(url));
        if url.starts_with("https://dl.k8s.io/") {
            for suffix in [".sig", ".cert", ".sigstore.json"] {
                material.push(path_of(&format!("{url}{suffix}")));
            }
        }
    }
    (files, material)
}

#[test]
fn a_build_asks_for_every_url_once() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("output folder");
    let document = build_json(&build_args(&upstream, out.path(), Arch::Amd64));
    let files = upstream.file_server().requested_paths();
    let twice: Vec<_> = files.iter().filter(|(_, n)| *n > 1).collect();
    assert!(twice.is_empty(), "asked more than once: {twice:?}");
    // kubeadm's signature material was asked for (once, above), and checked.
    let kubeadm_sig = files.iter().any(|(path, _)| {
        path.ends_with("/kubeadm.sig") || path.ends_with("/kubeadm.sigstore.json")
    });
    assert!(kubeadm_sig, "{files:?}");
    let tags = upstream.git().log().snapshot();
    let twice: Vec<_> = tags.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "git asked more than once: {twice:?}");
    // The build counted its requests as the servers did.
    assert_eq!(
        document["summary"]["fetched_twice"], 0,
        "{:#}",
        document["summary"]
    );
}

#[test]
fn the_plans_lookups_are_sent_together_and_kubeadm_comes_first() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("output folder");
    let args = build_args(&upstream, out.path(), Arch::Amd64);
    let mut dry_run = args.clone();
    dry_run.push("--dry-run".into());
    let plan = build_json(&dry_run);
    let (files, material) = planned_paths(&upstream, &plan);
    let small: Vec<&String> = files
        .iter()
        .filter(|p| p.ends_with(".yaml") || p.ends_with(".conf") || p.ends_with(".service"))
        .collect();
    // A slow upstream: every small lookup of the plan waits before its answer. Sent one
    // after another they would never be open at once; the test asks only what the server saw.
    let delay = Fault::Delay(Duration::from_millis(700));
    for path in small.iter().copied().chain(&material) {
        upstream.file_server().always(path, delay.clone());
    }
    upstream.file_server().reset_counts();
    let concurrency = 4;
    let mut args = args;
    args.extend(["--concurrency".to_string(), concurrency.to_string()]);
    let document = build_json(&args);

    let spans = upstream.file_server().spans();
    let of = |wanted: &dyn Fn(&str) -> bool| -> Vec<Span> {
        spans.iter().filter(|s| wanted(&s.path)).cloned().collect()
    };
    let lookups = of(&|p| small.iter().any(|s| *s == p) || material.iter().any(|m| m == p));
    let together = most_at_once(&lookups);
    // The pool holds `concurrency` lookups at once, and a binary's material is three requests.
    assert!(
        together.len() >= concurrency,
        "at most {together:?} at once"
    );
    // The material of the binaries kubeadm does not need (checked in the signature phase) was
    // asked for while the plan's manifests were: not after the downloads.
    let kubectl = of(&|p| p.contains("/kubectl.") && material.iter().any(|m| m == p));
    let manifests = of(&|p| p.ends_with(".yaml"));
    assert!(
        kubectl
            .iter()
            .any(|k| manifests.iter().any(|m| m.overlaps(k))),
        "kubectl's signature material came apart from the manifests: {kubectl:?}"
    );
    // kubeadm downloads first; the other large files start once it is in.
    let binary = |name: &'static str| {
        let suffix = format!("/{name}");
        of(&move |p: &str| p.ends_with(&suffix))
    };
    let kubeadm = binary("kubeadm");
    let kubeadm_end = kubeadm
        .first()
        .and_then(|s| s.end)
        .expect("kubeadm was fetched");
    for name in ["kubelet", "kubectl"] {
        let started = binary(name).first().map(|s| s.start).expect(name);
        assert!(
            started >= kubeadm_end,
            "{name} started before kubeadm was in"
        );
    }
    assert_eq!(document["summary"]["fetched_twice"], 0);
    assert!(Path::new(document["summary"]["iso"].as_str().expect("the ISO's path")).is_file());
}
