//! Reading `retrace.toml` into a [`SuiteFile`]. A problem with the file itself or with a
//! setting for every test (`[defaults]`, `[parameters]`, `[timeouts]`, `secrets`) stops the
//! suite ([`SuiteError::Config`]); a problem with one `[[files]]` section becomes a
//! [`BadSection`]: only the tests its pattern matches become errors, and the rest run.
//! Either names the file, the field (`files[1].wait`), the value written and, when the TOML
//! parser gives them, its line and column. A section whose pattern cannot be read applies to
//! tests nobody can tell, and a secret's value written in the file is refused wherever it
//! is: both stop the suite.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::bad_section::BadSection;
use super::config::Defaults;
use super::config::FileSection;
use super::config::ParameterSource;
use super::config::SuiteFile;
use super::discover::glob_matcher;
use super::error::SuiteError;
use super::timeouts::SuiteTimeouts;

/// The suite file with its sections not yet read (each is read on its own).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    #[serde(default)]
    defaults: Defaults,
    #[serde(default)]
    secrets: Vec<String>,
    #[serde(default)]
    parameters: BTreeMap<String, ParameterSource>,
    #[serde(default)]
    files: Vec<toml::Table>,
    #[serde(default)]
    timeouts: SuiteTimeouts,
}

/// A table's values with the byte range each was written at.
type Placed = BTreeMap<String, Spanned<toml::Value>>;

/// Where the values of the tables a checked setting lives in were written, read apart from
/// the settings, so that a value of the wrong type still has a place.
#[derive(Default, Deserialize)]
struct Places {
    #[serde(default)]
    defaults: Placed,
    #[serde(default)]
    timeouts: Placed,
    #[serde(default)]
    files: Vec<Placed>,
}

/// Why a section cannot be used.
enum SectionError {
    /// Only the tests its pattern matches are affected.
    Bad {
        /// The section's `match`.
        pattern: String,
        /// What is wrong, without the file's name.
        problem: String,
    },
    /// The whole suite is.
    Unusable(String),
}

impl SuiteFile {
    /// Reads `path`, naming the file and the field of any problem, and refusing secret values;
    /// a bad `[[files]]` section becomes one of [`SuiteFile::bad_sections`] (see the module
    /// docs).
    pub fn load(path: &Path) -> Result<SuiteFile, SuiteError> {
        if !path.is_file() {
            return Err(SuiteError::config(path, "no such suite file"));
        }
        read(path)
    }
}

/// Reads the suite file at `path` (see the module docs).
fn read(path: &Path) -> Result<SuiteFile, SuiteError> {
    let fail = |message: String| SuiteError::config(path, message);
    let bytes = std::fs::read(path).map_err(|error| fail(error.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|error| {
        fail(format!(
            "not UTF-8: byte {} starts no UTF-8 character",
            error.utf8_error().valid_up_to()
        ))
    })?;
    let places: Places = toml::from_str(&text).unwrap_or_default();
    let raw: RawSuite =
        serde_path_to_error::deserialize(toml::Deserializer::new(&text)).map_err(|error| {
            let field = error.path().to_string();
            let at = error
                .inner()
                .span()
                .map(|span| line_column(&text, span.start));
            fail(render(&field, None, at, error.inner().message()))
        })?;
    let mut file = SuiteFile {
        defaults: raw.defaults,
        secrets: raw.secrets,
        parameters: raw.parameters,
        files: Vec::new(),
        timeouts: raw.timeouts,
        bad_sections: Vec::new(),
    };
    let locate = |message: String| fail(located(&message, &text, &places));
    if let Some(message) = literal_secret(&file, "parameters", &file.parameters) {
        return Err(fail(message));
    }
    file.timeouts.check().map_err(locate)?;
    // One setting, two places to write it: they may not disagree.
    match (file.defaults.step_timeout, file.timeouts.step) {
        (Some(defaults), Some(timeouts)) if defaults != timeouts => {
            return Err(locate(format!(
                "timeouts.step: {timeouts} s disagrees with defaults.step_timeout ({defaults} \
                 s); set one of them"
            )));
        }
        (None, Some(step)) => file.defaults.step_timeout = Some(step),
        _ => {}
    }
    file.defaults
        .settings()
        .check("defaults.")
        .map_err(locate)?;
    for (index, table) in raw.files.into_iter().enumerate() {
        match read_section(&file, index, table, &text, &places) {
            Ok(section) => file.files.push(section),
            Err(SectionError::Bad { pattern, problem }) => {
                file.bad_sections.push(BadSection {
                    pattern,
                    problem: format!("{}: {problem}", path.display()),
                });
            }
            Err(SectionError::Unusable(message)) => return Err(fail(message)),
        }
    }
    Ok(file)
}

/// The `[[files]]` section number `index`, checked.
fn read_section(
    file: &SuiteFile,
    index: usize,
    table: toml::Table,
    text: &str,
    places: &Places,
) -> Result<FileSection, SectionError> {
    let name = format!("files[{index}]");
    let Some(pattern) = table.get("match").and_then(toml::Value::as_str) else {
        return Err(SectionError::Unusable(format!(
            "{name}.match: every [[files]] section needs a `match` string (a path or glob \
             relative to this file)"
        )));
    };
    let pattern = pattern.to_owned();
    glob_matcher(&pattern)
        .map_err(|error| SectionError::Unusable(format!("{name}.match: {error}")))?;
    let placed = places.files.get(index);
    let bad = |field: &str, why: &str| {
        let value = placed.and_then(|placed| value_of(placed, field));
        let section = format!("in the section matching \"{pattern}\"");
        let place = match &value {
            Some((_, start)) => format!("{}, {section}", line_column(text, *start)),
            None => section,
        };
        let field = match field {
            "" => name.clone(),
            field => format!("{name}.{field}"),
        };
        SectionError::Bad {
            pattern: pattern.clone(),
            problem: render(&field, value.map(|(shown, _)| shown), Some(place), why),
        }
    };
    let section: FileSection = serde_path_to_error::deserialize(toml::Value::Table(table))
        .map_err(|error| {
            let field = error.path().to_string();
            bad(field.trim_start_matches('.'), error.inner().message())
        })?;
    if let Some(message) = literal_secret(file, &format!("{name}.parameters"), &section.parameters)
    {
        return Err(SectionError::Unusable(message));
    }
    match section.settings().problem() {
        Some((field, why)) => Err(bad(field, &why)),
        None => Ok(section),
    }
}

/// The complaint about a secret parameter whose value is written in `parameters` (`field`).
fn literal_secret(
    file: &SuiteFile,
    field: &str,
    parameters: &BTreeMap<String, ParameterSource>,
) -> Option<String> {
    parameters
        .iter()
        .find(|(name, source)| file.is_secret(name) && matches!(source, ParameterSource::Value(_)))
        .map(|(name, _)| {
            format!(
                "{field}.{name}: `{name}` is a secret parameter; its value must come from the \
                 environment (`{name} = {{ env = \"VAR\" }}` or RETRACE_PARAM_{}), never from \
                 the suite file",
                name.to_uppercase()
            )
        })
}

/// `message` (`FIELD: why`, as the settings' checks word it) with the value written at
/// `FIELD` and its line and column, when it is a top-level table's setting.
fn located(message: &str, text: &str, places: &Places) -> String {
    let Some((field, why)) = message.split_once(": ") else {
        return message.to_owned();
    };
    let table = match field.split_once('.') {
        Some(("defaults", key)) => value_of(&places.defaults, key),
        Some(("timeouts", key)) => value_of(&places.timeouts, key),
        _ => None,
    };
    let at = table.as_ref().map(|(_, start)| line_column(text, *start));
    render(field, table.map(|(shown, _)| shown), at, why)
}

/// The value written at `field` of `placed` (its first key: a parameter's is never shown,
/// it may be secret), as TOML shows it, and where it starts.
fn value_of(placed: &Placed, field: &str) -> Option<(String, usize)> {
    let key = field.split(['.', '[']).next()?;
    let value = placed.get(key)?;
    let shown = match value.get_ref() {
        toml::Value::String(text) => format!("{text:?}"),
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(flag) => flag.to_string(),
        toml::Value::Datetime(time) => time.to_string(),
        toml::Value::Array(_) | toml::Value::Table(_) => return None,
    };
    Some((shown, value.span().start))
}

/// `FIELD = VALUE (PLACE): why`, leaving out what is not known.
fn render(field: &str, value: Option<String>, place: Option<String>, why: &str) -> String {
    let field = if field == "." { "" } else { field };
    let mut text = field.to_owned();
    if let Some(value) = value {
        text.push_str(&format!(" = {value}"));
    }
    if let Some(place) = place {
        text = if text.is_empty() {
            place
        } else {
            format!("{text} ({place})")
        };
    }
    if text.is_empty() {
        why.to_owned()
    } else {
        format!("{text}: {why}")
    }
}

/// `line L, column C` (1-based, columns in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    format!("line {line}, column {column}")
}
