//! Image references: parsing and normalising like containerd, deduplicating, and naming each
//! image's tarball under `docker/` in the ISO.
//!
//! ```
//! use cks_pinning::image::{dedup, tarball_names, ImageRef};
//! let images = dedup(
//!     ["busybox", "docker.io/library/busybox:latest", "registry.k8s.io/pause:3.10"]
//!         .iter()
//!         .map(|t| ImageRef::parse(t).expect("valid reference")),
//! );
//! assert_eq!(images.len(), 2);
//! assert_eq!(tarball_names(&images), ["busybox:latest.tar", "pause:3.10.tar"]);
//! ```

mod grammar;
mod plan;
mod reference;
mod tarball;

use std::collections::HashSet;

pub use grammar::valid_digest;
pub use plan::{ImagePlanError, PlannedImage, check_one_pause, plan_images};
pub use reference::{DEFAULT_REGISTRY, DEFAULT_TAG, ImageRef, ImageRefError};
pub use tarball::{
    NAME_MAX, is_safe_file_name, long_tarball_name, short_tarball_name, tarball_names,
};

/// Removes repeated references (equal once normalised), keeping the first-seen order.
pub fn dedup<I>(refs: I) -> Vec<ImageRef>
where
    I: IntoIterator<Item = ImageRef>,
{
    let mut seen = HashSet::new();
    refs.into_iter()
        .filter(|image| seen.insert(image.clone()))
        .collect()
}

/// Parses every text as an image reference and deduplicates them, keeping first-seen order.
pub fn parse_all<'a, I>(texts: I) -> Result<Vec<ImageRef>, ImageRefError>
where
    I: IntoIterator<Item = &'a str>,
{
    let parsed = texts
        .into_iter()
        .map(ImageRef::parse)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(dedup(parsed))
}
