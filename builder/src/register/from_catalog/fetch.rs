//! Reading the catalog, its signature and each ISO's signature (bounded), and fetching what an
//! ISO's URL serves into a scratch file as it is hashed (streamed, never more than the catalog's
//! size), before CloudStack is called.

use std::io::Read;
use std::time::Duration;

use futures_util::StreamExt;

use super::error::CatalogRegisterError;
use crate::digest::Sha256Count;
use crate::http::{HttpError, send};

/// How long a server may take to answer a request's headers or send the next bytes.
const STALL: Duration = Duration::from_secs(60);

/// The most read of a `.sig` file (a P-256 signature is under 100 bytes of base64).
pub const MAX_SIGNATURE: u64 = 64 * 1024;

/// Where the catalog is: a URL or a file.
pub fn is_url(source: &str) -> bool {
    source.starts_with("http://") || source.starts_with("https://")
}

/// The HTTP client for the catalog and the ISOs.
pub fn client() -> Result<reqwest::Client, CatalogRegisterError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| CatalogRegisterError::Read {
            what: "--catalog",
            source_name: String::new(),
            detail: format!("starting the HTTP client: {e}"),
        })
}

/// The bytes of `source` (a URL or a file), at most `limit`; `what` names it in errors.
pub async fn read_bounded(
    client: &reqwest::Client,
    what: &'static str,
    source: &str,
    limit: u64,
) -> Result<Vec<u8>, CatalogRegisterError> {
    let too_large = || CatalogRegisterError::TooLarge {
        source_name: source.to_string(),
        limit,
    };
    let failed = |detail: String| CatalogRegisterError::Read {
        what,
        source_name: source.to_string(),
        detail,
    };
    // The transport's messages name the URL, which the error names already.
    let http_failed = |e: HttpError| failed(e.to_string().replace(source, "").trim().to_string());
    if is_url(source) {
        let response = send(client.get(source), source, STALL)
            .await
            .map_err(http_failed)?;
        let kind = cks_pinning::limits::LimitKind::Manifest;
        return crate::http::read_bounded(response, source, kind, limit, STALL)
            .await
            .map_err(|e| match e {
                HttpError::TooLarge { .. } if what == "--catalog" => too_large(),
                HttpError::TooLarge { .. } => failed(format!("larger than {limit} bytes")),
                other => http_failed(other),
            });
    }
    let file = std::fs::File::open(source).map_err(|e| failed(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| failed(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(if what == "--catalog" {
            too_large()
        } else {
            failed(format!("larger than {limit} bytes"))
        });
    }
    Ok(bytes)
}

/// The SHA-256 of what `url` serves, which must be exactly `size` bytes with hex digest
/// `sha256`, written to `out` as it streams (so the bytes checked are the bytes hashed):
/// reading stops as soon as the body runs past `size`.
pub async fn fetch_iso(
    client: &reqwest::Client,
    url: &str,
    size: u64,
    sha256: &str,
    out: &mut (dyn std::io::Write + Send),
) -> Result<[u8; 32], CatalogRegisterError> {
    let failed = |detail: String| CatalogRegisterError::Read {
        what: "the ISO",
        source_name: url.to_string(),
        detail,
    };
    let mismatch = |served: String, expected: String| CatalogRegisterError::Mismatch {
        url: url.to_string(),
        served,
        expected,
    };
    let response = send(client.get(url), url, STALL)
        .await
        .map_err(|e| failed(e.to_string().replace(url, "").trim().to_string()))?;
    if let Some(length) = response.content_length()
        && length != size
    {
        return Err(mismatch(format!("{length} bytes"), format!("{size} bytes")));
    }
    let mut hash = Sha256Count::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = tokio::time::timeout(STALL, stream.next())
        .await
        .map_err(|_| failed(format!("the body stalled for {} s", STALL.as_secs())))?
    {
        let chunk = chunk.map_err(|e| failed(format!("reading the body: {e}")))?;
        if hash.bytes() + chunk.len() as u64 > size {
            return Err(mismatch(
                format!("more than {size} bytes"),
                format!("{size} bytes"),
            ));
        }
        hash.update(&chunk);
        out.write_all(&chunk)
            .map_err(|e| failed(format!("writing it to a scratch file: {e}")))?;
    }
    out.flush()
        .map_err(|e| failed(format!("writing it to a scratch file: {e}")))?;
    let digest = hash.finish();
    if digest.bytes != size {
        return Err(mismatch(
            format!("{} bytes", digest.bytes),
            format!("{size} bytes"),
        ));
    }
    if digest.hex() != sha256 {
        return Err(mismatch(
            format!("sha256 {}", digest.hex()),
            format!("sha256 {sha256}"),
        ));
    }
    let mut out = [0u8; 32];
    hex::decode_to_slice(digest.hex(), &mut out).map_err(|e| failed(e.to_string()))?;
    Ok(out)
}

/// `url` with its last path segment replaced by `name` (a file beside it).
pub fn beside(url: &str, name: &str) -> String {
    let path_start = url.find("://").map_or(0, |at| at + 3);
    let end = url[path_start..]
        .find(['?', '#'])
        .map_or(url.len(), |at| path_start + at);
    match url[path_start..end].rfind('/') {
        Some(slash) => format!("{}{name}", &url[..path_start + slash + 1]),
        None => format!("{}/{name}", &url[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_fixtures::http::{Fault, FileServer};

    fn flood(server: &FileServer, path: &str) {
        server.always(
            path,
            Fault::Flood {
                status: 200,
                length: None,
                fill: &[b'A'; 4096],
            },
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn endless_answers_are_read_no_further_than_their_bounds() {
        let dir = tempfile::tempdir().expect("dir");
        let server = FileServer::start(dir.path()).expect("file server");
        let client = client().expect("client");
        for path in ["/catalog.json", "/catalog.json.sig", "/cks.iso"] {
            flood(&server, path);
        }
        let catalog = server.url("/catalog.json");
        let err = read_bounded(&client, "--catalog", &catalog, 1 << 20)
            .await
            .expect_err("an endless catalog");
        assert!(
            matches!(&err, CatalogRegisterError::TooLarge { limit, .. } if *limit == 1 << 20),
            "{err}"
        );
        assert!(err.to_string().contains("--catalog-limit"), "{err}");
        let sig = server.url("/catalog.json.sig");
        let err = read_bounded(&client, "the catalog's signature", &sig, MAX_SIGNATURE)
            .await
            .expect_err("an endless signature");
        assert!(err.to_string().contains("larger than 65536 bytes"), "{err}");
        let iso = server.url("/cks.iso");
        let err = fetch_iso(
            &client,
            &iso,
            1 << 20,
            &"0".repeat(64),
            &mut std::io::sink(),
        )
        .await
        .expect_err("an endless ISO");
        assert!(err.to_string().contains("more than 1048576 bytes"), "{err}");
        // What the server pushed into the socket buffers before the client hung up, no more.
        assert!(
            server.body_bytes_sent() < 64 << 20,
            "{} bytes sent",
            server.body_bytes_sent()
        );
    }

    #[test]
    fn a_file_beside_a_url_replaces_its_last_segment() {
        assert_eq!(
            beside("https://h/cks/catalog.json?x=1", "a.iso"),
            "https://h/cks/a.iso"
        );
        assert_eq!(beside("https://h", "a.iso"), "https://h/a.iso");
    }
}
