//! `cks-iso build`: the whole ISO, planned first, then downloaded, pulled, pinned and packed.

pub mod arch;
pub mod options;
pub mod sources;
