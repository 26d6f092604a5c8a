//! `retrace demo`, the main job on a fresh machine with no API key: the bundled demo app, the
//! bundled recording of its demo flow (sign in, then add a draft invoice), replayed against
//! the layout it was recorded on and against the `v2` layout, where one control moved (replay
//! repairs it without a model) and one changed (replay catches it at its step).
//!
//! [`Demo`] owns the app and the evidence directory; each phase is an ordinary
//! [`ReplayJob`]; [`judge`] reads the typed results (never message text) to say whether the
//! demo showed what it should.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use retrace_agent::Conversation;
use retrace_agent::RunStatus;
use retrace_agent::script_speaker::ScriptSpeaker;
use retrace_cache::ParameterValues;
use retrace_demo::DemoConfig;
use retrace_demo::DemoServer;
use retrace_demo::Latency;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Toolbox;
use retrace_protocol::Message;
use retrace_protocol::computer_actions::names;
use retrace_protocol::events::Events;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::tool_names::COMPUTER;
use retrace_replay::ReplaySettings;
use retrace_replay::observe::Observations;
use retrace_replay::observe::ObservingTool;
use retrace_replay::recorder::RecordSettings;
use retrace_replay::screen::PageProbe;
use serde_json::json;

use crate::browser::BrowserConfig;
use crate::browser::PageLoad;
use crate::browser::open_page;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use crate::replay::ReplayJob;

/// The bundled recording of the demo flow (the steps are in [`demo_script`]).
pub const DEMO_RECORDING: &str = include_str!("../assets/demo_flow.json");

/// The file name the demo writes the bundled recording to in its evidence directory.
const DEMO_RECORDING_NAME: &str = "demo_flow.json";

/// The goal the bundled recording was made for.
pub const DEMO_GOAL: &str = "Sign in as {{username}} with password {{password}}, then add a draft invoice for Acme Corp of 120.00";

/// The viewport the demo runs at.
pub const DEMO_SIZE: (u32, u32) = (1280, 800);

/// The step where v2's moved sign-in button is repaired (1-based).
pub const REPAIRED_STEP: usize = 6;

/// The step where v2's changed "New invoice" button is caught (1-based).
pub const CAUGHT_STEP: usize = 7;

/// The demo's phases: a title and the layout replayed.
pub const PHASES: [(&str, &str); 2] = [
    ("1. the layout it was recorded on", "v1"),
    ("2. the v2 layout: a moved and a changed control", "v2"),
];

/// The scripted demo flow in model coordinates at 1280x800: what the recording holds.
///
/// Every point was measured on the rendered page. Each one's 100 px region (what replay
/// hashes) keeps clear of the text caret of the focused field (it sits at the end of the
/// field's text, near its left edge) and of the animated "Bank sync" panel (x >= 864), so
/// nothing that blinks or moves decides a check.
pub fn demo_script() -> Vec<(String, serde_json::Value)> {
    let computer = |input: serde_json::Value| (COMPUTER.to_owned(), input);
    vec![
        computer(json!({"action": names::SCREENSHOT})),
        // The login form's fields (x 481..799) and the "Sign in" button.
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [640, 311]})),
        computer(json!({"action": names::TYPE, "text": retrace_demo::DEMO_USERNAME})),
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [640, 389]})),
        computer(json!({"action": names::TYPE, "text": retrace_demo::DEMO_PASSWORD})),
        // The sign-in submit is the app's slow response; its effect check waits it out.
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [551, 467]})),
        // "New invoice" (x 702..819, y 185..221): v2 relabels and restyles it.
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [761, 203]})),
        // The modal's fields (x 444..836), right of where their carets sit, so each region
        // holds the end of the field's label and none of its caret.
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [540, 266]})),
        computer(json!({"action": names::TYPE, "text": "Acme Corp"})),
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [540, 344]})),
        computer(json!({"action": names::TYPE, "text": "120.00"})),
        // "Save draft" (x 732..836, y 388..428): closes the modal and appends INV-1049.
        computer(json!({"action": names::LEFT_CLICK, "coordinate": [784, 408]})),
        // Onto the lower part of the new row's "Draft" badge (x 715..763, y 602..624): the
        // region then also holds the moved table foot, so it only matches once the row is
        // there, both before this step and in its after-action (effect) check.
        computer(json!({"action": names::MOUSE_MOVE, "coordinate": [735, 622]})),
    ]
}

/// The demo's parameter values (public: the login page shows them).
pub fn demo_parameters() -> Parameters {
    Parameters::new(
        vec![
            ("username".into(), retrace_demo::DEMO_USERNAME.into()),
            ("password".into(), retrace_demo::DEMO_PASSWORD.into()),
        ],
        Vec::new(),
    )
}

/// Records the demo flow on a fresh demo app (no latency) into `path`.
pub async fn rerecord(chromium: &Path, path: &Path) -> Result<(), RunnerError> {
    let server = start_app(Latency::None).await?;
    let browser = BrowserConfig::launch(chromium, DEMO_SIZE).open().await?;
    let page = Arc::new(open_page(&browser, &server.url(), PageLoad::Quiet).await?);
    let computer = ComputerTool::new(
        page.clone(),
        ComputerToolConfig {
            model_size: Some(DEMO_SIZE),
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })?;
    let observations = Observations::new();
    let toolbox = Toolbox::new().with(Arc::new(ObservingTool::new(
        Arc::new(computer),
        PageProbe::new(page, None),
        observations.clone(),
    )));
    let mut conversation = Conversation::new(
        vec![Box::new(ScriptSpeaker::new(demo_script()))],
        toolbox.clone(),
        Events::none(),
    )?;
    let report = conversation
        .run(DEMO_GOAL, vec![Message::user_text(DEMO_GOAL)], None)
        .await?;
    if report.status != RunStatus::Done {
        return Err(RunnerError::Input(format!(
            "the demo script did not finish: {:?}",
            report.status
        )));
    }
    let mut parameters = ParameterValues::new();
    parameters.insert("username", retrace_demo::DEMO_USERNAME);
    parameters.insert("password", retrace_demo::DEMO_PASSWORD);
    let settings = RecordSettings {
        parameters,
        display_size: Some(DEMO_SIZE),
        observations,
        ..RecordSettings::default()
    };
    let file = retrace_replay::recorder::build_cache_file(
        DEMO_GOAL,
        &report.history,
        &toolbox,
        report.usage,
        &settings,
    )?;
    let text = retrace_cache::to_askui_json(&file.to_json(), retrace_cache::RECORDING_INDENT)
        .map_err(|error| RunnerError::Input(format!("writing the recording: {error}")))?;
    retrace_cache::atomic_write(path, &text)?;
    server
        .shutdown()
        .await
        .map_err(|error| RunnerError::Input(format!("stopping the demo app: {error}")))?;
    Ok(())
}

async fn start_app(latency: Latency) -> Result<DemoServer, RunnerError> {
    let config = DemoConfig {
        latency,
        ..DemoConfig::default()
    };
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    retrace_demo::start(config, address)
        .await
        .map_err(|error| RunnerError::Input(format!("starting the demo app: {error}")))
}

/// A running demo: the app, and the evidence directory holding the recording it replays.
#[derive(Debug)]
pub struct Demo {
    server: DemoServer,
    evidence: PathBuf,
    recording: PathBuf,
}

impl Demo {
    /// Creates `out/demo-<time>/`, writes the bundled recording there and starts the app with
    /// `latency`.
    pub async fn start(out: &Path, latency: crate::demo_app::Latency) -> Result<Demo, RunnerError> {
        let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
        let evidence = out.join(format!("demo-{stamp}"));
        std::fs::create_dir_all(&evidence).map_err(|source| RunnerError::io(&evidence, source))?;
        let recording = evidence.join(DEMO_RECORDING_NAME);
        retrace_files::write_atomic(&recording, DEMO_RECORDING.as_bytes())
            .map_err(|source| RunnerError::io(&recording, source))?;
        let server = start_app(latency.0).await?;
        Ok(Demo {
            server,
            evidence,
            recording,
        })
    }

    /// The app's base URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The evidence directory.
    pub fn evidence(&self) -> &Path {
        &self.evidence
    }

    /// The recording replayed (its metadata records every replay).
    pub fn recording(&self) -> &Path {
        &self.recording
    }

    /// The replay of the phase on `layout`, in `chromium`.
    pub fn job(&self, layout: &str, chromium: &Path) -> ReplayJob {
        ReplayJob {
            file: self.recording.clone(),
            url: format!("{}?layout={layout}", self.server.url()),
            parameters: demo_parameters(),
            size: Some(DEMO_SIZE),
            settings: ReplaySettings {
                step_timeout: Duration::from_secs(5),
                ..ReplaySettings::default()
            },
            browser: BrowserConfig::launch(chromium, DEMO_SIZE),
            events_log: Some(self.evidence.join(format!("events-{layout}.jsonl"))),
            final_screenshot: Some(self.evidence.join(format!("final-{layout}.png"))),
            final_screenshot_when_passed: true,
            desktop: None,
            allow_app_commands: false,
        }
    }

    /// Stops the app.
    pub async fn shutdown(self) -> Result<(), RunnerError> {
        self.server
            .shutdown()
            .await
            .map_err(|error| RunnerError::Input(format!("stopping the demo app: {error}")))
    }
}

/// Whether the demo showed what it should: v1 passes; v2 repairs the moved sign-in button
/// (step [`REPAIRED_STEP`]) and fails with a mismatch at the changed "New invoice" button
/// (step [`CAUGHT_STEP`]).
pub fn judge(v1: &SessionReport, v2: &SessionReport) -> Result<(), String> {
    let Some(v1) = &v1.replay else {
        return Err(format!(
            "the recorded layout did not replay: {}",
            v1.error.as_deref().unwrap_or("no outcome")
        ));
    };
    if !v1.passed() {
        return Err(format!(
            "the recorded layout did not replay: {}",
            v1.failure
                .as_ref()
                .map_or("no failure given", |failure| failure.message.as_str())
        ));
    }
    let Some(v2) = &v2.replay else {
        return Err(format!(
            "v2 did not replay: {}",
            v2.error.as_deref().unwrap_or("no outcome")
        ));
    };
    if !v2.repairs.iter().any(|repair| repair.step == REPAIRED_STEP) {
        return Err(format!(
            "the moved sign-in button (step {REPAIRED_STEP}) was not repaired on v2"
        ));
    }
    match &v2.failure {
        Some(failure) if failure.step == CAUGHT_STEP && failure.kind == FailureKind::Mismatch => {
            Ok(())
        }
        Some(failure) => Err(format!(
            "v2 failed, but not with a mismatch at the changed New invoice button (step {CAUGHT_STEP}): step {} ({}): {}",
            failure.step,
            failure.kind.label(),
            failure.message
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
        // Never replayed in place: a replay of the asset itself would count its attempts into
        // the copy every test and `retrace demo` start from.
        assert_eq!(
            file["metadata"]["execution_attempts"], 0,
            "replayed in place"
        );
        assert!(
            file["metadata"]["last_executed_at"].is_null(),
            "replayed in place"
        );
        assert_eq!(file["metadata"]["failures"], serde_json::json!([]));
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
                // The after-action hash is the region's, or (that region blank) the
                // re-centred one's.
                let after = step[retrace_cache::fields::AFTER_HASH]
                    .as_str()
                    .or_else(|| step[retrace_cache::fields::RECENTRED_AFTER]["hash"].as_str());
                for hash in [step["visual_representation"].as_str(), after] {
                    let hash = hash.unwrap_or_default();
                    assert_eq!(hash.len(), 16, "step {index}: {hash:?}");
                }
            }
        }
    }
}
