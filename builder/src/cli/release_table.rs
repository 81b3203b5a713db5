//! The table `cks-iso release` ends with: one row per minor and arch, what became of its ISO
//! (or, with `--dry-run`, what would), as text or JSON.

use serde::Serialize;

use crate::progress::human;

/// One line of the closing table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `1.33`.
    pub minor: String,
    /// `1.33.13` (empty when the minor's release could not be read).
    pub version: String,
    /// `x86_64` or `aarch64`.
    pub arch: String,
    /// What became of the ISO.
    pub result: IsoResult,
    /// The ISO's size in bytes (0 when none was written or checked).
    pub size: u64,
    /// Seconds spent on it.
    pub seconds: f64,
    /// Why: an ISO in the folder not kept (`rebuilt: its sha256 differs from its sidecar`), a
    /// failure's error, or a dry run's reason.
    pub note: String,
}

/// What became of one ISO of the release (or would, with `--dry-run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IsoResult {
    /// Packed by this run.
    Built,
    /// Packed by this run in place of an ISO in the folder that could not be kept.
    Rebuilt,
    /// Already in the output folder, checked, kept.
    Skipped,
    /// Taken, once checked, from `--cache-dir` or the cache registry.
    Cached,
    /// Its build failed (`--keep-going`).
    Failed,
    /// `--dry-run`: not in the folder, a run would build it (or take it from a cache).
    WouldBuild,
    /// `--dry-run`: in the folder and a run would keep it.
    WouldKeep,
    /// `--dry-run`: in the folder and a run would rebuild it.
    WouldRebuild,
}

impl IsoResult {
    /// The word in the table.
    pub fn word(self) -> &'static str {
        match self {
            IsoResult::Built => "built",
            IsoResult::Rebuilt => "rebuilt",
            IsoResult::Skipped => "skipped",
            IsoResult::Cached => "cached",
            IsoResult::Failed => "failed",
            IsoResult::WouldBuild => "would build",
            IsoResult::WouldKeep => "would keep",
            IsoResult::WouldRebuild => "would rebuild",
        }
    }
}

/// The closing table: minor, version, arch, result, size, time, and why.
pub fn render(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<7} {:<10} {:<8} {:<8} {:>10} {:>8}\n",
        "minor", "version", "arch", "result", "size", "time"
    );
    for row in rows {
        let line = format!(
            "{:<7} {:<10} {:<8} {:<8} {:>10} {:>7.1}s  {}",
            row.minor,
            row.version,
            row.arch,
            row.result.word(),
            human(row.size),
            row.seconds,
            row.note
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The `--dry-run` table: minor, version, arch, what a run would do, and why.
pub fn render_dry(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<7} {:<10} {:<8} {:<13} {}\n",
        "minor", "version", "arch", "would", "why"
    );
    for row in rows {
        let word = row.result.word().trim_start_matches("would ");
        let line = format!(
            "{:<7} {:<10} {:<8} {:<13} {}",
            row.minor, row.version, row.arch, word, row.note
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The table as JSON: `{"rows": [...], "catalog": PATH|null, "failed": N}`.
pub fn json(rows: &[Row], catalog: Option<&std::path::Path>) -> serde_json::Value {
    serde_json::json!({
        "rows": rows,
        "catalog": catalog,
        "failed": rows.iter().filter(|r| r.result == IsoResult::Failed).count(),
    })
}
