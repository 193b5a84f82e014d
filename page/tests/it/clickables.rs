//! What a person clicks is an element (`page::clickable`), on snapshots recorded
//! from headless Chromium (`tests/fixtures/clickables-*.json`, from the pages of
//! the same names under the e2e fixtures' `clickables/`), and long values.

use browser_bridge_page::{PageInputs, UidCache, shape_extract};
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::extract::{ExtractResult, VALUE_MAX_CHARS};

fn load(name: &str) -> PageInputs {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture shape")
}

fn shaped(inputs: &PageInputs) -> ExtractResult {
    shape_extract(TabId(3), inputs, &mut UidCache::new())
}

/// `role name-or-hint [clickable]` per element.
fn summary(result: &ExtractResult) -> Vec<String> {
    result
        .elements
        .iter()
        .map(|e| {
            let label = e.name.as_deref().or(e.hint.as_deref()).unwrap_or("");
            let mark = if e.clickable == Some(true) {
                " clickable"
            } else {
                ""
            };
            format!("{} {label}{mark}", e.role)
        })
        .collect()
}

/// Both element sources — the accessibility tree and the snapshot alone — list
/// the same clickables.
fn both(name: &str) -> [Vec<String>; 2] {
    let inputs = load(name);
    let without_ax = PageInputs {
        ax_trees: Vec::new(),
        ..inputs.clone()
    };
    [summary(&shaped(&inputs)), summary(&shaped(&without_ax))]
}

#[test]
fn rows_stars_and_link_spans_are_clickable_without_their_inner_spans() {
    for got in both("clickables-inbox") {
        assert_eq!(
            got,
            [
                "generic terms of service clickable",
                "generic Alice Martin Lunch on Friday? — shall we try the new place clickable",
                "checkbox Select message 1",
                "generic Star message 1 clickable",
                "generic Build bot Nightly build failed — 3 tests failed on main clickable",
                "checkbox Select message 2",
                "generic Star message 2 clickable",
                "generic Carol Diaz Invoice 2291 — attached, due in 30 days clickable",
                "checkbox Select message 3",
                "generic Star message 3 clickable",
            ]
        );
    }
}

#[test]
fn icons_get_names_or_hints() {
    let [ax, snapshot] = both("clickables-icons");
    let expected = [
        "generic span.icon-heart clickable",
        "generic i.fa-share clickable",
        "generic span.bookmark-btn clickable",
        "generic span#report-post clickable",
        "generic Close post clickable",
        "generic More actions clickable",
        "generic Delete post clickable",
        "button button.copy-link",
        "button svg.icon-pin",
        "link Home",
    ];
    assert_eq!(ax, expected);
    assert_eq!(snapshot, expected);
}

#[test]
fn wrappers_and_delegating_roots_fold_into_their_controls() {
    for got in both("clickables-nesting") {
        assert_eq!(
            got,
            [
                "generic Spring sale up to 40 % off garden tools clickable",
                "button Save draft",
                "link Read the docs",
                "generic urgent clickable",
                "button Bold",
                "button Italic",
                "button Underline",
            ]
        );
    }
}

#[test]
fn widgets_list_headers_tree_nodes_cards_cells_and_tiles() {
    let [ax, _] = both("clickables-widgets");
    for want in [
        "generic Shipping options ▾ clickable",
        "generic Documents clickable",
        "generic report.pdf clickable",
        "generic Pro plan Unlimited projects, 50 GB storage. €12 / month clickable",
        "cell North clickable",
        "generic Keyboard tile clickable",
        "row Quarterly figures clickable",
        "image Open photo gallery clickable",
        "listitem red shoes clickable",
        "listitem green hat clickable",
        "row A-100 shipped clickable",
    ] {
        assert!(ax.iter().any(|g| g == want), "{want} not in {ax:#?}");
    }
    assert!(!ax.iter().any(|g| g.contains("12") && g.starts_with("cell")));
    // The tree's items hold clickable nodes: the nodes are the elements.
    assert!(
        !ax.iter().any(|g| g.starts_with("listitem Documents")),
        "{ax:#?}"
    );
    assert!(
        !ax.iter().any(|g| g.starts_with("listitem Music")),
        "{ax:#?}"
    );
}

#[test]
fn long_values_are_capped_with_their_length_and_whole_in_the_markdown() {
    let result = shaped(&load("clickables-long-values"));
    let notes = result
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some("Notes"))
        .expect("notes");
    let value = notes.value.as_deref().expect("value");
    assert_eq!(value.chars().count(), VALUE_MAX_CHARS);
    assert!(value.starts_with("Line one:   three spaces.\n\tTabbed line.\n"));
    let whole = notes.value_length.expect("valueLength") as usize;
    assert!(whole > 4_900, "{whole}");
    // The whole value, exactly, in a fenced block of the markdown.
    assert!(
        result
            .markdown
            .contains("```text\nLine one:   three spaces.\n\tTabbed line.\nEntry 0 of"),
        "{}",
        result.markdown
    );
    assert!(result.markdown.contains("END-OF-NOTES\n```"));
    let spaced = result
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some("Spaced"))
        .expect("spaced");
    assert_eq!(spaced.value.as_deref(), Some("a   b    c"));
    assert_eq!(spaced.value_length, None);
    let token = result
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some("Token"))
        .expect("token");
    assert_eq!(token.value_length, Some(308));
    assert!(
        result
            .markdown
            .contains(&format!("tok_{}_end", "x".repeat(300)))
    );
}
