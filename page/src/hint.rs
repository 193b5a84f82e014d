//! A short description of a nameless element from its own markup (PROTOCOL.md §6
//! `hint`): the tag and a meaningful class or id of the element or of the icon
//! inside it (`span.like-btn`, `i.fa-share`, `span#report-post`), so that an agent
//! can tell six icon-only controls apart. Class names that a build tool generated
//! (`css-1x2y3z`, `sc-abc123`, `Button_primary__3xK9a`, `x7f3a9q2`) and words that
//! say nothing about the control (`fa`, `icon`, `active`, utility classes such as
//! `bg-blue-500` or `hover:underline`) are skipped.

use super::dom::{Dom, Kind};

pub use browser_bridge_protocol::extract::HINT_MAX_CHARS;

/// Most nodes of an element's subtree looked at for a hint (the element first,
/// then its descendants in document order).
const HINT_NODES_MAX: usize = 24;

/// Class tokens that name a kit, a state or a layout role rather than the control.
const VAGUE_TOKENS: &[&str] = &[
    "fa",
    "fas",
    "far",
    "fab",
    "fal",
    "fad",
    "fa-solid",
    "fa-regular",
    "fa-light",
    "fa-brands",
    "fa-fw",
    "fa-lg",
    "fa-sm",
    "fa-xs",
    "fa-2x",
    "bi",
    "glyphicon",
    "material-icons",
    "material-symbols-outlined",
    "icon",
    "icons",
    "svg-icon",
    "btn",
    "button",
    "active",
    "selected",
    "disabled",
    "hidden",
    "show",
    "open",
    "closed",
    "clickable",
    "pointer",
    "cursor-pointer",
    "flex",
    "inline",
    "block",
    "row",
    "col",
    "container",
    "wrapper",
    "inner",
    "outer",
    "item",
    "small",
    "large",
    "left",
    "right",
];

/// Prefixes of utility classes (Tailwind and the like): they say how an element
/// looks, not what it does.
const UTILITY_PREFIXES: &[&str] = &[
    "text-",
    "bg-",
    "border-",
    "rounded",
    "p-",
    "px-",
    "py-",
    "pt-",
    "pb-",
    "pl-",
    "pr-",
    "m-",
    "mx-",
    "my-",
    "mt-",
    "mb-",
    "ml-",
    "mr-",
    "w-",
    "h-",
    "min-",
    "max-",
    "flex-",
    "grid-",
    "gap-",
    "items-",
    "justify-",
    "font-",
    "leading-",
    "tracking-",
    "shadow",
    "opacity-",
    "z-",
    "top-",
    "left-",
    "right-",
    "bottom-",
    "inset-",
    "transition",
    "duration-",
    "ease-",
    "overflow-",
    "cursor-",
    "select-",
    "pointer-events-",
    "fill-",
    "stroke-",
    "size-",
    "col-",
    "row-",
    "order-",
    "align-",
    "d-",
    "float-",
    "position-",
    "visually-",
    "sr-",
];

/// Prefixes of class names that CSS-in-JS and scoped-style tools generate.
const GENERATED_PREFIXES: &[&str] = &[
    "css-", "sc-", "jsx-", "svelte-", "emotion-", "ng-", "ember", "_", "tw-",
];

/// The hint of element `id`: `tag.class` or `tag#id` of the element itself, else of
/// the first descendant (an icon inside a button) that has a meaningful one, else
/// `data-testid`-style names; `None` when nothing meaningful is found.
pub fn hint(dom: &Dom<'_>, id: usize) -> Option<String> {
    let mut stack = vec![id];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        if seen >= HINT_NODES_MAX {
            break;
        }
        seen += 1;
        let node = &dom.nodes[n];
        if node.kind != Kind::Element {
            continue;
        }
        if let Some(h) = own_hint(dom, n) {
            return Some(h);
        }
        stack.extend(node.children.iter().rev().copied());
    }
    None
}

/// `tag#id` for a meaningful id, else `tag.class` for the first meaningful class,
/// else `tag[data-testid=…]`-like names as `tag.value`.
fn own_hint(dom: &Dom<'_>, id: usize) -> Option<String> {
    let tag = &dom.nodes[id].tag;
    let fits = |s: &str| s.chars().count() <= HINT_MAX_CHARS;
    if let Some(v) = dom
        .attr(id, "id")
        .map(str::trim)
        .filter(|v| meaningful(v) && fits(v))
    {
        return Some(format!("{tag}#{v}"));
    }
    if let Some(c) = dom.attr(id, "class").and_then(|c| {
        c.split_whitespace()
            .find(|t| meaningful(t) && fits(t))
            .map(str::to_owned)
    }) {
        return Some(format!("{tag}.{c}"));
    }
    ["data-testid", "data-test", "data-action", "data-icon"]
        .iter()
        .find_map(|a| dom.attr(id, a))
        .map(str::trim)
        .filter(|v| meaningful(v) && fits(v))
        .map(|v| format!("{tag}.{v}"))
}

/// A class or id that says what the control is: not generated, not vague, with a
/// word of at least three letters.
pub fn meaningful(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    if lower.is_empty()
        || VAGUE_TOKENS.contains(&lower.as_str())
        || is_generated(token)
        // Variants and arbitrary values: `hover:bg-x`, `w-[3px]`, `w-1/2`.
        || token.contains([':', '[', '/', '!'])
        || UTILITY_PREFIXES.iter().any(|p| lower.starts_with(p))
    {
        return false;
    }
    word_parts(token).any(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()))
}

/// A class name a build tool generated: a known CSS-in-JS prefix, or a part that
/// mixes letters and digits like a hash (`3xK9a`, `x7f3a9q2`, `a1b2c`).
pub fn is_generated(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    if GENERATED_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    word_parts(token).any(|w| {
        let digits = w.chars().filter(char::is_ascii_digit).count();
        let letters = w.chars().filter(char::is_ascii_alphabetic).count();
        w.len() >= 5 && digits >= 1 && letters >= 1
    })
}

/// The parts of a class name between `-`, `_` and `:` (`icon-heart` → `icon`,
/// `heart`).
fn word_parts(token: &str) -> impl Iterator<Item = &str> {
    token.split(['-', '_', ':']).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_class_names_are_told_apart() {
        for generated in [
            "css-1x2y3z",
            "sc-abc123",
            "jsx-2912",
            "Button_primary__3xK9a",
            "x7f3a9q2",
            "_a1b2c",
            "svelte-1ho2a3",
        ] {
            assert!(is_generated(generated), "{generated}");
            assert!(!meaningful(generated), "{generated}");
        }
        for kept in [
            "like-btn",
            "icon-heart",
            "fa-share",
            "bookmark-btn",
            "copy-link",
            "h1-title",
        ] {
            assert!(!is_generated(kept), "{kept}");
            assert!(meaningful(kept), "{kept}");
        }
        for vague in [
            "fa",
            "icon",
            "btn",
            "active",
            "x",
            "p-2",
            "mt-4",
            "bg-blue-500",
            "text-gray-700",
            "rounded-full",
            "hover:bg-gray-100",
            "c-white:hvr",
            "w-[24px]",
            "cursor-pointer",
        ] {
            assert!(!meaningful(vague), "{vague}");
        }
    }
}
