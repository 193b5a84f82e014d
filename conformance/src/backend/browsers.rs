//! Several browsers on one backend (PROTOCOL.md §5 "Browsers"), with two fake
//! extensions of different `clientId`s and `browserName`s connected at once:
//! both stay connected and `/v1/status` lists them; an action naming `browser`
//! reaches that browser only and the field is never sent; a client's actions
//! without it follow its last-used browser; a client that used none gets
//! `session_not_found` listing both, nothing sent; `list_tabs` without it asks
//! both and marks each tab with its browser; a `tabId` both listed is refused
//! unless `browser` names one; one browser leaving leaves the other serving
//! (after the connect-wait for the client's last-used browser to come back).

use std::time::Duration;

use serde_json::{Value, json};

use super::calls::{joined, next_request};
use super::http::{HttpAnswer, HttpApi};
use super::{ANSWER_WAIT, BackendTarget, ClientSocket, client_id, connect_with};
use crate::fake::FakeExtension;
use crate::report::{Outcome, Report, ensure};
use crate::wire::{expect_error, short, str_field};

/// The backend's wait for a browser to (re)connect (`serve --connect-wait`'s
/// default): how long an action may wait for its client's last-used browser.
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// How long a browser must stay silent for "nothing was sent to it".
const SILENCE: Duration = Duration::from_millis(300);

/// Runs the check and records it.
pub(super) async fn run(target: &BackendTarget, report: &mut Report) {
    let api = HttpApi::new(&target.http_base, &target.token);
    report.record(
        "browsers: two extensions stay connected; browser names one, else the client's last; \
         list_tabs asks both",
        two_browsers(target, &api).await,
    );
}

/// A fake named `name` with a fresh `clientId`, connected.
async fn named(target: &BackendTarget, name: &str) -> Result<(ClientSocket, String), String> {
    let id = client_id();
    let fake = FakeExtension::new(&target.ws_url, &target.token)
        .client_id(&id)
        .browser_name(name);
    let (socket, _) = connect_with(target, fake)
        .await
        .map_err(|e| format!("connecting {name:?}: {e}"))?;
    Ok((socket, id))
}

async fn two_browsers(target: &BackendTarget, api: &HttpApi) -> Outcome {
    let run = &client_id()[..8];
    let (work, home) = (format!("Work {run}"), format!("Home {run}"));
    let (mut a, a_id) = named(target, &work).await?;
    let (mut b, b_id) = named(target, &home).await?;
    let outcome = scenario(api, (&mut a, &work, &a_id), (&mut b, &home, &b_id)).await;
    a.close().await;
    outcome
}

type Browser<'a> = (&'a mut ClientSocket, &'a str, &'a str);

async fn scenario(api: &HttpApi, a: Browser<'_>, b: Browser<'_>) -> Outcome {
    let (a, work, a_id) = a;
    let (b, home, b_id) = b;
    let (_, status) = api.status().await?;
    let listed: Vec<(String, String)> = status["browsers"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|x| {
                    (
                        x["name"].as_str().unwrap_or_default().to_owned(),
                        x["clientId"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    for (name, id) in [(work, a_id), (home, b_id)] {
        ensure(listed.contains(&(name.to_owned(), id.to_owned())), || {
            format!("/v1/status browsers lacks {name:?} ({id}): {listed:?}")
        })?;
    }
    let me = format!("conformance-browsers-{}", &client_id()[..8]);
    // Named: reaches Home only, without the field.
    let named = json!({"action": "evaluate", "expression": "return 1", "browser": home});
    answered_on(api, &me, named, b, 7)
        .await
        .map_err(|e| format!("an action naming Home: {e}"))?;
    silent(a, "Work, when the action named Home").await?;
    // Not named: the client's last-used browser (Home).
    answered_on(
        api,
        &me,
        json!({"action": "evaluate", "expression": "return 2"}),
        b,
        7,
    )
    .await
    .map_err(|e| format!("the next action, without browser: {e}"))?;
    silent(a, "Work, for a client whose last browser is Home").await?;
    // A client that used none: refused, listing both, nothing sent.
    let other = format!("{me}-new");
    let (status, body) = api
        .act_as(
            &other,
            &json!({"action": "evaluate", "expression": "return 3"}),
        )
        .await?;
    expect_error(&body["error"], "session_not_found")
        .map_err(|e| format!("a client that used no browser: HTTP {status}: {e}"))?;
    let message = str_field(&body["error"], "message")?;
    ensure(message.contains(work) && message.contains(home), || {
        format!("the refusal does not list both browsers: {message}")
    })?;
    silent(a, "Work, for a refused action").await?;
    silent(b, "Home, for a refused action").await?;
    // list_tabs without browser: both asked, each with tab 5.
    let task = {
        let (api, other) = (api.clone(), other.clone());
        tokio::spawn(async move { api.act_as(&other, &json!({"action": "list_tabs"})).await })
    };
    answer_list(a, 5, "https://work.test/")
        .await
        .map_err(|e| format!("list_tabs in Work: {e}"))?;
    answer_list(b, 5, "https://home.test/")
        .await
        .map_err(|e| format!("list_tabs in Home: {e}"))?;
    let (status, body) = joined(task).await?;
    let tabs: Vec<(Value, Value)> = body["tabs"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| (t["url"].clone(), t["browser"].clone()))
                .collect()
        })
        .unwrap_or_default();
    ensure(
        status == 200
            && tabs.contains(&(json!("https://work.test/"), json!(work)))
            && tabs.contains(&(json!("https://home.test/"), json!(home)))
            && body["browsers"].as_array().is_some_and(|b| b.len() >= 2),
        || format!("list_tabs of both browsers: HTTP {status} {}", short(&body)),
    )?;
    // Tab 5 is in both: refused without browser, reached with it.
    let click = json!({"action": "evaluate", "expression": "return 4", "tabId": 5});
    let (status, body) = api.act_as(&other, &click).await?;
    expect_error(&body["error"], "session_not_found")
        .map_err(|e| format!("tab 5 of both browsers without browser: HTTP {status}: {e}"))?;
    let mut named = click.clone();
    named["browser"] = json!(work);
    answered_on(api, &other, named, a, 5)
        .await
        .map_err(|e| format!("tab 5 naming Work: {e}"))?;
    silent(b, "Home, when the action named Work").await?;
    // Home leaves: the client whose last browser it was is served by Work, the
    // only one left, once the connect-wait for Home to come back has passed
    // (tab 9: this client has no tab of its own there).
    drop_socket(b).await;
    tokio::time::sleep(SILENCE).await;
    let last = json!({"action": "evaluate", "expression": "return 5", "tabId": 9});
    answered_within(api, &me, last, a, 9, CONNECT_WAIT + ANSWER_WAIT)
        .await
        .map_err(|e| format!("after Home left: {e}"))
}

/// Posts `action` as `client`, expects its request on `socket` without a
/// `browser` field, answers it for `tab`, and expects HTTP 200.
async fn answered_on(
    api: &HttpApi,
    client: &str,
    action: Value,
    socket: &mut ClientSocket,
    tab: u64,
) -> Outcome {
    answered_within(api, client, action, socket, tab, ANSWER_WAIT).await
}

/// [`answered_on`], the request due within `wait`.
async fn answered_within(
    api: &HttpApi,
    client: &str,
    action: Value,
    socket: &mut ClientSocket,
    tab: u64,
    wait: Duration,
) -> Outcome {
    let task = {
        let (api, client) = (api.clone(), client.to_owned());
        tokio::spawn(async move { api.act_as(&client, &action).await })
    };
    let request = match next_request(socket, wait).await {
        Ok(request) => request,
        Err(e) => {
            let answer = joined(task).await;
            return Err(format!("{e}; the HTTP answer: {answer:?}"));
        }
    };
    let id = str_field(&request, "id")?.to_owned();
    ensure(request["action"].get("browser").is_none(), || {
        format!("browser was sent to the extension: {}", short(&request))
    })?;
    socket
        .send(&json!({"type": "response", "id": id,
                      "result": {"action": "evaluate", "tabId": tab, "type": "number", "value": 1}}))
        .await?;
    let (status, body): HttpAnswer = joined(task).await?;
    ensure(status == 200, || format!("HTTP {status} {}", short(&body)))
}

/// Answers the next request, a `list_tabs`, with one tab `tab` at `url`.
async fn answer_list(socket: &mut ClientSocket, tab: u64, url: &str) -> Outcome {
    let request = next_request(socket, ANSWER_WAIT).await?;
    ensure(request["action"]["action"] == "list_tabs", || {
        format!("expected list_tabs, got {}", short(&request))
    })?;
    let id = str_field(&request, "id")?;
    let tabs = json!([{"tabId": tab, "windowId": 1, "url": url, "title": "", "active": true,
                       "agentWindow": false, "session": false}]);
    socket
        .send(&json!({"type": "response", "id": id,
                      "result": {"action": "list_tabs", "tabs": tabs}}))
        .await
}

/// No request reaches `socket` within [`SILENCE`].
async fn silent(socket: &mut ClientSocket, who: &str) -> Outcome {
    match next_request(socket, SILENCE).await {
        Ok(request) => Err(format!("a request reached {who}: {}", short(&request))),
        Err(_) => Ok(()),
    }
}

async fn drop_socket(socket: &mut ClientSocket) {
    socket.close_in_place().await;
}
