//! `retrace cache show`: one cache file in full: metadata, parameters, failures, and one
//! line per step.

use std::path::PathBuf;

use retrace_runner::cache::show::Shown;

use super::text::print_json;
use super::text::shorten;
use crate::outcome::Outcome;
use crate::output::out;

/// Show one cache file: its metadata (goal, replays, validity, visual validation, tokens),
/// its parameters, its recorded failures, and one line per step with the tool, the action,
/// the point it acts on and the recorded hash. The file is read as given (askui files and
/// legacy lists included) and never modified.
///
/// Examples:
///   retrace cache show .retrace_cache/login.json
///   retrace cache show .retrace_cache/login.json --json
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The cache file.
    pub file: PathBuf,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Shows the file.
pub fn run(args: ShowArgs) -> anyhow::Result<Outcome> {
    let file = retrace_runner::cache::show::show(&args.file)?;
    if args.json {
        print_json(file.to_json())?;
    } else {
        print_text(&args.file, &file)?;
    }
    Ok(Outcome::Pass)
}

fn print_text(path: &std::path::Path, meta: &Shown) -> std::io::Result<()> {
    out!("file:              {}", path.display());
    if meta.legacy_list {
        out!(
            "format:            legacy list (read as version {}, no metadata)",
            meta.version
        );
    } else {
        out!("format:            version {}", meta.version);
    }
    out!("goal:              {}", meta.goal.as_deref().unwrap_or("-"));
    if !meta.legacy_list {
        out!("created:           {}", meta.created);
    }
    out!(
        "last replay:       {}",
        meta.last_replay.as_deref().unwrap_or("never")
    );
    out!(
        "last passed:       {}",
        meta.last_passed.as_deref().unwrap_or("not recorded")
    );
    out!(
        "attempts:          {} ({} failures)",
        meta.attempts,
        meta.failures.len()
    );
    match (&meta.is_valid, &meta.invalidation_reason) {
        (true, _) => out!("valid:             yes"),
        (false, reason) => out!(
            "valid:             no: {}",
            reason.as_deref().unwrap_or("no reason given")
        ),
    }
    match &meta.visual_validation {
        Some((method, region_size)) => {
            out!("visual validation: {}, region {} px", method, region_size)
        }
        None => out!("visual validation: off"),
    }
    if let Some(usage) = &meta.token_usage {
        out!(
            "tokens:            input {}, output {}, cache write {}, cache read {}",
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens
        );
    }
    if meta.parameters.is_empty() {
        out!("parameters:        none");
    } else {
        out!("parameters:");
        for (name, description) in &meta.parameters {
            out!("  {{{{{name}}}}}  {description}");
        }
    }
    if !meta.failures.is_empty() {
        out!("failures:");
        for failure in &meta.failures {
            out!(
                "  {}  step {} (#{} there): {}",
                failure.timestamp,
                failure.step_index,
                failure.failure_count_at_step,
                failure.error_message
            );
        }
    }
    let steps = &meta.steps;
    let hashed = steps.iter().filter(|s| s.hash.is_some()).count();
    out!(
        "steps:             {} ({} with a hash)",
        steps.len(),
        hashed
    );
    let tool_width = steps
        .iter()
        .map(|s| s.base_tool.len())
        .max()
        .unwrap_or(4)
        .max(4);
    out!(
        "  {:>4}  {:<tool_width$}  {:<40}  {:<11}  HASH",
        "STEP",
        "TOOL",
        "ACTION",
        "POINT"
    );
    for step in steps {
        let point = step
            .point
            .map_or_else(|| "-".to_owned(), |(x, y)| format!("{x},{y}"));
        let action = if step.action.is_empty() {
            "-".to_owned()
        } else {
            shorten(&step.action, 40)
        };
        out!(
            "  {:>4}  {:<tool_width$}  {:<40}  {:<11}  {}",
            step.step,
            step.base_tool,
            action,
            point,
            step.hash.as_deref().unwrap_or("-")
        );
    }
    Ok(())
}
