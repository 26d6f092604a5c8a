//! Reading cache files: size limit, JSON syntax (line and column), then the typed model with
//! the JSON path of any field that is missing or wrong. Reads both the object layout and the
//! legacy bare list.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use jiff::Timestamp;
use retrace_protocol::ToolUseBlock;
use serde::Deserialize;
use serde_json::Map;
use serde_json::Value;

use crate::error::CacheError;
use crate::error::Result;
use crate::model::CacheFile;
use crate::model::CacheFormat;
use crate::model::CacheMetadata;

/// The default largest cache file this crate reads: 64 MiB. Real trajectories are a few
/// hundred kilobytes; the limit keeps a wrong path (a video, a disk image) from being read
/// into memory.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 * 1024 * 1024;

#[derive(Deserialize)]
struct RawFile {
    metadata: CacheMetadata,
    trajectory: Vec<ToolUseBlock>,
    #[serde(default)]
    cache_parameters: BTreeMap<String, String>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// Reads the bytes of the cache file at `path`, refusing directories and files larger than
/// `max_size` bytes (checked from the file's metadata before anything is read).
pub fn read_bytes(path: &Path, max_size: u64) -> Result<Vec<u8>> {
    // Look before opening: opening a named pipe would block until someone writes to it.
    check_file(path, max_size)?;
    let file = std::fs::File::open(path).map_err(|e| CacheError::io(path, "cannot open", e))?;
    let meta = file
        .metadata()
        .map_err(|e| CacheError::io(path, "cannot stat", e))?;
    not_a_file(path, &meta)?;
    if meta.len() > max_size {
        return Err(CacheError::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
            limit: max_size,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // Read at most one byte past the limit, in case the file grew after the stat.
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| CacheError::io(path, "cannot read", e))?;
    if bytes.len() as u64 > max_size {
        return Err(CacheError::TooLarge {
            path: path.to_owned(),
            size: bytes.len() as u64,
            limit: max_size,
        });
    }
    Ok(bytes)
}

/// Checks, from its metadata alone, that `path` is an existing regular file of at most
/// `max_size` bytes.
pub(crate) fn check_file(path: &Path, max_size: u64) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| CacheError::io(path, "cannot open", e))?;
    not_a_file(path, &meta)?;
    if meta.len() > max_size {
        return Err(CacheError::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
            limit: max_size,
        });
    }
    Ok(())
}

/// Refuses anything but a regular file.
fn not_a_file(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let kind = if meta.is_dir() {
        "a directory"
    } else {
        "a special file (device, socket or pipe)"
    };
    Err(CacheError::NotAFile {
        path: path.to_owned(),
        kind,
    })
}

/// Reads and parses the cache file at `path` (see [`parse_bytes`]).
pub fn read_cache_file(path: &Path, max_size: u64) -> Result<CacheFile> {
    let bytes = read_bytes(path, max_size)?;
    parse_bytes(path, &bytes, crate::timestamp::now())
}

/// The UTF-8 byte-order mark some Windows editors put at the start of a text file.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Parses the JSON text of a cache file into a JSON value; `path` only names the file in
/// errors. Empty files and syntax errors (with line and column) are reported here. A leading
/// UTF-8 byte-order mark is skipped (Notepad and PowerShell write one; JSON forbids it, but it
/// says nothing about the content), so such a file reads as the same file without it; bytes
/// that are not UTF-8 are a syntax error naming the line and column.
pub fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value> {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(CacheError::Empty {
            path: path.to_owned(),
        });
    }
    serde_json::from_slice(bytes).map_err(|e| syntax_error(path, &e))
}

/// Parses the bytes of a cache file; `path` only names the file in errors. A legacy bare list
/// gets the metadata askui gives it, created at `read_at`.
pub fn parse_bytes(path: &Path, bytes: &[u8], read_at: Timestamp) -> Result<CacheFile> {
    let value = parse_json(path, bytes)?;
    from_value(path, &value, read_at)
}

/// Builds the typed model from a parsed JSON value; `path` only names the file in errors.
pub fn from_value(path: &Path, value: &Value, read_at: Timestamp) -> Result<CacheFile> {
    let file = match value {
        Value::Array(_) => {
            let trajectory: Vec<ToolUseBlock> = typed(path, "", value)?;
            CacheFile {
                metadata: CacheMetadata::legacy(read_at),
                trajectory,
                cache_parameters: BTreeMap::new(),
                extra: Map::new(),
                format: CacheFormat::LegacyList,
            }
        }
        Value::Object(_) => {
            let raw: RawFile = typed(path, "", value)?;
            CacheFile {
                metadata: raw.metadata,
                trajectory: raw.trajectory,
                cache_parameters: raw.cache_parameters,
                extra: raw.extra,
                format: CacheFormat::Object,
            }
        }
        other => {
            return Err(CacheError::invalid(
                path,
                "(top level)",
                format!(
                    "expected an object with metadata and trajectory (or a legacy list of tool_use blocks), got {}",
                    kind(other)
                ),
            ));
        }
    };
    let mut file = file;
    // Steps written in the computer toolset's form read as every other step.
    for step in &mut file.trajectory {
        retrace_protocol::tool_input::from_toolset_call(step);
    }
    let prefix = match file.format {
        CacheFormat::Object => "trajectory",
        CacheFormat::LegacyList => "",
    };
    for (index, step) in file.trajectory.iter().enumerate() {
        if !step.input.is_object() {
            return Err(CacheError::invalid(
                path,
                format!("{prefix}[{index}].input"),
                format!("expected an object, got {}", kind(&step.input)),
            ));
        }
        if let Some(kind_value) = step.extra.get("type")
            && kind_value.as_str() != Some("tool_use")
        {
            return Err(CacheError::invalid(
                path,
                format!("{prefix}[{index}].type"),
                format!("expected \"tool_use\", got {kind_value}"),
            ));
        }
    }
    Ok(file)
}

/// Deserializes `value` as `T`, naming the JSON path of the first problem (under `prefix`).
fn typed<T: serde::de::DeserializeOwned>(path: &Path, prefix: &str, value: &Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = format!("{prefix}{}", e.path());
        let field = match field.as_str() {
            "" | "." => "(top level)".to_owned(),
            _ => field,
        };
        CacheError::invalid(path, field, e.into_inner().to_string())
    })
}

/// The serde_json syntax error as a [`CacheError::Syntax`], its message without the
/// ` at line L column C` suffix (line and column become fields).
fn syntax_error(path: &Path, error: &serde_json::Error) -> CacheError {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    let message = if error.is_eof() {
        format!("the file ends early (truncated?): {message}")
    } else {
        message.to_owned()
    };
    CacheError::Syntax {
        path: path.to_owned(),
        line: error.line(),
        column: error.column(),
        message,
    }
}

/// A JSON value's kind, for messages: `a string`, `an array`...
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
