//! The agent skill `skills/retrace/SKILL.md`: its frontmatter validates (a `name` that is the
//! folder's, lowercase with hyphens, at most 64 characters; a `description` of at most 1024),
//! and every command in its shell code blocks runs, exactly as written, as the loop it
//! teaches: baseline, PASS, a change, FAIL, approve, PASS. The real binary on the PATH, two
//! demo content sites (the baseline and one with the 4 px shift) as the app before and after
//! a change, real headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::process::Output;

use retrace_test_support::demo::DemoThread;
use retrace_test_support::demo::Variant;

fn skill_text() -> String {
    let path = retrace_test_support::workspace_dir().join("skills/retrace/SKILL.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The frontmatter's `key: value` lines, and the body after it.
fn frontmatter(text: &str) -> (Vec<(String, String)>, &str) {
    let rest = text
        .strip_prefix("---\n")
        .expect("SKILL.md starts with a --- line");
    let (head, body) = rest
        .split_once("\n---\n")
        .expect("the frontmatter ends with a --- line");
    let fields = head
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (key, value) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("not `key: value`: {line}"));
            (key.trim().to_owned(), value.trim().to_owned())
        })
        .collect();
    (fields, body)
}

/// Every command line of the body's shell code blocks (`bash`, `sh`, `shell`), in order.
fn commands(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut block: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim();
        if let Some(fence) = trimmed.strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(fence.trim().to_owned()),
            };
            continue;
        }
        let shell = matches!(block.as_deref(), Some("bash" | "sh" | "shell"));
        if shell && !trimmed.is_empty() && !trimmed.starts_with('#') {
            found.push(trimmed.to_owned());
        }
    }
    found
}

#[test]
fn the_skill_has_valid_frontmatter_and_shell_blocks() {
    let text = skill_text();
    let (fields, body) = frontmatter(&text);
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_else(|| panic!("no `{name}` in the frontmatter: {fields:?}"))
    };
    let name = field("name");
    assert_eq!(name, "retrace", "the name is the folder's");
    assert!(
        name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
        "{name}"
    );
    let description = field("description");
    assert!(
        (40..=1024).contains(&description.len()),
        "{}",
        description.len()
    );
    for word in ["baseline", "check", "PASS", "FAIL", "ERROR", "approve"] {
        assert!(description.contains(word) || body.contains(word), "{word}");
    }
    let commands = commands(body);
    assert!(commands.len() >= 3, "{commands:?}");
    assert!(
        commands
            .iter()
            .all(|command| command.starts_with("retrace check ")),
        "every command is one the loop test knows how to run: {commands:?}"
    );
}

/// Runs `command` with `sh` in `dir`, with the binary on the PATH and `APP_URL` set.
fn run(command: &str, dir: &Path, app_url: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_retrace")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("APP_URL", app_url)
        .output()
        .unwrap()
}

fn describe(command: &str, output: &Output) -> String {
    format!(
        "{command}\nexit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The verdicts of a `--json` check's pages.
fn verdicts(command: &str, output: &Output) -> Vec<String> {
    let document: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", describe(command, output)));
    document["pages"]
        .as_array()
        .unwrap_or_else(|| panic!("no pages: {}", describe(command, output)))
        .iter()
        .map(|page| page["verdict"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_skills_commands_run_as_the_loop_it_teaches() {
    retrace_test_support::require!(Chromium);
    let text = skill_text();
    let (_, body) = frontmatter(&text);
    let commands = commands(body);
    let (approvals, checks): (Vec<&String>, Vec<&String>) = commands
        .iter()
        .partition(|command| command.starts_with("retrace check approve "));
    assert!(
        approvals.len() >= 2,
        "a baseline and an approval: {commands:?}"
    );
    assert!(!checks.is_empty(), "a check: {commands:?}");

    let before = DemoThread::variant(Variant::Baseline);
    let after = DemoThread::variant(Variant::Shift);
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::create_dir(dir.join(".retrace")).unwrap();
    std::fs::write(
        dir.join(".retrace/pages.toml"),
        "[[pages]]\npath = \"/site/pricing\"\n",
    )
    .unwrap();
    let expect = |command: &str, url: &str, code: i32, verdict: Option<&str>| {
        let output = run(command, dir, url);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{}",
            describe(command, &output)
        );
        if let Some(verdict) = verdict {
            assert_eq!(verdicts(command, &output), [verdict]);
        }
    };

    // 1. The baseline, before any change.
    expect(approvals[0], before.url(), 0, None);
    // 2. Every check after a step that changed nothing passes.
    for check in &checks {
        expect(check, before.url(), 0, Some("PASS"));
    }
    // 3. A change: the page shifted. Every check fails.
    for check in &checks {
        expect(check, after.url(), 1, Some("FAIL"));
    }
    // 4. The change was intended: the later approval(s), then every check passes again.
    for approval in &approvals[1..] {
        expect(approval, after.url(), 0, None);
    }
    for check in &checks {
        expect(check, after.url(), 0, Some("PASS"));
    }
}
