// The build script of each binary crate (included from its build.rs): sets CKS_GIT_COMMIT to
// the commit the tree was built from (`git rev-parse --short=12 HEAD`), or `unknown` outside a
// git checkout (a source tarball, `cargo install` from a copy), for `--version`, the SBOM and
// the ISO's recipe. A CKS_GIT_COMMIT in the build's environment wins: a packager building from
// a source tarball names the commit it packaged, and two builds stamped alike (say one commit
// and the one before it) can be compared byte for byte.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The stamp given in the build's environment, when there is one; a stamp that is not 1 to 40
/// letters, digits, `.`, `_` or `-` stops the build, naming it.
fn given() -> Option<String> {
    let given = std::env::var("CKS_GIT_COMMIT").ok()?;
    let sound = (1..=40).contains(&given.len())
        && given
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    assert!(
        sound,
        "CKS_GIT_COMMIT={given:?} in the build's environment: expected a commit (1 to 40 letters, \
         digits, '.', '_' or '-'); unset it to stamp the checkout's own commit"
    );
    Some(given)
}

fn main() {
    println!("cargo:rerun-if-env-changed=CKS_GIT_COMMIT");
    let commit = given()
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=CKS_GIT_COMMIT={commit}");
    // Build again when HEAD moves: HEAD itself, the branch it points at, and packed refs.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for path in watched {
        if let Some(file) = git(&["rev-parse", "--git-path", &path]) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    println!("cargo:rerun-if-env-changed=GIT_DIR");
}
