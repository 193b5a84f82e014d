//! Hand-off decisions (PROTOCOL.md §5 "Hand-off"): the pending hand-offs and
//! what the person is shown of them, which answer a notification button or a
//! popup message is, and whether the obstacle that prompted one still stands.
//!
//! The person sees only the agent's `reason` and the tab's host, as plain text
//! (notifications render no markup; the popup sets `textContent`): nothing the
//! page controls is shown as ours.

use std::collections::BTreeMap;

use browser_bridge_protocol::extract::Confidence;
use browser_bridge_protocol::handoff::HandoffOutcome;
use browser_bridge_protocol::{Obstacle, TabId};
use serde::Serialize;
use serde_json::{Value, json};

/// `chrome.notifications` ids of hand-offs start with this, then the tab id.
pub const NOTIFICATION_PREFIX: &str = "browser-bridge-handoff-";
/// The action badge while a hand-off is pending.
pub const BADGE_TEXT: &str = "!";
/// Its colour (`chrome.action.setBadgeBackgroundColor`).
pub const BADGE_COLOR: &str = "#d93025";

/// The person's answer to a pending hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Done: the person did what was asked.
    Done,
    /// Give up: the agent must stop.
    GiveUp,
}

impl Answer {
    /// The outcome it answers.
    pub fn outcome(self) -> HandoffOutcome {
        match self {
            Answer::Done => HandoffOutcome::Done,
            Answer::GiveUp => HandoffOutcome::Cancelled,
        }
    }

    /// The answer of a notification button (`onButtonClicked`'s index): the
    /// buttons are Done, then Give up.
    pub fn of_button(index: u32) -> Option<Answer> {
        match index {
            0 => Some(Answer::Done),
            1 => Some(Answer::GiveUp),
            _ => None,
        }
    }

    /// The answer of a popup message's `cmd` (`handoffDone`, `handoffGiveUp`).
    pub fn of_popup(cmd: &str) -> Option<Answer> {
        match cmd {
            "handoffDone" => Some(Answer::Done),
            "handoffGiveUp" => Some(Answer::GiveUp),
            _ => None,
        }
    }
}

/// The notification id of the hand-off of `tab`.
pub fn notification_id(tab: TabId) -> String {
    format!("{NOTIFICATION_PREFIX}{tab}")
}

/// The tab of one of our notification ids; `None` for any other id.
pub fn tab_of_notification(id: &str) -> Option<TabId> {
    let rest = id.strip_prefix(NOTIFICATION_PREFIX)?;
    rest.parse().ok().map(TabId)
}

/// The host of `url` (`https://a.example:8443/x` → `a.example:8443`), for the
/// notification's context line; `""` when it has none.
pub fn host_of(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else {
        return "";
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..end];
    // Never show credentials a URL may carry.
    host.rsplit_once('@').map_or(host, |(_, h)| h)
}

/// `chrome.notifications.create` options: the reason as the message (plain
/// text), Done and Give up buttons, kept on screen until answered.
pub fn notification_options(reason: &str, host: &str, icon_url: &str) -> Value {
    json!({
        "type": "basic",
        "iconUrl": icon_url,
        "title": "browser-bridge: your turn",
        "message": reason,
        "contextMessage": host,
        "buttons": [{ "title": "Done" }, { "title": "Give up" }],
        "requireInteraction": true,
        "priority": 2,
    })
}

/// Whether an extract's obstacle is one a hand-off waits on: a likely or
/// certain wall (`medium` or `high`); a `low` hint is not.
pub fn stands(obstacle: Option<&Obstacle>) -> bool {
    obstacle.is_some_and(|o| o.confidence >= Confidence::Medium)
}

/// One pending hand-off, as the popup lists it (`status` message, `handoffs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    /// The tab shown.
    pub tab_id: TabId,
    /// The agent's reason.
    pub reason: String,
    /// When it began (ms since the epoch).
    pub started_at: u64,
    /// When it times out (ms since the epoch).
    pub deadline_at: u64,
}

/// The pending hand-offs, one per tab at most. A hand-off stays registered
/// from its start until its request ends ([`Pending::end`]), answered or not,
/// so that no second one begins on its tab meanwhile.
#[derive(Debug)]
pub struct Pending<S> {
    by_tab: BTreeMap<TabId, (PendingView, Option<S>)>,
}

impl<S> Default for Pending<S> {
    fn default() -> Self {
        Pending {
            by_tab: BTreeMap::new(),
        }
    }
}

impl<S> Pending<S> {
    /// Registers the hand-off of `view.tab_id` with its answer slot `slot`;
    /// `Err(view)` when that tab already has one (a second hand-off is refused).
    pub fn begin(&mut self, view: PendingView, slot: S) -> Result<(), PendingView> {
        if self.by_tab.contains_key(&view.tab_id) {
            return Err(view);
        }
        self.by_tab.insert(view.tab_id, (view, Some(slot)));
        Ok(())
    }

    /// Takes the answer slot of `tab`'s hand-off: it is answered once.
    pub fn take_slot(&mut self, tab: TabId) -> Option<S> {
        self.by_tab.get_mut(&tab).and_then(|(_, slot)| slot.take())
    }

    /// Forgets `tab`'s hand-off, answered or not.
    pub fn end(&mut self, tab: TabId) {
        self.by_tab.remove(&tab);
    }

    /// Whether `tab` has a hand-off that has not ended.
    pub fn has(&self, tab: TabId) -> bool {
        self.by_tab.contains_key(&tab)
    }

    /// How many are waiting for an answer.
    pub fn len(&self) -> usize {
        self.by_tab.values().filter(|(_, s)| s.is_some()).count()
    }

    /// Whether none waits for an answer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The hand-offs waiting for an answer, by tab id.
    pub fn views(&self) -> Vec<PendingView> {
        self.by_tab
            .values()
            .filter(|(_, s)| s.is_some())
            .map(|(v, _)| v.clone())
            .collect()
    }
}

/// The badge text for `pending` hand-offs: [`BADGE_TEXT`], or `""` (none).
pub fn badge_text(pending: usize) -> &'static str {
    if pending == 0 { "" } else { BADGE_TEXT }
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::extract::ObstacleType;

    use super::*;

    fn view(tab: i64) -> PendingView {
        PendingView {
            tab_id: TabId(tab),
            reason: "solve the captcha".into(),
            started_at: 1,
            deadline_at: 2,
        }
    }

    #[test]
    fn notification_ids_round_trip_and_refuse_others() {
        assert_eq!(notification_id(TabId(42)), "browser-bridge-handoff-42");
        assert_eq!(
            tab_of_notification("browser-bridge-handoff-42"),
            Some(TabId(42))
        );
        assert_eq!(tab_of_notification("browser-bridge-handoff-"), None);
        assert_eq!(tab_of_notification("browser-bridge-handoff-4x"), None);
        assert_eq!(tab_of_notification("other-42"), None);
    }

    #[test]
    fn buttons_and_popup_commands_map_to_answers() {
        assert_eq!(Answer::of_button(0), Some(Answer::Done));
        assert_eq!(Answer::of_button(1), Some(Answer::GiveUp));
        assert_eq!(Answer::of_button(2), None);
        assert_eq!(Answer::of_popup("handoffDone"), Some(Answer::Done));
        assert_eq!(Answer::of_popup("handoffGiveUp"), Some(Answer::GiveUp));
        assert_eq!(Answer::of_popup("stop"), None);
        assert_eq!(Answer::Done.outcome(), HandoffOutcome::Done);
        assert_eq!(Answer::GiveUp.outcome(), HandoffOutcome::Cancelled);
    }

    #[test]
    fn hosts_leave_out_path_port_credentials() {
        assert_eq!(host_of("https://a.example:8443/x?y#z"), "a.example:8443");
        assert_eq!(host_of("https://user:pw@a.example/"), "a.example");
        assert_eq!(host_of("http://127.0.0.1:9/login.html"), "127.0.0.1:9");
        assert_eq!(host_of("about:blank"), "");
    }

    #[test]
    fn the_notification_carries_the_reason_as_text_with_two_buttons() {
        let o = notification_options("<b>log in</b>", "a.example", "icon.png");
        assert_eq!(o["message"], "<b>log in</b>");
        assert_eq!(o["contextMessage"], "a.example");
        assert_eq!(o["buttons"][0]["title"], "Done");
        assert_eq!(o["buttons"][1]["title"], "Give up");
        assert_eq!(o["requireInteraction"], true);
    }

    #[test]
    fn only_a_medium_or_high_obstacle_stands() {
        let at = |confidence| Obstacle {
            obstacle_type: ObstacleType::AuthWall,
            confidence,
            message: "login".into(),
        };
        assert!(!stands(None));
        assert!(!stands(Some(&at(Confidence::Low))));
        assert!(stands(Some(&at(Confidence::Medium))));
        assert!(stands(Some(&at(Confidence::High))));
    }

    #[test]
    fn one_pending_hand_off_per_tab_answered_once() {
        let mut p: Pending<&str> = Pending::default();
        assert!(p.begin(view(1), "a").is_ok());
        assert_eq!(p.begin(view(1), "b"), Err(view(1)));
        assert!(p.begin(view(2), "c").is_ok());
        assert_eq!(badge_text(p.len()), "!");
        assert_eq!(p.take_slot(TabId(1)), Some("a"));
        assert_eq!(p.take_slot(TabId(1)), None);
        // Answered, not ended: listed no more, yet no second one begins there.
        assert_eq!(p.views().len(), 1);
        assert!(p.has(TabId(1)));
        assert!(p.begin(view(1), "d").is_err());
        p.end(TabId(1));
        assert!(p.begin(view(1), "e").is_ok());
        p.end(TabId(1));
        p.end(TabId(2));
        assert!(p.is_empty());
        assert_eq!(badge_text(p.len()), "");
    }
}
