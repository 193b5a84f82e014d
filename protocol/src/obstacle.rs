//! Obstacle detection of PROTOCOL.md §8 (work in progress: signatures first).

use crate::extract::{Element, Obstacle};

/// What `extract` gathered, fed to [`detect_obstacle`].
#[derive(Debug, Clone, Copy)]
pub struct ObstacleInput<'a> {
    /// `location.href` (any case).
    pub url: &'a str,
    /// `document.title` (any case).
    pub title: &'a str,
    /// The extract markdown; only its first [`MARKDOWN_SCAN_CHARS`] chars are scanned.
    pub markdown: &'a str,
    /// The extract elements.
    pub elements: &'a [Element],
    /// The page holds a known challenge iframe ([`is_captcha_frame_url`]).
    pub captcha_frame: bool,
}

/// Chars of markdown scanned.
pub const MARKDOWN_SCAN_CHARS: usize = 4096;
/// "Few interactive elements" threshold of layer 4.
pub const FEW_ELEMENTS: usize = 12;

/// Detects a login wall, captcha or denial page (§8).
pub fn detect_obstacle(input: &ObstacleInput<'_>) -> Option<Obstacle> {
    let _ = input;
    None
}

/// True for a known challenge iframe URL.
pub fn is_captcha_frame_url(url: &str) -> bool {
    let _ = url;
    false
}
