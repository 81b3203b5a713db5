//! The exit statuses the three binaries share, and the error marker that makes a failure
//! exit 2 (bad command line or input value) rather than 1.

/// One row of an exit-status table: the status and what it means.
pub type ExitRow = (u8, &'static str);

/// The statuses every command of the three binaries uses.
pub const COMMON: [ExitRow; 3] = [
    (0, "done"),
    (
        1,
        "failed: the work could not be done (the message says why)",
    ),
    (
        2,
        "bad command line or input value (an unknown flag, a missing argument, an invalid \
         version, arch, name, limit or environment value); nothing was done",
    ),
];

/// The full table of a command: [`COMMON`], each row replaced by a row of `own` with the same
/// status, followed by the statuses only `own` has, in order.
pub fn exit_status(own: &[ExitRow]) -> Vec<ExitRow> {
    let mut rows: Vec<ExitRow> = COMMON
        .iter()
        .map(|row| *own.iter().find(|o| o.0 == row.0).unwrap_or(row))
        .collect();
    rows.extend(own.iter().filter(|o| o.0 > 2));
    rows.sort_by_key(|row| row.0);
    rows
}

/// A failure caused by what the user gave (a flag's value, an argument, an environment
/// variable, a config file): the binaries exit 2 for it. It shows exactly as the error it
/// wraps, so marking an error changes no message.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct BadInput(#[from] anyhow::Error);

/// `error`, marked as bad input (exit status 2).
pub fn bad_input(error: impl Into<anyhow::Error>) -> anyhow::Error {
    anyhow::Error::new(BadInput(error.into()))
}

/// Whether `error` or one of its causes was marked with [`bad_input`].
pub fn is_bad_input(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<BadInput>())
}

#[cfg(test)]
mod tests {
    use anyhow::Context;

    use super::*;

    #[test]
    fn a_marked_error_reads_as_before_and_is_found_under_context() {
        let inner = anyhow::anyhow!("bad ARCH `x`").context("checking the inputs");
        let plain = format!("{inner:#}");
        let marked: anyhow::Result<()> = Err(bad_input(inner));
        assert_eq!(format!("{:#}", marked.as_ref().expect_err("marked")), plain);
        let wrapped = marked.context("cks-iso build").expect_err("wrapped");
        assert!(is_bad_input(&wrapped));
        assert_eq!(format!("{wrapped:#}"), format!("cks-iso build: {plain}"));
        assert!(!is_bad_input(&anyhow::anyhow!("the server said no")));
    }

    #[test]
    fn a_command_keeps_the_common_rows_and_adds_its_own() {
        let rows = exit_status(&[(4, "invariant"), (3, "stopped")]);
        let codes: Vec<u8> = rows.iter().map(|r| r.0).collect();
        assert_eq!(codes, [0, 1, 2, 3, 4]);
        let rows = exit_status(&[(0, "done, or a refresh failed without --strict")]);
        assert_eq!(rows[0].1, "done, or a refresh failed without --strict");
    }
}
