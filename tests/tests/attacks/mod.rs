//! Attacks played against a whole build with real components: a hostile mirror, a poisoned
//! cache, oversized or malformed input. Each ends in the correct ISO or an error naming the
//! input, never wrong bytes or a crash, under `--signatures warn` and `require`.

mod mirror_password;
mod not_a_manifest;
mod registry_credentials;
mod withheld_bundle;
