//! One module per action family; [`run`] dispatches an action on a resolved tab
//! whose session is attached and whose lock is held.

pub mod dom;
pub mod effects;
pub mod evaluate;
pub mod forms;
pub mod input;
pub mod navigation;
pub mod page;
pub mod tabs;

use browser_bridge_protocol::{Action, ActionResult, BridgeError, TabId};

use crate::app::App;
use navigation::Go;

/// Runs `action` on `tab`.
///
/// # Errors
/// The action's [`BridgeError`].
pub async fn run(app: &App, tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    match action {
        Action::Navigate(p) => navigation::navigate(app, tab, p).await,
        Action::GoBack(_) => navigation::go(app, tab, Go::Back).await,
        Action::GoForward(_) => navigation::go(app, tab, Go::Forward).await,
        Action::Reload(_) => navigation::go(app, tab, Go::Reload).await,
        Action::Click(p) => input::click(app, tab, p).await,
        Action::Hover(p) => input::hover(app, tab, p).await,
        Action::Type(p) => forms::type_text(app, tab, p).await,
        Action::PressKey(p) => input::press_key(app, tab, p).await,
        Action::SelectOption(p) => forms::select_option(app, tab, p).await,
        Action::Scroll(p) => forms::scroll(app, tab, p).await,
        Action::WaitFor(p) => page::wait_for(app, tab, p).await,
        Action::Evaluate(p) => evaluate::evaluate(app, tab, p).await,
        Action::Screenshot(p) => page::screenshot(tab, p).await,
        Action::UploadFile(p) => forms::upload_file(app, tab, p).await,
        Action::HandleDialog(p) => page::handle_dialog(app, tab, p).await,
        Action::Extract(_) => crate::extract::extract(app, tab).await,
        Action::ListPageTools(p) => crate::page_tools::list_page_tools(tab, p).await,
        Action::CallPageTool(p) => crate::page_tools::call_page_tool(tab, p).await,
        // Answered by the dispatcher before a tab is resolved.
        Action::ListTabs(_) | Action::OpenTab(_) | Action::CloseTab(_) => {
            Err(BridgeError::internal("tab-less action routed to a tab"))
        }
    }
}
