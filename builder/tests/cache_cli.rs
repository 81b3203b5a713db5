//! `cks-iso cache ls` and `cks-iso cache prune` on the `--cache-dir` of demo builds: entries of
//! every kind with size and last use, a build that takes an entry marks it used, prune removes
//! the unused-too-long and then the least recently used until the rest fits, and never runs
//! while a build holds the folder.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn cache(args: &[&str], dir: &Path) -> Output {
    Command::new(CKS_ISO)
        .arg("cache")
        .args(args)
        .arg("--cache-dir")
        .arg(dir)
        .output()
        .expect("cks-iso runs")
}

/// `cache ls --json`'s entries.
fn entries(dir: &Path) -> Vec<serde_json::Value> {
    let listed = cache(&["ls", "--json"], dir);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let value: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    value["entries"].as_array().expect("entries").clone()
}

/// Sets both times of every file of `entry` to `when`.
fn age(entry: &serde_json::Value, when: SystemTime) {
    for file in entry["files"].as_array().expect("files") {
        let file = std::fs::File::options()
            .write(true)
            .open(file.as_str().expect("path"))
            .expect("open");
        file.set_times(
            std::fs::FileTimes::new()
                .set_accessed(when)
                .set_modified(when),
        )
        .expect("set times");
    }
}

fn build(upstream: &DemoUpstream, out: &Path, cache_dir: &Path) {
    let built = Command::new(CKS_ISO)
        .args(build_args(upstream, out, Arch::Amd64))
        .arg("--cache-dir")
        .arg(cache_dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
}

#[test]
fn ls_lists_every_kind_and_prune_removes_the_old_then_the_least_recently_used() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let cache_dir = work.path().join("cache");
    build(&upstream, &work.path().join("a"), &cache_dir);

    let listed = entries(&cache_dir);
    for kind in ["iso", "tarball", "blob", "file"] {
        assert!(
            listed.iter().any(|e| e["kind"] == kind),
            "no {kind}: {listed:?}"
        );
    }
    assert!(listed.iter().all(|e| e["size"].as_u64() > Some(0)));
    let text_ls = text(&cache(&["ls"], &cache_dir).stdout);
    assert!(text_ls.starts_with("kind"), "{text_ls}");
    assert!(
        text_ls.contains(&format!("{} entries", listed.len())),
        "{text_ls}"
    );

    // Everything made ten days old; a build that takes the ISO from the cache marks it used.
    let ten_days_ago = SystemTime::now() - Duration::from_secs(10 * 86_400);
    for entry in &listed {
        age(entry, ten_days_ago);
    }
    let second = SystemTime::now();
    build(&upstream, &work.path().join("b"), &cache_dir);
    let listed = entries(&cache_dir);
    let iso = listed
        .iter()
        .find(|e| e["kind"] == "iso")
        .expect("the ISO entry")
        .clone();
    let day_ago = SystemTime::now() - Duration::from_secs(86_400);
    let seconds = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs() as i64
    };
    // Marked used by the second build that took it.
    assert!(
        iso["last_use"].as_i64() >= Some(seconds(second) - 1),
        "{iso}"
    );

    // A running build holds the folder: prune removes nothing and says why.
    let held = cks_builder::cache_dir::CacheLock::shared(&cache_dir).expect("lock");
    let busy = cache(&["prune", "--max-age", "7d"], &cache_dir);
    assert_eq!(busy.status.code(), Some(1));
    assert!(
        text(&busy.stderr).contains("is in use by a running cks-iso build"),
        "{}",
        text(&busy.stderr)
    );
    assert_eq!(entries(&cache_dir).len(), listed.len());
    drop(held);

    let by_age = cache(&["prune", "--max-age", "7d", "--json"], &cache_dir);
    assert!(by_age.status.success(), "{}", text(&by_age.stderr));
    let pruned: serde_json::Value = serde_json::from_slice(&by_age.stdout).expect("JSON");
    let removed = pruned["removed"].as_array().expect("removed");
    assert!(!removed.is_empty());
    assert!(
        removed
            .iter()
            .all(|e| e["last_use"].as_i64() < Some(seconds(day_ago)))
    );
    let kept = entries(&cache_dir);
    assert!(
        kept.contains(&iso),
        "the ISO, used today, is kept: {kept:?}"
    );
    assert!(
        kept.iter()
            .all(|e| e["last_use"].as_i64() >= Some(seconds(day_ago)))
    );

    // By size: the least recently used go first, until the rest fits (the others made two
    // hours older than the ISO).
    for entry in kept.iter().filter(|e| **e != iso) {
        age(entry, SystemTime::now() - Duration::from_secs(7200));
    }
    let iso_size = iso["size"].as_u64().expect("size");
    let size = format!("{iso_size}");
    let by_size = cache(&["prune", "--max-size", &size], &cache_dir);
    assert!(by_size.status.success(), "{}", text(&by_size.stderr));
    assert!(
        text(&by_size.stdout).contains("entries removed"),
        "{}",
        text(&by_size.stdout)
    );
    assert_eq!(entries(&cache_dir), [iso]);

    let none = cache(&["prune"], &cache_dir);
    assert_eq!(none.status.code(), Some(2), "a limit is required");
}
