//! `open_tab`, `close_tab`, `list_tabs` and the agent window (§5, §10).

use browser_bridge_cdp::page::{DialogType as CdpDialog, JavascriptDialogOpening, StartScreencast};
use browser_bridge_protocol::action::{BeforeUnload, CloseTab, OpenTab};
use browser_bridge_protocol::result::{ListTabsResult, OpenTabResult, TabInfo, TabResult};
use browser_bridge_protocol::{ActionResult, BridgeError, SessionEndReason, TabId, WindowId};
use futures::channel::oneshot;
use futures::future::{Either, join, join3, select};
use serde_json::json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;

use crate::actions::navigation;
use crate::app::App;
use crate::cdp;
use crate::chrome;
use crate::core::messages::quote;
use crate::sessions::attach::no_tab;
use crate::sessions::dialogs::dialog_info;

/// Opens an `about:blank` tab in `client`'s agent window (`None`: the shared
/// one; §10) and returns its id. The window is created on demand, unfocused and
/// minimized, reused afterwards, and created again when the person closed it.
///
/// # Errors
/// `internal_error` when Chrome refuses to create the window or tab.
pub async fn new_agent_tab(app: &App, client: Option<&str>) -> Result<TabId, BridgeError> {
    let sessions = &app.sessions;
    let lock = sessions.window_lock();
    let _guard = lock.lock().await;
    if let Some(window) = sessions.agent_window(client) {
        // A window without tabs is gone or being closed (Chrome closes a window
        // once its last tab is removed, e.g. by the client's own close_tab): a
        // tab created in it would be refused or close with it. Such a window is
        // replaced, as is one `tabs.create` refuses.
        let in_window = json!({ "windowId": window });
        if chrome::tabs_query(&in_window)
            .await
            .is_ok_and(|tabs| !tabs.is_empty())
        {
            // Created inactive: `tabs.create` with `active: true` shows its window,
            // restoring a minimized one (measured, Chromium 156). Made the window's
            // active tab afterwards, which leaves the window as it is.
            let created = chrome::tabs_create(
                &json!({ "windowId": window, "url": "about:blank", "active": false }),
            )
            .await;
            if let Ok(id) = created.map(|tab| tab.id) {
                let id = id.ok_or_else(|| BridgeError::internal("tabs.create returned no id"))?;
                let _ = chrome::tabs_update(id, &json!({ "active": true })).await;
                return Ok(TabId(id));
            }
        }
        sessions.forget_agent_window(window);
    }
    let window = chrome::windows_create(
        &json!({ "url": "about:blank", "focused": false, "state": "minimized" }),
    )
    .await
    .map_err(|e| BridgeError::internal(format!("windows.create for the agent window: {e}")))?;
    sessions.set_agent_window(client, window.id);
    // A press in the window before it is minimized would show it and take the
    // person's focus, so the tab is handed out once it is.
    if window.state != "minimized" {
        until_minimized(window.id).await;
    }
    window
        .tabs
        .first()
        .and_then(|t| t.id)
        .map(TabId)
        .ok_or_else(|| BridgeError::internal("the new agent window has no tab"))
}

/// Longest wait for an agent window to be minimized (ms, [`until_minimized`]).
const MINIMIZED_WAIT_MS: f64 = 1000.0;

/// Waits until `window` is minimized or gone, at most [`MINIMIZED_WAIT_MS`]:
/// Chrome answers `windows.create` and `windows.update` before the window
/// manager has minimized the window (measured, Chromium 156, X11:
/// `windows.get` and CDP's `Browser.getWindowForTarget` say `normal` for
/// ~10 ms more).
async fn until_minimized(window: i64) {
    let until = js_sys::Date::now() + MINIMIZED_WAIT_MS;
    while js_sys::Date::now() < until {
        match chrome::windows_get(window).await {
            Ok(w) if w.state != "minimized" => {}
            _ => break,
        }
        gloo_timers::future::TimeoutFuture::new(10).await;
    }
}

/// An agent window that was minimized before a mouse press, the window focused
/// then (not an agent window) and the pressed tab, in the window's background
/// at the press: [`keep_behind`] finds them, [`put_back`] restores them.
pub struct Behind {
    window: i64,
    focused: Option<i64>,
    /// The pressed tab: its frames may stop after a press in the background,
    /// so [`put_back`] keeps them drawn (`wake`).
    tab: i64,
}

/// Before a mouse press in `tab` (§10 "agent window"): when `tab` is in a
/// minimized agent window, notes that window and the focused one, and when
/// `tab` is that window's active tab, makes an `about:blank` tab of the window
/// that is no session and no page's popup active (created inactive when there
/// is none), so that two tabs pressed in turn never switch the window's active
/// tab between them. A CDP `Input.dispatchMouseEvent` `mousePressed` in the
/// active tab of a minimized window restores and activates that window, taking
/// the person's focus, even when the page cancels the `mousedown`; in a
/// background tab it does neither (measured, Chromium 156, X11). The tab stays
/// in the background afterwards, so a later press in it costs no tab switch:
/// focus emulation (sessions/attach.rs) keeps a background page visible,
/// focused and drawing its frames (measured: `requestAnimationFrame` at 60 Hz),
/// and [`put_back`] keeps drawing the frames a press sometimes stops. Best
/// effort: when `chrome.tabs`/`chrome.windows` fail the tab is left as it is.
pub async fn keep_behind(app: &App, tab: TabId) -> Option<Behind> {
    // The agent window the tab was last seen in: its reads list the tab too,
    // which saves `chrome.tabs.get` first while the tab stays there.
    let known = WINDOW_OF
        .with(|w| w.borrow().get(&tab.0).copied())
        .filter(|w| app.sessions.is_agent_window(*w));
    let mut found = None;
    if let Some(window) = known {
        let reads = window_reads(window).await;
        let listed = reads
            .2
            .as_ref()
            .ok()
            .and_then(|tabs| tabs.iter().find(|t| t.id == Some(tab.0)).map(|t| t.active));
        found = listed.map(|active| (window, active, reads));
    }
    let (window, active, (state, focused, others)) = match found {
        Some(found) => found,
        None => {
            let current = chrome::tabs_get(tab.0).await.ok()?;
            let window = current.window_id;
            WINDOW_OF.with(|w| w.borrow_mut().insert(tab.0, window));
            if !app.sessions.is_agent_window(window) {
                return None;
            }
            (window, current.active, window_reads(window).await)
        }
    };
    if !state.is_ok_and(|w| w.state == "minimized") {
        // One the person restored to look at: as it is.
        return None;
    }
    let focused = focused
        .ok()
        .map(|w| w.id)
        .filter(|id| !app.sessions.is_agent_window(*id));
    let behind = Some(Behind {
        window,
        focused,
        tab: tab.0,
    });
    if !active {
        return behind;
    }
    // A blank tab that is no session and no page's popup (the one `keep_behind`
    // opened), never the agent's other tab: that one would be active at its
    // next press and switched away again.
    let others = others.unwrap_or_default();
    let blank = others.iter().find(|t| {
        t.url == "about:blank"
            && t.pending_url.is_none()
            && t.opener_tab_id.is_none()
            && t.id
                .is_some_and(|id| id != tab.0 && !app.sessions.has(TabId(id)))
    });
    let other = match blank.and_then(|t| t.id) {
        Some(id) => id,
        None => {
            let blank = json!({ "windowId": window, "url": "about:blank", "active": false });
            chrome::tabs_create(&blank).await.ok().and_then(|t| t.id)?
        }
    };
    // Activating a tab leaves its minimized window as it is (see new_agent_tab).
    let _ = chrome::tabs_update(other, &json!({ "active": true })).await;
    behind
}

/// A window's state, the last focused window and the window's tabs.
type WindowReads = (
    Result<chrome::Window, chrome::ChromeError>,
    Result<chrome::Window, chrome::ChromeError>,
    Result<Vec<chrome::Tab>, chrome::ChromeError>,
);

/// [`WindowReads`] of `window` at once: one chrome.* round trip before the
/// press, not three (the window's tabs are used only when the pressed tab is
/// its active one, or to find it there).
async fn window_reads(window: i64) -> WindowReads {
    let in_window = json!({ "windowId": window });
    join3(
        chrome::windows_get(window),
        chrome::windows_last_focused(),
        chrome::tabs_query(&in_window),
    )
    .await
}

thread_local! {
    /// The window each tab [`keep_behind`] looked at was in (tab id → window id).
    static WINDOW_OF: RefCell<HashMap<i64, i64>> = RefCell::default();
    /// Per tab, while [`keep_behind_beside`] runs: answered once [`keep_behind`]
    /// is done (taken by [`ready`]).
    static READY: RefCell<HashMap<i64, oneshot::Receiver<()>>> = RefCell::default();
}

/// [`keep_behind`] run beside `work` (an element `click`), not before it: its
/// chrome.* calls (2 round trips, one or two more to swap tabs) overlap the CDP calls
/// that resolve the element and its click point, which need neither. `work`
/// must await [`ready`] before its mouse events (and before it lists the tabs
/// for its side effects: `keep_behind` may create one).
pub async fn keep_behind_beside<F: Future>(
    app: &App,
    tab: TabId,
    work: F,
) -> (Option<Behind>, F::Output) {
    let (done, gate) = oneshot::channel();
    READY.with(|r| r.borrow_mut().insert(tab.0, gate));
    let keeping = async {
        let behind = keep_behind(app, tab).await;
        let _ = done.send(());
        behind
    };
    let out = join(keeping, work).await;
    READY.with(|r| r.borrow_mut().remove(&tab.0));
    out
}

/// Waits until a mouse press in `tab` is safe for the person's focus: at once
/// unless [`keep_behind_beside`] is still at work for it.
pub async fn ready(tab: TabId) {
    let gate = READY.with(|r| r.borrow_mut().remove(&tab.0));
    if let Some(gate) = gate {
        let _ = gate.await;
    }
}

thread_local! {
    /// The tabs [`put_back`] is waking, each with the waiters of [`woken`] to
    /// wake when it has.
    static WAKING: RefCell<HashMap<i64, Vec<oneshot::Sender<()>>>> = RefCell::default();
}

/// Waits until `tab`'s frames are woken after a press ([`put_back`]) or key
/// input ([`after_keys`]): at once
/// unless that is still under way. Every action on the tab waits for it, so
/// that it finds the page drawing (observers, `requestAnimationFrame`).
pub async fn woken(tab: TabId) {
    let (done, gate) = oneshot::channel();
    let pending = WAKING.with(|w| w.borrow_mut().get_mut(&tab.0).map(|v| v.push(done)));
    if pending.is_some() {
        let _ = gate.await;
    }
}

/// Keeps the frames of `tab`, a background tab just pressed in, drawn: a
/// screencast (`Page.startScreencast`, 1 px, its one frame never acknowledged,
/// so no more come) started beside the answer, registered at once (see
/// [`woken`]). A press in a background tab sometimes stops its frames, and key
/// input there does too (measured, Chromium 156, X11: `requestAnimationFrame`
/// stops though the page stays `visible`, and the side-effects barrier of a
/// `press_key` then waits ~50 ms); a started screencast draws them, where making
/// the tab active would cost a tab switch now and another before its next
/// press. Started again after each press and key input (it ends with the
/// debugger session).
fn wake(tab: i64) {
    WAKING.with(|w| {
        w.borrow_mut().entry(tab).or_default();
    });
    wasm_bindgen_futures::spawn_local(async move {
        let _ = cdp::send(TabId(tab), &StartScreencast::keep_drawing()).await;
        let waiters = WAKING.with(|w| w.borrow_mut().remove(&tab));
        for waiter in waiters.unwrap_or_default() {
            let _ = waiter.send(());
        }
    });
}

/// Before a gesture in `tab` (`drag`): in a session of an agent window, starts
/// the screencast [`put_back`] starts after a press, and waits for it. The
/// press stops a background tab's frames as a click's does, and each of the
/// drag's moves after it waits for a frame: a 20-step drag took 4–6 s, past
/// its 15 s timeout on a loaded machine, and takes ~0.5 s drawing (measured,
/// Chromium 156, headless).
pub async fn drawing(app: &App, tab: TabId) {
    if app.sessions.with(tab, |s| s.agent_window) == Some(true) {
        let _ = cdp::send(tab, &StartScreencast::keep_drawing()).await;
    }
}

/// After key input in `tab` (`type`, `press_key`, `fill_form`): in a session
/// of an agent window, keeps the tab's frames drawn as [`put_back`] does after
/// a press (`wake`, beside the answer). Key input in a background tab stops its
/// frames as a press does (measured, Chromium 156, X11: 1
/// `requestAnimationFrame` in 1 s after `type` until the next press).
pub fn after_keys(app: &App, tab: TabId) {
    if app.sessions.with(tab, |s| s.agent_window) == Some(true) {
        wake(tab.0);
    }
}

/// Forgets a closed tab's window ([`keep_behind`]'s cache).
pub fn forget(tab: TabId) {
    WINDOW_OF.with(|w| w.borrow_mut().remove(&tab.0));
}

/// After the press: keeps the pressed tab's frames drawn, beside the answer
/// (`wake`), and when the agent window [`keep_behind`] noted was shown all
/// the same, minimizes it again and focuses the window focused before. Chrome
/// shows a window when a page in it opens a tab in the foreground (a
/// `target=_blank` link; measured, Chromium 156, X11): the person then sees the
/// window for a moment and their page a `blur` and a `focus`.
pub async fn put_back(behind: Option<Behind>) {
    let Some(Behind {
        window,
        focused,
        tab,
    }) = behind
    else {
        return;
    };
    wake(tab);
    if chrome::windows_get(window)
        .await
        .is_ok_and(|w| w.state == "minimized")
    {
        return;
    }
    let _ = chrome::windows_update(window, &json!({ "state": "minimized" })).await;
    if let Some(focused) = focused {
        let _ = chrome::windows_update(focused, &json!({ "focused": true })).await;
    }
    // The answer promises the window minimized again (§10).
    until_minimized(window).await;
}

/// `open_tab`: a new tab in `client`'s agent window (or, with `focus`, in the
/// user's current window, focused), a session at once, then the URL loaded.
///
/// # Errors
/// `invalid_action` for a refused scheme or an unparsable URL, `domain_blocked`,
/// `navigation_failed`, `timeout`.
pub async fn open_tab(
    app: &App,
    p: OpenTab,
    client: Option<&str>,
) -> Result<ActionResult, BridgeError> {
    let sessions = &app.sessions;
    let url = sessions.check_target_url(&p.url, None)?;
    let tab = if p.focus.unwrap_or(false) {
        let window = chrome::windows_last_focused().await.ok();
        let mut props = json!({ "url": "about:blank", "active": true });
        if let Some(w) = &window {
            props["windowId"] = json!(w.id);
        }
        let tab = chrome::tabs_create(&props)
            .await
            .map_err(|e| BridgeError::internal(format!("tabs.create: {e}")))?;
        let _ = chrome::windows_update(tab.window_id, &json!({ "focused": true })).await;
        TabId(
            tab.id
                .ok_or_else(|| BridgeError::internal("tabs.create returned no id"))?,
        )
    } else {
        new_agent_tab(app, client).await?
    };
    let lock = sessions.lock(tab);
    let _guard = lock.lock().await;
    sessions.ensure(tab).await?;
    sessions.with(tab, |s| s.action_count += 1);
    // The load can still reach a blocked host (a redirect): the session then ends
    // with domain_blocked, and this request must answer that at once instead of
    // waiting for a load event that never comes (dispatch only watches requests
    // that name their tab; open_tab's tab is new).
    let ended = sessions.register_inflight(tab);
    // A dialog of the loading page ends the wait (§5 "Loads and dialogs").
    let opened = app.events.wait::<JavascriptDialogOpening>(tab);
    let load = select(Box::pin(navigation::load(app, tab, &url)), opened);
    let page = match select(load, ended).await {
        Either::Left((Either::Left((page, _)), _)) => page?,
        Either::Left((Either::Right((Ok(opening), _)), _)) => {
            navigation::page_under_dialog(app, tab, dialog_info(&opening)).await
        }
        Either::Left((Either::Right((Err(_), _)), _)) => {
            return Err(BridgeError::internal("dialog waiter dropped"));
        }
        Either::Right((Ok(error), _)) => return Err(error),
        Either::Right((Err(_), _)) => {
            return Err(BridgeError::internal("in-flight registration dropped"));
        }
    };
    let window_id = chrome::tabs_get(tab.0)
        .await
        .map(|t| t.window_id)
        .unwrap_or_default();
    Ok(ActionResult::OpenTab(OpenTabResult {
        tab_id: tab,
        window_id: WindowId(window_id),
        url: page.url,
        title: page.title,
        load_pending: page.load_pending,
        dialog: page.dialog,
    }))
}

/// `close_tab`: closes the tab and ends its session (`stopped`, §10). A
/// `beforeunload` prompt answers `invalid_action` at once (the tab then closes
/// when `handle_dialog` accepts it), or with `beforeUnload: "accept"` is accepted.
///
/// # Errors
/// `session_not_found` when the tab does not exist, `invalid_action` for a
/// `beforeunload` prompt, `domain_blocked` when the tab
/// shows (or is loading) a blocked domain — the agent may not act on such a tab,
/// not even to close it (§10).
pub async fn close_tab(app: &App, p: CloseTab) -> Result<ActionResult, BridgeError> {
    let tab = p.tab_id;
    let accept = p.before_unload == Some(BeforeUnload::Accept);
    let info = chrome::tabs_get(tab.0).await.map_err(|_| no_tab(tab))?;
    for url in [Some(&info.url), info.pending_url.as_ref()]
        .into_iter()
        .flatten()
    {
        app.sessions.check_blocklist(url, Some(tab))?;
    }
    if app.sessions.has(tab) {
        // The page's beforeunload prompt holds tabs.remove until it is answered:
        // report it (§5 "Loads and dialogs") with the debugger still attached, so
        // that handle_dialog can answer it.
        let opened = app.events.wait_where(tab, |d: &JavascriptDialogOpening| {
            d.kind == CdpDialog::Beforeunload
        });
        app.sessions.with(tab, |s| s.closing = true);
        let mut removal = Box::pin(chrome::tabs_remove(tab.0));
        match select(removal.as_mut(), opened).await {
            Either::Left((removed, _)) => {
                removed.map_err(|_| no_tab(tab))?;
            }
            Either::Right((Ok(_), _)) if accept => {
                app.sessions.accept_dialog(tab).await;
                removal.await.map_err(|_| no_tab(tab))?;
            }
            Either::Right((Ok(opening), _)) => {
                return Err(BridgeError::invalid_action(format!(
                    "tab {tab} asks before it closes (a beforeunload dialog, {}): \
                     handle_dialog with accept true closes it, accept false keeps it",
                    quote(&opening.message)
                )));
            }
            Either::Right((Err(_), _)) => {
                return Err(BridgeError::internal("dialog waiter dropped"));
            }
        }
        // Usually already ended by the removal (tabs.onRemoved).
        app.sessions.end(tab, SessionEndReason::Stopped, false);
    } else {
        chrome::tabs_remove(tab.0).await.map_err(|_| no_tab(tab))?;
    }
    Ok(ActionResult::CloseTab(TabResult { tab_id: tab }))
}

/// `list_tabs`: every normal tab, sessions and the user's own.
///
/// # Errors
/// `internal_error` when `tabs.query` fails.
pub async fn list_tabs(app: &App) -> Result<ActionResult, BridgeError> {
    let tabs = chrome::tabs_query(&json!({ "windowType": "normal" }))
        .await
        .map_err(|e| BridgeError::internal(format!("tabs.query: {e}")))?;
    let tabs = tabs
        .into_iter()
        .filter_map(|t| {
            let id = TabId(t.id?);
            Some(TabInfo {
                tab_id: id,
                window_id: WindowId(t.window_id),
                url: t.url,
                title: t.title,
                active: t.active,
                agent_window: app.sessions.is_agent_window(t.window_id),
                session: app.sessions.has(id),
                client: None,
                browser: None,
            })
        })
        .collect();
    Ok(ActionResult::ListTabs(ListTabsResult {
        tabs,
        browsers: None,
    }))
}
