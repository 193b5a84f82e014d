//! JavaScript dialogs (§5, §7): the open dialog is kept on the session (actions
//! other than `handle_dialog` are refused while it is open), except during
//! `evaluate`, when alert/beforeunload are accepted and confirm/prompt
//! dismissed at once.

use browser_bridge_cdp::page::{
    DialogType as CdpDialog, HandleJavaScriptDialog, JavascriptDialogOpening,
};
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::result::{DialogInfo, DialogType};
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::cdp;

/// The protocol's view of a `Page.javascriptDialogOpening`.
pub fn dialog_info(opening: &JavascriptDialogOpening) -> DialogInfo {
    DialogInfo {
        dialog_type: match opening.kind {
            CdpDialog::Alert => DialogType::Alert,
            CdpDialog::Confirm => DialogType::Confirm,
            CdpDialog::Prompt => DialogType::Prompt,
            CdpDialog::Beforeunload => DialogType::Beforeunload,
        },
        message: opening.message.clone(),
    }
}

impl Sessions {
    /// `Page.javascriptDialogOpening`.
    pub(super) fn on_dialog_opening(&self, tab: TabId, opening: &JavascriptDialogOpening) {
        let info = dialog_info(opening);
        let evaluating = self
            .with(tab, |s| {
                if s.evaluating == 0 {
                    s.dialog = Some(info);
                }
                s.evaluating > 0
            })
            .unwrap_or(false);
        self.persist();
        if evaluating {
            let accept = matches!(opening.kind, CdpDialog::Alert | CdpDialog::Beforeunload);
            spawn_local(async move {
                let answer = HandleJavaScriptDialog {
                    accept,
                    prompt_text: None,
                };
                let _ = cdp::send(tab, &answer).await;
            });
        }
    }

    /// Accepts the dialog open in `tab` (`Page.handleJavaScriptDialog`) and forgets
    /// it. An error means it was already gone: either way it is no longer open.
    pub async fn accept_dialog(&self, tab: TabId) {
        let answer = HandleJavaScriptDialog {
            accept: true,
            prompt_text: None,
        };
        let _ = cdp::send(tab, &answer).await;
        self.with(tab, |s| s.dialog = None);
        self.persist();
    }

    /// `Page.javascriptDialogClosed`.
    pub(super) fn on_dialog_closed(&self, tab: TabId) {
        self.with(tab, |s| s.dialog = None);
        self.persist();
    }
}
