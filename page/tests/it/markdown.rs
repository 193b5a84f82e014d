//! Markdown shaping on snapshots recorded from headless Chromium
//! (`tests/fixtures/extract/*.html`, captured with `corpus capture-file`).

use browser_bridge_page::markdown::{join_blocks, page_markdown};
use browser_bridge_page::{PageInputs, dom::Dom};

fn load(name: &str) -> PageInputs {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture shape")
}

fn markdown(name: &str) -> String {
    let inputs = load(name);
    page_markdown(&Dom::new(&inputs.snapshot)).text
}

#[test]
fn article_blocks_and_no_overlays_or_chrome() {
    let md = markdown("cookie");
    let base = md
        .split("](")
        .nth(1)
        .and_then(|s| s.split("/extract/").next())
        .expect("a link");
    assert!(base.starts_with("http://127.0.0.1:"), "{md}");
    let want = format!(
        "# Tide tables explained\n\n\
         The tide rises and falls twice a day along most coasts, driven by the pull of the moon.\n\n\
         Read the [harbour guide]({base}/extract/guide.html) before you sail.\n\n\
         ## Spring and neap tides\n\n\
         - Spring tides have the largest range.\n\
         - Neap tides have the smallest range.\n\n\
         > Time and tide wait for no man.\n\n\
         ```\nhigh_water = 06:12\nlow_water  = 12:25\n```\n\n\
         Use `tide --port brest` to print today's table. ![A breaking wave]"
    );
    assert_eq!(md, want);
    for gone in ["cookies", "newsletter", "Subscribe", "Home", "Copyright"] {
        assert!(!md.contains(gone), "{gone} leaked into {md}");
    }
}

#[test]
fn hidden_nodes_are_left_out() {
    let md = markdown("hidden");
    assert_eq!(
        md,
        "# Visible heading\n\nVisible paragraph one about lighthouses.\n\n\
         Visible paragraph two about harbours."
    );
}

#[test]
fn table_becomes_pipe_table() {
    let md = markdown("table");
    assert_eq!(
        md,
        "# Ports\n\n\
         | Port | Country | Depth (m) |\n\
         | --- | --- | --- |\n\
         | Brest | France | 12 |\n\
         | Kiel | Germany | 9\\|10 |\n\
         | Unknown |  | 3 |\n\n\
         Depths are at low water."
    );
}

#[test]
fn shadow_root_and_same_origin_frame_are_read_in_place() {
    let md = markdown("shadow");
    let order = [
        "Light DOM paragraph before the widget.",
        "## Slotted harbour title",
        "Shadow paragraph about moorings.",
        "Light DOM paragraph between the widget and the frame.",
        "Frame paragraph about buoys.",
        "[Frame link](http://127.0.0.1:",
        "Light DOM paragraph after the frame.",
    ];
    let mut at = 0;
    for piece in order {
        let found = md[at..]
            .find(piece)
            .unwrap_or_else(|| panic!("{piece:?} missing or out of order in {md}"));
        at += found + piece.len();
    }
    assert!(
        !md.contains("Shadow button"),
        "buttons belong to elements: {md}"
    );
}

#[test]
fn truncation_keeps_whole_blocks() {
    let blocks: Vec<String> = (0..5)
        .map(|i| format!("Paragraph {i} {}", "x".repeat(20)))
        .collect();
    let all = join_blocks(&blocks, 10_000);
    assert!(!all.truncated);
    assert_eq!(all.text.matches("\n\n").count(), 4);
    let cut = join_blocks(&blocks, 70);
    assert!(cut.truncated);
    assert_eq!(cut.text, format!("{}\n\n{}", blocks[0], blocks[1]));
    // A single block above the budget is cut on a char boundary rather than dropped.
    let wide = join_blocks(&["é".repeat(10)], 5);
    assert_eq!((wide.text.as_str(), wide.truncated), ("éé", true));
}

/// One huge field or listing is cut inside its fence, and what follows it stays.
#[test]
fn a_huge_fenced_block_is_cut_and_what_follows_stays() {
    let huge = format!("```text\n{}\n```", "y".repeat(40_000));
    let blocks = vec![
        "Before the fields.".to_owned(),
        huge,
        "After the fields.".to_owned(),
    ];
    let md = join_blocks(&blocks, 30_000);
    assert!(md.truncated);
    assert!(md.text.len() <= 30_000, "{}", md.text.len());
    assert!(md.text.starts_with("Before the fields.\n\n```text\nyyy"));
    assert!(
        md.text
            .ends_with(" more bytes not shown)\n```\n\nAfter the fields."),
        "{}",
        &md.text[md.text.len() - 80..]
    );
    // A paragraph over the budget still ends the markdown, as before.
    let long = vec!["a".repeat(100), "b".repeat(100), "c".to_owned()];
    let cut = join_blocks(&long, 150);
    assert_eq!(
        (cut.text.as_str(), cut.truncated),
        ("a".repeat(100).as_str(), true)
    );
}

#[test]
fn link_farms_go_title_lists_stay_and_tracking_urls_lose_their_url() {
    let md = markdown("linkfarm");
    assert!(
        md.starts_with("# Harbour dredging starts in March\n\n"),
        "{md}"
    );
    assert!(md.contains("[notice 42](http://127.0.0.1:"), "{md}");
    for menu in ["Ferries", "Pilots", "Fees"] {
        assert!(!md.contains(menu), "menu link {menu} kept: {md}");
    }
    assert_eq!(md.matches("- [Change ").count(), 5, "{md}");
    assert!(
        md.contains("### [Port authority](http://127.0.0.1:"),
        "{md}"
    );
    assert!(md.ends_with("Sponsored: Cheap harbour cruises"), "{md}");
    assert!(!md.contains("ads.example.net"), "{md}");
}

#[test]
fn deeply_nested_dom_keeps_its_text_without_a_stack_overflow() {
    use browser_bridge_page::snapshot::CapturedSnapshot;
    use serde_json::json;
    // document > html > body > 20 000 nested divs > text.
    let depth = 20_000usize;
    let count = depth + 4;
    let parent: Vec<i64> = (0..count as i64).map(|i| i - 1).collect();
    let mut node_type = vec![9, 1, 1];
    node_type.extend(std::iter::repeat_n(1, depth));
    node_type.push(3);
    let mut names = vec![0, 1, 2];
    names.extend(std::iter::repeat_n(3, depth));
    names.push(4);
    let mut values = vec![-1; count - 1];
    values.push(5);
    let layout: Vec<i64> = (1..count as i64).collect();
    let styles: Vec<_> = layout.iter().map(|_| json!([6, 7, 8, 9, 7, 7])).collect();
    let bounds: Vec<_> = layout.iter().map(|_| json!([0, 0, 100, 20])).collect();
    let snapshot: CapturedSnapshot = serde_json::from_value(json!({
        "strings": ["#document", "HTML", "BODY", "DIV", "#text", "deep text", "block", "visible", "static", "1"],
        "documents": [{
            "nodes": {"parentIndex": parent, "nodeType": node_type, "nodeName": names,
                      "nodeValue": values, "backendNodeId": layout.clone()},
            "layout": {"nodeIndex": layout, "styles": styles, "bounds": bounds}
        }]
    }))
    .expect("snapshot");
    let md = page_markdown(&Dom::new(&snapshot));
    assert_eq!(md.text, "deep text", "the wrappers go, the text stays");
    assert!(!md.truncated);
}

#[test]
fn listing_keeps_its_cards_once_and_drops_the_filter_menu() {
    let md = markdown("listing");
    assert!(md.starts_with("# Deck gear\n\nSix items in stock"), "{md}");
    for (i, name) in ["Brass ship bell", "Tide clock", "Signal flag set"]
        .iter()
        .enumerate()
    {
        let i = [0, 1, 5][i];
        assert_eq!(
            md.matches(&format!("[{name}](")).count(),
            1,
            "{name} in {md}"
        );
        assert!(md.contains(&format!("€{}.50", 10 + i)), "{md}");
    }
    assert!(
        !md.contains("![Brass ship bell]"),
        "image twin of the title link: {md}"
    );
    assert!(!md.contains("Bells"), "filter menu: {md}");
    // Flex items (title, price) share one line.
    let card = md
        .lines()
        .find(|l| l.starts_with("[Brass ship bell]("))
        .expect("card");
    assert!(card.ends_with("/p/0) €10.50"), "{card}");
}

#[test]
fn a_nav_bigger_than_the_article_is_still_chrome() {
    let md = markdown("menu");
    assert!(md.starts_with("# Quay works\n\n"), "{md}");
    assert!(!md.contains("Section 0"), "{md}");
    assert!(md.contains("[fee table](http://127.0.0.1:"), "{md}");
}

#[test]
fn frameset_pages_read_their_frames() {
    let md = markdown("frameset");
    assert!(md.starts_with("Frame paragraph about buoys."), "{md}");
    assert!(
        md.ends_with("# Second page\n\nArrived on the second page."),
        "{md}"
    );
}

#[test]
fn the_article_title_outside_the_body_leads_the_markdown() {
    let md = markdown("titled");
    assert!(
        md.starts_with("# Dredging deepens the ferry channel\n\nDredgers worked through the night"),
        "{md}"
    );
    assert!(!md.contains("Harbour Press"), "{md}");
}
