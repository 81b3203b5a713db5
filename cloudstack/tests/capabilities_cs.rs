//! `listCapabilities`: the fake reports the version a test sets, as the real Python `cs` client
//! reads it, and [`CloudStackClient::capabilities`] reads the same answer into its type.

use std::process::Command;

use cks_cloudstack::{CloudStackClient, CloudStackConfig};
use serde_json::Value;

use crate::support::{KEY, SECRET, setup};

fn cs_capabilities(endpoint: &str) -> Value {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    let out = Command::new(program)
        .arg("listCapabilities")
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", endpoint)
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .output()
        .expect("cs runs");
    assert!(
        out.status.success(),
        "cs listCapabilities failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cs prints JSON")
}

fn client(endpoint: &str) -> CloudStackClient {
    let config = CloudStackConfig::from_lookup(|name| match name {
        "CLOUDSTACK_ENDPOINT" => Some(endpoint.to_string()),
        "CLOUDSTACK_KEY" => Some(KEY.to_string()),
        "CLOUDSTACK_SECRET" => Some(SECRET.to_string()),
        _ => None,
    })
    .expect("config");
    CloudStackClient::new(config).expect("client")
}

#[test]
fn the_fake_reports_the_version_set_as_cs_and_our_client_read_it() {
    let s = setup();
    for version in ["4.22.0.0", "4.23.0.0-SNAPSHOT", "4.20.2.0"] {
        s.cloud.set_cloudstack_version(version);
        let answer = cs_capabilities(&s.api.endpoint());
        assert_eq!(
            answer["capability"]["cloudstackversion"], version,
            "{answer}"
        );
        assert_eq!(answer["capability"]["kubernetesserviceenabled"], true);
        let read = client(&s.api.endpoint())
            .capabilities()
            .expect("capabilities");
        assert_eq!(read.cloudstack_version, version);
        assert!(read.kubernetes_service_enabled);
    }
}
