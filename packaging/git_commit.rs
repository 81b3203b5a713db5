// The build script of each binary crate (included from its build.rs): sets CKS_GIT_COMMIT to
// the commit the tree was built from (`git rev-parse --short=12 HEAD`), or `unknown` outside a
// git checkout (a source tarball, `cargo install` from a copy), for `--version`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
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
