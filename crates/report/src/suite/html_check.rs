//! A page check's evidence in the HTML report: its baseline and candidate screenshots and diff
//! image (found among its evidence files by name, inlined as data URIs like the replay crops,
//! each bounded by [`MAX_SCREENSHOT_BYTES`]), the boxes of its differences as outlines
//! placed over both screenshots (in percent of the image, so they scale with it), and the
//! thresholds it was judged by.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::events::PageCheck;
use retrace_protocol::events::TestReport;
use serde::Serialize;

use crate::suite::html_images::MAX_SCREENSHOT_BYTES;
use crate::suite::html_images::data_uri;
use crate::suite::html_images::read_image;
use crate::suite::outcome::serde_label;

/// What the template shows of a page check.
#[derive(Serialize)]
pub(super) struct ShotsView {
    baseline: String,
    candidate: String,
    diff: Option<String>,
    boxes: Vec<BoxView>,
    thresholds: String,
}

/// One difference's box, in percent of the screenshot.
#[derive(Serialize)]
struct BoxView {
    left: String,
    top: String,
    width: String,
    height: String,
    label: String,
}

/// The evidence file of `check` named `name` (`baseline.png`), the last attempt's.
fn evidence_named<'a>(check: &'a PageCheck, name: &str) -> Option<&'a PathBuf> {
    check
        .evidence
        .iter()
        .rev()
        .find(|path| path.file_name().is_some_and(|file| file == name))
}

/// The page check's view, when it has both screenshots.
pub(super) fn shots(
    test: &TestReport,
    report_dir: &Path,
    notes: &mut Vec<String>,
) -> Option<ShotsView> {
    let check = test.check.as_ref()?;
    let image = |name: &str, notes: &mut Vec<String>| {
        let path = evidence_named(check, name)?;
        read_image(report_dir, path, MAX_SCREENSHOT_BYTES, notes)
    };
    let baseline = image("baseline.png", notes)?;
    let candidate = image("candidate.png", notes)?;
    let diff = image("diff.png", notes);
    let (width, height) = png_size(&candidate).unwrap_or(check.viewport);
    Some(ShotsView {
        boxes: boxes(check, width, height),
        baseline: data_uri(&baseline),
        candidate: data_uri(&candidate),
        diff: diff.as_deref().map(data_uri),
        thresholds: fields_line(&check.thresholds),
    })
}

/// The boxes of the differences that have one.
fn boxes(check: &PageCheck, width: u32, height: u32) -> Vec<BoxView> {
    let percent = |value: f64, of: u32| format!("{:.3}%", value * 100.0 / f64::from(of.max(1)));
    check
        .differences
        .iter()
        .filter_map(|difference| {
            let region = difference.region.as_ref()?;
            Some(BoxView {
                left: percent(region.x, width),
                top: percent(region.y, height),
                width: percent(region.width, width),
                height: percent(region.height, height),
                label: format!(
                    "{}: {} (at {},{} {}x{})",
                    serde_label(&difference.kind),
                    difference.description,
                    region.x,
                    region.y,
                    region.width,
                    region.height
                ),
            })
        })
        .collect()
}

/// `delta_e 5 · max_diff_pixels 0 · ...`: an object's fields (the thresholds, the time
/// limits a check ran under), in its order, on one line.
pub(super) fn fields_line(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(fields) => fields
            .iter()
            .map(|(name, value)| format!("{name} {value}"))
            .collect::<Vec<_>>()
            .join(" · "),
        serde_json::Value::Null => "not recorded".to_owned(),
        other => other.to_string(),
    }
}

/// A PNG's size from its header.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let header = bytes.get(16..24)?;
    let width = u32::from_be_bytes(header.get(0..4)?.try_into().ok()?);
    let height = u32::from_be_bytes(header.get(4..8)?.try_into().ok()?);
    (bytes.starts_with(b"\x89PNG") && width > 0 && height > 0).then_some((width, height))
}
