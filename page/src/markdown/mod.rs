//! DOM → Markdown of the main content (PROTOCOL.md §6): headings, paragraphs, lists,
//! links with absolute URLs, pipe tables, code, quotes and image alt text, from the
//! root [`content::analyse`] chose, skipping what it excluded. The result is cut to
//! [`MARKDOWN_MAX_BYTES`] on a block boundary.

mod table;

use super::content::{self, Content};
use super::dom::{Dom, Kind};

use std::ops::Range;

use super::url;
use browser_bridge_protocol::extract::MARKDOWN_MAX_BYTES;
use browser_bridge_protocol::text::floor_char_boundary;

/// Longest link URL written out (bytes); longer links keep only their text.
pub const MAX_LINK_URL_BYTES: usize = 300;

/// Rendered Markdown and whether it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markdown {
    /// The Markdown, at most the byte budget.
    pub text: String,
    /// Blocks were dropped to fit the budget.
    pub truncated: bool,
}

/// The page's main content as Markdown, at most [`MARKDOWN_MAX_BYTES`].
pub fn page_markdown(dom: &Dom<'_>) -> Markdown {
    content_markdown(dom, &content::analyse(dom))
}

/// [`page_markdown`] with the content analysis already made.
pub fn content_markdown(dom: &Dom<'_>, content: &Content) -> Markdown {
    join_blocks(&content_blocks(dom, content), MARKDOWN_MAX_BYTES)
}

/// The blocks of the main content, uncut: the root's, led by the article's title
/// when the root has no top heading.
///
/// With a modal dialog open ([`content::modal_dialog`]) the dialog's content
/// comes first, then [`INERT_NOTE`], then the page behind it.
pub fn content_blocks(dom: &Dom<'_>, content: &Content) -> Vec<String> {
    let mut blocks = page_blocks(dom, content);
    if let Some(dialog) = content::modal_dialog(dom) {
        let mut first = render(dom, &content::visible_only(dom, dialog), dialog);
        first.push(INERT_NOTE.to_owned());
        // A dialog big enough to be kept in the page's own content is not repeated.
        blocks.retain(|b| !first.contains(b));
        first.append(&mut blocks);
        blocks = first;
    }
    blocks
}

/// The line between a modal dialog's content and the page behind it.
pub const INERT_NOTE: &str =
    "*(A modal dialog is open: the page below is inert until it is closed.)*";

fn page_blocks(dom: &Dom<'_>, content: &Content) -> Vec<String> {
    let mut blocks = render(dom, content, content.root);
    // The article's own title often sits just outside the chosen root (a header
    // above the body text): lead with it when the root has no top heading.
    if !blocks.iter().any(|b| b.starts_with("# "))
        && let Some(h1) = title_heading(dom, content)
    {
        blocks.insert(0, h1);
    }
    blocks
}

/// The nearest kept `<h1>` before the root in document order (the first one is often
/// the site's logo), as a Markdown heading.
fn title_heading(dom: &Dom<'_>, content: &Content) -> Option<String> {
    let root_order = dom.nodes[content.root].order;
    let h1 = (0..dom.nodes.len())
        .filter(|&i| dom.nodes[i].tag == "h1" && dom.nodes[i].order < root_order)
        .filter(|&i| content.text[i] > 0 && !excluded_above(dom, content, i))
        .max_by_key(|&i| dom.nodes[i].order)?;
    let blocks = render(dom, content, h1);
    blocks.into_iter().next().filter(|b| b.starts_with("# "))
}

/// `id` or one of its ancestors is excluded.
fn excluded_above(dom: &Dom<'_>, content: &Content, id: usize) -> bool {
    std::iter::successors(Some(id), |&n| dom.nodes[n].parent).any(|n| content.excluded[n])
}

/// Joins blocks with blank lines, keeping whole blocks within `max` bytes. A first
/// block larger than the budget is cut on a char boundary so something is returned.
/// A fenced block (a field's value, a code listing) that does not fit and is over
/// a third of `max` is cut inside its fence to that third, so that one huge field
/// does not push out everything after it.
pub fn join_blocks(blocks: &[String], max: usize) -> Markdown {
    let mut text = String::new();
    let mut truncated = false;
    for b in blocks {
        let sep = if text.is_empty() { 0 } else { 2 };
        let shortened;
        let mut b = b.as_str();
        if text.len() + sep + b.len() > max
            && b.len() > max / 3
            && let Some(cut) = cut_fenced(b, max / 3)
        {
            shortened = cut;
            b = &shortened;
            truncated = true;
        }
        if text.len() + sep + b.len() > max {
            if text.is_empty() {
                text.push_str(&b[..floor_char_boundary(b, max)]);
            }
            return Markdown {
                text,
                truncated: true,
            };
        }
        if sep > 0 {
            text.push_str("\n\n");
        }
        text.push_str(b);
    }
    Markdown { text, truncated }
}

/// The whole Markdown of `blocks` (joined with blank lines, nothing cut) and its
/// parts of at most `max` bytes, as byte ranges of it that follow each other, so
/// that the parts put end to end are the whole. A part ends where a block ends
/// (the blank line after it stays with it); a block longer than `max` is cut after
/// a line break, else on a char boundary. Empty Markdown is one empty part.
pub fn split_parts(blocks: &[String], max: usize) -> (String, Vec<Range<usize>>) {
    let whole = blocks.join("\n\n");
    let mut starts = Vec::with_capacity(blocks.len());
    let mut at = 0;
    for b in blocks {
        starts.push(at);
        at += b.len() + 2;
    }
    let max = max.max(4);
    let mut parts = Vec::new();
    let mut start = 0;
    while whole.len() - start > max {
        let limit = start + max;
        // The last block start within the budget, else the last line start, else
        // the last char boundary.
        let end = starts
            .iter()
            .copied()
            .rfind(|&s| s > start && s <= limit)
            .or_else(|| {
                whole.as_bytes()[start..limit]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map(|i| start + i + 1)
                    .filter(|&e| e > start)
            })
            .unwrap_or_else(|| start + floor_char_boundary(&whole[start..], max));
        // `max` ≥ 4 and a char is at most 4 bytes, so every cut moves forward.
        parts.push(start..end);
        start = end;
    }
    parts.push(start..whole.len());
    (whole, parts)
}

/// A fenced block (its first line opens with three or more backticks or tildes,
/// its last line is that fence) cut to about `max` bytes inside the fence, with
/// a last line saying how much was left out; `None` for any other block.
fn cut_fenced(block: &str, max: usize) -> Option<String> {
    let (open, rest) = block.split_once('\n')?;
    let fence: String = open.chars().take_while(|&c| c == '`' || c == '~').collect();
    let body = rest.strip_suffix(fence.as_str())?.strip_suffix('\n')?;
    if fence.len() < 3 {
        return None;
    }
    let room = max.saturating_sub(open.len() + fence.len() + 48);
    let kept = &body[..floor_char_boundary(body, room)];
    let left = body.len() - kept.len();
    Some(format!(
        "{open}\n{kept}\n… ({left} more bytes not shown)\n{fence}"
    ))
}

/// The Markdown blocks of the subtree at `id`.
pub fn render(dom: &Dom<'_>, content: &Content, id: usize) -> Vec<String> {
    let r = Renderer { dom, content };
    let mut out = Out::default();
    r.walk(id, &mut out, Ctx::default());
    out.finish()
}

#[derive(Debug, Clone, Copy, Default)]
struct Ctx {
    /// Inside `<pre>`: keep whitespace.
    pre: bool,
    /// Inside a link: do not nest links.
    link: bool,
}

/// Block list plus the inline run being built.
#[derive(Debug, Default)]
pub(crate) struct Out {
    blocks: Vec<String>,
    line: String,
}

impl Out {
    /// Appends text with HTML whitespace collapsing.
    fn text(&mut self, s: &str) {
        let starts_ws = s.starts_with(|c: char| c.is_whitespace());
        let ends_ws = s.ends_with(|c: char| c.is_whitespace());
        let mut words = s.split_whitespace().peekable();
        if words.peek().is_none() {
            if !s.is_empty() {
                self.space();
            }
            return;
        }
        if starts_ws {
            self.space();
        }
        let mut first = true;
        for w in words {
            if !first {
                self.line.push(' ');
            }
            self.line.push_str(w);
            first = false;
        }
        if ends_ws {
            self.space();
        }
    }

    /// Appends already-formatted inline Markdown.
    fn raw(&mut self, s: &str) {
        self.line.push_str(s);
    }

    fn space(&mut self) {
        if !self.line.is_empty() && !self.line.ends_with([' ', '\n']) {
            self.line.push(' ');
        }
    }

    fn newline(&mut self) {
        let trimmed = self.line.trim_end_matches(' ').len();
        self.line.truncate(trimmed);
        if !self.line.is_empty() && !self.line.ends_with('\n') {
            self.line.push('\n');
        }
    }

    fn flush(&mut self) {
        let t = self.line.trim();
        if !t.is_empty() {
            self.blocks.push(t.to_owned());
        }
        self.line.clear();
    }

    fn block(&mut self, b: String) {
        self.flush();
        if !b.trim().is_empty() {
            self.blocks.push(b);
        }
    }

    pub(crate) fn finish(mut self) -> Vec<String> {
        self.flush();
        self.blocks
    }
}

pub(crate) struct Renderer<'d, 'a> {
    pub(crate) dom: &'d Dom<'a>,
    pub(crate) content: &'d Content,
}

impl Renderer<'_, '_> {
    fn walk(&self, id: usize, out: &mut Out, ctx: Ctx) {
        if let Some(value) = field_value(self.dom, id) {
            out.block(fenced(value));
            return;
        }
        if self.content.excluded[id] {
            return;
        }
        let node = &self.dom.nodes[id];
        match node.kind {
            Kind::Text => {
                let Some(l) = node.layout else { return };
                if l.invisible || l.is_offscreen() {
                    return;
                }
                if ctx.pre {
                    out.raw(node.text);
                } else {
                    out.text(node.text);
                }
                return;
            }
            Kind::Element => {}
            _ => {
                self.children(id, out, ctx);
                return;
            }
        }
        let tag = node.tag.as_str();
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if ctx.link => self.children(id, out, ctx),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = usize::from(tag.as_bytes()[1] - b'0');
                let text = self.inline(id, ctx);
                if !text.is_empty() {
                    out.block(format!("{} {}", "#".repeat(level), text));
                }
            }
            "br" => out.newline(),
            "hr" => out.block("---".to_owned()),
            "a" => {
                // Card links (display: block/flex) are blocks of their own.
                // Flex and grid items sit side by side: a space apart, on one line.
                let item = self.dom.blockified(id);
                let block = node.layout.is_some_and(|l| !l.inline) && !item;
                if block {
                    out.flush();
                } else if item {
                    out.space();
                }
                self.link(id, out, ctx);
                if block {
                    out.flush();
                } else if item {
                    out.space();
                }
            }
            "img" => {
                let alt = self
                    .dom
                    .attr(id, "alt")
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if !alt.is_empty() && node.layout.is_some_and(|l| !l.is_empty() && !l.invisible) {
                    out.space();
                    out.raw(&format!("![{}]", alt.replace(['[', ']'], "")));
                    out.space();
                }
            }
            "ul" | "ol" => out.block(self.list(id, tag == "ol", ctx)),
            "table" => match table::render(self, id) {
                Some(t) => out.block(t),
                None => self.block_children(id, out, ctx),
            },
            "pre" => {
                let mut inner = Out::default();
                self.children(id, &mut inner, Ctx { pre: true, ..ctx });
                let code = inner.line.trim_matches('\n').to_owned();
                if !code.trim().is_empty() {
                    let fence = if code.contains("```") { "~~~" } else { "```" };
                    out.block(format!("{fence}\n{code}\n{fence}"));
                }
            }
            "code" | "kbd" | "samp" if !ctx.pre => {
                let text = self.inline(id, ctx);
                if !text.is_empty() {
                    out.space_if_glued();
                    let tick = if text.contains('`') { "``" } else { "`" };
                    out.raw(&format!("{tick}{text}{tick}"));
                }
            }
            "blockquote" => {
                let inner = self.sub_blocks(id, ctx);
                if !inner.is_empty() {
                    let quoted = inner
                        .join("\n\n")
                        .lines()
                        .map(|l| {
                            if l.is_empty() {
                                ">".to_owned()
                            } else {
                                format!("> {l}")
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    out.block(quoted);
                }
            }
            _ => {
                // A floated letter or two is a drop cap: part of the word after it.
                let drop_cap = node.layout.is_some_and(|l| l.floated) && node.text_len <= 3;
                let inline = node
                    .layout
                    .is_none_or(|l| l.inline || drop_cap || self.dom.blockified(id))
                    && !is_block_tag(tag);
                if inline || ctx.pre {
                    let item = !ctx.pre && self.dom.blockified(id);
                    if item {
                        out.space();
                    }
                    self.children(id, out, ctx);
                    if item {
                        out.space();
                    }
                } else {
                    self.block_children(id, out, ctx);
                }
            }
        }
    }

    fn children(&self, id: usize, out: &mut Out, ctx: Ctx) {
        for k in self.dom.render_children(id) {
            self.walk(k, out, ctx);
        }
    }

    fn block_children(&self, id: usize, out: &mut Out, ctx: Ctx) {
        out.flush();
        self.children(id, out, ctx);
        out.flush();
    }

    /// The blocks of `id`'s children, rendered on their own.
    fn sub_blocks(&self, id: usize, ctx: Ctx) -> Vec<String> {
        let mut inner = Out::default();
        self.children(id, &mut inner, ctx);
        inner.finish()
    }

    /// `id`'s content on one line.
    fn inline(&self, id: usize, ctx: Ctx) -> String {
        let mut inner = Out::default();
        self.children(id, &mut inner, ctx);
        let blocks = inner.finish();
        blocks
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `id`'s content on one line, for table cells.
    pub(crate) fn cell(&self, id: usize) -> String {
        self.inline(id, Ctx::default())
    }

    fn link(&self, id: usize, out: &mut Out, ctx: Ctx) {
        let text = self.inline(id, Ctx { link: true, ..ctx });
        if text.is_empty() {
            return;
        }
        let href = self.dom.attr(id, "href").unwrap_or("").trim();
        // A card's image link next to its title link to the same page adds nothing.
        if text.starts_with("![") && text.ends_with(']') && self.has_twin_link(id, href) {
            return;
        }
        // Heading permalinks ("#", "¶", "§") repeat the heading they sit in.
        if href.starts_with('#') && matches!(text.as_str(), "#" | "¶" | "§" | "🔗") {
            return;
        }
        let target = if ctx.link || href.is_empty() || href.starts_with('#') {
            None
        } else {
            let abs = url::resolve(self.dom.base_url(self.dom.nodes[id].doc), href);
            let web =
                abs.starts_with("http:") || abs.starts_with("https:") || abs.starts_with("mailto:");
            // Longer URLs are ad and tracking redirects: the text is kept, the agent
            // can still follow the link through its element uid.
            (web && abs.len() <= MAX_LINK_URL_BYTES).then_some(abs)
        };
        out.space_if_glued();
        match target {
            Some(u) => out.raw(&format!(
                "[{text}]({})",
                u.replace(' ', "%20").replace(')', "%29")
            )),
            None => out.raw(&text),
        }
    }

    /// Another link to `href` near `id` (under its parent or grandparent).
    fn has_twin_link(&self, id: usize, href: &str) -> bool {
        let dom = self.dom;
        let Some(scope) = dom.nodes[id]
            .parent
            .and_then(|p| dom.nodes[p].parent.or(Some(p)))
        else {
            return false;
        };
        let mut stack = dom.render_children(scope);
        let mut budget = 200;
        while let Some(k) = stack.pop() {
            budget -= 1;
            if budget == 0 {
                return false;
            }
            if k != id
                && dom.nodes[k].tag == "a"
                && dom.attr(k, "href").map(str::trim) == Some(href)
            {
                return !self.content.excluded[k];
            }
            stack.extend(dom.render_children(k));
        }
        false
    }

    fn list(&self, id: usize, ordered: bool, ctx: Ctx) -> String {
        let mut items = Vec::new();
        let mut n = self
            .dom
            .attr(id, "start")
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or(1);
        for k in self.dom.render_children(id) {
            if self.content.excluded[k] {
                continue;
            }
            let blocks = if self.dom.nodes[k].tag == "li" {
                self.sub_blocks(k, ctx)
            } else {
                let mut o = Out::default();
                self.walk(k, &mut o, ctx);
                o.finish()
            };
            if blocks.is_empty() {
                continue;
            }
            let marker = if ordered {
                format!("{n}. ")
            } else {
                "- ".to_owned()
            };
            n += 1;
            let pad = " ".repeat(marker.len());
            let body = blocks.join("\n");
            let mut item = String::new();
            for (i, line) in body.lines().enumerate() {
                if i == 0 {
                    item.push_str(&marker);
                } else {
                    item.push('\n');
                    if !line.is_empty() {
                        item.push_str(&pad);
                    }
                }
                item.push_str(line);
            }
            items.push(item);
        }
        items.join("\n")
    }
}

impl Out {
    /// A space before inline markup when the previous text ends in a word character,
    /// so `see[link](…)` does not glue.
    fn space_if_glued(&mut self) {
        if self
            .line
            .ends_with(|c: char| c.is_alphanumeric() || matches!(c, '.' | ',' | ':' | ';' | ')'))
        {
            self.line.push(' ');
        }
    }
}

/// Tags that start a block even when styled inline or not laid out.
/// The whole value of a text field a person sees, for the Markdown (PROTOCOL.md
/// §6): a `<textarea>` with a value, or a text `<input>` whose value is longer
/// than an element's [`VALUE_MAX_CHARS`](crate::elements::VALUE_MAX_CHARS).
/// Never a password.
fn field_value<'a>(dom: &Dom<'a>, id: usize) -> Option<&'a str> {
    let node = &dom.nodes[id];
    let field = match node.tag.as_str() {
        "textarea" => true,
        "input" => matches!(
            dom.input_type(id).as_str(),
            "" | "text" | "search" | "url" | "email" | "tel"
        ),
        _ => false,
    };
    if !field
        || node.kind != Kind::Element
        || !node
            .layout
            .is_some_and(|l| !l.invisible && !l.transparent && !l.is_empty())
        || dom
            .attr(id, "aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return None;
    }
    let value = dom.input_value(id).filter(|v| !v.trim().is_empty())?;
    (node.tag == "textarea" || crate::elements::cut_length(value).is_some()).then_some(value)
}

/// `value` exactly, in a fenced `text` block whose fence is longer than any run
/// of backticks inside it.
fn fenced(value: &str) -> String {
    let longest = value.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{value}\n{fence}")
}

fn is_block_tag(tag: &str) -> bool {
    matches!(
        tag,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "li"
            | "dl"
            | "dt"
            | "dd"
            | "figure"
            | "figcaption"
            | "address"
            | "details"
            | "summary"
            | "form"
            | "fieldset"
            | "tr"
            | "body"
            | "html"
            | "caption"
            | "legend"
    )
}
