//! What a step's last look hands to the next step besides its screenshot: the page's answers
//! to the next step's checks, asked while that screenshot was taken; and after typing, the
//! screenshot of what the next click looks at first, taken while the typed value is checked.

use std::time::Duration;

use retrace_protocol::element::FieldValue;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySettings;

use crate::POINT;
use crate::browser::CONTROL_BOX;
use crate::browser::as_json;
use crate::page::PageModel;
use crate::page::element;
use crate::replay;
use crate::world::Step;
use crate::world::World;
use crate::world::control_at;
use crate::world::write_trajectory;

/// Settings under which every look that comes after another with no action between is within
/// a poll interval of it (`handed_over`: an hour) or never is (zero). Nothing here fails a
/// look, so no poll waits the interval out.
fn polling(handed_over: bool) -> ReplaySettings {
    ReplaySettings {
        step_timeout: Duration::from_secs(600),
        ready_timeout: Duration::from_secs(600),
        poll_interval: match handed_over {
            true => Duration::from_secs(3600),
            false => Duration::ZERO,
        },
        ..ReplaySettings::default()
    }
}

/// Replays `steps` on the control of `control_at(40, 80)`, a page whose focus is on the
/// textbox "Customer" there, polling as [`polling`] says; the world, once the run passed.
async fn replay_on_customer(steps: Vec<Step>, handed_over: bool) -> std::sync::Arc<World> {
    let dir = tempfile::tempdir().unwrap();
    let file = write_trajectory(dir.path(), &steps);
    let customer = element("textbox", "Customer", CONTROL_BOX);
    let world = World::browser(
        control_at(40, 80),
        PageModel {
            elements: vec![customer.clone()],
            focused: Some(customer),
            ..PageModel::default()
        },
    );
    let run = tokio::time::timeout(
        Duration::from_secs(300),
        replay(
            &world,
            ReplayRequest::new(&file),
            polling(handed_over),
            Vec::new(),
        ),
    )
    .await
    .expect("a look failed and waited out the hour-long poll interval");
    run.assert_passed();
    world
}

/// How many times the page was asked whether it is busy, and where its focus is.
fn questions(world: &World) -> (usize, usize) {
    let page = world.page();
    (page.probes, page.focus_probes)
}

/// A click on the textbox, recorded on it.
fn click_customer() -> Step {
    let screen = control_at(40, 80);
    let customer = element("textbox", "Customer", CONTROL_BOX);
    Step::click(POINT, &screen, &screen).with("element", as_json(&customer))
}

/// Typing "Acme Corp" into the textbox, recorded with the focus on it before and its value
/// after.
fn type_customer() -> Step {
    let customer = element("textbox", "Customer", CONTROL_BOX);
    let mut typed = customer.clone();
    typed.value = Some(FieldValue::new("Acme Corp"));
    Step::typing("Acme Corp")
        .with("element", as_json(&customer))
        .with("focused_after", as_json(&typed))
}

/// The look after a click asks where the focus is while its screenshot is taken; the typing
/// that follows at once takes that answer, and asks the page nothing before it types. When
/// it does not follow within a poll interval, it asks again.
#[tokio::test]
async fn typing_takes_the_focus_the_look_after_the_click_asked_for() {
    let world = replay_on_customer(vec![click_customer(), type_customer()], true).await;
    // Whether the page is busy: before and after the click, and after the typing; where the
    // focus is: asked ahead of the typing, and after it for the value typed.
    assert_eq!(questions(&world), (3, 2));

    let world = replay_on_customer(vec![click_customer(), type_customer()], false).await;
    // The typing's own look asks both again.
    assert_eq!(questions(&world), (4, 3));
}

/// After typing, the check of the typed value also captures what the next click looks at
/// first (and asks the page about its control); the click takes both and asks the page
/// nothing before it acts.
#[tokio::test]
async fn a_click_after_typing_takes_the_look_taken_while_the_value_was_checked() {
    let steps = || vec![click_customer(), type_customer(), click_customer()];
    let world = replay_on_customer(steps(), true).await;
    // Whether the page is busy: before and after each click, and after the typing.
    assert_eq!(world.page().probes, 4);
    // Before the first click, after it, after the typing (the second click's first look),
    // after the second click.
    assert_eq!(world.captures(), 4);
    assert_eq!(world.actions.lock().unwrap()[2].1, 3);

    let world = replay_on_customer(steps(), false).await;
    // The second click looks again itself (the typing's look is not handed over): it asks
    // whether the page changed since, then whether it is busy as it takes its screenshot.
    assert_eq!((world.page().probes, world.captures()), (7, 5));
}
