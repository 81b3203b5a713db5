//! The compact store behind [`super::RemoteTags`]: every tag name once in one string, every
//! object id as its bytes in one buffer, and a 20-byte entry per tag pointing into both, sorted
//! by name. A listing of hundreds of thousands of tags takes less memory than its text.
//!
//! Lines are added as they are read ([`TagTable::push`], one entry per line); [`TagTable::finish`]
//! then sorts the entries and merges each tag's line with its peeled (`^{}`) line.

use super::object_id::ObjectId;

/// No object (an entry's unset slot).
const NONE: u32 = u32::MAX;

/// One tag: offsets into the table's names and object ids.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where the name starts in `names`.
    name: u32,
    /// The name's length in bytes.
    name_len: u32,
    /// Where the object id is in `oids`, or [`NONE`].
    object: u32,
    /// Where the peeled object id is in `oids`, or [`NONE`].
    peeled: u32,
    /// The listing line the entry was read from (its first line, once merged).
    line: u32,
}

/// A table too large for 32-bit offsets (a listing of more than 4 GiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Full;

/// A tag listed twice with different objects: the first such line, as [`TagTable::finish`]
/// found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Conflict {
    /// The 1-based number of the line that disagrees with an earlier one.
    pub line_number: usize,
    /// The tag's name.
    pub name: String,
    /// Whether the lines are the tag's peeled (`^{}`) lines.
    pub peeled: bool,
    /// The object the earlier line gave.
    pub first: String,
}

/// The tags of a listing, compactly.
#[derive(Clone, Default)]
pub(super) struct TagTable {
    names: String,
    /// Each object id as its length (20 or 32) and then its bytes.
    oids: Vec<u8>,
    entries: Vec<Entry>,
}

fn offset(len: usize) -> Result<u32, Full> {
    u32::try_from(len)
        .ok()
        .filter(|&offset| offset != NONE)
        .ok_or(Full)
}

impl TagTable {
    /// Adds the line `line_number` of a listing: tag `name` (its peeled line when `peeled`) at
    /// the object id `oid` (20 or 32 bytes).
    pub(super) fn push(
        &mut self,
        name: &str,
        peeled: bool,
        oid: &[u8],
        line_number: usize,
    ) -> Result<(), Full> {
        let line = offset(line_number)?;
        // A tag's peeled line comes right after it: the name is stored once.
        let name_at = match self.entries.last() {
            Some(last) if self.name(last) == name => last.name,
            _ => {
                let at = offset(self.names.len())?;
                self.names.push_str(name);
                offset(self.names.len())?;
                at
            }
        };
        let oid_at = offset(self.oids.len())?;
        let oid_len = u8::try_from(oid.len()).map_err(|_| Full)?;
        self.oids.push(oid_len);
        self.oids.extend_from_slice(oid);
        offset(self.oids.len())?;
        let (object, peeled) = if peeled {
            (NONE, oid_at)
        } else {
            (oid_at, NONE)
        };
        self.entries.push(Entry {
            name: name_at,
            name_len: offset(name.len())?,
            object,
            peeled,
            line,
        });
        Ok(())
    }

    /// Sorts the tags by name and merges the lines of each (a peeled line without its tag
    /// line gives both objects). Two lines of a tag with different objects are a [`Conflict`],
    /// the one of the lowest line number; the table is then only good for dropping.
    pub(super) fn finish(&mut self) -> Result<(), Conflict> {
        let TagTable {
            names,
            oids,
            entries,
        } = self;
        let name = |entry: &Entry| entry_name(names, entry);
        entries.sort_unstable_by(|a, b| name(a).cmp(name(b)).then(a.line.cmp(&b.line)));
        let mut conflict: Option<Conflict> = None;
        let mut kept: usize = 0;
        for index in 0..entries.len() {
            let entry = entries[index];
            let Some(tag) = kept
                .checked_sub(1)
                .filter(|&last| name(&entries[last]) == name(&entry))
            else {
                entries[kept] = entry;
                kept += 1;
                continue;
            };
            let tag = &mut entries[tag];
            for (is_peeled, slot, new) in [
                (false, &mut tag.object, entry.object),
                (true, &mut tag.peeled, entry.peeled),
            ] {
                if new == NONE {
                    continue;
                }
                if *slot == NONE {
                    *slot = new;
                } else if object_id(oids, *slot) != object_id(oids, new)
                    && conflict
                        .as_ref()
                        .is_none_or(|c| c.line_number > entry.line as usize)
                {
                    conflict = Some(Conflict {
                        line_number: entry.line as usize,
                        name: name(&entry).to_string(),
                        peeled: is_peeled,
                        first: object_id(oids, *slot).to_string(),
                    });
                }
            }
        }
        entries.truncate(kept);
        for entry in entries.iter_mut().filter(|entry| entry.object == NONE) {
            entry.object = entry.peeled;
        }
        if let Some(conflict) = conflict {
            return Err(conflict);
        }
        entries.shrink_to_fit();
        names.shrink_to_fit();
        oids.shrink_to_fit();
        Ok(())
    }

    fn name(&self, entry: &Entry) -> &str {
        entry_name(&self.names, entry)
    }

    fn view(&self, entry: &Entry) -> (&str, ObjectId<'_>, Option<ObjectId<'_>>) {
        let peeled = (entry.peeled != NONE).then(|| object_id(&self.oids, entry.peeled));
        (
            self.name(entry),
            object_id(&self.oids, entry.object),
            peeled,
        )
    }

    /// The tag called `name`: its name, object and peeled object.
    pub(super) fn get(&self, name: &str) -> Option<(&str, ObjectId<'_>, Option<ObjectId<'_>>)> {
        let index = self
            .entries
            .binary_search_by(|entry| self.name(entry).cmp(name))
            .ok()?;
        self.entries.get(index).map(|entry| self.view(entry))
    }

    /// Every tag, sorted by name.
    pub(super) fn iter(
        &self,
    ) -> impl Iterator<Item = (&str, ObjectId<'_>, Option<ObjectId<'_>>)> + '_ {
        self.entries.iter().map(|entry| self.view(entry))
    }

    /// How many tags the table holds.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

fn entry_name<'t>(names: &'t str, entry: &Entry) -> &'t str {
    let start = entry.name as usize;
    &names[start..start + entry.name_len as usize]
}

fn object_id(oids: &[u8], at: u32) -> ObjectId<'_> {
    let at = at as usize;
    let len = usize::from(oids[at]);
    ObjectId::new(&oids[at + 1..at + 1 + len])
}

impl PartialEq for TagTable {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for TagTable {}

impl std::fmt::Debug for TagTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [u8; 20] = [0x11; 20];
    const B: [u8; 20] = [0x22; 20];

    #[test]
    fn sorts_merges_and_stores_a_name_once_per_tag() {
        let mut table = TagTable::default();
        table.push("y", false, &B, 1).expect("room");
        table.push("x", false, &A, 2).expect("room");
        table.push("x", true, &B, 3).expect("room");
        table.push("z", true, &[0x33; 32], 4).expect("room");
        table.finish().expect("no conflict");
        assert_eq!(table.names, "yxz");
        assert_eq!(table.len(), 3);
        let names: Vec<&str> = table.iter().map(|(name, _, _)| name).collect();
        assert_eq!(names, ["x", "y", "z"]);
        let (_, object, peeled) = table.get("x").expect("x");
        assert_eq!(
            (object.as_bytes(), peeled.map(|p| p.as_bytes())),
            (&A[..], Some(&B[..]))
        );
        let (_, object, peeled) = table.get("z").expect("z");
        assert_eq!((object.as_bytes(), peeled), (&[0x33; 32][..], Some(object)));
        assert!(table.get("w").is_none());
    }

    #[test]
    fn the_lowest_conflicting_line_is_reported() {
        let mut table = TagTable::default();
        for (line, (name, peeled, oid)) in [
            ("x", false, A),
            ("y", true, A),
            ("x", false, A),
            ("y", true, B),
            ("x", false, B),
        ]
        .into_iter()
        .enumerate()
        {
            table.push(name, peeled, &oid, line + 1).expect("room");
        }
        let conflict = table.finish().expect_err("y^{} is listed twice");
        assert_eq!(
            conflict,
            Conflict {
                line_number: 4,
                name: "y".to_string(),
                peeled: true,
                first: "11".repeat(20),
            }
        );
    }

    #[test]
    fn lines_beyond_32_bits_do_not_fit() {
        let mut table = TagTable::default();
        assert_eq!(table.push("x", false, &A, NONE as usize), Err(Full));
    }
}
