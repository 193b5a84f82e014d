//! Files are private and bad config is a clear error, through the
//! `browser-bridge` binary: the config directory is created 0700 and the token
//! 0600; a token file others can read is narrowed to 0600 with a warning; a
//! dangling symlink, a directory, an empty file and a short token each end `pair`
//! and `serve` with exit code 1 and one message naming the file and the fix (no
//! stack overflow, no hang).

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

fn run(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--config-dir")
        .arg(dir)
        .env("BROWSER_BRIDGE_LOG", "warn")
        .output()
        .unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn pair_creates_a_private_dir_and_narrows_a_readable_token() {
    let dir = crate::common::temp_config_dir().join("new");
    let pair = run(&["pair"], &dir);
    assert!(pair.status.success(), "{pair:?}");
    assert_eq!(mode(&dir), 0o700);
    let token_file = dir.join("pairing-token");
    assert_eq!(mode(&token_file), 0o600);
    let token = String::from_utf8(pair.stdout).unwrap();

    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let pair = run(&["pair"], &dir);
    assert!(pair.status.success(), "{pair:?}");
    assert_eq!(String::from_utf8(pair.stdout).unwrap(), token);
    assert_eq!(mode(&token_file), 0o600);
    let stderr = String::from_utf8_lossy(&pair.stderr);
    assert!(
        stderr.contains("WARN") && stderr.contains("readable by others") && stderr.contains("0600"),
        "{stderr}"
    );
}

#[test]
fn each_odd_token_file_state_is_one_clear_error() {
    type Setup = fn(&Path);
    let cases: [(&str, Setup, &str); 4] = [
        (
            "dangling symlink",
            |p| std::os::unix::fs::symlink(p.with_file_name("nowhere"), p).unwrap(),
            "is a symlink to a file that does not exist",
        ),
        (
            "directory",
            |p| std::fs::create_dir(p).unwrap(),
            "is a directory",
        ),
        (
            "empty",
            |p| std::fs::write(p, "").unwrap(),
            "empty pairing token",
        ),
        (
            "too short",
            |p| std::fs::write(p, "0123456789abcdef\n").unwrap(),
            "has 16 characters, under the 43",
        ),
    ];
    for (name, setup, expected) in cases {
        let dir = crate::common::temp_config_dir();
        let token_file = dir.join("pairing-token");
        setup(&token_file);
        for command in [&["pair"][..], &["serve", "--listen", "127.0.0.1:0"][..]] {
            let output = run(command, &dir);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{name}, {command:?}: {:?} {stderr}",
                output.status
            );
            assert!(stderr.contains(expected), "{name}, {command:?}: {stderr}");
            assert!(
                stderr.contains(&token_file.display().to_string())
                    && stderr.contains("browser-bridge pair"),
                "{name}, {command:?}: {stderr}"
            );
            assert!(!stderr.contains("overflow"), "{name}: {stderr}");
        }
    }
}
