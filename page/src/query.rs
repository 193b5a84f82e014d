//! `extract` with `query` (PROTOCOL.md §6 "Options"): the Markdown blocks whose
//! text holds the query, each under its heading path, and the elements whose
//! name, value or hint holds it; case-insensitive (Unicode lowercase).

use super::elements::Candidate;

/// The query as it is matched: trimmed and lowercased.
pub fn needle(query: &str) -> String {
    query.trim().to_lowercase()
}

/// `text` holds `needle` (from [`needle`]), ignoring case.
pub fn holds(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(needle)
}

/// The level (1..=6) of a Markdown heading block (`## Setup`), `None` for any
/// other block.
pub fn heading_level(block: &str) -> Option<usize> {
    let level = block.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&level) && block[level..].starts_with(' ')).then_some(level)
}

/// The blocks that hold `needle`, in order, each led by the headings it sits
/// under that were not written yet (so a block keeps its heading path and a
/// heading is written once). A heading that holds the query is written with its
/// own path.
pub fn query_blocks(blocks: &[String], needle: &str) -> Vec<String> {
    // The open headings: (level, block index).
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut written = vec![false; blocks.len()];
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let level = heading_level(block);
        if let Some(level) = level {
            path.retain(|&(l, _)| l < level);
        }
        if holds(block, needle) {
            for &(_, h) in &path {
                if !written[h] {
                    written[h] = true;
                    out.push(blocks[h].clone());
                }
            }
            written[i] = true;
            out.push(block.clone());
        }
        if let Some(level) = level {
            path.push((level, i));
        }
    }
    out
}

/// The element's name, value or hint holds `needle`.
pub fn element_holds(element: &Candidate, needle: &str) -> bool {
    [&element.name, &element.value, &element.hint]
        .into_iter()
        .flatten()
        .any(|text| holds(text, needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_deep_block_comes_with_its_heading_path_once() {
        let page = blocks(&[
            "# Guide",
            "Intro text.",
            "## Install",
            "Run the installer.",
            "### On Linux",
            "Use the TARBALL.",
            "Or the tarball mirror.",
            "### On Mac",
            "Use brew.",
            "## Usage",
            "A tarball again.",
        ]);
        let found = query_blocks(&page, &needle("  Tarball "));
        assert_eq!(
            found,
            blocks(&[
                "# Guide",
                "## Install",
                "### On Linux",
                "Use the TARBALL.",
                "Or the tarball mirror.",
                "## Usage",
                "A tarball again.",
            ])
        );
    }

    #[test]
    fn a_matching_heading_comes_with_its_path_and_no_match_gives_nothing() {
        let page = blocks(&["# A", "## Billing", "text", "# B", "more"]);
        assert_eq!(
            query_blocks(&page, &needle("billing")),
            blocks(&["# A", "## Billing"])
        );
        assert!(query_blocks(&page, &needle("absent")).is_empty());
        assert_eq!(heading_level("#hashtag"), None);
        assert_eq!(heading_level("####### seven"), None);
        assert_eq!(heading_level("### three"), Some(3));
    }

    #[test]
    fn case_is_ignored_beyond_ascii() {
        assert!(holds("Straße ÉTÉ", &needle("été")));
        assert!(!holds("Summer", &needle("été")));
    }
}
