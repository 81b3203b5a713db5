//! Images forged after packing, each read by the real `isoinfo` to show what a consumer of
//! the other tree gets, and each refused by `cks-iso verify` with the tree and file named.
//! The clean image they start from verifies OK.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::inspect_support::{Tree, cks_iso};
use cks_fixtures::process::require_program;

const SECTOR: usize = 2048;

/// A privileged Pod a forger would have a node apply.
const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: owned\n  namespace: kube-system\nspec:\n  hostPID: true\n  containers:\n  - name: x\n    image: evil.example/x\n    securityContext:\n      privileged: true\n";

fn le(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
}

fn put_both(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    bytes[at + 4..at + 8].copy_from_slice(&value.to_be_bytes());
}

/// The byte offset of the root record named `name` in the tree of the descriptor at `sector`.
fn root_record(iso: &[u8], sector: usize, name: &[u8]) -> usize {
    let d = &iso[sector * SECTOR..];
    let (start, len) = (le(d, 156 + 2), le(d, 156 + 10));
    let mut at = start * SECTOR;
    while at < start * SECTOR + len {
        let rec_len = iso[at] as usize;
        if rec_len == 0 {
            at = (at / SECTOR + 1) * SECTOR;
            continue;
        }
        let name_len = iso[at + 32] as usize;
        if &iso[at + 33..at + 33 + name_len] == name {
            return at;
        }
        at += rec_len;
    }
    panic!(
        "no record {:?} in the tree at sector {sector}",
        String::from_utf8_lossy(name)
    );
}

fn joliet_name(name: &str) -> Vec<u8> {
    name.encode_utf16().flat_map(u16::to_be_bytes).collect()
}

/// Appends `data` on a sector of its own; returns that sector. The volume space grows to
/// hold it, as a forger would make it.
fn append(iso: &mut Vec<u8>, data: &[u8]) -> u32 {
    let sector = iso.len() / SECTOR;
    iso.extend_from_slice(data);
    iso.resize((sector + data.len().div_ceil(SECTOR)) * SECTOR, 0);
    let space = (iso.len() / SECTOR) as u32;
    for descriptor in [16, 17] {
        put_both(iso, descriptor * SECTOR + 80, space);
    }
    sector as u32
}

/// Points the Joliet record of `/network.yaml` at `data`, appended to the image.
fn redirect_joliet(iso: &mut Vec<u8>, data: &[u8]) {
    let sector = append(iso, data);
    let rec = root_record(iso, 17, &joliet_name("network.yaml"));
    put_both(iso, rec + 2, sector);
    put_both(iso, rec + 10, data.len() as u32);
}

/// Renames the root's `ER` entry, so Linux no longer takes the image for Rock Ridge.
fn rename_er(iso: &mut [u8]) {
    let id = iso
        .windows(10)
        .position(|w| w == b"RRIP_1991A")
        .expect("an ER entry");
    assert_eq!(&iso[id - 8..id - 6], b"ER");
    iso[id - 8..id - 6].copy_from_slice(b"EX");
}

fn isoinfo(iso: &Path, tree: &str, path: &str) -> String {
    let program = require_program("isoinfo", "genisoimage").expect("isoinfo installed");
    let out = Command::new(program)
        .args(["-i"])
        .arg(iso)
        .args([tree, "-x", path])
        .output()
        .expect("run isoinfo");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

struct Forgery {
    tree: Tree,
    clean: PathBuf,
}

impl Forgery {
    fn new() -> Self {
        let tree = Tree::valid();
        let clean = tree.pack("clean");
        let out = cks_iso(&["verify".as_ref(), clean.as_os_str()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Forgery { tree, clean }
    }

    fn forge(&self, name: &str, patch: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
        let mut bytes = std::fs::read(&self.clean).expect("read the clean image");
        patch(&mut bytes);
        let out = self.tree.scratch().join(format!("{name}.iso"));
        std::fs::write(&out, bytes).expect("write the forgery");
        out
    }

    fn network(&self) -> String {
        self.tree.read("network.yaml")
    }
}

/// `cks-iso verify` on `iso`: its exit status must be a failure; returns stderr and stdout.
fn refused(iso: &Path) -> String {
    let out = cks_iso(&["verify".as_ref(), iso.as_os_str()]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !out.status.success(),
        "verify accepted {}: {text}",
        iso.display()
    );
    assert!(!text.contains("OK:"), "{text}");
    text
}

#[test]
fn renamed_er_and_a_redirected_joliet_record_show_a_pod_to_joliet_readers_and_are_refused() {
    let forgery = Forgery::new();
    let iso = forgery.forge("no-er", |iso| {
        rename_er(iso);
        redirect_joliet(iso, POD.as_bytes());
    });
    // What Linux mounts without ER (the Joliet tree) is the Pod; the Rock Ridge tree, which
    // the old check read, still holds the real file.
    assert_eq!(isoinfo(&iso, "-J", "/network.yaml"), POD);
    assert_eq!(isoinfo(&iso, "-R", "/network.yaml"), forgery.network());
    let text = refused(&iso);
    assert!(
        text.contains("no Rock Ridge ER entry while a Joliet descriptor exists"),
        "{text}"
    );
}

#[test]
fn a_joliet_record_pointing_at_other_bytes_is_refused_naming_tree_and_file() {
    let forgery = Forgery::new();
    let iso = forgery.forge("joliet", |iso| redirect_joliet(iso, POD.as_bytes()));
    assert_eq!(isoinfo(&iso, "-J", "/network.yaml"), POD);
    assert_eq!(isoinfo(&iso, "-R", "/network.yaml"), forgery.network());
    let text = refused(&iso);
    assert!(
        text.contains("the Joliet tree's /network.yaml points at other bytes")
            && text.contains("than the Rock Ridge tree's"),
        "{text}"
    );
}

#[test]
fn a_joliet_record_of_the_same_size_elsewhere_is_refused_too() {
    let forgery = Forgery::new();
    let len = forgery.network().len();
    let mut pod = POD.as_bytes().to_vec();
    pod.resize(len, b'#');
    let iso = forgery.forge("same-size", |iso| redirect_joliet(iso, &pod));
    assert_eq!(isoinfo(&iso, "-J", "/network.yaml").len(), len);
    assert_ne!(isoinfo(&iso, "-J", "/network.yaml"), forgery.network());
    let text = refused(&iso);
    assert!(
        text.contains("the Joliet tree's /network.yaml points at other bytes"),
        "{text}"
    );
}

#[test]
fn a_boot_record_or_a_second_primary_descriptor_is_refused() {
    let forgery = Forgery::new();
    let boot = forgery.forge("boot", |iso| {
        // The Joliet descriptor's sector becomes an El Torito boot record.
        let d = &mut iso[17 * SECTOR..18 * SECTOR];
        d.fill(0);
        d[1..6].copy_from_slice(b"CD001");
        d[6] = 1;
        d[7..30].copy_from_slice(b"EL TORITO SPECIFICATION");
    });
    let info = Command::new(require_program("isoinfo", "genisoimage").expect("isoinfo"))
        .args(["-d", "-i"])
        .arg(&boot)
        .output()
        .expect("run isoinfo -d");
    assert!(
        String::from_utf8_lossy(&info.stdout).contains("El Torito"),
        "{}",
        String::from_utf8_lossy(&info.stdout)
    );
    let text = refused(&boot);
    assert!(text.contains("sector 17: is a boot record"), "{text}");

    let second = forgery.forge("two-primaries", |iso| {
        let primary = iso[16 * SECTOR..17 * SECTOR].to_vec();
        iso[17 * SECTOR..18 * SECTOR].copy_from_slice(&primary);
    });
    let text = refused(&second);
    assert!(
        text.contains("sector 17: is a second primary descriptor"),
        "{text}"
    );
}

#[test]
fn a_relocation_entry_linux_would_hide_a_file_by_is_refused() {
    let forgery = Forgery::new();
    let iso = forgery.forge("relocated", |iso| {
        let rec = root_record(iso, 16, b"NETWORK.YAML;1");
        let len = iso[rec] as usize;
        let tf = iso[rec..rec + len]
            .windows(2)
            .rposition(|w| w == b"TF")
            .expect("a TF entry");
        iso[rec + tf..rec + tf + 2].copy_from_slice(b"RE");
    });
    let text = refused(&iso);
    assert!(
        text.contains("the Rock Ridge tree's /network.yaml: a SUSP entry RE"),
        "{text}"
    );
}

#[test]
fn an_iso_9660_1999_tree_is_read_and_must_agree() {
    let forgery = Forgery::new();
    let genisoimage = require_program("genisoimage", "genisoimage").expect("genisoimage");
    let level4 = forgery.tree.scratch().join("level4.iso");
    let status = Command::new(genisoimage)
        .args(["-iso-level", "4", "-J", "-r", "-quiet", "-V", "CDROM", "-o"])
        .arg(&level4)
        .arg(forgery.tree.root())
        .status()
        .expect("run genisoimage");
    assert!(status.success());
    let clean = cks_iso(&["verify".as_ref(), level4.as_os_str()]);
    assert!(
        clean.status.success(),
        "{}{}",
        String::from_utf8_lossy(&clean.stderr),
        String::from_utf8_lossy(&clean.stdout)
    );
    // The enhanced descriptor's root is pointed at the Joliet directories.
    let mut bytes = std::fs::read(&level4).expect("read");
    let joliet = (17..20)
        .find(|s| &bytes[s * SECTOR + 88..s * SECTOR + 90] == b"%/")
        .expect("a Joliet descriptor");
    let enhanced = (17..20)
        .find(|s| bytes[s * SECTOR] == 2 && bytes[s * SECTOR + 6] == 2)
        .expect("an enhanced descriptor");
    let root = bytes[joliet * SECTOR + 156..joliet * SECTOR + 190].to_vec();
    bytes[enhanced * SECTOR + 156..enhanced * SECTOR + 190].copy_from_slice(&root);
    let forged = forgery.tree.scratch().join("level4-forged.iso");
    std::fs::write(&forged, bytes).expect("write");
    let text = refused(&forged);
    assert!(text.contains("ISO 9660:1999 tree"), "{text}");
}
