//! `cks-iso release` against the demo upstream: the newest minor (counted from
//! `release/stable.txt`) for two arches in one run, a table of what was built, and a second run
//! over the same output that builds nothing and says so. An ISO in the folder that was damaged
//! or built from other inputs is rebuilt, the row says why, and only the rebuilt ISO is signed.

use std::path::Path;
use std::process::Output;

use cks_fixtures::demo::run::{build_args, release_args};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

/// `cks-iso release` with the demo's build flags (no version, name or arch) and `extra`.
fn release(upstream: &DemoUpstream, out: &Path, extra: &[&str]) -> Output {
    release_at(upstream, out, "1700000000", extra)
}

/// [`release`] with `SOURCE_DATE_EPOCH` set to `epoch`.
fn release_at(upstream: &DemoUpstream, out: &Path, epoch: &str, extra: &[&str]) -> Output {
    std::process::Command::new(CKS_ISO)
        .args(release_args(upstream, out, &[]))
        .args(extra)
        .env("SOURCE_DATE_EPOCH", epoch)
        .output()
        .expect("cks-iso runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_release_builds_each_arch_once_and_a_second_run_builds_nothing() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let keys = tempfile::tempdir().expect("key dir");
    let prefix = keys.path().join("release");
    let keygen = std::process::Command::new(CKS_ISO)
        .args(["keygen", "--out"])
        .arg(&prefix)
        .output()
        .expect("cks-iso keygen runs");
    assert!(keygen.status.success(), "{}", text(&keygen.stderr));
    let key = keys.path().join("release.key");
    let first = release(
        &upstream,
        out.path(),
        &[
            "--minors",
            "1",
            "--arch",
            "x86_64,aarch64",
            "--base-url",
            "https://images.example/cks/",
            "--sign-key",
            key.to_str().expect("UTF-8 path"),
        ],
    );
    let stdout = text(&first.stdout);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        stdout.starts_with("minor   version    arch     result"),
        "{stdout}"
    );
    for arch in ["x86_64", "aarch64"] {
        assert!(out.path().join(format!("cks-1.33.13-{arch}.iso")).exists());
        let row = stdout
            .lines()
            .find(|l| l.contains(arch))
            .unwrap_or_else(|| panic!("no row for {arch}: {stdout}"));
        assert!(
            row.starts_with("1.33    1.33.13") && row.contains("built"),
            "{row}"
        );
    }
    assert_eq!(
        upstream
            .file_server()
            .requests("/dl.k8s.io/release/stable.txt"),
        1
    );
    // The catalog of the folder, signed, with a checksum file for the minor.
    let catalog: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.path().join("catalog.json")).expect("catalog.json"),
    )
    .expect("catalog.json is JSON");
    let isos = catalog["isos"].as_array().expect("isos");
    assert_eq!(isos.len(), 2, "{catalog}");
    for iso in isos {
        let file = iso["file"].as_str().expect("file");
        assert_eq!(
            iso["url"].as_str(),
            Some(format!("https://images.example/cks/{file}").as_str())
        );
        assert!(out.path().join(format!("{file}.sig")).is_file(), "{file}");
    }
    assert!(out.path().join("catalog.json.sig").is_file());
    assert!(out.path().join("SHA256SUMS-1.33").is_file());
    assert!(stdout.contains("catalog: "), "{stdout}");

    let second = release(
        &upstream,
        out.path(),
        &["--minors", "1.33", "--arch", "x86_64", "--arch", "aarch64"],
    );
    let stdout = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert_eq!(stdout.matches("skipped").count(), 2, "{stdout}");
    assert!(!stdout.contains("built "), "{stdout}");
    assert!(
        stdout.contains("nothing to build: every ISO is already in"),
        "{stdout}"
    );
}

#[test]
fn a_release_refuses_a_version_and_a_bad_minor_list() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    // Release has no such flag: clap refuses it, as any unknown flag.
    let versioned = release(&upstream, out.path(), &["--kubernetes-version", "1.33"]);
    assert_eq!(versioned.status.code(), Some(2));
    assert!(
        text(&versioned.stderr).contains("--kubernetes-version"),
        "{}",
        text(&versioned.stderr)
    );
    let bad = release(&upstream, out.path(), &["--minors", "1.33.1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("is not a minor"),
        "{}",
        text(&bad.stderr)
    );
    assert_eq!(std::fs::read_dir(out.path()).expect("out").count(), 0);
}

#[test]
fn a_matrix_names_each_minors_arches_and_etcd_and_a_cache_answers_a_new_folder() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let matrix = work.path().join("release.toml");
    std::fs::write(
        &matrix,
        "[[release]]\nminor = \"1.33\"\narch = [\"aarch64\"]\netcd-version = \"kubeadm\"\n",
    )
    .expect("write the matrix");
    let cache = work.path().join("cache");
    let (first_out, second_out) = (work.path().join("a"), work.path().join("b"));
    let run = |out: &Path| {
        release(
            &upstream,
            out,
            &[
                "--matrix",
                matrix.to_str().expect("UTF-8 path"),
                "--arch",
                "x86_64",
                "--cache-dir",
                cache.to_str().expect("UTF-8 path"),
            ],
        )
    };
    let first = run(&first_out);
    let (stdout, stderr) = (text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "{stderr}");
    // The matrix's arch beats --arch; its etcd is the one kubeadm names.
    assert!(first_out.join("cks-1.33.13-aarch64.iso").is_file());
    assert!(!first_out.join("cks-1.33.13-x86_64.iso").exists());
    assert!(
        stderr.contains("etcd: 3.5.21 (the etcd kubeadm v1.33.13 names in `config images list`)"),
        "{stderr}"
    );
    let row = stdout
        .lines()
        .find(|l| l.contains("aarch64"))
        .unwrap_or_else(|| panic!("no aarch64 row: {stdout}"));
    assert!(row.contains("built"), "{row}");
    let mut versions = Vec::new();
    cks_builder::iso::IsoImage::open(&first_out.join("cks-1.33.13-aarch64.iso"))
        .expect("the ISO opens")
        .copy_file("versions.txt", &mut versions)
        .expect("versions.txt");
    assert!(
        text(&versions).contains("\netcd: 3.5.21\n"),
        "{}",
        text(&versions)
    );

    // Another folder, the same cache: the ISO comes from the cache, checked, not packed again.
    let second = run(&second_out);
    let stdout = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let row = stdout
        .lines()
        .find(|l| l.contains("aarch64"))
        .unwrap_or_else(|| panic!("no aarch64 row: {stdout}"));
    assert!(row.contains("cached"), "{row}");
    assert!(
        stdout.contains("nothing to build: every ISO is already in")
            && stdout.contains("or a cache"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(second_out.join("cks-1.33.13-aarch64.iso")).expect("second ISO"),
        std::fs::read(first_out.join("cks-1.33.13-aarch64.iso")).expect("first ISO")
    );
}

#[test]
fn a_matrix_with_an_unknown_key_is_refused_before_anything_is_built() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let matrix = work.path().join("release.toml");
    std::fs::write(
        &matrix,
        "[[release]]\nminor = \"1.33\"\nkubernetes = \"1.33.1\"\n",
    )
    .expect("write the matrix");
    let out = work.path().join("out");
    let refused = release(
        &upstream,
        &out,
        &["--matrix", matrix.to_str().expect("UTF-8 path")],
    );
    let stderr = text(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("release.toml"), "{stderr}");
    assert!(stderr.contains("unknown field `kubernetes`"), "{stderr}");
    assert!(!out.exists() || std::fs::read_dir(&out).expect("out").count() == 0);
    assert_eq!(
        upstream
            .file_server()
            .requests("/dl.k8s.io/release/stable-1.33.txt"),
        0
    );
    let both = release(
        &upstream,
        &out,
        &[
            "--matrix",
            matrix.to_str().expect("UTF-8 path"),
            "--minors",
            "2",
        ],
    );
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));
}

#[test]
fn build_takes_one_arch() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = build_args(&upstream, out.path(), Arch::Amd64);
    args.extend(["--arch", "aarch64", "--dry-run"].map(String::from));
    let two = std::process::Command::new(CKS_ISO)
        .args(&args)
        .output()
        .expect("cks-iso runs");
    assert!(!two.status.success());
    assert!(
        text(&two.stderr)
            .contains("cks-iso build makes one ISO, for one --arch (given x86_64, aarch64)"),
        "{}",
        text(&two.stderr)
    );
}

/// The row of `arch` in a release's table.
fn row_of<'a>(stdout: &'a str, arch: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.contains(arch))
        .unwrap_or_else(|| panic!("no row for {arch}: {stdout}"))
}

#[test]
fn a_damaged_iso_or_one_built_from_other_inputs_is_rebuilt_and_only_that_is_signed() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let keys = tempfile::tempdir().expect("key dir");
    let (key, public, _) = crate::catalog_signing::keygen(keys.path());
    let key = key.to_str().expect("UTF-8 path").to_string();
    let flags = ["--minors", "1", "--arch", "x86_64", "--sign-key", &key];
    let first = release(&upstream, out.path(), &flags);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let iso = out.path().join("cks-1.33.13-x86_64.iso");
    let sig = out.path().join("cks-1.33.13-x86_64.iso.sig");
    let built = std::fs::read(&iso).expect("the ISO");

    // 16 bytes overwritten in the middle of the file after the first run.
    let mut damaged = built.clone();
    let middle = damaged.len() / 2;
    damaged[middle..middle + 16].copy_from_slice(&[0x5a; 16]);
    std::fs::write(&iso, &damaged).expect("damage the ISO");
    let second = release(&upstream, out.path(), &flags);
    let stdout = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let row = row_of(&stdout, "x86_64");
    assert!(
        row.contains("rebuilt") && row.contains("rebuilt: its sha256 differs from its sidecar"),
        "{row}"
    );
    assert!(!stdout.contains("nothing to build"), "{stdout}");
    assert_eq!(
        std::fs::read(&iso).expect("the ISO"),
        built,
        "rebuilt as it was"
    );
    let verified = crate::catalog_signing::openssl_verify(&public, &sig, &iso);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let damaged_file = out.path().join("damaged.bin");
    std::fs::write(&damaged_file, &damaged).expect("write");
    let refused = crate::catalog_signing::openssl_verify(&public, &sig, &damaged_file);
    assert!(
        !refused.status.success(),
        "the damaged bytes are not signed"
    );
    std::fs::remove_file(&damaged_file).expect("remove");

    // An ISO of other inputs (another build time) with its own, agreeing sidecar.
    let other = release_at(&upstream, out.path(), "1700000999", &flags);
    let stdout = text(&other.stdout);
    assert!(other.status.success(), "{}", text(&other.stderr));
    let row = row_of(&stdout, "x86_64");
    assert!(row.contains("rebuilt: not what this run builds"), "{row}");
    let rebuilt = std::fs::read(&iso).expect("the ISO");
    assert_ne!(rebuilt, built);
    let verified = crate::catalog_signing::openssl_verify(&public, &sig, &iso);
    assert!(verified.status.success());

    // The same inputs again: kept, and said so.
    let again = release_at(&upstream, out.path(), "1700000999", &flags);
    let stdout = text(&again.stdout);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(row_of(&stdout, "x86_64").contains("skipped"), "{stdout}");
    assert_eq!(std::fs::read(&iso).expect("the ISO"), rebuilt);

    // --force rebuilds it all the same.
    let forced = release_at(
        &upstream,
        out.path(),
        "1700000999",
        &[&flags[..], &["--force"]].concat(),
    );
    let stdout = text(&forced.stdout);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert!(
        row_of(&stdout, "x86_64").contains("rebuilt: --force"),
        "{stdout}"
    );
}

#[test]
fn without_source_date_epoch_a_second_run_keeps_the_iso_at_the_time_it_records() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let run = || {
        std::process::Command::new(CKS_ISO)
            .args(release_args(&upstream, out.path(), &[]))
            .args(["--minors", "1", "--arch", "x86_64"])
            .env_remove("SOURCE_DATE_EPOCH")
            .output()
            .expect("cks-iso runs")
    };
    let first = run();
    assert!(first.status.success(), "{}", text(&first.stderr));
    let iso = out.path().join("cks-1.33.13-x86_64.iso");
    let built = std::fs::read(&iso).expect("the ISO");
    let second = run();
    let stdout = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(row_of(&stdout, "x86_64").contains("skipped"), "{stdout}");
    assert_eq!(std::fs::read(&iso).expect("the ISO"), built);
}
