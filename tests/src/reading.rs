//! What a model reads to follow a task, four ways (the bench's "bytes read"
//! table): a full `extract` after every action; observed actions (`observe:
//! true`, PROTOCOL.md §5) with `extract {since: "last"}`, one action a call;
//! the same as the `browser` tool's description tells a model to work, a form
//! filled by one `fill_form` (fields and submit); and Playwright MCP, which
//! answers every action with a whole-page snapshot.
//!
//! Bytes are those of each result rendered for a model by the MCP renderer
//! (`browser_bridge_backend::tool::render::render_text`), so the figures are what
//! an MCP client's model receives. Two tasks: the demo's claim flow (refused,
//! corrected, accepted) and a few steps on a long real page of the corpus.
//! Nothing asserts the figures; each way checks it reached the task's outcome.

use std::path::Path;

use anyhow::{Context, Result, bail};
use browser_bridge_backend::tool::render::render_text;
use browser_bridge_protocol::ActionResult;
use serde_json::{Value, json};

use crate::demo::scenario::{VALID_POLICY, WRONG_POLICY};
use crate::demo::site::DemoSite;
use crate::harness::Stack;

/// Bytes a model read following one task one way.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// Calls made.
    pub calls: usize,
    /// Bytes of rendered results.
    pub bytes: usize,
    /// Each call and the text its result rendered, in order.
    pub log: Vec<(Value, String)>,
}

/// One task's figures.
#[derive(Debug, Clone)]
pub struct TaskReading {
    /// The task, in a few words.
    pub task: String,
    /// A full extract after every action.
    pub full: Reading,
    /// Observed actions and `extract {since: "last"}`, one action a call.
    pub observed: Reading,
    /// Observed actions with each form filled by one `fill_form`, when the task
    /// has a form.
    pub fill_form: Option<Reading>,
    /// Playwright MCP's snapshot per action, when measurable, with how.
    pub playwright: Option<(usize, String)>,
}

impl TaskReading {
    /// `way / full`, bytes.
    pub fn ratio(&self, way: &Reading) -> f64 {
        way.bytes as f64 / self.full.bytes.max(1) as f64
    }
}

/// Every call of every way of each task and what the model read for it.
pub fn transcript(tasks: &[TaskReading]) -> String {
    tasks.iter().map(task_transcript).collect()
}

fn task_transcript(task: &TaskReading) -> String {
    let mut out = format!("# {}\n", task.task);
    let ways = [
        ("full extract after every action", Some(&task.full)),
        ("observed, one action a call", Some(&task.observed)),
        ("observed with fill_form", task.fill_form.as_ref()),
    ];
    for (name, way) in ways {
        let Some(way) = way else { continue };
        out.push_str(&format!(
            "\n## {name}: {} B, {} calls\n",
            way.bytes, way.calls
        ));
        for (call, text) in &way.log {
            out.push_str(&format!("\n> {call} ({} B)\n{text}\n", text.len()));
        }
    }
    out
}

/// Sends `action` through the HTTP API and counts what a model would read.
async fn read(stack: &Stack, reading: &mut Reading, action: Value) -> Result<Value> {
    let value = stack
        .act(action.clone())
        .await
        .with_context(|| format!("{action}"))?;
    let typed: ActionResult =
        serde_json::from_value(value.clone()).with_context(|| format!("decode {value}"))?;
    let text = render_text(&typed, false);
    reading.calls += 1;
    reading.bytes += text.len();
    reading.log.push((action, text));
    Ok(value)
}

/// An action, then (full way) a whole extract of the tab, or (observed way) the
/// action with `observe: true`. Returns what the model learns: the extract, or
/// the action's result with its `changes`.
async fn step(
    stack: &Stack,
    reading: &mut Reading,
    observed: bool,
    mut action: Value,
) -> Result<Value> {
    if observed {
        action["observe"] = json!(true);
        return read(stack, reading, action).await;
    }
    let tab = action["tabId"].clone();
    read(stack, reading, action).await?;
    read(stack, reading, json!({"action": "extract", "tabId": tab})).await
}

/// The uid of the first element with `role` whose name contains `name`
/// (case-insensitive).
fn uid(page: &Value, role: &str, name: &str) -> Result<String> {
    page["elements"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| {
            e["role"] == role
                && e["name"]
                    .as_str()
                    .is_some_and(|n| n.to_lowercase().contains(name))
        })
        .and_then(|e| e["uid"].as_str())
        .map(str::to_owned)
        .with_context(|| format!("no {role} {name:?}"))
}

/// Whether what the model learnt mentions `needle`: the markdown of an extract,
/// or the new text of `changes`.
fn mentions(learnt: &Value, needle: &str) -> bool {
    let markdown = learnt["markdown"].as_str().unwrap_or_default();
    let text = learnt["changes"]["text"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    markdown.contains(needle) || text.into_iter().any(|t| t.contains(needle))
}

/// How a way fills a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// `type` each field, `click` submit, a full extract after each.
    Full,
    /// The same actions observed.
    Observed,
    /// One observed `fill_form` with the fields and the submit.
    FillForm,
}

/// Fills `fields` and clicks `submit` the `way`'s way; returns what the model
/// learnt from the submit.
async fn fill(
    stack: &Stack,
    r: &mut Reading,
    way: Way,
    tab: i64,
    fields: &[(&str, &str)],
    submit: &str,
) -> Result<Value> {
    if way == Way::FillForm {
        let fields: Vec<Value> = fields
            .iter()
            .map(|(uid, value)| json!({"uid": uid, "value": value}))
            .collect();
        let action = json!({"action": "fill_form", "tabId": tab, "fields": fields,
            "submit": {"uid": submit}, "observe": true});
        return read(stack, r, action).await;
    }
    let observed = way == Way::Observed;
    for (field, text) in fields {
        step(
            stack,
            r,
            observed,
            json!({"action": "type", "tabId": tab, "uid": field, "text": text}),
        )
        .await?;
    }
    step(
        stack,
        r,
        observed,
        json!({"action": "click", "tabId": tab, "uid": submit}),
    )
    .await
}

/// The claim flow of the demo: open the form, fill it with a policy the insurer
/// does not know, submit, read the refusal, correct the policy, submit, read the
/// claim reference.
async fn claim(stack: &Stack, site: &DemoSite, tab: i64, way: Way) -> Result<Reading> {
    let mut r = Reading::default();
    let url = site.url("/claim/");
    read(
        stack,
        &mut r,
        json!({"action": "navigate", "tabId": tab, "url": url}),
    )
    .await?;
    let page = read(stack, &mut r, json!({"action": "extract", "tabId": tab})).await?;
    let policy = uid(&page, "textbox", "policy number")?;
    let date = uid(&page, "textbox", "date of incident")?;
    let what = uid(&page, "textbox", "what happened")?;
    let submit = uid(&page, "button", "submit claim")?;
    let refused = fill(
        stack,
        &mut r,
        way,
        tab,
        &[
            (&policy, WRONG_POLICY),
            (&date, "2026-11-20"),
            (&what, "A burst pipe flooded the kitchen floor."),
        ],
        &submit,
    )
    .await?;
    if !mentions(&refused, "was not found") {
        bail!("the refusal was not seen: {refused}");
    }
    let accepted = fill(stack, &mut r, way, tab, &[(&policy, VALID_POLICY)], &submit).await?;
    if !mentions(&accepted, "Claim reference: CLM-") {
        bail!("the claim reference was not seen: {accepted}");
    }
    Ok(r)
}

/// A few steps on a long page: open it, read it, scroll down three times, type
/// into its first text field when it has one, then read what changed.
async fn long_page(stack: &Stack, url: &str, tab: i64, observed: bool) -> Result<Reading> {
    let mut r = Reading::default();
    read(
        stack,
        &mut r,
        json!({"action": "navigate", "tabId": tab, "url": url}),
    )
    .await?;
    let page = read(stack, &mut r, json!({"action": "extract", "tabId": tab})).await?;
    for _ in 0..3 {
        step(
            stack,
            &mut r,
            observed,
            json!({"action": "scroll", "tabId": tab, "direction": "down"}),
        )
        .await?;
    }
    let field = page["elements"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| {
            matches!(e["role"].as_str(), Some("textbox" | "searchbox")) && e["readonly"].is_null()
        })
        .and_then(|e| e["uid"].as_str());
    if let Some(field) = field {
        step(
            stack,
            &mut r,
            observed,
            json!({"action": "type", "tabId": tab, "uid": field, "text": "history"}),
        )
        .await?;
    }
    // The last look at the page: whole, or since the last observation.
    let mut last = json!({"action": "extract", "tabId": tab});
    if observed {
        last["since"] = json!("last");
    }
    read(stack, &mut r, last).await?;
    Ok(r)
}

/// Both tasks, both ways, in `tab`. The corpus part is skipped (`None` in its
/// place, with the reason) when `corpus` has no `wikipedia-2/source.html`.
///
/// # Errors
/// A step that failed or a way that did not reach the task's outcome.
pub async fn measure(
    stack: &Stack,
    tab: i64,
    corpus: &Path,
) -> Result<(Vec<TaskReading>, Option<String>)> {
    let site = DemoSite::start().await?;
    let mut out = vec![TaskReading {
        task: "demo claim flow (refused, corrected, accepted)".into(),
        full: claim(stack, &site, tab, Way::Full).await?,
        observed: claim(stack, &site, tab, Way::Observed).await?,
        fill_form: Some(claim(stack, &site, tab, Way::FillForm).await?),
        playwright: None,
    }];
    let page = "wikipedia-2";
    let source = corpus.join(page).join("source.html");
    if !source.is_file() {
        return Ok((out, Some(format!("skipped: no {}", source.display()))));
    }
    let server = crate::fixtures::StaticServer::start_dir(corpus.to_path_buf()).await?;
    let url = server.url(&format!("{page}/source.html"));
    let full = long_page(stack, &url, tab, false).await?;
    let observed = long_page(stack, &url, tab, true).await?;
    // Playwright MCP answers each action with the page's snapshot: its recorded
    // size on this page (corpus/peer-playwright-snapshot.json) per call.
    // Its actions are ours without the two extracts (its navigate answers a
    // snapshot already).
    let actions = observed.calls.saturating_sub(2);
    let playwright = recorded_snapshot_bytes(corpus, page).map(|bytes| {
        (
            bytes * actions,
            format!("{bytes} B recorded snapshot × {actions} actions"),
        )
    });
    out.push(TaskReading {
        task: format!("corpus {page}: read, scroll ×3, type, read"),
        full,
        observed,
        fill_form: None,
        playwright,
    });
    Ok((out, None))
}

/// The recorded `browser_snapshot` bytes of `page`, from
/// `<corpus>/../peer-playwright-snapshot.json`.
fn recorded_snapshot_bytes(corpus: &Path, page: &str) -> Option<usize> {
    let file = corpus.parent()?.join("peer-playwright-snapshot.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    doc["rows"]
        .as_array()?
        .iter()
        .find(|row| row["page"] == page)?["bytes"]
        .as_u64()
        .map(|b| b as usize)
}

/// The bench's bytes-read section: a line, [`table`], and why the corpus task
/// was skipped, if it was ([`measure`]'s answer).
pub fn report(reading: &(Vec<TaskReading>, Option<String>)) -> String {
    let mut out =
        String::from("\nBytes a model reads (MCP rendering) to reach the same outcome:\n\n");
    out.push_str(&table(&reading.0));
    if let Some(skipped) = &reading.1 {
        out.push_str(&format!("\ncorpus task: {skipped}\n"));
    }
    out
}

/// The Markdown table of `tasks`: bytes (calls) of each way and its ratio to
/// the full way.
pub fn table(tasks: &[TaskReading]) -> String {
    let mut out = String::from(
        "| task | full extract after every action | observed, one action a call | ratio | observed with fill_form | ratio | Playwright MCP snapshot per action |\n|---|---|---|---|---|---|---|\n",
    );
    for t in tasks {
        let playwright = t.playwright.as_ref().map_or_else(
            || "not measured".to_owned(),
            |(b, how)| format!("{b} B ({how})"),
        );
        let (form, form_ratio) = t.fill_form.as_ref().map_or_else(
            || ("no form".to_owned(), "–".to_owned()),
            |f| {
                (
                    format!("{} B ({} calls)", f.bytes, f.calls),
                    format!("{:.2}×", t.ratio(f)),
                )
            },
        );
        out.push_str(&format!(
            "| {} | {} B ({} calls) | {} B ({} calls) | {:.2}× | {form} | {form_ratio} | {playwright} |\n",
            t.task,
            t.full.bytes,
            t.full.calls,
            t.observed.bytes,
            t.observed.calls,
            t.ratio(&t.observed),
        ));
    }
    out
}
