use pretty_assertions::assert_eq;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::BoundingBox;
use retrace_drive::backend::ElementInfo;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumPage;
use retrace_protocol::element::FieldValue;
use retrace_protocol::element::Tristate;

use crate::common;
use crate::element_pages;

/// The centre of the first element `selector` matches (asked in the page's own world).
async fn centre_of(page: &ChromiumPage, selector: &str) -> Point {
    let bounds = page
        .query_selector(selector)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"));
    let (x, y) = bounds.centre();
    Point {
        x: x as i32,
        y: y as i32,
    }
}

async fn at(page: &ChromiumPage, point: Point) -> ElementInfo {
    page.element_at(point)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("nothing at {point:?}"))
}

async fn at_selector(page: &ChromiumPage, selector: &str) -> ElementInfo {
    at(page, centre_of(page, selector).await).await
}

/// (role, name, text, tag, selector) of an element.
fn identity(info: &ElementInfo) -> (&str, &str, &str, &str, &str) {
    (
        &info.role,
        &info.name,
        &info.text,
        &info.tag,
        &info.selector,
    )
}

async fn controls() -> (
    retrace_test_support::html_server::HtmlServer,
    retrace_drive::chromium::ChromiumBrowser,
    std::sync::Arc<ChromiumPage>,
) {
    let server = element_pages::serve_element_pages();
    let (browser, page) = common::page_at(&server.url("/controls")).await;
    common::wait_for_js(&page, "!!document.getElementById('panel').shadowRoot").await;
    common::wait_for_js(
        &page,
        "!!document.getElementById('frame').contentDocument?.getElementById('inner-ok')",
    )
    .await;
    (server, browser, page)
}

#[tokio::test]
async fn buttons_are_named_by_text_aria_label_or_title_and_links_by_their_text() {
    let (_server, _browser, page) = controls().await;

    let save = at(&page, Point { x: 70, y: 35 }).await;
    assert_eq!(
        identity(&save),
        ("button", "Save", "Save", "button", "#save")
    );
    assert_eq!(
        save.bounds,
        BoundingBox {
            x: 20.0,
            y: 20.0,
            width: 100.0,
            height: 30.0
        }
    );
    assert!(save.receives_events && save.blocked_reason.is_none());
    assert!(!save.disabled && !save.editable && save.value.is_none());

    let close = at_selector(&page, "#close").await;
    assert_eq!(
        identity(&close),
        ("button", "Close dialog", "×", "button", "#close")
    );
    let gear = at_selector(&page, "#gear svg").await;
    assert_eq!(
        identity(&gear),
        ("button", "Settings", "", "button", "#gear")
    );

    let next = at_selector(&page, "#next").await;
    assert_eq!(
        identity(&next),
        ("link", "Next page", "Next page", "a", "#next")
    );
}

#[tokio::test]
async fn inputs_are_named_by_their_labels_and_a_click_on_a_label_means_its_control() {
    let (_server, _browser, page) = controls().await;

    let email = at_selector(&page, "#email").await;
    assert_eq!(
        identity(&email),
        ("textbox", "Email", "", "input", "#email")
    );
    assert!(email.editable);
    assert_eq!(email.input_type.as_deref(), Some("text"));
    assert_eq!(email.value, Some(FieldValue::new("")));
    // The label's text is the control, to a click.
    let via_label = at_selector(&page, "label[for=email]").await;
    assert_eq!(via_label.selector, "#email");
    assert!(via_label.receives_events, "{via_label:?}");

    let full_name = at_selector(&page, "#wrap span").await;
    assert_eq!(
        identity(&full_name),
        (
            "textbox",
            "Full name",
            "",
            "input",
            "input[name=\"fullname\"]"
        )
    );
    assert_eq!(full_name.value, Some(FieldValue::new("Ann Lee")));

    let country = at_selector(&page, "#country").await;
    assert_eq!(
        identity(&country),
        ("combobox", "Country", "Germany", "select", "#country")
    );
    assert_eq!(country.value, Some(FieldValue::new("de")));
    let sizes = at_selector(&page, "#sizes").await;
    assert_eq!(
        (sizes.role.as_str(), sizes.name.as_str()),
        ("listbox", "Size")
    );
    let medium = page.find_elements("option", "Medium").await.unwrap();
    assert_eq!(medium.len(), 1, "{medium:?}");
    assert_eq!(medium[0].selected, Some(true));
    let large = page.find_elements("option", "Large").await.unwrap();
    assert_eq!(large[0].selected, Some(false));
}

#[tokio::test]
async fn checkboxes_report_their_state_before_and_after_a_click() {
    let (_server, _browser, page) = controls().await;

    let point = centre_of(&page, "#remember").await;
    let before = at(&page, point).await;
    assert_eq!(
        identity(&before),
        ("checkbox", "Remember me", "", "input", "#remember")
    );
    assert_eq!(before.checked, Some(Tristate::False));
    page.click(point, MouseButton::Left, 1).await.unwrap();
    assert_eq!(at(&page, point).await.checked, Some(Tristate::True));

    // A checkbox that ignores clicks: the click lands, the state does not change.
    let point = centre_of(&page, "#stuck").await;
    assert_eq!(at(&page, point).await.checked, Some(Tristate::False));
    page.click(point, MouseButton::Left, 1).await.unwrap();
    let after = at(&page, point).await;
    assert_eq!(after.name, "Stuck");
    assert_eq!(after.checked, Some(Tristate::False));

    // A custom checkbox: role and aria-checked.
    let point = centre_of(&page, "#terms").await;
    let terms = at(&page, point).await;
    assert_eq!(
        identity(&terms),
        ("checkbox", "Accept terms", "Accept terms", "div", "#terms")
    );
    assert_eq!(terms.checked, Some(Tristate::False));
    page.click(point, MouseButton::Left, 1).await.unwrap();
    assert_eq!(at(&page, point).await.checked, Some(Tristate::True));
}

#[tokio::test]
async fn spans_in_buttons_shadow_dom_and_iframes_resolve_to_the_control() {
    let (_server, _browser, page) = controls().await;

    let buy = at_selector(&page, "#buy-label").await;
    assert_eq!(
        identity(&buy),
        ("button", "Buy now", "Buy now", "button", "#buy")
    );

    let shadow = at(&page, Point { x: 120, y: 435 }).await;
    assert_eq!(
        identity(&shadow),
        (
            "button",
            "Shadow action",
            "Shadow action",
            "button",
            "#panel >>> button"
        )
    );
    assert!(shadow.receives_events, "{shadow:?}");

    // The iframe is at (400, 300) with a 5 px border; its button at (10, 10) inside.
    let pay = at(&page, Point { x: 465, y: 330 }).await;
    assert_eq!(
        identity(&pay),
        ("button", "Pay", "Pay", "button", "#frame >>> #inner-ok")
    );
    assert_eq!(
        pay.bounds,
        BoundingBox {
            x: 415.0,
            y: 315.0,
            width: 100.0,
            height: 30.0
        }
    );
    assert!(pay.receives_events, "{pay:?}");
}

#[tokio::test]
async fn toggle_buttons_and_disclosures_report_pressed_and_expanded() {
    let (_server, _browser, page) = controls().await;

    let point = centre_of(&page, "#bold").await;
    let bold = at(&page, point).await;
    assert_eq!(
        identity(&bold),
        ("button", "Bold", "Bold", "button", "#bold")
    );
    assert_eq!((bold.pressed, bold.checked), (Some(Tristate::False), None));
    page.click(point, MouseButton::Left, 1).await.unwrap();
    assert_eq!(at(&page, point).await.pressed, Some(Tristate::True));

    let point = centre_of(&page, "#more-summary").await;
    let more = at(&page, point).await;
    assert_eq!(
        identity(&more),
        (
            "button",
            "More options",
            "More options",
            "summary",
            "#more-summary"
        )
    );
    assert_eq!(more.expanded, Some(false));
    page.click(point, MouseButton::Left, 1).await.unwrap();
    assert_eq!(at(&page, point).await.expanded, Some(true));
}

#[tokio::test]
async fn covered_and_disabled_buttons_do_not_receive_events() {
    let (_server, _browser, page) = controls().await;

    let delete = at(&page, Point { x: 70, y: 485 }).await;
    assert_eq!(delete.selector, "#delete");
    assert!(!delete.receives_events);
    assert_eq!(
        delete.blocked_reason.as_deref(),
        Some("covered by div#overlay")
    );

    let archive = at(&page, Point { x: 70, y: 535 }).await;
    assert_eq!(
        identity(&archive),
        ("button", "Archive", "Archive", "button", "#archive")
    );
    assert!(archive.disabled && !archive.receives_events);
    assert_eq!(archive.blocked_reason.as_deref(), Some("disabled"));
}

/// "Active" renamed "Open" on a button of the same width: the element says so, whatever
/// the pixels say.
#[tokio::test]
async fn a_renamed_label_of_the_same_width_is_told_apart() {
    let server = element_pages::serve_element_pages();
    let (_browser, page) = common::page_at(&server.url("/active")).await;
    let point = Point { x: 70, y: 35 };
    let recorded = at(&page, point).await;
    page.navigate(&server.url("/open")).await.unwrap();
    let replayed = at(&page, point).await;

    assert_eq!(recorded.bounds, replayed.bounds);
    assert_eq!(
        (recorded.role.as_str(), recorded.name.as_str()),
        ("button", "Active")
    );
    assert_eq!(
        (replayed.role.as_str(), replayed.name.as_str()),
        ("button", "Open")
    );
}

#[tokio::test]
async fn the_focused_element_carries_the_typed_value() {
    let (_server, _browser, page) = controls().await;
    assert_eq!(page.focused_element().await.unwrap(), None);

    page.click(centre_of(&page, "#email").await, MouseButton::Left, 1)
        .await
        .unwrap();
    page.type_text("ann@example.com", None).await.unwrap();
    let focused = page.focused_element().await.unwrap().unwrap();
    assert_eq!(focused.selector, "#email");
    assert!(focused.focused);
    assert_eq!(focused.value, Some(FieldValue::new("ann@example.com")));

    // Focus inside the iframe is followed into it.
    page.click(Point { x: 465, y: 330 }, MouseButton::Left, 1)
        .await
        .unwrap();
    let focused = page.focused_element().await.unwrap().unwrap();
    assert_eq!(focused.selector, "#frame >>> #inner-ok");
}

#[tokio::test]
async fn find_elements_follows_a_control_that_moved_300_px() {
    let server = element_pages::serve_element_pages();
    let (_browser, page) = common::page_at(&server.url("/moving")).await;
    let recorded = at(&page, Point { x: 70, y: 35 }).await;
    assert_eq!(recorded.name, "Export");

    page.evaluate("moveExport()").await.unwrap();
    let moved = at(&page, Point { x: 70, y: 35 }).await;
    assert_eq!(
        (
            moved.role.as_str(),
            moved.tag.as_str(),
            moved.selector.as_str()
        ),
        ("generic", "html", "html"),
        "the old place is empty now: {moved:?}"
    );

    let found = page
        .find_elements(&recorded.role, &recorded.name)
        .await
        .unwrap();
    assert_eq!(
        found.len(),
        1,
        "the Exports not seen are not listed: {found:?}"
    );
    assert_eq!(found[0].selector, "#export");
    assert_eq!((found[0].bounds.x, found[0].bounds.y), (320.0, 320.0));
    assert!(found[0].receives_events);
    // Whitespace does not matter; the name must match whole.
    assert_eq!(
        page.find_elements("BUTTON", "  Export ")
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(
        page.find_elements("button", "Exp")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        page.find_elements("link", "Export")
            .await
            .unwrap()
            .is_empty()
    );
}

/// The page replaced hit testing, styles, boxes and more in its own world; the element
/// scripts run in an isolated world and still see the truth.
#[tokio::test]
async fn page_scripts_that_override_globals_do_not_change_the_answers() {
    let server = element_pages::serve_element_pages();
    let (_browser, page) = common::page_at(&server.url("/hostile")).await;
    // The page's own world really is broken.
    assert_eq!(
        page.evaluate("document.elementFromPoint(70, 35)")
            .await
            .unwrap(),
        serde_json::Value::Null
    );
    let real = at(&page, Point { x: 70, y: 35 }).await;
    assert_eq!(
        identity(&real),
        ("button", "Real", "Real", "button", "#real")
    );
    assert!(real.receives_events, "{real:?}");
    assert_eq!(page.find_elements("button", "Real").await.unwrap().len(), 1);
}
