//! `cargo xtask test`'s module-cycle check (docs/ARCHITECTURE.md, invariants): in
//! every crate, the modules under one parent depend on each other in one
//! direction only, so that each crate reads top-down.
//!
//! A module is a file (`server/ws.rs` is `server::ws`, `server/mod.rs` is
//! `server`). A reference is a `crate::a::b` or `super::b` path in code outside
//! comments and `#[cfg(test)]` modules. For each parent module, references between
//! its children (a child standing for everything below it) form a graph; any
//! strongly connected component of two or more children is reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The crates whose `src/` is checked.
pub(crate) const CRATES: [&str; 11] = [
    "protocol",
    "page",
    "cdp",
    "backend",
    "agent",
    "cli",
    "conformance",
    "extension",
    "embed",
    "tests",
    "xtask",
];

/// Fails naming every cycle found in the crates of [`CRATES`] that exist.
///
/// # Errors
/// A source file that cannot be read, or at least one cycle.
pub(crate) fn check(root: &Path) -> Result<()> {
    let mut found = Vec::new();
    for name in CRATES {
        let src = root.join(name).join("src");
        if src.is_dir() {
            for cycle in crate_cycles(&src)? {
                found.push(format!("{name}: {{{}}}", cycle.join(", ")));
            }
        }
    }
    if found.is_empty() {
        eprintln!("xtask: no module import cycles");
        Ok(())
    } else {
        bail!("module import cycles:\n  {}", found.join("\n  "))
    }
}

/// The cycles among sibling modules of one crate, each as its module paths.
fn crate_cycles(src: &Path) -> Result<Vec<Vec<String>>> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
        modules.insert(module_of(src, file), code_of(&text));
    }
    let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut edges: BTreeSet<(Vec<String>, Vec<String>)> = BTreeSet::new();
    for (module, code) in &modules {
        for target in references(module, code) {
            if let Some(target) = longest_known(&known, &target) {
                edges.insert((module.clone(), target));
            }
        }
    }
    let mut cycles = Vec::new();
    for parent in &known {
        let children = |m: &Vec<String>| -> Option<String> {
            (m.len() > parent.len() && m.starts_with(parent)).then(|| m[parent.len()].clone())
        };
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in &edges {
            if let (Some(a), Some(b)) = (children(from), children(to))
                && a != b
            {
                graph.entry(a).or_default().insert(b);
            }
        }
        for component in strongly_connected(&graph) {
            if component.len() > 1 {
                let prefix = parent.join("::");
                cycles.push(
                    component
                        .into_iter()
                        .map(|c| {
                            if prefix.is_empty() {
                                c
                            } else {
                                format!("{prefix}::{c}")
                            }
                        })
                        .collect(),
                );
            }
        }
    }
    Ok(cycles)
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

/// `src/server/ws.rs` → `[server, ws]`; `mod.rs`, `lib.rs`, `main.rs` name their
/// folder (the crate root is `[]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    // Binaries under src/bin are crates of their own.
    if parts.first().is_some_and(|p| p == "bin") {
        return vec!["bin".into()];
    }
    parts
}

/// The text without comments and without the `#[cfg(test)]` module at the end
/// (tests may reach anywhere).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" // ").next().unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The module paths `code` (in `module`) names through `crate::` and `super::`.
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent_of(module))] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut path = base.clone();
            path.extend(
                rest.split("::")
                    .map(|seg| {
                        seg.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect::<String>()
                    })
                    .take_while(|seg| !seg.is_empty()),
            );
            found.push(path);
        }
    }
    found
}

fn parent_of(module: &[String]) -> Vec<String> {
    module[..module.len().saturating_sub(1)].to_vec()
}

fn longest_known(known: &BTreeSet<Vec<String>>, path: &[String]) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| known.contains(p))
}

/// Tarjan's strongly connected components.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w.as_str()]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w.as_str()) {
                    let low = self.low[v].min(self.index[w.as_str()]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                self.out.push(component);
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    tarjan.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempdir::Dir {
        let dir = tempdir::Dir::new();
        for (path, text) in files {
            let path = dir.0.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    mod tempdir {
        pub(crate) struct Dir(pub(crate) std::path::PathBuf);
        impl Dir {
            pub(crate) fn new() -> Dir {
                let path = std::env::temp_dir().join(format!(
                    "xtask-cycles-{}-{}",
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_nanos()
                ));
                std::fs::create_dir_all(&path).unwrap();
                Dir(path)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// The workspace itself: plain `cargo test` catches a new cycle too.
    #[test]
    fn the_workspace_has_no_module_cycles() {
        check(crate::env::workspace_root()).unwrap();
    }

    #[test]
    fn a_two_module_cycle_is_found_and_a_chain_is_not() {
        let dir = tree(&[
            ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
            ("a.rs", "use crate::b::Thing;"),
            ("b.rs", "use crate::a::Other;"),
            ("c.rs", "use crate::a::Other;"),
        ]);
        assert_eq!(crate_cycles(&dir.0).unwrap(), vec![vec!["a", "b"]]);
        let dir = tree(&[
            ("lib.rs", "pub mod a; pub mod b;"),
            ("a.rs", "use crate::b::Thing;"),
            (
                "b.rs",
                "// see crate::a::Other\nfn f() {}\n#[cfg(test)]\nmod tests { use crate::a::Other; }",
            ),
        ]);
        assert!(crate_cycles(&dir.0).unwrap().is_empty());
    }

    #[test]
    fn cycles_between_submodules_and_through_super_are_found() {
        let dir = tree(&[
            ("lib.rs", "pub mod server;"),
            ("server/mod.rs", "pub mod ws; pub mod state; use state::X;"),
            ("server/ws.rs", "use super::state::AppState;"),
            ("server/state.rs", "use crate::server::ws::Socket;"),
        ]);
        assert_eq!(
            crate_cycles(&dir.0).unwrap(),
            vec![vec!["server::state", "server::ws"]]
        );
    }
}
