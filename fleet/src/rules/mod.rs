//! The fleet's rules, pure: each takes the record and the store's clock and changes the record
//! as one transaction would. Every store (PostgreSQL, SQLite, the simulator's) runs exactly
//! these, so the simulator checks the rules the workers live by.
//!
//! - [`next`]: what a worker should do now (claim a cluster or a stage's gates, take a lapsed
//!   hold over, wait, or stop), moving stages on as their clusters end and their soak passes.
//! - [`hold`]: a worker's acts on what it holds (renew, record progress, end a cluster, end the
//!   gates), each refused once the hold lapsed or was taken over; and `cancel`.
//! - [`ClusterFailure`], [`GateFailure`]: why a cluster or a gate failed.

mod failure;
mod hold;
mod next;

pub use failure::{ClusterFailure, GateFailure};
pub use hold::{Held, cancel, end_cluster, end_gates, renew_cluster, set_phase};
pub use next::{Next, WaitFor, next};

#[cfg(test)]
mod tests;
