//! One fake cloud and one file server holding an "ISO" for the version tests.

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::http::FileServer;
use sha2::{Digest, Sha256};

pub const KEY: &str = "ksv-key";
pub const SECRET: &str = "ksv-secret";

pub struct Setup {
    pub cloud: CloudWorld,
    pub api: CloudStackFake,
    pub files: FileServer,
    pub sha256: String,
    _dir: tempfile::TempDir,
}

pub fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let body: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("cks.iso"), &body).expect("write iso");
    let sha256 = hex::encode(Sha256::digest(&body));
    let files = FileServer::start(dir.path()).expect("file server");
    let cloud = CloudWorld::new(KEY, SECRET);
    let api = CloudStackFake::start(cloud.clone()).expect("fake starts");
    Setup {
        cloud,
        api,
        files,
        sha256,
        _dir: dir,
    }
}

/// Waits (bounded) until `done` holds, polling.
pub fn eventually(what: &str, done: impl FnMut() -> bool) {
    if let Err(e) = cks_fixtures::process::wait_until(what, std::time::Duration::from_secs(5), done)
    {
        panic!("{e}");
    }
}
