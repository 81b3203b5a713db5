//! A failed port call, its broad class, and the result every port returns.

use serde::{Deserialize, Serialize};

/// Broad classes of port failure, so the engine can tell "retry later" from "give up".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PortErrorKind {
    /// The object does not exist (404, "entity does not exist").
    NotFound,
    /// The server refused the request as invalid in the current state (4xx, CloudStack 431/530).
    Refused,
    /// A conflict with a concurrent writer (409, a failed compare-and-set).
    Conflict,
    /// The server could not be reached or did not answer in time; retrying may help.
    Unavailable,
    /// Anything else.
    Other,
}

/// A failed port call: what kind, and a message naming the call and the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct PortError {
    /// Failure class.
    pub kind: PortErrorKind,
    /// Human-readable message, e.g. "stopVirtualMachine vm-1: 530 host is in maintenance".
    pub message: String,
}

impl PortError {
    /// A new error of `kind`.
    pub fn new(kind: PortErrorKind, message: impl Into<String>) -> Self {
        PortError {
            kind,
            message: message.into(),
        }
    }

    /// A [`PortErrorKind::Other`] error.
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(PortErrorKind::Other, message)
    }

    /// A [`PortErrorKind::Unavailable`] error.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(PortErrorKind::Unavailable, message)
    }

    /// A [`PortErrorKind::NotFound`] error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(PortErrorKind::NotFound, message)
    }
}

/// Result of a port call.
pub type PortResult<T> = Result<T, PortError>;
