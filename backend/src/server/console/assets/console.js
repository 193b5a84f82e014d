// The console page: trades the link's #code for a session (kept in
// sessionStorage, which unlike cookies is private to this scheme, host and
// port), polls /console/api/state, runs tasks and follows their steps over SSE
// read with fetch (EventSource cannot send the session header). No framework,
// no external resource (CSP default-src 'self').
"use strict";

const $ = (id) => document.getElementById(id);
const HEADER = "Browser-Bridge-Console";
const KEY = "browser-bridge-console";
let session = sessionStorage.getItem(KEY);
let tokens = { prompt: 0, completion: 0 };
let following = null;
let timer = null;

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  row.appendChild(td);
}

function fill(tbody, rows) {
  tbody.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement("tr");
    cells.forEach((c) => cell(tr, c));
    return tr;
  }));
}

function line(list, text, cls) {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  list.appendChild(li);
  return li;
}

function since(ms) {
  return ms ? new Date(ms).toLocaleString() : "";
}

function headers() {
  return session ? { [HEADER]: session } : {};
}

// Without a session, or once the server forgets it (401): the locked view.
function lock(why) {
  session = null;
  sessionStorage.removeItem(KEY);
  if (timer !== null) clearInterval(timer);
  timer = null;
  $("console").hidden = true;
  $("locked").hidden = false;
  $("locked-why").textContent = why || "";
}

async function api(path, body) {
  const init = { headers: headers() };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  const message = (data.error && data.error.message) || response.statusText;
  if (response.status === 401) lock(message);
  if (!response.ok) throw new Error(message);
  return data;
}

function showState(state) {
  const status = state.status;
  $("conn").textContent = status.connected ? `${status.browsers.length} browser(s) connected` : "no browser connected";
  $("conn").className = status.connected ? "ok" : "off";
  fill($("browsers"), status.browsers.map((b) => [b.name, b.browserVersion || "", since(b.connectedAt)]));
  const byTab = new Map((state.tabs || []).filter((t) => t.session).map((t) => [t.tabId, t]));
  const sessions = status.sessions.map((s) => {
    const tab = byTab.get(s.tabId) || {};
    return [s.tabId, tab.title || "", tab.url || s.url, tab.client || ""];
  });
  fill($("sessions"), sessions);
  const events = $("events");
  events.replaceChildren();
  status.events.slice().reverse().forEach((e) => line(events, JSON.stringify(e)));
  const runner = state.runner;
  $("run").disabled = !runner.enabled || following !== null;
  $("task-text").disabled = !runner.enabled;
  $("runner-note").hidden = runner.enabled;
  $("runner-note").textContent = runner.reason || "";
}

async function poll() {
  try {
    showState(await api("/console/api/state"));
  } catch (e) {
    $("conn").textContent = `console: ${e.message}`;
    $("conn").className = "off";
  }
}

function stepText(e) {
  switch (e.event) {
    case "tool_call": return `${e.step} ${e.action} ${e.target || ""}`.trim();
    case "tool_result": return e.error ? `✗ ${e.error} · ${e.ms} ms` : `→ ${e.outcome} · ${e.ms} ms`;
    case "reflection": return `↺ reflection after: ${e.failure}`;
    case "server_withdrawn": return `! MCP server ${e.server} withdrawn: ${e.reason}`;
    default: return null;
  }
}

function addTokens(usage) {
  if (!usage) return;
  tokens.prompt += usage.promptTokens || 0;
  tokens.completion += usage.completionTokens || 0;
  $("tokens").textContent = `tokens: ${tokens.prompt} prompt + ${tokens.completion} completion`;
}

function showError(message) {
  const r = $("report");
  r.hidden = false;
  r.className = "error";
  r.textContent = `Error: ${message}`;
}

function onEvent(kind, e) {
  if (kind === "step") {
    if (e.event === "tool_call") addTokens(e.usage);
    const text = stepText(e);
    if (text) line($("steps"), text, e.error ? "error" : "");
  } else if (kind === "done") {
    const r = $("report");
    r.hidden = false;
    r.className = e.success ? "" : "error";
    r.textContent = `${e.success ? "Done" : "Not done"}: ${e.answer || ""}`;
    if (e.usage) {
      tokens = { prompt: 0, completion: 0 };
      addTokens(e.usage);
    }
  } else if (kind === "error") {
    showError(e.message);
  }
}

// Reads the run's text/event-stream: frames split by a blank line, each with
// `event:` and `data:` lines (keep-alive comments have no data).
async function follow(id) {
  following = id;
  try {
    const response = await fetch(`/console/api/runs/${encodeURIComponent(id)}/events`, { headers: headers() });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      const message = (data.error && data.error.message) || response.statusText;
      if (response.status === 401) lock(message);
      throw new Error(message);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let at;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        let kind = "message";
        const data = [];
        for (const l of frame.split("\n")) {
          if (l.startsWith("event:")) kind = l.slice(6).trim();
          else if (l.startsWith("data:")) data.push(l.slice(5).replace(/^ /, ""));
        }
        if (data.length) onEvent(kind, JSON.parse(data.join("\n")));
      }
    }
  } catch (e) {
    showError(e.message);
  }
  following = null;
  poll();
}

async function run() {
  const task = $("task-text").value.trim();
  if (!task) return;
  $("steps").replaceChildren();
  $("report").hidden = true;
  tokens = { prompt: 0, completion: 0 };
  $("tokens").textContent = "";
  $("run").disabled = true;
  let id;
  try {
    id = (await api("/console/api/runs", { task })).id;
  } catch (e) {
    showError(e.message);
    $("run").disabled = false;
    return;
  }
  follow(id);
}

async function stopAll() {
  try {
    const out = await api("/console/api/stop_all", {});
    line($("steps"), `Stop all: ${out.stoppedRuns} run(s) stopped, ${out.closedTabs.length} tab(s) closed`);
  } catch (e) {
    line($("steps"), `Stop all failed: ${e.message}`, "error");
  }
  poll();
}

// The link's code sits in the fragment (never sent to a server): it is taken
// off the address at once, then spent for a session.
async function start() {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (code) {
    try {
      session = null;
      session = (await api("/console/api/session", { code })).session;
      sessionStorage.setItem(KEY, session);
    } catch (e) {
      lock(e.message);
      return;
    }
  }
  if (!session) {
    lock("");
    return;
  }
  $("locked").hidden = true;
  $("console").hidden = false;
  $("run").addEventListener("click", run);
  $("stop-all").addEventListener("click", stopAll);
  poll();
  timer = setInterval(poll, 2000);
}

start();
