//! The outcome of registering one ISO: added now or there already, and what CloudStack holds.

use serde::Serialize;

use super::iso_facts::IsoFacts;

/// Whether the version was added now or was there already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Added by this run.
    Registered,
    /// Registered before with the same checksum; nothing done.
    AlreadyRegistered,
}

/// The outcome of `register`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Registration {
    /// Added now or there already.
    pub status: Status,
    /// The version's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its semantic version.
    pub semantic_version: String,
    /// The ISO's id in CloudStack.
    pub iso_id: String,
    /// The ISO's state when `register` finished.
    pub iso_state: String,
    /// The checksum registered.
    pub checksum: String,
    /// The URL registered.
    pub url: String,
    /// The id of the version deleted to make room, with `--replace`.
    pub replaced: Option<String>,
    /// What was read from the ISO.
    pub iso: IsoFacts,
}
