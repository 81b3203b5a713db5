//! The pinning library's tests on real upstream data (when `../shared/upstream` is there) and on
//! the look-alike data in `fixtures/data`.
//!
//! Every test file is a module of this one test binary, so the workspace links a handful of test
//! binaries instead of one per file (each links the whole dependency tree).

mod autoscaler;
mod headlamp;
mod image_properties;
mod manifest;
mod sbom;
mod versions_txt;
