//! `retrace cache show`: one cache file in full: metadata, parameters, failures, and one
//! line per step.

use std::path::PathBuf;

use retrace_cache::CacheFile;
use retrace_cache::CacheFormat;
use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::format_timestamp;
use retrace_cache::read_cache_file;
use retrace_cache::summarize;
use serde_json::json;

use super::print_json;
use super::shorten;
use crate::outcome::Outcome;

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
    let file = read_cache_file(&args.file, DEFAULT_MAX_FILE_SIZE)?;
    if args.json {
        print_json(&json!({
            "file": args.file.display().to_string(),
            "format": file.format,
            "metadata": file.metadata,
            "cache_parameters": file.cache_parameters,
            "steps": summarize(&file.trajectory),
        }))?;
    } else {
        print_text(&args.file, &file);
    }
    Ok(Outcome::Pass)
}

fn print_text(path: &std::path::Path, file: &CacheFile) {
    let meta = &file.metadata;
    println!("file:              {}", path.display());
    match file.format {
        CacheFormat::Object => println!("format:            version {}", meta.version),
        CacheFormat::LegacyList => println!(
            "format:            legacy list (read as version {}, no metadata)",
            meta.version
        ),
    }
    println!("goal:              {}", meta.goal.as_deref().unwrap_or("-"));
    if file.format == CacheFormat::Object {
        println!("created:           {}", format_timestamp(meta.created_at));
    }
    println!(
        "last success:      {}",
        meta.last_executed_at
            .map_or_else(|| "never".to_owned(), format_timestamp)
    );
    println!(
        "attempts:          {} ({} failures)",
        meta.execution_attempts,
        meta.failures.len()
    );
    match (&meta.is_valid, &meta.invalidation_reason) {
        (true, _) => println!("valid:             yes"),
        (false, reason) => println!(
            "valid:             no: {}",
            reason.as_deref().unwrap_or("no reason given")
        ),
    }
    match &meta.visual_validation {
        Some(vv) if vv.enabled => println!(
            "visual validation: {}, region {} px",
            vv.method, vv.region_size
        ),
        _ => println!("visual validation: off"),
    }
    if let Some(usage) = &meta.token_usage {
        println!(
            "tokens:            input {}, output {}, cache write {}, cache read {}",
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens
        );
    }
    if file.cache_parameters.is_empty() {
        println!("parameters:        none");
    } else {
        println!("parameters:");
        for (name, description) in &file.cache_parameters {
            println!("  {{{{{name}}}}}  {description}");
        }
    }
    if !meta.failures.is_empty() {
        println!("failures:");
        for failure in &meta.failures {
            println!(
                "  {}  step {} (#{} there): {}",
                format_timestamp(failure.timestamp),
                failure.step_index,
                failure.failure_count_at_step,
                failure.error_message
            );
        }
    }
    let steps = summarize(&file.trajectory);
    let hashed = steps.iter().filter(|s| s.hash.is_some()).count();
    println!(
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
    println!(
        "  {:>3}  {:<tool_width$}  {:<40}  {:<11}  HASH",
        "#", "TOOL", "ACTION", "POINT"
    );
    for step in &steps {
        let point = step
            .point
            .map_or_else(|| "-".to_owned(), |(x, y)| format!("{x},{y}"));
        let action = if step.action.is_empty() {
            "-".to_owned()
        } else {
            shorten(&step.action, 40)
        };
        println!(
            "  {:>3}  {:<tool_width$}  {:<40}  {:<11}  {}",
            step.index,
            step.base_tool,
            action,
            point,
            step.hash.as_deref().unwrap_or("-")
        );
    }
}
