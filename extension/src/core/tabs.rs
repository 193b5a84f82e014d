//! Which tab an action runs on (PROTOCOL.md §5 `tabId` resolution).

use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};

/// Where an action without a usable tab goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// This tab.
    Tab(TabId),
    /// A new tab in the agent window (`navigate` with no session at all).
    NewAgentTab,
}

/// §5: the explicit `tabId`; else the single agent-window session; else the
/// single session; with no session at all, [`Resolved::NewAgentTab`] when
/// `opens_tab` (`navigate`). `sessions` are `(tab, in the agent window)`;
/// `action` names the action in messages.
///
/// # Errors
/// `session_not_found` saying what to do: no session yet, or several (listing the
/// candidates).
pub fn resolve_tab(
    explicit: Option<TabId>,
    sessions: &[(TabId, bool)],
    action: &str,
    opens_tab: bool,
) -> Result<Resolved, BridgeError> {
    if let Some(tab) = explicit {
        return Ok(Resolved::Tab(tab));
    }
    let mut agent = sessions.iter().filter(|(_, a)| *a);
    if let (Some((tab, _)), None) = (agent.next(), agent.next()) {
        return Ok(Resolved::Tab(*tab));
    }
    match sessions {
        [(tab, _)] => Ok(Resolved::Tab(*tab)),
        [] if opens_tab => Ok(Resolved::NewAgentTab),
        [] => Err(BridgeError::new(
            ErrorCode::SessionNotFound,
            format!(
                "{action}: no session yet: navigate or open_tab first, or pass a tabId from list_tabs"
            ),
        )),
        _ => {
            let list: Vec<String> = sessions.iter().map(|(t, _)| t.to_string()).collect();
            Err(BridgeError::new(
                ErrorCode::SessionNotFound,
                format!(
                    "{action}: several sessions, pass a tabId: candidates {}",
                    list.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: TabId = TabId(11);
    const B: TabId = TabId(12);
    const C: TabId = TabId(13);

    #[test]
    fn an_explicit_tab_wins() {
        assert_eq!(
            resolve_tab(Some(C), &[(A, true)], "click", false),
            Ok(Resolved::Tab(C))
        );
        assert_eq!(
            resolve_tab(Some(C), &[], "click", false),
            Ok(Resolved::Tab(C))
        );
    }

    #[test]
    fn the_single_agent_window_session_then_the_single_session() {
        assert_eq!(
            resolve_tab(None, &[(A, false), (B, true)], "click", false),
            Ok(Resolved::Tab(B))
        );
        assert_eq!(
            resolve_tab(None, &[(A, false)], "click", false),
            Ok(Resolved::Tab(A))
        );
        assert_eq!(
            resolve_tab(None, &[(A, true)], "click", false),
            Ok(Resolved::Tab(A))
        );
    }

    #[test]
    fn no_session_opens_a_tab_only_for_navigate() {
        assert_eq!(
            resolve_tab(None, &[], "navigate", true),
            Ok(Resolved::NewAgentTab)
        );
        let e = resolve_tab(None, &[], "click", false).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert_eq!(
            e.message,
            "click: no session yet: navigate or open_tab first, or pass a tabId from list_tabs"
        );
    }

    #[test]
    fn several_candidates_are_listed() {
        let e = resolve_tab(
            None,
            &[(A, false), (B, false), (C, false)],
            "extract",
            false,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert_eq!(
            e.message,
            "extract: several sessions, pass a tabId: candidates 11, 12, 13"
        );
        // Two agent-window sessions are as ambiguous, and navigate opens nothing.
        let e = resolve_tab(None, &[(A, true), (B, true)], "navigate", true).unwrap_err();
        assert_eq!(
            e.message,
            "navigate: several sessions, pass a tabId: candidates 11, 12"
        );
    }
}
