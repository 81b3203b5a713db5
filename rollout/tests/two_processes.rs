//! Two OS processes racing: this test binary run again as the children `p1` and `p2` of one
//! test, both released by one start signal once both are ready, each printing a
//! `won <id> <owner>` line per win.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const NAME: &str = "CKS_RACER_NAME";
const GO: &str = "CKS_RACER_GO";

/// The name of test `function` of module `module` (its `module_path!()`) inside the one test
/// binary: `<module>::<function>`, without the crate's name.
pub fn test_name(module: &str, function: &str) -> String {
    let module = module.split_once("::").map_or("", |(_, m)| m);
    format!("{module}::{function}")
}

/// In a child: its name (`p1` or `p2`), once it is ready and the start signal was given.
/// `None` in the test itself.
pub fn child() -> Option<String> {
    let (Ok(name), Ok(go)) = (std::env::var(NAME), std::env::var(GO)) else {
        return None;
    };
    std::fs::write(format!("{go}.ready-{name}"), "").expect("ready signal");
    cks_fixtures::process::wait_for_path(Path::new(&go), Duration::from_secs(60))
        .expect("start signal");
    Some(name)
}

/// Runs `test` as the children `p1` and `p2` with `env` set, starts both at once when both are
/// ready, and returns what each printed (each must succeed).
pub fn race(test: &str, env: &[(&str, &OsStr)]) -> Vec<String> {
    let signals = tempfile::tempdir().expect("temp dir");
    let go: PathBuf = signals.path().join("go");
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<_> = ["p1", "p2"]
        .iter()
        .map(|name| {
            let mut command = Command::new(&exe);
            command
                .args([test, "--exact", "--nocapture", "--test-threads=1"])
                .env(NAME, name)
                .env(GO, &go)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (key, value) in env {
                command.env(key, value);
            }
            command.spawn().expect("child starts")
        })
        .collect();
    for name in ["p1", "p2"] {
        let ready = PathBuf::from(format!("{}.ready-{name}", go.display()));
        cks_fixtures::process::wait_for_path(&ready, Duration::from_secs(60)).expect("child ready");
    }
    std::fs::write(&go, "").expect("start signal");
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().expect("child ends");
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "child failed: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            stdout
        })
        .collect()
}

/// Every `won <id> <owner>` line of `printed`: each id with the owners that won it.
pub fn winners(printed: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut winners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in printed.iter().flat_map(|text| text.lines()) {
        // libtest's "test ... " header may share the first line.
        let Some((_, won)) = line.split_once("won ") else {
            continue;
        };
        let mut words = won.split_whitespace();
        if let (Some(id), Some(owner)) = (words.next(), words.next()) {
            winners
                .entry(id.to_string())
                .or_default()
                .push(owner.to_string());
        }
    }
    winners
}
