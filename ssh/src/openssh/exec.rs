//! Running a local program with a deadline, keeping only the tail of what it prints.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::runner::{KEEP_STDERR_LINES, KEEP_STDOUT_BYTES};

/// The longest stderr line kept, in bytes; longer lines are cut.
const MAX_LINE: usize = 4096;

/// How a run ended.
#[derive(Debug)]
pub enum Finished {
    /// The program exited (a signal counts as status 255, like a client failure).
    Exited {
        /// Its exit status.
        status: i32,
        /// The tail of its stdout.
        stdout: String,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// The deadline passed; the program was killed.
    TimedOut,
}

/// Runs `command` (stdin closed, output captured) and kills it if it runs past `timeout`.
pub fn run_with_timeout(command: Command, timeout: Duration) -> io::Result<Finished> {
    run_with_input(command, None, timeout)
}

/// A stream for a program's standard input, and a count of the bytes it took.
pub struct Input {
    /// What to send.
    pub reader: Box<dyn Read + Send>,
    /// Bytes written to the program so far (read by the caller for progress).
    pub sent: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// Like [`run_with_timeout`], with `input` (when given) copied to the program's standard input
/// on a thread of its own, which closes it at the end of the stream.
pub fn run_with_input(
    mut command: Command,
    input: Option<Input>,
    timeout: Duration,
) -> io::Result<Finished> {
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let feeder = match (input, child.stdin.take()) {
        (Some(mut input), Some(mut stdin)) => Some(thread::spawn(move || {
            let mut buffer = vec![0u8; 256 * 1024];
            loop {
                let n = match input.reader.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if std::io::Write::write_all(&mut stdin, &buffer[..n]).is_err() {
                    break;
                }
                input
                    .sent
                    .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            }
        })),
        _ => None,
    };
    let stdout = child
        .stdout
        .take()
        .map(|pipe| thread::spawn(move || tail_bytes(pipe)));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| thread::spawn(move || tail_lines(pipe)));
    let status = wait_until(&mut child, Instant::now() + timeout)?;
    if let Some(feeder) = feeder {
        // The program is gone, so a write blocked on its stdin fails and the thread ends.
        let _ = feeder.join();
    }
    let stdout = stdout
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default();
    let stderr_tail = stderr
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default();
    Ok(match status {
        Some(status) => Finished::Exited {
            status: status.code().unwrap_or(255),
            stdout,
            stderr_tail,
        },
        None => Finished::TimedOut,
    })
}

/// Waits for `child` until `deadline`; kills and reaps it then. `None` means it was killed.
fn wait_until(
    child: &mut Child,
    deadline: Instant,
) -> io::Result<Option<std::process::ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = child.kill();
            child.wait()?;
            return Ok(None);
        }
        thread::sleep((deadline - now).min(Duration::from_millis(20)));
    }
}

fn tail_bytes(mut pipe: impl Read) -> String {
    let mut kept: VecDeque<u8> = VecDeque::new();
    let mut buffer = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut buffer) {
        if n == 0 {
            break;
        }
        kept.extend(&buffer[..n]);
        let excess = kept.len().saturating_sub(KEEP_STDOUT_BYTES);
        kept.drain(..excess);
    }
    String::from_utf8_lossy(kept.make_contiguous()).into_owned()
}

fn tail_lines(pipe: impl Read) -> Vec<String> {
    let mut reader = BufReader::new(pipe);
    let mut kept: VecDeque<String> = VecDeque::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader
            .by_ref()
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if !line.ends_with(b"\n") {
            // A cut line: skip the rest of it.
            let mut rest = Vec::new();
            let _ = reader.read_until(b'\n', &mut rest);
        }
        if text.is_empty() {
            continue;
        }
        kept.push_back(text);
        if kept.len() > KEEP_STDERR_LINES {
            kept.pop_front();
        }
    }
    kept.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    #[test]
    fn feeds_the_input_to_the_program_and_counts_the_bytes() {
        let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let input = Input {
            reader: Box::new(std::io::Cursor::new(vec![7u8; 600_000])),
            sent: sent.clone(),
        };
        let finished =
            run_with_input(sh("wc -c"), Some(input), Duration::from_secs(10)).expect("runs");
        match finished {
            Finished::Exited { status, stdout, .. } => {
                assert_eq!(status, 0);
                assert_eq!(stdout.trim(), "600000");
            }
            Finished::TimedOut => panic!("timed out"),
        }
        assert_eq!(sent.load(std::sync::atomic::Ordering::Relaxed), 600_000);
    }

    #[test]
    fn keeps_the_last_stderr_lines_and_the_status() {
        let finished = run_with_timeout(
            sh("i=0; while [ $i -lt 50 ]; do echo line$i >&2; i=$((i+1)); done; echo out; exit 7"),
            Duration::from_secs(10),
        )
        .expect("runs");
        let Finished::Exited {
            status,
            stdout,
            stderr_tail,
        } = finished
        else {
            panic!("should exit");
        };
        assert_eq!(status, 7);
        assert_eq!(stdout, "out\n");
        assert_eq!(stderr_tail.len(), KEEP_STDERR_LINES);
        assert_eq!(stderr_tail.last().map(String::as_str), Some("line49"));
        assert_eq!(stderr_tail.first().map(String::as_str), Some("line30"));
    }

    #[test]
    fn kills_what_runs_past_the_deadline() {
        let finished =
            run_with_timeout(sh("exec sleep 30"), Duration::from_millis(300)).expect("runs");
        assert!(matches!(finished, Finished::TimedOut));
    }

    #[test]
    fn cuts_long_stderr_lines() {
        let finished = run_with_timeout(
            sh("head -c 10000 /dev/zero | tr '\\0' x >&2; echo >&2; echo short >&2"),
            Duration::from_secs(10),
        )
        .expect("runs");
        let Finished::Exited { stderr_tail, .. } = finished else {
            panic!("should exit");
        };
        assert_eq!(stderr_tail.len(), 2);
        assert_eq!(stderr_tail[0].len(), MAX_LINE);
        assert_eq!(stderr_tail[1], "short");
    }
}
