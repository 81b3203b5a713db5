//! Choosing the target platform's manifest: pure decisions, no I/O.

use super::manifest::{Descriptor, Platform};

pub use cks_pinning::arch::Arch;

/// Whether `platform` runs on a node of architecture `arch`.
pub fn runs_on(arch: Arch, platform: &Platform) -> bool {
    let variant_ok = match arch {
        Arch::Amd64 => true,
        Arch::Arm64 => matches!(platform.variant.as_deref(), None | Some("v8")),
    };
    platform.os == "linux" && platform.architecture == arch.go_name() && variant_ok
}

/// The index entry for `arch`: the first one whose platform matches, preferring an exact `v8`
/// variant for arm64 over none. `None` when the index has no such entry.
pub fn select(entries: &[Descriptor], arch: Arch) -> Option<&Descriptor> {
    let matching = entries
        .iter()
        .filter(|e| e.platform.as_ref().is_some_and(|p| runs_on(arch, p)));
    let mut first = None;
    for entry in matching {
        let exact = entry
            .platform
            .as_ref()
            .is_some_and(|p| p.variant.as_deref() == Some("v8"));
        if exact {
            return Some(entry);
        }
        first.get_or_insert(entry);
    }
    first
}

/// The platforms an index lists, for error messages (`linux/amd64, linux/arm/v7`).
pub fn describe(entries: &[Descriptor]) -> String {
    let names: Vec<String> = entries
        .iter()
        .map(|e| {
            e.platform
                .as_ref()
                .map_or_else(|| "unknown".to_string(), |p| p.to_string())
        })
        .collect();
    if names.is_empty() {
        "no manifests".to_string()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(arch: &str, variant: Option<&str>, c: char) -> Descriptor {
        Descriptor {
            media_type: String::new(),
            digest: format!("sha256:{}", c.to_string().repeat(64))
                .parse()
                .expect("a digest"),
            size: 1,
            platform: Some(Platform {
                architecture: arch.into(),
                os: "linux".into(),
                variant: variant.map(Into::into),
            }),
        }
    }

    #[test]
    fn picks_the_target_arch_not_the_host() {
        let entries = [entry("amd64", None, 'a'), entry("arm64", Some("v8"), 'b')];
        assert_eq!(
            select(&entries, Arch::Arm64).map(|e| e.digest.as_str()),
            Some(entries[1].digest.as_str())
        );
        assert_eq!(
            select(&entries, Arch::Amd64).map(|e| e.digest.as_str()),
            Some(entries[0].digest.as_str())
        );
    }

    #[test]
    fn an_index_without_the_target_has_no_choice_and_says_what_it_offers() {
        let entries = [entry("amd64", None, 'a'), entry("arm", Some("v7"), 'b')];
        assert!(select(&entries, Arch::Arm64).is_none());
        assert_eq!(describe(&entries), "linux/amd64, linux/arm/v7");
    }

    #[test]
    fn prefers_arm64_v8_over_an_entry_without_variant() {
        let entries = [entry("arm64", None, 'a'), entry("arm64", Some("v8"), 'b')];
        assert_eq!(
            select(&entries, Arch::Arm64).map(|e| e.digest.as_str()),
            Some(entries[1].digest.as_str())
        );
    }
}
