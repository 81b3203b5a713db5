//! Durations on the command line: the parser `cks-rollout` shares with `cks-upgrade-hook`, in
//! [`cks_pinning::duration`].

pub use cks_pinning::duration::{OldUnit, millis_or_units, parse, seconds_or_units};
