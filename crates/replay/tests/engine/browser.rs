//! The checks a browser adds (semantic, state, readiness), on a scripted page: the element
//! at a point, the focused field, whether the page is busy.

use std::time::Duration;

use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::Event;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySettings;
use serde_json::Value;
use serde_json::json;

use crate::POINT;
use crate::Replayed;
use crate::page::PageModel;
use crate::page::element;
use crate::replay;
use crate::world::SIDE;
use crate::world::Step;
use crate::world::World;
use crate::world::control_at;
use crate::world::other_screen;
use crate::world::squares;
use crate::world::write_trajectory;

/// The control of `control_at(40, 80)` as the page describes it.
pub const CONTROL_BOX: (f64, f64, f64, f64) = (40.0, 80.0, 80.0, 80.0);

/// Settings for a step expected to fail after acting (an effect gets the step's whole time).
fn effect_fails() -> ReplaySettings {
    ReplaySettings {
        step_timeout: Duration::from_secs(2),
        ready_timeout: Duration::from_secs(600),
        ..ReplaySettings::default()
    }
}

/// Replays `file` with [`effect_fails`] settings.
async fn replay_until_an_effect_fails(
    world: &std::sync::Arc<World>,
    file: &std::path::Path,
) -> crate::Replayed {
    replay(world, ReplayRequest::new(file), effect_fails(), Vec::new()).await
}

/// Settings whose step time never runs out in a test: a step that ends does so for a reason
/// other than the clock.
fn patient() -> ReplaySettings {
    ReplaySettings {
        step_timeout: Duration::from_secs(600),
        ready_timeout: Duration::from_secs(600),
        ..ReplaySettings::default()
    }
}

/// Shows `screen` (the control at `CONTROL_BOX`) with a square blinking in the far corner,
/// for every screenshot a step could take: a change nowhere near the control.
fn blink_far_from_the_control(world: &World, screen: &retrace_vision::Image) {
    let blinking = squares(&[(40, 80), (80, 120), (200, 200)]);
    world.queue(
        (0..4000)
            .map(|frame| if frame % 2 == 0 { &blinking } else { screen }.clone())
            .collect(),
    );
}

/// An element as a trajectory step's field holds it.
pub fn as_json(element: &retrace_protocol::element::ElementInfo) -> Value {
    serde_json::to_value(element).unwrap()
}

/// A trajectory in `dir` of one click on the control of `control_at(40, 80)`, recorded as the
/// button "New invoice"; with the screen it was recorded on.
fn new_invoice_click(dir: &std::path::Path) -> (retrace_vision::Image, std::path::PathBuf) {
    let screen = control_at(40, 80);
    let recorded = element("button", "New invoice", CONTROL_BOX);
    let file = write_trajectory(
        dir,
        &[Step::click(POINT, &screen, &screen).with("element", as_json(&recorded))],
    );
    (screen, file)
}

#[tokio::test]
async fn a_control_renamed_under_the_same_pixels_fails_naming_both_names() {
    let dir = tempfile::tempdir().unwrap();
    let (screen, file) = new_invoice_click(dir.path());
    let world = World::browser(
        screen,
        PageModel {
            elements: vec![element("button", "Add invoice", CONTROL_BOX)],
            ..PageModel::default()
        },
    );
    let run = replay(&world, ReplayRequest::new(&file), patient(), Vec::new()).await;
    let failure = run.outcome().failure.clone().expect("the rename fails");
    assert_eq!((failure.step, failure.kind), (1, FailureKind::Mismatch));
    assert!(
        failure
            .message
            .contains("expected button 'New invoice', found button 'Add invoice'"),
        "{}",
        failure.message
    );
    // The page had settled and nothing matched: it failed then, not at the step's 600 s.
    assert!(
        failure.message.contains("The page settled"),
        "{}",
        failure.message
    );
    assert!(world.inputs().is_empty(), "nothing was clicked");
}

/// A change on screen away from the step's control (a progress bar in a corner) does not keep
/// a settled page's failing step waiting: only the control's region and the search around it
/// count.
#[tokio::test]
async fn a_change_far_from_the_control_does_not_hold_a_failing_step() {
    let dir = tempfile::tempdir().unwrap();
    let (screen, file) = new_invoice_click(dir.path());
    let world = World::browser(
        screen.clone(),
        PageModel {
            elements: vec![element("button", "Add invoice", CONTROL_BOX)],
            ..PageModel::default()
        },
    );
    blink_far_from_the_control(&world, &screen);
    let settings = ReplaySettings {
        search_radius: 10,
        step_timeout: Duration::from_secs(20),
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    let failure = run.outcome().failure.clone().expect("the rename fails");
    assert_eq!((failure.step, failure.kind), (1, FailureKind::Mismatch));
    // It failed once the control's surroundings stood still, not when the step's time ran out.
    assert!(
        failure.message.contains("The page settled"),
        "{}",
        failure.message
    );
    assert!(world.inputs().is_empty(), "nothing was clicked");
}

/// A caret blinking in a focused field right beside the control (inside the region watched for
/// the control's arrival) is a periodic change: it does not keep a settled page's failing
/// step waiting for the step timeout.
#[tokio::test]
async fn a_caret_blinking_beside_the_control_does_not_hold_a_failing_step() {
    let dir = tempfile::tempdir().unwrap();
    let (screen, file) = new_invoice_click(dir.path());
    let world = World::browser(
        screen.clone(),
        PageModel {
            elements: vec![element("button", "Add invoice", CONTROL_BOX)],
            ..PageModel::default()
        },
    );
    // A 2 px caret, 40 px tall, 10 px right of the control.
    let mut caret = screen.data().to_vec();
    for y in 90..130 {
        for x in 130..132 {
            caret[(y * screen.width() + x) as usize] = 0;
        }
    }
    let caret = retrace_vision::Image::new(
        screen.width(),
        screen.height(),
        retrace_vision::PixelLayout::Gray,
        caret,
    )
    .unwrap();
    world.queue(
        (0..4000)
            .map(|frame| if frame % 6 < 3 { &caret } else { &screen }.clone())
            .collect(),
    );
    let settings = ReplaySettings {
        search_radius: 10,
        step_timeout: Duration::from_secs(20),
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    let failure = run.outcome().failure.clone().expect("the rename fails");
    assert_eq!((failure.step, failure.kind), (1, FailureKind::Mismatch));
    assert!(
        failure.message.contains("The page settled"),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn a_control_moved_beyond_the_hash_search_is_found_by_role_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let recorded_screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[Step::click(POINT, &recorded_screen, &recorded_screen)
            .with("element", as_json(&element("button", "Save", CONTROL_BOX)))],
    );
    let world = World::browser(
        control_at(150, 150),
        PageModel {
            elements: vec![element("button", "Save", (150.0, 150.0, 80.0, 80.0))],
            ..PageModel::default()
        },
    );
    let settings = ReplaySettings {
        search_radius: 20,
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    run.assert_passed();
    assert_eq!(run.outcome().repairs.len(), 1);
    assert_eq!(run.outcome().repairs[0].offset, (110, 70));
    assert_eq!(world.inputs()[0]["coordinate"], json!([190, 190]));
}

/// A failure's evidence is a whole screenshot, taken after the parts the checks passed on:
/// far outside the part around the control, it shows the screen's light background, not a
/// blank.
fn assert_the_evidence_is_a_whole_screen(
    world: &World,
    failure: &retrace_protocol::events::ReplayFailure,
) {
    assert!(
        world.captures() > world.part_captures(),
        "a whole screen was looked at"
    );
    let shown = failure
        .actual_screen
        .as_ref()
        .expect("the screen as evidence");
    let shown = retrace_vision::decode_png(shown.bytes()).unwrap();
    assert_eq!(shown.to_rgba()[((5 * SIDE + 235) * 4) as usize], 230);
}

/// A browser screen is captured only around the control while the checks pass there (before
/// acting and after); a look that fails is taken again on the whole screen at once, so the failure's
/// evidence (and any search) is a whole screenshot, never the blank rest of a part.
#[tokio::test]
async fn a_look_before_acting_captures_the_control_alone_until_it_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (screen, file) = new_invoice_click(dir.path());
    // The part around the control: a 100 px region and 10 px of search on each side.
    let settings = ReplaySettings {
        search_radius: 10,
        ..patient()
    };
    for renamed in [false, true] {
        let name = if renamed {
            "Add invoice"
        } else {
            "New invoice"
        };
        let world = World::browser(
            screen.clone(),
            PageModel {
                elements: vec![element("button", name, CONTROL_BOX)],
                ..PageModel::default()
            },
        );
        let run = replay(
            &world,
            ReplayRequest::new(&file),
            settings.clone(),
            Vec::new(),
        )
        .await;
        if !renamed {
            run.assert_passed();
            // The look before acting and the effect after it, each at its part.
            assert_eq!((world.part_captures(), world.captures()), (2, 2));
            continue;
        }
        let failure = run.outcome().failure.clone().expect("the rename fails");
        assert_eq!((failure.step, failure.kind), (1, FailureKind::Mismatch));
        assert_the_evidence_is_a_whole_screen(&world, &failure);
    }
}

/// Replays one click on a screen that matches its recording, on `page`: the world, once the
/// replay passed, and how many screenshots had been taken when the click ran.
async fn one_matching_click(page: PageModel) -> (std::sync::Arc<World>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &screen, &screen)]);
    let world = World::browser(screen, page);
    let run = replay(&world, ReplayRequest::new(&file), patient(), Vec::new()).await;
    run.assert_passed();
    let acted_after = world.actions.lock().unwrap()[0].1;
    (world, acted_after)
}

#[tokio::test]
async fn a_busy_page_whose_pixels_match_is_not_acted_on_until_it_is_quiet() {
    let (world, acted_after) = one_matching_click(PageModel {
        busy_probes: 3,
        ..PageModel::default()
    })
    .await;
    assert!(
        acted_after >= 4,
        "acted after {acted_after} screenshots: before the page was quiet"
    );
    assert!(
        world.page().probes >= 4,
        "the page was asked until it was quiet"
    );
}

/// While the page says a navigation is under way, a poll asks only the page: a screenshot
/// would show the document going away, which no check may pass on. The first poll cannot
/// know (it asks while it captures); the next screenshot is taken once the navigation is over.
#[tokio::test]
async fn a_page_navigating_is_asked_without_screenshots_until_it_is_done() {
    let (world, acted_after) = one_matching_click(PageModel {
        navigating_probes: 6,
        ..PageModel::default()
    })
    .await;
    assert!(world.page().probes >= 7, "asked until the navigation ended");
    // One look as the step began, one once the navigation was over.
    assert_eq!(acted_after, 2, "screenshots before acting");
}

/// A keyboard step watches the focused field, not the whole screen: a square blinking far
/// from the field does not hold the typing until the step's time runs out.
#[tokio::test]
async fn typing_waits_for_the_focused_field_to_be_still_not_the_whole_screen() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let field = element("textbox", "Customer", CONTROL_BOX);
    let file = write_trajectory(dir.path(), &[Step::typing("Acme Corp")]);
    let world = World::browser(
        screen.clone(),
        PageModel {
            elements: vec![field.clone()],
            focused: Some(field),
            ..PageModel::default()
        },
    );
    blink_far_from_the_control(&world, &screen);
    let settings = ReplaySettings {
        step_timeout: Duration::from_secs(20),
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    run.assert_passed();
    let settled: Vec<bool> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ScreenSettled {
                step: 1, settled, ..
            } => Some(*settled),
            _ => None,
        })
        .collect();
    assert_eq!(
        settled,
        [true],
        "the field stood still, so the step settled"
    );
    assert_eq!(world.inputs().len(), 1, "typed once");
}

#[tokio::test]
async fn typing_the_page_rewrites_fails_at_the_typing_step_without_showing_the_text() {
    for drops_dots in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let screen = control_at(40, 80);
        let field = element("textbox", "Amount", CONTROL_BOX);
        let mut typed = field.clone();
        typed.value = Some(retrace_protocol::element::FieldValue::new("120.00"));
        let file = write_trajectory(
            dir.path(),
            &[
                Step::click(POINT, &screen, &screen).with("element", as_json(&field)),
                Step::typing("120.00").with("focused_after", as_json(&typed)),
            ],
        );
        let world = World::browser(
            screen,
            PageModel {
                elements: vec![field.clone()],
                focused: Some(field),
                drops_dots,
                ..PageModel::default()
            },
        );
        let run = replay_until_an_effect_fails(&world, &file).await;
        let failure = run.outcome().failure.clone();
        if !drops_dots {
            assert!(failure.is_none(), "{failure:?}");
            // The click's two looks; to settle before typing, one more compared with the
            // click's verified screen; the typed value is asked of the page, not the pixels.
            assert_eq!(world.captures(), 3);
            continue;
        }
        let failure = failure.expect("the rewritten value fails");
        assert_eq!((failure.step, failure.kind), (2, FailureKind::Effect));
        // A check that asked only the page still leaves the screen as evidence.
        let shown = failure
            .actual_screen
            .as_ref()
            .expect("the screen as evidence");
        let shown = retrace_vision::decode_png(shown.bytes()).unwrap();
        assert_eq!((shown.width(), shown.height()), (SIDE, SIDE));
        assert!(
            failure.message.contains("holds 5 characters, not the 6"),
            "{}",
            failure.message
        );
        assert!(!failure.message.contains("12000"), "{}", failure.message);
    }
}

#[tokio::test]
async fn a_checkbox_that_ignores_the_click_fails_at_its_own_step() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let unchecked = {
        let mut element = element("checkbox", "Mark as sent", CONTROL_BOX);
        element.checked = Some(retrace_protocol::element::Tristate::False);
        element
    };
    let mut checked = unchecked.clone();
    checked.checked = Some(retrace_protocol::element::Tristate::True);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &screen, &screen)
                .with("element", as_json(&unchecked))
                .with("element_after", as_json(&checked)),
            Step::click(POINT, &screen, &screen),
        ],
    );
    let world = World::browser(
        screen,
        PageModel {
            elements: vec![unchecked],
            ..PageModel::default()
        },
    );
    let run = replay_until_an_effect_fails(&world, &file).await;
    let failure = run
        .outcome()
        .failure
        .clone()
        .expect("the ignored click fails");
    assert_eq!((failure.step, failure.kind), (1, FailureKind::Effect));
    assert!(failure.message.contains("checked"), "{}", failure.message);
    assert_eq!(world.inputs().len(), 1, "step 2 never ran");
}

/// Two clicks: step 1 leads to `after`, then the screen turns to `later` (a canvas redrawn,
/// say) without any action. Step 2 was recorded on `after` (and led to `later`), at a point
/// whose region is mostly outside step 1's (so step 1's last screenshot shows it only when
/// it was taken for step 2 too: the world blanks what a part leaves out). The
/// replay's outcome, and how many screenshots it took, polling every `poll_interval` (the
/// time within which step 1's last screenshot is handed to step 2 as it is: zero for never).
async fn click_then_click_as_the_screen_turns(
    page: PageModel,
    poll_interval: Duration,
) -> (bool, usize) {
    let dir = tempfile::tempdir().unwrap();
    let before = control_at(40, 80);
    let after = squares(&[(40, 80), (80, 120), (140, 20)]);
    let later = crate::world::other_screen();
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &before, &after),
            Step::click((170, 50), &after, &later),
        ],
    );
    let world = World::browser(before, page);
    let (shown, turned) = (after.clone(), later.clone());
    world.on_next_action(Box::new(move |queue, settled| {
        queue.push(shown.clone());
        *settled = turned.clone();
    }));
    let settings = ReplaySettings {
        search_after: Duration::from_millis(50),
        poll_interval,
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    (run.outcome().failure.is_none(), world.captures())
}

/// A page with a canvas (which rules out reusing a screenshot later): the page's word does
/// not count for it.
fn canvas_page() -> PageModel {
    PageModel {
        quiet_for: Duration::from_secs(3600),
        opaque_painters: 1,
        ..PageModel::default()
    }
}

/// On a page that reports no request, navigation, DOM change, repaint, animation or opaque
/// painter since step 1's effect was seen, step 2 looks at that screenshot again instead of
/// taking a new one (the page's word is what decides: here the world turned anyway, and
/// step 2 passes on what the page said it still showed). Step 2 does not come within the
/// (zero) poll interval, so only the page's word can hand it the screenshot.
#[tokio::test]
async fn a_page_that_says_it_is_still_is_not_screenshotted_again_before_the_next_step() {
    let still = PageModel {
        quiet_for: Duration::from_secs(3600),
        ..PageModel::default()
    };
    let (passed, captures) = click_then_click_as_the_screen_turns(still, Duration::ZERO).await;
    assert!(passed, "step 2 looked at step 1's verified screen");
    // Step 1 before, step 1 after: nothing new before step 2 (whose after-action region is
    // blank, so not checked).
    assert_eq!(captures, 2);
}

/// A page with a canvas (or one that says it changed) is screenshotted again when step 2
/// does not come at once (within the zero poll interval): step 2 sees the turned screen and
/// fails instead of acting on what was there before.
#[tokio::test]
async fn a_page_that_can_repaint_unseen_is_screenshotted_again_before_the_next_step() {
    for page in [canvas_page(), PageModel::default()] {
        let (passed, captures) = click_then_click_as_the_screen_turns(page, Duration::ZERO).await;
        assert!(!passed, "step 2 was acted on a screen no longer shown");
        assert!(captures > 3, "{captures} screenshots");
    }
}

/// Step 1's screenshot, on which its effect was just seen, also shows what step 2 reads
/// before acting; step 2 comes within a poll interval (here 600 s) and takes it as its first
/// look as it is, without asking the page, even one with a canvas: it is the look a new
/// screenshot would have been a moment later (the turn after it falls in that moment).
#[tokio::test]
async fn the_next_step_takes_the_screenshot_the_last_one_just_passed_on_as_it_is() {
    let long = Duration::from_secs(600);
    let (passed, captures) = click_then_click_as_the_screen_turns(canvas_page(), long).await;
    assert!(passed, "step 2 looked at step 1's last screenshot");
    // Step 1 before, step 1 after: nothing new before step 2 (whose after-action region is
    // blank, so not checked).
    assert_eq!(captures, 2);
}

/// Before a typing step on a still page, the screen step 1 passed on stands for "settled":
/// no two screenshots and a poll interval to prove it again.
#[tokio::test]
async fn typing_after_a_verified_click_on_a_still_page_takes_no_screenshot_to_settle() {
    let (_, typed_after) = typing_after_a_click_into(CONTROL_BOX, still_page()).await;
    assert_eq!(
        typed_after, 2,
        "no screenshot after step 1's effect was seen"
    );
}

/// A page that says nothing has changed on it for an hour.
fn still_page() -> PageModel {
    PageModel {
        quiet_for: Duration::from_secs(3600),
        ..PageModel::default()
    }
}

/// The box of a focused field far from the 120 px square around the control (the square a
/// search radius of 10 makes).
const FAR_FIELD: (f64, f64, f64, f64) = (170.0, 4.0, 60.0, 20.0);

/// Replays a click on the control (the button "Customer"), then `typing`, on a page whose
/// focus is on `focused`, with a search radius of 10 and `settings` otherwise; the world and
/// the run.
async fn click_then_typing(
    typing: Step,
    focused: ElementInfo,
    page: PageModel,
    settings: ReplaySettings,
) -> (std::sync::Arc<World>, Replayed) {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &screen, &screen), typing]);
    let world = World::browser(
        screen,
        PageModel {
            elements: vec![element("button", "Customer", CONTROL_BOX)],
            focused: Some(focused),
            ..page
        },
    );
    let settings = ReplaySettings {
        search_radius: 10,
        ..settings
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    (world, run)
}

/// Replays a click on the control, then typing into the focused field whose box is
/// `field_box`; the world, and how many screenshots had been taken when the typing ran.
async fn typing_after_a_click_into(
    field_box: (f64, f64, f64, f64),
    page: PageModel,
) -> (std::sync::Arc<World>, usize) {
    let field = element("textbox", "Customer", field_box);
    let (world, run) = click_then_typing(Step::typing("Acme Corp"), field, page, patient()).await;
    run.assert_passed();
    let typed_after = world.actions.lock().unwrap()[1].1;
    (world, typed_after)
}

/// The look after a click captures the focused field too, away from the control as it may
/// be: the typing that follows waits for a still field, and on a still page that part
/// stands for it, with no new screenshot.
#[tokio::test]
async fn the_look_after_a_click_holds_the_focused_field_the_typing_waits_on() {
    let (world, typed_after) = typing_after_a_click_into(FAR_FIELD, still_page()).await;
    assert_eq!(
        typed_after, 2,
        "no screenshot after step 1's effect was seen"
    );
    assert_eq!((world.part_captures(), world.captures()), (2, 2));
}

/// On a page that may have changed since the click's effect was seen, the typing's wait for
/// a still field captures only the field: two screenshots of it that agree.
#[tokio::test]
async fn the_wait_for_a_still_field_captures_the_field_alone() {
    let (world, typed_after) = typing_after_a_click_into(FAR_FIELD, PageModel::default()).await;
    // Before, after, and the field again: it agrees with the part seen after the click.
    assert_eq!(typed_after, 3);
    assert_eq!((world.part_captures(), world.captures()), (3, 3));
}

/// The first pair of screenshots a still field needs is taken back to back (each capture is
/// a new frame, as Playwright's stability checks compare consecutive frames), not a poll
/// interval apart: with a poll interval of an hour, the typing still runs at once.
#[tokio::test]
async fn the_first_pair_of_a_still_field_is_taken_back_to_back() {
    let field = element("textbox", "Customer", FAR_FIELD);
    let settings = ReplaySettings {
        poll_interval: Duration::from_secs(3600),
        ..patient()
    };
    let typing = Step::typing("Acme Corp");
    let (world, run) = tokio::time::timeout(
        Duration::from_secs(300),
        click_then_typing(typing, field, PageModel::default(), settings),
    )
    .await
    .expect("the typing waited a poll interval for its second screenshot");
    run.assert_passed();
    // Before, after, and the field again: it agrees with the part seen after the click.
    assert_eq!(world.actions.lock().unwrap()[1].1, 3);
}

/// Replays a click on the control, then typing recorded into the textbox "Customer" (the
/// element that had the focus before it typed), on a page whose focus is on `focused` and
/// that is never still; the world and the run.
async fn typing_recorded_into_customer(
    focused: ElementInfo,
    step_timeout: Duration,
) -> (std::sync::Arc<World>, Replayed) {
    let customer = element("textbox", "Customer", FAR_FIELD);
    let typing = Step::typing("Acme Corp").with("element", as_json(&customer));
    let settings = ReplaySettings {
        step_timeout,
        ..patient()
    };
    click_then_typing(typing, focused, PageModel::default(), settings).await
}

/// Typing recorded with the element that had the focus checks, before a key is sent, that
/// the focus is on it, and waits for nothing else: no still field, no screenshot of it (the
/// page here is never still, which would otherwise cost two).
#[tokio::test]
async fn typing_checks_the_focus_is_on_the_recorded_field_instead_of_waiting_for_a_still_one() {
    let customer = element("textbox", "Customer", FAR_FIELD);
    let (world, run) = typing_recorded_into_customer(customer, Duration::from_secs(600)).await;
    run.assert_passed();
    // Before and after the click, and none for the typing.
    assert_eq!(world.actions.lock().unwrap()[1].1, 2);
    assert_eq!(world.captures(), 2);
    let semantic_steps: Vec<usize> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::CheckFinished(result) if result.check == "semantic" && result.passed => {
                Some(result.step)
            }
            _ => None,
        })
        .collect();
    assert!(semantic_steps.contains(&2), "{semantic_steps:?}");
    assert!(
        !run.events
            .iter()
            .any(|event| matches!(event, Event::ScreenSettled { step: 2, .. })),
        "the typing waited for a still screen"
    );
}

/// Typing whose recorded field does not have the focus fails at its own step before a key is
/// sent, naming both elements.
#[tokio::test]
async fn typing_fails_before_a_key_when_the_focus_is_elsewhere() {
    let save = element("button", "Save", CONTROL_BOX);
    let (world, run) = typing_recorded_into_customer(save, Duration::from_secs(1)).await;
    assert_typing_failed_on_save(&world, &run);
}

/// Typing whose field does not have the focus, on a page that says it has not repainted for
/// an hour, fails once it has been quiet for `search_after`, not after the step's 600 s.
#[tokio::test]
async fn typing_on_a_settled_page_whose_focus_is_elsewhere_fails_without_the_full_timeout() {
    let customer = element("textbox", "Customer", FAR_FIELD);
    let save = element("button", "Save", CONTROL_BOX);
    let typing = Step::typing("Acme Corp").with("element", as_json(&customer));
    let page = PageModel {
        quiet_for: Duration::from_secs(3600),
        ..PageModel::default()
    };
    let (world, run) = click_then_typing(typing, save, page, patient()).await;
    let failure = assert_typing_failed_on_save(&world, &run);
    assert!(
        failure.message.contains("The page settled"),
        "{}",
        failure.message
    );
}

/// Asserts the run failed at its typing step (2) before a key was sent, because the focus
/// was on "Save" instead of "Customer"; the failure.
fn assert_typing_failed_on_save(world: &World, run: &Replayed) -> ReplayFailure {
    let failure = run
        .outcome()
        .failure
        .clone()
        .expect("the focus is elsewhere");
    assert_eq!((failure.step, failure.kind), (2, FailureKind::Mismatch));
    assert!(
        failure
            .message
            .contains("expected the focus on textbox 'Customer', found it on button 'Save'"),
        "{}",
        failure.message
    );
    assert_eq!(world.inputs().len(), 1, "only the click was sent");
    failure
}

/// After a click, an effect the page takes a few screenshots to show is waited for at its
/// part alone; only a failure takes the whole screen, as its evidence.
#[tokio::test]
async fn an_effect_is_waited_for_at_its_part_and_a_failure_shows_the_whole_screen() {
    let dir = tempfile::tempdir().unwrap();
    let before = control_at(40, 80);
    let after = other_screen();
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &before, &after)]);
    for shown in [true, false] {
        let world = World::browser(before.clone(), PageModel::default());
        let (late, settled) = (before.clone(), if shown { &after } else { &before }.clone());
        world.on_next_action(Box::new(move |queue, screen| {
            queue.extend(std::iter::repeat_n(late.clone(), 3));
            *screen = settled.clone();
        }));
        let run = replay_until_an_effect_fails(&world, &file).await;
        if shown {
            run.assert_passed();
            // One look before acting, then the effect's part until it showed.
            assert_eq!((world.part_captures(), world.captures()), (5, 5));
            continue;
        }
        let failure = run.outcome().failure.clone().expect("no effect");
        assert_eq!((failure.step, failure.kind), (1, FailureKind::Effect));
        assert_the_evidence_is_a_whole_screen(&world, &failure);
    }
}

/// A wide field (wider than the square the checks read around the control) at the control.
const WIDE_FIELD: (f64, f64, f64, f64) = (40.0, 80.0, 190.0, 80.0);

/// Replays a click at the control, then `next` (typing, or another click there); the world.
/// The click was recorded on `recorded` (when given), which is also the page's element at
/// the control and its focused field.
async fn click_then(
    next: Step,
    field: ElementInfo,
    recorded: Option<&ElementInfo>,
) -> std::sync::Arc<World> {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let mut click = Step::click(POINT, &screen, &screen);
    if let Some(recorded) = recorded {
        click = click.with("element", as_json(recorded));
    }
    let file = write_trajectory(dir.path(), &[click, next]);
    let world = World::browser(
        screen,
        PageModel {
            elements: vec![field.clone()],
            focused: Some(field),
            ..still_page()
        },
    );
    let settings = ReplaySettings {
        search_radius: 10,
        ..patient()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, Vec::new()).await;
    run.assert_passed();
    world
}

/// The look after a click asks where the focus is only when the next step types: a click
/// followed by a click needs no focused field in its screenshot.
#[tokio::test]
async fn the_look_after_a_click_asks_for_the_focus_only_when_typing_follows() {
    let field = element("textbox", "Customer", WIDE_FIELD);
    let screen = control_at(40, 80);
    let world = click_then(Step::click(POINT, &screen, &screen), field.clone(), None).await;
    assert_eq!(world.page().focus_probes, 0, "no step types");
    let world = click_then(Step::typing("Acme Corp"), field, None).await;
    // After the click, and in the typing's wait for a still field.
    assert_eq!(world.page().focus_probes, 2);
}

/// A click recorded on a field is expected to focus it: the look after the click captures
/// where that field was recorded without asking the page first, and on a still page the
/// typing that follows reuses that screenshot (its field is all there).
#[tokio::test]
async fn the_look_after_a_click_on_a_recorded_field_captures_it_without_asking_the_page() {
    let field = element("textbox", "Customer", WIDE_FIELD);
    let world = click_then(Step::typing("Acme Corp"), field.clone(), Some(&field)).await;
    assert_eq!(
        world.page().focus_probes,
        1,
        "asked only in the typing's wait"
    );
    let typed_after = world.actions.lock().unwrap()[1].1;
    assert_eq!(typed_after, 2, "the typing reused the look after the click");
}
