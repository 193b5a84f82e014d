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

/// Runs `action` on `tab`.
///
/// # Errors
/// The action's [`BridgeError`].
pub async fn run(tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    match action {
        Action::Navigate(p) => navigation::navigate(tab, p).await,
        Action::GoBack(_) => navigation::go(tab, "go_back").await,
        Action::GoForward(_) => navigation::go(tab, "go_forward").await,
        Action::Reload(_) => navigation::go(tab, "reload").await,
        Action::Click(p) => input::click(tab, p).await,
        Action::Hover(p) => input::hover(tab, p).await,
        Action::Type(p) => forms::type_text(tab, p).await,
        Action::PressKey(p) => input::press_key(tab, p).await,
        Action::SelectOption(p) => forms::select_option(tab, p).await,
        Action::Scroll(p) => forms::scroll(tab, p).await,
        Action::WaitFor(p) => page::wait_for(tab, p).await,
        Action::Evaluate(p) => evaluate::evaluate(tab, p).await,
        Action::Screenshot(p) => page::screenshot(tab, p).await,
        Action::UploadFile(p) => forms::upload_file(tab, p).await,
        Action::HandleDialog(p) => page::handle_dialog(tab, p).await,
        Action::Extract(_) => crate::extract::extract(tab).await,
        Action::ListPageTools(p) => crate::page_tools::list_page_tools(tab, p).await,
        Action::CallPageTool(p) => crate::page_tools::call_page_tool(tab, p).await,
        // Answered by the dispatcher before a tab is resolved.
        Action::ListTabs(_) | Action::OpenTab(_) | Action::CloseTab(_) => {
            Err(BridgeError::internal("tab-less action routed to a tab"))
        }
    }
}
