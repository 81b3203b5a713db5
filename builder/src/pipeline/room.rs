//! Whether the build's filesystems hold what it will write, checked once the plan is known and
//! before the images' blobs and the remaining files are downloaded: the images' sizes from their
//! manifests, the files' from their `Content-Length` (a file not yet started counts as nothing,
//! said at debug level), and the ISO about the sum again. The temporary folder, OUTPUT_PATH and
//! the cache folder are each given what they will hold; folders on one filesystem add up.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::execution::Execution;
use super::plan::Plan;
use crate::fetch::FetchedFile;
use crate::progress::human;
use crate::registry::{ImageSize, image_sizes};

/// One folder the build writes into and the bytes it will put there.
#[derive(Debug, Clone)]
pub struct Place {
    /// What the folder is, as the user names it (`the temporary folder`, `OUTPUT_PATH`).
    pub what: &'static str,
    /// The folder (or the folder it will be made in).
    pub path: PathBuf,
    /// The bytes it will hold.
    pub bytes: u64,
}

/// A filesystem without room for what the build will write there.
#[derive(Debug, thiserror::Error)]
#[error(
    "not enough free space for this build: {folders} on the filesystem at {mount} ({device}) \
     {verb} about {needed} bytes ({needed_human}), and {free} bytes ({free_human}) are free; \
     free space there, or {advice}"
)]
pub struct NoRoom {
    /// The folders on that filesystem, each with what it needs.
    pub folders: String,
    /// `needs` for one folder, `need` for more.
    pub verb: &'static str,
    /// The filesystem's mount point.
    pub mount: String,
    /// Its device.
    pub device: String,
    /// The bytes needed there.
    pub needed: u64,
    /// The same, readable.
    pub needed_human: String,
    /// The bytes free there (for an unprivileged user).
    pub free: u64,
    /// The same, readable.
    pub free_human: String,
    /// Where else the build could write.
    pub advice: String,
}

/// Checks that each filesystem of `places` has room for the bytes of its places together.
pub fn check(places: &[Place]) -> Result<(), Box<NoRoom>> {
    check_against(places, |dir| {
        let stat = rustix::fs::statvfs(dir).ok()?;
        Some(stat.f_bavail.saturating_mul(stat.f_frsize))
    })
}

/// [`check`] with `free` telling the bytes free on the filesystem of a folder (`None`: not
/// known, nothing refused there).
fn check_against(places: &[Place], free: impl Fn(&Path) -> Option<u64>) -> Result<(), Box<NoRoom>> {
    let mut filesystems: Vec<(u64, PathBuf, Vec<&Place>)> = Vec::new();
    for place in places.iter().filter(|p| p.bytes > 0) {
        let Some(existing) = nearest_existing(&place.path) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&existing) else {
            continue;
        };
        match filesystems
            .iter_mut()
            .find(|(dev, _, _)| *dev == meta.dev())
        {
            Some((_, _, group)) => group.push(place),
            None => filesystems.push((meta.dev(), existing, vec![place])),
        }
    }
    for (_, dir, group) in filesystems {
        let needed = group
            .iter()
            .fold(0u64, |sum, p| sum.saturating_add(p.bytes));
        let Some(free) = free(&dir) else {
            continue;
        };
        tracing::debug!(dir = %dir.display(), needed, free, "room for the build");
        if needed > free {
            return Err(Box::new(no_room(&dir, &group, needed, free)));
        }
    }
    Ok(())
}

/// The refusal for the filesystem of `dir`, holding `group`.
fn no_room(dir: &Path, group: &[&Place], needed: u64, free: u64) -> NoRoom {
    let (mount, device) = crate::space::mount_of(dir)
        .map(|(m, d)| (m.display().to_string(), d))
        .unwrap_or_else(|| (dir.display().to_string(), "device unknown".to_string()));
    let folders = group
        .iter()
        .map(|p| format!("{} {} ({})", p.what, p.path.display(), human(p.bytes)))
        .collect::<Vec<_>>()
        .join(" and ");
    let advice = group
        .iter()
        .map(|p| match p.what {
            TEMPORARY => "give --tmp-dir (or TMPDIR) a folder on a larger filesystem",
            OUTPUT => "give another OUTPUT_PATH",
            _ => "give another --cache-dir",
        })
        .collect::<Vec<_>>()
        .join(", or ");
    NoRoom {
        folders,
        verb: if group.len() > 1 { "need" } else { "needs" },
        mount,
        device,
        needed,
        needed_human: human(needed),
        free,
        free_human: human(free),
        advice,
    }
}

/// The temporary folder's name in messages.
pub const TEMPORARY: &str = "the temporary folder";
/// OUTPUT_PATH's name in messages.
pub const OUTPUT: &str = "OUTPUT_PATH";
/// The cache folder's name in messages.
pub const CACHE: &str = "the cache folder";

/// `path` or the nearest folder above it that exists.
fn nearest_existing(path: &Path) -> Option<PathBuf> {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    path.ancestors()
        .find(|p| !p.as_os_str().is_empty() && p.exists())
        .map(Path::to_path_buf)
        .or_else(|| Some(PathBuf::from(".")))
}

/// What a file takes on disk beyond its bytes, about: the rest of its last block.
const FILE_BLOCK: u64 = 4096;
/// What a blob takes in an image tarball beyond its bytes: its tar header and padding.
const TAR_ENTRY: u64 = 1024;
/// What an image tarball holds beyond its blobs: the layout's small files and the tar's end.
const TARBALL_EXTRA: u64 = 8192;
/// What each file takes in the ISO beyond its bytes: its last sector and directory records.
const ISO_ENTRY: u64 = 4096;
/// The ISO's own structures: the system area, descriptors, path tables, the SBOM's share.
const ISO_BASE: u64 = 256 * 1024;

/// Checks that the temporary folder (`temp`, where the build's own temporary directory is),
/// OUTPUT_PATH and the cache folder have room for what carrying out `plan` writes there,
/// `fetched` being already written. Only
/// manifests are asked for; an image or file whose size cannot be known counts as nothing
/// (said at debug level), and the pull or download then says why it failed.
pub async fn before_downloads(
    plan: &Plan,
    temp: &Path,
    fetched: &[FetchedFile],
    run: &Execution<'_>,
) -> Result<(), Box<NoRoom>> {
    let images = images_size(plan, run).await;
    let (mut done, mut left, mut left_count) = (0u64, 0u64, 0u64);
    for source in &plan.files {
        if let Some(file) = fetched.iter().find(|f| f.name == source.iso_path) {
            done = done.saturating_add(file.bytes);
            continue;
        }
        left_count += 1;
        match run.sizes.and_then(|tally| tally.total(&source.iso_path)) {
            Some(size) => left = left.saturating_add(size),
            None => tracing::debug!(
                file = %source.iso_path,
                "size not known before its download; counted as 0"
            ),
        }
    }
    let count = plan.images.len() as u64;
    let tarballs = images
        .bytes
        .saturating_add(images.blobs.saturating_mul(TAR_ENTRY))
        .saturating_add(count.saturating_mul(TARBALL_EXTRA));
    let blob_store = images
        .bytes
        .saturating_add(images.blobs.saturating_mul(FILE_BLOCK));
    // The blobs go to the cache folder when there is one, else beside the tarballs.
    let blobs = &run.pull.blob_dir;
    let staged = left
        .saturating_add(left_count.saturating_mul(FILE_BLOCK))
        .saturating_add(tarballs)
        .saturating_add(if blobs.is_none() { blob_store } else { 0 });
    let entries = (plan.files.len() as u64).saturating_add(count);
    let iso = done
        .saturating_add(left)
        .saturating_add(tarballs)
        .saturating_add(entries.saturating_mul(ISO_ENTRY))
        .saturating_add(ISO_BASE);
    let output = plan.iso.parent().unwrap_or(Path::new("."));
    let mut places = vec![
        Place {
            what: TEMPORARY,
            path: temp.to_path_buf(),
            bytes: staged,
        },
        Place {
            what: OUTPUT,
            path: output.to_path_buf(),
            bytes: iso,
        },
    ];
    if let Some(blobs) = blobs {
        places.push(Place {
            what: CACHE,
            path: blobs.clone(),
            bytes: blob_store,
        });
    }
    check(&places)
}

/// The plan's images together, from their manifests; an image whose size is not known counts
/// as nothing.
async fn images_size(plan: &Plan, run: &Execution<'_>) -> ImageSize {
    let requests = plan.image_requests();
    let mut total = ImageSize::default();
    if requests.is_empty() {
        return total;
    }
    let pull = plan.pull_options(&run.pull);
    let sizes = match image_sizes(&requests, &pull).await {
        Ok(sizes) => sizes,
        Err(error) => {
            tracing::debug!("the images' sizes are not known: {error}; counted as 0");
            return total;
        }
    };
    for (request, size) in requests.iter().zip(sizes) {
        match size {
            Some(size) => {
                total.bytes = total.bytes.saturating_add(size.bytes);
                total.blobs = total.blobs.saturating_add(size.blobs);
            }
            None => tracing::debug!(
                image = %request.reference,
                "size not known before the pull; counted as 0"
            ),
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_on_one_filesystem_add_up_and_a_refusal_names_them() {
        // A filesystem with 1000 bytes free: the other tests' files, written and removed
        // meanwhile, do not move it.
        let dir = tempfile::tempdir().expect("dir");
        let free = |_: &Path| Some(1000);
        let place = |what, bytes| Place {
            what,
            path: dir.path().join("not/yet"),
            bytes,
        };
        assert!(check_against(&[place(TEMPORARY, 400), place(OUTPUT, 600)], free).is_ok());
        let error = check_against(&[place(TEMPORARY, 501), place(OUTPUT, 500)], free)
            .expect_err("the two together do not fit");
        assert_eq!((error.needed, error.free), (1001, 1000));
        let text = error.to_string();
        assert!(
            text.contains("the temporary folder") && text.contains("OUTPUT_PATH"),
            "{text}"
        );
        assert!(
            text.contains("--tmp-dir") && text.contains("another OUTPUT_PATH"),
            "{text}"
        );
        assert!(text.contains(&format!("{} bytes", error.needed)), "{text}");
    }
}
