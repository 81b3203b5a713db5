//! Ctrl-C, caught from the first statement of `main`: from then on SIGINT never kills
//! `cks-iso` mid-step; each command decides what stopping means (a build removes what it wrote).
//!
//! Two catchers, so no moment is missed: a flag set by the signal handler installed before the
//! runtime exists ([`Early::catch`]), and tokio's listener, which wakes the commands. A press
//! between the two is seen in the flag when the listener starts ([`Early::listen`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// SIGINT caught into a flag, before there is a runtime to wake.
#[derive(Debug)]
pub struct Early(Arc<AtomicBool>);

impl Early {
    /// Installs the handler: from this call on, SIGINT sets a flag instead of ending the process.
    pub fn catch() -> std::io::Result<Early> {
        let pressed = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGINT, pressed.clone())?;
        Ok(Early(pressed))
    }

    /// Starts tokio's listener (call it inside the runtime): a press before now, or any later.
    pub fn listen(self) -> std::io::Result<Interrupt> {
        let mut sigint = signal(SignalKind::interrupt())?;
        let (pressed, seen) = watch::channel(self.0.load(Ordering::SeqCst));
        tokio::spawn(async move {
            if sigint.recv().await.is_some() {
                let _ = pressed.send(true);
            }
            // Kept alive, so the receivers never see a closed channel as a press.
            std::future::pending::<()>().await;
        });
        Ok(Interrupt(seen))
    }
}

/// Whether Ctrl-C (SIGINT) was pressed; cheap to clone, every clone sees the same press.
#[derive(Debug, Clone)]
pub struct Interrupt(watch::Receiver<bool>);

impl Interrupt {
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
