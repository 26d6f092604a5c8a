use pretty_assertions::assert_eq;

use super::*;

fn quiet_page() -> PageActivity {
    PageActivity {
        requests_in_flight: 0,
        network_quiet_for: Duration::from_secs(2),
        navigation_pending: false,
        navigation_quiet_for: Duration::from_secs(2),
        document: Ok(DocumentActivity {
            ready_state: "complete".to_owned(),
            fonts_ready: true,
            animations_running: 0,
            animations: Vec::new(),
            media_playing: 0,
            dom_quiet_for: Duration::from_secs(2),
            dom_mutations: 0,
            render_quiet_for: Duration::ZERO,
            opaque_painters: 0,
            leaving_for: None,
        }),
    }
}

fn document(activity: &mut PageActivity) -> &mut DocumentActivity {
    activity.document.as_mut().unwrap()
}

#[test]
fn a_quiet_loaded_page_is_ready_and_settled() {
    let page = quiet_page();
    let ready = Readiness::assess(&page, &ReadinessOptions::ready_to_act());
    assert!(ready.ready, "{ready}");
    let conditions: Vec<Condition> = ready.conditions.iter().map(|c| c.condition).collect();
    assert_eq!(
        conditions,
        vec![
            Condition::Responsive,
            Condition::Loaded,
            Condition::FontsReady,
            Condition::NetworkQuiet,
            Condition::NoNavigation
        ]
    );
    let settled = Readiness::assess(&page, &ReadinessOptions::settled(Duration::from_secs(1)));
    assert!(settled.ready, "{settled}");
    assert_eq!(
        settled
            .condition(Condition::RenderingSettled)
            .unwrap()
            .detail,
        "no animation running, page unchanged for 2000 ms"
    );
}

#[test]
fn each_unmet_condition_is_named_in_the_report() {
    let mut page = quiet_page();
    page.requests_in_flight = 2;
    page.navigation_pending = true;
    document(&mut page).ready_state = "interactive".to_owned();
    document(&mut page).fonts_ready = false;
    let ready = Readiness::assess(&page, &ReadinessOptions::ready_to_act());
    assert!(!ready.ready);
    let unmet: Vec<(Condition, &str)> = ready
        .unmet()
        .map(|c| (c.condition, c.detail.as_str()))
        .collect();
    assert_eq!(
        unmet,
        vec![
            (Condition::Loaded, "document.readyState is interactive"),
            (Condition::FontsReady, "fonts not loaded"),
            (Condition::NetworkQuiet, "2 requests in flight"),
            (Condition::NoNavigation, "a navigation is pending"),
        ]
    );
    assert_eq!(
        ready.to_string(),
        "not ready after 0 ms: document.readyState is interactive; fonts not loaded; \
         2 requests in flight; a navigation is pending"
    );
}

#[test]
fn the_network_must_stay_quiet_for_the_whole_idle_time() {
    let mut page = quiet_page();
    page.network_quiet_for = Duration::from_millis(120);
    let ready = Readiness::assess(&page, &ReadinessOptions::ready_to_act());
    assert_eq!(
        ready.condition(Condition::NetworkQuiet).unwrap().detail,
        "the network was busy 120 ms ago (needs 500 ms quiet)"
    );
    assert!(!ready.ready);
}

#[test]
fn animations_media_and_recent_changes_keep_a_page_unsettled() {
    let options = ReadinessOptions::settled(Duration::from_millis(500));
    let mut page = quiet_page();
    document(&mut page).animations_running = 1;
    document(&mut page).animations = vec!["spin on div#loader".to_owned()];
    let report = Readiness::assess(&page, &options);
    assert_eq!(
        report
            .unmet()
            .map(|c| c.detail.as_str())
            .collect::<Vec<_>>(),
        vec!["an animation is running (spin on div#loader)"]
    );

    let mut page = quiet_page();
    document(&mut page).media_playing = 1;
    assert!(!Readiness::assess(&page, &options).ready);

    let mut page = quiet_page();
    document(&mut page).dom_quiet_for = Duration::from_millis(40);
    let report = Readiness::assess(&page, &options);
    assert_eq!(
        report
            .unmet()
            .map(|c| c.detail.as_str())
            .collect::<Vec<_>>(),
        vec!["the page changed 40 ms ago (needs 500 ms unchanged)"]
    );
    // Rendering is not part of readiness to act.
    assert!(Readiness::assess(&page, &ReadinessOptions::ready_to_act()).ready);
}

#[test]
fn a_page_that_does_not_answer_is_neither_ready_nor_settled() {
    let mut page = quiet_page();
    page.document = Err("no answer within 2000 ms".to_owned());
    let report = Readiness::assess(&page, &ReadinessOptions::settled(Duration::ZERO));
    assert!(!report.ready);
    assert_eq!(
        report
            .unmet()
            .map(|c| c.detail.as_str())
            .collect::<Vec<_>>(),
        vec![
            "the page did not answer: no answer within 2000 ms",
            "unknown: the page did not answer"
        ]
    );
}

#[test]
fn reports_serialise_with_snake_case_condition_names() {
    let report = Readiness::assess(&quiet_page(), &ReadinessOptions::settled(Duration::ZERO));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["ready"], true);
    assert_eq!(json["conditions"][0]["condition"], "responsive");
    assert_eq!(json["conditions"][3]["condition"], "rendering_settled");
}
