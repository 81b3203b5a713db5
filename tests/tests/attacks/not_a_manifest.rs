//! A hostile mirror answering the network manifest with something else (a JSON document, 20 KB
//! of deeply nested YAML, an alias bomb, objects without a single image) and a checksum file
//! listing one file twice with different digests: each build fails naming the URL and what was
//! wrong, leaving nothing in OUTPUT_PATH or the temporary folder, under both signature modes.

use cks_builder::pipeline::{Inputs, Request};
use cks_e2e::{demo_inputs, entries, run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

/// Builds with `--signatures mode` into fresh folders; returns the error text after checking
/// that both folders are empty.
async fn failed_build(upstream: &DemoUpstream, mode: &str) -> String {
    let out = tempfile::tempdir().expect("out dir");
    let temp = tempfile::tempdir().expect("temp dir");
    let mut inputs: Inputs = demo_inputs(upstream, out.path(), "x86_64");
    inputs.signatures.mode = Some(mode.parse().expect("a signature mode"));
    let request = Request {
        temp_dir: Some(temp.path().to_path_buf()),
        ..Request::default()
    };
    let err = run_build(&inputs, request)
        .await
        .expect_err("the build fails");
    assert!(entries(out.path()).is_empty(), "OUTPUT_PATH is empty");
    assert!(entries(temp.path()).is_empty(), "the temp dir is empty");
    format!("{err:#}")
}

/// Serves `text` as the network manifest; returns the URL the build fetches it from.
fn serve_network(upstream: &DemoUpstream, text: &str) -> String {
    std::fs::write(upstream.network_yaml_path(), text).expect("replace the network manifest");
    upstream
        .served_url(&upstream.network_yaml())
        .expect("the network manifest is served here")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_json_document_served_as_the_network_manifest_is_refused_naming_its_keys() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let url = serve_network(
        &upstream,
        r#"{"name": "left-pad", "version": "1.3.0", "license": "WTFPL"}"#,
    );
    for mode in ["warn", "require"] {
        let text = failed_build(&upstream, mode).await;
        assert!(text.contains(&url), "{mode}: {text}");
        assert!(
            text.contains("a JSON document with keys name, version, license"),
            "{mode}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_network_manifest_without_an_image_is_refused() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let url = serve_network(
        &upstream,
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: flannel\n",
    );
    for mode in ["warn", "require"] {
        let text = failed_build(&upstream, mode).await;
        assert!(text.contains(&url), "{mode}: {text}");
        assert!(text.contains("name no container image"), "{mode}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deeply_nested_network_manifest_is_a_one_line_error() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let mut deep = String::from("apiVersion: v1\nkind: ConfigMap\ndata: ");
    deep.push_str(&"[".repeat(10_000));
    deep.push_str(&"]".repeat(10_000));
    deep.push('\n');
    let url = serve_network(&upstream, &deep);
    for mode in ["warn", "require"] {
        let text = failed_build(&upstream, mode).await;
        assert!(text.contains(&url), "{mode}: {text}");
        assert!(
            text.contains("nesting deeper than 100 levels at line 3"),
            "{mode}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_checksum_file_listing_etcd_twice_with_different_digests_is_refused() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let sums = upstream
        .root()
        .join("github.com/etcd-io/etcd/releases/download/v3.5.21/SHA256SUMS");
    let text = std::fs::read_to_string(&sums).expect("SHA256SUMS");
    let forged = format!("{}  etcd-v3.5.21-linux-amd64.tar.gz\n", "1".repeat(64));
    std::fs::write(&sums, format!("{text}{forged}")).expect("add a second line");
    for mode in ["warn", "require"] {
        let error = failed_build(&upstream, mode).await;
        assert!(error.contains("SHA256SUMS"), "{mode}: {error}");
        assert!(
            error.contains("lists etcd-v3.5.21-linux-amd64.tar.gz twice with different digests"),
            "{mode}: {error}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_alias_bomb_served_as_the_network_manifest_is_refused() {
    let upstream = start_upstream(DemoConfig::default()).await;
    // Ten levels of ten aliases each: 10^10 nodes once expanded, from 600 bytes.
    let mut bomb =
        String::from("apiVersion: v1\nkind: ConfigMap\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let previous = format!("*a{}", level - 1);
        let row = [previous.as_str(); 10].join(", ");
        bomb.push_str(&format!("a{level}: &a{level} [{row}]\n"));
    }
    let url = serve_network(&upstream, &bomb);
    for mode in ["warn", "require"] {
        let text = failed_build(&upstream, mode).await;
        assert!(text.contains(&url), "{mode}: {text}");
        assert!(
            text.contains("aliases copying more than 100000 nodes"),
            "{mode}: {text}"
        );
    }
}
