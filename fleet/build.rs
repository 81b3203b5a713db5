//! Records the git commit the binary is built from, for `--version`.

include!("../packaging/git_commit.rs");
