//! The bundled images against `versions.txt`: each tarball's reference and digest match an
//! `image:` line, each `image:` line has a tarball, and exactly one pause image is bundled.
//! Pure: works on what the tarball checks read.

use cks_pinning::image::ImageRef;
use cks_pinning::versions_txt::SkippedImage;

use super::finding::{Finding, Problem};
use super::tarball::LayoutEntry;

/// A tarball's path in the ISO with the entries of its `index.json`.
pub type Tarball = (String, Vec<LayoutEntry>);

/// Matches the tarballs with the `image:` lines (`listed`, `None` without `versions.txt`: then
/// only the pause images are counted) and counts pause images.
pub fn check(tarballs: &[Tarball], listed: Option<&[ImageRef]>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(listed) = listed {
        match_listed(tarballs, listed, &mut out);
    }
    check_pause(tarballs, &mut out);
    out
}

fn match_listed(tarballs: &[Tarball], listed: &[ImageRef], out: &mut Vec<Finding>) {
    for (path, entries) in tarballs {
        for entry in entries {
            let by_digest = listed
                .iter()
                .find(|i| i.digest() == Some(entry.digest.as_str()));
            let Some(name) = &entry.name else { continue };
            match by_digest {
                Some(image) if unpinned(image) == *name => {}
                Some(image) => out.push(Finding::new(
                    path,
                    Problem::Image,
                    format!(
                        "is named {name}, but versions.txt lists digest {} as {}",
                        entry.digest,
                        unpinned(image)
                    ),
                )),
                None => {
                    let same_name = listed.iter().find(|i| unpinned(i) == *name);
                    let detail = match same_name.and_then(ImageRef::digest) {
                        Some(recorded) => format!(
                            "{name} has digest {}, but versions.txt records {recorded}",
                            entry.digest
                        ),
                        None => format!(
                            "{name}@{} has no `image:` line in versions.txt",
                            entry.digest
                        ),
                    };
                    out.push(Finding::new(path, Problem::Image, detail));
                }
            }
        }
    }
    for image in listed {
        let bundled = tarballs
            .iter()
            .flat_map(|(_, entries)| entries)
            .any(|e| image.digest() == Some(e.digest.as_str()));
        if !bundled {
            out.push(Finding::new(
                "versions.txt",
                Problem::Image,
                format!("lists {image}, but no docker/*.tar holds it"),
            ));
        }
    }
}

fn check_pause(tarballs: &[Tarball], out: &mut Vec<Finding>) {
    let pauses: Vec<&str> = tarballs
        .iter()
        .flat_map(|(path, entries)| entries.iter().map(move |e| (path, e)))
        .filter(|(_, e)| e.name.as_deref().is_some_and(|n| n.contains("pause")))
        .filter_map(|(_, e)| e.name.as_deref())
        .collect();
    if pauses.len() != 1 {
        let found = if pauses.is_empty() {
            "none".to_string()
        } else {
            pauses.join(", ")
        };
        out.push(Finding::new(
            "docker",
            Problem::PauseImage,
            format!(
                "expected exactly one pause image, found {found}; nodes set the sandbox image with `ctr images ls -q | grep pause | sort | tail -1`"
            ),
        ));
    }
}

/// The reference without its digest, as containerd names the import.
pub fn unpinned(image: &ImageRef) -> String {
    match image.tag() {
        Some(tag) => format!("{}:{tag}", image.name()),
        None => image.name(),
    }
}

/// Whether `listed` (an `image:` or `skipped-image:` reference) is the image `wanted` names.
pub fn covers(listed: &ImageRef, wanted: &ImageRef) -> bool {
    listed.name() == wanted.name()
        && (wanted.tag().is_none() || wanted.tag() == listed.tag())
        && (wanted.digest().is_none() || wanted.digest() == listed.digest())
}

/// Whether `wanted` is bundled or recorded as skipped.
pub fn accounted_for(wanted: &ImageRef, bundled: &[ImageRef], skipped: &[SkippedImage]) -> bool {
    bundled.iter().any(|b| covers(b, wanted))
        || skipped.iter().any(|s| covers(&s.reference, wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned(name: &str, c: char) -> ImageRef {
        ImageRef::parse(&format!("{name}@sha256:{}", c.to_string().repeat(64))).expect("valid")
    }

    fn tarball(path: &str, name: &str, c: char) -> Tarball {
        (
            path.to_string(),
            vec![LayoutEntry {
                name: Some(name.to_string()),
                digest: format!("sha256:{}", c.to_string().repeat(64)),
            }],
        )
    }

    #[test]
    fn matching_tarballs_and_one_pause_are_clean() {
        let listed = [
            pinned("registry.k8s.io/pause:3.10", 'a'),
            pinned("registry.k8s.io/coredns/coredns:v1.12.0", 'b'),
        ];
        let tarballs = [
            tarball("docker/pause.tar", "registry.k8s.io/pause:3.10", 'a'),
            tarball(
                "docker/coredns.tar",
                "registry.k8s.io/coredns/coredns:v1.12.0",
                'b',
            ),
        ];
        assert_eq!(check(&tarballs, Some(&listed)), []);
    }

    #[test]
    fn a_changed_digest_an_unbundled_line_and_two_pauses_are_named() {
        let listed = [
            pinned("registry.k8s.io/pause:3.10", 'a'),
            pinned("registry.k8s.io/pause:3.9", 'c'),
            pinned("registry.k8s.io/etcd:3.5.21-0", 'd'),
        ];
        let tarballs = [
            tarball("docker/pause.tar", "registry.k8s.io/pause:3.10", 'a'),
            tarball("docker/pause-old.tar", "registry.k8s.io/pause:3.9", 'e'),
        ];
        let found: Vec<(String, Problem)> = check(&tarballs, Some(&listed))
            .into_iter()
            .map(|f| (f.path, f.problem))
            .collect();
        assert_eq!(
            found,
            [
                ("docker/pause-old.tar".to_string(), Problem::Image),
                ("versions.txt".to_string(), Problem::Image),
                ("versions.txt".to_string(), Problem::Image),
                ("docker".to_string(), Problem::PauseImage),
            ]
        );
    }

    #[test]
    fn without_versions_txt_only_pause_images_are_counted() {
        let tarballs = [tarball(
            "docker/x.tar",
            "docker.io/library/busybox:1.36",
            'a',
        )];
        let found = check(&tarballs, None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].problem, Problem::PauseImage);
    }
}
