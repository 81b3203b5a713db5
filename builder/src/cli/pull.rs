//! `cks-iso pull`.

/// Flags of `cks-iso pull`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `cks-iso pull`.
pub async fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`cks-iso pull` is not available in this build yet")
}
