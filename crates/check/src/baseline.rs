//! Stored baselines: a folder of PNG screenshots (`<page>@<WxH>.png`) instead of a baseline
//! site, with the environment they were taken in ([`Fingerprint`]: the browser's version, the
//! device scale factor, a digest of how the browser renders its font families), kept as
//! `fingerprint.json`. Screenshots taken elsewhere differ for reasons that are not the page's,
//! so a fingerprint that does not match is an ERROR naming what differs, never a FAIL.
//! [`approve_baseline`] (`retrace check approve`) stores the candidate's shots and the
//! current fingerprint as the new baseline, and beside each shot its visible elements
//! (`<page>@<WxH>.elements.json`) and its accessibility tree
//! (`<page>@<WxH>.accessibility.json`), so a difference against stored shots is typed as one
//! against a live baseline is (a moved element is a layout shift, a recoloured one
//! styling, a renamed button content); shots stored without elements are compared by their
//! pixels alone, and without an accessibility tree (stored before that layer existed)
//! without the accessibility diff.

use std::path::Path;
use std::path::PathBuf;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_protocol::stable_hash::fnv1a64_hex;
use serde::Deserialize;
use serde::Serialize;

use crate::browsers::BrowserSource;
use crate::capture::Capture;
use crate::capture::capture;
use crate::error::CheckError;
use crate::evidence::page_slug;
use crate::pixels::Frame;
use crate::spec::CheckSpec;
use crate::spec::Viewport;

/// The fingerprint's file name in a baseline folder.
pub const FINGERPRINT_FILE: &str = "fingerprint.json";

/// The device scale factor, and each generic font family's width for one sample text, from
/// the page itself: what decides how text renders.
const FINGERPRINT_JS: &str = r#"(() => {
  const context = document.createElement("canvas").getContext("2d");
  const sample = "Hamburgefonstiv 0123456789 ÀÉÎõü —";
  const families = ["serif", "sans-serif", "monospace", "system-ui", "cursive", "fantasy"];
  return {
    scale: window.devicePixelRatio,
    fonts: families.map(family => {
      context.font = "16px " + family;
      return family + ":" + context.measureText(sample).width.toFixed(3);
    }).join(";"),
  };
})()"#;

/// The environment screenshots were taken in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The browser's product and version (`HeadlessChrome/140.0.7339.185`).
    pub browser: String,
    /// `window.devicePixelRatio`.
    pub device_scale_factor: f64,
    /// FNV-1a (64 bits, hex) of the generic families' measured widths.
    pub fonts: String,
}

impl Fingerprint {
    /// The fingerprint of `browser`'s environment, read from a blank page of its own.
    pub async fn of(browser: &ChromiumBrowser) -> Result<Fingerprint, String> {
        let version = browser
            .cdp_browser()
            .version()
            .await
            .map_err(|error| format!("cannot ask the browser's version: {error}"))?;
        let run = browser.new_run();
        let page = run.open_page().await.map_err(|error| error.to_string())?;
        let answer = page.evaluate(FINGERPRINT_JS).await;
        let _ = page.close().await;
        let answer = answer.map_err(|error| format!("cannot read the page's fonts: {error}"))?;
        Ok(Fingerprint {
            browser: version.product,
            device_scale_factor: answer["scale"].as_f64().unwrap_or(1.0),
            fonts: fnv1a64_hex(answer["fonts"].as_str().unwrap_or_default().as_bytes()),
        })
    }

    /// What differs from `current`, one phrase each (`browser: stored X, now Y`).
    pub fn differences(&self, current: &Fingerprint) -> Vec<String> {
        let mut found = Vec::new();
        if self.browser != current.browser {
            found.push(format!(
                "browser: stored {}, now {}",
                self.browser, current.browser
            ));
        }
        if (self.device_scale_factor - current.device_scale_factor).abs() > f64::EPSILON {
            found.push(format!(
                "device scale factor: stored {}, now {}",
                self.device_scale_factor, current.device_scale_factor
            ));
        }
        if self.fonts != current.fonts {
            found.push(format!(
                "fonts digest: stored {}, now {}",
                self.fonts, current.fonts
            ));
        }
        found
    }
}

/// The stored shot of `path` at `viewport` in `dir`.
pub fn shot_path(dir: &Path, path: &str, viewport: Viewport) -> PathBuf {
    dir.join(format!("{}@{viewport}.png", page_slug(path)))
}

/// The stored elements of the shot of `path` at `viewport` in `dir`.
pub fn elements_path(dir: &Path, path: &str, viewport: Viewport) -> PathBuf {
    dir.join(format!("{}@{viewport}.elements.json", page_slug(path)))
}

/// The stored accessibility tree of the shot of `path` at `viewport` in `dir`.
pub fn accessibility_path(dir: &Path, path: &str, viewport: Viewport) -> PathBuf {
    dir.join(format!("{}@{viewport}.accessibility.json", page_slug(path)))
}

/// The fingerprint stored in `dir`, or why there is none.
pub fn load_fingerprint(dir: &Path) -> Result<Fingerprint, String> {
    let file = dir.join(FINGERPRINT_FILE);
    let text = std::fs::read_to_string(&file).map_err(|error| {
        format!(
            "{}: {error} (store a baseline with `retrace check approve`)",
            file.display()
        )
    })?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", file.display()))
}

/// Why the environment cannot be compared with the baseline in `dir`: no fingerprint, or one
/// that differs (naming what); `None` when it matches.
pub async fn environment_mismatch(dir: &Path, browser: &ChromiumBrowser) -> Option<String> {
    let stored = match load_fingerprint(dir) {
        Ok(stored) => stored,
        Err(error) => return Some(format!("no stored baseline fingerprint: {error}")),
    };
    let current = match Fingerprint::of(browser).await {
        Ok(current) => current,
        Err(error) => return Some(format!("cannot fingerprint this environment: {error}")),
    };
    let differences = stored.differences(&current);
    (!differences.is_empty()).then(|| {
        format!(
            "this environment is not the one the baseline in {} was taken in ({}); store it \
             again here with `retrace check approve`",
            dir.display(),
            differences.join("; ")
        )
    })
}

/// The stored shot of `path` at `viewport`, as a captured side: with its stored elements
/// (none for a shot stored without them) and accessibility tree (`None` for a shot stored
/// without one), no console.
pub fn stored_capture(dir: &Path, path: &str, viewport: Viewport) -> Result<Capture, String> {
    let file = shot_path(dir, path, viewport);
    let png = std::fs::read(&file).map_err(|error| {
        format!(
            "{}: {error} (store it with `retrace check approve`)",
            file.display()
        )
    })?;
    let frame = Frame::from_png(&png).map_err(|error| format!("{}: {error}", file.display()))?;
    let listed = elements_path(dir, path, viewport);
    let elements = match std::fs::read(&listed) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|error| format!("{}: {error}", listed.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => return Err(format!("{}: {error}", listed.display())),
    };
    let tree = accessibility_path(dir, path, viewport);
    let accessibility = match std::fs::read(&tree) {
        Ok(bytes) => Some(
            serde_json::from_slice(&bytes)
                .map_err(|error| format!("{}: {error}", tree.display()))?,
        ),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(format!("{}: {error}", tree.display())),
    };
    Ok(Capture {
        png,
        frame,
        elements,
        accessibility,
        console_errors: Vec::new(),
        shots: 0,
    })
}

/// Captures every candidate page at every viewport exactly as a check does, in the spec's
/// Chromium, and stores the shots and this environment's fingerprint in `dir` as the new
/// baseline; the files written.
pub async fn approve_baseline(spec: &CheckSpec, dir: &Path) -> Result<Vec<PathBuf>, CheckError> {
    let launch = crate::browsers::LaunchChromium(spec.chromium.clone());
    approve_baseline_in(spec, dir, &launch).await
}

/// [`approve_baseline`] in `browsers`' browsers (a remote browser's shots carry its
/// fingerprint, so they are checked against in that environment).
pub async fn approve_baseline_in(
    spec: &CheckSpec,
    dir: &Path,
    browsers: &dyn BrowserSource,
) -> Result<Vec<PathBuf>, CheckError> {
    let failed = |detail: String| CheckError::Baseline(format!("{}: {detail}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|error| failed(error.to_string()))?;
    let mut written = Vec::new();
    let mut fingerprint: Option<Fingerprint> = None;
    for &viewport in &spec.viewports {
        let browser = crate::browsers::open_at(browsers, viewport).await?;
        let result = approve_at(spec, dir, viewport, &browser, &mut written).await;
        if result.is_ok() && fingerprint.is_none() {
            fingerprint = Some(Fingerprint::of(&browser).await.map_err(&failed)?);
        }
        let _ = browser.close().await;
        result.map_err(&failed)?;
    }
    if let Some(fingerprint) = fingerprint {
        let file = dir.join(FINGERPRINT_FILE);
        let text = serde_json::to_vec_pretty(&fingerprint).map_err(|e| failed(e.to_string()))?;
        retrace_files::write_atomic(&file, &text)
            .map_err(|error| failed(format!("{}: {error}", file.display())))?;
        written.push(file);
    }
    Ok(written)
}

async fn approve_at(
    spec: &CheckSpec,
    dir: &Path,
    viewport: Viewport,
    browser: &ChromiumBrowser,
    written: &mut Vec<PathBuf>,
) -> Result<(), String> {
    for path in &spec.pages {
        let run = browser.new_run();
        let shot = capture(
            &run,
            &CheckSpec::url(&spec.candidate, path),
            &spec.masks_for(path),
            spec.ready_selector_for(path),
            spec,
            None,
        )
        .await
        .map_err(|error| format!("{path} @{viewport}: {error}"))?;
        let file = shot_path(dir, path, viewport);
        retrace_files::write_atomic(&file, &shot.png)
            .map_err(|error| format!("{}: {error}", file.display()))?;
        written.push(file);
        let listed = elements_path(dir, path, viewport);
        let text = serde_json::to_vec(&shot.elements).map_err(|error| error.to_string())?;
        retrace_files::write_atomic(&listed, &text)
            .map_err(|error| format!("{}: {error}", listed.display()))?;
        written.push(listed);
        let file = accessibility_path(dir, path, viewport);
        match &shot.accessibility {
            Some(tree) => {
                let text = serde_json::to_vec(tree).map_err(|error| error.to_string())?;
                retrace_files::write_atomic(&file, &text)
                    .map_err(|error| format!("{}: {error}", file.display()))?;
                written.push(file);
            }
            // Not read this time: an older tree beside the new shot would be another page's.
            None => match std::fs::remove_file(&file) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!("{}: {error}", file.display()));
                }
                _ => {}
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn fingerprint() -> Fingerprint {
        Fingerprint {
            browser: "HeadlessChrome/140.0.7339.185".into(),
            device_scale_factor: 1.0,
            fonts: fnv1a64_hex("serif:100.000".as_bytes()),
        }
    }

    #[test]
    fn each_difference_of_environment_is_named_with_both_values() {
        let stored = fingerprint();
        assert!(stored.differences(&fingerprint()).is_empty());
        let now = Fingerprint {
            device_scale_factor: 2.0,
            fonts: fnv1a64_hex("serif:101.000".as_bytes()),
            ..fingerprint()
        };
        let differences = stored.differences(&now);
        assert_eq!(differences.len(), 2, "{differences:?}");
        assert_eq!(differences[0], "device scale factor: stored 1, now 2");
        assert!(differences[1].starts_with("fonts digest: stored "));
    }

    #[test]
    fn a_folder_without_a_fingerprint_or_a_shot_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let error = load_fingerprint(dir.path()).unwrap_err();
        assert!(error.contains(FINGERPRINT_FILE) && error.contains("retrace check approve"));
        let viewport = Viewport {
            width: 1280,
            height: 720,
        };
        let error = stored_capture(dir.path(), "/site/pricing", viewport).unwrap_err();
        assert!(error.contains("site_pricing@1280x720.png"), "{error}");
        // A shot stored without its elements has none; one whose element list is not one
        // is named.
        let pixel = retrace_vision::encode_png_rgba(1, 1, &[0, 0, 0, 255]).unwrap();
        std::fs::write(shot_path(dir.path(), "/site/pricing", viewport), pixel).unwrap();
        let stored = stored_capture(dir.path(), "/site/pricing", viewport).unwrap();
        assert!(stored.elements.is_empty());
        assert_eq!(
            stored.accessibility, None,
            "stored before the accessibility layer"
        );
        std::fs::write(
            accessibility_path(dir.path(), "/site/pricing", viewport),
            r#"{"nodes": [{"role": "button", "name": "Go", "x": 1, "y": 2, "width": 3,
                "height": 4}]}"#,
        )
        .unwrap();
        let stored = stored_capture(dir.path(), "/site/pricing", viewport).unwrap();
        assert_eq!(
            stored.accessibility.unwrap().nodes[0].describe(),
            "button \"Go\""
        );
        std::fs::write(
            elements_path(dir.path(), "/site/pricing", viewport),
            "{not a list",
        )
        .unwrap();
        let error = stored_capture(dir.path(), "/site/pricing", viewport).unwrap_err();
        assert!(
            error.contains("site_pricing@1280x720.elements.json"),
            "{error}"
        );
    }

    #[test]
    fn a_baseline_that_is_not_a_url_is_a_folder_of_shots() {
        let mut spec = CheckSpec {
            baseline: "shots/".into(),
            candidate: "http://127.0.0.1:1/".into(),
            ..CheckSpec::default()
        };
        assert_eq!(spec.stored_baseline(), Some(Path::new("shots/")));
        spec.validate().unwrap();
        spec.baseline = "https://prod.example".into();
        assert_eq!(spec.stored_baseline(), None);
    }
}
