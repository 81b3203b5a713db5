//! The trees of one image made comparable and compared: the Rock Ridge tree is what the
//! image holds; the plain names of the same records must tell every entry apart; the Joliet
//! and ISO 9660:1999 trees must hold the same paths (in their own name forms), each of the
//! same kind and size and pointing at the very same extents.

use std::collections::BTreeMap;

use super::error::{Tree, TreeError};
use super::record::{Extent, plain_name, strip_version};
use super::walk::Node;
use crate::iso::EntryKind;

/// The longest Joliet name the writers keep, in UTF-16 units.
pub const JOLIET_NAME: usize = 64;

/// The longest ISO 9660:1999 name, in bytes.
pub const ISO1999_NAME: usize = 207;

/// One entry as a tree shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// File, directory or symlink.
    pub kind: EntryKind,
    /// Permission bits (Rock Ridge only).
    pub mode: u32,
    /// Size in bytes (the sum of its sections).
    pub size: u64,
    /// A symlink's target.
    pub target: Option<String>,
    /// Where its bytes lie, section by section.
    pub extents: Vec<Extent>,
    /// A directory's entries, by name.
    pub children: BTreeMap<String, Entry>,
}

fn size(extents: &[Extent]) -> u64 {
    extents.iter().map(|e| u64::from(e.len)).sum()
}

fn join(path: &str, name: &str) -> String {
    format!("{path}{name}")
}

/// The Rock Ridge view of the primary tree's nodes below `path`.
pub fn rock_ridge(nodes: &[Node], path: &str) -> Result<BTreeMap<String, Entry>, TreeError> {
    let bad = |at: &str, detail: &str| TreeError::Record {
        tree: Tree::RockRidge,
        path: at.to_string(),
        detail: detail.to_string(),
    };
    let mut out = BTreeMap::new();
    for node in nodes {
        let plain = join(path, &plain_name(&node.name));
        let susp = node
            .susp
            .as_ref()
            .ok_or_else(|| bad(&plain, "no SUSP entries"))?;
        let name = susp
            .name
            .clone()
            .ok_or_else(|| bad(&plain, "no NM name, which the writer always writes"))?;
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            return Err(bad(
                &plain,
                &format!("an NM name {name:?} no directory can hold"),
            ));
        }
        let at = join(path, &name);
        let mode = susp
            .mode
            .ok_or_else(|| bad(&at, "no PX mode, which the writer always writes"))?;
        let kind = match mode & 0o170000 {
            0o040000 if node.dir => EntryKind::Dir,
            0o100000 if !node.dir => EntryKind::File,
            0o120000 if !node.dir => EntryKind::Symlink,
            _ => {
                return Err(bad(
                    &at,
                    &format!(
                        "a PX mode {mode:o} that does not fit its record (directory: {})",
                        node.dir
                    ),
                ));
            }
        };
        if (kind == EntryKind::Symlink) != susp.target.is_some() {
            return Err(bad(
                &at,
                "an SL target on what is not a symlink, or a symlink without one",
            ));
        }
        if kind == EntryKind::Symlink && size(&node.extents) != 0 {
            return Err(bad(&at, "a symlink with data"));
        }
        let children = if node.dir {
            rock_ridge(&node.children, &format!("{at}/"))?
        } else {
            BTreeMap::new()
        };
        let entry = Entry {
            kind,
            mode: mode & 0o7777,
            size: if kind == EntryKind::File {
                size(&node.extents)
            } else {
                0
            },
            target: susp.target.clone(),
            extents: node.extents.clone(),
            children,
        };
        if out.insert(name, entry).is_some() {
            return Err(bad(&at, "a second entry of that name in its directory"));
        }
    }
    Ok(out)
}

/// Checks that the plain names of the primary tree tell every entry of a directory apart.
pub fn plain(nodes: &[Node], path: &str) -> Result<(), TreeError> {
    let mut seen = BTreeMap::new();
    for node in nodes {
        let name = plain_name(&node.name);
        let at = join(path, &name);
        if name.is_empty() || seen.insert(name, ()).is_some() {
            return Err(TreeError::Record {
                tree: Tree::Plain,
                path: at,
                detail: "an empty name or a second entry of that name in its directory".into(),
            });
        }
        if node.dir {
            plain(&node.children, &format!("{at}/"))?;
        }
    }
    Ok(())
}

/// The view of a Joliet (`joliet`) or ISO 9660:1999 tree's nodes below `path`.
pub fn named(tree: Tree, nodes: &[Node], path: &str) -> Result<BTreeMap<String, Entry>, TreeError> {
    let mut out = BTreeMap::new();
    for node in nodes {
        let raw = if tree == Tree::Joliet {
            let units: Vec<u16> = node
                .name
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                .collect();
            String::from_utf16(&units).map_err(|_| TreeError::Record {
                tree,
                path: path.to_string(),
                detail: "a name that is not UCS-2".into(),
            })?
        } else {
            String::from_utf8_lossy(&node.name).into_owned()
        };
        let name = strip_version(&raw).to_string();
        let at = join(path, &name);
        let children = if node.dir {
            named(tree, &node.children, &format!("{at}/"))?
        } else {
            BTreeMap::new()
        };
        let entry = Entry {
            kind: if node.dir {
                EntryKind::Dir
            } else {
                EntryKind::File
            },
            mode: 0,
            size: if node.dir { 0 } else { size(&node.extents) },
            target: None,
            extents: node.extents.clone(),
            children,
        };
        if name.is_empty() || name.contains('/') || out.insert(name, entry).is_some() {
            return Err(TreeError::Record {
                tree,
                path: at,
                detail: "an empty name or a second entry of that name in its directory".into(),
            });
        }
    }
    Ok(out)
}

/// The name `tree` gives the Rock Ridge name `name`: Joliet replaces `* / : ; ? \` and
/// control characters with `_` and keeps 64 UTF-16 units; ISO 9660:1999 keeps 207 bytes.
pub fn form(tree: Tree, name: &str) -> String {
    match tree {
        Tree::Joliet => {
            let mapped: String = name
                .chars()
                .map(|c| {
                    if c < ' ' || "*/:;?\\".contains(c) {
                        '_'
                    } else {
                        c
                    }
                })
                .collect();
            let units: Vec<u16> = mapped.encode_utf16().take(JOLIET_NAME).collect();
            strip_version(&String::from_utf16_lossy(&units)).to_string()
        }
        _ => {
            let mut cut = name.len().min(ISO1999_NAME);
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            strip_version(&name[..cut]).to_string()
        }
    }
}

/// The sections that hold bytes (an empty file's extent points nowhere in particular).
fn data(extents: &[Extent]) -> Vec<Extent> {
    extents.iter().copied().filter(|e| e.len > 0).collect()
}

/// Compares `other` (the `tree`) with the Rock Ridge view `rr`, below `path` (as `tree` names it).
pub fn compare(
    rr: &BTreeMap<String, Entry>,
    other: &BTreeMap<String, Entry>,
    tree: Tree,
    path: &str,
) -> Result<(), TreeError> {
    let mut matched: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, want) in rr {
        let theirs = form(tree, name);
        let at = join(path, &theirs);
        let found = other.get(&theirs);
        if want.kind == EntryKind::Symlink {
            // Joliet has no symlinks; a writer leaves them out or writes an empty file.
            if let Some(found) = found {
                if found.kind != EntryKind::File || found.size != 0 {
                    return Err(TreeError::Disagree {
                        tree,
                        path: at,
                        detail: "holds data where the Rock Ridge tree holds a symlink, other"
                            .into(),
                        other: Tree::RockRidge,
                    });
                }
                matched.insert(other.get_key_value(&theirs).map_or("", |(k, _)| k), name);
            }
            continue;
        }
        if let Some(first) = matched.get(theirs.as_str()) {
            return Err(TreeError::Record {
                tree,
                path: at,
                detail: format!("one name for both {first} and {name} of the Rock Ridge tree"),
            });
        }
        let Some(found) = found else {
            return Err(TreeError::Presence {
                tree,
                path: at,
                other: Tree::RockRidge,
                holds: false,
            });
        };
        matched.insert(other.get_key_value(&theirs).map_or("", |(k, _)| k), name);
        let differs = |detail: String| TreeError::Disagree {
            tree,
            path: at.clone(),
            detail,
            other: Tree::RockRidge,
        };
        if found.kind != want.kind {
            return Err(differs("is of another kind".into()));
        }
        if found.size != want.size
            || want.kind == EntryKind::File && data(&found.extents) != data(&want.extents)
        {
            let at_sector = |e: &Entry| e.extents.first().map_or(0, |x| x.start);
            return Err(differs(format!(
                "points at other bytes ({} bytes at sector {}, not {} at sector {})",
                found.size,
                at_sector(found),
                want.size,
                at_sector(want)
            )));
        }
        if want.kind == EntryKind::Dir {
            compare(&want.children, &found.children, tree, &format!("{at}/"))?;
        }
    }
    if let Some(extra) = other.keys().find(|k| !matched.contains_key(k.as_str())) {
        return Err(TreeError::Presence {
            tree,
            path: join(path, extra),
            other: Tree::RockRidge,
            holds: true,
        });
    }
    Ok(())
}
