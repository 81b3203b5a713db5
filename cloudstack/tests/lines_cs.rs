//! The fake playing a CloudStack line from CloudStack's own definitions, as the real Python
//! `cs` client and our client see it: a parameter the line does not define is refused with 431
//! (`arch` on 4.20.0's `listVirtualMachines`, taken from 4.20.1 on), 4.20.0's versions carry no
//! `arch`, `updateVMAffinityGroup` answers under `updatevirtualmachineresponse`, and a lowered
//! `default.page.size` refuses a larger `pagesize` while our client still reads every item.

use std::process::{Command, Output};

use cks_cloudstack::{CloudStackClient, CloudStackConfig, Secret};
use cks_fixtures::cloudstack_api::{Line, request_signature};
use serde_json::Value;

use crate::support::{KEY, SECRET, Setup, setup};

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

/// A setup playing `line`, or `None` (said as a skip) without CloudStack's definitions.
fn playing(line: Line) -> Option<Setup> {
    let s = setup();
    s.cloud.play(line);
    if s.cloud.definitions().is_none() {
        cks_fixtures::skip::skip("../shared/upstream/cloudstack-api not found");
        return None;
    }
    Some(s)
}

/// The whole JSON body of a signed GET, keys and all.
fn raw(s: &Setup, params: &[(&str, &str)]) -> (u16, Value) {
    let mut all: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all.push(("apiKey".into(), KEY.into()));
    all.push(("response".into(), "json".into()));
    let signature = request_signature::sign(&all, SECRET);
    all.push(("signature".into(), signature));
    let query: Vec<String> = all
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                request_signature::java_encode(k),
                request_signature::java_encode(v)
            )
        })
        .collect();
    let response = reqwest::blocking::get(format!("{}?{}", s.api.endpoint(), query.join("&")))
        .expect("the fake answers");
    let status = response.status().as_u16();
    (status, response.json().expect("JSON"))
}

#[test]
fn cs_is_refused_a_parameter_the_line_does_not_define() {
    let Some(s) = playing(Line::V4_20_0) else {
        return;
    };
    let refused = cs(&s, &["listVirtualMachines", "arch=x86_64"]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("431")
            && text(&refused)
                .contains("Received unknown parameters for command listVirtualMachines. Unknown parameters : arch"),
        "{}",
        text(&refused)
    );
    assert_eq!(s.cloud.conformance_violations().len(), 1);

    s.cloud.play(Line::V4_20);
    let taken = cs(&s, &["listVirtualMachines", "arch=x86_64"]);
    assert!(taken.status.success(), "{}", text(&taken));
}

#[test]
fn a_4_20_0_version_has_no_arch_and_a_4_20_one_has() {
    let Some(s) = playing(Line::V4_20_0) else {
        return;
    };
    s.cloud.add_ready_kubernetes_version("1.33.13", &s.sha256);
    let (_, listed) = raw(&s, &[("command", "listKubernetesSupportedVersions")]);
    let version =
        &listed["listkubernetessupportedversionsresponse"]["kubernetessupportedversion"][0];
    assert_eq!(version["semanticversion"], "1.33.13", "{listed}");
    assert!(version.get("arch").is_none(), "{listed}");

    s.cloud.play(Line::V4_20);
    let (_, listed) = raw(&s, &[("command", "listKubernetesSupportedVersions")]);
    let version =
        &listed["listkubernetessupportedversionsresponse"]["kubernetessupportedversion"][0];
    assert_eq!(version["arch"], "x86_64", "{listed}");
    assert_eq!(s.cloud.conformance_violations(), Vec::<String>::new());
}

#[test]
fn update_vm_affinity_group_answers_under_updatevirtualmachineresponse() {
    let Some(s) = playing(Line::V4_22) else {
        return;
    };
    let offering = s.cloud.add_service_offering("small", 2, 4096);
    let disk = s.cloud.add_disk_offering("custom", 0);
    let vm = s.cloud.add_vm("k1-node-1", &offering, 20, &disk, &[]);
    let (status, answer) = raw(
        &s,
        &[
            ("command", "updateVMAffinityGroup"),
            ("id", &vm),
            ("affinitygroupids", ""),
        ],
    );
    // The VM is running: refused, but under the command's own key all the same.
    assert_eq!(status, 431, "{answer}");
    assert!(
        answer["updatevirtualmachineresponse"]["errortext"].is_string(),
        "{answer}"
    );
}

#[test]
fn a_lowered_page_size_refuses_a_larger_pagesize_and_our_client_pages_through() {
    let Some(s) = playing(Line::V4_22) else {
        return;
    };
    s.cloud.set_max_page_size(2);
    for patch in 1..=5 {
        s.cloud
            .add_ready_kubernetes_version(&format!("1.33.{patch}"), &s.sha256);
    }
    let refused = cs(&s, &["listKubernetesSupportedVersions", "pagesize=500"]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("Page size can't exceed max allowed page size value: 2"),
        "{}",
        text(&refused)
    );
    let page: Value = serde_json::from_slice(
        &cs(
            &s,
            &["listKubernetesSupportedVersions", "page=3", "pagesize=2"],
        )
        .stdout,
    )
    .expect("JSON");
    assert_eq!(page["count"], 5, "{page}");
    assert_eq!(
        page["kubernetessupportedversion"].as_array().map(Vec::len),
        Some(1),
        "{page}"
    );

    let client = CloudStackClient::new(CloudStackConfig::new(
        s.api.endpoint(),
        Secret::new(KEY),
        Secret::new(SECRET),
    ))
    .expect("client");
    let all = client.list_kubernetes_versions(None).expect("listed");
    let mut versions: Vec<String> = all.into_iter().map(|v| v.semantic_version).collect();
    versions.sort();
    assert_eq!(
        versions,
        ["1.33.1", "1.33.2", "1.33.3", "1.33.4", "1.33.5"],
        "every page read"
    );
    // Ours asked without a page size first, then page 2 and 3 at the server's own.
    let calls = s.cloud.calls();
    assert_eq!(
        calls[2..],
        [
            "listkubernetessupportedversions",
            "listkubernetessupportedversions page=2 pagesize=2",
            "listkubernetessupportedversions page=3 pagesize=2",
        ],
        "{calls:#?}"
    );
}
