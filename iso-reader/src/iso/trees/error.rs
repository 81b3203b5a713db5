//! Why an image's trees are refused.

use std::fmt;

/// One of the directory hierarchies an image can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// The primary tree as Rock Ridge names it (what Linux mounts when the root has `ER`).
    RockRidge,
    /// The primary tree by its plain ISO 9660 names (`mount -o norock,nojoliet`).
    Plain,
    /// The Joliet tree (what Linux mounts without `ER`, or with `norock`).
    Joliet,
    /// The ISO 9660:1999 tree of an enhanced volume descriptor.
    Iso1999,
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tree::RockRidge => "Rock Ridge tree",
            Tree::Plain => "plain ISO 9660 tree",
            Tree::Joliet => "Joliet tree",
            Tree::Iso1999 => "ISO 9660:1999 tree",
        })
    }
}

/// What keeps an image's trees from being taken as one.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The image cannot be read where a structure lies.
    #[error("cannot read {what}: {detail}")]
    Read {
        /// What was being read.
        what: String,
        /// What failed.
        detail: String,
    },
    /// The volume descriptor set holds something the writer never writes, or is malformed.
    #[error("volume descriptor at sector {sector}: {detail}")]
    Descriptor {
        /// The sector of the descriptor.
        sector: u64,
        /// What is wrong with it.
        detail: String,
    },
    /// The primary root carries no Rock Ridge `ER` entry.
    #[error(
        "the root directory carries no Rock Ridge ER entry{}, so Linux would not mount the Rock Ridge tree",
        if *.joliet { " while a Joliet descriptor exists" } else { "" }
    )]
    NoRockRidge {
        /// Whether a Joliet tree would be mounted instead.
        joliet: bool,
    },
    /// A record of one tree is malformed or carries what the writer never writes.
    #[error("the {tree}'s {path}: {detail}")]
    Record {
        /// The tree.
        tree: Tree,
        /// The path of the record (its directory's path for a record without a usable name).
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// A bound on what is read was reached.
    #[error("the {tree} holds more than {limit}")]
    Limit {
        /// The tree.
        tree: Tree,
        /// The bound, in words.
        limit: String,
    },
    /// Two trees disagree about a path.
    #[error("the {tree}'s {path} {detail} than the {other}'s")]
    Disagree {
        /// The tree that differs.
        tree: Tree,
        /// The path, as the tree names it.
        path: String,
        /// How it differs, such as `points at other bytes`.
        detail: String,
        /// The tree it is compared with.
        other: Tree,
    },
    /// A path is in one tree only.
    #[error(
        "the {tree} {} {path}, which the {other} {}",
        if *.holds { "holds" } else { "lacks" },
        if *.holds { "does not" } else { "holds" }
    )]
    Presence {
        /// The tree that differs.
        tree: Tree,
        /// The path, as the tree names it.
        path: String,
        /// The tree it is compared with.
        other: Tree,
        /// Whether `tree` holds the path (and `other` does not).
        holds: bool,
    },
}
