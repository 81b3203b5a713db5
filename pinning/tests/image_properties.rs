//! Property tests: image references round-trip through their normalised text, and the tarball
//! names of any set of distinct references are distinct and safe in an ISO.

use std::collections::HashSet;

use cks_pinning::image::{ImageRef, dedup, is_safe_file_name, tarball_names};
use proptest::prelude::*;

/// Reference texts in the shapes upstream manifests use, with small alphabets so that short
/// names collide often.
fn reference_text() -> impl Strategy<Value = String> {
    let registry = prop_oneof![
        Just(String::new()),
        Just("docker.io/".to_string()),
        Just("index.docker.io/".to_string()),
        Just("registry.k8s.io/".to_string()),
        Just("localhost:5000/".to_string()),
        Just("localhost/".to_string()),
        "[a-c]{1,3}\\.[a-c]{1,2}(:[1-9][0-9]{0,3})?/",
    ];
    let component = "[a-c0-9]{1,3}([._-][a-c0-9]{1,2})?";
    let path = prop::collection::vec(component, 1..4).prop_map(|parts| parts.join("/"));
    let tag = prop::option::of("[A-Za-z0-9_][A-Za-z0-9_.-]{0,6}");
    let digest = prop::option::of("[0-9a-f]{64}");
    (registry, path, tag, digest).prop_map(|(registry, path, tag, digest)| {
        let mut text = format!("{registry}{path}");
        if let Some(tag) = tag {
            text.push(':');
            text.push_str(&tag);
        }
        if let Some(hex) = digest {
            text.push_str("@sha256:");
            text.push_str(&hex);
        }
        text
    })
}

proptest! {
    #[test]
    fn parsing_round_trips_through_the_normalised_text(text in reference_text()) {
        let parsed = ImageRef::parse(&text).expect("generated references are valid");
        let shown = parsed.to_string();
        let reparsed = ImageRef::parse(&shown).expect("a normalised reference parses");
        prop_assert_eq!(&reparsed, &parsed);
        prop_assert_eq!(reparsed.to_string(), shown);
    }

    #[test]
    fn distinct_references_get_distinct_safe_tarball_names(
        texts in prop::collection::vec(reference_text(), 1..40)
    ) {
        let images = dedup(texts.iter().map(|t| ImageRef::parse(t).expect("valid")));
        let names = tarball_names(&images);
        prop_assert_eq!(names.len(), images.len());
        let distinct: HashSet<&String> = names.iter().collect();
        prop_assert_eq!(distinct.len(), names.len(), "names {:?}", names);
        for name in &names {
            prop_assert!(is_safe_file_name(name), "unsafe name {}", name);
            prop_assert!(name.ends_with(".tar"));
            prop_assert!(!name.contains('/') && name != ".." && !name.starts_with('.'));
        }
    }

    #[test]
    fn equal_references_get_equal_tarball_names(texts in prop::collection::vec(reference_text(), 1..20)) {
        let images: Vec<ImageRef> = texts.iter().map(|t| ImageRef::parse(t).expect("valid")).collect();
        let mut doubled = images.clone();
        doubled.extend(images.iter().cloned());
        let names = tarball_names(&doubled);
        let (first, second) = names.split_at(images.len());
        prop_assert_eq!(first, second);
    }
}
