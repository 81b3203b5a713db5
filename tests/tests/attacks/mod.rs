//! Attacks played against a whole build: a hostile mirror, a poisoned cache, oversized or
//! malformed input. Each ends in the correct ISO or an error naming the input.

mod mirror_password;
mod registry_credentials;
mod withheld_bundle;
