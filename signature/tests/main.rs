//! The signature crate's tests: real Sigstore material made elsewhere (the conformance assets
//! in `fixtures/data/sigstore`) and material signed at run time by a test trust root.

mod conformance;
mod digest;
mod test_root;
