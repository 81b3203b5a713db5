//! Every tree an ISO 9660 image carries, read from its raw structures, and the check that
//! they all say the same: the one check every image taken for use passes, as a kernel would
//! read it.
//!
//! Linux mounts the Rock Ridge names of the primary tree only when the root's `.` record
//! carries an `ER` entry; without one, and with a Joliet descriptor, it mounts the Joliet tree
//! instead, and `mount -o norock` or `nojoliet` pick the others. So an image is taken only when:
//!
//! - its descriptor set is what the writer writes: one primary descriptor, at most one Joliet
//!   and one ISO 9660:1999 descriptor, a terminator; no boot record, partition descriptor,
//!   other supplementary descriptor, UDF recognition sequence or system area data;
//! - the primary root carries `SP` and `ER`, so Rock Ridge is what Linux mounts;
//! - every primary record carries only the SUSP entries the writer writes (`NM`, `PX`, `TF`,
//!   `SL`, `CE`), so no relocation (`CL`/`PL`/`RE`), compression (`ZF`) or other entry makes a
//!   kernel show other names, modes or bytes; no record has an extended attribute record,
//!   interleaving or the hidden/associated flags;
//! - the plain names of the same records tell every entry apart;
//! - the Joliet and ISO 9660:1999 trees hold exactly the Rock Ridge tree's paths (in their own
//!   name forms), each of the same kind and size, each file pointing at the very same extents.
//!
//! Then every tree a kernel may mount leads each path to the same bytes, and hashing each
//! file's extents once ([`crate::iso::IsoImage::copy_file`] reads exactly those) checks what
//! any of them shows. That is at least as strong as packing the checked contents again into a
//! hashing sink and comparing the image's sha256: a repack shows the image is the writer's
//! output, which is what the descriptor, SUSP and record rules above require of every
//! structure a kernel acts on, and the file bytes are the ones hashed; it costs a walk of the
//! directory records instead of a second pass over gigabytes. Bytes no tree points at (padding,
//! anything appended) are never read by a kernel and are left alone.
//!
//! Everything read is bounded: descriptors, depth, entries, directory sizes, file sections,
//! `CE` chains, names and targets (`walk`'s and `susp`'s limits); no size read from the
//! image is trusted before it is checked against the volume.

mod compare;
mod descriptors;
mod error;
mod record;
mod source;
mod susp;
mod walk;

pub use compare::Entry;
pub use error::{Tree, TreeError};
pub use record::Extent;
pub use source::{Source, SourceError};

use std::collections::BTreeMap;

use descriptors::{FIRST, SECTOR};

/// An image whose trees agree: its volume id and its Rock Ridge tree.
#[derive(Debug, Clone)]
pub struct Trees {
    /// The primary volume identifier.
    pub volume_id: String,
    /// The root's entries, by Rock Ridge name.
    pub root: BTreeMap<String, Entry>,
}

/// Reads every tree of the image `source` holds and checks they agree.
pub fn check(source: &impl Source) -> Result<Trees, TreeError> {
    let sector = |n: u64| {
        source
            .read(n * SECTOR as u64, SECTOR)
            .map_err(|detail| TreeError::Read {
                what: format!("sector {n}"),
                detail: detail.to_string(),
            })
    };
    let system = source
        .read(0, FIRST as usize * SECTOR)
        .map_err(|detail| TreeError::Read {
            what: "the system area".into(),
            detail: detail.to_string(),
        })?;
    if system.iter().any(|&b| b != 0) {
        return Err(TreeError::Descriptor {
            sector: 0,
            detail: "the system area (sectors 0-15) holds a boot sector or partition table, which the writer never writes".into(),
        });
    }
    let set = descriptors::read(sector)?;
    let primary = walk::walk(
        source,
        Tree::RockRidge,
        &set.primary_root,
        set.space,
        true,
        true,
    )?;
    let root = primary.root_susp.unwrap_or_default();
    if !root.sp || !root.er {
        return Err(TreeError::NoRockRidge {
            joliet: set.joliet_root.is_some(),
        });
    }
    if let Some(unknown) = root.unknown {
        return Err(TreeError::Record {
            tree: Tree::RockRidge,
            path: "/".into(),
            detail: unknown,
        });
    }
    let primary = walk::walk(
        source,
        Tree::RockRidge,
        &set.primary_root,
        set.space,
        true,
        false,
    )?;
    let rr = compare::rock_ridge(&primary.children, "/")?;
    compare::plain(&primary.children, "/")?;
    for (tree, root) in [
        (Tree::Joliet, &set.joliet_root),
        (Tree::Iso1999, &set.iso1999_root),
    ] {
        let Some(root) = root else { continue };
        let walked = walk::walk(source, tree, root, set.space, false, false)?;
        let view = compare::named(tree, &walked.children, "/")?;
        compare::compare(&rr, &view, tree, "/")?;
    }
    Ok(Trees {
        volume_id: set.volume_id,
        root: rr,
    })
}
