//! What one image tarball of the ISO holds: the images its `index.json` names (ctr export's
//! `io.containerd.image.name` annotation, else a fully qualified
//! `org.opencontainers.image.ref.name`), each with the digest containerd records when it imports
//! it; for a Docker archive (`manifest.json`, no `index.json`), its `RepoTags`, matched by name
//! only. The tarball's sha256 and size are taken as it streams past, nothing is kept in memory
//! but the small JSON files.

use std::collections::BTreeMap;
use std::io::{self, Read};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The largest `index.json` or `manifest.json` read.
const MAX_INDEX: u64 = 1 << 20;

/// An image an ISO tarball carries.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImageRef {
    /// Its full reference, as the node's `ctr images ls` lists it.
    pub name: String,
    /// The digest containerd records on import, when the archive says it (OCI layouts).
    pub digest: Option<String>,
}

/// One `docker/*.tar` of the ISO.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Tarball {
    /// Its file name in `docker/`.
    pub file: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its sha256, hex.
    pub sha256: String,
    /// The images it holds.
    pub images: Vec<ImageRef>,
}

/// A tarball that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Reading failed.
    #[error("reading docker/{file}: {source}")]
    Read {
        /// The tarball.
        file: String,
        /// Why.
        source: io::Error,
    },
    /// Its index is not what ctr writes.
    #[error("docker/{file}: {detail}; expected an image archive written by `ctr images export`")]
    Bad {
        /// The tarball.
        file: String,
        /// What is wrong.
        detail: String,
    },
}

struct Hashing<R> {
    inner: R,
    hasher: Sha256,
    count: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.count += n as u64;
        Ok(n)
    }
}

/// Reads the tarball `file` from `reader` to its end.
pub fn scan(file: &str, reader: impl Read) -> Result<Tarball, ArchiveError> {
    let read_err = |source| ArchiveError::Read {
        file: file.to_string(),
        source,
    };
    let bad = |detail: String| ArchiveError::Bad {
        file: file.to_string(),
        detail,
    };
    let hashing = Hashing {
        inner: reader,
        hasher: Sha256::new(),
        count: 0,
    };
    let mut archive = tar::Archive::new(hashing);
    let mut index: Option<Value> = None;
    let mut docker: Option<Value> = None;
    for entry in archive.entries().map_err(read_err)? {
        let mut entry = entry.map_err(read_err)?;
        let path = entry
            .path()
            .map_err(read_err)?
            .to_string_lossy()
            .into_owned();
        let path = path.trim_start_matches("./");
        if path != "index.json" && path != "manifest.json" {
            continue;
        }
        if entry.size() > MAX_INDEX {
            return Err(bad(format!("{path} is larger than {MAX_INDEX} bytes")));
        }
        let mut text = Vec::new();
        entry.read_to_end(&mut text).map_err(read_err)?;
        let value: Value =
            serde_json::from_slice(&text).map_err(|e| bad(format!("{path} is not JSON: {e}")))?;
        if path == "index.json" {
            index = Some(value);
        } else {
            docker = Some(value);
        }
    }
    let mut hashing = archive.into_inner();
    io::copy(&mut hashing, &mut io::sink()).map_err(read_err)?;
    let images = match (index, docker) {
        (Some(index), _) => oci_images(&index),
        (None, Some(manifest)) => docker_images(&manifest),
        (None, None) => return Err(bad("no index.json or manifest.json".to_string())),
    };
    if images.is_empty() {
        return Err(bad("no image named in its index".to_string()));
    }
    Ok(Tarball {
        file: file.to_string(),
        size: hashing.count,
        sha256: hex::encode(hashing.hasher.finalize()),
        images,
    })
}

/// An entry of an OCI `index.json`: the digest and the annotations that name the image.
#[derive(Deserialize)]
struct IndexEntry {
    #[serde(default)]
    digest: Value,
    #[serde(default)]
    annotations: BTreeMap<String, Value>,
}

/// An entry of a Docker archive's `manifest.json`.
#[derive(Deserialize)]
struct ArchiveEntry {
    #[serde(rename = "RepoTags", default)]
    repo_tags: Vec<Value>,
}

/// The entries of `list` that read as `T` (an entry of another shape is left out).
fn entries<T: DeserializeOwned>(list: Option<&Value>) -> Vec<T> {
    list.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| T::deserialize(item).ok())
                .collect()
        })
        .unwrap_or_default()
}

fn oci_images(index: &Value) -> Vec<ImageRef> {
    entries::<IndexEntry>(index.get("manifests"))
        .into_iter()
        .filter_map(|entry| {
            let annotation = |key: &str| entry.annotations.get(key).and_then(Value::as_str);
            let name = annotation("io.containerd.image.name").or_else(|| {
                annotation("org.opencontainers.image.ref.name").filter(|n| n.contains('/'))
            })?;
            Some(ImageRef {
                name: name.to_string(),
                digest: entry.digest.as_str().map(str::to_string),
            })
        })
        .collect()
}

fn docker_images(manifest: &Value) -> Vec<ImageRef> {
    entries::<ArchiveEntry>(Some(manifest))
        .into_iter()
        .flat_map(|e| e.repo_tags)
        .filter_map(|tag| tag.as_str().map(normalise))
        .map(|name| ImageRef { name, digest: None })
        .collect()
}

/// A Docker reference as containerd names it on import (`alpine:3` →
/// `docker.io/library/alpine:3`).
fn normalise(name: &str) -> String {
    let first = name.split('/').next().unwrap_or("");
    let has_registry =
        name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    match (has_registry, name.contains('/')) {
        (true, _) => name.to_string(),
        (false, true) => format!("docker.io/{name}"),
        (false, false) => format!("docker.io/library/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tar_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, bytes) in files {
            let mut header = tar::Header::new_ustar();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, name, bytes.as_slice())
                .expect("append");
        }
        builder.into_inner().expect("tar")
    }

    #[test]
    fn reads_the_names_and_digests_ctr_export_writes() {
        let index = json!({"manifests": [
            {"digest": "sha256:aa", "annotations": {"io.containerd.image.name": "registry.k8s.io/pause:3.10", "org.opencontainers.image.ref.name": "3.10"}},
            {"digest": "sha256:bb", "annotations": {"org.opencontainers.image.ref.name": "3.10"}},
        ]});
        let bytes = tar_of(&[
            ("oci-layout", b"{}".to_vec()),
            ("blobs/sha256/aa", vec![7; 3000]),
            ("index.json", serde_json::to_vec(&index).expect("json")),
        ]);
        let tarball = scan("pause:3.10.tar", bytes.as_slice()).expect("scans");
        assert_eq!(
            tarball.images,
            [ImageRef {
                name: "registry.k8s.io/pause:3.10".into(),
                digest: Some("sha256:aa".into())
            }]
        );
        assert_eq!(tarball.size, bytes.len() as u64);
        assert_eq!(tarball.sha256, hex::encode(Sha256::digest(&bytes)));
    }

    #[test]
    fn docker_archives_are_matched_by_their_normalised_names() {
        let manifest = json!([{"RepoTags": ["alpine:3", "apache/cloudstack-kubernetes-provider:v1.2.0", "registry.k8s.io/x:1"]}]);
        let bytes = tar_of(&[(
            "manifest.json",
            serde_json::to_vec(&manifest).expect("json"),
        )]);
        let names: Vec<String> = scan("a.tar", bytes.as_slice())
            .expect("scans")
            .images
            .into_iter()
            .map(|i| i.name)
            .collect();
        assert_eq!(
            names,
            [
                "docker.io/library/alpine:3",
                "docker.io/apache/cloudstack-kubernetes-provider:v1.2.0",
                "registry.k8s.io/x:1"
            ]
        );
    }

    #[test]
    fn a_tarball_without_an_index_or_with_a_huge_one_is_refused() {
        let none = tar_of(&[("layer.tar", vec![1; 10])]);
        let error = scan("x.tar", none.as_slice()).expect_err("no index");
        assert!(error.to_string().contains("no index.json"), "{error}");
        let huge = tar_of(&[("index.json", vec![b' '; (MAX_INDEX + 1) as usize])]);
        let error = scan("x.tar", huge.as_slice()).expect_err("huge");
        assert!(error.to_string().contains("larger than"), "{error}");
    }
}
