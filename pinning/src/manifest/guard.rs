//! The limits a manifest's shape must keep while it is parsed: nesting no deeper than
//! [`MAX_DEPTH`], and aliases that copy no more than [`MAX_ALIAS_NODES`] nodes in all (a few
//! lines of anchors and aliases can otherwise expand to billions of nodes). Both are checked on
//! the parser's events, before the loader builds anything from them.

use std::collections::HashMap;

use saphyr_parser::{Event, Span};

use super::error::ManifestError;

/// The deepest nesting of mappings and sequences read. The deepest upstream manifest bundled
/// today (a CRD's schema) nests 14 levels; anything deeper than this is refused before it is
/// built, so no walk over a document can exhaust the stack.
pub const MAX_DEPTH: usize = 100;

/// The most nodes aliases may copy in one manifest (the loader clones the anchored node for each
/// alias). Upstream manifests use a handful of small anchors, if any.
pub const MAX_ALIAS_NODES: u64 = 100_000;

/// Watches the events of one parse.
#[derive(Debug, Default)]
pub(crate) struct Guard {
    /// The open collections: their anchor ids and the nodes under them so far.
    open: Vec<(usize, u64)>,
    /// Nodes under each anchor, aliases expanded.
    anchored: HashMap<usize, u64>,
    /// Nodes copied by aliases so far.
    copied: u64,
}

impl Guard {
    /// Checks the next event.
    pub fn see(&mut self, event: &Event<'_>, span: &Span) -> Result<(), ManifestError> {
        match event {
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                self.open.push((*anchor, 1));
                if self.open.len() > MAX_DEPTH {
                    return Err(ManifestError::TooDeep {
                        line: span.start.line(),
                        limit: MAX_DEPTH,
                    });
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some((anchor, nodes)) = self.open.pop() {
                    self.node(anchor, nodes);
                }
            }
            Event::Scalar(_, _, anchor, _) => self.node(*anchor, 1),
            Event::Alias(anchor) => {
                let nodes = self.anchored.get(anchor).copied().unwrap_or(1);
                self.copied = self.copied.saturating_add(nodes);
                if self.copied > MAX_ALIAS_NODES {
                    return Err(ManifestError::AliasBomb {
                        line: span.start.line(),
                        limit: MAX_ALIAS_NODES,
                    });
                }
                self.node(0, nodes);
            }
            _ => {}
        }
        Ok(())
    }

    /// A finished node of `nodes` nodes, anchored as `anchor` (0: none).
    fn node(&mut self, anchor: usize, nodes: u64) {
        if anchor != 0 {
            self.anchored.insert(anchor, nodes);
        }
        if let Some((_, parent)) = self.open.last_mut() {
            *parent = parent.saturating_add(nodes);
        }
    }
}
