//! What is wrong with a cluster description that cannot be simulated.

/// A description that cannot be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cluster description: {0}")]
pub struct SpecError(pub String);
