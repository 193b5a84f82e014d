//! One module per action family; [`run`] dispatches an action on a resolved tab
//! whose session is attached and whose lock is held.

pub mod effects;
pub mod evaluate;
pub mod navigation;
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
        Action::Evaluate(p) => evaluate::evaluate(tab, p).await,
        Action::Extract(_) => crate::extract::extract(tab).await,
        other => Err(BridgeError::invalid_action(format!("{}: not yet supported", other.name()))),
    }
}
