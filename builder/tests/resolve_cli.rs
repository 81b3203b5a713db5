//! `cks-iso resolve` run as a program, on our look-alike tag listing and on the real one.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::shared;

fn cks_iso(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command
        .arg("resolve")
        .args(args)
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .env_remove("RUST_LOG");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run cks-iso")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 stderr")
}

/// The `key: value` lines of a successful run.
fn fields(output: &Output) -> BTreeMap<String, String> {
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(output));
    stdout(output)
        .lines()
        .map(|line| {
            let (key, value) = line.split_once(": ").expect("key: value line");
            (key.to_string(), value.to_string())
        })
        .collect()
}

/// The commit of `tag` as the listing gives it (peeled when annotated).
fn commit_in(listing: &Path, tag: &str) -> String {
    let text = std::fs::read_to_string(listing).expect("read listing");
    let find = |reference: String| {
        text.lines().find_map(|line| {
            let (sha, name) = line.split_once('\t')?;
            (name == reference).then(|| sha.to_string())
        })
    };
    find(format!("refs/tags/{tag}^{{}}"))
        .or_else(|| find(format!("refs/tags/{tag}")))
        .expect("tag listed")
}

fn text_and_json_agree(listing: &Path, kubernetes: &str, tag: &str) {
    let path = listing.to_str().expect("UTF-8 path");
    let text = fields(&cks_iso(
        &[
            "--kubernetes-version",
            kubernetes,
            "--autoscaler-refs",
            path,
        ],
        &[],
    ));
    let version = tag.trim_start_matches("cluster-autoscaler-");
    assert_eq!(text["autoscaler-tag"], tag);
    assert_eq!(text["autoscaler-version"], version);
    assert_eq!(text["autoscaler-commit"], commit_in(listing, tag));
    assert_eq!(
        text["autoscaler-image"],
        format!("registry.k8s.io/autoscaling/cluster-autoscaler:v{version}")
    );
    assert_eq!(text["ccm-tag"], "v1.2.0");
    assert_eq!(
        text["ccm-image"],
        "docker.io/apache/cloudstack-kubernetes-provider:v1.2.0"
    );
    assert_eq!(text["kubernetes"], kubernetes.trim_start_matches('v'));

    let output = cks_iso(
        &[
            "--kubernetes-version",
            kubernetes,
            "--autoscaler-refs",
            path,
            "--json",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    // The same keys, snake_case in JSON as every JSON key is (`autoscaler-tag`: `autoscaler_tag`).
    for (key, value) in &text {
        let key = key.replace('-', "_");
        assert_eq!(json[key.as_str()].as_str(), Some(value.as_str()), "{key}");
    }
    assert_eq!(json["warnings"], serde_json::json!([]));
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
}

#[test]
fn look_alike_listing_resolves_in_text_and_json() {
    let listing = shared::data("autoscaler/ls-remote.txt");
    text_and_json_agree(&listing, "1.33.13", "cluster-autoscaler-1.33.6");
    text_and_json_agree(&listing, "v1.32.1", "cluster-autoscaler-1.32.10");
}

#[test]
fn real_listing_resolves_in_text_and_json() {
    let Some(listing) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    text_and_json_agree(&listing, "1.31.14", "cluster-autoscaler-1.31.5");
    text_and_json_agree(&listing, "1.33.13", "cluster-autoscaler-1.33.6");
}

fn overrides_from_environment_and_flags(listing: &Path) {
    let path = listing.to_str().expect("UTF-8 path");
    let base = ["--kubernetes-version", "1.33.13", "--autoscaler-refs", path];
    // The environment's override of another minor: chosen, with a warning on stderr.
    let output = cks_iso(
        &base,
        &[
            ("AUTOSCALER_VERSION", "1.32.7"),
            ("CCM_VERSION", "1.3.0-rc1"),
        ],
    );
    let values = fields(&output);
    assert_eq!(values["autoscaler-tag"], "cluster-autoscaler-1.32.7");
    assert_eq!(values["ccm-tag"], "v1.3.0-rc1");
    let warning = stderr(&output);
    assert!(
        warning.contains("warning") && warning.contains("1.32.7"),
        "{warning}"
    );
    assert!(!stdout(&output).contains("warning"));
    // A flag wins over the environment.
    let mut args = base.to_vec();
    args.extend(["--autoscaler-version", "v1.33.4", "--ccm-version", "v1.2.1"]);
    let values = fields(&cks_iso(
        &args,
        &[("AUTOSCALER_VERSION", "1.33.99"), ("CCM_VERSION", "junk")],
    ));
    assert_eq!(values["autoscaler-tag"], "cluster-autoscaler-1.33.4");
    assert_eq!(values["ccm-tag"], "v1.2.1");
    // A missing release fails, listing the minor's releases.
    let output = cks_iso(&base, &[("AUTOSCALER_VERSION", "1.33.99")]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("1.33.99") && message.contains("1.33.0, 1.33.1"),
        "{message}"
    );
    assert!(message.contains(path), "names the listing: {message}");
}

#[test]
fn look_alike_listing_overrides() {
    overrides_from_environment_and_flags(&shared::data("autoscaler/ls-remote.txt"));
}

#[test]
fn real_listing_overrides() {
    let Some(listing) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    overrides_from_environment_and_flags(&listing);
}

#[test]
fn bad_input_fails_naming_it() {
    let listing = shared::data("autoscaler/ls-remote.txt");
    let path = listing.to_str().expect("UTF-8 path");

    // A malformed version is a command-line error (exit 2) naming the input.
    let output = cks_iso(
        &["--kubernetes-version", "1.33", "--autoscaler-refs", path],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("\"1.33\""), "{}", stderr(&output));

    // No release for the minor: exit 1, telling to set AUTOSCALER_VERSION.
    let output = cks_iso(
        &["--kubernetes-version", "1.99.0", "--autoscaler-refs", path],
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains("1.99") && message.contains("set AUTOSCALER_VERSION"),
        "{message}"
    );
    assert!(stdout(&output).is_empty());

    // A bad CCM override names it.
    let output = cks_iso(
        &["--kubernetes-version", "1.33.0", "--autoscaler-refs", path],
        &[("CCM_VERSION", "latest")],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("\"latest\""),
        "{}",
        stderr(&output)
    );

    // A missing file and a file that is no tag listing name the file.
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("absent.txt");
    let missing = missing.to_str().expect("UTF-8 path");
    let output = cks_iso(
        &[
            "--kubernetes-version",
            "1.33.0",
            "--autoscaler-refs",
            missing,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains(missing), "{}", stderr(&output));

    let manifest = shared::data("manifests/ccm-deployment.yaml");
    let manifest = manifest.to_str().expect("UTF-8 path");
    let output = cks_iso(
        &[
            "--kubernetes-version",
            "1.33.0",
            "--autoscaler-refs",
            manifest,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains(manifest) && message.contains("line 1"),
        "{message}"
    );

    // Neither source of tags, or both: command-line errors.
    let output = cks_iso(&["--kubernetes-version", "1.33.0"], &[]);
    assert_eq!(output.status.code(), Some(2));
    let output = cks_iso(
        &[
            "--kubernetes-version",
            "1.33.0",
            "--autoscaler-refs",
            path,
            "--autoscaler-repo",
            path,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
}
