//! The build's scratch space: the ISO tree being assembled and a work folder, in one temporary
//! directory that is removed when the build ends, however it ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

/// A temporary directory holding `tree/` (what goes into the ISO) and `work/` (everything else).
/// It is removed when the last of the `Staging` and its `Hold`s goes.
#[derive(Debug)]
pub struct Staging {
    dir: Arc<tempfile::TempDir>,
    tree: PathBuf,
    work: PathBuf,
}

impl Staging {
    /// Creates the staging directory under `parent`, or the system temporary folder (`TMPDIR`).
    pub fn new(parent: Option<&Path>) -> Result<Staging> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("cks-iso-build-");
        let dir = match parent {
            Some(parent) => builder.tempdir_in(parent),
            None => builder.tempdir(),
        }
        .context("creating the build's temporary directory")?;
        let tree = dir.path().join("tree");
        let work = dir.path().join("work");
        for sub in [&tree, &work] {
            std::fs::create_dir_all(sub).with_context(|| format!("creating {}", sub.display()))?;
        }
        Ok(Staging {
            dir: Arc::new(dir),
            tree,
            work,
        })
    }

    /// Keeps the directory until the returned value is dropped: for work on a blocking thread,
    /// which a cancelled build (Ctrl-C) cannot stop, so that the directory is removed only once
    /// that work no longer writes in it.
    pub fn hold(&self) -> Hold {
        Hold {
            _dir: self.dir.clone(),
        }
    }

    /// The ISO tree.
    pub fn tree(&self) -> &Path {
        &self.tree
    }

    /// The work folder (a host-arch kubeadm, blob store, ...).
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// The staging directory itself.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// A share of a [`Staging`] directory: it is not removed while this lives.
#[derive(Debug)]
pub struct Hold {
    _dir: Arc<tempfile::TempDir>,
}

/// Writes `text` to `path` (mode 0644) through a temporary file in the same folder, renamed into
/// place.
pub fn write_atomically(path: &Path, text: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .map_err(crate::atomic::plain)
        .with_context(|| format!("writing {}", path.display()))?;
    std::io::Write::write_all(file.as_file_mut(), text)
        .with_context(|| format!("writing {}", path.display()))?;
    // Readable by all, as the ISO and every file of it (a temporary file starts as 0600).
    use std::os::unix::fs::PermissionsExt;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .with_context(|| format!("setting the mode of {}", path.display()))?;
    file.persist(path)
        .with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}
