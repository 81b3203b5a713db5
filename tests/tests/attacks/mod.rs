//! Attacks on a build, each played with real components and ending in the correct ISO or an
//! error naming the input, never wrong bytes or a crash, under `--signatures warn` and
//! `require`.

mod not_a_manifest;
