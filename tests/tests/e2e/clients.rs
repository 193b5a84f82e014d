//! End-to-end: a current tab per client (PROTOCOL.md §5 "Clients"). Each `/mcp`
//! session, each `browser-bridge mcp` process and each HTTP caller named by
//! `Browser-Bridge-Client` (the others share one `http` client) acts without
//! `tabId` on the tab it last opened or named, never on another client's tab;
//! a closed current tab gives way to the client's previous one; `list_tabs`
//! marks each tab with its client.

use std::time::Duration;

use browser_bridge_conformance::child::spawn_mcp;
use browser_bridge_tests::harness::{Stack, ensure_built};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// An rmcp client of `stack`'s `/mcp`: one MCP session, one client.
async fn mcp_over_http(stack: &Stack) -> RunningService<RoleClient, ()> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", stack.base_url))
            .auth_header(stack.token.clone()),
    );
    ().serve(transport).await.expect("MCP initialize over /mcp")
}

/// `browser-bridge mcp` forwarding to `stack`'s `serve`: one process, one client.
async fn mcp_over_stdio(stack: &Stack) -> RunningService<RoleClient, ()> {
    let built = ensure_built().expect("built");
    let listen = stack.base_url.trim_start_matches("http://").to_owned();
    let mut command = tokio::process::Command::new(&built.backend_bin);
    command
        .args(["mcp", "--listen", &listen, "--config-dir"])
        .arg(stack.config_dir.path());
    spawn_mcp(command).await.client
}

/// Calls the `browser` tool: the result as JSON, or the error text.
async fn browser(
    client: &RunningService<RoleClient, ()>,
    arguments: Value,
) -> Result<Value, String> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new("browser").with_arguments(arguments))
        .await
        .expect("tools/call answered");
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error == Some(true) {
        return Err(text);
    }
    Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The counter fixture page of `who` (`clients/counter.html?who=`).
pub(crate) fn counter(stack: &Stack, who: &str) -> String {
    stack
        .fixtures
        .url(&format!("clients/counter.html?who={who}"))
}

/// The count shown in `tab`, read by a client of its own.
async fn count(stack: &Stack, tab: i64) -> i64 {
    let value = stack
        .act_as(
            "checker",
            json!({"action": "evaluate", "tabId": tab,
                   "expression": "return Number(document.getElementById('count').textContent)"}),
        )
        .await
        .unwrap_or_else(|e| panic!("count of tab {tab}: {e}"));
    value["value"].as_i64().unwrap_or(-1)
}

/// Who the page in `tab` belongs to (`?who=`), read without `tabId` by `client`.
async fn whose_page(stack: &Stack, client: &str) -> (i64, String) {
    let r = stack
        .act_as(
            client,
            json!({"action": "evaluate", "expression": "return document.getElementById('who').textContent"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{client}: evaluate without tabId: {e}"));
    (
        r["tabId"].as_i64().unwrap(),
        r["value"].as_str().unwrap_or_default().to_owned(),
    )
}

/// `client` opens its counter page (`who` = its name): the new tab's id.
async fn open_counter(stack: &Stack, client: &str) -> i64 {
    let opened = stack
        .act_as(
            client,
            json!({"action": "open_tab", "url": counter(stack, client)}),
        )
        .await
        .unwrap_or_else(|e| panic!("{client} opens: {e}"));
    opened["tabId"].as_i64().unwrap()
}

fn client_of(list: &Value, tab: i64) -> Value {
    list["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|t| t["tabId"] == tab))
        .map(|t| t.get("client").cloned().unwrap_or(Value::Null))
        .unwrap_or_else(|| panic!("tab {tab} is not listed: {list}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_mcp_sessions_and_an_mcp_process_each_act_on_their_own_tab() {
    let stack = Stack::start().await.expect("stack");
    let (a, b) = (mcp_over_http(&stack).await, mcp_over_http(&stack).await);
    let c = mcp_over_stdio(&stack).await;

    let open = |who: &str| json!({"action": "open_tab", "url": counter(&stack, who)});
    let tab_a = browser(&a, open("alice")).await.expect("a opens")["tabId"]
        .as_i64()
        .unwrap();
    let tab_b = browser(&b, open("bob")).await.expect("b opens")["tabId"]
        .as_i64()
        .unwrap();
    let tab_c = browser(&c, open("carol")).await.expect("c opens")["tabId"]
        .as_i64()
        .unwrap();

    // Interleaved, none names a tab: each goes to the tab it opened.
    let add = json!({"action": "click", "selector": "#add"});
    for (client, tab, times) in [
        (&a, tab_a, 1),
        (&b, tab_b, 2),
        (&c, tab_c, 3),
        (&a, tab_a, 1),
    ] {
        for _ in 0..times {
            let clicked = browser(client, add.clone())
                .await
                .expect("click without tabId");
            assert_eq!(clicked["tabId"], tab, "the result says which tab acted");
        }
    }
    assert_eq!(count(&stack, tab_a).await, 2);
    assert_eq!(count(&stack, tab_b).await, 2);
    assert_eq!(count(&stack, tab_c).await, 3);
    for (client, who) in [(&a, "alice"), (&b, "bob"), (&c, "carol")] {
        let page = browser(client, json!({"action": "extract"}))
            .await
            .expect("extract");
        assert!(
            page.as_str()
                .is_some_and(|md| md.contains(&format!("# {who}"))),
            "{who}: {page}"
        );
    }

    // list_tabs marks each tab with its client; the person's own tab has none.
    let list = browser(&a, json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let marks = [
        client_of(&list, tab_a),
        client_of(&list, tab_b),
        client_of(&list, tab_c),
    ];
    assert!(marks.iter().all(Value::is_string), "{list}");
    assert!(
        marks[0] != marks[1] && marks[1] != marks[2] && marks[0] != marks[2],
        "{list}"
    );
    let user_tab = list["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["agentWindow"] == false)
        .expect("the person's own tab");
    assert!(user_tab.get("client").is_none(), "{user_tab}");

    a.cancel().await.expect("close a");
    b.cancel().await.expect("close b");
    c.cancel().await.expect("close c");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_after_a_run_that_left_tabs_open_acts_on_its_own_tab() {
    let stack = Stack::start().await.expect("stack");
    // The first run's first action is a navigate with no session at all: it
    // makes a tab, which becomes that run's current tab.
    let first = stack
        .act_as(
            "run-1",
            json!({"action": "navigate", "url": counter(&stack, "first")}),
        )
        .await
        .expect("navigate makes a tab");
    let first_tab = first["tabId"].as_i64().unwrap();
    let second = stack
        .act_as(
            "run-1",
            json!({"action": "open_tab", "url": counter(&stack, "first-2")}),
        )
        .await
        .expect("open_tab");
    let second_tab = second["tabId"].as_i64().unwrap();
    // run-1 ends, its tabs open. run-2 opens its own and acts without tabId.
    let mine = stack
        .act_as(
            "run-2",
            json!({"action": "open_tab", "url": counter(&stack, "next")}),
        )
        .await
        .expect("open_tab");
    let mine = mine["tabId"].as_i64().unwrap();
    let clicked = stack
        .act_as("run-2", json!({"action": "click", "selector": "#add"}))
        .await
        .expect("click without tabId: not session_not_found");
    assert_eq!(clicked["tabId"], mine);
    assert_eq!(whose_page(&stack, "run-2").await, (mine, "next".into()));
    assert_eq!(
        (
            count(&stack, first_tab).await,
            count(&stack, second_tab).await
        ),
        (0, 0)
    );
    // run-1's current tab is still the one it opened last.
    assert_eq!(
        whose_page(&stack, "run-1").await,
        (second_tab, "first-2".into())
    );

    // A client with no current tab yet still gets §5's rules: three sessions,
    // no default.
    let ambiguous = stack
        .act_as("run-3", json!({"action": "click", "selector": "#add"}))
        .await
        .unwrap_err();
    assert_eq!(ambiguous.code, "session_not_found", "{ambiguous}");
    // Naming a tab makes it the client's current tab.
    stack
        .act_as("run-3", json!({"action": "extract", "tabId": first_tab}))
        .await
        .expect("extract with tabId");
    assert_eq!(
        whose_page(&stack, "run-3").await,
        (first_tab, "first".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_callers_with_and_without_a_client_header() {
    let stack = Stack::start().await.expect("stack");
    // Without the header: one shared `http` client.
    let shared = stack
        .act(json!({"action": "open_tab", "url": counter(&stack, "shared")}))
        .await
        .expect("open_tab");
    let shared = shared["tabId"].as_i64().unwrap();
    let named = stack
        .act_as(
            "robot",
            json!({"action": "open_tab", "url": counter(&stack, "robot")}),
        )
        .await
        .expect("open_tab");
    let named = named["tabId"].as_i64().unwrap();
    let r = stack
        .act(json!({"action": "click", "selector": "#add"}))
        .await
        .expect("click without tabId or header");
    assert_eq!(r["tabId"], shared);
    let r = stack
        .act_as("robot", json!({"action": "click", "selector": "#add"}))
        .await
        .expect("click without tabId");
    assert_eq!(r["tabId"], named);
    let list = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    assert_eq!(client_of(&list, shared), "http");
    assert_eq!(client_of(&list, named), "robot");
    assert_eq!(
        (count(&stack, shared).await, count(&stack, named).await),
        (1, 1)
    );
    // Naming a tab makes it that client's in the list too.
    let list = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    assert_eq!(client_of(&list, named), "checker");

    // A tab the page opened is reported, never switched to.
    let clicked = stack
        .act_as("robot", json!({"action": "click", "selector": "#popup"}))
        .await
        .expect("click that opens a tab");
    let opened = clicked["openedTabs"][0]["tabId"]
        .as_i64()
        .expect("openedTabs");
    assert_eq!(whose_page(&stack, "robot").await, (named, "robot".into()));
    // It is the client's all the same (no other client's default tab).
    assert_eq!(
        client_of(
            &stack.act(json!({"action": "list_tabs"})).await.unwrap(),
            opened
        ),
        "robot"
    );

    // A bad client name is refused before anything is sent.
    for bad in ["two words", ""] {
        let refused = stack
            .act_as(bad, json!({"action": "list_tabs"}))
            .await
            .unwrap_err();
        assert_eq!(
            (refused.status, refused.code.as_str()),
            (422, "invalid_request"),
            "{refused}"
        );
        assert!(
            refused.message.contains("Browser-Bridge-Client"),
            "{refused}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_current_tab_gives_way_to_the_previous_one() {
    let stack = Stack::start().await.expect("stack");
    let open = |who: &str| json!({"action": "open_tab", "url": counter(&stack, who)});
    let mut tabs = Vec::new();
    for who in ["one", "two", "three"] {
        let r = stack.act_as("closer", open(who)).await.expect("open_tab");
        tabs.push(r["tabId"].as_i64().unwrap());
    }
    let other = stack
        .act_as("bystander", open("other"))
        .await
        .expect("open_tab");
    let other = other["tabId"].as_i64().unwrap();
    assert_eq!(
        whose_page(&stack, "closer").await,
        (tabs[2], "three".into())
    );

    // The client closes its current tab: the one before it is current again.
    stack
        .act_as("closer", json!({"action": "close_tab", "tabId": tabs[2]}))
        .await
        .expect("close_tab");
    assert_eq!(whose_page(&stack, "closer").await, (tabs[1], "two".into()));

    // The person closes it: the same, once Chrome reports the tab closed.
    let targets = stack.chromium.targets().await.expect("targets");
    let target = targets
        .iter()
        .find(|t| t["url"].as_str().is_some_and(|u| u.ends_with("who=two")))
        .expect("tab two's target");
    stack
        .chromium
        .close_target(target["targetId"].as_str().unwrap())
        .await
        .expect("the person closes the tab");
    stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tabs[1] && e["reason"] == "tab_closed"
        })
        .await
        .expect("session_ended tab_closed");
    assert_eq!(whose_page(&stack, "closer").await, (tabs[0], "one".into()));
    // The other client's current tab never moved.
    assert_eq!(
        whose_page(&stack, "bystander").await,
        (other, "other".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_tab_during_a_wait_answers_the_wait_with_who_closed_the_tab() {
    let stack = Stack::start().await.expect("stack");
    for (closer, said) in [
        ("waiter", "this client's own close_tab"),
        ("tidier", "another client of browser-bridge (tidier)"),
    ] {
        let opened = stack
            .act_as(
                "waiter",
                json!({"action": "open_tab", "url": counter(&stack, closer)}),
            )
            .await
            .expect("open_tab");
        let tab = opened["tabId"].as_i64().unwrap();
        let wait = stack.act_as(
            "waiter",
            json!({"action": "wait_for", "selector": "#never", "timeoutMs": 10000}),
        );
        let close = async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            stack
                .act_as(closer, json!({"action": "close_tab", "tabId": tab}))
                .await
        };
        let (waited, closed) = tokio::join!(wait, close);
        closed.expect("close_tab");
        let waited = waited.expect_err("the wait cannot finish");
        assert_eq!(waited.code, "session_not_found", "{waited}");
        assert!(
            waited
                .message
                .contains(&format!("tab {tab} was closed by {said}")),
            "{waited}"
        );
        assert!(!waited.message.contains("cancelled"), "{waited}");
    }
}

/// A client with no current tab never lands on another client's tab: its
/// `navigate` without `tabId` opens a tab of its own (also after it closed its
/// only tab), other actions answer `session_not_found` without listing the
/// other clients' tabs, and a session nobody owns is still found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_client_never_lands_on_another_clients_tab() {
    let stack = Stack::start().await.expect("stack");
    let alice = open_counter(&stack, "alice").await;

    // One session, alice's: bob's first navigate opens bob's own tab.
    let bob = stack
        .act_as(
            "bob",
            json!({"action": "navigate", "url": counter(&stack, "bob")}),
        )
        .await
        .expect("bob's navigate without tabId");
    let bob = bob["tabId"].as_i64().unwrap();
    assert_ne!(bob, alice, "bob got a tab of its own");
    assert_eq!(whose_page(&stack, "alice").await, (alice, "alice".into()));
    assert_eq!(whose_page(&stack, "bob").await, (bob, "bob".into()));
    let list = stack
        .act_as("lister", json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    assert_eq!(client_of(&list, alice), "alice");
    assert_eq!(client_of(&list, bob), "bob");

    // Several sessions, all other clients': a click without tabId is refused
    // without naming their tabs, and nothing is clicked.
    let refused = stack
        .act_as("carol", json!({"action": "click", "selector": "#add"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, "session_not_found", "{refused}");
    assert!(
        refused.message.contains("navigate or open_tab first")
            && !refused.message.contains(&alice.to_string())
            && !refused.message.contains(&bob.to_string()),
        "{refused}"
    );
    assert_eq!(
        (count(&stack, alice).await, count(&stack, bob).await),
        (0, 0)
    );

    // bob closes its only tab: its next navigate opens a new one again.
    stack
        .act_as("bob", json!({"action": "close_tab", "tabId": bob}))
        .await
        .expect("close_tab");
    let again = stack
        .act_as(
            "bob",
            json!({"action": "navigate", "url": counter(&stack, "bob-2")}),
        )
        .await
        .expect("navigate after closing its only tab");
    let again = again["tabId"].as_i64().unwrap();
    assert!(again != alice && again != bob, "{again}");
    assert_eq!(whose_page(&stack, "bob").await, (again, "bob-2".into()));
    assert_eq!(whose_page(&stack, "alice").await, (alice, "alice".into()));

    // Explicit tabId still reaches any tab.
    let clicked = stack
        .act_as(
            "carol",
            json!({"action": "click", "selector": "#add", "tabId": alice}),
        )
        .await
        .expect("click with tabId");
    assert_eq!(clicked["tabId"], alice);
    assert_eq!(count(&stack, alice).await, 1);
}

/// A tab another client's page opened is that client's: a new client's
/// action without `tabId` is not sent there, and its `navigate` opens a tab of
/// its own (the popup is otherwise the one agent-window session nobody acted on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_another_clients_page_opened_is_not_a_new_clients() {
    let stack = Stack::start().await.expect("stack");
    let alice = open_counter(&stack, "alice").await;
    let clicked = stack
        .act_as("alice", json!({"action": "click", "selector": "#popup"}))
        .await
        .expect("alice's click that opens a tab");
    let popup = clicked["openedTabs"][0]["tabId"]
        .as_i64()
        .expect("openedTabs");
    assert_eq!(
        whose_page(&stack, "alice").await,
        (alice, "alice".into()),
        "alice's current tab is still its own"
    );

    let refused = stack
        .act_as("carol", json!({"action": "click", "selector": "#add"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, "session_not_found", "{refused}");
    assert!(!refused.message.contains(&popup.to_string()), "{refused}");
    // Before `count` below names it (which makes it the checker's).
    let list = stack
        .act_as("lister", json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    assert_eq!(client_of(&list, popup), "alice");
    let carol = stack
        .act_as(
            "carol",
            json!({"action": "navigate", "url": counter(&stack, "carol")}),
        )
        .await
        .expect("carol's navigate without tabId");
    let carol = carol["tabId"].as_i64().unwrap();
    assert!(carol != alice && carol != popup, "{carol}");
    assert_eq!(
        (count(&stack, alice).await, count(&stack, popup).await),
        (0, 0)
    );
    let (_, shown) = whose_page(&stack, "carol").await;
    assert_eq!(shown, "carol");
}

/// A client that closes the only tab of its agent window and at once acts
/// without `tabId` gets a new tab every time: Chrome closes the emptied window
/// a moment after `tabs.remove` resolves, and a tab must not be put in the
/// window being closed (§5 "Clients", §10 "agent window").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_only_tab_then_navigating_at_once_opens_a_new_tab_every_time() {
    let stack = Stack::start().await.expect("stack");
    let mut seen = Vec::new();
    for round in 0..8 {
        let who = format!("dora-{round}");
        let opened = stack
            .act_as(
                "dora",
                json!({"action": "navigate", "url": counter(&stack, &who)}),
            )
            .await
            .unwrap_or_else(|e| panic!("round {round}: navigate without tabId: {e}"));
        let tab = opened["tabId"].as_i64().unwrap();
        assert!(!seen.contains(&tab), "round {round}: tab {tab} again");
        seen.push(tab);
        assert_eq!(whose_page(&stack, "dora").await, (tab, who));
        stack
            .act_as("dora", json!({"action": "close_tab", "tabId": tab}))
            .await
            .unwrap_or_else(|e| panic!("round {round}: close_tab: {e}"));
    }
}
