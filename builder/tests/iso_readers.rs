//! The image read back by real readers: xorriso, isoinfo and bsdtar see every file with its Rock
//! Ridge name and mode, extract the same bytes, and show the volume id and Joliet names.

use crate::iso_support;

use std::collections::BTreeMap;
use std::fs;

use crate::iso_support::{
    Workspace, expected, isoinfo_listing, long_names, run, sha256_file, xorriso_lsdl,
};
use cks_builder::iso::{BuildTime, PackOptions, PackWarning, pack};

fn packed(ws: &Workspace, options: &PackOptions) -> std::path::PathBuf {
    let out = ws.path("cks.iso");
    pack(&ws.tree(), &out, options).expect("pack the sample tree");
    out
}

fn options() -> PackOptions {
    PackOptions::with_time(BuildTime::fixed(1_700_000_000))
}

#[test]
fn xorriso_lists_every_entry_with_its_rock_ridge_mode_full_name_and_owner() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options());
    let want = expected(&ws.tree());
    let listed = xorriso_lsdl(&iso);
    assert_eq!(
        listed.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "xorriso lists exactly the source entries, by full name"
    );
    for (path, entry) in &want {
        let got = &listed[path];
        assert_eq!(got.mode, entry.mode, "mode of {path}");
        assert_eq!(got.target, entry.target, "symlink target of {path}");
        if entry.sha256.is_some() {
            assert_eq!(got.size, entry.size, "size of {path}");
        }
    }
    assert_eq!(listed["/binaries/1.33.13/kubeadm"].mode, "-rwxr-xr-x");
    assert_eq!(
        listed["/docker/kube-apiserver:v1.33.13.tar"].mode,
        "-rw-r--r--"
    );
    assert_eq!(listed["/cni"].mode, "drwxr-xr-x");
    assert_eq!(
        listed["/binaries/current"].target.as_deref(),
        Some("1.33.13")
    );
}

#[test]
fn xorriso_shows_owner_root_and_source_date_epoch_times() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options());
    let text = run(
        "xorriso",
        "xorriso",
        &[
            "-indev",
            &iso.display().to_string(),
            "-find",
            "/",
            "-exec",
            "lsdl",
        ],
    );
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((cols[2], cols[3]), ("0", "0"), "owner 0:0 in {line}");
        // 1700000000 is 2023-11-14 22:13:20 UTC.
        assert_eq!(
            (cols[5], cols[6], cols[7]),
            ("Nov", "14", "2023"),
            "date in {line}"
        );
    }
}

#[test]
fn isoinfo_rock_ridge_listing_shows_every_full_name_and_mode() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options());
    let want = expected(&ws.tree());
    let listed = isoinfo_listing(&iso, "-R");
    let got: BTreeMap<_, _> = listed
        .iter()
        .map(|(path, (mode, _, target))| (path.clone(), (mode.clone(), target.clone())))
        .collect();
    let want: BTreeMap<_, _> = want
        .iter()
        .map(|(path, e)| (path.clone(), (e.mode.clone(), e.target.clone())))
        .collect();
    assert_eq!(got, want);
    for name in long_names() {
        assert!(
            listed.contains_key(&format!("/manifests/{name}")),
            "{name} listed in full"
        );
    }
}

#[test]
fn xorriso_and_bsdtar_extract_every_file_with_the_source_sha256() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options());
    let want = expected(&ws.tree());
    let by_xorriso = ws.path("xorriso-out");
    run(
        "xorriso",
        "xorriso",
        &[
            "-osirrox",
            "on",
            "-indev",
            &iso.display().to_string(),
            "-extract",
            "/",
            &by_xorriso.display().to_string(),
        ],
    );
    let by_bsdtar = ws.path("bsdtar-out");
    fs::create_dir_all(&by_bsdtar).expect("mkdir");
    run(
        "bsdtar",
        "libarchive-tools",
        &[
            "-C",
            &by_bsdtar.display().to_string(),
            "-xpf",
            &iso.display().to_string(),
        ],
    );
    for out in [&by_xorriso, &by_bsdtar] {
        let got = expected(out);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "entries extracted to {}",
            out.display()
        );
        for (path, entry) in &want {
            assert_eq!(
                got[path].sha256,
                entry.sha256,
                "sha256 of {path} from {}",
                out.display()
            );
            assert_eq!(got[path].target, entry.target, "symlink {path}");
            assert_eq!(
                got[path].mode,
                entry.mode,
                "mode of {path} from {}",
                out.display()
            );
        }
    }
    assert_eq!(
        sha256_file(&by_bsdtar.join("binaries/1.33.13/kubeadm")),
        sha256_file(&ws.tree().join("binaries/1.33.13/kubeadm"))
    );
}

#[test]
fn isoinfo_shows_volume_id_cdrom_by_default_and_the_one_asked_for() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options());
    let info = run(
        "isoinfo",
        "genisoimage",
        &["-d", "-i", &iso.display().to_string()],
    );
    assert!(info.contains("Volume id: CDROM\n"), "{info}");
    assert!(
        info.contains("Rock Ridge signatures version 1 found"),
        "{info}"
    );
    assert!(info.contains("Joliet with UCS level 3 found"), "{info}");

    let custom = ws.path("custom.iso");
    let options = PackOptions::new("CKS_1_33_13", BuildTime::fixed(1)).expect("valid id");
    pack(&ws.tree(), &custom, &options).expect("pack");
    let info = run(
        "isoinfo",
        "genisoimage",
        &["-d", "-i", &custom.display().to_string()],
    );
    assert!(info.contains("Volume id: CKS_1_33_13\n"), "{info}");
}

/// The Joliet form of a name: at most 64 characters, forbidden characters as `_`.
fn joliet(name: &str) -> String {
    name.chars()
        .take(64)
        .map(|c| {
            if matches!(c, '*' | '/' | ':' | ';' | '?' | '\\') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

#[test]
fn joliet_names_are_cut_to_64_characters_and_each_cut_is_a_returned_warning() {
    let ws = Workspace::with_sample();
    let out = ws.path("cks.iso");
    let packed = pack(&ws.tree(), &out, &options()).expect("pack");
    let listed = isoinfo_listing(&out, "-J");
    let want: Vec<String> = expected(&ws.tree())
        .into_iter()
        .filter(|(_, e)| e.target.is_none())
        .map(|(path, _)| path.split('/').map(joliet).collect::<Vec<_>>().join("/"))
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(
        listed.keys().cloned().collect::<Vec<_>>(),
        want,
        "Joliet names"
    );
    assert!(listed.keys().all(|p| {
        p.rsplit('/')
            .next()
            .is_some_and(|n| n.chars().count() <= 64)
    }));

    let mut cut: Vec<String> = packed
        .warnings
        .iter()
        .filter_map(|w| match w {
            PackWarning::JolietNameCut { path, joliet_name } => {
                assert_eq!(joliet_name.chars().count(), 64, "{w}");
                Some(path.clone())
            }
            _ => None,
        })
        .collect();
    cut.sort();
    let mut long: Vec<String> = long_names()
        .into_iter()
        .map(|n| format!("manifests/{n}"))
        .collect();
    long.sort();
    assert_eq!(cut, long, "one warning per cut name, naming it");
    assert!(packed.warnings.iter().any(|w| matches!(
        w,
        PackWarning::JolietNameChanged { path, .. } if path == "docker/kube-apiserver:v1.33.13.tar"
    )));
}

#[test]
fn no_joliet_writes_rock_ridge_only() {
    let ws = Workspace::with_sample();
    let iso = packed(&ws, &options().without_joliet());
    let info = run(
        "isoinfo",
        "genisoimage",
        &["-d", "-i", &iso.display().to_string()],
    );
    assert!(info.contains("NO Joliet present"), "{info}");
    assert!(!info.contains("Joliet with UCS"), "{info}");
    assert!(
        info.contains("Rock Ridge signatures version 1 found"),
        "{info}"
    );
    let listed = xorriso_lsdl(&iso);
    assert_eq!(listed.len(), expected(&ws.tree()).len());
}

#[test]
fn hard_links_are_stored_once_and_extract_under_both_names() {
    let ws = Workspace::with_sample();
    let tree = ws.tree();
    let data = iso_support::bytes(99, 2 << 20);
    fs::write(tree.join("binaries/1.33.13/crictl"), &data).expect("write");
    fs::hard_link(
        tree.join("binaries/1.33.13/crictl"),
        tree.join("binaries/crictl"),
    )
    .expect("link");
    let plain = ws.path("plain-tree");
    iso_support::write_sample(&plain);
    let with_links = pack(&tree, &ws.path("links.iso"), &options()).expect("pack");
    let without = pack(&plain, &ws.path("plain.iso"), &options()).expect("pack");
    let extra = with_links.size - without.size;
    assert!(
        extra < 3 << 20,
        "2 MiB stored once, not twice: {extra} extra bytes"
    );
    let out = ws.path("extracted");
    run(
        "xorriso",
        "xorriso",
        &[
            "-osirrox",
            "on",
            "-indev",
            &with_links.path.display().to_string(),
            "-extract",
            "/",
            &out.display().to_string(),
        ],
    );
    for name in ["binaries/1.33.13/crictl", "binaries/crictl"] {
        assert_eq!(fs::read(out.join(name)).expect("extracted"), data, "{name}");
    }
}
