//! A preload whose SSH connection is really cut mid-copy, then finished by the next run, which
//! sends only the bytes the node's partial file still lacks. A loopback TCP relay in front of
//! the node stops forwarding once a connection has carried a set number of bytes, waits until
//! the node has written part of the tarball (so the cut falls in the middle of the copy, as on a
//! slow link), then closes the connection.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::preload_nodes::Cluster;

/// A relay to `target` that, while `cutting`, cuts a connection that carried `limit` bytes from
/// the client once the node's spool holds a partial file of at least `written` bytes.
struct CuttingRelay {
    port: u16,
    cutting: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl CuttingRelay {
    fn start(target: u16, limit: u64, spool: PathBuf, written: u64) -> CuttingRelay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let cutting = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, st) = (cutting.clone(), stop.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if st.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let cut = c
                    .load(Ordering::Relaxed)
                    .then(|| (limit, spool.clone(), written));
                relay(client, server, cut);
            }
        });
        CuttingRelay {
            port,
            cutting,
            stop,
        }
    }
}

impl Drop for CuttingRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// The size of the largest partial file in `spool`.
fn partial_size(spool: &Path) -> u64 {
    std::fs::read_dir(spool)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
                .filter_map(|e| e.metadata().ok().map(|m| m.len()))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

/// Copies both ways; with `cut`, stops once the client sent `limit` bytes, waits for the node's
/// partial file to reach `written` bytes, then closes both sides.
fn relay(client: TcpStream, server: TcpStream, cut: Option<(u64, PathBuf, u64)>) {
    let sent = Arc::new(AtomicU64::new(0));
    let (mut c_read, mut s_write) = (
        client.try_clone().expect("clone"),
        server.try_clone().expect("clone"),
    );
    let (mut s_read, mut c_write) = (server, client);
    let up = sent.clone();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 16 * 1024];
        while let Ok(n) = c_read.read(&mut buffer) {
            if n == 0 || s_write.write_all(&buffer[..n]).is_err() {
                break;
            }
            let total = up.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
            if let Some((limit, spool, written)) = &cut
                && total > *limit
            {
                cks_fixtures::process::wait_until(
                    "the node to write part of the tarball",
                    Duration::from_secs(30),
                    || partial_size(spool) >= *written,
                )
                .expect("the node writes what it received");
                break;
            }
        }
        let _ = s_write.shutdown(Shutdown::Both);
        let _ = c_read.shutdown(Shutdown::Both);
    });
    std::thread::spawn(move || {
        let mut buffer = [0u8; 16 * 1024];
        while let Ok(n) = s_read.read(&mut buffer) {
            if n == 0 || c_write.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
        let _ = c_write.shutdown(Shutdown::Both);
        let _ = s_read.shutdown(Shutdown::Both);
    });
}

#[test]
fn a_copy_really_cut_off_is_finished_by_the_next_run_with_only_the_missing_bytes() {
    let cluster = Cluster::start(1);
    let node = &cluster.nodes[0];
    let spool = node.own.path().join("spool");
    let relay = CuttingRelay::start(node.sshd.port(), 1_500_000, spool.clone(), 1_000_000);
    {
        let mut state = cluster.cloud.lock();
        for rule in &mut state.access.port_forwards {
            rule.public_port = relay.port;
        }
    }
    let mut known = std::fs::read_to_string(&cluster.known_hosts).expect("known_hosts");
    known.push_str(&format!(
        "[127.0.0.1]:{} {}\n",
        relay.port,
        node.sshd.host_public_key()
    ));
    std::fs::write(&cluster.known_hosts, known).expect("known_hosts");

    let (out, first) = cluster.preload();
    assert_eq!(out.status.code(), Some(1), "{first}");
    assert_eq!(first[0]["outcome"], "failed", "{first}");
    let partial = partial_size(&spool);
    assert!(partial >= 1_000_000, "a partial copy is left: {first}");
    let before = node.images();
    let lacking: u64 = cluster
        .images
        .iter()
        .filter(|i| !before.contains(&(i.name.clone(), i.digest.clone())))
        .map(|i| i.size)
        .sum();

    relay.cutting.store(false, Ordering::Relaxed);
    let (out, second) = cluster.preload();
    assert_eq!(out.status.code(), Some(0), "{second}");
    assert_eq!(second[0]["outcome"], "preloaded", "{second}");
    assert_eq!(
        second[0]["bytes_sent"].as_u64(),
        Some(lacking - partial),
        "only the bytes the partial lacked, then the rest: {first}\n{second}"
    );
    assert_eq!(node.images(), cluster.expected());
}
