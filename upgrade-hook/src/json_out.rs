//! The `--json` output of the commands: one pretty JSON value on standard output.

use anyhow::{Context, Result};

/// Prints `value` as pretty JSON on standard output (`--json`).
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("writing the outcome as JSON")?;
    crate::say::out_raw(&text);
    Ok(())
}
