// The console page: polls /console/api/state, runs tasks and follows their
// steps over SSE. No framework, no external resource (CSP default-src 'self').
"use strict";

const $ = (id) => document.getElementById(id);
let tokens = { prompt: 0, completion: 0 };
let following = null;

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

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
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

function follow(id) {
  const source = new EventSource(`/console/api/runs/${encodeURIComponent(id)}/events`);
  following = source;
  const end = () => { source.close(); following = null; poll(); };
  source.addEventListener("step", (m) => {
    const e = JSON.parse(m.data);
    if (e.event === "tool_call") addTokens(e.usage);
    const text = stepText(e);
    if (text) line($("steps"), text, e.error ? "error" : "");
  });
  source.addEventListener("done", (m) => {
    const report = JSON.parse(m.data);
    const r = $("report");
    r.hidden = false;
    r.className = report.success ? "" : "error";
    r.textContent = `${report.success ? "Done" : "Not done"}: ${report.answer || ""}`;
    if (report.usage) {
      tokens = { prompt: 0, completion: 0 };
      addTokens(report.usage);
    }
    end();
  });
  source.addEventListener("error", (m) => {
    if (m.data) {
      const r = $("report");
      r.hidden = false;
      r.className = "error";
      r.textContent = `Error: ${JSON.parse(m.data).message}`;
    }
    end();
  });
}

async function run() {
  const task = $("task-text").value.trim();
  if (!task) return;
  $("steps").replaceChildren();
  $("report").hidden = true;
  tokens = { prompt: 0, completion: 0 };
  $("tokens").textContent = "";
  $("run").disabled = true;
  try {
    const { id } = await api("/console/api/runs", { task });
    follow(id);
  } catch (e) {
    const r = $("report");
    r.hidden = false;
    r.className = "error";
    r.textContent = `Error: ${e.message}`;
    $("run").disabled = false;
  }
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

$("run").addEventListener("click", run);
$("stop-all").addEventListener("click", stopAll);
poll();
setInterval(poll, 2000);
