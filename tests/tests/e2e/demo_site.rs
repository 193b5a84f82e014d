//! The bundled demo site over real HTTP (no browser): pages, assets, the portal's
//! login gate and its sign-in.

use browser_bridge_tests::demo::site::{DEMO_EMAIL, DEMO_PASSWORD, DemoSite};

/// An `application/x-www-form-urlencoded` sign-in body.
fn credentials(email: &str, password: &str) -> String {
    let encode = |text: &str| text.replace('@', "%40").replace(' ', "+");
    format!("email={}&password={}", encode(email), encode(password))
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

#[tokio::test]
async fn pages_and_assets_are_served() {
    let site = DemoSite::start().await.unwrap();
    let client = client();
    for (path, needle) in [
        ("/", "Acme demo site"),
        ("/todo/", "id=\"new-item\""),
        ("/todo/app.js", "items"),
        ("/claim/", "Policy number"),
        ("/claim/app.js", "P-1234"),
        ("/style.css", "--accent"),
        ("/portal/login", "type=\"password\""),
    ] {
        let response = client.get(site.url(path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains(needle), "{path} lacks {needle}");
    }
    let missing = client.get(site.url("/nope")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test]
async fn the_portal_is_behind_a_login_gate() {
    let site = DemoSite::start().await.unwrap();
    let client = client();
    let gate = client.get(site.url("/portal")).send().await.unwrap();
    assert!(gate.status().is_redirection(), "{}", gate.status());
    assert_eq!(gate.headers()["location"], "/portal/login");

    let wrong = client
        .post(site.url("/portal/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(credentials(DEMO_EMAIL, "guess"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(wrong.text().await.unwrap().contains("do not match"));

    let right = client
        .post(site.url("/portal/login"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(credentials(DEMO_EMAIL, DEMO_PASSWORD))
        .send()
        .await
        .unwrap();
    assert!(right.status().is_redirection());
    let cookie = right.headers()["set-cookie"].to_str().unwrap();
    let session = cookie.split(';').next().unwrap().to_owned();
    let portal = client
        .get(site.url("/portal"))
        .header("cookie", session)
        .send()
        .await
        .unwrap();
    assert_eq!(portal.status(), 200);
    assert!(portal.text().await.unwrap().contains("Your policies"));
}
