//! `<table>` → pipe table. Layout tables (one column, nested tables, long prose cells,
//! `role=presentation`) are not data: the caller renders their cells as blocks.

use super::Renderer;
use crate::dom::Kind;

/// Longest cell text (bytes) a data table may hold; longer means a layout table.
const MAX_CELL_BYTES: usize = 400;

/// The pipe table for the `<table>` at `id`, or `None` for a layout table.
pub(crate) fn render(r: &Renderer<'_, '_>, id: usize) -> Option<String> {
    let dom = r.dom;
    if dom
        .attr(id, "role")
        .is_some_and(|v| matches!(v.trim(), "presentation" | "none"))
    {
        return None;
    }
    let mut rows: Vec<(usize, bool)> = Vec::new(); // (tr, in thead)
    let mut caption = None;
    for k in dom.render_children(id) {
        if r.content.excluded[k] {
            continue;
        }
        match dom.nodes[k].tag.as_str() {
            "tr" => rows.push((k, false)),
            "thead" | "tbody" | "tfoot" => {
                let head = dom.nodes[k].tag == "thead";
                for t in dom.render_children(k) {
                    if dom.nodes[t].tag == "tr" && !r.content.excluded[t] {
                        rows.push((t, head));
                    }
                }
            }
            "caption" => caption = Some(r.cell(k)),
            _ => {}
        }
    }
    let mut grid: Vec<Vec<String>> = Vec::new();
    let mut header_rows = 0;
    for (i, &(tr, head)) in rows.iter().enumerate() {
        let mut cells = Vec::new();
        let mut all_th = true;
        for c in dom.render_children(tr) {
            let tag = dom.nodes[c].tag.as_str();
            if !matches!(tag, "td" | "th") || r.content.excluded[c] {
                continue;
            }
            if has_table(r, c) {
                return None;
            }
            all_th &= tag == "th";
            let text = r.cell(c);
            if text.len() > MAX_CELL_BYTES {
                return None;
            }
            let span = dom
                .attr(c, "colspan")
                .and_then(|s| s.trim().parse::<usize>().ok())
                .unwrap_or(1)
                .clamp(1, 50);
            cells.push(text.replace('|', "\\|"));
            cells.extend(std::iter::repeat_n(String::new(), span - 1));
        }
        if cells.is_empty() {
            continue;
        }
        if (head || all_th) && i == header_rows {
            header_rows += 1;
        }
        grid.push(cells);
    }
    let cols = grid.iter().map(Vec::len).max().unwrap_or(0);
    if cols < 2 || grid.is_empty() {
        return None;
    }
    let line = |cells: &[String]| {
        let mut s = String::from("|");
        for i in 0..cols {
            s.push(' ');
            s.push_str(cells.get(i).map(String::as_str).unwrap_or(""));
            s.push_str(" |");
        }
        s
    };
    let mut out = Vec::new();
    if let Some(c) = caption.filter(|c| !c.is_empty()) {
        out.push(c);
    }
    // GFM needs exactly one header row: the first row stands in when none is marked.
    let body_from = header_rows.max(1);
    out.push(line(&grid[0]));
    out.push(format!("|{}", " --- |".repeat(cols)));
    for row in &grid[body_from.min(1)..] {
        out.push(line(row));
    }
    Some(out.join("\n"))
}

/// A nested `<table>` anywhere under `id` (layout tables nest).
fn has_table(r: &Renderer<'_, '_>, id: usize) -> bool {
    let dom = r.dom;
    let mut stack = dom.render_children(id);
    while let Some(k) = stack.pop() {
        let node = &dom.nodes[k];
        if node.kind == Kind::Element && node.tag == "table" {
            return true;
        }
        stack.extend(dom.render_children(k));
    }
    false
}
