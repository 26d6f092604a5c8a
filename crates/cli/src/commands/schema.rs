//! `retrace schema`: print the JSON Schemas models answer in, and validate answers against
//! them with field-level errors. A thin shell over `retrace-schema`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use retrace_schema::AnalysisOptions;
use retrace_schema::AnalysisType;
use retrace_schema::ComparisonOptions;
use retrace_schema::ResponseOptions;
use retrace_schema::SchemaKind;
use retrace_schema::SchemaManager;
use retrace_schema::ValidationContext;
use retrace_schema::ValidationMode;
use retrace_schema::ValidationResult;
use retrace_schema::parse_model_answer;
use retrace_schema::split_option;

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

/// Resolves the target and the `--option`s into a schema kind.
fn kind_for(
    target: &str,
    analysis_type: Option<&str>,
    options: &[String],
    lenient: bool,
) -> anyhow::Result<SchemaKind> {
    let pairs = options
        .iter()
        .map(|pair| split_option(pair))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = if lenient {
        Some(ValidationMode::Lenient)
    } else {
        None
    };
    Ok(match (target, analysis_type) {
        ("response", _) => {
            let mut o = ResponseOptions::default();
            for (k, v) in pairs {
                o.set(k, v)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Response(o)
        }
        ("analysis", Some(name)) => {
            let kind: AnalysisType = name.parse()?;
            let mut o = AnalysisOptions::default();
            for (k, v) in pairs {
                o.set(k, v)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Analysis(kind, o)
        }
        _ => {
            let mut o = ComparisonOptions::default();
            for (k, v) in pairs {
                o.set(k, v)?;
            }
            o.validation_mode = mode.unwrap_or(o.validation_mode);
            SchemaKind::Comparison(o)
        }
    })
}

fn read_answer(file: &Path) -> anyhow::Result<serde_json::Value> {
    let text = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the answer from stdin")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    parse_model_answer(&text).with_context(|| format!("{}", file.display()))
}

fn print_human(result: &ValidationResult) -> std::io::Result<()> {
    if result.valid {
        out!("valid");
    } else {
        let count = result.errors.len();
        out!(
            "invalid: {count} error{}",
            if count == 1 { "" } else { "s" }
        );
        for error in &result.errors {
            out!(
                "  {error} (got {}, expected {})",
                error.value,
                error.expected_type
            );
        }
    }
    for warning in &result.warnings {
        out!("warning: {warning}");
    }
    if !result.executor_compatible {
        out!("the command cannot be executed as written");
    }
    Ok(())
}

/// Runs `retrace schema`.
pub fn run(args: SchemaArgs) -> anyhow::Result<Outcome> {
    let mut manager = SchemaManager::new();
    if let Some(version) = &args.schema_version {
        manager.update_schema_version(version)?;
    }
    match args.action {
        SchemaAction::Generate { target } => {
            let (name, analysis_type) = match &target {
                Target::Response => ("response", None),
                Target::Analysis { analysis_type } => ("analysis", Some(analysis_type.as_str())),
                Target::Comparison => ("comparison", None),
            };
            let kind = kind_for(name, analysis_type, &args.options, args.lenient)?;
            out!("{}", serde_json::to_string_pretty(&*manager.schema(kind))?);
            Ok(Outcome::Pass)
        }
        SchemaAction::Validate {
            target,
            json,
            variables,
            image_size,
        } => {
            let (name, analysis_type, file) = match &target {
                FileTarget::Response { file } => ("response", None, file),
                FileTarget::Analysis {
                    analysis_type,
                    file,
                } => ("analysis", Some(analysis_type.as_str()), file),
                FileTarget::Comparison { file } => ("comparison", None, file),
            };
            let kind = kind_for(name, analysis_type, &args.options, args.lenient)?;
            let answer = read_answer(file)?;
            let context = ValidationContext {
                known_variables: (!variables.is_empty())
                    .then(|| variables.into_iter().collect::<BTreeSet<_>>()),
                image_size,
                ..ValidationContext::default()
            };
            let result = manager.validate(kind, &answer, &context)?;
            if json {
                out!("{}", serde_json::to_string_pretty(&result)?);
            } else {
                print_human(&result)?;
            }
            Ok(if result.valid {
                Outcome::Pass
            } else {
                Outcome::CheckFailed
            })
        }
    }
}
