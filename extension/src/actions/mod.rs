//! One module per action family; [`run`] dispatches an action on a resolved tab
//! whose session is attached and whose lock is held, and ends it at once when a
//! JavaScript dialog opens meanwhile (§5 "Loads and dialogs").

pub mod devtools;
pub mod dom;
pub mod downloads;
pub mod effects;
pub mod evaluate;
pub mod fill;
pub mod forms;
pub mod frames;
pub mod handoff;
pub mod input;
pub mod landing;
pub mod marks;
pub mod navigation;
pub mod page;
pub mod point;
pub mod pointer;
pub mod scroll;
pub mod tabs;

use browser_bridge_cdp::page::{DialogType as CdpDialog, JavascriptDialogOpening};
use browser_bridge_protocol::action::BeforeUnload;
use browser_bridge_protocol::result::{DialogInfo, PageResult};
use browser_bridge_protocol::{Action, ActionResult, BridgeError, PointerTarget, TabId};
use futures::future::{Either, select};

use crate::app::App;
use crate::core::messages::{quote, with_article};
use crate::sessions::dialogs::dialog_info;
use navigation::Go;

/// Runs `action` on `tab`. A dialog that opens before it finishes ends it at
/// once (`Page.javascriptDialogOpening`; CDP calls into the page block under
/// it): a navigation answers its [`PageResult`] with `dialog` and
/// `loadPending`, any other action `invalid_action` naming the dialog; a
/// `beforeunload` prompt is accepted instead when the action asks for it
/// (`beforeUnload: "accept"`). Not for
/// `evaluate` (its dialogs are answered at once, §7), `click` and `press_key`
/// (they report the dialog as a side effect, [`effects`]), `fill_form` (its
/// steps come through here one by one), `handle_dialog` or `handoff` (the
/// person answers the dialogs they meet).
///
/// # Errors
/// The action's [`BridgeError`]; `invalid_action` for a dialog as above.
pub async fn run(app: &App, tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    if matches!(
        action,
        Action::Evaluate(_)
            | Action::Click(_)
            | Action::PressKey(_)
            | Action::HandleDialog(_)
            | Action::FillForm(_)
            | Action::WaitForDownload(_)
            | Action::ListDownloads(_)
            | Action::Handoff(_)
    ) {
        return run_action(app, tab, action).await;
    }
    let name = action.name();
    let before_unload = match &action {
        Action::Navigate(p) => p.before_unload,
        Action::Reload(p) => p.before_unload,
        _ => None,
    };
    let wrap: Option<fn(PageResult) -> ActionResult> = match action {
        Action::Navigate(_) => Some(ActionResult::Navigate),
        Action::GoBack(_) => Some(ActionResult::GoBack),
        Action::GoForward(_) => Some(ActionResult::GoForward),
        Action::Reload(_) => Some(ActionResult::Reload),
        _ => None,
    };
    let mut work = Box::pin(run_action(app, tab, action));
    let dialog = loop {
        let opened = app.events.wait::<JavascriptDialogOpening>(tab);
        match select(work, opened).await {
            Either::Left((outcome, _)) => return outcome,
            Either::Right((Ok(opening), rest)) => {
                if opening.kind == CdpDialog::Beforeunload
                    && before_unload == Some(BeforeUnload::Accept)
                {
                    // Asked for: leave the page, and go on waiting for the load.
                    app.sessions.accept_dialog(tab).await;
                    work = rest;
                    continue;
                }
                break dialog_info(&opening);
            }
            Either::Right((Err(_), _)) => {
                return Err(BridgeError::internal("dialog waiter dropped"));
            }
        }
    };
    match wrap {
        Some(wrap) => Ok(wrap(navigation::page_under_dialog(app, tab, dialog).await)),
        None => Err(dialog_error(tab, name, &dialog)),
    }
}

/// The `invalid_action` of an action that a dialog interrupted. An action that
/// changes the page may have done its part before the dialog opened (`type` with
/// `submit`: the text typed, then Enter alerting), so it says to look first
/// rather than to retry blindly.
pub fn dialog_error(tab: TabId, action: &str, dialog: &DialogInfo) -> BridgeError {
    let then = match action {
        "type" | "select_option" | "upload_file" | "call_page_tool" | "fill_form" => {
            "then extract before retrying: the action may have taken effect before it opened"
        }
        _ => "then retry",
    };
    BridgeError::invalid_action(format!(
        "tab {tab}: {} dialog opened during {action} ({}): answer it with handle_dialog, {then}",
        with_article(dialog.dialog_type.as_str()),
        quote(&dialog.message)
    ))
}

async fn run_action(app: &App, tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    match action {
        Action::Navigate(p) => navigation::navigate(app, tab, p).await,
        Action::GoBack(_) => navigation::go(app, tab, Go::Back).await,
        Action::GoForward(_) => navigation::go(app, tab, Go::Forward).await,
        Action::Reload(_) => navigation::go(app, tab, Go::Reload).await,
        Action::Click(p) => match p.target()? {
            PointerTarget::Point { x, y } => pointer::click_at(app, tab, &p, (x, y)).await,
            PointerTarget::Element(_) => input::click(app, tab, p).await,
        },
        Action::Hover(p) => match p.target()? {
            PointerTarget::Point { x, y } => pointer::hover_at(app, tab, (x, y)).await,
            PointerTarget::Element(_) => input::hover(app, tab, p).await,
        },
        Action::Drag(p) => pointer::drag(app, tab, p).await,
        Action::Type(p) => forms::type_text(app, tab, p).await,
        Action::PressKey(p) => input::press_key(app, tab, p).await,
        Action::SelectOption(p) => forms::select_option(app, tab, p).await,
        Action::Scroll(p) => scroll::scroll(app, tab, p).await,
        Action::WaitFor(p) => page::wait_for(app, tab, p).await,
        Action::Evaluate(p) => evaluate::evaluate(app, tab, p).await,
        Action::Screenshot(p) => page::screenshot(app, tab, p).await,
        Action::UploadFile(p) => forms::upload_file(app, tab, p).await,
        Action::HandleDialog(p) => page::handle_dialog(app, tab, p).await,
        Action::Extract(p) => crate::extract::extract(app, tab, p).await,
        Action::ListPageTools(p) => crate::page_tools::list_page_tools(tab, p).await,
        Action::CallPageTool(p) => crate::page_tools::call_page_tool(tab, p).await,
        Action::FillForm(p) => fill::fill_form(app, tab, p).await,
        Action::ConsoleMessages(p) => Ok(devtools::console_messages(app, tab, &p)),
        Action::NetworkRequests(p) => Ok(devtools::network_requests(app, tab, &p)),
        Action::NetworkResponseBody(p) => devtools::network_response_body(app, tab, p).await,
        Action::WaitForDownload(p) => downloads::wait_for_download(app, tab, p).await,
        Action::ListDownloads(p) => Ok(downloads::list_downloads(app, tab, p).await),
        Action::Handoff(p) => handoff::handoff(app, tab, p).await,
        // Run by the dispatcher, part by part, under the tab's lock.
        Action::Batch(_) => Err(BridgeError::internal("batch routed as one action")),
        // Answered by the dispatcher before a tab is resolved.
        Action::ListTabs(_) | Action::OpenTab(_) | Action::CloseTab(_) => {
            Err(BridgeError::internal("tab-less action routed to a tab"))
        }
    }
}
