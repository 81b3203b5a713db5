//! The config file's keys are the flags' names: README's complete `cks.toml` is read by the real
//! config reader and sets every input, each of its keys is a flag of `cks-iso build`, and the
//! older key names are still read with a warning naming the new one.

use std::collections::BTreeSet;
use std::process::Command;

use cks_builder::pipeline::Inputs;

/// The TOML block README marks `<!-- cks.toml -->`.
fn readme_config() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let after = readme
        .split("<!-- cks.toml -->")
        .nth(1)
        .expect("README marks its cks.toml");
    let body = after
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a toml block");
    body.to_string()
}

/// Paths in `value` that hold nothing (null, an empty list or table).
fn unset(value: &serde_json::Value, at: &str, found: &mut Vec<String>) {
    match value {
        serde_json::Value::Null => found.push(at.to_string()),
        serde_json::Value::Array(items) if items.is_empty() => found.push(at.to_string()),
        serde_json::Value::Object(map) if map.is_empty() => found.push(at.to_string()),
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                unset(inner, &format!("{at}.{key}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn the_readme_config_sets_every_input_with_the_flags_names() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("cks.toml");
    let text = readme_config();
    std::fs::write(&path, &text).expect("writes");
    let (inputs, warnings) = Inputs::read_config(&path).expect("README's cks.toml reads");
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut found = Vec::new();
    unset(
        &serde_json::to_value(&inputs).expect("JSON"),
        "",
        &mut found,
    );
    assert!(found.is_empty(), "README's cks.toml leaves out {found:?}");

    let flags: BTreeSet<String> = cks_builder::cli::command()
        .find_subcommand("build")
        .expect("build")
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    let table: toml::Table = toml::from_str(&text).expect("TOML");
    // No flag: SOURCE_DATE_EPOCH is an environment variable; [signatures] is a table of
    // policies (its `mode` and `trusted-root` are --signatures and --trusted-root).
    for key in table.keys() {
        if key == "source-date-epoch" || key == "signatures" {
            continue;
        }
        assert!(
            flags.contains(key),
            "config key `{key}` is no flag of build"
        );
    }
}

#[test]
fn old_keys_are_read_with_a_warning_naming_the_new_key() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("cks.toml");
    std::fs::write(
        &path,
        "headlamp-version = \"0.40.1\"\nmirrors = [\"https://dl.k8s.io=http://m/k8s\"]\n\
         registry-mirrors = [\"registry.k8s.io=http://m:5000\"]\n\
         insecure-registries = [\"m:5000\"]\n[limits]\nmanifest = \"16MiB\"\n",
    )
    .expect("writes");
    let (inputs, warnings) = Inputs::read_config(&path).expect("old keys read");
    assert_eq!(inputs.headlamp_version.as_deref(), Some("0.40.1"));
    assert_eq!(inputs.mirrors.len(), 1);
    assert_eq!(inputs.registry_mirrors.len(), 1);
    assert_eq!(inputs.insecure_registries.len(), 1);
    assert_eq!(inputs.limits.len(), 1);
    assert_eq!(warnings.len(), 5, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("`headlamp-version` is now `headlamp`")),
        "{warnings:?}"
    );

    // Through the binary: the warning on stderr, before the build stops for want of inputs.
    let output = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(["build", "--dry-run", "--config"])
        .arg(&path)
        .env("CI", "true")
        .output()
        .expect("cks-iso runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cks-iso: warning: config file")
            && stderr.contains("`mirrors` is now `mirror`"),
        "{stderr}"
    );

    std::fs::write(&path, "mirror = []\nmirrors = []\n").expect("writes");
    let error = Inputs::read_config(&path).expect_err("both names");
    assert!(error.to_string().contains("keep `mirror`"), "{error}");
}
