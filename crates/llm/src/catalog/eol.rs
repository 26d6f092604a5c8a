//! End of life: the warning a run prints when its model is retired or about to be.

use super::model_info::CivilDate;
use super::rows::DEFAULT_ANTHROPIC_MODEL;
use super::rows::lookup;

/// Today's date on this machine's clock, in its time zone.
pub fn today() -> CivilDate {
    jiff::Zoned::now().date()
}

/// How long before a model's end of life a run starts warning.
pub const WARN_DAYS_BEFORE: i32 = 60;

/// The warning for using `model` on `today`: past its end of life (requests fail), or within
/// [`WARN_DAYS_BEFORE`] days of it. `None` for current models and unknown ones. `today` is a
/// parameter so that callers (and tests) choose the clock.
pub fn end_of_life_notice(model: &str, today: CivilDate) -> Option<String> {
    let info = lookup(model)?;
    let date = info.end_of_life?;
    let days = (date - today).get_days();
    let advice = format!(
        "choose a current model with --model (`retrace models` lists them; the default is \
         {DEFAULT_ANTHROPIC_MODEL})"
    );
    if days <= 0 {
        Some(format!(
            "model {model} reached its end of life on {date}: the API refuses requests to it; {advice}"
        ))
    } else if days <= WARN_DAYS_BEFORE {
        let unit = if days == 1 { "day" } else { "days" };
        Some(format!(
            "model {model} reaches its end of life on {date}, in {days} {unit}; after that the API \
             refuses requests to it; {advice}"
        ))
    } else {
        None
    }
}
