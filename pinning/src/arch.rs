//! The target architecture of an ISO, in the spellings each consumer uses: the one `Arch` of
//! the workspace (builds, pulls, the verifier and the demo all take it).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The CPU architecture the ISO is built for (not necessarily the build host's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// x86-64: `amd64` for Kubernetes and images, `x86_64` for CloudStack.
    Amd64,
    /// 64-bit ARM: `arm64` for Kubernetes and images, `aarch64` for CloudStack.
    Arm64,
}

/// An architecture name that is neither of the accepted spellings.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown architecture `{0}`: expected x86_64 (or amd64) or aarch64 (or arm64)")]
pub struct UnknownArch(pub String);

impl Arch {
    /// The name Kubernetes, CNI, crictl, etcd and OCI platforms use: `amd64` or `arm64`.
    pub fn go_name(self) -> &'static str {
        match self {
            Arch::Amd64 => "amd64",
            Arch::Arm64 => "arm64",
        }
    }

    /// The name CloudStack registers and the ISO file name ends with: `x86_64` or `aarch64`.
    pub fn iso_suffix(self) -> &'static str {
        match self {
            Arch::Amd64 => "x86_64",
            Arch::Arm64 => "aarch64",
        }
    }

    /// The OCI platform of this architecture, `linux/amd64` or `linux/arm64`.
    pub fn platform(self) -> String {
        format!("linux/{}", self.go_name())
    }

    /// The architecture of the machine running this build, if it is one we can build on.
    pub fn host() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::Amd64),
            "aarch64" => Some(Arch::Arm64),
            _ => None,
        }
    }
}

impl FromStr for Arch {
    type Err = UnknownArch;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "x86_64" | "amd64" => Ok(Arch::Amd64),
            "aarch64" | "arm64" => Ok(Arch::Arm64),
            other => Err(UnknownArch(other.to_string())),
        }
    }
}

/// An architecture equals its Kubernetes name (`amd64`, `arm64`).
impl PartialEq<&str> for Arch {
    fn eq(&self, other: &&str) -> bool {
        self.go_name() == *other
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.go_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_both_spellings_of_each_arch() {
        assert_eq!("x86_64".parse(), Ok(Arch::Amd64));
        assert_eq!("amd64".parse(), Ok(Arch::Amd64));
        assert_eq!("aarch64".parse(), Ok(Arch::Arm64));
        assert_eq!("arm64".parse(), Ok(Arch::Arm64));
        assert_eq!(Arch::Arm64.iso_suffix(), "aarch64");
        assert_eq!(Arch::Amd64.go_name(), "amd64");
    }

    #[test]
    fn refuses_other_names_naming_them() {
        let err = "ppc64le"
            .parse::<Arch>()
            .expect_err("ppc64le is not supported");
        assert!(err.to_string().contains("ppc64le"));
        assert!(err.to_string().contains("x86_64"));
    }
}
