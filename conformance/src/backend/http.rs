//! The backend's HTTP API as the harness uses it: `POST /v1/act`, `GET /v1/status`,
//! always read as raw JSON with the HTTP status.

use std::time::Duration;

use serde_json::Value;

/// A client of `/v1/act` and `/v1/status` with the bearer token.
#[derive(Debug, Clone)]
pub struct HttpApi {
    client: reqwest::Client,
    base: String,
    token: String,
}

/// The HTTP status and the JSON body (`Value::Null` when the body is not JSON).
pub type HttpAnswer = (u16, Value);

impl HttpApi {
    /// A client of the API at `base` (e.g. `http://127.0.0.1:9333`).
    pub fn new(base: &str, token: &str) -> Self {
        let client = reqwest::Client::builder()
            // Longer than every action deadline (navigation: 30 s), so the
            // backend's own `timeout` answer is what the caller sees.
            .timeout(Duration::from_secs(60))
            .build()
            .expect("a plain HTTP client always builds");
        HttpApi {
            client,
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        }
    }

    /// The bearer token this client sends.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// `POST /v1/act` with the token.
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn act(&self, action: &Value) -> Result<HttpAnswer, String> {
        self.act_with(action, Some(&self.token), None).await
    }

    /// `POST /v1/act` with the token as the client `client` (header
    /// `Browser-Bridge-Client`, PROTOCOL.md §5 "Clients").
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn act_as(&self, client: &str, action: &Value) -> Result<HttpAnswer, String> {
        let request = self
            .client
            .post(format!("{}/v1/act", self.base))
            .header("browser-bridge-client", client)
            .bearer_auth(&self.token)
            .json(action);
        answer(request).await
    }

    /// `POST /v1/act` with a chosen bearer token (none when `None`) and `Origin`.
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn act_with(
        &self,
        action: &Value,
        token: Option<&str>,
        origin: Option<&str>,
    ) -> Result<HttpAnswer, String> {
        let mut request = self
            .client
            .post(format!("{}/v1/act", self.base))
            .json(action);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        answer(request).await
    }

    /// `GET /v1/hello?nonce=<nonce>` without the token (PROTOCOL.md §2.1); `nonce`
    /// goes into the query as given.
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn hello(&self, nonce: &str) -> Result<HttpAnswer, String> {
        Ok(self.hello_at(nonce).await?.0)
    }

    /// [`Self::hello`] and the address that answered (`SocketAddr`'s text), which
    /// the proof covers (PROTOCOL.md §2.1).
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn hello_at(&self, nonce: &str) -> Result<(HttpAnswer, String), String> {
        let response = self
            .client
            .get(format!("{}/v1/hello?nonce={nonce}", self.base))
            .send()
            .await
            .map_err(|e| format!("HTTP request failed: {e}"))?;
        let address = response
            .remote_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("reading the HTTP body: {e}"))?;
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok(((status, body), address))
    }

    /// `GET /v1/status` with the token.
    ///
    /// # Errors
    /// The request could not be sent or its body read.
    pub async fn status(&self) -> Result<HttpAnswer, String> {
        let request = self
            .client
            .get(format!("{}/v1/status", self.base))
            .bearer_auth(&self.token);
        answer(request).await
    }
}

async fn answer(request: reqwest::RequestBuilder) -> Result<HttpAnswer, String> {
    let response = request
        .send()
        .await
        .map_err(|e| format!("HTTP request failed: {e}"))?;
    let status = response.status().as_u16();
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("reading the HTTP body: {e}"))?;
    Ok((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
}
