//! `wasm-opt -Oz` (less inlining) over the extension's module, from binaryen's
//! npm package.
//!
//! The package `binaryen` (pinned in `tools/package.json` and
//! `tools/package-lock.json`) ships `bin/wasm-opt` as a Node script (binaryen
//! compiled to wasm), so one `npm ci` installs the same optimizer on every machine
//! that has Node. Debian's binaryen (version 108) is not used: it breaks this
//! module at init.
//!
//! When the package is missing, [`find_or_install`] runs `npm ci` in `tools/`; with
//! no npm on the machine the build goes on unoptimized after a warning, except
//! under CI (`$CI` set), where a missing optimizer is an error.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::env::run;

/// The npm project that pins binaryen, relative to the workspace root.
const TOOLS_DIR: &str = "tools";
/// binaryen's `wasm-opt` Node script inside [`TOOLS_DIR`].
const WASM_OPT_SCRIPT: &str = "node_modules/binaryen/bin/wasm-opt";

/// The WebAssembly features rustc's `wasm32-unknown-unknown` target enables by
/// default (Rust ≥ 1.82), which the module uses and wasm-opt must accept.
const FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// The passes of `-Oz` left out: inlining (see [`WasmOpt::optimize`]).
const SKIPPED_PASSES: [&str; 2] = ["--skip-pass=inlining", "--skip-pass=inlining-optimizing"];

/// binaryen's `wasm-opt`, run as `node <script>`.
pub(crate) struct WasmOpt {
    script: PathBuf,
}

/// The installed `wasm-opt`, after `npm ci` in `tools/` when it is missing;
/// `None` (with a warning) when it cannot be had and `$CI` is unset.
///
/// # Errors
/// `npm ci` fails, or under CI: no Node/npm on the machine.
pub(crate) fn find_or_install(root: &Path) -> Result<Option<WasmOpt>> {
    let tools = root.join(TOOLS_DIR);
    let script = tools.join(WASM_OPT_SCRIPT);
    if !script.is_file() {
        if !has("npm") || !has("node") {
            let message = "wasm-opt not installed and no Node.js/npm to install it \
                 (`npm ci` in tools/ installs binaryen's wasm-opt)";
            if std::env::var_os("CI").is_some() {
                bail!("{message}: CI ships the optimized extension only");
            }
            eprintln!("warning: {message}; the extension is built without wasm-opt");
            return Ok(None);
        }
        run(Command::new("npm")
            .current_dir(&tools)
            .args(["ci", "--no-audit", "--no-fund"]))
        .context("installing binaryen's wasm-opt with `npm ci` in tools/")?;
        if !script.is_file() {
            bail!("`npm ci` in tools/ left no {}", script.display());
        }
    }
    Ok(Some(WasmOpt { script }))
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

impl WasmOpt {
    /// Optimizes `wasm` for size in place: `-Oz` without its inlining passes (the
    /// module's features enabled). Inlining saves 2 % of the raw bytes but costs 8 %
    /// gzipped (measured on this module: 859 KB / 309 KB gzip without it, 842 KB /
    /// 333 KB with it, 927 KB / 313 KB before wasm-opt).
    ///
    /// wasm-opt takes a minute on this module, and every end-to-end test process
    /// builds the extension: the last input, arguments and output are kept in
    /// `cache` (a directory under target/), and the same input and arguments get
    /// the kept output.
    ///
    /// # Errors
    /// `node` cannot run or wasm-opt fails (it validates the module first).
    pub(crate) fn optimize(&self, wasm: &Path, cache: &Path) -> Result<()> {
        let (cached_in, cached_out) = (cache.join("input.wasm"), cache.join("output.wasm"));
        let cached_args = cache.join("args.txt");
        let args = [&["-Oz"][..], &SKIPPED_PASSES, &FEATURES]
            .concat()
            .join(" ");
        let input = std::fs::read(wasm).with_context(|| format!("reading {}", wasm.display()))?;
        if std::fs::read(&cached_in).is_ok_and(|kept| kept == input)
            && std::fs::read_to_string(&cached_args).is_ok_and(|kept| kept == args)
            && cached_out.is_file()
        {
            eprintln!(
                "wasm-opt: module unchanged, reusing {}",
                cached_out.display()
            );
            std::fs::copy(&cached_out, wasm).context("copying the kept wasm-opt output")?;
            return Ok(());
        }
        let out = wasm.with_extension("opt.wasm");
        run(Command::new("node")
            .arg(&self.script)
            .args(args.split(' '))
            .arg(wasm)
            .arg("-o")
            .arg(&out))
        .context("wasm-opt")?;
        // Output first: a crash between the two writes leaves a mismatch, not a
        // wrong pairing.
        let _ = std::fs::remove_file(&cached_in);
        std::fs::create_dir_all(cache)?;
        std::fs::copy(&out, &cached_out).context("keeping the wasm-opt output")?;
        std::fs::write(&cached_args, &args).context("keeping the wasm-opt arguments")?;
        std::fs::write(&cached_in, &input).context("keeping the wasm-opt input")?;
        std::fs::rename(&out, wasm).with_context(|| format!("replacing {}", wasm.display()))
    }
}
