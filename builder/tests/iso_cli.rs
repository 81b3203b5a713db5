//! `cks-iso pack`: prints size and sha256, writes the sidecar `sha256sum -c` accepts, renames the
//! partial file into place, and refuses bad input with a clear error and nothing left behind.

use crate::iso_support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::iso_support::{Workspace, pack_cli, sha256_file};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Files in the workspace other than the tree.
fn leftovers(ws: &Workspace) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(ws.dir.path())
        .expect("list workspace")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "tree")
        .collect();
    names.sort();
    names
}

#[test]
fn pack_prints_size_and_sha256_and_writes_a_sha256sum_sidecar() {
    let ws = Workspace::with_sample();
    let out = ws.path("cks-1.33.13-x86_64.iso");
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        Some("1700000000"),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let sha = sha256_file(&out);
    let size = fs::metadata(&out).expect("image").len();
    assert!(stdout.contains(&format!("sha256: {sha}")), "{stdout}");
    assert!(stdout.contains(&format!("size: {size} bytes")), "{stdout}");
    assert_eq!(size % 2048, 0);
    assert_eq!(
        fs::read_to_string(ws.path("cks-1.33.13-x86_64.iso.sha256")).expect("sidecar"),
        format!("{sha}  cks-1.33.13-x86_64.iso\n")
    );
    let check = Command::new("sha256sum")
        .args(["-c", "cks-1.33.13-x86_64.iso.sha256"])
        .current_dir(ws.dir.path())
        .output()
        .expect("sha256sum");
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(
        leftovers(&ws),
        ["cks-1.33.13-x86_64.iso", "cks-1.33.13-x86_64.iso.sha256"]
    );
    let stderr = stderr(&output);
    assert!(
        stderr.contains("the Joliet name is cut to 64 characters"),
        "{stderr}"
    );
}

#[test]
fn without_source_date_epoch_the_start_time_is_used_and_reported() {
    let ws = Workspace::with_sample();
    let out = ws.path("now.iso");
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    let dated: u64 = text
        .split("entries are dated ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("start time reported: {text}"));
    assert!(
        dated >= before && dated <= before + 600,
        "{dated} vs {before}"
    );
}

#[test]
fn a_stale_partial_file_is_replaced_and_none_is_left_after_success() {
    let ws = Workspace::with_sample();
    let out = ws.path("cks.iso");
    fs::write(ws.path("cks.iso.partial"), b"left by a killed run").expect("stale partial");
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        Some("1"),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(leftovers(&ws), ["cks.iso", "cks.iso.sha256"]);
}

#[test]
fn a_missing_input_directory_is_named_and_nothing_is_written() {
    let ws = Workspace::with_sample();
    let missing = ws.path("no-such-tree");
    let out = ws.path("cks.iso");
    let output = pack_cli(
        &[&missing.display().to_string(), &out.display().to_string()],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.contains(&missing.display().to_string()), "{text}");
    assert!(text.contains("give an existing directory"), "{text}");
    assert!(leftovers(&ws).is_empty(), "{:?}", leftovers(&ws));
}

#[test]
fn an_unwritable_output_is_named_and_nothing_is_written() {
    let ws = Workspace::with_sample();
    let out = ws.path("no-such-dir/cks.iso");
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.contains("no-such-dir"), "{text}");
    assert!(text.contains("create it first"), "{text}");

    // A directory given as the output.
    fs::create_dir(ws.path("a-dir")).expect("mkdir");
    let output = pack_cli(
        &[
            &ws.tree().display().to_string(),
            &ws.path("a-dir").display().to_string(),
        ],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("expected a file path"),
        "{}",
        stderr(&output)
    );

    // A read-only output directory (checked through a file that cannot be created: a path
    // whose parent is a regular file).
    fs::write(ws.path("plain-file"), b"").expect("file");
    let output = pack_cli(
        &[
            &ws.tree().display().to_string(),
            &ws.path("plain-file/cks.iso").display().to_string(),
        ],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("plain-file"),
        "{}",
        stderr(&output)
    );
    assert_eq!(leftovers(&ws), ["a-dir", "plain-file"]);
    assert!(
        fs::read_dir(ws.path("a-dir"))
            .expect("list")
            .next()
            .is_none()
    );
}

#[test]
fn an_output_inside_the_tree_is_refused() {
    let ws = Workspace::with_sample();
    let out = ws.tree().join("self.iso");
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("inside the directory being packed"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
}

#[test]
fn a_fifo_in_the_tree_fails_after_the_partial_file_was_created_and_leaves_nothing() {
    let ws = Workspace::with_sample();
    let fifo = ws.tree().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let out = ws.path("cks.iso");
    let output = pack_cli(
        &[&ws.tree().display().to_string(), &out.display().to_string()],
        Some("1"),
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.contains("/pipe") && text.contains("FIFO"), "{text}");
    assert!(leftovers(&ws).is_empty(), "{:?}", leftovers(&ws));
}

#[test]
fn bad_volume_ids_and_epochs_are_one_clear_error() {
    let ws = Workspace::with_sample();
    let tree = ws.tree().display().to_string();
    let out = ws.path("cks.iso").display().to_string();
    let output = pack_cli(&["--volume-id", "cks-1.33", &tree, &out], Some("1"));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("\"cks-1.33\""),
        "{}",
        stderr(&output)
    );
    let output = pack_cli(&[&tree, &out], Some("yesterday"));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("SOURCE_DATE_EPOCH is \"yesterday\""),
        "{}",
        stderr(&output)
    );
    assert!(leftovers(&ws).is_empty());
    // Keep the tree's permissions untouched by the checks above.
    let mode = fs::metadata(ws.tree().join("binaries/1.33.13/kubeadm"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn ctrl_c_during_the_write_removes_the_partial_file() {
    let ws = Workspace::with_sample();
    let big = fs::File::create(ws.tree().join("sparse.tar")).expect("create");
    big.set_len(3 << 30).expect("sparse 3 GiB");
    let out = ws.path("cks.iso");
    let partial = ws.path("cks.iso.partial");
    let mut child = iso_support::cks_iso()
        .args([
            "pack",
            &ws.tree().display().to_string(),
            &out.display().to_string(),
        ])
        .env("SOURCE_DATE_EPOCH", "1")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start pack");
    let ready = cks_fixtures::process::wait_for_path(&partial, std::time::Duration::from_secs(30));
    if ready.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    ready.expect("partial appears");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("interrupted"),
        "{}",
        stderr(&output)
    );
    assert!(leftovers(&ws).is_empty(), "{:?}", leftovers(&ws));
}
