//! The grammar of image references, as Docker's `reference` package defines it.

/// The registry an image lives in when its reference names none.
pub const DEFAULT_REGISTRY: &str = "docker.io";

/// Docker's limit on the length of a tag.
const TAG_MAX: usize = 128;

/// Splits a name into registry and repository like Docker's `splitDockerDomain`: the first
/// component is a registry when it holds `.` or `:`, is `localhost`, or holds an uppercase letter.
pub(crate) fn split_registry(name: &str) -> (&str, &str) {
    match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            (first, rest)
        }
        _ => (DEFAULT_REGISTRY, name),
    }
}

/// A host name (labels of alphanumerics and inner `-`, joined by `.`) with an optional port.
pub(crate) fn valid_registry(registry: &str) -> bool {
    let (host, port) = match registry.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (registry, None),
    };
    let label_ok = |label: &str| {
        !label.is_empty()
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    host.split('.').all(label_ok)
        && port
            .is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
pub(crate) fn valid_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = separator == "."
            || separator == "_"
            || separator == "__"
            || separator.bytes().all(|b| b == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// `[\w][\w.-]{0,127}`
pub(crate) fn valid_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    !tag.is_empty()
        && tag.len() <= TAG_MAX
        && tag.bytes().next().is_some_and(word)
        && tag.bytes().all(|b| word(b) || b == b'.' || b == b'-')
}

/// Whether `digest` is `sha256:<64 lowercase hex>` or `sha512:<128 lowercase hex>`.
pub fn valid_digest(digest: &str) -> bool {
    crate::digest::Digest::parse(digest).is_ok()
}
