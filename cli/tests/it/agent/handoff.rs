//! `run --handoff` (PROTOCOL.md §5 "Hand-off") against the scripted model and a
//! fake extension whose login wall goes once the person is done: the run hands
//! the tab over at an obstacle `high` and goes on after `done`; `cancelled` and
//! `timeout` stop it as the obstacle does; the person's time does not count
//! against the run's timeout; a wall that stands after three hand-offs stops it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use browser_bridge_agent::{RunOptions, StopReason};
use serde_json::{Value, json};

use super::scripted_llm::{Reply, ScriptedLlm, Wire, last_user_text};
use super::{claim_page, client, login_page};

/// What the fake person does with a hand-off.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Person {
    /// Signs in, then presses Done (after `delay`).
    SignsIn { delay: Duration },
    /// Presses Done, but the wall stays.
    DoneInVain,
    /// Presses Give up.
    GivesUp,
    /// Never comes.
    Away,
}

/// A fake extension on the login page; what reached it, in order.
struct Browser {
    server: browser_bridge_backend::server::ServerHandle,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Browser {
    async fn start(person: Person) -> Browser {
        let server = crate::common::start(crate::common::options()).await;
        let ws = crate::common::connect_extension(&server, "handoff-test").await;
        crate::common::wait_connected(&server, "handoff-test").await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let signed_in = Arc::new(Mutex::new(false));
        crate::common::serve_requests(ws, move |request| {
            let action = request["action"].clone();
            record.lock().unwrap().push(action.clone());
            let ok =
                |result: Value| json!({"type": "response", "id": request["id"], "result": result});
            Some(match action["action"].as_str().unwrap_or_default() {
                "navigate" => ok(json!({"action": "navigate", "tabId": 1,
                                        "url": action["url"], "title": "Sign in"})),
                "list_tabs" => ok(json!({"action": "list_tabs", "tabs": []})),
                "extract" if *signed_in.lock().unwrap() => ok(claim_page()),
                "extract" => ok(login_page()),
                "handoff" => {
                    let outcome = match person {
                        Person::SignsIn { delay } => {
                            // The person's minutes, in a test's milliseconds.
                            std::thread::sleep(delay);
                            *signed_in.lock().unwrap() = true;
                            "done"
                        }
                        Person::DoneInVain => "done",
                        Person::GivesUp => "cancelled",
                        Person::Away => "timeout",
                    };
                    ok(json!({"action": "handoff", "tabId": action["tabId"],
                              "outcome": outcome, "elapsedMs": 5}))
                }
                _ => json!({"type": "response", "id": request["id"],
                            "error": {"code": "element_not_found", "message": "no such element"}}),
            })
        });
        Browser { server, seen }
    }

    fn actions(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|a| a["action"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn handoffs(&self) -> Vec<Value> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .filter(|a| a["action"] == "handoff")
            .cloned()
            .collect()
    }
}

fn options(url: Option<&str>, handoff: Option<Duration>) -> RunOptions {
    RunOptions {
        url: url.map(Into::into),
        timeout: Duration::from_secs(60),
        handoff,
        ..RunOptions::new("tell me my last order")
    }
}

async fn run(
    browser: &Browser,
    llm: &ScriptedLlm,
    options: RunOptions,
) -> browser_bridge_agent::FinalReport {
    let mut events = Vec::new();
    browser_bridge_agent::run_task(
        &browser.server.hub,
        &client(llm, Wire::OpenAi),
        &options,
        &mut events,
    )
    .await
}

fn wall() -> StopReason {
    StopReason::Obstacle {
        kind: "auth_wall".into(),
        message: "a password field and a sign-in form fill the page".into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_hands_the_tab_over_and_the_run_goes_on_on_the_signed_in_page() {
    let browser = Browser::start(Person::SignsIn {
        delay: Duration::ZERO,
    })
    .await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "extract"})),
        Reply::from_request(|request| {
            // The model is told the person is done and to read the page again.
            let told = last_user_text(request);
            assert!(
                told.contains("handoff tab 1: done (the person pressed Done)"),
                "{told}"
            );
            Reply::call(json!({"action": "extract"}))
        }),
        Reply::text("Your claim form is open.\nSTATUS: DONE"),
    ])
    .await;
    let report = run(&browser, &llm, options(None, Some(Duration::from_secs(90)))).await;
    assert!(report.success, "{report:?}");
    assert_eq!(
        browser.actions(),
        ["list_tabs", "extract", "handoff", "extract"]
    );
    let [handoff] = browser.handoffs().try_into().expect("one hand-off");
    assert_eq!(handoff["tabId"], 1);
    assert_eq!(handoff["timeoutMs"], 90_000);
    let reason = handoff["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("The page shows a login wall ("),
        "{reason}"
    );
    assert!(reason.ends_with("sign in, then press Done."), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn give_up_and_timeout_stop_the_run_at_the_obstacle_saying_why() {
    for (person, why) in [
        (Person::GivesUp, "the person gave up the hand-off"),
        (Person::Away, "nobody answered the hand-off in time"),
    ] {
        let browser = Browser::start(person).await;
        let llm = ScriptedLlm::start(vec![
            Reply::call(json!({"action": "extract"})),
            Reply::text("never asked\nSTATUS: DONE"),
        ])
        .await;
        let report = run(&browser, &llm, options(None, Some(Duration::from_secs(60)))).await;
        assert!(!report.success, "{person:?}");
        assert_eq!(report.stop, wall(), "{person:?}");
        assert!(report.answer.contains(why), "{person:?}: {}", report.answer);
        assert_eq!(browser.actions(), ["list_tabs", "extract", "handoff"]);
        assert_eq!(
            llm.requests().len(),
            1,
            "{person:?}: the model was asked again"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_the_wall_stops_the_run_and_nothing_is_handed_over() {
    let browser = Browser::start(Person::SignsIn {
        delay: Duration::ZERO,
    })
    .await;
    let llm = ScriptedLlm::start(vec![Reply::call(json!({"action": "extract"}))]).await;
    let report = run(&browser, &llm, options(None, None)).await;
    assert_eq!(report.stop, wall());
    assert!(browser.handoffs().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wall_on_the_start_url_is_handed_over_before_the_model_starts() {
    let browser = Browser::start(Person::SignsIn {
        delay: Duration::ZERO,
    })
    .await;
    let llm = ScriptedLlm::start(vec![Reply::from_request(|request| {
        let told = last_user_text(request);
        assert!(told.contains("handoff tab 1: done"), "{told}");
        Reply::text("Signed in.\nSTATUS: DONE")
    })])
    .await;
    let url = "http://demo.test/portal/login";
    let report = run(
        &browser,
        &llm,
        options(Some(url), Some(Duration::from_secs(60))),
    )
    .await;
    assert!(report.success, "{report:?}");
    assert_eq!(browser.actions(), ["navigate", "extract", "handoff"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_time_does_not_count_against_the_runs_timeout() {
    // The person takes 1.5 s; the run may take 1 s of its own.
    let browser = Browser::start(Person::SignsIn {
        delay: Duration::from_millis(1_500),
    })
    .await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "extract"})),
        Reply::call(json!({"action": "extract"})),
        Reply::text("Done.\nSTATUS: DONE"),
    ])
    .await;
    let report = run(
        &browser,
        &llm,
        RunOptions {
            timeout: Duration::from_secs(1),
            ..options(None, Some(Duration::from_secs(60)))
        },
    )
    .await;
    assert!(report.success, "{report:?}");
    assert!(report.wall_ms >= 1_500, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wall_that_stands_after_three_hand_offs_stops_the_run() {
    let browser = Browser::start(Person::DoneInVain).await;
    let llm = ScriptedLlm::start(
        // Each read differs, so that no loop guard ends the run first.
        (0..5)
            .map(|i| Reply::call(json!({"action": "extract", "query": format!("order {i}")})))
            .collect(),
    )
    .await;
    let report = run(&browser, &llm, options(None, Some(Duration::from_secs(60)))).await;
    assert_eq!(report.stop, wall(), "{report:?}");
    assert_eq!(browser.handoffs().len(), 3);
    assert_eq!(
        browser.actions().iter().filter(|a| *a == "extract").count(),
        4
    );
}
