//! Credentials from docker credential helpers (`credsStore`, `credHelpers`): Debian's real
//! `docker-credential-pass` over a real `pass` store, in front of the real registry behind
//! htpasswd basic auth, driven through `cks-iso pull` as a CI job would.

use std::path::Path;
use std::process::{Command, Output};

use crate::pull_common::{self, ORIGIN, Pushed, pushed};
use cks_fixtures::pass_store::PassStore;
use cks_fixtures::registry::{Auth, PASSWORD, USER};

fn pull(set: &Pushed, config: &Path, out: &Path, env: &[(&str, &Path)]) -> Output {
    let host = set.registry.host();
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args([
            "pull",
            "--registry-mirror",
            &format!("{ORIGIN}=http://{host}"),
        ])
        .args(["--insecure-registry", &host, "--docker-config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .arg(set.reference("multi"))
        .envs(env.iter().copied())
        .output()
        .expect("run cks-iso")
}

fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn credentials_come_from_the_real_docker_credential_pass() {
    let set = pushed(Auth::Basic, &["multi"]);
    let pass = PassStore::new().expect("a pass store (scripts/test installs pass)");
    let config = set.out("config.json");
    std::fs::write(&config, r#"{"auths":{},"credsStore":"pass"}"#).expect("config");

    // The store knows nothing of this registry yet: the helper's empty answer means anonymous,
    // and the registry's 401 says no credentials were given.
    let first = pull(&set, &config, &set.out("anonymous"), &pass.env());
    let (_, stderr) = texts(&first);
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("401 Unauthorized") && stderr.contains("no credentials"),
        "{stderr}"
    );

    pass.store_docker_credentials(&set.registry.host(), USER, PASSWORD)
        .expect("docker-credential-pass store");
    let out = set.out("store");
    let second = pull(&set, &config, &out, &pass.env());
    let (stdout, stderr) = texts(&second);
    assert_eq!(second.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("{}@{}", set.reference("multi"), set.images.multi.digest)
    );
    assert!(!stdout.contains(PASSWORD) && !stderr.contains(PASSWORD));
    assert_eq!(pull_common::files_in(&out).len(), 1, "one tarball");

    // The same helper named for this registry alone, beside an `auths` entry it overrides.
    std::fs::write(
        &config,
        format!(
            r#"{{"auths":{{"{host}":{{"username":"{USER}","password":"wrong"}}}},"credHelpers":{{"{host}":"pass"}}}}"#,
            host = set.registry.host()
        ),
    )
    .expect("config");
    let third = pull(&set, &config, &set.out("per-registry"), &pass.env());
    assert_eq!(third.status.code(), Some(0), "{}", texts(&third).1);
}

#[test]
fn a_helper_that_is_not_installed_is_named_and_nothing_is_written() {
    let set = pushed(Auth::Basic, &["multi"]);
    let config = set.out("config.json");
    std::fs::write(&config, r#"{"credsStore":"cks-no-such-helper"}"#).expect("config");
    let out = set.out("out");
    let output = pull(&set, &config, &out, &[]);
    let (_, stderr) = texts(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("docker-credential-cks-no-such-helper")
            && stderr.contains("not installed")
            && stderr.contains("credsStore"),
        "{stderr}"
    );
    assert!(pull_common::files_in(&out).is_empty());
}

#[test]
fn a_helper_name_that_is_not_a_program_name_is_refused() {
    let set = pushed(Auth::None, &["multi"]);
    let config = set.out("config.json");
    std::fs::write(&config, r#"{"credHelpers":{"h:1":"../../bin/sh"}}"#).expect("config");
    let output = pull(&set, &config, &set.out("out"), &[]);
    let (_, stderr) = texts(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("config.json") && stderr.contains("`../../bin/sh`"),
        "{stderr}"
    );
}
