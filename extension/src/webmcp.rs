//! The WebMCP shim (PROTOCOL.md §9): session tabs get `document.modelContext`
//! (and the older `navigator.modelContext` spelling, the same object) before
//! page scripts run, backed by a registry held in the page.
//!
//! The shim gives the page nothing of the extension: no message channel, no
//! callback. The extension reads the registry itself with `Runtime.evaluate`
//! ([`crate::page_tools`]), through the one symbol-keyed property of the
//! context object. A browser (or a polyfill) that already provides
//! `modelContext` is left alone; its tools are not listed.

/// Main-world script installed with `Page.addScriptToEvaluateOnNewDocument`
/// (`runImmediately`) at attach. Idempotent: a second run (a session taken back
/// after a worker restart) finds `modelContext` and does nothing.
///
/// The surface follows the W3C WebML CG WebMCP draft: `registerTool(tool,
/// {signal}?)` (returns a promise; throws on a nameless tool, a missing
/// `execute`, or a duplicate name), `unregisterTool(name)`,
/// `provideContext({tools})` (replaces all), `clearContext()`; `execute(input,
/// client)` gets a `client` whose `requestUserInteraction(callback)` runs the
/// callback.
pub const SHIM: &str = r#"(() => {
  if ('modelContext' in document || 'modelContext' in navigator) return;
  const tools = new Map();
  const client = Object.freeze({ requestUserInteraction: async (callback) => callback() });
  const add = (tool) => {
    if (!tool || typeof tool !== 'object') throw new TypeError('registerTool: a tool object is required');
    const name = String(tool.name ?? '');
    if (!name) throw new TypeError('registerTool: the tool needs a name');
    if (typeof tool.execute !== 'function') throw new TypeError(`registerTool: tool "${name}" needs an execute function`);
    if (tools.has(name)) throw new DOMException(`a tool named "${name}" is already registered`, 'InvalidStateError');
    const execute = tool.execute;
    tools.set(name, { name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema,
      execute: (input) => execute.call(tool, input, client) });
    return name;
  };
  const context = {
    registerTool(tool, options) {
      const signal = options && options.signal;
      if (signal && signal.aborted) return Promise.resolve();
      const name = add(tool);
      if (signal) signal.addEventListener('abort', () => tools.delete(name), { once: true });
      return Promise.resolve();
    },
    unregisterTool(name) { tools.delete(String(name)); },
    provideContext(options) { tools.clear(); for (const tool of Array.from((options && options.tools) || [])) add(tool); },
    clearContext() { tools.clear(); },
  };
  Object.defineProperty(context, Symbol(), { value: tools });
  for (const target of [document, navigator]) Object.defineProperty(target, 'modelContext', { value: context, configurable: true });
})();"#;

/// JS expression: the page's WebMCP registry (a `Map` of name → tool with a bound
/// `execute`), or `null` when the page has no shim registry (no session shim,
/// or a native API).
pub const REGISTRY: &str = "((mc) => { const key = mc && typeof mc === 'object' && \
   Object.getOwnPropertySymbols(mc)[0]; const reg = key && mc[key]; \
   return reg instanceof Map ? reg : null; })(document.modelContext ?? navigator.modelContext)";
