//! `retrace demo`: the main job on a fresh machine with no API key. Starts the bundled demo
//! app and headless Chromium, replays the bundled recording of the demo flow (sign in, then
//! add a draft invoice) against the normal layout, then against the `v2` layout, where one
//! control moved (replay repairs it without a model) and one changed (replay catches it at
//! the right step).

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use retrace_agent::Conversation;
use retrace_agent::DriveTool;
use retrace_agent::RunStatus;
use retrace_agent::cache_executor::ReplaySettings;
use retrace_agent::events::Events;
use retrace_agent::recorder::RecordSettings;
use retrace_agent::script_speaker::ScriptSpeaker;
use retrace_agent::tool::Toolbox;
use retrace_cache::ParameterValues;
use retrace_demo::DemoConfig;
use retrace_demo::Latency;
use retrace_drive::Backend;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_protocol::Message;
use retrace_protocol::tool_names::COMPUTER;
use serde_json::json;

use crate::commands::replay::ReplayRequest;
use crate::commands::replay::ReplayRun;
use crate::outcome::Outcome;

/// The bundled recording of the demo flow: sign in (the app's one slow response), then add a
/// draft invoice through the "New invoice" modal (the steps are in `demo_script`).
pub const DEMO_RECORDING: &str = include_str!("../../assets/demo_flow.json");

/// The file name the demo writes the bundled recording to in its evidence directory.
const DEMO_RECORDING_NAME: &str = "demo_flow.json";

/// The goal the bundled recording was made for.
pub const DEMO_GOAL: &str = "Sign in as {{username}} with password {{password}}, then add a draft invoice for Acme Corp of 120.00";

/// The viewport the demo runs at.
const DEMO_SIZE: (u32, u32) = (1280, 800);

/// Run the demo: replay a recorded sign-in and new draft invoice on the bundled demo app,
/// then on its `v2` layout.
///
/// On `v2`, watch replay repair a moved button and catch a changed one.
///
/// Needs Chromium (`/usr/bin/chromium`, or `--chromium`); no API key, no network.
/// Evidence (event logs, the replayed file, final screenshots) goes to `--out`.
///
/// Exit codes: 0 the demo behaved as expected, 1 it did not, 2 error.
///
/// Examples:
///   retrace demo
///   retrace demo --latency-ms 100..1500 --out /tmp/retrace-demo
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct DemoArgs {
    /// Where to write the evidence.
    #[arg(long, default_value = "retrace-evidence")]
    pub out: PathBuf,
    /// The demo app's response latency, `MS` or a random range `A..B` (ms).
    #[arg(long, default_value = "200..800", value_parser = |s: &str| s.parse::<Latency>().map_err(|e| e.to_string()))]
    pub latency_ms: Latency,
    /// The Chromium executable.
    #[arg(long, env = "RETRACE_CHROMIUM", default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// Print one JSON summary instead of live lines.
    #[arg(long)]
    pub json: bool,
    /// Re-record the bundled recording into this file (for maintainers, after the demo app
    /// changed) instead of running the demo.
    #[arg(long, hide = true, value_name = "FILE")]
    pub rerecord: Option<PathBuf>,
}

/// The scripted demo flow in model coordinates at 1280x800: what the recording holds.
///
/// Every point was measured on the rendered page. Each one's 100 px region (what replay
/// hashes) keeps clear of the text caret of the focused field (it sits at the end of the
/// field's text, near its left edge) and of the animated "Bank sync" panel (x >= 864), so
/// nothing that blinks or moves decides a check.
fn demo_script() -> Vec<(String, serde_json::Value)> {
    let computer = |input: serde_json::Value| (COMPUTER.to_owned(), input);
    vec![
        computer(json!({"action": "screenshot"})),
        // The login form's fields (x 481..799) and the "Sign in" button.
        computer(json!({"action": "left_click", "coordinate": [640, 311]})),
        computer(json!({"action": "type", "text": retrace_demo::DEMO_USERNAME})),
        computer(json!({"action": "left_click", "coordinate": [640, 389]})),
        computer(json!({"action": "type", "text": retrace_demo::DEMO_PASSWORD})),
        // The sign-in submit is the app's slow response; the next check waits it out.
        computer(json!({"action": "left_click", "coordinate": [551, 467]})),
        // "New invoice" (x 702..819, y 185..221): v2 relabels and restyles it.
        computer(json!({"action": "left_click", "coordinate": [761, 203]})),
        // The modal's fields (x 444..836), right of where their carets sit, so each region
        // holds the end of the field's label and none of its caret.
        computer(json!({"action": "left_click", "coordinate": [540, 266]})),
        computer(json!({"action": "type", "text": "Acme Corp"})),
        computer(json!({"action": "left_click", "coordinate": [540, 344]})),
        computer(json!({"action": "type", "text": "120.00"})),
        // "Save draft" (x 732..836, y 388..428): closes the modal and appends INV-1049.
        computer(json!({"action": "left_click", "coordinate": [784, 408]})),
        // Onto the lower part of the new row's "Draft" badge (x 715..763, y 602..624): the
        // region then also holds the moved table foot, so it only matches once the row is
        // there, both before this step and in its after-action (effect) check.
        computer(json!({"action": "mouse_move", "coordinate": [735, 622]})),
    ]
}

/// Records the demo flow on a fresh demo app (no latency) into `path`.
async fn rerecord(chromium: &Path, path: &Path) -> anyhow::Result<()> {
    let server = retrace_demo::start(DemoConfig::default(), "127.0.0.1:0".parse()?).await?;
    let browser = crate::commands::screenshot::BrowserArgs {
        size: DEMO_SIZE,
        chromium: chromium.to_owned(),
        connect: None,
    };
    let (_browser, page) = crate::commands::screenshot::open(&browser, &server.url()).await?;
    let page: Arc<dyn Backend> = Arc::new(page);
    let computer = Arc::new(
        ComputerTool::new(
            page,
            ComputerToolConfig {
                model_size: Some(DEMO_SIZE),
                ..ComputerToolConfig::default()
            },
        )
        .await?,
    );
    let toolbox = Toolbox::new().with(Arc::new(DriveTool::computer(computer)));
    let mut conversation = Conversation::new(
        vec![Box::new(ScriptSpeaker::new(demo_script()))],
        toolbox.clone(),
        Events::none(),
    )?;
    let report = conversation
        .run(DEMO_GOAL, vec![Message::user_text(DEMO_GOAL)], None)
        .await?;
    anyhow::ensure!(
        report.status == RunStatus::Done,
        "the demo script did not finish: {:?}",
        report.status
    );
    let mut parameters = ParameterValues::new();
    parameters.insert("username", retrace_demo::DEMO_USERNAME);
    parameters.insert("password", retrace_demo::DEMO_PASSWORD);
    let settings = RecordSettings {
        parameters,
        display_size: Some(DEMO_SIZE),
        ..RecordSettings::default()
    };
    let file = retrace_agent::recorder::build_cache_file(
        DEMO_GOAL,
        &report.history,
        &toolbox,
        report.usage,
        &settings,
    )?;
    let text = retrace_cache::to_askui_json(&file.to_json(), retrace_cache::RECORDING_INDENT)?;
    retrace_cache::atomic_write(path, &text)?;
    server.shutdown().await?;
    Ok(())
}

/// One replay of the demo.
struct Phase {
    title: &'static str,
    layout: &'static str,
    run: ReplayRun,
    events_log: PathBuf,
    screenshot: PathBuf,
}

/// Runs the demo.
pub fn run(args: DemoArgs) -> anyhow::Result<Outcome> {
    let runtime = crate::commands::screenshot::runtime()?;
    if let Some(path) = &args.rerecord {
        runtime.block_on(rerecord(&args.chromium, path))?;
        println!("recorded the demo flow to {}", path.display());
        return Ok(Outcome::Pass);
    }
    let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let out = args.out.join(format!("demo-{stamp}"));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let recording = out.join(DEMO_RECORDING_NAME);
    std::fs::write(&recording, DEMO_RECORDING)
        .with_context(|| format!("cannot write {}", recording.display()))?;

    let phases = runtime.block_on(async {
        let config = DemoConfig {
            latency: args.latency_ms,
            ..DemoConfig::default()
        };
        let server = retrace_demo::start(config, "127.0.0.1:0".parse()?).await?;
        if !args.json {
            println!(
                "retrace demo: the demo app runs at {} (latency {} ms)",
                server.url(),
                args.latency_ms
            );
            println!(
                "replaying {} (recorded once by an agent; no model is called now)\n",
                recording.display()
            );
        }
        let mut phases = Vec::new();
        for (title, layout) in [
            ("1. the layout it was recorded on", "v1"),
            ("2. the v2 layout: a moved and a changed control", "v2"),
        ] {
            if !args.json {
                println!("{title}");
            }
            let events_log = out.join(format!("events-{layout}.jsonl"));
            let screenshot = out.join(format!("final-{layout}.png"));
            let request = ReplayRequest {
                file: recording.clone(),
                url: format!("{}?layout={layout}", server.url()),
                params: vec![
                    ("username".into(), retrace_demo::DEMO_USERNAME.into()),
                    ("password".into(), retrace_demo::DEMO_PASSWORD.into()),
                ],
                size: DEMO_SIZE,
                settings: ReplaySettings {
                    step_timeout: Duration::from_secs(5),
                    ..ReplaySettings::default()
                },
                chromium: args.chromium.clone(),
                connect: None,
                events_log: Some(events_log.clone()),
                live: !args.json,
                final_screenshot: Some(screenshot.clone()),
            };
            let run = crate::commands::replay::replay(&request).await?;
            if !args.json {
                crate::commands::replay::print_summary(&run, false);
                println!();
            }
            phases.push(Phase {
                title,
                layout,
                run,
                events_log,
                screenshot,
            });
        }
        server.shutdown().await?;
        anyhow::Ok(phases)
    })?;
    let expected = judge(&phases);
    if args.json {
        let summary = json!({
            "evidence": out,
            "as_expected": expected.is_ok(),
            "problem": expected.as_ref().err(),
            "phases": phases.iter().map(|phase| json!({
                "layout": phase.layout,
                "passed": phase.run.outcome.completed,
                "steps_replayed": phase.run.outcome.steps_replayed,
                "visual_checks_passed": phase.run.outcome.checks_passed,
                "effect_checks_passed": phase.run.outcome.effect_checks_passed,
                "repairs": phase.run.outcome.repairs.iter().map(|r| json!({"step": r.step_index, "offset": [r.offset.0, r.offset.1]})).collect::<Vec<_>>(),
                "failure": phase.run.outcome.failure,
                "duration_ms": phase.run.duration.as_millis() as u64,
                "events": phase.events_log,
                "screenshot": phase.screenshot,
            })).collect::<Vec<_>>(),
        });
        println!("{summary}");
    } else {
        for phase in &phases {
            println!(
                "{}: events {}, final screen {}",
                phase.title,
                phase.events_log.display(),
                phase.screenshot.display()
            );
        }
        println!(
            "the replayed file with its updated metadata: {}",
            recording.display()
        );
        match &expected {
            Ok(()) => println!(
                "\ndemo OK: the recording replayed without a model, the moved button was repaired, the changed button was caught."
            ),
            Err(problem) => println!("\ndemo NOT as expected: {problem}"),
        }
    }
    Ok(if expected.is_ok() {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}

/// Whether the demo showed what it should: v1 passes; v2 repairs the moved sign-in button
/// (step 5) and fails at the changed "New invoice" button (step 6).
fn judge(phases: &[Phase]) -> Result<(), String> {
    let [v1, v2] = phases else {
        return Err("the demo did not run both layouts".into());
    };
    if !v1.run.outcome.completed {
        return Err(format!(
            "the recorded layout did not replay: {}",
            v1.run.outcome.failure.clone().unwrap_or_default()
        ));
    }
    if !v2
        .run
        .outcome
        .repairs
        .iter()
        .any(|repair| repair.step_index == 5)
    {
        return Err("the moved sign-in button (step 5) was not repaired on v2".into());
    }
    match &v2.run.outcome.failure {
        Some(failure) if failure.contains("step 6") => Ok(()),
        Some(failure) => Err(format!(
            "v2 failed, but not at the changed New invoice button (step 6): {failure}"
        )),
        None => Err("v2 replayed to the end although its New invoice button changed".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::DEMO_GOAL;
    use super::DEMO_RECORDING;
    use super::demo_script;

    /// The bundled file is a recording of `demo_script` (re-record it with
    /// `retrace demo --rerecord` after changing either): same steps, its parameter values
    /// replaced by placeholders, and a before- and after-action hash at every point it acts at.
    #[test]
    fn the_bundled_recording_is_the_demo_script_with_hashes_and_no_secrets() {
        assert!(!DEMO_RECORDING.contains(retrace_demo::DEMO_PASSWORD));
        let file: serde_json::Value = serde_json::from_str(DEMO_RECORDING).unwrap();
        assert_eq!(file["metadata"]["goal"], DEMO_GOAL);
        let mut parameters: Vec<&str> = file["cache_parameters"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        parameters.sort_unstable();
        assert_eq!(parameters, ["password", "username"]);
        let steps = file["trajectory"].as_array().unwrap();
        let script = demo_script();
        assert_eq!(steps.len(), script.len());
        for (index, (step, (name, input))) in steps.iter().zip(&script).enumerate() {
            assert_eq!(step["name"], name.as_str(), "step {index}");
            let mut expected = input.clone();
            if let Some(text) = expected.get_mut("text") {
                if text == retrace_demo::DEMO_USERNAME {
                    *text = "{{username}}".into();
                } else if text == retrace_demo::DEMO_PASSWORD {
                    *text = "{{password}}".into();
                }
            }
            assert_eq!(step["input"], expected, "step {index}");
            if input.get("coordinate").is_some() {
                for key in ["visual_representation", "visual_representation_after"] {
                    let hash = step[key].as_str().unwrap_or_default();
                    assert_eq!(hash.len(), 16, "step {index} {key}: {hash:?}");
                }
            }
        }
    }
}
