//! The tarball: an OCI image layout in an uncompressed tar that `ctr -n k8s.io image import`
//! names after the full reference, byte-identical for the same image. Beside the layout it holds
//! the Docker archive's `manifest.json` and `repositories`, as `ctr image export` writes them,
//! so `docker load` (a Docker-based node, an operator) reads the same file.
//!
//! Entry order is fixed (`oci-layout`, `index.json`, `manifest.json`, `repositories`, `blobs/`,
//! `blobs/sha256/`, then blobs by digest), every mtime is 0, owners 0:0, files 0644 and
//! directories 0755.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::digest::HashingWriter;

use super::error::RegistryError;

/// What goes into one tarball.
#[derive(Debug, Clone)]
pub struct LayoutContents {
    /// The full normalised reference the image is imported as.
    pub name: String,
    /// Media type of the top object (the original index, or the manifest).
    pub media_type: String,
    /// Digest of the top object, as the registry served it.
    pub digest: String,
    /// Size of the top object.
    pub size: u64,
    /// Every blob to include (the top object too), by digest, with its file in the store.
    pub blobs: Vec<(String, PathBuf)>,
    /// The platform image's config and layers, for the Docker archive's `manifest.json`
    /// (`None` writes the OCI layout alone).
    pub docker: Option<DockerImage>,
}

/// The image a Docker archive's `manifest.json` describes: the config and the layers, in order,
/// of the one platform the tarball holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DockerImage {
    /// The config's digest, `sha256:<hex>`.
    pub config: String,
    /// The layers' digests, base first.
    pub layers: Vec<String>,
}

/// The written tarball.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenTarball {
    /// Its size in bytes.
    pub size: u64,
    /// `sha256:` of the tarball.
    pub sha256: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IndexJson<'a> {
    schema_version: u32,
    media_type: &'static str,
    manifests: [Entry<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    media_type: &'a str,
    digest: &'a str,
    size: u64,
    annotations: Annotations<'a>,
}

#[derive(Serialize)]
struct Annotations<'a> {
    #[serde(rename = "io.containerd.image.name")]
    containerd: &'a str,
    #[serde(rename = "org.opencontainers.image.ref.name")]
    ref_name: &'a str,
}

/// The `index.json` of the layout: one entry naming the top object with the full reference.
pub fn index_json(contents: &LayoutContents) -> Vec<u8> {
    let index = IndexJson {
        schema_version: 2,
        media_type: cks_iso_reader::oci::OCI_INDEX,
        manifests: [Entry {
            media_type: &contents.media_type,
            digest: &contents.digest,
            size: contents.size,
            annotations: Annotations {
                containerd: &contents.name,
                ref_name: &contents.name,
            },
        }],
    };
    let mut bytes = serde_json::to_vec(&index).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct DockerManifestEntry<'a> {
    config: String,
    repo_tags: Vec<&'a str>,
    layers: Vec<String>,
}

fn blob_path(digest: &str) -> String {
    format!(
        "blobs/sha256/{}",
        digest.strip_prefix("sha256:").unwrap_or(digest)
    )
}

/// `repo:tag` of a full reference (`registry.k8s.io/pause:3.10`, a `@sha256:` suffix dropped),
/// split at the tag's `:`; `None` for a reference by digest alone.
fn repo_and_tag(name: &str) -> Option<(&str, &str)> {
    let tagged = name.split('@').next().unwrap_or(name);
    let slash = tagged.rfind('/').map_or(0, |i| i + 1);
    let colon = slash + tagged[slash..].find(':')?;
    Some((&tagged[..colon], &tagged[colon + 1..]))
}

/// The Docker archive's `manifest.json`: one entry naming the config, the reference as its one
/// repo tag (none for a reference by digest) and the layers, each by its path in the tar.
pub fn docker_manifest_json(name: &str, image: &DockerImage) -> Vec<u8> {
    let tagged = name.split('@').next().unwrap_or(name);
    let entry = DockerManifestEntry {
        config: blob_path(&image.config),
        repo_tags: repo_and_tag(name).map(|_| tagged).into_iter().collect(),
        layers: image.layers.iter().map(|l| blob_path(l)).collect(),
    };
    let mut bytes = serde_json::to_vec(&[entry]).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The Docker archive's `repositories`: `{"<repo>":{"<tag>":"<top layer hex>"}}` (`{}` for a
/// reference by digest alone or an image without layers).
pub fn docker_repositories_json(name: &str, image: &DockerImage) -> Vec<u8> {
    let mut repositories = serde_json::Map::new();
    if let (Some((repo, tag)), Some(top)) = (repo_and_tag(name), image.layers.last()) {
        let hex = top.strip_prefix("sha256:").unwrap_or(top);
        let mut tags = serde_json::Map::new();
        tags.insert(tag.to_string(), serde_json::Value::from(hex));
        repositories.insert(repo.to_string(), serde_json::Value::Object(tags));
    }
    let mut bytes = serde_json::to_vec(&repositories).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Writes the tarball to `dest` through a temporary file in the same directory, renamed when
/// complete; nothing is left at `dest` or beside it on error.
pub fn write_tarball(
    dest: &Path,
    contents: &LayoutContents,
) -> Result<WrittenTarball, RegistryError> {
    let dir = dest.parent().unwrap_or(Path::new("."));
    let (tmp, written) = write_tarball_temp(dir, contents)?;
    tmp.persist(dest)
        .map_err(|e| RegistryError::io(dest)(e.error))?;
    Ok(written)
}

/// Writes the tarball to a temporary file in `dir`, removed when the returned path is dropped
/// unless it is persisted (so a caller can rename a whole set only once all are complete).
pub fn write_tarball_temp(
    dir: &Path,
    contents: &LayoutContents,
) -> Result<(tempfile::TempPath, WrittenTarball), RegistryError> {
    let tmp = tempfile::Builder::new()
        .prefix(".cks-pull-")
        .suffix(".tar.part")
        .tempfile_in(dir)
        .map_err(|e| RegistryError::io(dir)(crate::atomic::plain(e)))?;
    let written = write_tar(tmp.as_file(), contents).map_err(RegistryError::io(tmp.path()))?;
    Ok((tmp.into_temp_path(), written))
}

fn write_tar(file: &File, contents: &LayoutContents) -> std::io::Result<WrittenTarball> {
    let out = HashingWriter::new(BufWriter::with_capacity(256 * 1024, file));
    let mut tar = tar::Builder::new(out);
    let layout = br#"{"imageLayoutVersion":"1.0.0"}"#;
    append_file(&mut tar, "oci-layout", layout.len() as u64, &layout[..])?;
    let index = index_json(contents);
    append_file(&mut tar, "index.json", index.len() as u64, &index[..])?;
    if let Some(docker) = &contents.docker {
        let manifest = docker_manifest_json(&contents.name, docker);
        append_file(
            &mut tar,
            "manifest.json",
            manifest.len() as u64,
            &manifest[..],
        )?;
        let repositories = docker_repositories_json(&contents.name, docker);
        append_file(
            &mut tar,
            "repositories",
            repositories.len() as u64,
            &repositories[..],
        )?;
    }
    append_dir(&mut tar, "blobs/")?;
    append_dir(&mut tar, "blobs/sha256/")?;
    let mut blobs: Vec<&(String, PathBuf)> = contents.blobs.iter().collect();
    blobs.sort_by(|a, b| a.0.cmp(&b.0));
    blobs.dedup_by(|a, b| a.0 == b.0);
    for (digest, path) in blobs {
        let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
        let blob = File::open(path)?;
        let size = blob.metadata()?.len();
        append_file(&mut tar, &format!("blobs/sha256/{hex}"), size, blob)?;
    }
    let mut out = tar.into_inner()?;
    out.flush()?;
    out.get_ref().get_ref().sync_all()?;
    let (_, digest) = out.finish();
    Ok(WrittenTarball {
        size: digest.bytes,
        sha256: digest.digest(),
    })
}

fn header(kind: tar::EntryType, mode: u32, size: u64) -> tar::Header {
    let mut header = tar::Header::new_ustar();
    header.set_entry_type(kind);
    header.set_mode(mode);
    header.set_size(size);
    header.set_mtime(0);
    header.set_uid(0);
    header.set_gid(0);
    header
}

/// The 512-byte tar header [`write_tarball`] writes for the entry at `path` (a directory when
/// `directory`) of `size` bytes, so a tarball can be checked to be byte for byte one it wrote.
pub fn entry_header(path: &str, directory: bool, size: u64) -> std::io::Result<[u8; 512]> {
    let mut h = match directory {
        true => header(tar::EntryType::Directory, 0o755, 0),
        false => header(tar::EntryType::Regular, 0o644, size),
    };
    h.set_path(path)?;
    h.set_cksum();
    let mut bytes = [0u8; 512];
    bytes.copy_from_slice(h.as_bytes());
    Ok(bytes)
}

fn append_file<W: Write>(
    tar: &mut tar::Builder<W>,
    path: &str,
    size: u64,
    data: impl std::io::Read,
) -> std::io::Result<()> {
    let mut h = header(tar::EntryType::Regular, 0o644, size);
    tar.append_data(&mut h, path, data)
}

fn append_dir<W: Write>(tar: &mut tar::Builder<W>, path: &str) -> std::io::Result<()> {
    let mut h = header(tar::EntryType::Directory, 0o755, 0);
    tar.append_data(&mut h, path, std::io::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_contents_give_a_byte_identical_tarball_with_fixed_headers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blob = dir.path().join("b");
        std::fs::write(&blob, b"layer bytes").expect("write");
        let digest = format!("sha256:{}", crate::digest::sha256_hex(b"layer bytes"));
        let contents = LayoutContents {
            name: "registry.example.com/app:1.0".into(),
            media_type: cks_iso_reader::oci::OCI_MANIFEST.into(),
            digest: digest.clone(),
            size: 11,
            blobs: vec![(digest.clone(), blob.clone()), (digest.clone(), blob)],
            docker: None,
        };
        let a = write_tarball(&dir.path().join("a.tar"), &contents).expect("a");
        let b = write_tarball(&dir.path().join("b.tar"), &contents).expect("b");
        assert_eq!(a, b);
        let bytes_a = std::fs::read(dir.path().join("a.tar")).expect("read");
        assert_eq!(
            bytes_a,
            std::fs::read(dir.path().join("b.tar")).expect("read")
        );
        let mut archive = tar::Archive::new(&bytes_a[..]);
        let mut names = Vec::new();
        for entry in archive.entries().expect("entries") {
            let entry = entry.expect("entry");
            let h = entry.header();
            assert_eq!(
                (
                    h.mtime().expect("mtime"),
                    h.uid().expect("uid"),
                    h.gid().expect("gid")
                ),
                (0, 0, 0)
            );
            names.push(entry.path().expect("path").display().to_string());
        }
        let hex = digest.trim_start_matches("sha256:");
        assert_eq!(
            names,
            [
                "oci-layout",
                "index.json",
                "blobs/",
                "blobs/sha256/",
                &format!("blobs/sha256/{hex}")
            ]
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn the_docker_manifest_names_the_config_the_tag_and_the_layers_in_order() {
        let image = DockerImage {
            config: format!("sha256:{}", "c".repeat(64)),
            layers: vec![
                format!("sha256:{}", "a".repeat(64)),
                format!("sha256:{}", "b".repeat(64)),
            ],
        };
        let manifest: serde_json::Value = serde_json::from_slice(&docker_manifest_json(
            "localhost:5000/app:1.0@sha256:0123",
            &image,
        ))
        .expect("JSON");
        assert_eq!(
            manifest,
            serde_json::json!([{
                "Config": format!("blobs/sha256/{}", "c".repeat(64)),
                "RepoTags": ["localhost:5000/app:1.0"],
                "Layers": [
                    format!("blobs/sha256/{}", "a".repeat(64)),
                    format!("blobs/sha256/{}", "b".repeat(64)),
                ],
            }])
        );
        let repositories: serde_json::Value =
            serde_json::from_slice(&docker_repositories_json("localhost:5000/app:1.0", &image))
                .expect("JSON");
        assert_eq!(
            repositories,
            serde_json::json!({"localhost:5000/app": {"1.0": "b".repeat(64)}})
        );
        let by_digest = docker_manifest_json("localhost:5000/app@sha256:0123", &image);
        let by_digest: serde_json::Value = serde_json::from_slice(&by_digest).expect("JSON");
        assert_eq!(by_digest[0]["RepoTags"], serde_json::json!([]));
        assert_eq!(
            docker_repositories_json("localhost:5000/app@sha256:0123", &image),
            b"{}\n"
        );
    }
}
