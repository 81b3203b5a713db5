//! The SBOM of a whole build: `sbom.spdx.json` inside the ISO (read back with the real
//! xorriso) and `<iso>.spdx.json` beside it hold the same bytes, the real SPDX tools
//! (`pyspdxtools -i`) accept it, it names every file of versions.txt and every image with its
//! layers (their SHA-1 and SHA-256 checked with the real `sha1sum`/`sha256sum` on the blobs the
//! tarball holds), its creation time is `SOURCE_DATE_EPOCH`, and a rebuild (with the layers'
//! SHA-1 remembered in the cache folder) gives the same bytes.

use std::path::Path;
use std::process::Command;

use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::demo::DemoConfig;
use cks_pinning::versions_txt::VersionsTxt;
use serde_json::Value;

fn extract(iso: &Path, path: &str, dest: &Path) {
    let status = Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(iso)
        .args(["-extract", path])
        .arg(dest)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("xorriso runs");
    assert!(status.success(), "xorriso extracts {path}: {status}");
}

fn digest_with(tool: &str, file: &Path) -> String {
    let output = Command::new(tool)
        .arg(file)
        .output()
        .expect("the hash tool runs");
    assert!(output.status.success(), "{tool} {}", file.display());
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

fn checksum<'a>(value: &'a Value, algorithm: &str) -> &'a str {
    value["checksums"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["algorithm"] == algorithm))
        .and_then(|c| c["checksumValue"].as_str())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_iso_and_its_side_carry_one_valid_sbom_of_every_file_image_and_layer() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let out = tempfile::tempdir().expect("out dir");
    let cache = tempfile::tempdir().expect("cache dir");
    let mut inputs = demo_inputs(&upstream, out.path(), "x86_64");
    inputs.cache_dir = Some(cache.path().to_path_buf());
    let summary = run_build(&inputs, Request::default())
        .await
        .expect("the build");
    assert_eq!(
        summary.sbom,
        Path::new(&format!("{}.spdx.json", summary.iso.display()))
    );
    let beside = std::fs::read_to_string(&summary.sbom).expect("the SBOM beside the ISO");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&summary.sbom)
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o644,
        "the SBOM beside the ISO is readable by all"
    );
    let scratch = tempfile::tempdir().expect("scratch dir");
    let inside_path = scratch.path().join("inside.spdx.json");
    extract(&summary.iso, "/sbom.spdx.json", &inside_path);
    let inside = std::fs::read_to_string(&inside_path).expect("the SBOM inside the ISO");
    assert_eq!(inside, beside, "the SBOM inside and beside the ISO differ");

    // The real SPDX tools accept it.
    match Command::new("pyspdxtools")
        .arg("-i")
        .arg(&inside_path)
        .output()
    {
        Ok(output) => {
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(output.status.success(), "pyspdxtools refused it:\n{said}");
            assert!(!said.to_lowercase().contains("invalid"), "{said}");
        }
        Err(e) => cks_fixtures::skip::skip(&format!(
            "pyspdxtools is not installed ({e}); scripts/test installs it"
        )),
    }

    let versions = VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("versions.txt");
    let doc: Value = serde_json::from_str(&inside).expect("JSON");
    assert_eq!(doc["spdxVersion"], "SPDX-2.3");
    assert_eq!(doc["creationInfo"]["created"], "2023-11-14T22:13:20Z");
    let creators = doc["creationInfo"]["creators"].to_string();
    assert!(
        creators.contains(&format!("Tool: cks-iso-{}", env!("CARGO_PKG_VERSION"))),
        "{creators}"
    );
    let packages = doc["packages"].as_array().expect("packages");
    let tarballs: Vec<&str> = packages
        .iter()
        .filter(|p| p["primaryPackagePurpose"] == "CONTAINER")
        .filter_map(|p| p["packageFileName"].as_str())
        .collect();
    // Every file of versions.txt, each image's tarball included: a package of its own with the
    // file's sha256, so every file of the ISO has its checksum in the SBOM.
    for file in &versions.files {
        let package = packages
            .iter()
            .find(|p| {
                p["packageFileName"] == file.path.as_str()
                    && p["primaryPackagePurpose"] != "CONTAINER"
            })
            .unwrap_or_else(|| panic!("{} has no package", file.path));
        assert_eq!(checksum(package, "SHA256"), file.sha256, "{}", file.path);
        if tarballs.contains(&file.path.as_str()) {
            assert_eq!(package["primaryPackagePurpose"], "ARCHIVE", "{}", file.path);
            continue;
        }
        let purl = package["externalRefs"].to_string();
        assert!(
            purl.contains("pkg:generic/") || purl.contains("pkg:github/"),
            "{purl}"
        );
    }
    assert_eq!(tarballs.len(), versions.images.len());

    // Every image: its digest and purl, and each layer's SHA-1 and SHA-256 as the real tools
    // compute them on the blob in its tarball.
    let files = doc["files"].as_array().expect("files");
    let relationships = doc["relationships"].as_array().expect("relationships");
    let mut layers_checked = 0;
    for image in &versions.images {
        let package = packages
            .iter()
            .find(|p| p["externalRefs"].to_string().contains(&image.to_string()))
            .unwrap_or_else(|| panic!("{image} has no package"));
        let digest = image.digest().expect("pinned");
        assert_eq!(
            format!("sha256:{}", checksum(package, "SHA256")),
            digest,
            "{image}"
        );
        let refs = package["externalRefs"].to_string();
        assert!(
            refs.contains("pkg:oci/") && refs.contains("repository_url") && refs.contains("arch"),
            "{refs}"
        );
        let tarball = package["packageFileName"].as_str().expect("its tarball");
        let unpacked = scratch.path().join(format!("image-{layers_checked}"));
        std::fs::create_dir_all(&unpacked).expect("unpack dir");
        let tar_path = scratch.path().join("image.tar");
        extract(&summary.iso, &format!("/{tarball}"), &tar_path);
        // The tarball's own package holds the SHA-256 the real sha256sum gives its bytes.
        let archive = packages
            .iter()
            .find(|p| p["packageFileName"] == tarball && p["primaryPackagePurpose"] == "ARCHIVE")
            .unwrap_or_else(|| panic!("{tarball} has no package of its own"));
        assert_eq!(
            checksum(archive, "SHA256"),
            digest_with("sha256sum", &tar_path),
            "{tarball}"
        );
        let status = Command::new("tar")
            .arg("-xf")
            .arg(&tar_path)
            .arg("-C")
            .arg(&unpacked)
            .status()
            .expect("tar runs");
        assert!(status.success());
        let id = package["SPDXID"].as_str().expect("an id");
        let contained: Vec<&str> = relationships
            .iter()
            .filter(|r| r["spdxElementId"] == id && r["relationshipType"] == "CONTAINS")
            .filter_map(|r| r["relatedSpdxElement"].as_str())
            .collect();
        assert!(!contained.is_empty(), "{image} lists no layers");
        for layer_id in contained {
            let layer = files
                .iter()
                .find(|f| f["SPDXID"] == layer_id)
                .expect("the layer's file entry");
            let name = layer["fileName"].as_str().expect("a file name");
            let blob = unpacked.join(name.trim_start_matches("./"));
            assert_eq!(checksum(layer, "SHA1"), digest_with("sha1sum", &blob));
            assert_eq!(checksum(layer, "SHA256"), digest_with("sha256sum", &blob));
            layers_checked += 1;
        }
        std::fs::remove_file(&tar_path).expect("remove the tarball copy");
    }
    assert!(layers_checked >= versions.images.len());
    // The ISO contains each package.
    let contains_from_iso = relationships
        .iter()
        .filter(|r| r["spdxElementId"] == "SPDXRef-ISO" && r["relationshipType"] == "CONTAINS")
        .count();
    assert_eq!(contains_from_iso, packages.len() - 1);

    // The ISO verifies, its SBOM included.
    let report = cks_builder::inspect::verify(&summary.iso).expect("readable");
    assert!(report.is_clean(), "{report}");

    // The same inputs give the same SBOM; the rebuild takes the layers' SHA-1 from the memo
    // in the cache folder instead of reading them again.
    let memo = std::fs::read_dir(cache.path().join("sha1"))
        .expect("the SHA-1 memo")
        .count();
    assert!(memo >= versions.images.len(), "{memo} remembered SHA-1s");
    let again = tempfile::tempdir().expect("out dir");
    let mut inputs = inputs.clone();
    inputs.output_path = Some(again.path().to_path_buf());
    let rebuilt = run_build(&inputs, Request::default())
        .await
        .expect("the rebuild");
    assert_eq!(
        std::fs::read_to_string(&rebuilt.sbom).expect("the rebuilt SBOM"),
        beside
    );
    assert_eq!(rebuilt.sha256, summary.sha256);
}
