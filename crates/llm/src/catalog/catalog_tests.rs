use std::collections::HashSet;

use jiff::civil::date;

use super::*;

#[test]
fn ids_and_aliases_are_unique_and_every_row_names_its_source() {
    let mut seen = HashSet::new();
    for model in catalogue() {
        assert!(
            !model.source.trim().is_empty(),
            "{} has no source",
            model.id
        );
        for id in std::iter::once(&model.id).chain(model.aliases) {
            assert!(seen.insert(*id), "{id} is listed twice");
        }
    }
    assert!(seen.len() > 20);
}

#[test]
fn the_default_model_is_current_priced_and_takes_computer_use() {
    let info = lookup(DEFAULT_ANTHROPIC_MODEL).unwrap();
    assert_eq!(info.provider, ModelProvider::Anthropic);
    assert!(
        info.computer_tool
            .is_some_and(ComputerToolForm::is_anthropic)
    );
    assert!(info.end_of_life.is_none());
    assert!(info.pricing.is_some());
}

#[test]
fn aliases_find_their_model_and_unknown_ids_get_provider_defaults() {
    let info = lookup("claude-sonnet-4-5-20250929").unwrap();
    assert_eq!(info.id, "claude-sonnet-4-5");
    assert_eq!(info.computer_tool, Some(ComputerToolForm::Computer20250124));

    let unknown = profile(
        ModelProvider::Anthropic,
        "claude-future-9",
        ProfileOverrides::default(),
    );
    assert!(!unknown.known);
    assert_eq!(unknown.computer_tool, ComputerToolForm::NEWEST_ANTHROPIC);
    assert!(!unknown.takes_temperature);

    let open = profile(
        ModelProvider::OpenaiCompatible,
        "my-grounder",
        ProfileOverrides::default(),
    );
    assert_eq!(open.computer_tool, ComputerToolForm::Function);
    assert_eq!(open.coordinates, Coordinates::Pixels);
}

#[test]
fn overrides_win_over_the_catalogue() {
    let overridden = profile(
        ModelProvider::Anthropic,
        "claude-sonnet-4-6",
        ProfileOverrides {
            computer_tool: Some(ComputerToolForm::Computer20250124),
            coordinates: Some(Coordinates::Normalized { scale: 1000 }),
        },
    );
    assert!(overridden.known);
    assert_eq!(overridden.computer_tool, ComputerToolForm::Computer20250124);
    assert_eq!(
        overridden.coordinates,
        Coordinates::Normalized { scale: 1000 }
    );
    let qwen = profile(
        ModelProvider::OpenaiCompatible,
        "qwen2.5vl:7b",
        ProfileOverrides::default(),
    );
    assert_eq!(qwen.coordinates, Coordinates::Resized { factor: 28 });
}

#[test]
fn end_of_life_warns_before_and_after_the_date() {
    let before = end_of_life_notice("claude-sonnet-4-5", date(2026, 10, 31)).unwrap();
    assert!(before.contains("2026-11-30"), "{before}");
    assert!(before.contains("in 30 days"), "{before}");
    let after = end_of_life_notice("claude-sonnet-4-5-20250929", date(2026, 12, 1)).unwrap();
    assert!(
        after.contains("reached its end of life on 2026-11-30"),
        "{after}"
    );
    assert!(after.contains(DEFAULT_ANTHROPIC_MODEL), "{after}");
    assert_eq!(
        end_of_life_notice("claude-sonnet-4-5", date(2026, 8, 1)),
        None
    );
    assert_eq!(
        end_of_life_notice(DEFAULT_ANTHROPIC_MODEL, date(2026, 12, 1)),
        None
    );
    assert_eq!(end_of_life_notice("not-a-model", date(2026, 12, 1)), None);
}

#[test]
fn flag_values_parse_and_print_alike() {
    for form in ComputerToolForm::ALL {
        assert_eq!(form.name().parse::<ComputerToolForm>(), Ok(form));
    }
    let error = "computer_2099".parse::<ComputerToolForm>().unwrap_err();
    assert!(error.contains("computer_toolset_20260801"), "{error}");
    for text in ["pixels", "resized:28", "normalized:1000"] {
        assert_eq!(text.parse::<Coordinates>().unwrap().to_string(), text);
    }
    for bad in ["resized:0", "normalized:x", "inches", "resized"] {
        assert!(bad.parse::<Coordinates>().is_err(), "{bad}");
    }
}

#[test]
fn fallbacks_visit_every_anthropic_form_once() {
    let mut form = ComputerToolForm::NEWEST_ANTHROPIC;
    let mut seen = vec![form];
    for _ in 0..2 {
        form = form.anthropic_fallback().unwrap();
        assert!(!seen.contains(&form));
        seen.push(form);
    }
    assert_eq!(
        form.anthropic_fallback(),
        Some(ComputerToolForm::NEWEST_ANTHROPIC)
    );
}
