//! Making a loaded page hold still before it is photographed, as Playwright's screenshotter
//! does and a little more: wait for the ready selector, when there is one, to match a visible
//! element; wait for the network to go quiet and for `document.fonts.ready`;
//! force lazy images to load (made eager, then the page scrolled through a viewport at a time
//! and back to the top) and wait until each is decoded; show each animated image (GIF, WebP,
//! APNG, AVIF in an `<img>`) as its first frame, decoded with WebCodecs' `ImageDecoder` (a
//! secure context's, as `http://127.0.0.1` and any `https` page are; elsewhere, or for a
//! cross-origin file without CORS, the image keeps playing and is logged); then freeze
//! time-based change: finite
//! CSS animations and transitions are finished, infinite ones cancelled (and any that start
//! later get the same), the caret is transparent, scrollbars are hidden, masked elements are
//! painted over (and hidden from the accessibility tree, so its layer ignores them as the
//! pixels do). Nothing here sleeps for a guessed time: each wait is for a condition, bounded
//! by the spec's timeouts.

use std::time::Duration;
use std::time::Instant;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumPage;

use crate::spec::Timeouts;

/// Why a page did not become ready.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{condition} did not settle within {timeout_ms} ms{}", detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
pub struct NotReady {
    /// Which condition (`the ready selector`, `the network`, `fonts`, `images`, `animated
    /// images`).
    pub condition: &'static str,
    /// The limit.
    pub timeout_ms: u64,
    /// What the page said last.
    pub detail: Option<String>,
}

/// Resolves once every font the document uses has loaded.
const FONTS_READY_JS: &str = "document.fonts.ready.then(() => document.fonts.status === 'loaded')";

/// Makes lazy images eager, scrolls the page through a viewport at a time (for loaders that
/// watch the viewport), waits for every image to finish, scrolls back to the top. Resolves to
/// the number of images still not complete (0 when all are).
const LOAD_IMAGES_JS: &str = r#"(async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const img of document.querySelectorAll('img[loading="lazy"]')) img.loading = 'eager';
  const step = Math.max(1, window.innerHeight);
  const bottom = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  for (let y = 0; y < bottom; y += step) { window.scrollTo(0, y); await frame(); }
  window.scrollTo(0, 0);
  await Promise.all([...document.images].map(img =>
    img.complete ? (img.decode ? img.decode().catch(() => {}) : null)
                 : new Promise(r => { img.addEventListener('load', r, {once: true}); img.addEventListener('error', r, {once: true}); })));
  await frame();
  return [...document.images].filter(img => !img.complete).length;
})()"#;

/// Replaces every animated image (GIF, WebP, APNG, AVIF) of an `<img>` with its first frame,
/// within `ms` milliseconds: the file is fetched again (from the cache, same origin or CORS),
/// WebCodecs' `ImageDecoder` decodes frame 0, and the `img` shows that frame as a PNG in the
/// same box (its size fixed first; `srcset` and `<picture>` sources dropped so the PNG is what
/// shows). Resolves to `{paused, unpaused}`: how many were paused, and each image that could
/// not be with why (no `ImageDecoder`: the page is not a secure context, or an old browser; a
/// cross-origin file without CORS; out of time).
const PAUSE_IMAGES_JS: &str = r#"((ms) => (async () => {
  const end = performance.now() + ms;
  const types = ['image/gif', 'image/webp', 'image/png', 'image/apng', 'image/avif'];
  const result = {paused: 0, unpaused: []};
  const images = [...document.images].filter(img => (img.currentSrc || img.src) && !img.hasAttribute('data-retrace-first-frame'));
  if (images.length === 0) return result;
  const hasDecoder = typeof ImageDecoder === 'function';
  for (const img of images) {
    const src = img.currentSrc || img.src;
    const skip = why => result.unpaused.push(`${src.slice(0, 120)}: ${why}`);
    if (performance.now() >= end) { skip('out of time'); continue; }
    if (src.startsWith('data:image/svg') || /\.svg(\?|#|$)/i.test(src)) continue;
    let data, type;
    try {
      const response = await fetch(src, {cache: 'force-cache'});
      type = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
      if (!types.includes(type)) continue;
      data = await response.arrayBuffer();
    } catch (e) { skip(`cannot read it again: ${e.message || e}`); continue; }
    if (!hasDecoder) { skip('ImageDecoder is missing (not a secure context?)'); continue; }
    try {
      if (!(await ImageDecoder.isTypeSupported(type))) { skip(`${type} cannot be decoded`); continue; }
      const decoder = new ImageDecoder({data, type});
      await decoder.tracks.ready;
      await decoder.completed;
      const track = decoder.tracks.selectedTrack;
      if (!track || !track.animated || track.frameCount < 2) { decoder.close(); continue; }
      const {image} = await decoder.decode({frameIndex: 0});
      const canvas = document.createElement('canvas');
      canvas.width = image.displayWidth;
      canvas.height = image.displayHeight;
      canvas.getContext('2d').drawImage(image, 0, 0);
      image.close();
      decoder.close();
      const style = getComputedStyle(img);
      img.style.width = style.width;
      img.style.height = style.height;
      if (img.parentElement && img.parentElement.tagName === 'PICTURE') {
        for (const source of img.parentElement.querySelectorAll('source')) source.remove();
      }
      img.removeAttribute('srcset');
      img.removeAttribute('sizes');
      img.setAttribute('data-retrace-first-frame', '');
      img.src = canvas.toDataURL('image/png');
      await img.decode();
      result.paused++;
    } catch (e) { skip(String(e.message || e)); }
  }
  return result;
})())"#;

/// The freeze, as a function of the style text: Playwright's `inPagePrepareForScreenshots`
/// without the clean-up (the page is closed after it is captured).
const FREEZE_JS: &str = r#"((style) => {
  const tag = document.createElement('style');
  tag.setAttribute('data-retrace-check', 'freeze');
  tag.textContent = style;
  document.documentElement.append(tag);
  const settle = () => {
    for (const animation of document.getAnimations()) {
      if (!animation.effect || animation.playbackRate === 0) continue;
      const end = animation.effect.getComputedTiming().endTime;
      try { if (Number.isFinite(end)) animation.finish(); else animation.cancel(); } catch (e) {}
    }
  };
  settle();
  document.addEventListener('transitionrun', settle, true);
  document.addEventListener('animationstart', settle, true);
  for (const video of document.querySelectorAll('video')) { try { video.pause(); } catch (e) {} }
  return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))));
})"#;

/// The style the freeze adds: a transparent caret and no scrollbars.
const FREEZE_STYLE: &str = "*,*::before,*::after{caret-color:transparent !important}\
html::-webkit-scrollbar,*::-webkit-scrollbar{display:none !important}\
html{scrollbar-width:none !important}";

/// Paints a magenta box over every element matching each selector, at the same page place on
/// both sides (absolutely placed in the document, above everything), and hides the element
/// from the accessibility tree (`aria-hidden`), which changes no pixel.
const MASK_JS: &str = r#"((selectors) => {
  let painted = 0;
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      const box = document.createElement('div');
      box.setAttribute('data-retrace-check', 'mask');
      box.style.cssText = `position:absolute;left:${r.left + scrollX}px;top:${r.top + scrollY}px;width:${r.width}px;height:${r.height}px;background:#ff00ff;z-index:2147483647;pointer-events:none`;
      document.documentElement.append(box);
      el.setAttribute('aria-hidden', 'true');
      painted++;
    }
  }
  return painted;
})"#;

/// Resolves `true` once an element matching the selector exists and is visible (laid out,
/// not `visibility: hidden`), `false` when `ms` milliseconds pass first, or the browser's
/// message when the selector is not valid CSS. Looks again at every change of the document
/// and at least every animation frame.
const READY_SELECTOR_JS: &str = r#"((selector, ms) => new Promise(resolve => {
  const end = performance.now() + ms;
  const shown = el => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return el.checkVisibility ? el.checkVisibility({visibilityProperty: true}) : getComputedStyle(el).visibility !== 'hidden';
  };
  let observer = null;
  const done = answer => { if (observer) observer.disconnect(); resolve(answer); };
  const look = () => {
    let found;
    try { found = [...document.querySelectorAll(selector)].some(shown); }
    catch (e) { done(String(e.message || e)); return true; }
    if (found) { done(true); return true; }
    if (performance.now() >= end) { done(false); return true; }
    return false;
  };
  if (look()) return;
  observer = new MutationObserver(look);
  observer.observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
  const frame = () => { if (!look()) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  setTimeout(look, ms);
}))"#;

/// Waits for the ready selector (when given), network quiet, fonts and images, and shows
/// animated images' first frames, within `timeouts.readiness_ms` in all.
pub async fn wait_until_ready(
    page: &ChromiumPage,
    timeouts: &Timeouts,
    ready_selector: Option<&str>,
) -> Result<(), NotReady> {
    let started = Instant::now();
    let budget = Duration::from_millis(timeouts.readiness_ms);
    let left = || budget.saturating_sub(started.elapsed());
    if let Some(selector) = ready_selector {
        wait_for_selector(page, selector, timeouts, left()).await?;
    }
    network_idle(page, timeouts, left()).await?;
    wait_true(page, FONTS_READY_JS, "fonts", timeouts, left()).await?;
    let images = tokio::time::timeout(left(), page.evaluate(LOAD_IMAGES_JS)).await;
    match images {
        Ok(Ok(value)) if value.as_u64() == Some(0) => {}
        Ok(Ok(value)) => {
            return Err(NotReady {
                condition: "images",
                timeout_ms: timeouts.readiness_ms,
                detail: Some(format!("{value} images did not load")),
            });
        }
        Ok(Err(error)) => {
            return Err(NotReady {
                condition: "images",
                timeout_ms: timeouts.readiness_ms,
                detail: Some(error.to_string()),
            });
        }
        Err(_) => {
            return Err(NotReady {
                condition: "images",
                timeout_ms: timeouts.readiness_ms,
                detail: None,
            });
        }
    }
    pause_animated_images(page, timeouts, left()).await?;
    // Images and late fonts may have asked for more.
    network_idle(page, timeouts, left()).await?;
    wait_true(page, FONTS_READY_JS, "fonts", timeouts, left()).await
}

/// Shows every animated image's first frame instead of its animation (see
/// [`PAUSE_IMAGES_JS`]), within `left`. An image that cannot be paused is left as it is and
/// logged: a page it keeps changing is then an ERROR naming its box and element.
async fn pause_animated_images(
    page: &ChromiumPage,
    timeouts: &Timeouts,
    left: Duration,
) -> Result<(), NotReady> {
    let expression = format!("{PAUSE_IMAGES_JS}({})", left.as_millis());
    let not_ready = |detail: Option<String>| NotReady {
        condition: "animated images",
        timeout_ms: timeouts.readiness_ms,
        detail,
    };
    // The page stops at the deadline itself; this bound covers a page that stops answering.
    let bound = left + Duration::from_millis(timeouts.network_idle_ms);
    let answer = match tokio::time::timeout(bound, page.evaluate(&expression)).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => return Err(not_ready(Some(error.to_string()))),
        Err(_) => return Err(not_ready(None)),
    };
    let unpaused = answer["unpaused"].as_array().cloned().unwrap_or_default();
    if !unpaused.is_empty() {
        tracing::warn!(?unpaused, "animated images left playing");
    }
    tracing::debug!(paused = %answer["paused"], "animated images showing their first frame");
    Ok(())
}

/// Waits until an element matching `selector` exists and is visible, within `left`.
async fn wait_for_selector(
    page: &ChromiumPage,
    selector: &str,
    timeouts: &Timeouts,
    left: Duration,
) -> Result<(), NotReady> {
    let arguments = serde_json::to_string(selector).unwrap_or_default();
    let expression = format!("{READY_SELECTOR_JS}({arguments}, {})", left.as_millis());
    let not_ready = |detail: String| NotReady {
        condition: "the ready selector",
        timeout_ms: timeouts.readiness_ms,
        detail: Some(detail),
    };
    let never = || not_ready(format!("ready selector `{selector}` never appeared"));
    // The page gives up at the deadline itself; this bound only covers a page that stops
    // answering.
    let bound = left + Duration::from_millis(timeouts.network_idle_ms);
    match tokio::time::timeout(bound, page.evaluate(&expression)).await {
        Ok(Ok(serde_json::Value::Bool(true))) => Ok(()),
        Ok(Ok(serde_json::Value::String(message))) => Err(not_ready(format!(
            "ready selector `{selector}` is not valid CSS: {message}"
        ))),
        Ok(Ok(_)) | Err(_) => Err(never()),
        Ok(Err(error)) => Err(not_ready(format!("ready selector `{selector}`: {error}"))),
    }
}

async fn network_idle(
    page: &ChromiumPage,
    timeouts: &Timeouts,
    left: Duration,
) -> Result<(), NotReady> {
    page.wait_for_network_idle(timeouts.network_idle_ms, left.as_millis() as u64)
        .await
        .map_err(|error| NotReady {
            condition: "the network",
            timeout_ms: timeouts.readiness_ms,
            detail: Some(error.to_string()),
        })
}

async fn wait_true(
    page: &ChromiumPage,
    expression: &str,
    condition: &'static str,
    timeouts: &Timeouts,
    left: Duration,
) -> Result<(), NotReady> {
    let answer = tokio::time::timeout(left, page.evaluate(expression)).await;
    match answer {
        Ok(Ok(serde_json::Value::Bool(true))) => Ok(()),
        other => Err(NotReady {
            condition,
            timeout_ms: timeouts.readiness_ms,
            detail: match other {
                Ok(Ok(value)) => Some(format!("the page answered {value}")),
                Ok(Err(error)) => Some(error.to_string()),
                Err(_) => None,
            },
        }),
    }
}

/// Freezes animations, transitions, the caret and scrollbars, and paints the masks. Returns
/// how many elements the masks covered.
pub async fn freeze(
    page: &ChromiumPage,
    masks: &[String],
) -> Result<u64, retrace_drive::DriveError> {
    let style = serde_json::to_string(FREEZE_STYLE).unwrap_or_default();
    page.evaluate(&format!("{FREEZE_JS}({style})")).await?;
    if masks.is_empty() {
        return Ok(0);
    }
    let selectors = serde_json::to_string(masks).unwrap_or_default();
    let painted = page.evaluate(&format!("{MASK_JS}({selectors})")).await?;
    Ok(painted.as_u64().unwrap_or(0))
}

/// Resolves after the page has rendered two more frames (between screenshots: a condition,
/// not a guessed delay).
pub const NEXT_FRAMES_JS: &str =
    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))";
