//! The recall floor on the real model (USE multilingual v3, installed by
//! `cargo xtask install-model`): a past run of a related task, in either
//! language, scores above [`DEFAULT_FLOOR`]; one of an unrelated task below.

use browser_bridge_agent::memory::recall::DOMAIN_BONUS;
use browser_bridge_agent::memory::{DEFAULT_FLOOR, Embed, cosine};
use browser_bridge_embed::Embedder;

/// As recall scores: the tasks' cosine, plus the bonus on the same domain.
fn score(model: &Embedder, (a, da): (&str, &str), (b, db): (&str, &str)) -> f32 {
    let bonus = if da == db { DOMAIN_BONUS } else { 0.0 };
    cosine(&Embed::embed(model, a), &Embed::embed(model, b)) + bonus
}

#[test]
fn related_tasks_pass_the_floor_in_either_language_and_unrelated_ones_do_not() {
    let model = Embedder::load(&Embedder::locate().expect("the model is installed")).unwrap();
    let claim_en = ("file a claim for policy P-1234", "demo.test");
    let related = [
        (
            "file a claim for policy P-9876 and tell me the reference",
            "demo.test",
        ),
        ("为保单 P-1234 提交理赔", "demo.test"),
        ("submit an insurance claim for policy P-5555", "demo.test"),
        // The same task on another site.
        ("file a claim for my car insurance", "insure.example"),
        // Short queries in the other language, no site (`memory search`).
        ("提交理赔", ""),
        ("理赔", ""),
        ("submit an insurance claim", ""),
    ];
    let unrelated = [
        ("what is the weather in Paris tomorrow", "weather.test"),
        ("明天巴黎的天气怎么样", "weather.test"),
        ("star the browser-bridge repository on GitHub", "github.com"),
        ("buy two tickets for the concert on Friday", "tickets.test"),
        // The same site, another task.
        ("change the email address of my account", "demo.test"),
        ("天气预报", ""),
        ("更改我的账户邮箱", "demo.test"),
    ];
    let mut report = String::new();
    for r in related {
        let s = score(&model, claim_en, r);
        report.push_str(&format!("related {s:.3} {r:?}\n"));
    }
    for u in unrelated {
        let s = score(&model, claim_en, u);
        report.push_str(&format!("unrelated {s:.3} {u:?}\n"));
    }
    let zh = ("为保单 P-1234 提交理赔", "demo.test");
    for r in [claim_en, ("提交保险理赔", "demo.test")] {
        let s = score(&model, zh, r);
        report.push_str(&format!("related-zh {s:.3} {r:?}\n"));
    }
    for u in unrelated {
        let s = score(&model, zh, u);
        report.push_str(&format!("unrelated-zh {s:.3} {u:?}\n"));
    }
    for line in report.lines() {
        let s: f32 = line.split(' ').nth(1).unwrap().parse().unwrap();
        if line.starts_with("related") {
            assert!(s >= DEFAULT_FLOOR, "{line}\n{report}");
        } else {
            assert!(s < DEFAULT_FLOOR, "{line}\n{report}");
        }
    }
}
