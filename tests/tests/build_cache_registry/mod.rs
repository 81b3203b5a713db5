//! `--cache-registry` with the real CNCF distribution registry (`docker-registry`): a second
//! runner with an empty `--cache-dir` builds from the cache registry alone and gives the same
//! ISO; a damaged blob is ignored and replaced; a registry stopped mid-build or read-only costs a
//! warning, never the build.


mod damaged;
mod faults;
mod runners;
mod support;
