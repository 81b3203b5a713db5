//! Running the real Python `cs` client against the CloudStack API fake: one signed call with a
//! throwaway `HOME` (so no `~/.cloudstack.ini` is read), its JSON, and its combined output.

#![allow(dead_code)]

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `cs ARGS` against `endpoint` signed with `key`/`secret`, polling async jobs quickly.
pub fn cs(endpoint: &str, key: &str, secret: &str, args: &[&str]) -> Output {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    Command::new(program)
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", endpoint)
        .env("CLOUDSTACK_KEY", key)
        .env("CLOUDSTACK_SECRET", secret)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .output()
        .expect("cs runs")
}

/// The JSON a successful `cs` call printed; fails the test with its output otherwise.
pub fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "cs failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cs prints JSON")
}

/// Everything `cs` printed, stdout then stderr.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
