//! The input tree: a host directory read with `host::read_tree`, every entry given owner 0:0,
//! the one build time and its image mode.

use std::collections::BTreeMap;
use std::path::Path;

use hadris_fs::host::{self, Symlinks, TreeOptions};
use hadris_fs::{DateTime, FileType, Owner, Permissions, SetAttr, Tree};

use crate::iso::error::PackError;
use crate::iso::mode::{EntryKind, image_mode};
use crate::iso::time::BuildTime;

/// Reads `dir` into a tree the writer lays out, with normalised attributes.
pub fn read(dir: &Path, time: BuildTime) -> Result<Tree, PackError> {
    let input = |detail: String| PackError::Input {
        dir: dir.to_path_buf(),
        detail,
    };
    let stamp = DateTime::from_unix_seconds(time.unix_seconds).map_err(|err| {
        input(format!(
            "the build time {} is out of range: {err:?}",
            time.unix_seconds
        ))
    })?;
    let options = TreeOptions::new()
        .with_symlinks(Symlinks::Keep)
        .with_owner(Owner::new(0, 0))
        .with_clamp(stamp);
    let (mut tree, _skipped) =
        host::read_tree(dir, &options).map_err(|err| input(err.to_string()))?;
    normalise(&mut tree, dir, stamp)?;
    Ok(tree)
}

/// One entry to rewrite: its path, its new node, and the first path of its hard-link group.
struct Rewrite {
    path: Vec<u8>,
    node: hadris_fs::Node,
    link_to: Option<Vec<u8>>,
}

/// Gives every node owner 0:0, `stamp` as every time, and its image mode. Hard links stay
/// links (the data is stored once).
fn normalise(tree: &mut Tree, dir: &Path, stamp: DateTime) -> Result<(), PackError> {
    let attrs = |mode: u32| {
        SetAttr::new()
            .with_modified(stamp)
            .with_accessed(stamp)
            .with_created(stamp)
            .with_owner(Owner::new(0, 0))
            .with_permissions(Permissions::new(mode))
    };
    let mut rewrites = Vec::new();
    let mut first_path: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut pending = vec![(tree.root(), Vec::<u8>::new())];
    while let Some((entry, prefix)) = pending.pop() {
        for (name, child) in entry.children() {
            let mut path = prefix.clone();
            path.push(b'/');
            path.extend_from_slice(name.as_bytes());
            let node = child.node();
            let host_mode = node.attrs().permissions().map_or(0o644, |p| p.bits());
            let kind = match node.file_type() {
                FileType::File => EntryKind::File,
                FileType::Dir => EntryKind::Dir,
                FileType::Symlink => EntryKind::Symlink,
                _ => {
                    return Err(PackError::SpecialFile {
                        dir: dir.to_path_buf(),
                        path: String::from_utf8_lossy(&path).into_owned(),
                    });
                }
            };
            let link_to = if child.links() > 1 {
                match first_path.get(&child.id()) {
                    Some(first) => Some(first.clone()),
                    None => {
                        first_path.insert(child.id(), path.clone());
                        None
                    }
                }
            } else {
                None
            };
            if kind == EntryKind::Dir {
                pending.push((child, path.clone()));
            }
            rewrites.push(Rewrite {
                node: node.clone().with_attrs(attrs(image_mode(kind, host_mode))),
                path,
                link_to,
            });
        }
    }
    let fail = |err: hadris_fs::PathError| PackError::Input {
        dir: dir.to_path_buf(),
        detail: err.to_string(),
    };
    for rewrite in rewrites {
        match rewrite.link_to {
            Some(first) => {
                tree.remove(&rewrite.path).map_err(fail)?;
                tree.link(&first, &rewrite.path).map_err(fail)?;
            }
            None => tree.replace(&rewrite.path, rewrite.node).map_err(fail)?,
        }
    }
    let root = tree.root().node().clone().with_attrs(attrs(0o755));
    tree.replace("/", root).map_err(fail)?;
    Ok(())
}
