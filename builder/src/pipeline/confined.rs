//! A downloaded program run on the build host (kubeadm, to list the images), confined to what
//! listing needs: a cleared environment (`PATH`, a scratch `HOME`, `LANG=C`), an empty scratch
//! working directory removed afterwards, stdin closed, at most [`OUTPUT_LIMIT`] bytes on each of
//! stdout and stderr, at most [`DEADLINE`] of time, and a network namespace of its own (no
//! network at all) where `unshare(1)` can make one. Nothing the caller holds in its environment
//! (`CLOUDSTACK_SECRET`, registry tokens) or its working directory reaches the program.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The longest a confined program may run before it is killed.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The most bytes read of each of its stdout and stderr; more is refused.
pub const OUTPUT_LIMIT: u64 = 1 << 20;

/// The `PATH` the program gets (system folders only, not the caller's).
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Where `unshare(1)` is looked for (never through the caller's `PATH`).
const UNSHARE: [&str; 2] = ["/usr/bin/unshare", "/bin/unshare"];

/// How often the run is looked at while it runs.
const POLL: Duration = Duration::from_millis(5);

/// What a confined run gave.
#[derive(Debug)]
pub struct Ran {
    /// The exit status.
    pub status: ExitStatus,
    /// Its stdout (at most [`OUTPUT_LIMIT`] bytes).
    pub stdout: Vec<u8>,
    /// Its stderr (at most [`OUTPUT_LIMIT`] bytes).
    pub stderr: Vec<u8>,
    /// How it was confined, in words for a warning.
    pub how: String,
}

/// Why a confined run gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ConfinedError {
    /// Its scratch directory could not be made.
    #[error("creating its scratch directory in {dir}: {source}")]
    Scratch {
        /// Where.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// It could not be started.
    #[error("starting it: {0}")]
    Start(std::io::Error),
    /// It ran past the deadline and was killed.
    #[error("it ran longer than {} s and was stopped", DEADLINE.as_secs())]
    Deadline,
    /// It printed more than the limit and was killed.
    #[error("it printed more than {} bytes and was stopped", OUTPUT_LIMIT)]
    TooMuchOutput,
    /// It ended but a process it left holds its output open.
    #[error("it left a process running that holds its output open")]
    LeftRunning,
    /// Waiting for it failed.
    #[error("waiting for it: {0}")]
    Wait(std::io::Error),
}

/// How the program is kept off the network.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Network {
    /// `unshare` with these flags makes a network namespace here.
    Namespace(&'static [&'static str]),
    /// No network namespace could be made: the program shares the host's network.
    Shared,
}

impl Network {
    /// The first way `unshare` makes a network namespace on this host: as root `--net`, else
    /// in a user namespace of its own; none when neither works (no `unshare`, or the kernel
    /// refuses).
    fn probe(env: &[(&str, &str)]) -> Network {
        const WAYS: [&[&str]; 2] = [&["--net"], &["--map-root-user", "--net"]];
        let Some(unshare) = unshare() else {
            return Network::Shared;
        };
        for flags in WAYS {
            let works = Command::new(&unshare)
                .args(flags)
                .args(["--", "true"])
                .env_clear()
                .envs(env.iter().copied())
                .current_dir("/")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if works {
                return Network::Namespace(flags);
            }
        }
        Network::Shared
    }

    fn describe(&self) -> String {
        let network = match self {
            Network::Namespace(_) => "in a network namespace of its own (no network)",
            Network::Shared => {
                "with the host's network (this host made no network namespace: unshare --net failed)"
            }
        };
        format!(
            "with a cleared environment (PATH, a scratch HOME, LANG), in an empty scratch \
             directory, stdin closed, at most {} MiB of output and {} s, {network}",
            OUTPUT_LIMIT >> 20,
            DEADLINE.as_secs()
        )
    }
}

fn unshare() -> Option<PathBuf> {
    UNSHARE.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// Runs `program` with `args`, confined, in a scratch directory made under `parent` (and
/// removed when it ends).
pub fn run_confined(program: &Path, args: &[String], parent: &Path) -> Result<Ran, ConfinedError> {
    let scratch = tempfile::Builder::new()
        .prefix("confined-")
        .tempdir_in(parent)
        .map_err(|source| ConfinedError::Scratch {
            dir: parent.to_path_buf(),
            source,
        })?;
    let (cwd, home) = (scratch.path().join("cwd"), scratch.path().join("home"));
    for dir in [&cwd, &home] {
        std::fs::create_dir(dir).map_err(|source| ConfinedError::Scratch {
            dir: dir.clone(),
            source,
        })?;
    }
    let home_text = home.to_string_lossy().into_owned();
    let env = [("PATH", PATH), ("HOME", home_text.as_str()), ("LANG", "C")];
    let network = Network::probe(&env);
    let mut command = match (&network, unshare()) {
        (Network::Namespace(flags), Some(unshare)) => {
            let mut command = Command::new(unshare);
            command.args(*flags).arg("--").arg(program);
            command
        }
        _ => Command::new(program),
    };
    command
        .args(args)
        .env_clear()
        .envs(env)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(ConfinedError::Start)?;
    let (tx, rx) = mpsc::channel();
    for (index, pipe) in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(pipe) = pipe {
                // One byte past the limit tells that there was more; the pipe is closed then.
                let _ = pipe.take(OUTPUT_LIMIT + 1).read_to_end(&mut bytes);
            }
            let _ = tx.send((index, bytes));
        });
    }
    drop(tx);
    let deadline = Instant::now() + DEADLINE;
    let mut outputs: [Option<Vec<u8>>; 2] = [None, None];
    let status = loop {
        while let Ok((index, bytes)) = rx.try_recv() {
            outputs[index] = Some(bytes);
        }
        if outputs
            .iter()
            .flatten()
            .any(|b| b.len() as u64 > OUTPUT_LIMIT)
        {
            stop(&mut child);
            return Err(ConfinedError::TooMuchOutput);
        }
        if let Some(status) = child.try_wait().map_err(ConfinedError::Wait)? {
            break status;
        }
        if Instant::now() >= deadline {
            stop(&mut child);
            return Err(ConfinedError::Deadline);
        }
        std::thread::sleep(POLL);
    };
    while outputs.iter().any(Option::is_none) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((index, bytes)) => outputs[index] = Some(bytes),
            Err(_) => return Err(ConfinedError::LeftRunning),
        }
    }
    let [stdout, stderr] = outputs.map(Option::unwrap_or_default);
    if stdout.len() as u64 > OUTPUT_LIMIT || stderr.len() as u64 > OUTPUT_LIMIT {
        return Err(ConfinedError::TooMuchOutput);
    }
    Ok(Ran {
        status,
        stdout,
        stderr,
        how: network.describe(),
    })
}

fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("program");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("writes");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("mode");
        path
    }

    #[test]
    fn the_program_sees_only_path_home_and_lang_in_an_empty_directory_and_no_stdin() {
        let dir = tempfile::tempdir().expect("dir");
        let program = script(dir.path(), "env | sort; pwd; ls -A; cat; echo end");
        let ran = run_confined(&program, &[], dir.path()).expect("runs");
        assert!(ran.status.success());
        let out = String::from_utf8_lossy(&ran.stdout);
        let names: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k))
            .collect();
        for name in &names {
            assert!(
                ["PATH", "HOME", "LANG", "PWD", "SHLVL", "_", "OLDPWD"].contains(name),
                "{name} reached it: {out}"
            );
        }
        let pwd = out.lines().find(|l| l.starts_with('/')).expect("pwd");
        assert!(pwd.ends_with("/cwd"), "{out}");
        assert!(!Path::new(pwd).exists(), "the scratch directory is removed");
        assert!(
            out.ends_with(&format!("{pwd}\nend\n")),
            "empty, no stdin: {out}"
        );
    }

    #[test]
    fn too_much_output_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let program = script(
            dir.path(),
            "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done",
        );
        let error = run_confined(&program, &[], dir.path()).expect_err("endless output");
        assert!(matches!(error, ConfinedError::TooMuchOutput), "{error}");
    }
}
