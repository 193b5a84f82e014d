//! `chrome.*` extension APIs bound with `#[wasm_bindgen]` (they are not in web-sys).
//!
//! Every promise-returning MV3 call is declared with `catch`, so a missing API or a
//! synchronous throw is an `Err(JsValue)` instead of a trap; [`call`] awaits the
//! promise and turns a rejection into a [`ChromeError`] carrying its message.
//! Events are not bound here: the JS loader (`static/background.js`) registers
//! every listener synchronously in the worker's first turn and forwards them to
//! [`crate::Worker::handle_event`].

use js_sys::{Array, Object, Promise, Reflect};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = attach)]
    fn debugger_attach(target: &JsValue, version: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = detach)]
    fn debugger_detach(target: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "debugger"], js_name = sendCommand)]
    fn debugger_send_command(
        target: &JsValue,
        method: &str,
        params: &JsValue,
    ) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = get)]
    fn tabs_get_raw(tab_id: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = query)]
    fn tabs_query_raw(query: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    fn tabs_create_raw(props: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    fn tabs_update_raw(tab_id: f64, props: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = remove)]
    fn tabs_remove_raw(tab_id: f64) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = create)]
    fn windows_create_raw(props: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = get)]
    fn windows_get_raw(window_id: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getLastFocused)]
    fn windows_get_last_focused_raw(query: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = update)]
    fn windows_update_raw(window_id: f64, props: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = get)]
    fn storage_get_raw(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = set)]
    fn storage_set_raw(items: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = get)]
    fn session_storage_get_raw(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "session"], js_name = set)]
    fn session_storage_set_raw(items: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules)]
    fn update_session_rules_raw(options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "alarms"], js_name = create)]
    fn alarms_create_raw(name: &str, info: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "idle"], js_name = setDetectionInterval)]
    fn idle_set_detection_interval_raw(seconds: u32) -> Result<(), JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "downloads"], js_name = search)]
    fn downloads_search_raw(query: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "downloads"], js_name = cancel)]
    fn downloads_cancel_raw(id: f64) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "downloads"], js_name = removeFile)]
    fn downloads_remove_file_raw(id: f64) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_get_manifest() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn runtime_get_url_raw(path: &str) -> Result<String, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = create)]
    fn notifications_create_raw(id: &str, options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = clear)]
    fn notifications_clear_raw(id: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "notifications"], js_name = getAll)]
    fn notifications_get_all_raw() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeText)]
    fn action_set_badge_text_raw(details: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "action"], js_name = setBadgeBackgroundColor)]
    fn action_set_badge_background_color_raw(details: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(js_namespace = crypto, js_name = randomUUID)]
    fn random_uuid_raw() -> String;
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values_raw(array: &js_sys::Uint8Array);
}

/// A rejected or missing `chrome.*` call; `message` is the JS error's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChromeError {
    /// `lastError.message` / the thrown error's message.
    pub message: String,
}

impl std::fmt::Display for ChromeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<JsValue> for ChromeError {
    fn from(value: JsValue) -> Self {
        ChromeError {
            message: js_error_message(&value),
        }
    }
}

/// The `message` of a JS error (or its string form).
pub fn js_error_message(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    Reflect::get(value, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// Awaits a `catch`-declared chrome.* promise.
///
/// # Errors
/// The rejection (or synchronous throw) as a [`ChromeError`].
pub async fn call(promise: Result<Promise, JsValue>) -> Result<JsValue, ChromeError> {
    crate::timing::mark("chrome");
    let answer = JsFuture::from(promise?).await;
    crate::timing::mark("chrome_recv");
    Ok(answer?)
}

/// serde → plain JS object via `JSON.parse` (never `Map`s, which chrome.* refuses).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    let text = serde_json::to_string(value).expect("serialisable");
    js_sys::JSON::parse(&text).expect("valid JSON")
}

/// JS value → serde, through the browser's native `JSON.stringify` (fast for big
/// CDP results: serde-wasm-bindgen took ~150 ms more on a 3.6 MB AX tree).
///
/// # Errors
/// When the value is not JSON or does not fit `T`.
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, ChromeError> {
    if value.is_undefined() {
        return serde_json::from_str("null").map_err(|e| ChromeError {
            message: e.to_string(),
        });
    }
    let text = js_sys::JSON::stringify(value).map_err(ChromeError::from)?;
    crate::timing::mark("stringified");
    let text: String = text.into();
    crate::timing::mark("copied");
    let decoded = serde_json::from_str(&text).map_err(|e| ChromeError {
        message: format!("unexpected shape: {e}"),
    });
    crate::timing::mark("parsed");
    decoded
}

/// `{tabId}`: a chrome.debugger target.
pub fn debuggee(tab_id: i64) -> JsValue {
    let target = Object::new();
    Reflect::set(&target, &"tabId".into(), &JsValue::from_f64(tab_id as f64)).ok();
    target.into()
}

/// `chrome.debugger.attach({tabId}, "1.3")`.
pub async fn attach(tab_id: i64) -> Result<(), ChromeError> {
    call(debugger_attach(&debuggee(tab_id), "1.3"))
        .await
        .map(|_| ())
}

/// `chrome.debugger.detach({tabId})`.
pub async fn detach(tab_id: i64) -> Result<(), ChromeError> {
    call(debugger_detach(&debuggee(tab_id))).await.map(|_| ())
}

/// `chrome.debugger.sendCommand({tabId, sessionId?}, method, params)`, without
/// a timeout (see [`crate::cdp`] for the typed, timed version every caller
/// should use). `session` addresses a child target of the tab (an out-of-process
/// iframe) attached through `Target.setAutoAttach` with `flatten`.
pub async fn send_command(
    tab_id: i64,
    session: Option<&str>,
    method: &str,
    params: &JsValue,
) -> Result<JsValue, ChromeError> {
    let target = debuggee(tab_id);
    if let Some(session) = session {
        Reflect::set(&target, &"sessionId".into(), &session.into()).ok();
    }
    call(debugger_send_command(&target, method, params)).await
}

/// A `chrome.tabs.Tab`, the fields we read.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tab {
    /// Tab id (absent for some devtools tabs).
    pub id: Option<i64>,
    /// Window id.
    pub window_id: i64,
    /// URL (with the `tabs` permission).
    #[serde(default)]
    pub url: String,
    /// URL being loaded, before it commits.
    #[serde(default)]
    pub pending_url: Option<String>,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Active tab of its window.
    #[serde(default)]
    pub active: bool,
    /// The tab that opened this one (`window.open`, `target=_blank`).
    #[serde(default)]
    pub opener_tab_id: Option<i64>,
    /// `loading` or `complete` (`chrome.tabs.TabStatus`).
    #[serde(default)]
    pub status: Option<String>,
}

/// A `chrome.windows.Window`, the fields we read.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// Window id.
    pub id: i64,
    /// `normal`, `minimized`, `maximized`, `fullscreen`.
    #[serde(default)]
    pub state: String,
    /// Its tabs (when requested).
    #[serde(default)]
    pub tabs: Vec<Tab>,
}

/// `chrome.tabs.get(tabId)`.
pub async fn tabs_get(tab_id: i64) -> Result<Tab, ChromeError> {
    from_js(&call(tabs_get_raw(tab_id as f64)).await?)
}

/// `chrome.tabs.query(query)`.
pub async fn tabs_query(query: &serde_json::Value) -> Result<Vec<Tab>, ChromeError> {
    from_js(&call(tabs_query_raw(&to_js(query))).await?)
}

/// `chrome.tabs.query(query)` sent now, awaited later: the browser answers from
/// its tabs as they were when the call was made (chrome.* calls are handled in
/// order, so a `chrome.debugger.sendCommand` made after it comes after).
pub fn tabs_query_now(
    query: &serde_json::Value,
) -> impl std::future::Future<Output = Result<Vec<Tab>, ChromeError>> + 'static {
    let promise = tabs_query_raw(&to_js(query));
    async move { from_js(&call(promise).await?) }
}

/// `chrome.tabs.create(props)`.
pub async fn tabs_create(props: &serde_json::Value) -> Result<Tab, ChromeError> {
    from_js(&call(tabs_create_raw(&to_js(props))).await?)
}

/// `chrome.tabs.update(tabId, props)`.
pub async fn tabs_update(tab_id: i64, props: &serde_json::Value) -> Result<(), ChromeError> {
    call(tabs_update_raw(tab_id as f64, &to_js(props)))
        .await
        .map(|_| ())
}

/// `chrome.tabs.remove(tabId)`.
pub async fn tabs_remove(tab_id: i64) -> Result<(), ChromeError> {
    call(tabs_remove_raw(tab_id as f64)).await.map(|_| ())
}

/// `chrome.windows.create(props)`.
pub async fn windows_create(props: &serde_json::Value) -> Result<Window, ChromeError> {
    from_js(&call(windows_create_raw(&to_js(props))).await?)
}

/// `chrome.windows.get(windowId)`.
pub async fn windows_get(window_id: i64) -> Result<Window, ChromeError> {
    from_js(&call(windows_get_raw(window_id as f64)).await?)
}

/// `chrome.windows.getLastFocused({windowTypes: ["normal"]})`.
pub async fn windows_last_focused() -> Result<Window, ChromeError> {
    let query = serde_json::json!({ "windowTypes": ["normal"] });
    from_js(&call(windows_get_last_focused_raw(&to_js(&query))).await?)
}

/// `chrome.windows.update(windowId, props)`.
pub async fn windows_update(window_id: i64, props: &serde_json::Value) -> Result<(), ChromeError> {
    call(windows_update_raw(window_id as f64, &to_js(props)))
        .await
        .map(|_| ())
}

/// `chrome.storage.local.get(keys)` as a JSON object.
pub async fn storage_get(keys: &[&str]) -> Result<serde_json::Value, ChromeError> {
    from_js(&call(storage_get_raw(&to_js(keys))).await?)
}

/// `chrome.storage.local.set(items)`.
pub async fn storage_set(items: &serde_json::Value) -> Result<(), ChromeError> {
    call(storage_set_raw(&to_js(items))).await.map(|_| ())
}

/// `chrome.storage.session.get(keys)` as a JSON object: memory kept by the browser
/// across service-worker restarts, cleared when the browser or the extension
/// restarts.
pub async fn session_storage_get(keys: &[&str]) -> Result<serde_json::Value, ChromeError> {
    from_js(&call(session_storage_get_raw(&to_js(keys))).await?)
}

/// `chrome.storage.session.set(items)`.
pub async fn session_storage_set(items: &serde_json::Value) -> Result<(), ChromeError> {
    call(session_storage_set_raw(&to_js(items)))
        .await
        .map(|_| ())
}

/// A `chrome.downloads.DownloadItem`, the fields we read.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DownloadItem {
    /// `chrome.downloads`' id.
    pub id: u64,
    /// The URL it started from, before redirects.
    pub url: String,
    /// The URL after redirects.
    pub final_url: String,
    /// Absolute path of the file; `""` until Chrome chose it.
    pub filename: String,
    /// The MIME type the server declared.
    pub mime: String,
    /// `in_progress`, `interrupted` or `complete`.
    pub state: String,
    /// Chrome's `InterruptReason` when interrupted.
    pub error: Option<String>,
    /// Bytes received so far.
    pub bytes_received: f64,
    /// Chrome's danger verdict (`safe`, `file`, `accepted` …).
    pub danger: String,
    /// Whether it is paused.
    pub paused: bool,
}

/// `chrome.downloads.search(query)`.
pub async fn downloads_search(query: &serde_json::Value) -> Result<Vec<DownloadItem>, ChromeError> {
    from_js(&call(downloads_search_raw(&to_js(query))).await?)
}

/// `chrome.downloads.search({id})`: the item, `None` when Chrome forgot it.
pub async fn download_get(id: u64) -> Option<DownloadItem> {
    let query = serde_json::json!({ "id": id });
    downloads_search(&query).await.ok()?.into_iter().next()
}

/// `chrome.downloads.cancel(id)`: stops an in-progress download (Chrome
/// deletes its partial file); nothing for one that ended.
pub async fn downloads_cancel(id: u64) -> Result<(), ChromeError> {
    call(downloads_cancel_raw(id as f64)).await.map(|_| ())
}

/// `chrome.downloads.removeFile(id)`: deletes a complete download's file.
pub async fn downloads_remove_file(id: u64) -> Result<(), ChromeError> {
    call(downloads_remove_file_raw(id as f64)).await.map(|_| ())
}

/// `chrome.declarativeNetRequest.updateSessionRules({removeRuleIds, addRules})`:
/// one atomic update of the extension's session rules (kept across worker
/// restarts, cleared when the browser or the extension restarts). Issued to
/// Chrome when this is called, not when the future is polled, so updates apply in
/// call order; the future resolves once the rules apply.
pub fn update_session_rules(
    options: &serde_json::Value,
) -> impl Future<Output = Result<(), ChromeError>> + use<> {
    let promise = update_session_rules_raw(&to_js(options));
    async move { call(promise).await.map(|_| ()) }
}

/// `chrome.alarms.create(name, {periodInMinutes})`.
pub async fn alarms_create(name: &str, period_minutes: f64) -> Result<(), ChromeError> {
    let info = serde_json::json!({ "periodInMinutes": period_minutes });
    call(alarms_create_raw(name, &to_js(&info)))
        .await
        .map(|_| ())
}

/// `chrome.idle.setDetectionInterval(seconds)`.
pub fn idle_set_detection_interval(seconds: u32) {
    if let Err(e) = idle_set_detection_interval_raw(seconds) {
        log(&format!(
            "idle.setDetectionInterval failed: {}",
            js_error_message(&e)
        ));
    }
}

/// `chrome.notifications.create(id, options)` (an existing id is replaced).
pub async fn notifications_create(
    id: &str,
    options: &serde_json::Value,
) -> Result<(), ChromeError> {
    call(notifications_create_raw(id, &to_js(options)))
        .await
        .map(|_| ())
}

/// `chrome.notifications.clear(id)`.
pub async fn notifications_clear(id: &str) -> Result<(), ChromeError> {
    call(notifications_clear_raw(id)).await.map(|_| ())
}

/// The ids of `chrome.notifications.getAll()`.
pub async fn notifications_ids() -> Result<Vec<String>, ChromeError> {
    let all: serde_json::Map<String, serde_json::Value> =
        from_js(&call(notifications_get_all_raw()).await?)?;
    Ok(all.into_iter().map(|(id, _)| id).collect())
}

/// `chrome.action.setBadgeText({text})` and, when `text` is not empty,
/// `setBadgeBackgroundColor({color})`: the toolbar icon's badge, on every tab.
pub async fn action_set_badge(text: &str, color: &str) -> Result<(), ChromeError> {
    call(action_set_badge_text_raw(&to_js(
        &serde_json::json!({ "text": text }),
    )))
    .await?;
    if !text.is_empty() {
        let color = serde_json::json!({ "color": color });
        call(action_set_badge_background_color_raw(&to_js(&color))).await?;
    }
    Ok(())
}

/// `chrome.runtime.getURL(path)`: the extension's own resource.
pub fn runtime_url(path: &str) -> String {
    runtime_get_url_raw(path).unwrap_or_else(|_| path.to_owned())
}

/// `chrome.runtime.getManifest().version`.
pub fn extension_version() -> String {
    runtime_get_manifest()
        .ok()
        .and_then(|m| Reflect::get(&m, &"version".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned())
}

/// `N` bytes from `crypto.getRandomValues()` (a CSPRNG, as the handshake nonces
/// of PROTOCOL.md §2 need).
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let array = js_sys::Uint8Array::new_with_length(N as u32);
    get_random_values_raw(&array);
    let mut bytes = [0u8; N];
    array.copy_to(&mut bytes);
    bytes
}

/// `crypto.randomUUID()`.
pub fn random_uuid() -> String {
    random_uuid_raw()
}

/// `navigator.userAgent` of the worker.
pub fn user_agent() -> Option<String> {
    let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    global.navigator().user_agent().ok()
}

/// `navigator.userAgentData.brands` of the worker as `(brand, version)` pairs
/// (empty where the browser has no `userAgentData`).
pub fn user_agent_brands() -> Vec<(String, String)> {
    let global = js_sys::global();
    let brands = Reflect::get(&global, &"navigator".into())
        .and_then(|n| Reflect::get(&n, &"userAgentData".into()))
        .and_then(|d| Reflect::get(&d, &"brands".into()))
        .ok()
        .filter(|b| b.is_object())
        .map(|b| Array::from(&b))
        .unwrap_or_default();
    let field = |item: &JsValue, key: &str| {
        Reflect::get(item, &key.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    brands
        .iter()
        .map(|item| (field(&item, "brand"), field(&item, "version")))
        .collect()
}

/// Milliseconds since the Unix epoch (`Date.now()`).
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// `console.log` with a prefix (the only way to see worker logs headless is
/// `--enable-logging=stderr`).
pub fn log(message: &str) {
    web_sys::console::log_1(&format!("browser-bridge: {message}").into());
}
