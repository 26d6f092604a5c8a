//! The README's tour runs as written: every command in its `sh` blocks is run by `bash` in a
//! fresh folder, in order, with `retrace` on the `PATH`. Only two things are changed, and
//! only outside the commands' words: the demo app's ports (8080, 8082) become free ones, so
//! the test never collides with another process, and the model behind `retrace act` is the
//! scripted Anthropic server (`RETRACE_ANTHROPIC_BASE_URL`) signing in as a model would. The
//! first block's two setup scripts are what CI runs itself (`.ci/run` is `scripts/test.sh`),
//! so they are checked to exist and not run again.

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::time::Duration;

use retrace_test_support::cli::runtime;
use retrace_test_support::fake_model::FakeAnthropic;

use super::login_points;
use super::login_script;

/// The commands of the README's `sh` blocks, one logical line each (backslash continuations
/// joined), in order.
fn readme_commands(readme: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in readme.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || (pending.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#'))) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head.trim_end());
                pending.push(' ');
            }
            None => {
                pending.push_str(trimmed);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    commands
}

/// `command` with its trailing comment cut (a `#` after whitespace, outside quotes).
fn without_comment(command: &str) -> &str {
    let mut quote = None;
    let mut previous = ' ';
    for (index, ch) in command.char_indices() {
        match (quote, ch) {
            (None, '\'' | '"') => quote = Some(ch),
            (Some(open), ch) if ch == open => quote = None,
            (None, '#') if previous.is_whitespace() => return command[..index].trim_end(),
            _ => {}
        }
        previous = ch;
    }
    command.trim_end()
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Waits until something listens on `port` (a server the tour started in the background).
fn wait_for_port(port: u16, command: &str) {
    let listening = retrace_test_support::cli::poll(Duration::from_secs(120), || {
        TcpStream::connect(("127.0.0.1", port)).ok()
    });
    assert!(
        listening.is_some(),
        "`{command}` never listened on port {port}"
    );
}

/// Background processes the tour started, ended when the test ends however it ends.
struct Background(Vec<Child>);

impl Drop for Background {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The exit code the README says a command ends with: `check` against the `text` variant
/// finds its renamed button (1), everything else passes (0).
fn expected_code(command: &str) -> i32 {
    i32::from(command.starts_with("retrace check "))
}

#[test]
fn every_command_in_the_readme_runs_as_written() {
    retrace_test_support::require!(Chromium);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands = readme_commands(&readme);
    assert!(
        commands.iter().any(|c| c.starts_with("retrace act ")),
        "{commands:?}"
    );

    let ports: BTreeMap<&str, String> = [("8080", free_port()), ("8082", free_port())]
        .into_iter()
        .map(|(documented, free)| (documented, free.to_string()))
        .collect();
    let work = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_retrace")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let runtime = runtime();
    let mut environment: Vec<(String, String)> = Vec::new();
    let mut background = Background(Vec::new());
    let mut model: Option<FakeAnthropic> = None;

    for written in &commands {
        if let Some(script) = written.strip_prefix("bash ") {
            let script = without_comment(script);
            assert!(root.join(script).is_file(), "the README names {script}");
            continue;
        }
        let mut command = without_comment(written).to_string();
        for (documented, free) in &ports {
            command = command
                .replace(
                    &format!("127.0.0.1:{documented}"),
                    &format!("127.0.0.1:{free}"),
                )
                .replace(&format!("--port {documented}"), &format!("--port {free}"));
        }
        if let Some(assignment) = command.strip_prefix("export ") {
            let (name, value) = assignment.split_once('=').unwrap();
            environment.push((name.to_string(), value.to_string()));
            continue;
        }
        if command.starts_with("retrace act ") && model.is_none() {
            let demo = format!("http://127.0.0.1:{}/", ports["8080"]);
            let points = login_points(&runtime, &demo);
            let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
            environment.push(("RETRACE_ANTHROPIC_BASE_URL".into(), fake.base_url()));
            model = Some(fake);
        }
        let mut shell = Command::new("bash");
        shell
            .current_dir(work.path())
            .env("PATH", &path)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("RETRACE_ANTHROPIC_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .envs(environment.iter().map(|(k, v)| (k, v)));
        if let Some(server) = command.strip_suffix('&') {
            let child = shell
                .arg("-c")
                .arg(format!("exec {}", server.trim()))
                .spawn()
                .unwrap();
            background.0.push(child);
            let port = ports
                .values()
                .find(|port| server.contains(&format!("--port {port}")))
                .unwrap_or_else(|| panic!("a background command without a port: {server}"));
            wait_for_port(port.parse().unwrap(), written);
            continue;
        }
        let output = shell.arg("-c").arg(&command).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(expected_code(&command)),
            "README command `{written}` (run as `{command}`):\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    // What the tour says it leaves behind.
    assert!(work.path().join(".retrace_cache/login.json").is_file());
    for report in ["report.html", "junit.xml", "report.json"] {
        assert!(
            work.path().join("retrace-report").join(report).is_file(),
            "{report}"
        );
    }
    let evidence = work.path().join("check-evidence");
    assert!(evidence.is_dir());
    let recording = std::fs::read_to_string(work.path().join(".retrace_cache/login.json")).unwrap();
    assert!(
        !recording.contains(retrace_demo::DEMO_PASSWORD),
        "the recording holds the password"
    );
    assert!(model.is_some_and(|fake| fake.requests().len() == 7));
}

#[test]
fn readme_commands_join_continuations_and_skip_comments() {
    let readme = "text\n```sh\n# a comment\nretrace a \\\n    --b c   # says why\n\nretrace d &\n```\n```toml\nx = 1\n```\n";
    let commands = readme_commands(readme);
    assert_eq!(
        commands,
        vec!["retrace a --b c   # says why", "retrace d &"]
    );
    assert_eq!(without_comment(&commands[0]), "retrace a --b c");
    assert_eq!(without_comment("retrace 'x # y' # z"), "retrace 'x # y'");
}
