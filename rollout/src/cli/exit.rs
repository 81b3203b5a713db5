//! How a command ended, before it becomes an exit code.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Ok,
    /// The rollout stopped on an error.
    RolloutFailed,
    /// A simulator invariant broke.
    InvariantBroken,
    /// The update call was refused (bad request, wrong state): exit code 1, as for an error.
    Refused,
}
