//! `cks-iso resolve`.

/// Flags of `cks-iso resolve`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `cks-iso resolve`.
pub async fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`cks-iso resolve` is not available in this build yet")
}
