//! The demo scenario end to end: the bundled demo site, the real backend, the real
//! extension in headless Chromium, and the scripted agent through `/v1/act`.

use browser_bridge_tests::demo::agent::line;
use browser_bridge_tests::demo::{DemoOptions, run_demo};

#[tokio::test]
async fn the_demo_scenario_passes_every_check() {
    let options = DemoOptions {
        quiet: true,
        ..DemoOptions::default()
    };
    let summary = run_demo(&options)
        .await
        .expect("the demo environment starts");
    let steps: Vec<String> = summary
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| line(i + 1, s))
        .collect();
    let log = steps.join("\n");
    assert!(summary.passed(), "{}\n{log}", summary.line());
    // The scenario's own checks, by name: the count, the refusal, the reference,
    // the auth wall.
    for check in [
        "the count is 3",
        "the wrong policy is refused",
        "the claim is accepted",
        "the portal is behind an auth_wall",
    ] {
        assert!(
            summary
                .steps
                .iter()
                .any(|s| s.action == "check" && s.target == check && s.ok),
            "check `{check}` missing or failed:\n{log}"
        );
    }
    assert!(summary.extract_bytes > 0, "{log}");
}
