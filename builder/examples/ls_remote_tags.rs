//! Prints the tags of a git remote as `git ls-remote --tags` does, listed by the builder's own
//! client ([`cks_builder::git`]) with its default limits and timeouts:
//! `cargo run --example ls_remote_tags -- URL`. `bench/git/run` measures its memory against the
//! size of the remote's answer.

use std::io::Write;

use anyhow::Context;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let url = std::env::args()
        .nth(1)
        .context("usage: ls_remote_tags URL (http(s)://, git:// or a local repository)")?;
    let text = cks_builder::git::ls_remote_tags(&url).await?;
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing the tags to stdout")?;
    Ok(())
}
