//! The node contracts of the CloudStack release lines: which ISO files each line's node scripts
//! read, which they require, and what they do when one is missing (one table per line, each
//! read citing the script and lines it comes from), and the pure decision of which lines a set
//! of ISO files fits, and why not.
//!
//! ```
//! use cks_pinning::node_contract::{Line, fit};
//! let mut files = vec!["k8s/kubeadm", "k8s/kubelet", "k8s/kubectl", "cni/cni-plugins-amd64.tgz",
//!     "cri-tools/crictl-linux-amd64.tar.gz", "kubelet.service", "10-kubeadm.conf",
//!     "network.yaml", "autoscaler.yaml", "provider.yaml", "headlamp.yaml"];
//! let fits = fit(&files);
//! assert!(fits.fits(Line::V4_23));
//! assert!(!fits.fits(Line::V4_22));
//! files.push("dashboard.yaml");
//! assert_eq!(fit(&files).fitting(), [Line::V4_20, Line::V4_22, Line::V4_23]);
//! ```

mod line_4_20;
mod line_4_22;
mod line_4_23;

use thiserror::Error;

/// A CloudStack release line whose node scripts read the ISO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Line {
    /// 4.20.x.
    #[serde(rename = "4.20")]
    V4_20,
    /// 4.22.x.
    #[serde(rename = "4.22")]
    V4_22,
    /// 4.23 and `main` after apache/cloudstack#12776 (Headlamp).
    #[serde(rename = "4.23")]
    V4_23,
}

impl Line {
    /// Every line, oldest first.
    pub const ALL: [Line; 3] = [Line::V4_20, Line::V4_22, Line::V4_23];

    /// The line's name, `4.22`.
    pub fn name(self) -> &'static str {
        match self {
            Line::V4_20 => "4.20",
            Line::V4_22 => "4.22",
            Line::V4_23 => "4.23",
        }
    }

    /// The node contract of this line.
    pub fn contract(self) -> &'static Contract {
        match self {
            Line::V4_20 => &line_4_20::CONTRACT,
            Line::V4_22 => &line_4_22::CONTRACT,
            Line::V4_23 => &line_4_23::CONTRACT,
        }
    }

    /// The line of a CloudStack version as `listCapabilities` reports it (`4.22.0.0`,
    /// `4.23.0.0-SNAPSHOT`): its major and minor, one of the known lines; `None` for another.
    ///
    /// ```
    /// use cks_pinning::node_contract::Line;
    /// assert_eq!(Line::of_version("4.22.1.0"), Some(Line::V4_22));
    /// assert_eq!(Line::of_version("4.23.0.0-SNAPSHOT"), Some(Line::V4_23));
    /// assert_eq!(Line::of_version("4.21.0.0"), None);
    /// ```
    pub fn of_version(version: &str) -> Option<Line> {
        let mut parts = version.trim().split(['.', '-']);
        let major = parts.next()?;
        let minor = parts.next()?;
        Line::ALL
            .into_iter()
            .find(|line| line.name() == format!("{major}.{minor}"))
    }
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The CloudStack lines an ISO must fit: one line, or every line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Target {
    /// One line.
    Line(Line),
    /// Every line.
    #[default]
    Any,
}

/// A `--cloudstack` value that names no line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("CloudStack line {0:?} is not known; expected 4.20, 4.22, 4.23 or any")]
pub struct TargetError(pub String);

impl std::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(text: &str) -> Result<Target, TargetError> {
        if text == "any" {
            return Ok(Target::Any);
        }
        Line::ALL
            .into_iter()
            .find(|line| line.name() == text)
            .map(Target::Line)
            .ok_or_else(|| TargetError(text.to_string()))
    }
}

impl TryFrom<String> for Target {
    type Error = TargetError;
    fn try_from(text: String) -> Result<Target, TargetError> {
        text.parse()
    }
}

impl From<Target> for String {
    fn from(target: Target) -> String {
        target.to_string()
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Line(line) => f.write_str(line.name()),
            Target::Any => f.write_str("any"),
        }
    }
}

impl Target {
    /// The lines this target names.
    pub fn lines(self) -> Vec<Line> {
        match self {
            Target::Line(line) => vec![line],
            Target::Any => Line::ALL.to_vec(),
        }
    }
}

/// The files a read needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// One file at this path.
    File(&'static str),
    /// At least one file matching a shell glob with one `*` in its last component
    /// (`cni/cni-plugins-*64.tgz`).
    Glob(&'static str),
    /// The first of these files that is present (an `if [ -f ] … elif [ -f ]` chain).
    FirstOf(&'static [&'static str]),
}

impl Need {
    /// Whether `files` (ISO paths without a leading `/`) satisfy this need.
    pub fn met_by(&self, files: &[&str]) -> bool {
        match self {
            Need::File(path) => files.contains(path),
            Need::Glob(pattern) => files.iter().any(|f| glob_match(pattern, f)),
            Need::FirstOf(paths) => paths.iter().any(|p| files.contains(p)),
        }
    }

    /// The file a node takes for this need: the first present (for [`Need::FirstOf`]).
    pub fn chosen<'f>(&self, files: &[&'f str]) -> Option<&'f str> {
        match self {
            Need::File(path) => files.iter().find(|f| *f == path).copied(),
            Need::Glob(pattern) => files.iter().find(|f| glob_match(pattern, f)).copied(),
            Need::FirstOf(paths) => paths
                .iter()
                .find_map(|p| files.iter().find(|f| *f == p).copied()),
        }
    }

    /// The need as a reader would write it: `dashboard.yaml`, `headlamp.yaml or dashboard.yaml`.
    pub fn describe(&self) -> String {
        match self {
            Need::File(path) | Need::Glob(path) => path.to_string(),
            Need::FirstOf(paths) => paths.join(" or "),
        }
    }
}

/// `pattern`'s one `*` matches any run of characters without `/`.
fn glob_match(pattern: &str, path: &str) -> bool {
    let Some((prefix, suffix)) = pattern.split_once('*') else {
        return pattern == path;
    };
    path.len() >= prefix.len() + suffix.len()
        && path.starts_with(prefix)
        && path.ends_with(suffix)
        && !path[prefix.len()..path.len() - suffix.len()].contains('/')
}

/// What the node scripts do when a read finds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnMissing {
    /// Cluster creation (or an upgrade) fails: the ISO does not fit the line.
    Fails(&'static str),
    /// The read is skipped and a feature is missing (autoscaling, CSI, ...): the ISO fits.
    Degrades(&'static str),
    /// What the line does is not known from its sources; said, not counted against the fit.
    Unverified(&'static str),
}

/// One read of the ISO by a line's node scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The files it needs.
    pub need: Need,
    /// The script and lines that read it.
    pub by: &'static str,
    /// What happens when the files are not there.
    pub on_missing: OnMissing,
}

/// A line's node contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    /// The line.
    pub line: Line,
    /// Where its node scripts were read (repository, commit).
    pub source: &'static str,
    /// Every read of the ISO.
    pub reads: &'static [Read],
}

/// A read the ISO does not satisfy.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Misfit {
    /// What is missing, `dashboard.yaml`.
    pub missing: String,
    /// The script and lines that read it.
    pub by: &'static str,
    /// What the node does without it.
    pub consequence: &'static str,
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no {}: {} ({})", self.missing, self.consequence, self.by)
    }
}

/// How an ISO fits one line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LineFit {
    /// The line.
    pub line: Line,
    /// Missing files that make the line fail; empty when the ISO fits.
    pub misfits: Vec<Misfit>,
    /// Missing files whose effect on this line is not known.
    pub unverified: Vec<Misfit>,
}

/// How an ISO fits every line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fits(pub Vec<LineFit>);

impl Fits {
    /// Whether the ISO fits `line`.
    pub fn fits(&self, line: Line) -> bool {
        self.get(line).is_some_and(|f| f.misfits.is_empty())
    }

    /// The line's fit.
    pub fn get(&self, line: Line) -> Option<&LineFit> {
        self.0.iter().find(|f| f.line == line)
    }

    /// The lines the ISO fits, oldest first.
    pub fn fitting(&self) -> Vec<Line> {
        self.0
            .iter()
            .filter(|f| f.misfits.is_empty())
            .map(|f| f.line)
            .collect()
    }

    /// `fits: 4.22, 4.23` (or `fits: none`).
    pub fn summary(&self) -> String {
        let names: Vec<&str> = self.fitting().into_iter().map(Line::name).collect();
        if names.is_empty() {
            "fits: none".to_string()
        } else {
            format!("fits: {}", names.join(", "))
        }
    }

    /// One line per line not fitted: `not 4.22: no dashboard.yaml: ... (...)`.
    pub fn reasons(&self) -> Vec<String> {
        self.0
            .iter()
            .flat_map(|f| {
                f.misfits
                    .iter()
                    .map(move |m| format!("not {}: {m}", f.line))
            })
            .collect()
    }
}

/// How the ISO files `files` (paths without a leading `/`) fit `line`.
pub fn fit_line(line: Line, files: &[&str]) -> LineFit {
    let mut misfits = Vec::new();
    let mut unverified = Vec::new();
    for read in line.contract().reads {
        if read.need.met_by(files) {
            continue;
        }
        let misfit = |consequence| Misfit {
            missing: read.need.describe(),
            by: read.by,
            consequence,
        };
        match read.on_missing {
            OnMissing::Fails(consequence) => misfits.push(misfit(consequence)),
            OnMissing::Unverified(consequence) => unverified.push(misfit(consequence)),
            OnMissing::Degrades(_) => {}
        }
    }
    LineFit {
        line,
        misfits,
        unverified,
    }
}

/// How the ISO files `files` fit every line.
pub fn fit(files: &[&str]) -> Fits {
    Fits(Line::ALL.iter().map(|&l| fit_line(l, files)).collect())
}

/// An ISO that cannot fit the lines it must.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", describe_refusal(.target, .misfits))]
pub struct FitError {
    /// What the ISO had to fit.
    pub target: Target,
    /// Each line not fitted, with why.
    pub misfits: Vec<(Line, Misfit)>,
}

fn describe_refusal(target: &Target, misfits: &[(Line, Misfit)]) -> String {
    let reasons: Vec<String> = misfits
        .iter()
        .map(|(line, m)| format!("CloudStack {line}: {m}"))
        .collect();
    format!(
        "the ISO would not fit --cloudstack {target}: {}",
        reasons.join("; ")
    )
}

/// Checks that `files` fit every line of `target`.
pub fn require_fit(target: Target, files: &[&str]) -> Result<(), FitError> {
    let misfits: Vec<(Line, Misfit)> = target
        .lines()
        .into_iter()
        .flat_map(|line| {
            fit_line(line, files)
                .misfits
                .into_iter()
                .map(move |m| (line, m))
        })
        .collect();
    if misfits.is_empty() {
        Ok(())
    } else {
        Err(FitError { target, misfits })
    }
}

#[cfg(test)]
mod tests;
