//! Pure decisions about a session's downloads (PROTOCOL.md §10.2): which
//! `chrome.downloads` item a `Page.downloadWillBegin` names, which URL the
//! blocklist judges, and how an item reads on the wire.

use browser_bridge_protocol::downloads::DownloadState;

/// The URL whose host the blocklist judges: a `blob:` URL's origin is the URL
/// it wraps (`blob:https://a.test/…` → `https://a.test/…`); any other as is.
pub fn judged(url: &str) -> &str {
    url.strip_prefix("blob:").unwrap_or(url)
}

/// `chrome.downloads.State` as the wire's; an unknown one reads as in progress
/// (not ended: a wait goes on).
pub fn state_of(state: &str) -> DownloadState {
    match state {
        "complete" => DownloadState::Complete,
        "interrupted" => DownloadState::Interrupted,
        _ => DownloadState::InProgress,
    }
}

/// A download's `filename`: the last part of Chrome's absolute path (either
/// separator), else Chrome's suggested name while the file has none yet.
pub fn file_name(path: &str, suggested: &str) -> String {
    match path.rsplit(['/', '\\']).next() {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => suggested.to_owned(),
    }
}

/// The item a `Page.downloadWillBegin` names, among the ids of the items of its
/// URL newest first: the newest that no session's download claims (two clicks
/// on one link are two downloads, each tied once).
pub fn unclaimed(newest_first: &[u64], claimed: impl Fn(u64) -> bool) -> Option<u64> {
    newest_first.iter().copied().find(|&id| !claimed(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_url_is_judged_by_the_url_it_wraps() {
        assert_eq!(
            judged("blob:http://blocked.test:8080/0b5c-11"),
            "http://blocked.test:8080/0b5c-11"
        );
        assert_eq!(judged("https://a.test/f.csv"), "https://a.test/f.csv");
        assert_eq!(judged("data:text/plain,hi"), "data:text/plain,hi");
    }

    #[test]
    fn states_read_as_chrome_names_them() {
        assert_eq!(state_of("complete"), DownloadState::Complete);
        assert_eq!(state_of("interrupted"), DownloadState::Interrupted);
        assert_eq!(state_of("in_progress"), DownloadState::InProgress);
        assert_eq!(state_of("paused-someday"), DownloadState::InProgress);
    }

    #[test]
    fn the_file_name_is_the_path_s_last_part_else_the_suggestion() {
        assert_eq!(
            file_name("/home/ana/Downloads/r (1).csv", "r.csv"),
            "r (1).csv"
        );
        assert_eq!(file_name("C:\\Users\\ana\\Downloads\\r.csv", "x"), "r.csv");
        assert_eq!(file_name("", "report.csv"), "report.csv");
        assert_eq!(file_name("/odd/dir/", "report.csv"), "report.csv");
    }

    #[test]
    fn the_newest_unclaimed_item_is_taken() {
        assert_eq!(unclaimed(&[9, 7, 4], |id| id == 9), Some(7));
        assert_eq!(unclaimed(&[9, 7], |_| false), Some(9));
        assert_eq!(unclaimed(&[9], |_| true), None);
        assert_eq!(unclaimed(&[], |_| false), None);
    }
}
