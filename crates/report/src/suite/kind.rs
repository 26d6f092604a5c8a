//! The kinds of report a suite run writes, and their file names.

use std::fmt;
use std::str::FromStr;

use retrace_protocol::events::Shard;

/// A report a suite run can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportKind {
    /// `report.html`: for people.
    Html,
    /// `junit.xml`: for CI services.
    Junit,
    /// `report.json`: the whole document, for machines and for `retrace report merge`.
    Json,
}

impl ReportKind {
    /// Every kind, in the order they are written.
    pub const ALL: [ReportKind; 3] = [ReportKind::Json, ReportKind::Junit, ReportKind::Html];

    /// The file this kind is written to, in the output directory.
    pub fn file_name(self) -> &'static str {
        match self {
            ReportKind::Html => "report.html",
            ReportKind::Junit => "junit.xml",
            ReportKind::Json => "report.json",
        }
    }

    /// The file this kind is written to for a report of `shard` (see the module doc); the
    /// plain [`ReportKind::file_name`] for a whole suite.
    pub fn file_name_for(self, shard: Option<Shard>) -> String {
        let Some(Shard { index, total }) = shard else {
            return self.file_name().to_owned();
        };
        let (stem, extension) = self
            .file_name()
            .split_once('.')
            .unwrap_or((self.file_name(), ""));
        format!("{stem}-shard-{index}-of-{total}.{extension}")
    }

    /// Whether `name` is a file this kind is written to, for a whole suite or a shard.
    pub fn is_file_name(self, name: &str) -> bool {
        self.shard_of_file_name(name).is_some()
    }

    /// What a file this kind is written to covers: `Some(None)` for a whole suite's,
    /// `Some(Some(shard))` for a shard's; `None` when `name` is not such a file.
    pub fn shard_of_file_name(self, name: &str) -> Option<Option<Shard>> {
        if name == self.file_name() {
            return Some(None);
        }
        let (stem, extension) = self.file_name().split_once('.')?;
        let (index, total) = name
            .strip_prefix(stem)?
            .strip_prefix("-shard-")?
            .strip_suffix(extension)?
            .strip_suffix('.')?
            .split_once("-of-")?;
        Some(Some(Shard {
            index: index.parse().ok()?,
            total: total.parse().ok()?,
        }))
    }

    /// The kinds of a comma-separated list (`html,junit`), each once, in the order given.
    ///
    /// # Errors
    /// An unknown name, named in the error.
    pub fn parse_list(list: &str) -> Result<Vec<ReportKind>, UnknownReportKind> {
        let mut kinds = Vec::new();
        for name in list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            let kind = name.parse()?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        Ok(kinds)
    }
}

impl fmt::Display for ReportKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            ReportKind::Html => "html",
            ReportKind::Junit => "junit",
            ReportKind::Json => "json",
        })
    }
}

/// A report kind nobody knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown report `{0}` (expected html, junit or json)")]
pub struct UnknownReportKind(pub String);

impl FromStr for ReportKind {
    type Err = UnknownReportKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "html" => Ok(ReportKind::Html),
            "junit" | "xml" => Ok(ReportKind::Junit),
            "json" => Ok(ReportKind::Json),
            _ => Err(UnknownReportKind(name.to_owned())),
        }
    }
}
