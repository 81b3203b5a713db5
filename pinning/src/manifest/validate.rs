//! Whether a text is the Kubernetes manifest it is taken for: every document an object with
//! `apiVersion` and `kind`, and a network manifest running at least one container. A URL that
//! answers anything else (a JSON document, an HTML page) is refused, saying what it held.

use saphyr::{MarkedYaml, Scalar, YamlData};

use super::document::{Parsed, get_str};
use super::error::ManifestError;
use super::images::image_nodes;

/// What a manifest is for, which decides what it must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The CNI manifest: its pods are the cluster network, so it names at least one image.
    Network,
    /// A manifest that runs the named component (the dashboard, Headlamp, the autoscaler, the
    /// CCM, the CSI driver): each publisher's file of that name names its images, so one that
    /// names none (every image vanished: a login page, a `Secret` served in its place) is not it.
    Workload(&'static str),
    /// Any other manifest (dashboard, CSI, CCM, autoscaler): Kubernetes objects.
    Other,
}

/// Checks that `text` holds Kubernetes objects only (at least one), and for
/// [`Role::Network`] and [`Role::Workload`] at least one container image.
///
/// ```
/// use cks_pinning::manifest::{Role, validate};
/// assert!(validate("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n", Role::Other).is_ok());
/// let err = validate("{\"name\": \"x\", \"version\": 2}", Role::Other).expect_err("not a manifest");
/// assert!(err.to_string().contains("a JSON document with keys name, version"), "{err}");
/// ```
pub fn validate(text: &str, role: Role) -> Result<(), ManifestError> {
    let parsed = Parsed::parse(text)?;
    let json = text.trim_start().starts_with(['{', '[']);
    let mut objects = 0;
    for document in parsed.objects() {
        let is_object =
            get_str(document, "apiVersion").is_some() && get_str(document, "kind").is_some();
        if !is_object {
            let held = describe(document, json, text);
            let held = if objects == 0 && parsed.objects().count() == 1 {
                held
            } else {
                format!(
                    "{held} (document {}, line {})",
                    objects + 1,
                    document.span.start.line()
                )
            };
            return Err(ManifestError::NotManifest { held });
        }
        objects += 1;
    }
    if objects == 0 {
        return Err(ManifestError::NotManifest {
            held: "no document at all".to_string(),
        });
    }
    let runs = match role {
        Role::Network => Some("network"),
        Role::Workload(name) => Some(name),
        Role::Other => None,
    };
    if let Some(role) = runs
        && image_nodes(&parsed)?.is_empty()
    {
        return Err(ManifestError::NoImages { role, objects });
    }
    Ok(())
}

/// A few words on what a document holds: its shape and first keys, or its first characters.
fn describe(document: &MarkedYaml<'_>, json: bool, text: &str) -> String {
    let format = if json { "JSON" } else { "YAML" };
    match &document.data {
        YamlData::Mapping(mapping) => {
            let mut keys: Vec<String> = mapping
                .keys()
                .take(6)
                .map(|k| match &k.data {
                    YamlData::Value(Scalar::String(s)) => s.chars().take(40).collect(),
                    _ => "(not a string)".to_string(),
                })
                .collect();
            if mapping.len() > keys.len() {
                keys.push("...".to_string());
            }
            if keys.is_empty() {
                format!("an empty {format} mapping")
            } else {
                format!("a {format} document with keys {}", keys.join(", "))
            }
        }
        YamlData::Sequence(items) => format!("a {format} list of {} item(s)", items.len()),
        _ => {
            let start: String = text
                .trim_start()
                .chars()
                .take(40)
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            if start.starts_with('<') {
                format!("an HTML or XML page starting {start:?}")
            } else {
                format!("plain text starting {start:?}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n    - name: c\n      image: busybox:1.36\n";

    #[test]
    fn accepts_objects_and_a_network_manifest_with_an_image() {
        assert_eq!(validate(POD, Role::Network), Ok(()));
        let two = format!("{POD}---\napiVersion: v1\nkind: List\n---\n");
        assert_eq!(validate(&two, Role::Other), Ok(()));
    }

    #[test]
    fn refuses_a_json_document_naming_its_keys() {
        let err = validate(
            r#"{"name": "left-pad", "version": "1.3.0", "license": "WTFPL"}"#,
            Role::Network,
        )
        .expect_err("not a manifest");
        assert_eq!(
            err,
            ManifestError::NotManifest {
                held: "a JSON document with keys name, version, license".into()
            }
        );
    }

    #[test]
    fn refuses_html_text_an_empty_body_and_a_document_without_kind() {
        let html = validate("<html><body>Sign in</body></html>\n", Role::Other).expect_err("html");
        let secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {token: eA==}\n";
        assert_eq!(validate(secret, Role::Other), Ok(()));
        let refused = validate(secret, Role::Workload("dashboard")).expect_err("no image");
        assert!(
            refused.to_string().contains("a dashboard manifest"),
            "{refused}"
        );
        assert_eq!(validate(POD, Role::Workload("dashboard")), Ok(()));
        assert!(html.to_string().contains("an HTML or XML page"), "{html}");
        let empty = validate("", Role::Other).expect_err("empty");
        assert!(empty.to_string().contains("no document"), "{empty}");
        let second = format!("{POD}---\napiVersion: v1\nmetadata: {{name: b}}\n");
        let err = validate(&second, Role::Other).expect_err("no kind");
        assert!(
            err.to_string()
                .contains("a YAML document with keys apiVersion, metadata (document 2, line 10)"),
            "{err}"
        );
    }

    #[test]
    fn refuses_a_network_manifest_without_images() {
        let rbac = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: flannel\n";
        assert_eq!(validate(rbac, Role::Other), Ok(()));
        assert_eq!(
            validate(rbac, Role::Network),
            Err(ManifestError::NoImages {
                role: "network",
                objects: 1
            })
        );
    }

    #[test]
    fn refuses_deep_nesting_in_one_line_in_flow_and_block_style() {
        let flow = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(
            validate(&flow, Role::Other),
            Err(ManifestError::TooDeep {
                line: 1,
                limit: super::super::MAX_DEPTH
            })
        );
        let mut block = String::new();
        for level in 0..150 {
            block.push_str(&" ".repeat(level));
            block.push_str("a:\n");
        }
        let err = validate(&block, Role::Other).expect_err("too deep");
        assert!(matches!(err, ManifestError::TooDeep { .. }), "{err}");
        let at_limit = format!(
            "{}{}",
            "[".repeat(super::super::MAX_DEPTH),
            "]".repeat(super::super::MAX_DEPTH)
        );
        assert!(matches!(
            validate(&at_limit, Role::Other),
            Err(ManifestError::NotManifest { .. })
        ));
    }

    #[test]
    fn refuses_an_alias_bomb_and_keeps_small_anchors() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let previous = format!("*a{}", level - 1);
            let row = [previous.as_str(); 10].join(", ");
            bomb.push_str(&format!("a{level}: &a{level} [{row}]\n"));
        }
        let err = validate(&bomb, Role::Other).expect_err("an alias bomb");
        assert!(matches!(err, ManifestError::AliasBomb { .. }), "{err}");
        let anchors = "apiVersion: v1\nkind: List\nitems:\n  - &pod {apiVersion: v1, kind: Pod}\n  - *pod\n  - *pod\n";
        assert_eq!(validate(anchors, Role::Other), Ok(()));
    }
}
