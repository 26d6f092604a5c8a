//! Timestamps as askui (pydantic) writes them: UTC, a `Z` suffix, microseconds, and no
//! fraction at all when the microseconds are 0 (`2026-11-21T23:24:20.485424Z`,
//! `2026-11-21T23:24:20Z`).
//!
//! Reading accepts any RFC 3339 timestamp (any offset), and a timestamp without an offset,
//! which is taken as UTC the way askui's staleness check does.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serializer;
use serde_json::Value;

/// Formats `ts` the way askui writes timestamps (see the module doc); sub-microsecond digits
/// are dropped.
pub fn format_timestamp(ts: Timestamp) -> String {
    let utc = ts.to_zoned(TimeZone::UTC);
    let micros = utc.subsec_nanosecond() / 1_000;
    let base = utc.strftime("%Y-%m-%dT%H:%M:%S").to_string();
    if micros == 0 {
        format!("{base}Z")
    } else {
        format!("{base}.{micros:06}Z")
    }
}

/// Parses a timestamp as askui reads it: RFC 3339 with any offset, or without an offset (UTC).
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(ts);
    }
    let civil: DateTime = text.parse().ok()?;
    civil.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
}

/// The current time, truncated to microseconds (what a file can hold).
pub fn now() -> Timestamp {
    let now = Timestamp::now();
    let micros = now.as_microsecond();
    Timestamp::from_microsecond(micros).unwrap_or(now)
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

fn from_value<E: serde::de::Error>(value: &Value) -> Result<Timestamp, E> {
    value.as_str().and_then(parse_timestamp).ok_or_else(|| {
        E::custom(format!(
            "expected an RFC 3339 timestamp, got {}",
            describe(value)
        ))
    })
}

/// serde helpers for a required timestamp field.
pub(crate) mod required {
    use super::*;

    pub fn serialize<S: Serializer>(ts: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_timestamp(*ts))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let value = Value::deserialize(deserializer)?;
        from_value(&value)
    }
}

/// serde helpers for an optional (nullable) timestamp field.
pub(crate) mod optional {
    use super::*;

    pub fn serialize<S: Serializer>(
        ts: &Option<Timestamp>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match ts {
            Some(ts) => serializer.serialize_str(&format_timestamp(*ts)),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Timestamp>, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.is_null() {
            return Ok(None);
        }
        from_value::<D::Error>(&value).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_pydantic() {
        let ts: Timestamp = "2026-11-21T23:24:20.485424Z".parse().unwrap();
        assert_eq!(format_timestamp(ts), "2026-11-21T23:24:20.485424Z");
        let whole: Timestamp = "2026-11-21T23:24:20Z".parse().unwrap();
        assert_eq!(format_timestamp(whole), "2026-11-21T23:24:20Z");
        let offset: Timestamp = "2026-11-22T01:24:20.000500+02:00".parse().unwrap();
        assert_eq!(format_timestamp(offset), "2026-11-21T23:24:20.000500Z");
        let nanos: Timestamp = "2026-11-21T23:24:20.123456789Z".parse().unwrap();
        assert_eq!(format_timestamp(nanos), "2026-11-21T23:24:20.123456Z");
    }

    #[test]
    fn parses_naive_as_utc_and_rejects_garbage() {
        let naive = parse_timestamp("2026-11-21T23:24:20.5").unwrap();
        assert_eq!(format_timestamp(naive), "2026-11-21T23:24:20.500000Z");
        assert!(parse_timestamp("yesterday").is_none());
        assert!(parse_timestamp("").is_none());
    }

    #[test]
    fn now_has_whole_microseconds() {
        assert_eq!(now().subsec_nanosecond() % 1_000, 0);
    }
}
