//! The scripted agent scenario on the demo site, through the public HTTP API only:
//! the to-do app, the claim form (refused, corrected, accepted) and the portal's
//! login gate (`auth_wall`).

use serde_json::{Value, json};

use super::agent::{Agent, StepError};
use super::site::DemoSite;

/// The three to-do items the agent adds.
pub const TODO_ITEMS: [&str; 3] = ["Buy milk", "Book the dentist", "File the insurance claim"];
/// A well-formed policy number the insurer does not know.
pub const WRONG_POLICY: &str = "P-9999";
/// The demo insurer's valid policy.
pub const VALID_POLICY: &str = "P-1234";

/// Runs the whole scenario; stops at the first step that does not hold.
///
/// # Errors
/// The first failed step or check.
pub async fn run(agent: &mut Agent, site: &DemoSite) -> Result<(), StepError> {
    todo_app(agent, site).await?;
    claim_form(agent, site).await?;
    login_gate(agent, site).await
}

async fn todo_app(agent: &mut Agent, site: &DemoSite) -> Result<(), StepError> {
    let url = site.url("/todo/");
    agent
        .act(json!({"action": "navigate", "url": url}), &url)
        .await?;
    let page = agent
        .act(json!({"action": "extract"}), "to-do page")
        .await?;
    let field = find(agent, &page, "textbox", "new item")?;
    let add = find(agent, &page, "button", "add")?;
    for item in TODO_ITEMS {
        let target = format!("{field} \"New item\"");
        let typed = agent
            .act(
                json!({"action": "type", "uid": field, "text": item}),
                &target,
            )
            .await?;
        agent.check(
            "the field holds the item",
            typed["value"] == json!(item),
            format!("value {}", typed["value"]),
        )?;
        agent
            .act(
                json!({"action": "click", "uid": add}),
                &format!("{add} \"Add\""),
            )
            .await?;
    }
    let expression = "return { items: document.querySelectorAll('#items li').length, \
                      label: document.getElementById('count').textContent }";
    let counted = agent
        .act(
            json!({"action": "evaluate", "expression": expression}),
            "count the list",
        )
        .await?;
    let value = &counted["value"];
    agent.check(
        "the count is 3",
        value["items"] == json!(3) && value["label"] == json!("3 items"),
        format!("{} items listed, label {}", value["items"], value["label"]),
    )
}

async fn claim_form(agent: &mut Agent, site: &DemoSite) -> Result<(), StepError> {
    let url = site.url("/claim/");
    agent
        .act(json!({"action": "navigate", "url": url}), &url)
        .await?;
    let page = agent
        .act(json!({"action": "extract"}), "claim form")
        .await?;
    let policy = find(agent, &page, "textbox", "policy number")?;
    let date = find(agent, &page, "textbox", "date of incident")?;
    let what = find(agent, &page, "textbox", "what happened")?;
    let submit = find(agent, &page, "button", "submit claim")?;
    let fill = [
        (&policy, "Policy number", WRONG_POLICY),
        (&date, "Date of incident", "2026-11-20"),
        (
            &what,
            "What happened?",
            "A burst pipe flooded the kitchen floor.",
        ),
    ];
    for (uid, name, text) in fill {
        agent
            .act(
                json!({"action": "type", "uid": uid, "text": text}),
                &format!("{uid} \"{name}\""),
            )
            .await?;
    }
    let submit_target = format!("{submit} \"Submit claim\"");
    agent
        .act(json!({"action": "click", "uid": submit}), &submit_target)
        .await?;
    let refused = agent
        .act(json!({"action": "extract"}), "claim form after submit")
        .await?;
    let error = line_with(&refused, "was not found");
    agent.check(
        "the wrong policy is refused",
        error.as_deref().is_some_and(|e| e.contains(WRONG_POLICY)),
        error.unwrap_or_else(|| "no error message in the markdown".into()),
    )?;
    // Same document, so the uid issued by the first extract still names the field.
    agent
        .act(
            json!({"action": "type", "uid": policy, "text": VALID_POLICY}),
            &format!("{policy} \"Policy number\""),
        )
        .await?;
    agent
        .act(json!({"action": "click", "uid": submit}), &submit_target)
        .await?;
    let accepted = agent
        .act(json!({"action": "extract"}), "claim form after fix")
        .await?;
    let reference = claim_reference(&accepted);
    agent.check(
        "the claim is accepted",
        reference.is_some() && line_with(&accepted, "was not found").is_none(),
        reference.map_or_else(
            || "no claim reference in the markdown".into(),
            |r| format!("reference {r}"),
        ),
    )
}

async fn login_gate(agent: &mut Agent, site: &DemoSite) -> Result<(), StepError> {
    let url = site.url("/portal");
    let landed = agent
        .act(json!({"action": "navigate", "url": url}), &url)
        .await?;
    let page = agent.act(json!({"action": "extract"}), "portal").await?;
    let obstacle = &page["obstacle"];
    agent.check(
        "the portal is behind an auth_wall",
        obstacle["type"] == json!("auth_wall"),
        format!(
            "{} ({}) at {}: {}",
            obstacle["type"].as_str().unwrap_or("no obstacle"),
            obstacle["confidence"].as_str().unwrap_or("-"),
            landed["url"].as_str().unwrap_or("?"),
            obstacle["message"].as_str().unwrap_or("")
        ),
    )
}

/// The uid of the first element with `role` whose name contains `name`
/// (case-insensitive); a check step records a miss.
fn find(agent: &mut Agent, page: &Value, role: &str, name: &str) -> Result<String, StepError> {
    let uid = page["elements"].as_array().and_then(|elements| {
        elements.iter().find_map(|e| {
            let named = e["name"]
                .as_str()
                .is_some_and(|n| n.to_lowercase().contains(name));
            (e["role"] == json!(role) && named).then(|| e["uid"].as_str().map(str::to_owned))?
        })
    });
    match uid {
        Some(uid) => Ok(uid),
        None => {
            let what = format!("{role} \"{name}\"");
            agent.check(
                &format!("find {what}"),
                false,
                "not among the extracted elements".into(),
            )?;
            Err(format!("no {what}"))
        }
    }
}

/// The markdown line containing `needle`, trimmed of Markdown decoration.
fn line_with(page: &Value, needle: &str) -> Option<String> {
    let markdown = page["markdown"].as_str()?;
    markdown.lines().find(|l| l.contains(needle)).map(|l| {
        l.trim_matches(|c: char| c.is_whitespace() || c == '>' || c == '*')
            .to_owned()
    })
}

/// `CLM-<year>-<digits>` after "Claim reference:" in the markdown.
fn claim_reference(page: &Value) -> Option<String> {
    let line = line_with(page, "Claim reference:")?;
    let after = line.split("Claim reference:").nth(1)?.trim();
    let reference: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let mut parts = reference.split('-');
    let well_formed = parts.next() == Some("CLM")
        && parts
            .next()
            .is_some_and(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))
        && parts
            .next()
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    well_formed.then_some(reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_reference() {
        let page = json!({"markdown": "# File a claim\n\nClaim received for policy P-1234 (incident on 2026-11-20). Claim reference: CLM-2026-123456\n"});
        assert_eq!(claim_reference(&page).as_deref(), Some("CLM-2026-123456"));
        let none = json!({"markdown": "Claim reference: pending"});
        assert_eq!(claim_reference(&none), None);
    }
}
