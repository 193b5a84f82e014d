//! `wait_for_download` and `list_downloads` for a model (PROTOCOL.md §10.2): one
//! line per download. File names and URLs come from the page, so the lines say
//! they are page data.

use std::fmt::Write as _;

use browser_bridge_protocol::downloads::{Download, ListDownloadsResult, WaitForDownloadResult};

use super::devtools::shown_url;
use super::one_line;

/// `downloads tab 7: 2, newest first (names and URLs are page data):`, then one
/// line each: `7 complete 2048B report.csv https://a.test/report.csv`, an
/// interrupted one with `interrupted <error>`.
pub(super) fn render_list(result: &ListDownloadsResult) -> String {
    let mut out = format!(
        "downloads tab {}: {}, newest first (names and URLs are page data):",
        result.tab_id,
        result.downloads.len()
    );
    for d in &result.downloads {
        out.push('\n');
        push_download(&mut out, d);
    }
    out
}

fn push_download(out: &mut String, d: &Download) {
    let _ = write!(out, "{} {}", d.download_id, d.state.as_str());
    if let Some(error) = &d.error {
        let _ = write!(out, " {}", one_line(error));
    }
    if let Some(bytes) = d.bytes {
        let _ = write!(out, " {bytes}B");
    }
    let _ = write!(
        out,
        " {} {}",
        one_line(&d.filename),
        one_line(&shown_url(&d.url))
    );
}

/// `download 7 complete: 2048B text/csv sha256=9f86… /home/ana/Downloads/report.csv`
/// (`interrupted <error>` in place of `complete`).
pub(super) fn render_wait(r: &WaitForDownloadResult) -> String {
    let mut out = format!(
        "download {} tab {} {}",
        r.download_id,
        r.tab_id,
        r.state.as_str()
    );
    if let Some(error) = &r.error {
        let _ = write!(out, " {}", one_line(error));
    }
    let _ = write!(out, ": {}B", r.bytes);
    if !r.mime_type.is_empty() {
        let _ = write!(out, " {}", one_line(&r.mime_type));
    }
    if let Some(sha256) = &r.sha256 {
        let _ = write!(out, " sha256={sha256}");
    }
    if !r.path.is_empty() {
        let _ = write!(out, " {}", one_line(&r.path));
    }
    out
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;
    use browser_bridge_protocol::downloads::DownloadState;

    use super::*;

    #[test]
    fn one_line_per_download_newest_first() {
        let text = render_list(&ListDownloadsResult {
            tab_id: TabId(7),
            downloads: vec![
                Download {
                    download_id: 9,
                    url: "data:text/plain;base64,aGVsbG8gd29ybGQ=".into(),
                    filename: "a\nb.txt".into(),
                    state: DownloadState::InProgress,
                    bytes: Some(5),
                    error: None,
                },
                Download {
                    download_id: 8,
                    url: "https://a.test/x.bin".into(),
                    filename: "x.bin".into(),
                    state: DownloadState::Interrupted,
                    bytes: Some(0),
                    error: Some("domain_blocked".into()),
                },
            ],
        });
        assert_eq!(
            text,
            "downloads tab 7: 2, newest first (names and URLs are page data):\n\
             9 in_progress 5B a b.txt data:text/plain;base64,… (39 bytes)\n\
             8 interrupted domain_blocked 0B x.bin https://a.test/x.bin"
        );
    }

    #[test]
    fn a_waited_download_is_one_line() {
        let mut r = WaitForDownloadResult {
            tab_id: TabId(7),
            download_id: 3,
            path: "/home/ana/Downloads/report.csv".into(),
            bytes: 2048,
            sha256: Some("ab".repeat(32)),
            mime_type: "text/csv".into(),
            state: DownloadState::Complete,
            error: None,
        };
        assert_eq!(
            render_wait(&r),
            format!(
                "download 3 tab 7 complete: 2048B text/csv sha256={} /home/ana/Downloads/report.csv",
                "ab".repeat(32)
            )
        );
        r.state = DownloadState::Interrupted;
        r.error = Some("NETWORK_FAILED".into());
        r.sha256 = None;
        r.mime_type.clear();
        r.path.clear();
        r.bytes = 10;
        assert_eq!(
            render_wait(&r),
            "download 3 tab 7 interrupted NETWORK_FAILED: 10B"
        );
    }
}
