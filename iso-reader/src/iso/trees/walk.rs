//! Reading one directory hierarchy from its root record, within bounds: depth, entries,
//! directory bytes, file sections, and no directory read twice (no loops). Every extent must
//! lie inside the volume.

use std::collections::BTreeSet;

use super::descriptors::SECTOR;
use super::error::{Tree, TreeError};
use super::record::{self, Extent, Record};
use super::source::Source;
use super::susp::{self, Susp, SuspError};

/// The deepest directory read.
pub const MAX_DEPTH: usize = 32;
/// The most entries one tree holds.
pub const MAX_ENTRIES: usize = 100_000;
/// The largest directory, in bytes.
pub const MAX_DIR: u32 = 4 * 1024 * 1024;
/// The most directory bytes one tree holds.
pub const MAX_DIR_TOTAL: u64 = 64 * 1024 * 1024;
/// The most sections of one file.
pub const MAX_SECTIONS: usize = 64;

/// One entry of a tree as its records give it.
#[derive(Debug, Clone)]
pub struct Node {
    /// The file identifier's bytes.
    pub name: Vec<u8>,
    /// A directory.
    pub dir: bool,
    /// Its sections, in order.
    pub extents: Vec<Extent>,
    /// Its SUSP entries, in the primary tree when Rock Ridge is read.
    pub susp: Option<Susp>,
    /// What a directory holds.
    pub children: Vec<Node>,
}

/// A tree as read: its root `.` and what lies below.
pub struct Walked {
    /// The root directory's `.` SUSP entries (primary tree with SUSP read only).
    pub root_susp: Option<Susp>,
    /// The root's entries.
    pub children: Vec<Node>,
}

struct Walk<'a, S: Source> {
    source: &'a S,
    tree: Tree,
    space: u32,
    with_susp: bool,
    seen: BTreeSet<u32>,
    entries: usize,
    dir_bytes: u64,
}

/// Reads the tree whose root record is `root` (34 bytes from its descriptor). `with_susp`
/// reads SUSP entries (the primary tree); `root_only` stops after the root's `.` record.
pub fn walk(
    source: &impl Source,
    tree: Tree,
    root: &[u8],
    space: u32,
    with_susp: bool,
    root_only: bool,
) -> Result<Walked, TreeError> {
    let root = record::parse(root).map_err(|detail| TreeError::Record {
        tree,
        path: "/".into(),
        detail: format!("its descriptor's root record is {detail}"),
    })?;
    if !root.dir {
        return Err(TreeError::Record {
            tree,
            path: "/".into(),
            detail: "its root record is not a directory".into(),
        });
    }
    let mut walk = Walk {
        source,
        tree,
        space,
        with_susp,
        seen: BTreeSet::new(),
        entries: 0,
        dir_bytes: 0,
    };
    let (dot, records) = walk.directory("/", root.extent)?;
    let root_susp = if with_susp {
        Some(walk.susp("/", &dot, true)?)
    } else {
        None
    };
    if root_only {
        return Ok(Walked {
            root_susp,
            children: Vec::new(),
        });
    }
    let children = walk.children("/", records, 1)?;
    Ok(Walked {
        root_susp,
        children,
    })
}

impl<S: Source> Walk<'_, S> {
    fn bad(&self, path: &str, detail: impl Into<String>) -> TreeError {
        TreeError::Record {
            tree: self.tree,
            path: path.to_string(),
            detail: detail.into(),
        }
    }

    fn check_extent(&self, path: &str, extent: Extent) -> Result<(), TreeError> {
        if extent.len > 0
            && u64::from(extent.start) + record::sectors(extent.len) > u64::from(self.space)
        {
            return Err(self.bad(
                path,
                format!(
                    "points at sectors {}..{}, beyond the volume's {} sectors",
                    extent.start,
                    u64::from(extent.start) + record::sectors(extent.len),
                    self.space
                ),
            ));
        }
        Ok(())
    }

    /// Reads the directory at `extent`: its `.` record and the records after `..`.
    fn directory(
        &mut self,
        path: &str,
        extent: Extent,
    ) -> Result<(Record, Vec<Record>), TreeError> {
        self.check_extent(path, extent)?;
        if extent.len > MAX_DIR {
            return Err(self.bad(
                path,
                format!("a directory of {} bytes, more than {MAX_DIR}", extent.len),
            ));
        }
        if !self.seen.insert(extent.start) {
            return Err(self.bad(
                path,
                "a directory read twice (a loop or a shared directory)",
            ));
        }
        self.dir_bytes += u64::from(extent.len);
        if self.dir_bytes > MAX_DIR_TOTAL {
            return Err(TreeError::Limit {
                tree: self.tree,
                limit: format!("{MAX_DIR_TOTAL} bytes of directories"),
            });
        }
        let bytes = self
            .source
            .read(u64::from(extent.start) * SECTOR as u64, extent.len as usize)
            .map_err(|detail| self.bad(path, format!("its directory cannot be read: {detail}")))?;
        let mut records = record::split(&bytes)
            .map_err(|detail| self.bad(path, detail.to_string()))?
            .into_iter();
        let (Some(dot), Some(dotdot)) = (records.next(), records.next()) else {
            return Err(self.bad(path, "a directory without its . and .. records"));
        };
        if dot.name != [0] || dotdot.name != [1] || !dot.dir || !dotdot.dir {
            return Err(self.bad(path, "a directory that does not begin with . and .."));
        }
        if dot.extent != extent {
            return Err(self.bad(
                path,
                "a directory whose . record points elsewhere than its own record",
            ));
        }
        Ok((dot, records.collect()))
    }

    /// The SUSP entries of `record`, with an entry kind the writer never writes only noted.
    fn susp(&self, path: &str, record: &Record, dot: bool) -> Result<Susp, TreeError> {
        susp::parse(&record.system_use, dot, |sector, offset, size| {
            if sector >= self.space {
                return Err(SuspError::ContinuationBeyondVolume(sector));
            }
            Ok(self.source.read(
                u64::from(sector) * SECTOR as u64 + u64::from(offset),
                size as usize,
            )?)
        })
        .map_err(|detail| self.bad(path, detail.to_string()))
    }

    fn children(
        &mut self,
        path: &str,
        records: Vec<Record>,
        depth: usize,
    ) -> Result<Vec<Node>, TreeError> {
        if depth > MAX_DEPTH {
            return Err(TreeError::Limit {
                tree: self.tree,
                limit: format!("{MAX_DEPTH} levels of directories"),
            });
        }
        let mut out: Vec<Node> = Vec::new();
        let mut open: Option<Node> = None;
        for record in records {
            let shown = format!("{}{}", path, String::from_utf8_lossy(&record.name));
            if record.name == [0] || record.name == [1] {
                return Err(self.bad(path, "a second . or .. record"));
            }
            self.check_extent(&shown, record.extent)?;
            let susp = if self.with_susp {
                let susp = self.susp(&shown, &record, false)?;
                if let Some(unknown) = &susp.unknown {
                    let named = susp.name.as_ref().map(|name| format!("{path}{name}"));
                    return Err(self.bad(named.as_deref().unwrap_or(&shown), unknown.clone()));
                }
                Some(susp)
            } else {
                None
            };
            if let Some(node) = open.as_mut() {
                if node.name != record.name
                    || record.dir
                    || node.susp.as_ref().map(|s| &s.name) != susp.as_ref().map(|s| &s.name)
                {
                    return Err(self.bad(
                        &shown,
                        "a file section whose name differs from the first one's",
                    ));
                }
                node.extents.push(record.extent);
                if node.extents.len() > MAX_SECTIONS {
                    return Err(self.bad(
                        &shown,
                        format!("a file of more than {MAX_SECTIONS} sections"),
                    ));
                }
            } else {
                self.entries += 1;
                if self.entries > MAX_ENTRIES {
                    return Err(TreeError::Limit {
                        tree: self.tree,
                        limit: format!("{MAX_ENTRIES} entries"),
                    });
                }
                if record.dir && record.more {
                    return Err(self.bad(&shown, "a directory in sections"));
                }
                open = Some(Node {
                    name: record.name.clone(),
                    dir: record.dir,
                    extents: vec![record.extent],
                    susp,
                    children: Vec::new(),
                });
            }
            if !record.more
                && let Some(mut node) = open.take()
            {
                if node.dir {
                    let (_, below) = self.directory(&shown, record.extent)?;
                    node.children = self.children(&format!("{shown}/"), below, depth + 1)?;
                }
                out.push(node);
            }
        }
        if open.is_some() {
            return Err(self.bad(path, "a file whose last section is missing"));
        }
        Ok(out)
    }
}
