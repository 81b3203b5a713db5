//! The event sinks a `run` asks for (`--events`, `--webhook`), beside the step printer.

use anyhow::{Context, Result};
use cks_rollout::engine::Progress;
use cks_rollout::events::Tee;
use cks_rollout::events::file::EventsFile;
use cks_rollout::events::webhook::Webhook;

use super::args::RunArgs;

/// The events file and webhook of one run.
pub struct Sinks {
    file: Option<EventsFile>,
    webhook: Option<Webhook>,
}

impl Sinks {
    /// Opens the file and starts the webhook `args` name, for `cluster`.
    pub fn open(args: &RunArgs, cluster: &str) -> Result<Self> {
        let file = match &args.events {
            Some(path) => Some(EventsFile::open(path, cluster).with_context(|| {
                format!(
                    "--events {}: cannot open it for appending; give a writable file",
                    path.display()
                )
            })?),
            None => None,
        };
        let webhook = match &args.webhook {
            Some(url) => Some(Webhook::start(url, cluster)?),
            None => None,
        };
        Ok(Sinks { file, webhook })
    }

    /// `printer` and these sinks, as one receiver.
    pub fn tee<'p>(&'p mut self, printer: &'p mut dyn Progress) -> Tee<'p> {
        let mut to: Vec<&mut dyn Progress> = vec![printer];
        if let Some(f) = self.file.as_mut() {
            to.push(f);
        }
        if let Some(w) = self.webhook.as_mut() {
            to.push(w);
        }
        Tee { to }
    }

    /// Waits for the webhook's last events and prints one warning per sink that failed.
    pub fn finish(self) {
        if let Some(e) = self.file.and_then(|f| f.error) {
            super::render::warn(&format!("warning: {e}"));
        }
        if let Some(w) = self.webhook.and_then(Webhook::finish) {
            super::render::warn(&format!("warning: {w}"));
        }
    }
}
