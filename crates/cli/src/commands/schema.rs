//! `retrace schema`: print the JSON Schemas models answer in, and validate answers against
//! them with field-level errors. A thin shell over `retrace-schema`.

use std::path::PathBuf;

use clap::Subcommand;
use retrace_runner::schema::SchemaRequest;
use retrace_runner::schema::Target as SchemaTarget;
use retrace_runner::schema::Validation;

use crate::outcome::Outcome;
use crate::output::out;

/// Print the JSON Schemas models answer in, or validate an answer (exit 1 when invalid).
///
/// Schemas: the agent response, six kinds of screenshot analysis, screenshot comparison.
///
/// Examples:
///   retrace schema generate response
///   retrace schema generate response --option requireReasoning=false --lenient
///   retrace schema generate analysis ELEMENT_DETECTION --option includeCoordinates=false
///   retrace schema validate response answer.json --json
///   retrace schema validate analysis UI_STRUCTURE answer.json --image-size 1280x800
///
/// Options use the seed's keys: response: includeOptionalFields, requireReasoning,
/// validationMode; analysis: includeCoordinates, includeConfidenceScores,
/// requireDetectedElements, includeAccessibilityInfo, validationMode; comparison:
/// includePixelDifferences, includeSimilarityScore, requireChangeDescription,
/// includeCoordinates, validationMode. `validate` exits 0 when the answer is valid, 1 when
/// it is not, 2 on an error (unreadable file, no JSON object, bad option).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct SchemaArgs {
    #[command(subcommand)]
    action: SchemaAction,
    /// Set a generation option (`KEY=VALUE`, repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE", global = true)]
    options: Vec<String>,
    /// Lenient validation mode (same as `--option validationMode=lenient`).
    #[arg(long, global = true)]
    lenient: bool,
    /// Version stamped into the schema's `$id` (MAJOR.MINOR.PATCH).
    #[arg(long, value_name = "VERSION", global = true)]
    schema_version: Option<String>,
}

#[derive(Debug, Subcommand)]
enum SchemaAction {
    /// Print the schema as JSON.
    Generate {
        #[command(subcommand)]
        target: Target,
    },
    /// Validate an answer file (`-` for stdin); the answer may be wrapped in prose or a
    /// code fence, as models write it.
    Validate {
        #[command(subcommand)]
        target: FileTarget,
        /// Print the result as JSON (`{valid, errors, warnings, executor_compatible}`).
        #[arg(long, global = true)]
        json: bool,
        /// A variable the session has saved (repeatable); when given, `${name}` references
        /// to other names are errors.
        #[arg(long = "variable", value_name = "NAME", global = true)]
        variables: Vec<String>,
        /// Screenshot size for bounding-box checks (`WIDTHxHEIGHT`).
        #[arg(long, value_name = "WxH", value_parser = parse_size, global = true)]
        image_size: Option<(f64, f64)>,
    },
}

#[derive(Debug, Subcommand)]
enum Target {
    /// The agent response schema (decision, reasoning, at most one command).
    Response,
    /// A screenshot analysis schema: CONTENT_SUMMARY, ELEMENT_DETECTION, UI_STRUCTURE,
    /// TEXT_EXTRACTION, ACCESSIBILITY_AUDIT or COMPARISON.
    Analysis {
        /// The analysis type.
        #[arg(value_name = "TYPE")]
        analysis_type: String,
    },
    /// The screenshot comparison schema.
    Comparison,
}

#[derive(Debug, Subcommand)]
enum FileTarget {
    /// Validate against the agent response schema.
    Response {
        /// The answer file, or `-` for stdin.
        file: PathBuf,
    },
    /// Validate against a screenshot analysis schema.
    Analysis {
        /// The analysis type.
        #[arg(value_name = "TYPE")]
        analysis_type: String,
        /// The answer file, or `-` for stdin.
        file: PathBuf,
    },
    /// Validate against the screenshot comparison schema.
    Comparison {
        /// The answer file, or `-` for stdin.
        file: PathBuf,
    },
}

fn parse_size(text: &str) -> Result<(f64, f64), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 => Ok((f64::from(w), f64::from(h))),
        _ => Err(format!(
            "expected WIDTHxHEIGHT such as 1280x800, got {text:?}"
        )),
    }
}

fn print_human(result: &Validation) -> std::io::Result<()> {
    if result.valid() {
        out!("valid");
    } else {
        let errors = result.errors();
        let count = errors.len();
        out!(
            "invalid: {count} error{}",
            if count == 1 { "" } else { "s" }
        );
        for error in &errors {
            out!(
                "  {} (got {}, expected {})",
                error.text,
                error.value,
                error.expected_type
            );
        }
    }
    for warning in result.warnings() {
        out!("warning: {warning}");
    }
    if !result.executor_compatible() {
        out!("the command cannot be executed as written");
    }
    Ok(())
}

/// Runs `retrace schema`.
pub fn run(args: SchemaArgs) -> anyhow::Result<Outcome> {
    let request = |target| SchemaRequest {
        target,
        options: &args.options,
        lenient: args.lenient,
        version: args.schema_version.as_deref(),
    };
    match &args.action {
        SchemaAction::Generate { target } => {
            let target = match target {
                Target::Response => SchemaTarget::Response,
                Target::Analysis { analysis_type } => SchemaTarget::Analysis(analysis_type),
                Target::Comparison => SchemaTarget::Comparison,
            };
            let schema = retrace_runner::schema::generate(&request(target))?;
            out!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(Outcome::Pass)
        }
        SchemaAction::Validate {
            target,
            json,
            variables,
            image_size,
        } => {
            let (target, file) = match target {
                FileTarget::Response { file } => (SchemaTarget::Response, file),
                FileTarget::Analysis {
                    analysis_type,
                    file,
                } => (SchemaTarget::Analysis(analysis_type), file),
                FileTarget::Comparison { file } => (SchemaTarget::Comparison, file),
            };
            let result = retrace_runner::schema::validate(
                &request(target),
                file,
                variables.clone(),
                *image_size,
            )?;
            if *json {
                out!("{}", serde_json::to_string_pretty(&result)?);
            } else {
                print_human(&result)?;
            }
            Ok(if result.valid() {
                Outcome::Pass
            } else {
                Outcome::CheckFailed
            })
        }
    }
}
