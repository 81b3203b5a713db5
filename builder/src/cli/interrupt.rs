//! Ctrl-C, listened for from the first statement of `main`: from then on SIGINT never kills
//! `cks-iso` mid-step; each command decides what stopping means (a build removes what it wrote).

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Whether Ctrl-C (SIGINT) was pressed; cheap to clone, every clone sees the same press.
#[derive(Debug, Clone)]
pub struct Interrupt(watch::Receiver<bool>);

impl Interrupt {
    /// Starts listening: the process's SIGINT handler is in place when this returns. Call it
    /// inside the runtime, before any work.
    pub fn listen() -> std::io::Result<Interrupt> {
        let mut sigint = signal(SignalKind::interrupt())?;
        let (pressed, seen) = watch::channel(false);
        tokio::spawn(async move {
            if sigint.recv().await.is_some() {
                let _ = pressed.send(true);
            }
            // Kept alive, so the receivers never see a closed channel as a press.
            std::future::pending::<()>().await;
        });
        Ok(Interrupt(seen))
    }

    /// Whether Ctrl-C was pressed already.
    pub fn pressed(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once Ctrl-C is pressed (at once when it already was).
    pub async fn wait(&self) {
        let mut seen = self.0.clone();
        if seen.wait_for(|pressed| *pressed).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
