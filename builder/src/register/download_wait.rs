//! `register --wait`: polls a newly added version until secondary storage has its ISO Ready,
//! and stops at once when CloudStack reports the download failed — a `downloaddetails[]`
//! `downloadState` of `DOWNLOAD_ERROR` or `ABANDONED`, or a `listIsos` status that is neither
//! progress nor success (the downloader's own text, e.g. `" HTTP Server returned 404 (expected
//! 200 OK) "`, while `isostate` stays `Allocated`). A failed version is removed again.

use std::time::{Duration, Instant};

use cks_cloudstack::{CloudStackClient, Iso, KubernetesVersion};

use super::error::RegisterError;
use super::request::RegisterSettings;

/// What one poll of the version and its ISO says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Progress {
    /// The ISO is Ready.
    Ready,
    /// Still downloading or installing.
    Pending,
    /// The download failed; CloudStack's own words.
    Failed,
}

/// The download states CloudStack ends a failed download in.
const FAILED_STATES: [&str; 3] = ["DOWNLOAD_ERROR", "ABANDONED", "UPLOAD_ERROR"];

/// Whether `status` is one CloudStack shows while a download is under way or done: `<n>%
/// Downloaded`, `Installing ISO`, `Processing`, `Successfully Installed`, `Bypassed Secondary
/// Storage`, or the template state it shows before the first progress (`Active`).
fn known_status(status: &str) -> bool {
    let status = status.trim();
    if let Some(percent) = status.strip_suffix("% Downloaded") {
        return !percent.is_empty() && percent.bytes().all(|b| b.is_ascii_digit());
    }
    status.is_empty()
        || [
            "Successfully Installed",
            "Installing ISO",
            "Processing",
            "Bypassed Secondary Storage",
            "Downloading",
            "Download in progress",
            "Active",
        ]
        .contains(&status)
}

/// Judges one poll: the version's `isostate` (`None` when the version is gone) and its ISO.
pub(crate) fn judge(iso_state: Option<&str>, iso: Option<&Iso>) -> Progress {
    let Some(state) = iso_state else {
        return Progress::Failed;
    };
    if state == "Ready" {
        return Progress::Ready;
    }
    let Some(iso) = iso else {
        return Progress::Pending;
    };
    let failed_state = iso.download_details.iter().any(|d| {
        d.download_state
            .as_deref()
            .is_some_and(|s| FAILED_STATES.contains(&s))
    });
    if failed_state || !known_status(iso.status.as_deref().unwrap_or_default()) {
        Progress::Failed
    } else {
        Progress::Pending
    }
}

/// CloudStack's words about the download: its `downloadState`s and its status, quoted as sent.
pub(crate) fn describe(iso: Option<&Iso>) -> String {
    let Some(iso) = iso else {
        return "no ISO listed".to_string();
    };
    let states: Vec<&str> = iso
        .download_details
        .iter()
        .filter_map(|d| d.download_state.as_deref())
        .filter(|s| !s.is_empty())
        .collect();
    let status = match iso.status.as_deref() {
        Some(status) if !status.is_empty() => format!("status {status:?}"),
        _ => "no status".to_string(),
    };
    if states.is_empty() {
        status
    } else {
        format!("downloadState {}, {status}", states.join(", "))
    }
}

/// Polls until the ISO is Ready; on a failed download removes the version again; on timeout
/// says where the download was.
pub(crate) fn wait_ready(
    client: &CloudStackClient,
    added: &KubernetesVersion,
    url: &str,
    settings: &RegisterSettings,
    say: &mut dyn FnMut(&str),
) -> Result<String, RegisterError> {
    let start = Instant::now();
    let mut last = String::new();
    loop {
        let state = client
            .list_kubernetes_versions(Some(&added.id))?
            .into_iter()
            .next()
            .map(|v| v.iso_state);
        let iso = match state.as_deref() {
            Some("Ready") => None,
            _ => client.iso(&added.iso_id)?,
        };
        let shown_state = state.clone().unwrap_or_else(|| "(gone)".to_string());
        let words = describe(iso.as_ref());
        match judge(state.as_deref(), iso.as_ref()) {
            Progress::Ready => {
                say(&format!("ISO Ready after {:.1?}", start.elapsed()));
                return Ok(shown_state);
            }
            Progress::Failed => {
                let cleanup = if state.is_none() {
                    "the version is gone from CloudStack".to_string()
                } else {
                    match client.delete_kubernetes_version(&added.id) {
                        Ok(()) => "the version was removed again".to_string(),
                        Err(e) => format!("removing the version {} failed too: {e}", added.id),
                    }
                };
                return Err(RegisterError::DownloadFailed {
                    version: added.semantic_version.clone(),
                    url: url.to_string(),
                    state: shown_state,
                    status: words,
                    cleanup,
                });
            }
            Progress::Pending => {}
        }
        if words != last {
            say(&format!("ISO {shown_state}: {words}"));
            last = words.clone();
        }
        if start.elapsed() >= settings.timeout {
            return Err(RegisterError::Timeout {
                version: added.semantic_version.clone(),
                id: added.id.clone(),
                waited: start.elapsed(),
                state: shown_state,
                status: words,
            });
        }
        std::thread::sleep(
            settings
                .poll_interval
                .min(settings.timeout.saturating_sub(start.elapsed()))
                .max(Duration::from_millis(1)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_cloudstack::DownloadDetail;

    fn iso(status: Option<&str>, download_state: &str) -> Iso {
        Iso {
            id: "iso-1".to_string(),
            name: "v1.33.13-Kubernetes-Binaries-ISO".to_string(),
            is_ready: false,
            status: status.map(str::to_string),
            checksum: None,
            url: None,
            download_details: vec![DownloadDetail {
                datastore: Some("nfs://secondary".to_string()),
                download_state: Some(download_state.to_string()),
                download_percent: Some("0".to_string()),
            }],
        }
    }

    #[test]
    fn progress_texts_keep_waiting() {
        for status in [
            None,
            Some("0% Downloaded"),
            Some("35% Downloaded"),
            Some("Installing ISO"),
            Some("Processing"),
            Some("Active"),
        ] {
            let iso = iso(status, "DOWNLOAD_IN_PROGRESS");
            assert_eq!(
                judge(Some("Creating"), Some(&iso)),
                Progress::Pending,
                "{status:?}"
            );
        }
    }

    #[test]
    fn the_downloaders_own_texts_are_failures() {
        for status in [
            " HTTP Server returned 404 (expected 200 OK) ",
            "Unable to start download -- check url? ",
            "checksum \"ab\" didn't match the given value, \"cd\"",
        ] {
            let iso = iso(Some(status), "NOT_DOWNLOADED");
            assert_eq!(
                judge(Some("Allocated"), Some(&iso)),
                Progress::Failed,
                "{status:?}"
            );
        }
    }

    #[test]
    fn a_failed_download_state_is_a_failure_whatever_the_status() {
        for state in ["DOWNLOAD_ERROR", "ABANDONED"] {
            let iso = iso(Some("35% Downloaded"), state);
            assert_eq!(judge(Some("Allocated"), Some(&iso)), Progress::Failed);
        }
    }

    #[test]
    fn ready_and_gone_are_decided_by_the_version() {
        assert_eq!(judge(Some("Ready"), None), Progress::Ready);
        assert_eq!(judge(None, None), Progress::Failed);
        assert_eq!(judge(Some("Allocated"), None), Progress::Pending);
    }

    #[test]
    fn the_description_quotes_cloudstack_exactly() {
        let iso = iso(
            Some(" HTTP Server returned 404 (expected 200 OK) "),
            "DOWNLOAD_ERROR",
        );
        assert_eq!(
            describe(Some(&iso)),
            "downloadState DOWNLOAD_ERROR, status \" HTTP Server returned 404 (expected 200 OK) \""
        );
    }
}
