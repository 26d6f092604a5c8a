//! `retrace serve-demo`: prints its URL, serves the demo app there, and exits 0 on Ctrl-C.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Write;
use std::net::TcpStream;
use std::process::Command;
use std::process::Stdio;

/// A plain HTTP/1.1 GET; returns the status line and the body.
fn http_get(addr: &str, path: &str) -> (String, String) {
    http_get_with(addr, path, "")
}

/// A plain HTTP/1.1 GET with `headers` (each line ending in CRLF) added.
fn http_get_with(addr: &str, path: &str, headers: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

#[test]
fn serve_demo_prints_its_url_serves_v2_and_stops_on_sigint() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args([
            "serve-demo",
            "--port",
            "0",
            "--layout",
            "v2",
            "--latency-ms",
            "5..9",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(info["layout"], "v2");
    assert_eq!(info["latency_ms"], "5..9");
    let url = info["url"].as_str().unwrap();
    let addr = url.trim_start_matches("http://").trim_end_matches('/');

    let (status, body) = http_get(addr, "/");
    assert!(status.contains("200"), "{status}");
    assert!(body.contains("class=\"layout-v2 login\""));

    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "exit status {status:?}");
    assert!(
        TcpStream::connect(addr).is_err(),
        "still serving after Ctrl-C"
    );
}

#[test]
fn serve_demo_rejects_a_bad_latency_naming_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["serve-demo", "--latency-ms", "900..100"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("900..100"), "{stderr}");
}

#[test]
fn serve_demo_serves_the_site_variant_faults_and_late_scripts_asked_for() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args([
            "serve-demo",
            "--port",
            "0",
            "--variant",
            "shift",
            "--fault",
            "save-ignores-clicks",
            "--mark-sent",
            "--script-delay-ms",
            "5",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(info["variant"], "shift");
    assert_eq!(info["faults"], "save-ignores-clicks");
    let url = info["url"].as_str().unwrap();
    let addr = url.trim_start_matches("http://").trim_end_matches('/');

    let (status, body) = http_get(addr, "/site/pricing");
    assert!(status.contains("200"), "{status}");
    assert!(
        body.contains("class=\"card moved\" id=\"plan-pro\""),
        "{body}"
    );
    let (_, login) = http_get(addr, "/");
    assert!(login.contains("s.src='/assets/login.js'"), "{login}");
    let cookie = format!(
        "Cookie: {}={}\r\n",
        retrace_demo::SESSION_COOKIE,
        retrace_demo::DEMO_USERNAME
    );
    let (_, dashboard) = http_get_with(addr, "/dashboard", &cookie);
    assert!(dashboard.contains("id=\"modal-sent\""), "{dashboard}");
    let (_, script) = http_get(addr, "/assets/dashboard.js");
    assert!(script.contains("stopImmediatePropagation"), "{script}");

    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn serve_demo_rejects_an_unknown_variant_or_fault_naming_it() {
    for (flag, value) in [("--variant", "prod"), ("--fault", "slow")] {
        let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
            .args(["serve-demo", flag, value])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("\"{value}\"")), "{stderr}");
    }
}

/// `RETRACE_LOG` sets what goes to stderr: at `retrace_demo=info` the app logs each latency
/// it applies (benchmarks set those against a run's time); by default it says nothing.
#[test]
fn retrace_log_turns_on_the_demo_apps_latency_lines() {
    for (log, expect_line) in [(Some("retrace_demo=info"), true), (None, false)] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_retrace"));
        command
            .args([
                "serve-demo",
                "--port",
                "0",
                "--latency-ms",
                "5..9",
                "--json",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("RETRACE_LOG");
        if let Some(log) = log {
            command.env("RETRACE_LOG", log);
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let info: serde_json::Value = serde_json::from_str(&line).unwrap();
        let addr = info["url"]
            .as_str()
            .unwrap()
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let cookie = format!(
            "Cookie: {}={}\r\n",
            retrace_demo::SESSION_COOKIE,
            retrace_demo::DEMO_USERNAME
        );
        let (status, _) = http_get_with(&addr, "/api/report", &cookie);
        assert!(status.contains("200"), "{status}");
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        child.wait().unwrap();
        let latency = stderr
            .lines()
            .find_map(|line| line.split("applied app latency latency_ms=").nth(1))
            .map(|ms| ms.trim().parse::<u64>().unwrap());
        match expect_line {
            true => assert!(latency.is_some_and(|ms| (5..=9).contains(&ms)), "{stderr}"),
            false => assert_eq!(stderr, "", "nothing logged by default"),
        }
    }
}

#[test]
fn a_bad_retrace_log_is_named_and_ignored() {
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["serve-demo", "--latency-ms", "900..100"])
        .env("RETRACE_LOG", "retrace=loud")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("retrace: ignoring RETRACE_LOG"), "{stderr}");
}
