//! `cks-iso pull --cache-dir DIR` keeps blobs in DIR/blobs, the folder `cks-iso build
//! --cache-dir DIR` keeps them in; `--blob-cache`, the name the flag had before, still names the
//! blobs folder itself, with a warning.

use std::process::Command;

use crate::pull_common::{ORIGIN, pushed};
use cks_fixtures::registry::Auth;

#[test]
fn cache_dir_keeps_blobs_where_build_does_and_blob_cache_still_works_with_a_warning() {
    let set = pushed(Auth::None, &["multi"]);
    let mirror = format!("{ORIGIN}=http://{}", set.registry.host());
    let pull = |flag: &str, dir: &std::path::Path, out: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_cks-iso"))
            .args(["pull", "--arch", "arm64", "--registry-mirror", &mirror])
            .args(["--insecure-registry", &set.registry.host(), flag])
            .arg(dir)
            .arg("--out")
            .arg(out)
            .arg(set.reference("multi"))
            .output()
            .expect("run cks-iso")
    };
    let cache = set.out("cache");
    let done = pull("--cache-dir", &cache, &set.out("a"));
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let blobs = std::fs::read_dir(cache.join("blobs"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(blobs > 0, "blobs kept in {}/blobs", cache.display());

    let old = set.out("old-blobs");
    let done = pull("--blob-cache", &old, &set.out("b"));
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: --blob-cache") && stderr.contains("--cache-dir DIR"),
        "{stderr}"
    );
    assert!(
        std::fs::read_dir(&old).map(|d| d.count()).unwrap_or(0) > 0,
        "blobs kept in the folder itself"
    );
}
