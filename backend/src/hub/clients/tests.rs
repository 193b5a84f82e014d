use super::*;
use browser_bridge_protocol::WindowId;
use browser_bridge_protocol::result::{ListTabsResult, OpenTabResult, TabInfo, TabResult};
use serde_json::json;

fn act(value: serde_json::Value) -> Action {
    Action::from_value(value).expect("valid action")
}

fn opened(tab: i64) -> Result<ActionResult, BridgeError> {
    Ok(ActionResult::OpenTab(OpenTabResult {
        tab_id: TabId(tab),
        window_id: WindowId(1),
        url: "https://a.test/".into(),
        title: String::new(),
        load_pending: false,
        dialog: None,
    }))
}

fn listed(tabs: &[i64]) -> Result<ActionResult, BridgeError> {
    Ok(ActionResult::ListTabs(ListTabsResult {
        tabs: tabs
            .iter()
            .map(|&id| TabInfo {
                tab_id: TabId(id),
                window_id: WindowId(1),
                url: String::new(),
                title: String::new(),
                active: false,
                agent_window: true,
                session: true,
                client: None,
                browser: None,
            })
            .collect(),
        browsers: None,
    }))
}

/// Sends `action` for `client` and answers it with `outcome`; returns the
/// answer as the caller sees it.
fn ask(
    clients: &mut Clients,
    client: &Arc<str>,
    action: serde_json::Value,
    mut outcome: Result<ActionResult, BridgeError>,
) -> Result<ActionResult, BridgeError> {
    let mut action = act(action);
    let Route::Send(target) = clients.target(client, &mut action, Vec::new) else {
        panic!("not sent")
    };
    clients.answered(client, target, &mut outcome);
    outcome
}

/// [`ask`], when the answer does not matter.
fn round(
    clients: &mut Clients,
    client: &Arc<str>,
    action: serde_json::Value,
    outcome: Result<ActionResult, BridgeError>,
) {
    let _ = ask(clients, client, action, outcome);
}

#[test]
fn an_action_without_tab_goes_to_the_tab_the_client_opened() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    let mut click = act(json!({"action": "click", "uid": "e1"}));
    assert_eq!(
        clients.target(&a, &mut click, Vec::new),
        Route::Send(Target::Unnamed)
    );
    assert_eq!(click.tab_id(), None, "no current tab: §5's rules");

    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    round(
        &mut clients,
        &b,
        json!({"action": "open_tab", "url": "https://b.test/"}),
        opened(8),
    );
    let mut click = act(json!({"action": "click", "uid": "e1"}));
    assert_eq!(
        clients.target(&a, &mut click, Vec::new),
        Route::Send(Target::Current(TabId(7)))
    );
    assert_eq!(click.tab_id(), Some(TabId(7)));
    let mut extract = act(json!({"action": "extract"}));
    assert_eq!(
        clients.target(&b, &mut extract, Vec::new),
        Route::Send(Target::Current(TabId(8)))
    );
    // A navigate without tabId loads the current tab too.
    let mut navigate = act(json!({"action": "navigate", "url": "https://a.test/2"}));
    clients.target(&a, &mut navigate, Vec::new);
    assert_eq!(navigate.tab_id(), Some(TabId(7)));
    // open_tab and list_tabs take no tab.
    let mut open = act(json!({"action": "open_tab", "url": "https://a.test/"}));
    assert_eq!(
        clients.target(&a, &mut open, Vec::new),
        Route::Send(Target::Unnamed)
    );
}

#[test]
fn a_client_without_a_tab_never_lands_on_another_clients_tab() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    let route = |clients: &mut Clients, action: serde_json::Value, sessions: &[(i64, bool)]| {
        let mut action = act(action);
        let sessions: Vec<_> = sessions.iter().map(|&(t, w)| (TabId(t), w)).collect();
        let route = clients.target(&b, &mut action, || sessions);
        (route, action.tab_id())
    };
    let navigate = json!({"action": "navigate", "url": "https://b.test/"});
    let click = json!({"action": "click", "uid": "e1"});
    // a's only tab: b's navigate opens a tab of its own; a click is refused.
    assert_eq!(
        route(&mut clients, navigate.clone(), &[(7, true)]),
        (Route::OpenTabFirst, None)
    );
    let (Route::Refuse(error), None) = route(&mut clients, click.clone(), &[(7, true)]) else {
        panic!("refused")
    };
    assert_eq!(error.code, ErrorCode::SessionNotFound);
    assert!(!error.message.contains('7'), "{}", error.message);
    assert!(error.message.contains("navigate or open_tab first"));
    // The one tab nobody owns is filled in, for navigate too.
    for action in [&navigate, &click] {
        assert_eq!(
            route(&mut clients, action.clone(), &[(7, true), (5, false)]),
            (Route::Send(Target::Resolved(TabId(5))), Some(TabId(5)))
        );
    }
    // Several: the candidates leave a's tab out.
    let (Route::Refuse(error), _) = route(
        &mut clients,
        click.clone(),
        &[(5, false), (6, false), (7, true)],
    ) else {
        panic!("refused")
    };
    assert!(
        error.message.contains("candidates 5, 6 ("),
        "{}",
        error.message
    );
    // a's tab is another client's even when the sessions seen do not list
    // it (it began before this process): never handed to b.
    let (Route::Refuse(error), _) = route(&mut clients, click.clone(), &[(5, false), (6, false)])
    else {
        panic!("refused")
    };
    assert!(
        error.message.contains("candidates 5, 6 ("),
        "{}",
        error.message
    );
    assert_eq!(
        route(&mut clients, navigate.clone(), &[]),
        (Route::OpenTabFirst, None)
    );
    // The opened tab becomes b's, then an action without tabId goes there.
    round(
        &mut clients,
        &b,
        json!({"action": "open_tab", "url": "about:blank"}),
        opened(9),
    );
    assert_eq!(
        route(&mut clients, click, &[(7, true), (9, true)]),
        (Route::Send(Target::Current(TabId(9))), Some(TabId(9)))
    );
    assert_eq!(clients.current("a"), Some(TabId(7)));
}

/// After a restart or an address takeover the hub has seen no session start:
/// the first client lands where the extension's rules say, and that tab is
/// then its own, never the next client's.
#[test]
fn a_tab_a_client_got_by_the_extensions_rules_is_never_the_next_clients() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    let unseen = Vec::new;
    let mut navigate = act(json!({"action": "navigate", "url": "https://a.test/"}));
    let Route::Send(target) = clients.target(&a, &mut navigate, unseen) else {
        panic!("sent")
    };
    assert_eq!(target, Target::Unnamed);
    clients.answered(&a, target, &mut opened(7));
    let mut navigate = act(json!({"action": "navigate", "url": "https://b.test/"}));
    assert_eq!(
        clients.target(&b, &mut navigate, unseen),
        Route::OpenTabFirst
    );
    let mut click = act(json!({"action": "click", "uid": "e1"}));
    let Route::Refuse(error) = clients.target(&b, &mut click, unseen) else {
        panic!("refused")
    };
    assert_eq!(error.code, ErrorCode::SessionNotFound);
    // a itself still goes there.
    let mut click = act(json!({"action": "click", "uid": "e1"}));
    assert_eq!(
        clients.target(&a, &mut click, unseen),
        Route::Send(Target::Current(TabId(7)))
    );
}

#[test]
fn a_named_tab_becomes_current_even_when_the_action_fails_on_it() {
    let a: Arc<str> = "a".into();
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    let stale = Err(BridgeError::new(ErrorCode::ElementStale, "stale"));
    round(
        &mut clients,
        &a,
        json!({"action": "click", "uid": "e1", "tabId": 3}),
        stale,
    );
    assert_eq!(clients.current("a"), Some(TabId(3)));
    // A tab that is gone does not.
    let gone = Err(BridgeError::new(ErrorCode::SessionNotFound, "no tab 99"));
    round(
        &mut clients,
        &a,
        json!({"action": "click", "uid": "e1", "tabId": 99}),
        gone,
    );
    assert_eq!(clients.current("a"), Some(TabId(3)));
}

#[test]
fn a_tab_the_page_opened_is_not_switched_to() {
    let a: Arc<str> = "a".into();
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    let click: ActionResult = serde_json::from_value(json!({
        "action": "click", "tabId": 7, "url": "https://a.test/", "navigated": false,
        "openedTabs": [{"tabId": 9, "url": "https://a.test/popup"}]
    }))
    .expect("click result");
    round(
        &mut clients,
        &a,
        json!({"action": "click", "uid": "e1"}),
        Ok(click),
    );
    assert_eq!(clients.current("a"), Some(TabId(7)));
}

/// The tabs a client's actions made its page open (a click's, a key's, a
/// `fill_form` submit's, a `batch` entry's `openedTabs`) are that client's: a
/// client with no tab of its own is not handed one of them, and `list_tabs`
/// marks them; the opener stays current.
#[test]
fn a_tab_a_clients_page_opened_is_that_clients_not_a_new_clients() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    let result = |v: serde_json::Value| -> Result<ActionResult, BridgeError> {
        Ok(serde_json::from_value(v).expect("a result"))
    };
    let popup = |tab: i64| json!([{"tabId": tab, "url": "https://a.test/popup"}]);
    let answers = [
        (
            json!({"action": "click", "uid": "e1"}),
            json!({"action": "click", "tabId": 7, "url": "https://a.test/",
                   "navigated": false, "openedTabs": popup(9)}),
        ),
        (
            json!({"action": "press_key", "key": "Enter"}),
            json!({"action": "press_key", "tabId": 7, "openedTabs": popup(10)}),
        ),
        (
            json!({"action": "fill_form", "fields": [{"uid": "e2", "value": "x"}],
                   "submit": {"uid": "e3"}}),
            json!({"action": "fill_form", "tabId": 7, "fields": [{"index": 0, "value": "x"}],
                   "submit": {"tabId": 7, "url": "https://a.test/", "navigated": false,
                              "openedTabs": popup(11)}}),
        ),
        (
            json!({"action": "batch", "actions": [{"action": "click", "uid": "e1"}]}),
            json!({"action": "batch", "tabId": 7, "results": [{"index": 0, "result":
                   {"action": "click", "tabId": 7, "url": "https://a.test/",
                    "navigated": false, "openedTabs": popup(12)}}]}),
        ),
    ];
    for (action, answer) in answers {
        round(&mut clients, &a, action, result(answer));
    }
    assert_eq!(clients.current("a"), Some(TabId(7)));
    for tab in 9..=12 {
        assert_eq!(clients.owner(TabId(tab)), Some("a"), "tab {tab}");
    }
    let Ok(ActionResult::ListTabs(list)) = ask(
        &mut clients,
        &b,
        json!({"action": "list_tabs"}),
        listed(&[7, 9]),
    ) else {
        panic!("list_tabs")
    };
    let marks: Vec<_> = list.tabs.iter().map(|t| t.client.as_deref()).collect();
    assert_eq!(marks, [Some("a"), Some("a")]);

    // Only the popups and the opener are sessions: b is refused, not handed one.
    let sessions = || {
        (7..=12)
            .filter(|t| *t != 8)
            .map(|t| (TabId(t), true))
            .collect()
    };
    let mut click = act(json!({"action": "click", "uid": "e1"}));
    let Route::Refuse(refused) = clients.target(&b, &mut click, sessions) else {
        panic!("b was handed a tab of a's")
    };
    assert_eq!(refused.code, ErrorCode::SessionNotFound);
    assert!(
        refused.message.contains("navigate or open_tab first"),
        "{refused}"
    );
    let mut navigate = act(json!({"action": "navigate", "url": "https://b.test/"}));
    assert_eq!(
        clients.target(&b, &mut navigate, || vec![(TabId(9), true)]),
        Route::OpenTabFirst
    );

    // A tab that was already another client's stays that client's.
    round(
        &mut clients,
        &b,
        json!({"action": "extract", "tabId": 9}),
        Err(BridgeError::internal("x")),
    );
    assert_eq!(clients.owner(TabId(9)), Some("b"));
    let again = json!({"action": "click", "tabId": 7, "url": "https://a.test/",
                       "navigated": false, "openedTabs": popup(9)});
    round(
        &mut clients,
        &a,
        json!({"action": "click", "uid": "e1"}),
        result(again),
    );
    assert_eq!(clients.owner(TabId(9)), Some("b"));
}

#[test]
fn a_closed_current_tab_gives_way_to_the_previous_one() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(8),
    );
    round(
        &mut clients,
        &b,
        json!({"action": "extract", "tabId": 8}),
        Err(BridgeError::internal("x")),
    );
    let closed = Ok(ActionResult::CloseTab(TabResult { tab_id: TabId(8) }));
    round(
        &mut clients,
        &a,
        json!({"action": "close_tab", "tabId": 8}),
        closed,
    );
    assert_eq!(clients.current("a"), Some(TabId(7)));
    assert_eq!(clients.current("b"), None, "closed for every client");
    // Closed by the person (a `tab_closed` event).
    clients.closed(TabId(7));
    assert_eq!(clients.current("a"), None);
}

#[test]
fn a_current_tab_found_gone_says_which_tab_is_current_now() {
    let a: Arc<str> = "a".into();
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(8),
    );
    let gone = Err(BridgeError::new(
        ErrorCode::SessionNotFound,
        "tab 8 is gone",
    ));
    let answer = ask(&mut clients, &a, json!({"action": "extract"}), gone);
    let error = answer.unwrap_err();
    assert_eq!(error.code, ErrorCode::SessionNotFound);
    assert!(
        error
            .message
            .ends_with("now goes to tab 7, the one before it)"),
        "{}",
        error.message
    );
    assert_eq!(clients.current("a"), Some(TabId(7)));
}

#[test]
fn list_tabs_marks_each_tab_with_its_client() {
    let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
    let mut clients = Clients::new();
    round(
        &mut clients,
        &a,
        json!({"action": "open_tab", "url": "https://a.test/"}),
        opened(7),
    );
    round(
        &mut clients,
        &b,
        json!({"action": "open_tab", "url": "https://b.test/"}),
        opened(8),
    );
    round(
        &mut clients,
        &b,
        json!({"action": "open_tab", "url": "https://b.test/"}),
        opened(9),
    );
    let list = ask(
        &mut clients,
        &a,
        json!({"action": "list_tabs"}),
        listed(&[1, 7, 8]),
    );
    let Ok(ActionResult::ListTabs(list)) = list else {
        panic!("{list:?}")
    };
    let marks: Vec<_> = list.tabs.iter().map(|t| t.client.as_deref()).collect();
    assert_eq!(marks, [None, Some("a"), Some("b")]);
    assert_eq!(
        clients.current("b"),
        Some(TabId(9)),
        "an unlisted tab is kept"
    );
    // Addressing another client's tab takes it over for the list; the
    // other client keeps it in its stack.
    round(
        &mut clients,
        &a,
        json!({"action": "extract", "tabId": 8}),
        Err(BridgeError::internal("x")),
    );
    let list = ask(
        &mut clients,
        &a,
        json!({"action": "list_tabs"}),
        listed(&[7, 8]),
    );
    let Ok(ActionResult::ListTabs(list)) = list else {
        panic!("{list:?}")
    };
    assert_eq!(list.tabs[1].client.as_deref(), Some("a"));
    clients.closed(TabId(9));
    assert_eq!(clients.current("b"), Some(TabId(8)));
}

#[test]
fn the_idlest_client_is_forgotten_past_the_cap() {
    let mut clients = Clients::new();
    for n in 0..=MAX_CLIENTS {
        let name: Arc<str> = format!("c{n}").into();
        round(
            &mut clients,
            &name,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(n as i64),
        );
    }
    assert_eq!(clients.clients.len(), MAX_CLIENTS);
    assert_eq!(clients.current("c0"), None);
    assert_eq!(clients.current("c1"), Some(TabId(1)));
    assert!(!clients.owners.contains_key(&TabId(0)));
}

#[test]
fn a_request_cut_off_by_close_tab_names_who_closed_the_tab() {
    let cancelled = BridgeError::new(ErrorCode::Cancelled, "the session was stopped");
    let own = closed_while_running(cancelled.clone(), "wait_for", TabId(7), "a", true);
    assert_eq!(own.code, ErrorCode::SessionNotFound);
    assert_eq!(
        own.message,
        "wait_for: tab 7 was closed by this client's own close_tab while the wait_for ran; \
         the user did not cancel anything"
    );
    let other = closed_while_running(cancelled, "click", TabId(7), "run-1", false);
    assert!(
        other
            .message
            .contains("another client of browser-bridge (run-1)"),
        "{}",
        other.message
    );
    let stale = BridgeError::new(ErrorCode::ElementStale, "gone");
    assert_eq!(
        closed_while_running(stale.clone(), "click", TabId(7), "a", true),
        stale
    );
}

#[test]
fn client_names() {
    for ok in [
        "http",
        "mcp-1f2e3d4c5b6a",
        "run:7",
        &"x".repeat(MAX_CLIENT_NAME),
    ] {
        assert!(check_client_name(ok).is_ok(), "{ok}");
    }
    for bad in [
        "",
        "two words",
        "tab\t",
        "é",
        &"x".repeat(MAX_CLIENT_NAME + 1),
    ] {
        let error = check_client_name(bad).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidRequest, "{bad:?}");
    }
    let name = generated_name("run");
    assert!(name.starts_with("run-") && name.len() == 16, "{name}");
    assert!(check_client_name(&name).is_ok());
}
