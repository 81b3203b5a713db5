//! `--cache-registry` with the real CNCF distribution registry (`docker-registry`): a second
//! runner with an empty `--cache-dir` builds from the cache registry alone (the finished ISO,
//! found by its recipe key) and gives the same ISO; damaged blobs and a damaged ISO are ignored
//! and replaced; a registry stopped mid-build, read-only or down from the start costs one
//! warning, never the build; over HTTPS it is trusted with `--ca-file`.

mod damaged;
mod faults;
mod forged;
mod runners;
pub(crate) mod support;
mod tls;
