//! The fake's zones and version states as the real Python `cs` client sees them: a second zone
//! listed, a version registered for it (named after it), and disabled then enabled again with
//! `updateKubernetesSupportedVersion`.

use std::process::Command;

use serde_json::Value;

use crate::support::{KEY, SECRET, Setup, setup};

fn cs_ok(s: &Setup, args: &[&str]) -> Value {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    let out = Command::new(program)
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", s.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .output()
        .expect("cs runs");
    assert!(
        out.status.success(),
        "cs {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // `cs` prints nothing for an empty answer.
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout).expect("cs prints JSON")
}

#[test]
fn cs_sees_two_zones_a_version_per_zone_and_its_state_changed() {
    let s = setup();
    s.cloud.add_zone("zone-2", "zone2");
    let zones = cs_ok(&s, &["listZones"]);
    let names: Vec<&str> = zones["zone"]
        .as_array()
        .expect("zones")
        .iter()
        .filter_map(|z| z["name"].as_str())
        .collect();
    assert_eq!(names, ["zone1", "zone2"], "{zones}");

    let added = cs_ok(
        &s,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.33.13",
            &format!("url={}", s.files.url("/cks.iso")),
            "mincpunumber=2",
            "minmemory=2048",
            "zoneid=zone-2",
        ],
    );
    let version = &added["kubernetessupportedversion"];
    assert_eq!(version["name"], "v1.33.13-zone2", "{added}");
    assert_eq!(version["zonename"], "zone2", "{added}");
    let id = version["id"].as_str().expect("id").to_string();
    let in_zone1 = cs_ok(&s, &["listKubernetesSupportedVersions", "zoneid=zone-1"]);
    assert!(
        in_zone1.get("kubernetessupportedversion").is_none(),
        "{in_zone1}"
    );

    let disabled = cs_ok(
        &s,
        &[
            "updateKubernetesSupportedVersion",
            &format!("id={id}"),
            "state=Disabled",
        ],
    );
    assert_eq!(
        disabled["kubernetessupportedversion"]["state"], "Disabled",
        "{disabled}"
    );
    let listed = cs_ok(&s, &["listKubernetesSupportedVersions", "zoneid=zone-2"]);
    assert_eq!(
        listed["kubernetessupportedversion"][0]["state"], "Disabled",
        "{listed}"
    );
    let enabled = cs_ok(
        &s,
        &[
            "updateKubernetesSupportedVersion",
            &format!("id={id}"),
            "state=Enabled",
        ],
    );
    assert_eq!(
        enabled["kubernetessupportedversion"]["state"], "Enabled",
        "{enabled}"
    );

    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    let refused = Command::new(program)
        .args([
            "addKubernetesSupportedVersion",
            "semanticversion=1.33.13",
            "url=http://127.0.0.1:9/x.iso",
            "mincpunumber=2",
            "minmemory=2048",
            "zoneid=zone-9",
        ])
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", s.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .output()
        .expect("cs runs");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stdout).contains("Invalid zone")
            || String::from_utf8_lossy(&refused.stderr).contains("Invalid zone"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
