//! The network and disk edge of cks-iso: downloads, git tag listing, image pulls, the ISO writer
//! and the `cks-iso` command that wires them to the pure decisions of [`cks_pinning`].
//!
//! Folders by concern: `fetch` (HTTP downloads), `git` (ls-remote), `registry` (image pulls and
//! tarballs), `iso` (the ISO 9660 writer); `retry` and `progress` are shared by them.

// The command line is part of the library (so the packaging can render its man page and
// completions) and names this crate as its binary does.
extern crate self as cks_builder;

#[doc(hidden)]
pub mod cache_registry;
pub mod cli;
pub mod digest;
pub mod fetch;
pub mod git;
pub mod http;
pub mod inspect;
pub mod iso;
pub mod pipeline;
pub mod progress;
pub mod register;
pub mod registry;
pub mod retry;
