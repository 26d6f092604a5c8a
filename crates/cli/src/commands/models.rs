//! `retrace models`: the models retrace knows, what each takes and costs, and when each is
//! retired, with the source of every row.

use crate::outcome::Outcome;
use crate::output::out;
use retrace_runner::models::CivilDate;
use retrace_runner::models::listing;

/// List the models retrace knows: provider, computer tool form, coordinate space, prices and
/// end of life, each row with its source.
///
/// Examples:
///   retrace models
///   retrace models --json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ModelsArgs {
    /// One JSON document on stdout (`version`, `default_model`, `today`, `models`).
    #[arg(long)]
    json: bool,
    /// The date end-of-life states are judged on (YYYY-MM-DD; default today).
    #[arg(long, hide = true, env = "RETRACE_TODAY", value_parser = |s: &str| s.parse::<CivilDate>().map_err(|e| e.to_string()))]
    today: Option<CivilDate>,
}

/// Prints the listing.
pub fn run(args: ModelsArgs) -> anyhow::Result<Outcome> {
    let listing = listing(args.today);
    if args.json {
        out!("{}", serde_json::to_string_pretty(&listing)?);
        return Ok(Outcome::Pass);
    }
    out!(
        "{:<32} {:<18} {:<26} {:<16} {:>14}  end of life",
        "model",
        "provider",
        "computer tool",
        "coordinates",
        "$/Mtok in/out"
    );
    for model in &listing.models {
        let info = model.row();
        let price = info.price.unwrap_or_else(|| "-".to_owned());
        let tool = info.computer_tool.unwrap_or("-");
        let end = match (info.end_of_life, model.retired) {
            (Some(date), true) => format!("{date} (retired)"),
            (Some(date), false) => date.to_string(),
            (None, _) => "-".to_owned(),
        };
        let name = if info.id == listing.default_model {
            format!("{} (default)", info.id)
        } else {
            info.id.to_owned()
        };
        out!(
            "{name:<32} {:<18} {tool:<26} {:<16} {price:>14}  {end}",
            info.provider,
            info.coordinates
        );
    }
    out!();
    out!("Sources: `retrace models --json` names each row's source.");
    Ok(Outcome::Pass)
}
