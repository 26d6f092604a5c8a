//! The model judge in `run_check_with_judge`, in real headless Chromium against the demo
//! app's refactor pages, judged by a scripted fake model speaking the real Anthropic Messages
//! protocol over HTTP. The seed's testing checklist, one rule per test:
//!
//! - PASS (the judge overrules noise) and the cache (a rerun of the unchanged page makes no
//!   model request); FAIL (never retried); ERROR when a page does not load (no model asked);
//!   a transient model failure retried (500, then PASS; every attempt logged); the shared
//!   timeout (an answer slower than `timeouts.model_ms` is an ERROR naming it, and the report
//!   echoes the timeouts); malformed JSON → ERROR; confidence 79 → ERROR; PASS listing
//!   differences → FAIL; a PASS while the pixels are above the hard ceiling → ERROR; identical
//!   pages never ask.
//! - The judge may overrule only pixels the DOM does not explain (the `overlay` variant: an
//!   icon painted over by a background image); a fact the DOM confirms (the `colour`
//!   variant's recoloured icon, the `shift` variant's moved card) stays a FAIL whatever it
//!   answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use retrace_check::CheckRun;
use retrace_check::CheckSpec;
use retrace_check::JudgeOptions;
use retrace_check::JudgeWhen;
use retrace_check::Retry;
use retrace_check::Timeouts;
use retrace_check::Viewport;
use retrace_check::run_check_with_judge;
use retrace_demo::Variant;
use retrace_demo::site::seeded_change;
use retrace_llm::ApiKey;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_protocol::events::ChangeKind;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::MemorySink;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Verdict;
use retrace_test_support::demo::DemoServer;
use retrace_test_support::demo::start_variant;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::require;
use serde_json::json;

const CONTEXT: &str = "src/features/icon.css:12 (icon layers merged)";

/// A judge's answer in the comparison schema.
fn answer(verdict: &str, confidence: u32, differences: serde_json::Value) -> ScriptStep {
    ScriptStep::text(
        json!({
            "verdict": verdict,
            "confidence": confidence,
            "visual_differences": differences,
            "summary": "scripted judgement",
        })
        .to_string(),
    )
}

fn icon_lighter() -> serde_json::Value {
    json!([{"type": "styling", "description": "the reminders icon is lighter", "severity": "minor"}])
}

fn judge(fake: &FakeAnthropic) -> AnthropicClient {
    let config = AnthropicConfig::new(ApiKey::new("test-key"), "claude-judge")
        .with_base_url(fake.base_url());
    AnthropicClient::new(config).unwrap()
}

/// A check of one page of `candidate` against `baseline`, no retries unless set.
fn spec(
    baseline: &DemoServer,
    candidate: &DemoServer,
    path: &str,
    when: JudgeWhen,
) -> (CheckSpec, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let spec = CheckSpec {
        baseline: baseline.url(),
        candidate: candidate.url(),
        pages: vec![path.to_owned()],
        viewports: vec![Viewport {
            width: 1280,
            height: 720,
        }],
        out_dir: out.path().to_path_buf(),
        retry: Retry {
            retries: 0,
            backoff_ms: vec![100],
        },
        judge: JudgeOptions {
            when,
            context: Some(CONTEXT.to_owned()),
            ..JudgeOptions::default()
        },
        ..CheckSpec::default()
    };
    (spec, out)
}

async fn check(spec: &CheckSpec, fake: &FakeAnthropic, events: &Events) -> (CheckRun, PageCheck) {
    let client = judge(fake);
    let run = run_check_with_judge(spec, Some(&client), events)
        .await
        .unwrap();
    let page = run.pages[0].clone();
    (run, page)
}

fn overlay_path() -> &'static str {
    seeded_change(Variant::Overlay).unwrap().path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judges_pass_overrules_noise_and_a_rerun_asks_no_model() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    let fake = FakeAnthropic::start(vec![answer("PASS", 95, json!([]))]).await;
    let (spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Noise);

    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert_eq!(page.confidence, Some(95));
    let judged = page.judge.as_ref().expect("the judge was asked");
    assert_eq!((judged.verdict, judged.cached), (Verdict::Pass, false));
    assert!(page.differences.is_empty(), "{:?}", page.differences);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    retrace_test_support::sdk_check::assert_requests_valid(&requests);
    assert_eq!(
        requests[0].images().len(),
        3,
        "baseline, candidate and diff images"
    );
    let body = requests[0].body().to_string();
    assert!(body.contains("visual regression detector"), "{body:.300}");
    assert!(body.contains(CONTEXT), "the context is passed through");
    assert!(body.contains("diff_pixels"), "the structural diff is sent");

    let (_, again) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(again.verdict, Verdict::Pass, "{again:?}");
    assert!(again.judge.as_ref().unwrap().cached);
    assert_eq!(
        fake.requests().len(),
        1,
        "an unchanged page is not judged twice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judges_fail_is_a_fail_with_its_differences_and_never_retried() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    let fake = FakeAnthropic::start(vec![answer("FAIL", 90, icon_lighter())]).await;
    let (mut spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Noise);
    spec.retry.retries = 2;
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert_eq!(page.attempts.len(), 1, "a FAIL is never retried");
    assert!(
        page.differences
            .iter()
            .any(|d| d.description == "the reminders icon is lighter"),
        "{:?}",
        page.differences
    );
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_loads_is_an_error_and_no_model_is_asked() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::NeverLoads).await;
    let path = seeded_change(Variant::NeverLoads).unwrap().path;
    let fake = FakeAnthropic::start(vec![answer("PASS", 99, json!([]))]).await;
    let (mut spec, _out) = spec(&baseline, &candidate, path, JudgeWhen::Always);
    spec.retry.retries = 1;
    // The page never loads, so this limit is always reached; the baseline loads in far less.
    spec.timeouts.navigation_ms = 8_000;
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Error, "{page:?}");
    assert_eq!(page.attempts.len(), 2);
    assert!(page.error.as_deref().unwrap().contains("did not load"));
    assert!(page.judge.is_none());
    assert_eq!(fake.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transient_model_failure_is_retried_and_every_attempt_logged() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    let fake = FakeAnthropic::start(vec![
        ScriptStep::server_error(500),
        answer("PASS", 92, json!([])),
    ])
    .await;
    let (mut spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Noise);
    spec.retry.retries = 2;
    let sink = MemorySink::new();
    let events = Events::none().with(sink.clone());
    let (_, page) = check(&spec, &fake, &events).await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert_eq!(fake.requests().len(), 2);
    let logged: Vec<_> = sink
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::CheckAttemptFinished { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(logged.len(), 2, "{logged:?}");
    let first = &logged[0];
    assert_eq!(first.verdict, Verdict::Error);
    assert!(
        first.error.as_deref().unwrap().contains("500"),
        "{:?}",
        first.error
    );
    assert_eq!(first.judge.as_ref().unwrap().verdict, Verdict::Error);
    assert!(first.evidence.iter().any(|p| p.ends_with("diff.png")));
    assert_eq!(
        (logged[1].verdict, logged[1].confidence),
        (Verdict::Pass, Some(92))
    );
    let status = sink.events().into_iter().find_map(|e| match e {
        Event::TestFinished(t) => Some(t.status),
        _ => None,
    });
    assert_eq!(status, Some(TestStatus::Flaky));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_slower_than_the_shared_model_timeout_is_an_error_naming_it() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    // Far slower than the limit: the answer can never come in time.
    let slow = answer("PASS", 95, json!([])).delayed(Duration::from_secs(600));
    let fake = FakeAnthropic::start(vec![slow]).await;
    let (mut spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Noise);
    spec.timeouts = Timeouts {
        model_ms: 2_000,
        ..Timeouts::default()
    };
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Error, "{page:?}");
    let error = page.error.as_deref().unwrap();
    assert!(error.contains("timeouts.model_ms (2000 ms)"), "{error}");
    assert_eq!(fake.requests().len(), 1);
    // The one timeout configuration is echoed in the report.
    assert_eq!(page.timeouts, serde_json::to_value(&spec.timeouts).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_unsure_or_contradictory_answers_follow_the_rules() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    let fake = FakeAnthropic::start(vec![
        ScriptStep::text(r#"{"verdict": "PASS", "confidence": 9"#),
        answer("PASS", 79, json!([])),
        answer("PASS", 95, icon_lighter()),
    ])
    .await;
    let expected = [
        (Verdict::Error, Some("holds no JSON object")),
        (Verdict::Error, Some("confidence 79")),
        (Verdict::Fail, None),
    ];
    for (verdict, error) in expected {
        let (spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Noise);
        let (_, page) = check(&spec, &fake, &Events::none()).await;
        assert_eq!(page.verdict, verdict, "{page:?}");
        match error {
            Some(part) => assert!(
                page.error.as_deref().unwrap_or_default().contains(part),
                "{:?}",
                page.error
            ),
            None => assert!(
                page.differences
                    .iter()
                    .any(|d| d.description == "the reminders icon is lighter"),
                "{:?}",
                page.differences
            ),
        }
    }
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_while_the_pixels_are_over_the_ceiling_is_an_error() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Overlay).await;
    let fake = FakeAnthropic::start(vec![answer("PASS", 97, json!([]))]).await;
    // A hard ceiling of no differing pixel at all: the painted-over icon is above it.
    let (mut spec, _out) = spec(&baseline, &candidate, overlay_path(), JudgeWhen::Always);
    spec.judge.ceiling_ratio = 0.0;
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Error, "{page:?}");
    let error = page.error.as_deref().unwrap();
    assert!(error.contains("disagrees with the pixels"), "{error}");
    assert_eq!(fake.requests().len(), 1);
}

/// A colour the DOM confirms (the icon's computed background differs) is a fact, not noise:
/// with the judge asked about noise only it is a FAIL the model never hears of; asked always
/// (to explain), neither its PASS nor an unusable answer turns that FAIL into a PASS or an
/// ERROR, and a FAIL is not retried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_colour_the_dom_confirms_stays_a_fail_whatever_the_judge_answers() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Colour).await;
    let path = seeded_change(Variant::Colour).unwrap().path;
    let fake = FakeAnthropic::start(vec![
        answer("PASS", 97, json!([])),
        ScriptStep::text("VALIDATION PASSED but the icon looks a bit lighter"),
    ])
    .await;
    let (spec_noise, _out) = spec(&baseline, &candidate, path, JudgeWhen::Noise);
    let (_, page) = check(&spec_noise, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert!(page.judge.is_none(), "{page:?}");
    assert_eq!(fake.requests().len(), 0, "a confirmed colour is not noise");

    for (n, judge_verdict) in [(1, Verdict::Pass), (2, Verdict::Error)] {
        let (mut spec, _out) = spec(&baseline, &candidate, path, JudgeWhen::Always);
        spec.retry.retries = 2;
        let (_, page) = check(&spec, &fake, &Events::none()).await;
        assert_eq!(
            page.verdict,
            Verdict::Fail,
            "judge {judge_verdict:?}: {page:?}"
        );
        assert_eq!(page.attempts.len(), 1, "a FAIL is never retried");
        assert_eq!(page.error, None, "{page:?}");
        let colour = page
            .differences
            .iter()
            .find(|d| d.change == Some(ChangeKind::Colour))
            .unwrap_or_else(|| panic!("the colour stays: {:?}", page.differences));
        assert!(colour.region.is_some(), "{colour:?}");
        let judged = page.judge.as_ref().expect("the judge was asked to explain");
        assert_eq!(judged.verdict, judge_verdict, "{judged:?}");
        assert_eq!(fake.requests().len(), n);
    }
}

/// A moved element is a fact the DOM shows, not noise: with the judge asked about noise only,
/// a 4 px shift (far under the default ceiling) is a FAIL the model never hears of.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shift_is_not_noise_and_the_judge_is_not_asked() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::Shift).await;
    let path = seeded_change(Variant::Shift).unwrap().path;
    let fake = FakeAnthropic::start(vec![answer("PASS", 97, json!([]))]).await;
    let (spec, _out) = spec(&baseline, &candidate, path, JudgeWhen::Noise);
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Fail, "{page:?}");
    assert!(page.judge.is_none(), "{page:?}");
    assert_eq!(fake.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_pages_never_ask_the_judge() {
    require!(Chromium);
    let baseline = start_variant(Variant::Baseline).await;
    let candidate = start_variant(Variant::IdenticalMarkup).await;
    let fake = FakeAnthropic::start(vec![answer("FAIL", 90, icon_lighter())]).await;
    let (spec, _out) = spec(&baseline, &candidate, "/site/features", JudgeWhen::Always);
    let (_, page) = check(&spec, &fake, &Events::none()).await;
    assert_eq!(page.verdict, Verdict::Pass, "{page:?}");
    assert!(page.judge.is_none());
    assert_eq!(fake.requests().len(), 0);
}
