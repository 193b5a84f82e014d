//! Element filtering, uids and obstacle detection through `shape_extract`, on
//! snapshots recorded from headless Chromium, plus the 200-element cap.

use browser_bridge_page::snapshot::{AxNode, AxTree, AxValue, CapturedSnapshot};
use browser_bridge_page::{PageInputs, UidCache, shape_extract};
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::extract::{Checked, Confidence, ELEMENTS_MAX, ObstacleType};
use serde_json::json;

fn load(name: &str) -> PageInputs {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(&path).expect("fixture")).expect("fixture shape")
}

fn summary(inputs: &PageInputs, uids: &mut UidCache) -> Vec<String> {
    shape_extract(TabId(3), inputs, uids)
        .elements
        .iter()
        .map(|e| format!("{} {} {}", e.uid, e.role, e.name.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn hidden_elements_are_left_out() {
    let inputs = load("hidden");
    assert_eq!(
        summary(&inputs, &mut UidCache::new()),
        ["e0 button Visible button"]
    );
}

#[test]
fn shadow_and_frame_elements_in_document_order_with_states() {
    let inputs = load("shadow");
    let result = shape_extract(TabId(3), &inputs, &mut UidCache::new());
    let got: Vec<_> = result
        .elements
        .iter()
        .map(|e| {
            (
                e.uid.0.as_str(),
                e.role.as_str(),
                e.name.as_deref(),
                e.visible,
                e.checked,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("e0", "button", Some("Shadow button"), Some(true), None),
            ("e1", "link", Some("Frame link"), Some(true), None),
            (
                "e2",
                "checkbox",
                Some("Frame checkbox"),
                Some(true),
                Some(Checked::True)
            ),
        ]
    );
    assert_eq!(result.title, "Shadow and frame");
    assert!(
        result.url.ends_with("/extract/shadow.html"),
        "{}",
        result.url
    );
    assert!(result.truncated.is_none());
}

#[test]
fn re_extract_keeps_uids_and_navigation_makes_them_stale() {
    let inputs = load("navlogin");
    let mut uids = UidCache::new();
    let first = summary(&inputs, &mut uids);
    assert_eq!(first.len(), 10);
    assert_eq!(first[3], "e3 link Log in");
    assert_eq!(summary(&inputs, &mut uids), first);
    uids.invalidate();
    let after = summary(&inputs, &mut uids);
    assert_eq!(after[0], "e10 link Home");
    let err = uids
        .resolve(&browser_bridge_protocol::Uid::from_index(3))
        .unwrap_err();
    assert_eq!(err.code, browser_bridge_protocol::ErrorCode::ElementStale);
}

#[test]
fn login_page_is_an_auth_wall_and_a_nav_login_link_is_not() {
    let login = shape_extract(TabId(1), &load("login"), &mut UidCache::new());
    let obstacle = login.obstacle.expect("login page flagged");
    assert_eq!(obstacle.obstacle_type, ObstacleType::AuthWall);
    assert_eq!(obstacle.confidence, Confidence::High);
    let names: Vec<_> = login
        .elements
        .iter()
        .map(|e| (e.role.as_str(), e.name.as_deref()))
        .collect();
    assert!(names.contains(&("textbox", Some("Password"))), "{names:?}");
    let news = shape_extract(TabId(1), &load("navlogin"), &mut UidCache::new());
    assert_eq!(news.obstacle, None);
}

/// A document with `n` buttons, the odd ones without area (invisible).
fn many_buttons(n: usize) -> PageInputs {
    let mut parent = vec![-1, 0, 1];
    let mut node_type = vec![9, 1, 1];
    let mut names = vec![0, 1, 2];
    let mut backend = vec![1, 2, 3];
    let mut layout_nodes = vec![1, 2];
    let mut bounds = vec![json!([0, 0, 800, 600]), json!([0, 0, 800, 600])];
    let mut styles = vec![json!([4, 5, 6, 7, 5, 5]), json!([4, 5, 6, 7, 5, 5])];
    for i in 0..n {
        parent.push(2);
        node_type.push(1);
        names.push(3);
        backend.push(100 + i as i64);
        layout_nodes.push(3 + i as i64);
        let h = if i % 2 == 0 { 20 } else { 0 };
        bounds.push(json!([0, 20 * i, 80, h]));
        styles.push(json!([8, 5, 6, 7, 5, 5]));
    }
    let snapshot: CapturedSnapshot = serde_json::from_value(json!({
        "strings": ["#document", "HTML", "BODY", "BUTTON", "block", "visible", "static", "1", "inline-block"],
        "documents": [{
            "documentURL": -1, "title": -1, "baseURL": -1, "frameId": -1,
            "nodes": {"parentIndex": parent, "nodeType": node_type, "nodeName": names,
                      "backendNodeId": backend},
            "layout": {"nodeIndex": layout_nodes, "styles": styles, "bounds": bounds}
        }]
    }))
    .expect("snapshot");
    // AX order deliberately reversed: document order comes from the snapshot.
    let nodes = (0..n)
        .rev()
        .map(|i| AxNode {
            role: Some(AxValue {
                value_type: "role".into(),
                value: Some(json!("button")),
            }),
            name: Some(AxValue {
                value_type: "computedString".into(),
                value: Some(json!(format!("B{i}"))),
            }),
            backend_dom_node_id: Some(100 + i as i64),
            ..AxNode::default()
        })
        .collect();
    PageInputs {
        snapshot,
        ax_trees: vec![AxTree { nodes }],
        text: String::new(),
        ..PageInputs::default()
    }
}

#[test]
fn elements_cap_at_200_keeping_visible_ones_in_order() {
    let result = shape_extract(TabId(1), &many_buttons(5_000), &mut UidCache::new());
    assert_eq!(result.elements.len(), ELEMENTS_MAX);
    assert!(
        result
            .truncated
            .is_some_and(|t| t.elements && !t.markdown && !t.text)
    );
    assert!(result.elements.iter().all(|e| e.visible == Some(true)));
    let names: Vec<_> = result
        .elements
        .iter()
        .take(3)
        .map(|e| e.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(names, ["B0", "B2", "B4"]);
    assert_eq!(result.elements[199].uid.0, "e199");

    let small = shape_extract(TabId(1), &many_buttons(6), &mut UidCache::new());
    assert!(small.truncated.is_none());
    let vis: Vec<_> = small.elements.iter().map(|e| e.visible).collect();
    assert_eq!(
        vis,
        [
            Some(true),
            Some(false),
            Some(true),
            Some(false),
            Some(true),
            Some(false)
        ]
    );
}

#[test]
fn text_is_cut_on_a_char_boundary() {
    let mut inputs = load("table");
    inputs.text = "é".repeat(30_000); // 60 000 bytes
    let result = shape_extract(TabId(1), &inputs, &mut UidCache::new());
    assert_eq!(result.text.len(), 50_000);
    assert!(result.truncated.is_some_and(|t| t.text && !t.elements));
}

#[test]
fn without_an_accessibility_tree_the_snapshot_gives_the_same_elements() {
    for page in [
        "cookie", "hidden", "login", "navlogin", "shadow", "linkfarm",
    ] {
        let mut inputs = load(page);
        let with_ax = summary(&inputs, &mut UidCache::new());
        inputs.ax_trees.clear();
        let without = summary(&inputs, &mut UidCache::new());
        assert_eq!(without, with_ax, "{page}");
    }
    let mut login = load("login");
    login.ax_trees.clear();
    let result = shape_extract(TabId(1), &login, &mut UidCache::new());
    let remember = result
        .elements
        .iter()
        .find(|e| e.role == "checkbox")
        .expect("checkbox");
    assert_eq!(remember.checked, Some(Checked::False));
    assert_eq!(
        result.obstacle.map(|o| o.confidence),
        Some(Confidence::High)
    );
}

#[test]
fn a_cards_image_link_and_title_link_are_one_element() {
    let inputs = load("listing");
    let got = summary(&inputs, &mut UidCache::new());
    assert_eq!(
        got.iter()
            .filter(|e| e.ends_with(" link Brass ship bell"))
            .count(),
        1,
        "{got:?}"
    );
    assert_eq!(
        got.iter()
            .filter(|e| e.ends_with(" button Add to cart"))
            .count(),
        6,
        "{got:?}"
    );
    assert_eq!(got.len(), 22, "{got:?}");
    let mut no_ax = load("listing");
    no_ax.ax_trees.clear();
    assert_eq!(summary(&no_ax, &mut UidCache::new()), got);
}

#[test]
fn over_the_cap_controls_and_main_content_links_stay() {
    for ax in [true, false] {
        let mut inputs = load("menu");
        if !ax {
            inputs.ax_trees.clear();
        }
        let result = shape_extract(TabId(1), &inputs, &mut UidCache::new());
        assert_eq!(result.elements.len(), ELEMENTS_MAX);
        assert!(result.truncated.is_some_and(|t| t.elements));
        let names: Vec<&str> = result
            .elements
            .iter()
            .filter_map(|e| e.name.as_deref())
            .collect();
        for kept in [
            "piles",
            "deck",
            "notice",
            "map",
            "fee table",
            "Search notices",
        ] {
            assert!(names.contains(&kept), "{kept} dropped (ax {ax})");
        }
        // Document order: the menu comes first, the article's links after it.
        assert_eq!(names[0], "Section 0");
        assert_eq!(names[ELEMENTS_MAX - 1], "Search notices");
        assert_eq!(
            names.iter().filter(|n| n.starts_with("Section ")).count(),
            194
        );
    }
}

#[test]
fn a_challenge_iframe_is_a_captcha() {
    let result = shape_extract(TabId(1), &load("captcha"), &mut UidCache::new());
    let obstacle = result.obstacle.expect("captcha flagged");
    assert_eq!(obstacle.obstacle_type, ObstacleType::Captcha);
    assert_eq!(obstacle.confidence, Confidence::High);
}

#[test]
fn control_roles_values_and_states() {
    let full = |e: &browser_bridge_protocol::Element| {
        format!(
            "{} {} {:?} {:?} {:?} {:?}",
            e.role,
            e.name.as_deref().unwrap_or(""),
            e.value,
            e.visible,
            e.disabled,
            e.checked
        )
    };
    let with_ax: Vec<String> = shape_extract(TabId(1), &load("controls"), &mut UidCache::new())
        .elements
        .iter()
        .map(full)
        .collect();
    assert_eq!(
        with_ax,
        [
            "button Opening hours None Some(true) None None",
            "button Night mode None Some(true) None None",
            "combobox Berth size Some(\"Large\") Some(true) None None",
            "spinbutton Nights Some(\"3\") Some(true) None None",
            "slider Length Some(\"12\") Some(true) None None",
            "radio Card None Some(true) None Some(True)",
            "radio Cash None Some(true) None Some(False)",
            // An empty div: zero height, so not visible.
            "switch Shore power None Some(false) None Some(True)",
            "button Book None Some(true) Some(true) None",
            "textbox Notes Some(\"Late arrival\") Some(true) None None",
        ]
    );
    let mut no_ax = load("controls");
    no_ax.ax_trees.clear();
    let without: Vec<String> = shape_extract(TabId(1), &no_ax, &mut UidCache::new())
        .elements
        .iter()
        .map(full)
        .collect();
    let same = without.iter().filter(|e| with_ax.contains(e)).count();
    assert!(same >= 8, "snapshot-only elements: {without:#?}");
}

/// `uid role "name" value disabled` of each element.
fn lines(inputs: &PageInputs) -> Vec<String> {
    shape_extract(TabId(3), inputs, &mut UidCache::new())
        .elements
        .iter()
        .map(|e| {
            format!(
                "{} {} {}={}{}",
                e.uid,
                e.role,
                e.name.as_deref().unwrap_or(""),
                e.value.as_deref().unwrap_or(""),
                if e.disabled == Some(true) {
                    " disabled"
                } else {
                    ""
                }
            )
        })
        .collect()
}

#[test]
fn date_time_and_colour_inputs_are_listed_by_input_type_with_their_value() {
    let mut inputs = load("native_inputs");
    let expected = [
        "e0 date Day=",
        "e1 date Set day=2024-02-29",
        "e2 time Start=",
        "e3 time Exact time=08:05:09",
        "e4 datetime-local Departure=",
        "e5 month Billing month=",
        "e6 week Sprint week=2025-W07",
        "e7 color Colour=#888888",
        "e8 slider Volume=4",
        "e9 spinbutton Count=1",
        "e10 date Locked day=2024-05-01",
        "e11 color Disabled colour=#000000 disabled",
    ];
    // The pickers' own buttons and fields live in user-agent shadow trees: not listed.
    assert_eq!(lines(&inputs), expected);
    // The snapshot-only list agrees.
    inputs.ax_trees.clear();
    assert_eq!(lines(&inputs), expected);
}

#[test]
fn controls_drawn_by_their_label_over_a_hidden_input_are_visible() {
    let mut inputs = load("custom_checkbox");
    let got = |inputs: &PageInputs| -> Vec<String> {
        shape_extract(TabId(3), inputs, &mut UidCache::new())
            .elements
            .iter()
            .map(|e| {
                format!(
                    "{} {} {}",
                    e.role,
                    e.name.as_deref().unwrap_or(""),
                    e.visible.unwrap()
                )
            })
            .collect()
    };
    let expected = [
        "checkbox Email me receipts true",
        "radio Daily true",
        "radio Weekly true",
        "checkbox Rotate the API keys true",
        "switch Dark mode true",
        "switch Beta features true",
        "checkbox I accept the terms of service true",
        "link terms of service true",
        "button Save true",
    ];
    assert_eq!(got(&inputs), expected);
    inputs.ax_trees.clear();
    assert_eq!(got(&inputs), expected);
}

#[test]
fn selects_list_their_options_and_the_selected_ones() {
    let mut inputs = load("select");
    let got = |inputs: &PageInputs| -> Vec<String> {
        shape_extract(TabId(3), inputs, &mut UidCache::new())
            .elements
            .iter()
            .map(|e| {
                format!(
                    "{} {} = {} [{}]",
                    e.role,
                    e.name.as_deref().unwrap_or(""),
                    e.value.as_deref().unwrap_or("-"),
                    e.options.as_deref().unwrap_or_default().join("|")
                )
            })
            .collect()
    };
    let years: Vec<String> = (1950..1980).map(|y| y.to_string()).collect();
    let expected = [
        "combobox Country = Germany [Choose…|France|Germany|Spain]".to_owned(),
        "combobox Speed = Standard (3–5 days) [Standard (3–5 days)|Express|Same day]".to_owned(),
        "listbox Extras = Gift wrap, Signature [Gift wrap|Insurance|Signature|SMS updates]"
            .to_owned(),
        format!("combobox Year = 1990 [{}]", years.join("|")),
    ];
    assert_eq!(got(&inputs), expected);
    inputs.ax_trees.clear();
    assert_eq!(got(&inputs), expected);
}

#[test]
fn text_fields_say_multiline_and_readonly_and_editors_are_textboxes() {
    let mut inputs = load("textboxes");
    let got = |inputs: &PageInputs| -> Vec<String> {
        shape_extract(TabId(3), inputs, &mut UidCache::new())
            .elements
            .iter()
            .map(|e| {
                format!(
                    "{} {}{}{}",
                    e.role,
                    e.name.as_deref().unwrap_or(""),
                    if e.multiline == Some(true) {
                        " multiline"
                    } else {
                        ""
                    },
                    if e.readonly == Some(true) {
                        " readonly"
                    } else {
                        ""
                    },
                )
            })
            .collect()
    };
    let values: Vec<_> = shape_extract(TabId(3), &inputs, &mut UidCache::new())
        .elements
        .into_iter()
        .take(2)
        .map(|e| e.value)
        .collect();
    assert_eq!(
        values,
        [
            Some("Quarterly   report".to_owned()),
            Some("Line one\nLine two".to_owned())
        ]
    );
    let expected = [
        "textbox Subject",
        "textbox Body multiline",
        "textbox Order number readonly",
        "textbox Terms multiline readonly",
        "searchbox Search",
        "textbox Notes multiline",
        "textbox Plain notes multiline",
        "textbox  multiline",
        "textbox ARIA editor multiline",
    ];
    assert_eq!(got(&inputs), expected);
    // The snapshot alone names them as Chromium does: an editor is not named by
    // its content, and its value is its text.
    let whole = shape_extract(TabId(3), &inputs, &mut UidCache::new()).elements;
    inputs.ax_trees.clear();
    assert_eq!(got(&inputs), expected);
    let alone = shape_extract(TabId(3), &inputs, &mut UidCache::new()).elements;
    assert_eq!(alone, whole);
}

/// A generated capture: `body` holds a link, a button, then a chain of `chain`
/// nested `div`s around a paragraph and a button (the third control in document
/// order), then `filler` paragraphs; every node laid out and visible.
fn deep_page(chain: usize, filler: usize) -> PageInputs {
    // strings: 0 #document 1 HTML 2 BODY 3 DIV 4 #text 5 A 6 BUTTON 7 P
    //          8 block 9 visible 10 static 11 1 12 href
    let mut strings: Vec<String> = [
        "#document",
        "HTML",
        "BODY",
        "DIV",
        "#text",
        "A",
        "BUTTON",
        "P",
        "block",
        "visible",
        "static",
        "1",
        "href",
    ]
    .map(String::from)
    .to_vec();
    let (mut parent, mut kind, mut name, mut value, mut attrs) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut add = |p: i64, k: i64, n: i64, v: i64, a: Vec<i64>| {
        parent.push(p);
        kind.push(k);
        name.push(n);
        value.push(v);
        attrs.push(a);
        parent.len() as i64 - 1
    };
    let text = |strings: &mut Vec<String>, s: &str| {
        strings.push(s.to_owned());
        strings.len() as i64 - 1
    };
    let doc = add(-1, 9, 0, -1, vec![]);
    let html = add(doc, 1, 1, -1, vec![]);
    let body = add(html, 1, 2, -1, vec![]);
    let mut ax = vec![
        json!({"role": {"type": "internalRole", "value": "RootWebArea"}, "backendDOMNodeId": 1}),
    ];
    let url = text(&mut strings, "https://example.test/docs");
    let link = add(body, 1, 5, -1, vec![12, url]);
    let t = text(&mut strings, "Read the docs");
    add(link, 3, 4, t, vec![]);
    ax.push(json!({"role": {"type": "role", "value": "link"}, "name": {"type": "computedString", "value": "Read the docs"}, "backendDOMNodeId": link + 1}));
    let top = add(body, 1, 6, -1, vec![]);
    let t = text(&mut strings, "Refresh");
    add(top, 3, 4, t, vec![]);
    ax.push(json!({"role": {"type": "role", "value": "button"}, "name": {"type": "computedString", "value": "Refresh"}, "backendDOMNodeId": top + 1}));
    let mut at = body;
    for _ in 0..chain {
        at = add(at, 1, 3, -1, vec![]);
    }
    let p = add(at, 1, 7, -1, vec![]);
    let t = text(
        &mut strings,
        "The deep paragraph says where the order stands.",
    );
    add(p, 3, 4, t, vec![]);
    let deep = add(at, 1, 6, -1, vec![]);
    let t = text(&mut strings, "Confirm order");
    add(deep, 3, 4, t, vec![]);
    ax.push(json!({"role": {"type": "role", "value": "button"}, "name": {"type": "computedString", "value": "Confirm order"}, "backendDOMNodeId": deep + 1}));
    let t = text(&mut strings, "Filler line.");
    for _ in 0..filler {
        let p = add(body, 1, 7, -1, vec![]);
        add(p, 3, 4, t, vec![]);
    }
    let count = parent.len() as i64;
    let layout: Vec<i64> = (1..count).collect();
    let styles: Vec<_> = layout.iter().map(|_| json!([8, 9, 10, 11, 9, 9])).collect();
    let bounds: Vec<_> = layout
        .iter()
        .map(|&i| json!([0, (i % 500) * 20, 300, 20]))
        .collect();
    let backend: Vec<i64> = (1..=count).collect();
    let attributes: Vec<_> = attrs.iter().map(|a| json!(a)).collect();
    serde_json::from_value(json!({
        "snapshot": {
            "strings": strings,
            "documents": [{
                "documentURL": url, "baseURL": url,
                "nodes": {"parentIndex": parent, "nodeType": kind, "nodeName": name,
                          "nodeValue": value, "backendNodeId": backend, "attributes": attributes},
                "layout": {"nodeIndex": layout, "styles": styles, "bounds": bounds}
            }]
        },
        "axTrees": [{"nodes": ax}],
        "text": "",
        "ms": 0.0
    }))
    .expect("generated capture")
}

#[test]
fn deep_nesting_keeps_content_and_controls() {
    // 600 levels deep, in a page of about 48 000 nodes.
    let inputs = deep_page(600, 23_600);
    let result = shape_extract(TabId(3), &inputs, &mut UidCache::new());
    let got: Vec<_> = result
        .elements
        .iter()
        .take(3)
        .map(|e| format!("{} {}", e.role, e.name.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            "link Read the docs",
            "button Refresh",
            "button Confirm order"
        ]
    );
    assert!(
        result
            .markdown
            .contains("The deep paragraph says where the order stands."),
        "{}",
        &result.markdown[..result.markdown.len().min(400)]
    );
    // Deeper than the HTML parser allows, and shallow: the same outcome.
    for chain in [5, 511, 3_000] {
        let result = shape_extract(TabId(3), &deep_page(chain, 10), &mut UidCache::new());
        let names: Vec<_> = result
            .elements
            .iter()
            .filter_map(|e| e.name.clone())
            .collect();
        assert!(
            names.contains(&"Confirm order".to_owned()),
            "{chain}: {names:?}"
        );
        assert!(
            result.markdown.contains("deep paragraph"),
            "{chain}: {}",
            result.markdown
        );
    }
}

/// `role name=value` of each element, as `lines` without uids.
fn named(inputs: &PageInputs) -> Vec<String> {
    lines(inputs)
        .into_iter()
        .map(|l| {
            l.split_once(' ')
                .map(|(_, rest)| rest.to_owned())
                .unwrap_or(l)
        })
        .collect()
}

#[test]
fn names_as_drawn_file_inputs_and_a_modal_dialog_equal_chromiums_tree() {
    // Recorded from tests/fixtures/extract/names*.html with their AX trees: the
    // snapshot alone (what the extension reads) gives the tree's elements, every
    // field equal.
    for page in ["names", "names-modal"] {
        let inputs = load(page);
        assert!(
            inputs.ax_trees.iter().any(|t| !t.nodes.is_empty()),
            "{page}"
        );
        let with_ax = shape_extract(TabId(1), &inputs, &mut UidCache::new()).elements;
        let mut alone = inputs.clone();
        alone.ax_trees.clear();
        let without = shape_extract(TabId(1), &alone, &mut UidCache::new()).elements;
        assert_eq!(without, with_ax, "{page}");
    }
    let mut names = load("names");
    names.ax_trees.clear();
    let got = named(&names);
    for want in [
        "button SIGN IN=",
        "link STRASSE=",
        "button loud button=",
        "link Don't Stop-Now 2day=",
        "link shop Now=",
        "button kept as written=",
        // A button's own style (`text-transform: none`) wins over its parent's.
        "button inherited case=",
        "button Choose File=No file chosen",
        "button Choose Files=No file chosen",
        "button Photos=No file chosen",
        "button Upload a scan=No file chosen",
        "link Attach Choose File: No file chosen here=",
        "button Outside any dialog=",
    ] {
        assert!(got.iter().any(|l| l == want), "{want} in {got:#?}");
    }
    // `title` does not name a file input; `inert` content lists nothing.
    assert!(!got.iter().any(|l| l.contains("Your CV")), "{got:#?}");
    assert!(!got.iter().any(|l| l.contains("nert")), "{got:#?}");

    // Behind a modal dialog only the dialog's controls; a dialog shown with
    // show() and a popover do not make the page inert (here they sit behind
    // the modal one).
    let mut modal = load("names-modal");
    assert_eq!(modal.modal_dialog, Some(1));
    modal.ax_trees.clear();
    assert_eq!(
        named(&modal),
        ["button Keep=", "link Discard=", "textbox Reason="]
    );
    modal.modal_dialog = None;
    let all = named(&modal);
    for want in [
        "button Behind=",
        "button Non-modal=",
        "button In a popover=",
        "button Keep=",
    ] {
        assert!(all.iter().any(|l| l == want), "{want} in {all:#?}");
    }
}
