//! The network half of the blocklist (PROTOCOL.md §10): the one
//! `chrome.declarativeNetRequest` session rule that blocks the session tabs'
//! requests to blocked domains before they leave the browser.
//!
//! Frame documents (`main_frame`, `sub_frame`) are left out: DNR runs before the
//! `Fetch` interception and would fail them silently, whereas `Fetch` reports them
//! (`domain_blocked`, and a main frame ends the session). The person's own tabs
//! are not in `tabIds`: the blocklist constrains the agent.

use serde_json::{Value, json};

/// The rule's id among the extension's session rules.
pub const NET_RULE_ID: u32 = 1;

/// The `updateSessionRules` options for the session `tabs` (any order) and the
/// blocklist's `request_domains`: remove the rule, and add it back when there is
/// something to block. With an unreadable setting (`invalid`) the rule has no
/// `requestDomains` and blocks every request of the session tabs.
pub fn update(tabs: &[i64], request_domains: Vec<String>, invalid: bool) -> Value {
    let mut tabs = tabs.to_vec();
    tabs.sort_unstable();
    let mut update = json!({ "removeRuleIds": [NET_RULE_ID] });
    if !tabs.is_empty() && (invalid || !request_domains.is_empty()) {
        let mut condition = json!({
            "tabIds": tabs, "excludedResourceTypes": ["main_frame", "sub_frame"],
        });
        if !invalid {
            condition["requestDomains"] = json!(request_domains);
        }
        update["addRules"] = json!([{
            "id": NET_RULE_ID, "priority": 1,
            "action": { "type": "block" }, "condition": condition,
        }]);
    }
    update
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_the_domains_for_the_session_tabs() {
        let u = update(&[9, 3], vec!["example.com".into(), "[::1]".into()], false);
        assert_eq!(
            u,
            json!({
                "removeRuleIds": [1],
                "addRules": [{
                    "id": 1, "priority": 1, "action": {"type": "block"},
                    "condition": {
                        "tabIds": [3, 9],
                        "excludedResourceTypes": ["main_frame", "sub_frame"],
                        "requestDomains": ["example.com", "[::1]"],
                    },
                }],
            })
        );
    }

    #[test]
    fn an_invalid_setting_blocks_everything() {
        let u = update(&[4], Vec::new(), true);
        assert_eq!(u["addRules"][0]["condition"]["tabIds"], json!([4]));
        assert!(
            u["addRules"][0]["condition"]
                .get("requestDomains")
                .is_none()
        );
    }

    #[test]
    fn nothing_to_block_removes_the_rule() {
        assert_eq!(
            update(&[], vec!["a.test".into()], false),
            json!({"removeRuleIds": [1]})
        );
        assert_eq!(update(&[], Vec::new(), true), json!({"removeRuleIds": [1]}));
        assert_eq!(
            update(&[1], Vec::new(), false),
            json!({"removeRuleIds": [1]})
        );
    }
}
