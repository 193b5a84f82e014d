//! Headed, as the rest of `focus`: tabs of one agent window pressed in turn.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Scene, person_state, scene, target_of, wait_minimized, window_of};

/// Two tabs of the agent's window pressed in turn: before a press in the
/// window's active tab the extension makes a blank tab (no session) the active
/// one, never the agent's other tab, so later presses in either tab need no tab
/// switch (each switch costs `tabs.update` round trips and shows the other page
/// as the window's active one). After each click from the second on, neither
/// pressed tab is active; every click reached its page. A third tab, opened
/// and pressed afterwards, reuses that blank tab (the window holds the three
/// tabs and one blank), the window stayed minimized and the person's page
/// never lost the focus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_pressed_in_turn_stay_in_the_background() {
    let Some(Scene {
        xvfb,
        stack,
        person,
        before,
        ..
    }) = scene().await
    else {
        return;
    };
    let agent = "focus-agent";
    let mut tabs = Vec::new();
    for name in ["turn-a", "turn-b"] {
        let url = stack
            .fixtures
            .url(&format!("focus/agent.html?round={name}"));
        let opened = stack
            .act_as(agent, json!({"action": "open_tab", "url": url}))
            .await
            .expect("open_tab");
        tabs.push(opened["tabId"].as_i64().expect("tabId"));
    }
    let target = target_of(&stack, "focus/agent.html?round=turn-a").await;
    wait_minimized(&stack, &target).await;
    for turn in 0..6 {
        let tab = tabs[turn % 2];
        stack
            .act_as(
                agent,
                json!({"action": "click", "tabId": tab, "selector": "#press"}),
            )
            .await
            .unwrap_or_else(|e| panic!("click {turn} in {tab}: {e}"));
        if turn == 0 {
            continue;
        }
        let listed = stack
            .act(json!({"action": "list_tabs"}))
            .await
            .expect("list_tabs");
        let active: Vec<&Value> = listed["tabs"]
            .as_array()
            .expect("tabs")
            .iter()
            .filter(|t| t["agentWindow"] == true && t["active"] == true)
            .collect();
        assert!(
            active.len() == 1 && !tabs.contains(&active[0]["tabId"].as_i64().unwrap_or_default()),
            "after click {turn}: the agent window's active tab is not one the agent presses: {listed}"
        );
    }
    for tab in &tabs {
        let pressed = stack
            .act_as(
                agent,
                json!({"action": "evaluate", "tabId": tab,
                       "expression": "return document.getElementById('pressed').value"}),
            )
            .await
            .expect("evaluate");
        assert_eq!(pressed["value"], "3", "tab {tab} got its three clicks");
    }
    // A third tab, active once opened: its press makes the same blank active.
    let url = stack.fixtures.url("focus/agent.html?round=turn-c");
    let third = stack
        .act_as(agent, json!({"action": "open_tab", "url": url}))
        .await
        .expect("open_tab")["tabId"]
        .as_i64()
        .expect("tabId");
    stack
        .act_as(
            agent,
            json!({"action": "click", "tabId": third, "selector": "#press"}),
        )
        .await
        .expect("click in the third tab");
    let listed = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let in_window: Vec<&Value> = listed["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .filter(|t| t["agentWindow"] == true)
        .collect();
    let blanks = in_window
        .iter()
        .filter(|t| t["url"] == "about:blank" && t["session"] == false)
        .count();
    assert_eq!(
        (in_window.len(), blanks),
        (4, 1),
        "the three tabs and one blank: {listed}"
    );
    assert_eq!(window_of(&stack, &target).await.1, "minimized");
    // A little time for a late activation to show up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = person_state(&stack, &person).await;
    assert_eq!(after["log"], before["log"], "no focus change at all");
    assert_eq!(after["hasFocus"], true, "{after}");
    drop(stack);
    drop(xvfb);
}
