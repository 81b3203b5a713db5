//! Which host keys are trusted: a known_hosts file, one pinned SHA-256 fingerprint, or (only on
//! explicit request) any key; and the pure matching of scanned keys against a pin.

use std::fmt;
use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// How the server's host key is checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "policy", rename_all = "snake_case")]
pub enum HostKeyPolicy {
    /// Trust exactly the keys in this known_hosts file (and nothing from the system's files).
    KnownHosts {
        /// The file.
        path: PathBuf,
    },
    /// Trust the one host key with this fingerprint.
    Pinned {
        /// The fingerprint.
        fingerprint: Fingerprint,
    },
    /// Accept any host key. Only for `--insecure-host-key`: anyone on the path can then
    /// impersonate the node.
    Insecure,
}

/// Why a fingerprint could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FingerprintError {
    /// Not `SHA256:` followed by 43 base64 characters.
    #[error(
        "host key fingerprint {given:?} is not a SHA-256 fingerprint; expected `SHA256:` and 43 \
         base64 characters, as `ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub` prints on \
         the node"
    )]
    Malformed {
        /// The text given.
        given: String,
    },
}

/// A host key's SHA-256 fingerprint, `SHA256:<43 base64 characters>` as OpenSSH prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// Reads `SHA256:...`.
    pub fn parse(text: &str) -> Result<Self, FingerprintError> {
        let malformed = || FingerprintError::Malformed {
            given: text.to_string(),
        };
        let encoded = text.strip_prefix("SHA256:").ok_or_else(malformed)?;
        match STANDARD_NO_PAD.decode(encoded) {
            Ok(bytes) if bytes.len() == 32 => Ok(Fingerprint(text.to_string())),
            _ => Err(malformed()),
        }
    }

    /// The fingerprint of a public key given as its base64 blob (the second field of a
    /// known_hosts or `.pub` line); `None` when it is not base64.
    pub fn of_key_blob(blob_base64: &str) -> Option<Self> {
        let blob = STANDARD.decode(blob_base64).ok()?;
        let digest = Sha256::digest(&blob);
        Some(Fingerprint(format!(
            "SHA256:{}",
            STANDARD_NO_PAD.encode(digest)
        )))
    }

    /// The text, `SHA256:...`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A host key line as `ssh-keyscan` prints it: `<host> <key type> <base64 blob>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedKey {
    /// The whole line, usable as a known_hosts entry.
    pub line: String,
    /// The key type, e.g. `ssh-ed25519`.
    pub key_type: String,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
}

/// Reads the key lines of `ssh-keyscan` output (comments and blank lines skipped).
pub fn parse_keyscan(output: &str) -> Vec<ScannedKey> {
    output
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_host, key_type, blob) = (fields.next()?, fields.next()?, fields.next()?);
            Some(ScannedKey {
                line: line.to_string(),
                key_type: key_type.to_string(),
                fingerprint: Fingerprint::of_key_blob(blob)?,
            })
        })
        .collect()
}

/// The pinned fingerprint matches none of the host keys the server offered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the pinned fingerprint {pin} matches none of the host keys the server offered ({})",
    offered_text(offered)
)]
pub struct PinMismatch {
    /// The pinned fingerprint.
    pub pin: Fingerprint,
    /// The keys offered, each `type fingerprint`.
    pub offered: Vec<String>,
}

fn offered_text(offered: &[String]) -> String {
    if offered.is_empty() {
        "none".to_string()
    } else {
        offered.join(", ")
    }
}

/// The known_hosts text trusting exactly the scanned key that matches `pin`, or what the server
/// offered instead.
pub fn known_hosts_for_pin(
    scanned: &[ScannedKey],
    pin: &Fingerprint,
) -> Result<String, PinMismatch> {
    if let Some(key) = scanned.iter().find(|key| &key.fingerprint == pin) {
        return Ok(format!("{}\n", key.line));
    }
    Err(PinMismatch {
        pin: pin.clone(),
        offered: scanned
            .iter()
            .map(|key| format!("{} {}", key.key_type, key.fingerprint))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // A host key and the fingerprint `ssh-keygen -l` printed for it.
    const LINE: &str = "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHs0+mVu4j7qNKTMvd7i3EJSkKRVwa9yzT9NOY0RfOks";

    #[test]
    fn fingerprints_match_ssh_keygen() {
        let keys = parse_keyscan(&format!(
            "# 127.0.0.1:2222 SSH-2.0-OpenSSH_9.2p1\n{LINE}\n\n"
        ));
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].key_type, "ssh-ed25519");
        let expected = ssh_keygen_fingerprint(LINE);
        assert_eq!(keys[0].fingerprint.as_str(), expected);
    }

    fn ssh_keygen_fingerprint(line: &str) -> String {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("known_hosts");
        std::fs::write(&file, format!("{line}\n")).expect("write");
        let out = std::process::Command::new("ssh-keygen")
            .args(["-l", "-E", "sha256", "-f"])
            .arg(&file)
            .output()
            .expect("ssh-keygen runs");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .find(|f| f.starts_with("SHA256:"))
            .expect("a fingerprint")
            .to_string()
    }

    #[test]
    fn the_pin_selects_exactly_its_key() {
        let keys = parse_keyscan(LINE);
        let pin = keys[0].fingerprint.clone();
        assert_eq!(known_hosts_for_pin(&keys, &pin), Ok(format!("{LINE}\n")));
        let other = Fingerprint::parse("SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
            .expect("valid");
        let refused = known_hosts_for_pin(&keys, &other)
            .expect_err("no match")
            .to_string();
        assert!(refused.contains("matches none"), "{refused}");
        assert!(refused.contains(pin.as_str()), "{refused}");
        assert!(
            known_hosts_for_pin(&[], &other)
                .expect_err("none")
                .to_string()
                .contains("(none)")
        );
    }

    #[test]
    fn rejects_malformed_fingerprints() {
        for bad in [
            "",
            "SHA256:",
            "MD5:aa:bb",
            "SHA256:abc",
            "sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert!(Fingerprint::parse(bad).is_err(), "{bad}");
        }
    }
}
