//! Observed actions and `extract {since: "last"}` (PROTOCOL.md §5 "Observed
//! actions", §6 "Changes"; docs/DESIGN.md "Observed actions").
//!
//! The backend that owns the extension's WebSocket keeps, per tab, the last
//! extract a caller was given (its *baseline*), so every path that reaches the
//! browser through it — the HTTP API, `/mcp`, `mcp` over stdio reaching a running
//! `serve`, the built-in agent — shares one baseline. The extension never sees
//! `observe` or `since`: [`Observer::act`] takes them off the action, runs it, and
//! when asked, extracts the tab afterwards and answers what changed
//! ([`browser_bridge_page::changes`]). Rules:
//! - an observed action on a tab without a baseline answers without `changes`
//!   (there is nothing to compare with, and the model has not read the tab);
//! - a result that reports a navigation (`navigate`, `reload`, a click's
//!   `navigated`) answers `changes: {navigated: true, url, title?}` without an
//!   extract, and drops the baseline, observed or not, so the next `since`
//!   answers a full extract; so does an observation whose extract shares neither
//!   URL nor uid with the baseline (a navigation the result did not report);
//! - a result with an open dialog answers without `changes` (nothing can be read
//!   until it is handled);
//! - an extract that fails after the action leaves the action's result as it was:
//!   the action happened, only its observation is missing;
//! - every successful extract (plain, `since`, or an observation's) becomes the
//!   tab's new baseline; `close_tab` forgets it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use browser_bridge_page::changes::changes_between;
use browser_bridge_protocol::action::{Extract, Since};
use browser_bridge_protocol::extract::Changes;
use browser_bridge_protocol::result::SideEffects;
use browser_bridge_protocol::{Action, ActionResult, BridgeError, ExtractResult, TabId};

/// Tabs whose baseline is kept; past it the oldest baseline is forgotten.
pub const MAX_BASELINES: usize = 64;

/// The per-tab baselines, shared by every clone of the hub handle.
#[derive(Debug, Clone, Default)]
pub struct Observer {
    baselines: Arc<Mutex<Baselines>>,
}

#[derive(Debug, Default)]
struct Baselines {
    /// Tab → its last extract (without `text`, which no diff reads) and when it
    /// was stored (a counter, for eviction).
    by_tab: HashMap<TabId, (u64, ExtractResult)>,
    clock: u64,
}

impl Baselines {
    fn store(&mut self, mut extract: ExtractResult) {
        extract.text = String::new();
        extract.changes = None;
        self.clock += 1;
        self.by_tab.insert(extract.tab_id, (self.clock, extract));
        if self.by_tab.len() > MAX_BASELINES
            && let Some(oldest) = self
                .by_tab
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(tab, _)| *tab)
        {
            self.by_tab.remove(&oldest);
        }
    }
}

/// What an observed action's result says about the page afterwards.
enum After {
    /// Another document was loaded: `url`, and `title` when the result has it.
    Navigated(String, Option<String>),
    /// A dialog is open: nothing can be read.
    Dialog,
    /// Extract and compare.
    Read,
}

impl Observer {
    /// An observer with no baselines.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `action` through `send` (which forwards one action to the extension)
    /// with the observation rules of this module: strips `observe` and `since`,
    /// adds `changes`, keeps the baselines.
    ///
    /// # Errors
    /// The action's own error; an observation never turns a success into an error.
    pub async fn act<F, Fut>(
        &self,
        mut action: Action,
        send: F,
    ) -> Result<ActionResult, BridgeError>
    where
        F: Fn(Action) -> Fut,
        Fut: Future<Output = Result<ActionResult, BridgeError>>,
    {
        let observe = action.observe_slot().and_then(Option::take) == Some(true);
        if let Action::Extract(options) = &mut action {
            if options.scope.is_some() || options.query.is_some() || options.part.is_some() {
                // Part of a page: neither a baseline nor compared (validation
                // refuses `since` with these).
                return send(action).await;
            }
            let since = options.since.take();
            let mut result = send(action).await?;
            if let ActionResult::Extract(extract) = &mut result {
                self.answer_extract(extract, since);
            }
            return Ok(result);
        }
        let close = match &action {
            Action::CloseTab(p) => Some(p.tab_id),
            _ => None,
        };
        let mut result = send(action).await?;
        if let Some(tab) = close {
            self.forget(tab);
        }
        let Some(tab) = result.tab_id() else {
            return Ok(result);
        };
        let read = self.has_baseline(tab);
        let after = after(&result);
        if let After::Navigated(..) = after {
            // Observed or not, the tab shows a document nobody has read.
            self.forget(tab);
        }
        if !observe || !read {
            return Ok(result);
        }
        let changes = match after {
            After::Dialog => None,
            After::Navigated(url, title) => Some(Box::new(Changes::navigated(url, title))),
            After::Read => {
                let read = Action::Extract(Extract {
                    tab_id: Some(tab),
                    ..Extract::default()
                });
                match send(read).await {
                    Ok(ActionResult::Extract(mut extract)) => {
                        self.answer_extract(&mut extract, Some(Since::Last));
                        match extract.changes {
                            Some(changes) => Some(changes),
                            // Another document, which the result did not report
                            // (a form submitted by Enter): the model has not read
                            // it, so it is no baseline.
                            None => {
                                self.forget(tab);
                                Some(Box::new(Changes::navigated(
                                    extract.url,
                                    Some(extract.title),
                                )))
                            }
                        }
                    }
                    Ok(other) => {
                        tracing::warn!(
                            action = other.action_name(),
                            "observe: extract answered another action"
                        );
                        None
                    }
                    Err(error) => {
                        tracing::info!(tab = %tab, code = %error.code, message = %error.message, "observe: the extract after the action failed");
                        None
                    }
                }
            }
        };
        if let Some(slot) = result.changes_mut() {
            *slot = changes;
        }
        Ok(result)
    }

    /// Forgets the baseline of `tab` (closed, or its document replaced).
    pub fn forget(&self, tab: TabId) {
        self.lock().by_tab.remove(&tab);
    }

    /// Forgets every baseline (a browser restarted: its tabIds may be reused).
    pub fn forget_all(&self) {
        self.lock().by_tab.clear();
    }

    fn has_baseline(&self, tab: TabId) -> bool {
        self.lock().by_tab.contains_key(&tab)
    }

    /// Stores `extract` as its tab's baseline; with `since`, and a baseline of the
    /// same document, replaces its content by the changes against that baseline.
    fn answer_extract(&self, extract: &mut ExtractResult, since: Option<Since>) {
        let mut baselines = self.lock();
        let previous = baselines
            .by_tab
            .get(&extract.tab_id)
            .map(|(_, old)| old.clone());
        baselines.store(extract.clone());
        drop(baselines);
        let (Some(Since::Last), Some(old)) = (since, previous) else {
            return;
        };
        let changes = changes_between(&old, extract);
        if changes.navigated {
            return;
        }
        extract.text = String::new();
        extract.markdown = String::new();
        extract.elements = Vec::new();
        extract.truncated = None;
        extract.changes = Some(Box::new(changes));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Baselines> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.baselines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn after(result: &ActionResult) -> After {
    let dialog = |effects: &SideEffects| effects.dialog.is_some();
    match result {
        ActionResult::Navigate(p) | ActionResult::Reload(p) => {
            if p.dialog.is_some() {
                After::Dialog
            } else {
                After::Navigated(p.url.clone(), Some(p.title.clone()))
            }
        }
        // Back/forward may stay in the document (a `pushState` entry): the extract
        // tells, by the uids it shares with the baseline.
        ActionResult::GoBack(p) | ActionResult::GoForward(p) if p.dialog.is_some() => After::Dialog,
        ActionResult::Click(c) if dialog(&c.effects) => After::Dialog,
        ActionResult::Click(c) if c.navigated => After::Navigated(c.url.clone(), None),
        ActionResult::PressKey(k) if dialog(&k.effects) => After::Dialog,
        _ => After::Read,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use browser_bridge_protocol::Element;
    use browser_bridge_protocol::result::{ClickResult, PageResult};

    use super::*;

    fn page(tab: i64, url: &str, markdown: &str, uids: &[&str]) -> ExtractResult {
        ExtractResult {
            tab_id: TabId(tab),
            url: url.into(),
            title: "T".into(),
            part: None,
            parts: None,
            text: "inner text".into(),
            markdown: markdown.into(),
            elements: uids
                .iter()
                .map(|uid| Element {
                    name: Some(format!("B {uid}")),
                    visible: Some(true),
                    ..Element::new(browser_bridge_protocol::Uid((*uid).into()), "button")
                })
                .collect(),
            obstacle: None,
            truncated: None,
            changes: None,
        }
    }

    fn click(tab: i64, navigated: bool) -> ActionResult {
        ActionResult::Click(ClickResult {
            tab_id: TabId(tab),
            url: "https://a.test/".into(),
            navigated,
            hit: None,
            effects: SideEffects::default(),
            changes: None,
        })
    }

    fn observed_click() -> Action {
        Action::from_json(r#"{"action":"click","uid":"e1","observe":true}"#).unwrap()
    }

    /// A scripted extension: answers each action with the next page for extracts
    /// and `click` for the rest, and records that no action carried the fields.
    async fn run(
        observer: &Observer,
        action: Action,
        pages: &[ExtractResult],
        clicked: ActionResult,
    ) -> ActionResult {
        let next = AtomicUsize::new(0);
        observer
            .act(action, |a: Action| {
                assert_eq!(a.observe(), None, "observe reached the extension");
                if let Action::Extract(o) = &a {
                    assert_eq!(o.since, None, "since reached the extension");
                }
                let out = match a {
                    Action::Extract(_) => {
                        ActionResult::Extract(pages[next.fetch_add(1, Ordering::SeqCst)].clone())
                    }
                    _ => clicked.clone(),
                };
                async move { Ok(out) }
            })
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn forget_all_leaves_no_baseline_to_diff_against() {
        let observer = Observer::new();
        let extract = Action::from_json(r#"{"action":"extract"}"#).unwrap();
        let since = Action::from_json(r#"{"action":"extract","since":"last"}"#).unwrap();
        let first = page(1, "https://a.test/", "Old run", &["e1"]);
        let again = page(1, "https://a.test/", "New run", &["e1"]);
        run(&observer, extract, &[first], click(1, false)).await;
        observer.clone().forget_all();
        let ActionResult::Extract(full) = run(&observer, since, &[again], click(1, false)).await
        else {
            panic!("an extract")
        };
        assert_eq!(full.changes, None, "answered in full, no diff");
        assert_eq!(full.markdown, "New run");
    }

    #[tokio::test]
    async fn an_observed_click_answers_the_diff_and_moves_the_baseline() {
        let observer = Observer::new();
        let before = page(1, "https://a.test/", "Form", &["e1", "e2"]);
        let after = page(
            1,
            "https://a.test/",
            "Form\n\nEmail is required.",
            &["e1", "e2"],
        );
        let extract = Action::from_json(r#"{"action":"extract"}"#).unwrap();
        run(&observer, extract, &[before], click(1, false)).await;

        // Without a baseline on tab 2 nothing is extracted.
        let result = run(&observer, observed_click(), &[], click(2, false)).await;
        let ActionResult::Click(c) = result else {
            panic!()
        };
        assert_eq!(c.changes, None);

        let result = run(&observer, observed_click(), &[after], click(1, false)).await;
        let ActionResult::Click(c) = result else {
            panic!()
        };
        let changes = c.changes.expect("changes");
        assert_eq!(changes.text, ["Email is required."]);

        // The observation is the new baseline: `since` now sees nothing new.
        let since = Action::from_json(r#"{"action":"extract","since":"last"}"#).unwrap();
        let again = page(
            1,
            "https://a.test/",
            "Form\n\nEmail is required.",
            &["e1", "e2"],
        );
        let ActionResult::Extract(e) = run(&observer, since, &[again], click(1, false)).await
        else {
            panic!()
        };
        assert!(e.changes.expect("a diff").is_empty());
        assert!(e.markdown.is_empty() && e.elements.is_empty() && e.text.is_empty());
    }

    #[tokio::test]
    async fn a_navigation_answers_navigated_and_since_then_answers_in_full() {
        let observer = Observer::new();
        let nav =
            Action::from_json(r#"{"action":"navigate","url":"https://a.test/","observe":true}"#)
                .unwrap();
        let loaded = ActionResult::Navigate(PageResult::new(TabId(1), "https://a.test/", "A"));
        let ActionResult::Navigate(p) = run(&observer, nav, &[], loaded).await else {
            panic!()
        };
        assert_eq!(p.changes, None, "the tab was never read");

        let extract = Action::from_json(r#"{"action":"extract","since":"last"}"#).unwrap();
        let ActionResult::Extract(first) = run(
            &observer,
            extract.clone(),
            &[page(1, "https://a.test/", "A", &["e1"])],
            click(1, false),
        )
        .await
        else {
            panic!()
        };
        assert_eq!(first.changes, None, "no baseline: a full extract");
        assert_eq!(first.markdown, "A");

        let ActionResult::Click(c) = run(&observer, observed_click(), &[], click(1, true)).await
        else {
            panic!()
        };
        let changes = c.changes.expect("changes");
        assert!(changes.navigated);
        assert_eq!(changes.url.as_deref(), Some("https://a.test/"));

        let next = page(1, "https://a.test/", "B", &["e5"]);
        let ActionResult::Extract(full) = run(&observer, extract, &[next], click(1, false)).await
        else {
            panic!()
        };
        assert_eq!(full.changes, None);
        assert_eq!(full.markdown, "B");

        let nav =
            Action::from_json(r#"{"action":"navigate","url":"https://b.test/","observe":true}"#)
                .unwrap();
        let loaded = ActionResult::Navigate(PageResult::new(TabId(1), "https://b.test/", "B"));
        let ActionResult::Navigate(p) = run(&observer, nav, &[], loaded).await else {
            panic!()
        };
        assert_eq!(p.changes.expect("changes").title.as_deref(), Some("B"));
    }
}
