//! `extract` options through `shape_extract_with` on snapshots recorded from
//! headless Chromium (`tests/fixtures/extract/*.html`): `scope`, `query`, `part`,
//! their errors, and the uids they hand out; and `split_parts` itself.

use browser_bridge_page::markdown::split_parts;
use browser_bridge_page::{PageInputs, UidCache, shape_extract, shape_extract_with};
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::extract::MARKDOWN_MAX_BYTES;
use browser_bridge_protocol::{ErrorCode, ExtractResult, TabId, Uid};

fn load(name: &str) -> PageInputs {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture shape")
}

fn with(inputs: &PageInputs, uids: &mut UidCache, options: Extract) -> ExtractResult {
    shape_extract_with(TabId(1), inputs, uids, &options).expect("extract")
}

fn uid_named(result: &ExtractResult, name: &str) -> Uid {
    result
        .elements
        .iter()
        .find(|e| e.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no element {name:?} in {:?}", result.elements))
        .uid
        .clone()
}

fn names(result: &ExtractResult) -> Vec<&str> {
    result
        .elements
        .iter()
        .map(|e| e.name.as_deref().unwrap_or(""))
        .collect()
}

#[test]
fn scope_keeps_the_form_around_a_uid_and_the_uids_a_whole_extract_gives() {
    let inputs = load("login");
    let mut uids = UidCache::new();
    let whole = shape_extract(TabId(1), &inputs, &mut uids);
    let email = uid_named(&whole, "Email");
    let form = with(
        &inputs,
        &mut uids,
        Extract {
            scope: Some(email),
            ..Extract::default()
        },
    );
    assert_eq!(
        names(&form),
        ["Email", "Password", "Remember me", "Sign in"],
        "the form's fields, not the reset link outside it"
    );
    for e in &form.elements {
        let same = whole
            .elements
            .iter()
            .find(|w| w.name == e.name)
            .expect("listed");
        assert_eq!(e.uid, same.uid, "a scoped extract keeps every uid");
    }
    assert!(!form.markdown.contains("Welcome back"), "{}", form.markdown);
    assert!(!form.markdown.contains("Forgot"), "{}", form.markdown);
}

#[test]
fn scope_errors_say_not_found_or_stale() {
    let inputs = load("login");
    let mut uids = UidCache::new();
    shape_extract(TabId(1), &inputs, &mut uids);
    let scope = |uid: &str| Extract {
        scope: Some(Uid(uid.into())),
        ..Extract::default()
    };
    let never = shape_extract_with(TabId(1), &inputs, &mut uids, &scope("e99")).unwrap_err();
    assert_eq!(never.code, ErrorCode::ElementNotFound);
    assert!(never.message.contains("e99"), "{}", never.message);
    uids.invalidate();
    let old = shape_extract_with(TabId(1), &inputs, &mut uids, &scope("e0")).unwrap_err();
    assert_eq!(old.code, ErrorCode::ElementStale);
    // A uid whose node is not in the page any more is stale too.
    let mut gone = UidCache::new();
    gone.assign(&[987_654]);
    let error = shape_extract_with(TabId(1), &inputs, &mut gone, &scope("e0")).unwrap_err();
    assert_eq!(error.code, ErrorCode::ElementStale);
}

#[test]
fn query_keeps_matching_blocks_under_their_headings_and_matching_elements() {
    let inputs = load("cookie");
    let result = with(
        &inputs,
        &mut UidCache::new(),
        Extract {
            query: Some("NEAP".into()),
            ..Extract::default()
        },
    );
    assert_eq!(
        result.markdown,
        "# Tide tables explained\n\n## Spring and neap tides\n\n\
         - Spring tides have the largest range.\n- Neap tides have the smallest range."
    );
    let login = load("login");
    let result = with(
        &login,
        &mut UidCache::new(),
        Extract {
            query: Some("pass".into()),
            ..Extract::default()
        },
    );
    assert_eq!(names(&result), ["Password", "Forgot your password?"]);
    assert_eq!(
        result.obstacle,
        shape_extract(TabId(1), &login, &mut UidCache::new()).obstacle
    );
}

#[test]
fn part_reads_the_markdown_and_past_the_last_part_is_refused() {
    let inputs = load("cookie");
    let whole = shape_extract(TabId(1), &inputs, &mut UidCache::new());
    assert_eq!(whole.parts, None, "a short page is one part, not announced");
    let first = with(
        &inputs,
        &mut UidCache::new(),
        Extract {
            part: Some(1),
            ..Extract::default()
        },
    );
    assert_eq!((first.part, first.parts), (Some(1), Some(1)));
    assert_eq!(first.markdown, whole.markdown);
    let error = shape_extract_with(
        TabId(1),
        &inputs,
        &mut UidCache::new(),
        &Extract {
            part: Some(2),
            ..Extract::default()
        },
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidAction);
    assert!(error.message.contains("has 1 part"), "{}", error.message);
}

#[test]
fn parts_end_at_blocks_and_put_end_to_end_are_the_whole() {
    let blocks: Vec<String> = (0..40)
        .map(|i| format!("## Block {i}\n\n{}", "word ".repeat(i)))
        .map(|b| b.trim().to_owned())
        .collect();
    let (whole, parts) = split_parts(&blocks, 300);
    assert_eq!(whole, blocks.join("\n\n"));
    assert!(parts.len() > 5);
    let mut joined = String::new();
    for range in &parts {
        assert!(range.len() <= 300, "{range:?}");
        let part = &whole[range.clone()];
        assert!(
            part.starts_with("## Block"),
            "a part starts a block: {part:?}"
        );
        joined.push_str(part);
    }
    assert_eq!(joined, whole);
}

#[test]
fn a_block_over_a_part_is_cut_at_lines_then_chars_never_inside_a_char() {
    let lines = (0..50).map(|i| format!("line {i}")).collect::<Vec<_>>();
    let fenced = format!("```\n{}\n```", lines.join("\n"));
    let (whole, parts) = split_parts(std::slice::from_ref(&fenced), 100);
    assert!(
        parts
            .iter()
            .all(|r| r.len() <= 100 && whole[r.clone()].ends_with('\n') || r.end == whole.len())
    );
    assert_eq!(
        parts.iter().map(|r| &whole[r.clone()]).collect::<String>(),
        fenced
    );

    let wide = "é€😀".repeat(500);
    let (whole, parts) = split_parts(std::slice::from_ref(&wide), 30);
    assert!(
        parts
            .iter()
            .all(|r| r.len() <= 30 && whole.is_char_boundary(r.start))
    );
    assert_eq!(
        parts.iter().map(|r| &whole[r.clone()]).collect::<String>(),
        wide
    );

    let (whole, parts) = split_parts(&[], MARKDOWN_MAX_BYTES);
    assert_eq!((whole.as_str(), parts.len()), ("", 1));
}
