//! `--events FILE`: each event appended as one JSON line and flushed, so a reader following
//! the file sees each step as it happens.

use super::EventLine;
use crate::engine::{Event, Progress};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Appends event lines to a file.
pub struct EventsFile {
    path: PathBuf,
    file: File,
    cluster: String,
    /// The first write error (reported once at the end; the rollout goes on).
    pub error: Option<String>,
}

impl EventsFile {
    /// Opens `path` for appending (created if missing).
    pub fn open(path: &Path, cluster: &str) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(EventsFile {
            path: path.to_path_buf(),
            file,
            cluster: cluster.to_string(),
            error: None,
        })
    }
}

impl Progress for EventsFile {
    fn on_event(&mut self, event: &Event) {
        if self.error.is_some() {
            return;
        }
        let line = EventLine::new(&self.cluster, event);
        let written = serde_json::to_string(&line)
            .map_err(std::io::Error::other)
            .and_then(|mut text| {
                text.push('\n');
                self.file.write_all(text.as_bytes())?;
                self.file.flush()
            });
        if let Err(e) = written {
            self.error = Some(format!("writing events to {}: {e}", self.path.display()));
        }
    }
}
