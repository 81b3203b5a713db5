//! The fake's version catalogue is faithful enough for the real Python `cs` client: it adds a
//! version (the fake downloading the URL until the ISO is Ready), lists it, sees an injected
//! download failure in `listIsos`, and deletes it through an async job it polls.

use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{KEY, SECRET, Setup, eventually, setup};

fn cs(s: &Setup, args: &[&str]) -> Output {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    Command::new(program)
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", s.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .output()
        .expect("cs runs")
}

fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "cs failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "cs printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn cs_adds_lists_and_deletes_a_version_whose_iso_downloads() {
    let s = setup();
    let url = format!("url={}", s.files.url("/cks.iso"));
    let checksum = format!("checksum={{SHA-256}}{}", s.sha256);
    let added = ok(&cs(
        &s,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.33.13",
            &url,
            &checksum,
            "mincpunumber=2",
            "minmemory=2048",
        ],
    ));
    let version = &added["kubernetessupportedversion"];
    assert_eq!(version["semanticversion"], "1.33.13");
    let id = version["id"].as_str().expect("id").to_string();
    let iso = version["isoid"].as_str().expect("isoid").to_string();
    eventually("the ISO becoming Ready", || {
        let listed = ok(&cs(
            &s,
            &["listKubernetesSupportedVersions", &format!("id={id}")],
        ));
        listed["kubernetessupportedversion"][0]["isostate"] == "Ready"
    });
    let isos = ok(&cs(
        &s,
        &["listIsos", &format!("id={iso}"), "isofilter=all"],
    ));
    assert_eq!(isos["iso"][0]["isready"], true);

    let deleted = ok(&cs(
        &s,
        &["deleteKubernetesSupportedVersion", &format!("id={id}")],
    ));
    assert_eq!(deleted["success"], true, "{deleted}");
    let listed = ok(&cs(&s, &["listKubernetesSupportedVersions"]));
    assert!(
        listed.get("kubernetessupportedversion").is_none(),
        "{listed}"
    );
}

#[test]
fn cs_sees_an_injected_download_failure_and_a_refused_parameter() {
    let s = setup();
    s.cloud
        .fail_next_download("Failed to download: connection reset by the image store");
    let url = format!("url={}", s.files.url("/cks.iso"));
    let added = ok(&cs(
        &s,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.33.13",
            &url,
            "mincpunumber=2",
            "minmemory=2048",
        ],
    ));
    let iso = added["kubernetessupportedversion"]["isoid"]
        .as_str()
        .expect("isoid")
        .to_string();
    eventually("the download failing", || {
        let isos = ok(&cs(
            &s,
            &["listIsos", &format!("id={iso}"), "isofilter=all"],
        ));
        isos["iso"][0]["status"]
            .as_str()
            .is_some_and(|t| t.contains("connection reset"))
    });
    let listed = ok(&cs(&s, &["listKubernetesSupportedVersions"]));
    assert_eq!(
        listed["kubernetessupportedversion"][0]["isostate"],
        "Allocated"
    );

    let out = cs(
        &s,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.33",
            &url,
            "mincpunumber=2",
            "minmemory=2048",
        ],
    );
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("MAJOR.MINOR.PATCH"), "{text}");
}
