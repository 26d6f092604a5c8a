//! `retrace report`: work on written suite reports. `merge` adds shards' JSON reports up
//! into one report of each kind; a thin shell over `retrace_report::suite`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use retrace_report::suite::ReportKind;

use crate::outcome::Outcome;
use crate::output::out;

/// Work on suite reports written by `retrace run`.
///
/// Examples:
///   retrace report merge shard-1/ shard-2/ shard-3/ --out report/
///   retrace report merge all-shards/ --out report/     (a folder of report-shard-I-of-N.json)
///   retrace report merge reports/*/report*.json --out report/ --report junit,json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ReportArgs {
    #[command(subcommand)]
    action: ReportAction,
}

#[derive(Debug, Subcommand)]
enum ReportAction {
    /// Merge several shards' reports (directories holding `report.json` or the shards'
    /// `report-shard-I-of-N.json`, or the files) into one: totals recounted, each shard's evidence copied under `--out`, every report kind
    /// written there. Exit 0 when written, 2 on a bad or unknown-version report (named).
    Merge {
        /// The shards' report directories or JSON report files.
        #[arg(required = true, value_name = "DIR")]
        inputs: Vec<PathBuf>,
        /// Where to write the merged reports (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Which reports to write, comma-separated: html, junit, json.
        #[arg(
            long = "report",
            value_name = "KINDS",
            value_delimiter = ',',
            default_value = "html,junit,json"
        )]
        kinds: Vec<ReportKind>,
    },
}

/// Runs `retrace report ...`.
pub fn run(args: ReportArgs) -> anyhow::Result<Outcome> {
    match args.action {
        ReportAction::Merge { inputs, out, kinds } => {
            let mut unique: Vec<ReportKind> = Vec::new();
            for kind in kinds {
                if !unique.contains(&kind) {
                    unique.push(kind);
                }
            }
            let merged = retrace_report::suite::merge_dirs(&inputs, &out)?;
            let written = retrace_report::suite::write_reports(&merged, &unique, &out)
                .with_context(|| format!("writing the merged reports to {}", out.display()))?;
            let totals = merged.totals;
            out!(
                "merged {} reports: {} tests, {} passed, {} failed, {} error, {} flaky, {} skipped",
                inputs.len(),
                totals.tests,
                totals.passed,
                totals.failed,
                totals.error,
                totals.flaky,
                totals.skipped
            );
            for path in written {
                out!("wrote {}", path.display());
            }
            Ok(Outcome::Pass)
        }
    }
}
