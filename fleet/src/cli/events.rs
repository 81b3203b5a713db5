//! Where a worker's events go: the terminal (one line each, on stderr), `--events FILE` (one
//! JSON line each, appended and flushed) and `--webhook URL` (the same line POSTed, from a
//! thread of its own, as the rollout's webhook).

use std::io::Write;

use serde::Serialize;

use cks_rollout::events::webhook::Webhook;

use crate::worker::{FleetEvent, FleetProgress, SCHEMA};

/// One line of the fleet's event stream.
#[derive(Debug, Serialize)]
pub struct FleetEventLine<'e> {
    /// The schema's version.
    pub schema: u32,
    /// Always `fleet`, telling these lines from a cluster's rollout lines in one stream.
    pub kind: &'static str,
    /// The fleet.
    pub fleet: &'e str,
    /// Wall-clock time, RFC 3339 UTC.
    pub time: String,
    /// The event.
    #[serde(flatten)]
    pub event: &'e FleetEvent,
}

/// The terminal, the file and the webhook.
pub struct Sinks {
    /// The fleet.
    pub fleet: String,
    /// The events file.
    pub file: Option<(std::path::PathBuf, std::fs::File)>,
    /// The webhook.
    pub webhook: Option<Webhook>,
    /// The first error writing the file.
    pub error: Option<String>,
    /// Print each event on stderr.
    pub print: bool,
}

impl FleetProgress for Sinks {
    fn on_event(&mut self, event: &FleetEvent) {
        if self.print {
            let what = [event.stage.as_deref(), event.cluster.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!(
                "{} {:?} {what}: {}",
                event.worker,
                event.step,
                cks_pinning::terminal::one_line(&event.detail)
            );
        }
        let line = FleetEventLine {
            schema: SCHEMA,
            kind: "fleet",
            fleet: &self.fleet,
            time: jiff::Timestamp::now().to_string(),
            event,
        };
        let Ok(mut text) = serde_json::to_string(&line) else {
            return;
        };
        if let Some(hook) = &mut self.webhook {
            hook.send_line(text.clone());
        }
        if let (Some((path, file)), None) = (&mut self.file, &self.error) {
            text.push('\n');
            if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                self.error = Some(format!("writing events to {}: {e}", path.display()));
            }
        }
    }
}
