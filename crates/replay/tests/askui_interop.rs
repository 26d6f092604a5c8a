//! Replays askui's own cache files (`shared/examples/askui/`) through the real
//! [`ReplaySpeaker`], askui's tools and headless Chromium, against a page that shows the
//! screenshots askui recorded them on.
//!
//! **The page.** For each example file, the `.expect.json` sidecar names the screenshot askui
//! hashed before every step (`before_image`). The page shows those 1280x800 PNGs full-size at
//! (0, 0) with no margins (as data URLs, one `<img>` per distinct image, only the current one
//! visible), and switches to the next screenshot where askui's stand-in computer switched
//! pages.
//!
//! **The switch points.** Where `before_image` changes at step `k`, the last step before `k`
//! that produces input events (a click or a key) is the one that changed the page. The page's
//! JavaScript counts the DOM events the replayed actions produce: one `mousedown` per click
//! (`number_of_clicks` of them), one `keydown` per non-modifier key (modifiers held by
//! `modifier_keys` or by Shift for capitals are not counted), one `keydown` per typed
//! character. The test adds these up per step and hands the page the running total at each
//! cause step; the page switches image once its own count reaches it. Counting in the page
//! needs no extra server round trip, and it is robust: a lost or extra event shows the wrong
//! screenshot and fails a visual check, and every test also reads the page's final count back
//! and compares it with the expected total. The page cancels default actions (keys, wheel,
//! selection), so nothing scrolls, selects or navigates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use retrace_agent::Conversation;
use retrace_agent::RunStatus;
use retrace_agent::speaker::SpeakerContext;
use retrace_cache::ParameterValues;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::tool::Toolbox;
use retrace_protocol::Message;
use retrace_protocol::events::CheckResult;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::MemorySink;
use retrace_protocol::events::ReplayOutcome;
use retrace_replay::CACHE_EXECUTOR;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySettings;
use retrace_replay::ReplaySpeaker;
use retrace_replay::screen::BackendScreen;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::html_server::HtmlServer;
use retrace_test_support::html_server::serve_html;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Map;
use serde_json::Value;

/// Every example file (cache file name, without the directory).
const EXAMPLES: [&str; 5] = [
    "std_search_error_code.json",
    "ownership_open_chapter.json",
    "platform_support_long.json",
    "reference_replays_with_failures.json",
    "legacy_v0_24_bare_list.json",
];

/// Parameter values for files whose sidecar records no replay: `error_code` is the error the
/// recorded result page (`rust_error_E0308`) shows.
const DEFAULT_PARAMETERS: [(&str, &str); 1] = [("error_code", "E0308")];

/// One example file, read with its sidecar.
struct Example {
    name: String,
    sidecar: Value,
    parameters: Map<String, Value>,
}

impl Example {
    fn load(name: &str) -> Self {
        let sidecar_name = name.replace(".json", ".expect.json");
        let sidecar = read_json(&askui_examples_dir().join(sidecar_name));
        let file = read_json(&askui_examples_dir().join(name));
        let mut parameters = Map::new();
        if let Some(names) = file.get("cache_parameters").and_then(Value::as_object) {
            let replayed = sidecar["replays"]
                .get(0)
                .map(|replay| replay["parameter_values"].clone());
            for name in names.keys() {
                let value = replayed
                    .as_ref()
                    .and_then(|values| values.get(name).cloned())
                    .or_else(|| {
                        DEFAULT_PARAMETERS
                            .iter()
                            .find(|(known, _)| known == name)
                            .map(|(_, value)| Value::from(*value))
                    })
                    .unwrap_or_else(|| panic!("{name}: no value for parameter `{name}`"));
                parameters.insert(name.clone(), value);
            }
        }
        Self {
            name: name.to_owned(),
            sidecar,
            parameters,
        }
    }

    fn steps(&self) -> &Vec<Value> {
        self.sidecar["steps"].as_array().unwrap()
    }

    /// Input events (mousedown/keydown as the page counts them) that replaying step `index`
    /// produces.
    fn events_of(&self, index: usize) -> u64 {
        let step = &self.steps()[index];
        let input = &step["input"];
        match step["base_name"].as_str().unwrap() {
            "mouse_click" => input
                .get("number_of_clicks")
                .and_then(Value::as_u64)
                .unwrap_or(1),
            "keyboard_tap" => 1,
            "type" => {
                let mut text = input["text"].as_str().unwrap().to_owned();
                for (name, value) in &self.parameters {
                    text = text.replace(&format!("{{{{{name}}}}}"), value.as_str().unwrap());
                }
                text.chars().count() as u64
            }
            _ => 0,
        }
    }

    /// The screenshots in the order the page shows them, and the event count after which
    /// the page moves from one to the next.
    fn screens(&self) -> (Vec<String>, Vec<u64>) {
        let mut images: Vec<String> = Vec::new();
        let mut switches = Vec::new();
        let mut total = 0;
        let mut last_cause_total = None;
        for (index, step) in self.steps().iter().enumerate() {
            if let Some(image) = step["before_image"].as_str() {
                match images.last() {
                    None => images.push(image.to_owned()),
                    Some(current) if current != image => {
                        let at = last_cause_total.unwrap_or_else(|| panic!("{}: the page changes before step {index} with no click or key before it", self.name));
                        images.push(image.to_owned());
                        switches.push(at);
                    }
                    Some(_) => {}
                }
            }
            let events = self.events_of(index);
            if events > 0 {
                total += events;
                last_cause_total = Some(total);
            }
        }
        (images, switches)
    }

    /// Every input event the whole replay produces.
    fn total_events(&self) -> u64 {
        (0..self.steps().len())
            .map(|index| self.events_of(index))
            .sum()
    }

    /// Steps with a recorded hash (those replay checks).
    fn hashed_steps(&self) -> Vec<usize> {
        self.steps()
            .iter()
            .enumerate()
            .filter(|(_, step)| step["visual_representation"].is_string())
            .map(|(index, _)| index)
            .collect()
    }

    /// Steps that act (replay skips screenshots).
    fn acting_steps(&self) -> usize {
        self.steps()
            .iter()
            .filter(|step| step["base_name"] != "screenshot")
            .count()
    }

    /// Copies the cache file into `dir`.
    fn copy_to(&self, dir: &Path) -> PathBuf {
        let path = dir.join(&self.name);
        std::fs::copy(askui_examples_dir().join(&self.name), &path).unwrap();
        path
    }
}

/// A page showing `images` (paths relative to `shared/vectors/`, one per page state) and
/// switching to the next after the `switches[i]`-th counted event.
fn screen_page(images: &[String], switches: &[u64]) -> String {
    let mut distinct: Vec<&String> = Vec::new();
    for image in images {
        if !distinct.contains(&image) {
            distinct.push(image);
        }
    }
    let tags: String = distinct
        .iter()
        .enumerate()
        .map(|(n, image)| {
            let png = std::fs::read(vectors_dir().join(image)).unwrap_or_else(|e| panic!("{image}: {e}"));
            let data = base64::engine::general_purpose::STANDARD.encode(png);
            let display = if n == 0 { "block" } else { "none" };
            format!(r#"<img id="s{n}" style="display:{display}" alt="" src="data:image/png;base64,{data}">"#)
        })
        .collect();
    let order: Vec<usize> = images
        .iter()
        .map(|image| distinct.iter().position(|d| *d == image).unwrap())
        .collect();
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><style>
html,body{{margin:0;padding:0;width:1280px;height:800px;overflow:hidden;background:#fff;user-select:none}}
img{{position:absolute;left:0;top:0;width:1280px;height:800px;pointer-events:none}}
</style></head><body>{tags}<script>
const order = {order:?};
const switches = {switches:?};
const modifiers = new Set(["Shift", "Control", "Alt", "Meta", "AltGraph", "CapsLock"]);
window.__events = 0;
let shown = 0;
function counted() {{
  window.__events += 1;
  while (shown < switches.length && window.__events >= switches[shown]) {{
    document.getElementById("s" + order[shown]).style.display = "none";
    shown += 1;
    document.getElementById("s" + order[shown]).style.display = "block";
  }}
}}
document.addEventListener("mousedown", (e) => {{ e.preventDefault(); counted(); }}, true);
document.addEventListener("keydown", (e) => {{ e.preventDefault(); if (!modifiers.has(e.key)) counted(); }}, true);
document.addEventListener("wheel", (e) => e.preventDefault(), {{ capture: true, passive: false }});
document.addEventListener("contextmenu", (e) => e.preventDefault(), true);
</script></body></html>"#
    )
}

/// Serves the page for `example`, its screenshots replaced as `overrides` says.
fn serve_example(example: &Example, overrides: &[(&str, &str)]) -> HtmlServer {
    let (mut images, switches) = example.screens();
    for image in &mut images {
        if let Some((_, replacement)) = overrides.iter().find(|(original, _)| original == image) {
            *image = (*replacement).to_owned();
        }
    }
    serve_html(&[("/", &screen_page(&images, &switches))])
}

async fn launch() -> ChromiumBrowser {
    retrace_test_support::chromium::started(&retrace_test_support::chromium::config(1280, 800))
        .await
}

/// What one replay did.
struct Run {
    status: RunStatus,
    outcome: ReplayOutcome,
    /// The visual checks, in order.
    checks: Vec<CheckResult>,
    page_events: u64,
}

/// Opens a page at `url` and replays `file` into it with askui's tools.
async fn replay(
    browser: &ChromiumBrowser,
    url: &str,
    file: &Path,
    parameters: &Map<String, Value>,
    settings: ReplaySettings,
) -> Run {
    let page = browser.open_page().await.unwrap();
    page.navigate(url).await.unwrap();
    let page = Arc::new(page);
    let backend: Arc<dyn Backend> = page.clone();
    let mut toolbox = Toolbox::new();
    for tool in retrace_replay::askui_tools::askui_tools(backend.clone()) {
        toolbox.add(tool);
    }
    let executor = ReplaySpeaker::new(settings, Arc::new(BackendScreen::new(backend.clone())));
    let sink = MemorySink::new();
    let events = Events::none().with(sink.clone());
    let mut conversation = Conversation::new(vec![Box::new(executor)], toolbox, events)
        .unwrap()
        .with_max_steps(1_000);
    let values: ParameterValues = parameters
        .iter()
        .map(|(name, value)| (name.clone(), value.as_str().unwrap().to_owned()))
        .collect();
    let context = SpeakerContext::of(ReplayRequest::new(file).with_parameters(values));
    let goal = format!("Replay {}", file.display());
    let report = conversation
        .run(
            &goal,
            vec![Message::user_text(goal.clone())],
            Some((CACHE_EXECUTOR, context)),
        )
        .await
        .unwrap();
    let page_events = page
        .evaluate("window.__events")
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    page.close().await.unwrap();
    let events = sink.events();
    let outcome = events
        .iter()
        .find_map(|event| match event {
            Event::ReplayFinished(outcome) => Some((**outcome).clone()),
            _ => None,
        })
        .expect("the replay reports its outcome");
    let checks = events
        .into_iter()
        .filter_map(|event| match event {
            Event::CheckFinished(check) if check.check == "visual" => Some(check),
            _ => None,
        })
        .collect();
    Run {
        status: report.status,
        outcome,
        checks,
        page_events,
    }
}

fn metadata(path: &Path) -> retrace_cache::CacheMetadata {
    retrace_cache::read_cache_file(path, retrace_cache::DEFAULT_MAX_FILE_SIZE)
        .unwrap()
        .metadata
}

fn settings(step_timeout: Duration) -> ReplaySettings {
    ReplaySettings {
        step_timeout,
        ..ReplaySettings::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_askui_example_replays_with_every_visual_check_passing() {
    retrace_test_support::require!(Chromium);
    let browser = launch().await;
    for name in EXAMPLES {
        let example = Example::load(name);
        let dir = tempfile::tempdir().unwrap();
        let file = example.copy_to(dir.path());
        let attempts_before = metadata(&file).execution_attempts;
        let failures_before = metadata(&file).failures.len();
        let server = serve_example(&example, &[]);
        let run = replay(
            &browser,
            &server.url("/"),
            &file,
            &example.parameters,
            settings(Duration::from_secs(5)),
        )
        .await;

        assert_eq!(
            run.status,
            RunStatus::Done,
            "{name}: {:?}",
            run.outcome.failure
        );
        assert!(run.outcome.passed(), "{name}: {:?}", run.outcome.failure);
        assert_eq!(run.outcome.failure, None, "{name}");
        assert_eq!(
            run.outcome.steps_replayed,
            example.acting_steps(),
            "{name}: steps replayed"
        );
        assert_eq!(
            run.page_events,
            example.total_events(),
            "{name}: input events the page received"
        );
        let hashed = example.hashed_steps();
        assert_eq!(
            run.outcome.passed_checks("visual"),
            hashed.len(),
            "{name}: checks passed"
        );
        assert!(
            run.outcome.repairs.is_empty(),
            "{name}: repairs {:?}",
            run.outcome.repairs
        );
        let checked: Vec<usize> = run
            .checks
            .iter()
            .map(|check| {
                assert!(
                    check.passed && check.distance <= check.threshold,
                    "{name}: step {}: distance {:?} > {:?}",
                    check.step,
                    check.distance,
                    check.threshold
                );
                // Events number steps from 1; the sidecar indexes them from 0.
                check.step - 1
            })
            .collect();
        assert_eq!(
            checked, hashed,
            "{name}: the steps checked are the hashed ones"
        );
        let after = metadata(&file);
        assert_eq!(
            after.execution_attempts,
            attempts_before + 1,
            "{name}: attempts"
        );
        assert_eq!(
            after.failures.len(),
            failures_before,
            "{name}: no failure recorded"
        );
        assert!(after.is_valid, "{name}");
    }
    let legacy = Example::load("legacy_v0_24_bare_list.json");
    assert!(
        legacy.hashed_steps().is_empty(),
        "the legacy file has no hashes, so it replays with zero checks"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_replays_add_exactly_eight_attempts() {
    retrace_test_support::require!(Chromium);
    let example = Example::load("reference_replays_with_failures.json");
    let dir = tempfile::tempdir().unwrap();
    let file = example.copy_to(dir.path());
    let before = metadata(&file);
    let server = serve_example(&example, &[]);
    let browser = launch().await;
    let url = server.url("/");
    // `Conversation::run` is not `Send`, so the 8 replays run concurrently on this task.
    let one = || {
        replay(
            &browser,
            &url,
            &file,
            &example.parameters,
            settings(Duration::from_secs(30)),
        )
    };
    let (a, b, c, d, e, f, g, h) =
        tokio::join!(one(), one(), one(), one(), one(), one(), one(), one());
    let mut completed = 0;
    for run in [a, b, c, d, e, f, g, h] {
        assert!(run.outcome.passed(), "{:?}", run.outcome.failure);
        assert_eq!(
            run.outcome.passed_checks("visual"),
            example.hashed_steps().len()
        );
        completed += 1;
    }
    assert_eq!(completed, 8);
    let after = metadata(&file);
    assert_eq!(after.execution_attempts, before.execution_attempts + 8);
    assert_eq!(after.failures, before.failures, "no failure was recorded");
    assert!(after.last_executed_at > before.last_executed_at);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_screen_fails_at_its_step_with_askuis_distance() {
    retrace_test_support::require!(Chromium);
    // askui's own replay 2 of this file showed the `__shift` variant and failed at step 6
    // with distance 13; with the search for moved regions off, retrace must agree exactly.
    let example = Example::load("reference_replays_with_failures.json");
    let askui_failure = &example.sidecar["replays"][1];
    let original = "images/screens/rust_reference_expressions_1280x800.png";
    let variant = askui_failure["screen_overrides"][original]
        .as_str()
        .unwrap();
    let step = askui_failure["failed_step_index"].as_u64().unwrap();
    let distance = askui_failure["hamming_distance"].as_u64().unwrap();
    assert_eq!((step, distance), (6, 13));

    let dir = tempfile::tempdir().unwrap();
    let file = example.copy_to(dir.path());
    let before = metadata(&file);
    let server = serve_example(&example, &[(original, variant)]);
    let browser = launch().await;
    let settings = ReplaySettings {
        step_timeout: Duration::from_secs(1),
        search_radius: 0,
        ..ReplaySettings::default()
    };
    let run = replay(
        &browser,
        &server.url("/"),
        &file,
        &example.parameters,
        settings,
    )
    .await;

    assert!(
        matches!(run.status, RunStatus::Failed(_)),
        "{:?}",
        run.status
    );
    assert!(!run.outcome.passed());
    let failure = run.outcome.failure.clone().unwrap();
    assert_eq!(failure.step as u64, step + 1, "1-based in reports");
    let message = failure.message;
    assert!(
        message.contains(&format!("step {} ", step + 1)),
        "{message}"
    );
    assert!(
        message.contains(&format!("Hamming distance: {distance} > threshold: 10")),
        "{message}"
    );
    let failed: Vec<(usize, u32, bool)> = run
        .checks
        .iter()
        .map(|check| (check.step - 1, check.distance.unwrap(), check.passed))
        .collect();
    // Step 1 passes on the variant (askui measured 5), step 6 fails; nothing after it runs.
    assert_eq!(
        failed
            .iter()
            .map(|(index, _, _)| *index)
            .collect::<Vec<_>>(),
        vec![1, 6]
    );
    assert!(failed[0].2);
    assert_eq!(failed[1], (6, 13, false));

    let after = metadata(&file);
    assert_eq!(after.execution_attempts, before.execution_attempts + 1);
    assert_eq!(after.failures.len(), before.failures.len() + 1);
    let failure = after.failures.last().unwrap();
    assert_eq!(failure.step_index, step);
    assert_eq!(
        failure.failure_count_at_step, 3,
        "askui's two failures at step 6 plus this one"
    );
    assert!(
        failure
            .error_message
            .contains("Hamming distance: 13 > threshold: 10"),
        "{}",
        failure.error_message
    );
    // Three failures at one step: the default validators invalidate the file.
    assert!(!after.is_valid);
    assert!(
        after
            .invalidation_reason
            .as_deref()
            .unwrap_or_default()
            .contains("Step 6 failed 3 times"),
        "{:?}",
        after.invalidation_reason
    );
}
