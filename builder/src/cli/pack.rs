//! `cks-iso pack`.

/// Flags of `cks-iso pack`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `cks-iso pack`.
pub async fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`cks-iso pack` is not available in this build yet")
}
