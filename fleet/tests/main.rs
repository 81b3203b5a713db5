//! The fleet's integration tests, one binary: each module checks one adapter or behaviour.

mod cli_docs;
mod property;
mod refusals;
mod settings_real;
mod simulation;
mod store_postgres;
mod support;
mod workers_postgres;
