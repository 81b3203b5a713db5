//! SIGXFSZ, caught from the first statement of `main`: a write past the file size limit
//! (`ulimit -f`) then fails with EFBIG, as any write error does, and the ordinary cleanup runs,
//! instead of the signal killing the process silently with its `.partial` and temporary
//! directory left behind.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Catches SIGXFSZ (into a flag nobody reads, the safe equivalent of ignoring it): from this
/// call on a write past the file size limit returns EFBIG ("File too large").
pub fn catch_file_size_signal() -> std::io::Result<()> {
    signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    )?;
    Ok(())
}
