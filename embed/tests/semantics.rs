//! The property task memory relies on: a task written in English finds its
//! Chinese counterpart as the nearest neighbour, and the other way round.

mod common;

use browser_bridge_embed::cosine;

/// (English, Chinese) task pairs, as a person would write them.
const PAIRS: [(&str, &str); 8] = [
    (
        "log in to the GitHub account and star the repository",
        "登录 GitHub 账号并给仓库加星",
    ),
    (
        "download last month's invoice from the billing page",
        "从账单页面下载上个月的发票",
    ),
    (
        "book a table for two at an Italian restaurant tonight",
        "今晚在意大利餐厅订一张两人桌",
    ),
    (
        "search for cheap flights from Beijing to London in May",
        "搜索五月份从北京到伦敦的便宜机票",
    ),
    (
        "reply to my manager's email about the project deadline",
        "回复经理关于项目截止日期的邮件",
    ),
    (
        "add a wireless mouse to the shopping cart and check out",
        "把无线鼠标加入购物车并结账",
    ),
    (
        "change my account password in the security settings",
        "在安全设置里修改我的账户密码",
    ),
    (
        "find the weather forecast for Shanghai this weekend",
        "查一下上海这个周末的天气预报",
    ),
];

#[test]
fn each_task_finds_its_translation_among_all_tasks_of_the_other_language() {
    let e = common::embedder();
    let en: Vec<Vec<f32>> = PAIRS.iter().map(|(a, _)| e.embed(a)).collect();
    let zh: Vec<Vec<f32>> = PAIRS.iter().map(|(_, b)| e.embed(b)).collect();
    let nearest = |q: &[f32], pool: &[Vec<f32>]| {
        (0..pool.len())
            .max_by(|&i, &j| cosine(q, &pool[i]).total_cmp(&cosine(q, &pool[j])))
            .unwrap()
    };
    let (mut related, mut unrelated) = (Vec::new(), Vec::new());
    for i in 0..PAIRS.len() {
        assert_eq!(
            nearest(&en[i], &zh),
            i,
            "English {:?} → {:?}",
            PAIRS[i].0,
            PAIRS[nearest(&en[i], &zh)].1
        );
        assert_eq!(
            nearest(&zh[i], &en),
            i,
            "Chinese {:?} → {:?}",
            PAIRS[i].1,
            PAIRS[nearest(&zh[i], &en)].0
        );
        for (j, zh_j) in zh.iter().enumerate() {
            let c = cosine(&en[i], zh_j);
            if i == j {
                related.push(c)
            } else {
                unrelated.push(c)
            }
        }
    }
    let stats = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        (v[0], v[v.len() / 2], v[v.len() - 1])
    };
    let (r, u) = (stats(&mut related), stats(&mut unrelated));
    eprintln!("related (min, median, max) {r:?}; unrelated {u:?}");
    assert!(
        r.0 > u.2,
        "every related pair above every unrelated one: {r:?} vs {u:?}"
    );
}

#[test]
fn a_paraphrase_is_closer_than_another_task_in_the_same_language() {
    let e = common::embedder();
    let q = e.embed("star the GitHub repository after logging in");
    let same = e.embed(PAIRS[0].0);
    let other = e.embed(PAIRS[1].0);
    assert!(
        cosine(&q, &same) > cosine(&q, &other) + 0.2,
        "{} vs {}",
        cosine(&q, &same),
        cosine(&q, &other)
    );
    let q = e.embed("登录后给这个 GitHub 项目点星");
    assert!(cosine(&q, &e.embed(PAIRS[0].1)) > cosine(&q, &e.embed(PAIRS[1].1)) + 0.2);
}
