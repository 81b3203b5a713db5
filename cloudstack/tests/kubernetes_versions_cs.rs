//! The fake's supported versions are faithful enough for the real Python `cs` client: it adds a
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

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `cs` and parses what it prints (it prints nothing for an empty answer: `Null`).
fn cs_ok(s: &Setup, args: &[&str]) -> Value {
    let out = cs(s, args);
    assert!(out.status.success(), "cs {args:?} failed: {}", text(&out));
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("cs {args:?} printed no JSON ({e}): {}", text(&out)))
}

#[test]
fn cs_adds_lists_and_deletes_a_version_whose_iso_downloads() {
    let s = setup();
    let url = format!("url={}", s.files.url("/cks.iso"));
    let checksum = format!("checksum={{SHA-256}}{}", s.sha256);
    let added = cs_ok(
        &s,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.33.13",
            &url,
            &checksum,
            "mincpunumber=2",
            "minmemory=2048",
        ],
    );
    let version = &added["kubernetessupportedversion"];
    assert_eq!(version["semanticversion"], "1.33.13", "{added}");
    let id = version["id"].as_str().expect("id").to_string();
    let iso = version["isoid"].as_str().expect("isoid").to_string();
    eventually("the ISO becoming Ready", || {
        let listed = cs_ok(
            &s,
            &["listKubernetesSupportedVersions", &format!("id={id}")],
        );
        listed["kubernetessupportedversion"][0]["isostate"] == "Ready"
    });
    let isos = cs_ok(&s, &["listIsos", &format!("id={iso}"), "isofilter=all"]);
    assert_eq!(isos["iso"][0]["isready"], true, "{isos}");
    assert_eq!(isos["iso"][0]["status"], "Successfully Installed", "{isos}");
    assert_eq!(
        isos["iso"][0]["checksum"], s.sha256,
        "no {{SHA-256}} prefix: {isos}"
    );
    assert_eq!(
        isos["iso"][0]["downloaddetails"][0]["downloadState"], "DOWNLOADED",
        "{isos}"
    );

    let deleted = cs_ok(
        &s,
        &["deleteKubernetesSupportedVersion", &format!("id={id}")],
    );
    assert_eq!(deleted["success"], true, "{deleted}");
    let listed = cs_ok(&s, &["listKubernetesSupportedVersions"]);
    assert!(
        listed.get("kubernetessupportedversion").is_none(),
        "{listed}"
    );
}

#[test]
fn cs_sees_an_injected_download_failure_and_a_refused_parameter() {
    let s = setup();
    s.cloud
        .fail_next_download("Unable to start download -- check url? ");
    let url = format!("url={}", s.files.url("/cks.iso"));
    let add = |version: &str| {
        cs(
            &s,
            &[
                "addKubernetesSupportedVersion",
                &format!("semanticversion={version}"),
                &url,
                "mincpunumber=2",
                "minmemory=2048",
            ],
        )
    };
    let added = add("1.33.13");
    assert!(added.status.success(), "{}", text(&added));
    let added: Value = serde_json::from_slice(&added.stdout).expect("JSON");
    let iso = added["kubernetessupportedversion"]["isoid"]
        .as_str()
        .expect("isoid")
        .to_string();
    eventually("the download failing", || {
        let isos = cs_ok(&s, &["listIsos", &format!("id={iso}"), "isofilter=all"]);
        isos["iso"][0]["downloaddetails"][0]["downloadState"] == "DOWNLOAD_ERROR"
    });
    // The shape our client reads: the downloader's text exactly, the store's state beside it.
    let isos = cs_ok(&s, &["listIsos", &format!("id={iso}"), "isofilter=all"]);
    assert_eq!(
        isos["iso"][0]["status"], "Unable to start download -- check url? ",
        "{isos}"
    );
    assert_eq!(isos["iso"][0]["isready"], false, "{isos}");
    let listed = cs_ok(&s, &["listKubernetesSupportedVersions"]);
    assert_eq!(
        listed["kubernetessupportedversion"][0]["isostate"],
        "Allocated"
    );

    let refused = add("1.33");
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("MAJOR.MINOR.PATCH"),
        "{}",
        text(&refused)
    );
}
