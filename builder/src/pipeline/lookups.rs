//! The plan's small requests that need nothing but the inputs: the manifests and kubelet units
//! whose URLs the inputs decide, and the signature material of every Kubernetes binary (the
//! kubeadm that lists the images first, since it is checked before it runs). Each costs a round
//! trip or more and none waits for another, so they run as one pool, `--concurrency` at a
//! time, from the plan's first moment (while the tags are listed and kubeadm downloads).

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use futures_util::StreamExt;

use crate::fetch::{FetchedFile, Fetcher, FileError, FileSpec};
use crate::upstream_signatures::{FetchedMaterial, SignatureMaterial, Signed};

/// What the pool found: the files, in the order of their specs, and the material.
#[derive(Debug)]
pub struct Looked {
    /// The files, in the order of their specs.
    pub files: Vec<FetchedFile>,
    /// The signature material of every signed file.
    pub material: SignatureMaterial,
}

/// One lookup's answer.
enum Answer {
    File(usize, Box<Result<FetchedFile, FileError>>),
    Material(FetchedMaterial),
}

type Lookup<'a> = Pin<Box<dyn Future<Output = Answer> + Send + 'a>>;

/// Fetches `files` (their folders already made) and the material of `signed` (into
/// `scratch`), the material first, at most the fetcher's concurrency at once. The first file
/// that fails ends the pool (the lookups still running are dropped) with its error; material
/// that cannot be fetched is kept as such, for the signature checks to judge.
pub async fn look_up(
    fetcher: &Fetcher,
    files: &[FileSpec],
    signed: &[Signed],
    scratch: &Path,
) -> Result<Looked, FileError> {
    let mut lookups: Vec<Lookup<'_>> = Vec::new();
    for file in signed {
        lookups.push(Box::pin(async move {
            Answer::Material(file.fetch(fetcher, scratch).await)
        }));
    }
    // Each download owns a copy of its spec (see `Fetcher::fetch_all`).
    for (index, spec) in files.iter().cloned().enumerate() {
        lookups.push(Box::pin(async move {
            Answer::File(index, Box::new(fetcher.fetch(&spec).await))
        }));
    }
    let mut answers =
        futures_util::stream::iter(lookups).buffer_unordered(fetcher.options().concurrency.max(1));
    let mut found: Vec<Option<FetchedFile>> =
        std::iter::repeat_with(|| None).take(files.len()).collect();
    let mut material = SignatureMaterial::default();
    while let Some(answer) = answers.next().await {
        match answer {
            Answer::File(index, result) => found[index] = Some((*result)?),
            Answer::Material(fetched) => material.add(fetched),
        }
    }
    Ok(Looked {
        files: found.into_iter().flatten().collect(),
        material,
    })
}
