//! The real adapters behind the fleet's ports: the store (PostgreSQL or SQLite), the
//! one-cluster commands run as child processes with CloudStack's facts, and `sh -c` gates.

pub mod commands;
pub mod gates;
pub mod store;
