//! `retrace <command> --help`: every command explains itself with examples, one per line, as
//! they would be typed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn every_command_shows_its_examples_one_per_line() {
    for command in [
        "hash",
        "diff",
        "serve-demo",
        "screenshot",
        "do",
        "demo",
        "replay",
        "record",
        "act",
        "approve",
        "schema",
        "report",
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
            .args([command, "--help"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{command}");
        let help = String::from_utf8(output.stdout).unwrap();
        assert!(help.contains("Example"), "{command}: {help}");
        let typed = format!("retrace {command} ");
        assert!(
            help.lines()
                .any(|line| line.trim_start().starts_with(&typed)
                    || line.trim_start().starts_with(&format!("Example: `{typed}"))),
            "{command}: no example line starts with `{typed}`:\n{help}"
        );
    }
}
