//! Parsing a multi-document manifest with source positions, and walking its mappings.

use saphyr::{MarkedYaml, Scalar, YamlData, YamlLoader};
use saphyr_parser::{BufferedInput, Parser, SpannedEventReceiver};

use super::error::ManifestError;
use super::guard::{Guard, MAX_DEPTH};

/// A parsed manifest: its text, its documents, and a table from character to byte offsets
/// (saphyr's markers count characters, edits splice bytes).
pub(crate) struct Parsed<'t> {
    pub text: &'t str,
    pub documents: Vec<MarkedYaml<'t>>,
    char_to_byte: Vec<usize>,
}

/// A scalar found in the manifest: its value, where its source text is, and the line it is on.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    /// The scalar's value (quotes removed).
    pub value: Option<String>,
    /// The byte range of its source text, quotes included.
    pub range: std::ops::Range<usize>,
    /// Its 1-based line.
    pub line: usize,
}

impl<'t> Parsed<'t> {
    /// Parses every document of `text`. A key repeated in a mapping keeps its last value, as
    /// Kubernetes' own YAML reader does (upstream manifests have such slips, e.g. a `---` glued
    /// onto the end of a line merges two documents). Nesting deeper than [`MAX_DEPTH`] and
    /// aliases copying too many nodes are refused as the parser reaches them ([`Guard`]): the
    /// events are fed to the loader one by one here (saphyr's own `load` recurses once per
    /// level).
    pub fn parse(text: &'t str) -> Result<Parsed<'t>, ManifestError> {
        // The scanner has a flow-nesting limit of its own, which may be reached first.
        let to_error = |error: saphyr::ScanError| match error.info() {
            "recursion limit exceeded" => ManifestError::TooDeep {
                line: error.marker().line(),
                limit: MAX_DEPTH,
            },
            message => ManifestError::Yaml {
                line: error.marker().line(),
                column: error.marker().col() + 1,
                message: message.to_string(),
            },
        };
        let mut loader: YamlLoader<'t, MarkedYaml<'t>> = YamlLoader::default();
        loader.allow_duplicate_keys(true);
        let mut parser = Parser::new(BufferedInput::new(text.chars()));
        let mut guard = Guard::default();
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(to_error)?;
            guard.see(&event, &span)?;
            loader.on_event(event, span);
        }
        if let Some(error) = loader.error() {
            return Err(to_error(error.clone()));
        }
        let documents = loader.into_documents();
        let mut char_to_byte: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        char_to_byte.push(text.len());
        Ok(Parsed {
            text,
            documents,
            char_to_byte,
        })
    }

    /// The documents that hold something (a `---` with nothing after it is no object).
    pub fn objects(&self) -> impl Iterator<Item = &MarkedYaml<'t>> {
        self.documents
            .iter()
            .filter(|doc| !matches!(doc.data, YamlData::Value(Scalar::Null)))
    }

    fn byte(&self, char_index: usize) -> usize {
        self.char_to_byte
            .get(char_index)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Where `node` is in the text, with its value when it is a string scalar. The range starts
    /// at the node's start marker; for a one-line scalar it ends where the scalar's source text
    /// ends (saphyr's end marker of a quoted scalar may run on over a trailing comment).
    pub fn locate(&self, node: &MarkedYaml<'_>) -> Located {
        let value = match &node.data {
            YamlData::Value(Scalar::String(s)) => Some(s.to_string()),
            _ => None,
        };
        let start = self.byte(node.span.start.index());
        let end = scalar_end(self.text, start, value.as_deref())
            .unwrap_or_else(|| self.byte(node.span.end.index()).max(start));
        Located {
            value,
            range: start..end,
            line: node.span.start.line(),
        }
    }
}

/// The end of the one-line scalar starting at byte `start`: after the closing quote of a quoted
/// scalar, or after the value of a plain one (whose source text is its value). `None` when the
/// scalar does not end on its line.
fn scalar_end(text: &str, start: usize, value: Option<&str>) -> Option<usize> {
    if in_block_scalar(text, start) {
        return None;
    }
    let rest = &text[start..];
    let line = rest.split('\n').next().unwrap_or(rest);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let bytes = line.as_bytes();
    match bytes.first() {
        Some(b'"') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => return Some(start + i + 1),
                    _ => i += 1,
                }
            }
            None
        }
        Some(b'\'') => {
            let mut i = 1;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    return Some(start + i + 1);
                }
                i += 1;
            }
            None
        }
        Some(b'|' | b'>' | b'[' | b'{') | None => None,
        Some(_) => {
            let value = value?;
            (!value.contains('\n') && line.starts_with(value)).then(|| start + value.len())
        }
    }
}

/// Whether the scalar starting at byte `start` is the content of a block scalar (`|` or `>`),
/// whose start marker is on the line after the indicator.
fn in_block_scalar(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start].trim().is_empty() || line_start == 0 {
        return false;
    }
    let previous = text[..line_start - 1]
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default();
    let previous = previous.split(" #").next().unwrap_or_default().trim_end();
    let header = previous.trim_end_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    header.ends_with('|') || header.ends_with('>')
}

/// Calls `visit(key, value)` for every mapping entry with a string key, anywhere under `node`,
/// in document order.
pub(crate) fn for_each_entry<'a, F>(node: &'a MarkedYaml<'a>, visit: &mut F)
where
    F: FnMut(&str, &'a MarkedYaml<'a>),
{
    match &node.data {
        YamlData::Mapping(mapping) => {
            for (key, value) in mapping {
                if let YamlData::Value(Scalar::String(name)) = &key.data {
                    visit(name, value);
                }
                for_each_entry(value, visit);
            }
        }
        YamlData::Sequence(items) => {
            for item in items {
                for_each_entry(item, visit);
            }
        }
        YamlData::Tagged(_, inner) => for_each_entry(inner, visit),
        _ => {}
    }
}

/// The value of `key` in a mapping node.
pub(crate) fn get<'a>(node: &'a MarkedYaml<'a>, key: &str) -> Option<&'a MarkedYaml<'a>> {
    match &node.data {
        YamlData::Mapping(mapping) => mapping.iter().find_map(|(k, v)| {
            matches!(&k.data, YamlData::Value(Scalar::String(name)) if name == key).then_some(v)
        }),
        YamlData::Tagged(_, inner) => get(inner, key),
        _ => None,
    }
}

/// The string value of `key` in a mapping node.
pub(crate) fn get_str<'a>(node: &'a MarkedYaml<'a>, key: &str) -> Option<&'a str> {
    match &get(node, key)?.data {
        YamlData::Value(Scalar::String(s)) => Some(s),
        _ => None,
    }
}

/// The items of a sequence node (empty for anything else).
pub(crate) fn items<'a>(node: &'a MarkedYaml<'a>) -> &'a [MarkedYaml<'a>] {
    match &node.data {
        YamlData::Sequence(items) => items,
        _ => &[],
    }
}

/// Replaces a scalar's source text with `new_value`, keeping its quoting. Plain, single- and
/// double-quoted scalars on one line are supported; anything else is refused.
pub(crate) fn scalar_replacement(
    text: &str,
    found: &Located,
    new_value: &str,
    what: &str,
) -> Result<String, ManifestError> {
    let source = &text[found.range.clone()];
    let value = found.value.as_deref().unwrap_or_default();
    let unsupported = || ManifestError::ScalarStyle {
        what: what.to_string(),
        line: found.line,
        source_text: source.to_string(),
    };
    if source.contains('\n') {
        return Err(unsupported());
    }
    if source == value {
        Ok(new_value.to_string())
    } else if source == format!("\"{value}\"") {
        Ok(format!("\"{new_value}\""))
    } else if source == format!("'{value}'") {
        Ok(format!("'{new_value}'"))
    } else {
        Err(unsupported())
    }
}

/// Applies non-overlapping byte-range replacements to `text`.
pub(crate) fn splice(text: &str, mut edits: Vec<(std::ops::Range<usize>, String)>) -> String {
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, replacement) in edits {
        out.push_str(&text[at..range.start]);
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}
