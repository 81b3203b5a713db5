//! Each artifact's verdict under the mode: a line to record, a warning, or a refusal that
//! fails the build (all refusals are gathered so one failed build names every artifact).

use cks_pinning::versions_txt::SignatureEntry;
use cks_signature::{Judgement, Mode, Outcome, Refusal, judge};

/// What the signature phase found: the lines to record, and what to tell the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// Every verified file and image, for `versions.txt` (and so the SBOM).
    pub entries: Vec<SignatureEntry>,
    /// One line per unsigned or unverifiable artifact (under `warn`).
    pub warnings: Vec<String>,
    /// Said once: the sources that are not signed upstream, the images without a policy.
    pub notes: Vec<String>,
}

/// `--signatures require` and artifacts that are not verified: each named with its reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} artifact(s) failed signature verification:\n  {}", refusals.len(), refusals.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  "))]
pub struct SignatureRefusals {
    /// Each artifact and why.
    pub refusals: Vec<Refusal>,
}

/// The verdicts gathered so far.
pub(super) struct Verdicts {
    mode: Mode,
    checked: Checked,
    refusals: Vec<Refusal>,
}

impl Verdicts {
    pub fn new(mode: Mode) -> Verdicts {
        Verdicts {
            mode,
            checked: Checked::default(),
            refusals: Vec::new(),
        }
    }

    /// Records the outcome for `subject` (a path in the ISO or a pinned image reference).
    pub fn add(&mut self, subject: &str, outcome: Outcome) {
        if let Outcome::Verified(verified) = &outcome {
            self.checked.entries.push(SignatureEntry {
                subject: subject.to_string(),
                identity: verified.identity.clone(),
                issuer: verified.issuer.clone(),
                log: verified.log.is_some(),
            });
            return;
        }
        match judge(self.mode, subject, &outcome) {
            Ok(Judgement::Warning(line)) => self.checked.warnings.push(line),
            Ok(Judgement::Verified(_)) => {}
            Err(refusal) => self.refusals.push(refusal),
        }
    }

    /// `subject`'s signature material could not be fetched.
    pub fn unreachable(&mut self, subject: &str, error: String) {
        let reason = format!("its signature could not be fetched: {error}");
        match self.mode {
            Mode::Require => self.refusals.push(Refusal {
                subject: subject.to_string(),
                reason,
            }),
            Mode::Warn | Mode::Off => self.checked.warnings.push(format!("{subject}: {reason}")),
        }
    }

    /// A line said once.
    pub fn note(&mut self, line: String) {
        self.checked.notes.push(line);
    }

    /// Adds `later`'s verdicts after these.
    pub fn append(&mut self, later: Verdicts) {
        let Checked {
            entries,
            warnings,
            notes,
        } = later.checked;
        self.checked.entries.extend(entries);
        self.checked.warnings.extend(warnings);
        self.checked.notes.extend(notes);
        self.refusals.extend(later.refusals);
    }

    pub fn finish(self) -> Result<Checked, SignatureRefusals> {
        if self.refusals.is_empty() {
            Ok(self.checked)
        } else {
            Err(SignatureRefusals {
                refusals: self.refusals,
            })
        }
    }
}
