//! One test per accname / HTML-AAM rule, on snapshots built by hand in the shape
//! `DOMSnapshot.captureSnapshot` gives.

use super::*;
use crate::snapshot::{CapturedSnapshot, DocumentSnapshot, RareString};

/// A node of a hand-built page: an element (tag, attributes, `display`, rendered)
/// or a text.
enum N {
    El {
        tag: &'static str,
        attrs: Vec<(&'static str, &'static str)>,
        display: &'static str,
        visibility: &'static str,
        value: Option<&'static str>,
        children: Vec<N>,
    },
    Text(&'static str, bool),
    /// A rendered text under `text-transform: {1}`.
    Cased(&'static str, &'static str),
}

fn el(tag: &'static str, attrs: &[(&'static str, &'static str)], children: Vec<N>) -> N {
    let display = match tag {
        "div" | "p" | "li" | "h1" | "h2" => "block",
        "button" | "input" | "select" | "textarea" => "inline-block",
        _ => "inline",
    };
    N::El {
        tag,
        attrs: attrs.to_vec(),
        display,
        visibility: "visible",
        value: None,
        children,
    }
}

fn text(t: &'static str) -> N {
    N::Text(t, true)
}

fn cased(t: &'static str, transform: &'static str) -> N {
    N::Cased(t, transform)
}

/// A text node with no layout object (under `display: none`).
fn unrendered(t: &'static str) -> N {
    N::Text(t, false)
}

fn styled(mut n: N, d: &'static str, v: &'static str) -> N {
    if let N::El {
        display,
        visibility,
        ..
    } = &mut n
    {
        *display = d;
        *visibility = v;
    }
    n
}

fn valued(mut n: N, v: &'static str) -> N {
    if let N::El { value, .. } = &mut n {
        *value = Some(v);
    }
    n
}

/// The snapshot of `<html><body>{body}</body></html>`.
fn page(body: Vec<N>) -> CapturedSnapshot {
    let mut snap = CapturedSnapshot::default();
    let mut doc = DocumentSnapshot::default();
    let mut strings: Vec<String> = Vec::new();
    let mut s = |v: &str| -> i64 {
        if let Some(i) = strings.iter().position(|x| x == v) {
            return i as i64;
        }
        strings.push(v.to_owned());
        (strings.len() - 1) as i64
    };
    fn add(n: &N, parent: i64, doc: &mut DocumentSnapshot, s: &mut dyn FnMut(&str) -> i64) {
        let i = doc.nodes.node_type.len() as i64;
        doc.nodes.parent_index.push(parent);
        doc.nodes.backend_node_id.push(i + 1);
        match n {
            N::Text(t, rendered) => {
                doc.nodes.node_type.push(3);
                doc.nodes.node_name.push(s("#text"));
                doc.nodes.node_value.push(s(t));
                doc.nodes.attributes.push(Vec::new());
                if *rendered {
                    push_layout(doc, i, "inline", "visible", s);
                }
            }
            N::Cased(t, transform) => {
                doc.nodes.node_type.push(3);
                doc.nodes.node_name.push(s("#text"));
                doc.nodes.node_value.push(s(t));
                doc.nodes.attributes.push(Vec::new());
                push_layout(doc, i, "inline", "visible", s);
                let transform = s(transform);
                if let Some(styles) = doc.layout.styles.last_mut() {
                    styles.push(transform);
                }
            }
            N::El {
                tag,
                attrs,
                display,
                visibility,
                value,
                children,
            } => {
                doc.nodes.node_type.push(1);
                doc.nodes.node_name.push(s(&tag.to_ascii_uppercase()));
                doc.nodes.node_value.push(-1);
                doc.nodes
                    .attributes
                    .push(attrs.iter().flat_map(|(k, v)| [s(k), s(v)]).collect());
                if let Some(v) = value {
                    let rare: &mut RareString = if *tag == "textarea" {
                        &mut doc.nodes.text_value
                    } else {
                        &mut doc.nodes.input_value
                    };
                    rare.index.push(i);
                    rare.value.push(s(v));
                }
                if *display != "none" {
                    push_layout(doc, i, display, visibility, s);
                }
                for c in children {
                    add(c, i, doc, s);
                }
            }
        }
    }
    fn push_layout(
        doc: &mut DocumentSnapshot,
        i: i64,
        display: &str,
        visibility: &str,
        s: &mut dyn FnMut(&str) -> i64,
    ) {
        doc.layout.node_index.push(i);
        doc.layout.styles.push(vec![
            s(display),
            s(visibility),
            s("static"),
            s("1"),
            s("visible"),
            s("visible"),
            s("none"),
            s("auto"),
        ]);
        doc.layout.bounds.push(vec![0.0, 0.0, 100.0, 20.0]);
    }
    doc.nodes.parent_index.push(-1);
    doc.nodes.node_type.push(9);
    doc.nodes.node_name.push(s("#document"));
    doc.nodes.node_value.push(-1);
    doc.nodes.backend_node_id.push(0);
    doc.nodes.attributes.push(Vec::new());
    let html = styled(
        el(
            "html",
            &[],
            vec![styled(el("body", &[], body), "block", "visible")],
        ),
        "block",
        "visible",
    );
    add(&html, 0, &mut doc, &mut s);
    snap.documents.push(doc);
    snap.strings = strings;
    snap
}

/// The name of the first element with `id=target`, as role `role`.
fn name(body: Vec<N>, role: &str) -> Option<String> {
    let snap = page(body);
    let dom = Dom::new(&snap);
    let target = (0..dom.nodes.len())
        .find(|&i| dom.nodes[i].kind == Kind::Element && dom.attr(i, "id") == Some("target"))
        .expect("an element with id=target");
    Names::new(&dom).name(target, role)
}

const T: (&str, &str) = ("id", "target");

#[test]
fn inline_text_joins_as_laid_out_and_blocks_stand_apart() {
    let link = el(
        "a",
        &[T, ("href", "/x")],
        vec![text("Sign"), el("b", &[], vec![text("in")]), text(" now")],
    );
    assert_eq!(name(vec![link], "link").as_deref(), Some("Signin now"));
    let link = el(
        "a",
        &[T, ("href", "/x")],
        vec![
            el("div", &[], vec![text("Title")]),
            el("div", &[], vec![text("Subtitle")]),
        ],
    );
    assert_eq!(name(vec![link], "link").as_deref(), Some("Title Subtitle"));
    let inline_block = styled(el("span", &[], vec![text("3")]), "inline-block", "visible");
    let button = el("button", &[T], vec![text("Cart"), inline_block]);
    assert_eq!(name(vec![button], "button").as_deref(), Some("Cart 3"));
}

#[test]
fn aria_labelledby_wins_and_reads_hidden_referenced_nodes() {
    let body = vec![
        styled(
            el("span", &[("id", "a")], vec![text("Hidden label")]),
            "none",
            "visible",
        ),
        el(
            "span",
            &[("id", "b"), ("aria-label", "Labelled")],
            vec![text("content")],
        ),
        el(
            "button",
            &[
                T,
                ("aria-labelledby", "a b missing"),
                ("aria-label", "not this"),
            ],
            vec![text("Text")],
        ),
    ];
    assert_eq!(
        name(body, "button").as_deref(),
        Some("Hidden label Labelled")
    );
}

#[test]
fn aria_label_beats_content_and_whitespace_only_is_skipped() {
    let b = el("button", &[T, ("aria-label", "Close")], vec![text("×")]);
    assert_eq!(name(vec![b], "button").as_deref(), Some("Close"));
    let b = el("button", &[T, ("aria-label", "  ")], vec![text("Open")]);
    assert_eq!(name(vec![b], "button").as_deref(), Some("Open"));
}

#[test]
fn form_controls_take_their_labels_for_and_wrapping() {
    let body = vec![
        el("label", &[("for", "target")], vec![text("E-mail")]),
        el(
            "input",
            &[T, ("type", "email"), ("placeholder", "you@x")],
            vec![],
        ),
    ];
    assert_eq!(name(body, "textbox").as_deref(), Some("E-mail"));
    let body = vec![el(
        "label",
        &[],
        vec![
            text("Remember me "),
            el("input", &[T, ("type", "checkbox")], vec![]),
        ],
    )];
    assert_eq!(name(body, "checkbox").as_deref(), Some("Remember me"));
}

#[test]
fn a_text_field_falls_back_to_title_then_placeholder_never_its_content() {
    let i = el(
        "input",
        &[T, ("title", "Search"), ("placeholder", "Type")],
        vec![],
    );
    assert_eq!(name(vec![i], "textbox").as_deref(), Some("Search"));
    let i = el("input", &[T, ("placeholder", "Type")], vec![]);
    assert_eq!(name(vec![i], "textbox").as_deref(), Some("Type"));
    let t = el("textarea", &[T], vec![text("draft")]);
    assert_eq!(name(vec![t], "textbox"), None);
}

#[test]
fn input_buttons_use_value_else_their_default() {
    let i = el("input", &[T, ("type", "submit"), ("value", "Go")], vec![]);
    assert_eq!(name(vec![i], "button").as_deref(), Some("Go"));
    let i = el("input", &[T, ("type", "submit")], vec![]);
    assert_eq!(name(vec![i], "button").as_deref(), Some("Submit"));
    let i = el("input", &[T, ("type", "reset")], vec![]);
    assert_eq!(name(vec![i], "button").as_deref(), Some("Reset"));
    let i = el("input", &[T, ("type", "image"), ("alt", "Search")], vec![]);
    assert_eq!(name(vec![i], "button").as_deref(), Some("Search"));
}

#[test]
fn content_takes_alt_svg_titles_and_labels_of_descendants_and_skips_hidden_ones() {
    let link = el(
        "a",
        &[T, ("href", "/")],
        vec![
            el("img", &[("alt", "Logo")], vec![]),
            text("Home"),
            el("span", &[("aria-hidden", "true")], vec![text("»")]),
            styled(el("span", &[], vec![unrendered("menu")]), "none", "visible"),
            styled(el("span", &[], vec![text("gone")]), "inline", "hidden"),
        ],
    );
    assert_eq!(name(vec![link], "link").as_deref(), Some("Logo Home"));
    let button = el(
        "button",
        &[T],
        vec![el(
            "svg",
            &[],
            vec![el("title", &[], vec![unrendered("Share")])],
        )],
    );
    assert_eq!(name(vec![button], "button").as_deref(), Some("Share"));
    let button = el(
        "button",
        &[T],
        vec![el("span", &[("aria-label", "Like")], vec![])],
    );
    assert_eq!(name(vec![button], "button").as_deref(), Some("Like"));
}

#[test]
fn an_empty_content_falls_back_to_title_of_the_element_or_a_descendant() {
    let a = el(
        "a",
        &[T, ("href", "/"), ("title", "Profile")],
        vec![el("i", &[], vec![])],
    );
    assert_eq!(name(vec![a], "link").as_deref(), Some("Profile"));
    let a = el(
        "a",
        &[T, ("href", "/")],
        vec![el("i", &[("title", "Settings")], vec![])],
    );
    assert_eq!(name(vec![a], "link").as_deref(), Some("Settings"));
}

#[test]
fn an_embedded_field_in_a_label_adds_its_value() {
    let body = vec![el(
        "label",
        &[],
        vec![
            text("Deliver in"),
            valued(el("input", &[], vec![]), "5"),
            text("days"),
            el("input", &[T, ("type", "checkbox")], vec![]),
        ],
    )];
    assert_eq!(name(body, "checkbox").as_deref(), Some("Deliver in 5 days"));
}

#[test]
fn an_empty_label_is_the_name_placeholder_and_value_do_not_follow() {
    let body = vec![
        el("label", &[("for", "target")], vec![]),
        el("input", &[T, ("placeholder", "Search")], vec![]),
    ];
    assert_eq!(name(body, "textbox"), None);
    let body = vec![el(
        "label",
        &[],
        vec![el(
            "input",
            &[T, ("type", "submit"), ("value", "Go")],
            vec![],
        )],
    )];
    assert_eq!(name(body, "button"), None);
}

#[test]
fn a_label_for_names_only_the_first_element_with_the_id() {
    let body = vec![
        el("input", &[("id", "user"), ("title", "first")], vec![]),
        el("label", &[("for", "user")], vec![text("User")]),
        el(
            "input",
            &[("id", "user"), ("class", "t"), ("title", "Second")],
            vec![],
        ),
    ];
    let snap = page(body);
    let dom = Dom::new(&snap);
    let inputs: Vec<usize> = (0..dom.nodes.len())
        .filter(|&i| dom.nodes[i].tag == "input")
        .collect();
    let names = Names::new(&dom);
    assert_eq!(names.name(inputs[0], "textbox").as_deref(), Some("User"));
    assert_eq!(names.name(inputs[1], "textbox").as_deref(), Some("Second"));
}

#[test]
fn containers_give_no_content_to_a_name() {
    for container in ["figure", "ul", "article", "table", "nav"] {
        let link = el(
            "a",
            &[T, ("href", "/")],
            vec![
                el(container, &[], vec![text("Inside")]),
                el("div", &[], vec![text("Headline")]),
            ],
        );
        assert_eq!(
            name(vec![link], "link").as_deref(),
            Some("Headline"),
            "{container}"
        );
    }
    let link = el(
        "a",
        &[T, ("href", "/")],
        vec![
            el("div", &[("role", "list")], vec![text("Inside")]),
            text("Headline"),
        ],
    );
    assert_eq!(name(vec![link], "link").as_deref(), Some("Headline"));
}

#[test]
fn an_empty_alt_hides_the_title_and_unrendered_titles_do_not_count() {
    let link = el(
        "a",
        &[T, ("href", "/")],
        vec![el("img", &[("alt", " "), ("title", "Help")], vec![])],
    );
    assert_eq!(name(vec![link], "link"), None);
    let link = el(
        "a",
        &[T, ("href", "/")],
        vec![
            styled(
                el("h2", &[("title", "Hidden story")], vec![unrendered("x")]),
                "none",
                "visible",
            ),
            el("span", &[], vec![text("Next")]),
        ],
    );
    assert_eq!(name(vec![link], "link").as_deref(), Some("Next"));
}

#[test]
fn text_is_named_as_text_transform_draws_it() {
    let link = |kids| el("a", &[T, ("href", "/x")], kids);
    let cases = [
        (vec![cased("sign in", "uppercase")], "SIGN IN"),
        (vec![cased("Straße", "uppercase")], "STRASSE"),
        (vec![cased("Sign IN", "lowercase")], "sign in"),
        (
            vec![cased("don't stop-now 2day", "capitalize")],
            "Don't Stop-Now 2day",
        ),
        // A word split over two text nodes is capitalized once.
        (vec![text("sh"), cased("op now", "capitalize")], "shop Now"),
        (vec![cased("as is", "none")], "as is"),
        // A capture made before the style was asked for: the text as it is.
        (vec![text("as is")], "as is"),
    ];
    for (kids, want) in cases {
        assert_eq!(name(vec![link(kids)], "link").as_deref(), Some(want));
    }
    // An attribute's text is not drawn: `aria-label` stays as written.
    let b = el(
        "button",
        &[T, ("aria-label", "go on")],
        vec![cased("x", "uppercase")],
    );
    assert_eq!(name(vec![b], "button").as_deref(), Some("go on"));
}
