//! The after-action region a step records: the region around its point in the screenshot
//! the action returned, unless that region is blank (or nearly:
//! [`retrace_vision::ImageHash::is_near_flat`]). A blank region's check detects nothing (a
//! login whose page leaves the button's place empty "passes" on the failed-login page too)
//! and fails when anything unrelated is later drawn there (another user's records), so it is
//! re-centred on the nearest content the action changed: the region nearest the point, within
//! [`SEARCH_REGIONS`] region sizes, whose hash is not near-flat and differs from the same
//! region's before the action by more than [`CHANGED_BITS`] bits in 64 (a modal that opened,
//! a message that appeared). Content the action did not change is not what the step was for
//! (the next step's button, which may move while this step still works). It is stored with its centre
//! as `visual_representation_after_recentred` in place of `visual_representation_after`
//! (which a reader that does not know the new field would check at the action point). With
//! no content that near, the step records no after-action hash (and says so): no blank region
//! is ever a step's check.
//!
//! [`region_hash_at`] is the one hash of a step's region, before and after.

use retrace_vision::Image;
use retrace_vision::ImageHash;
use retrace_vision::Method;
use retrace_vision::VisionError;

use super::settings::RecordSettings;

/// How far the re-centred region may be from the point, in region sizes.
pub const SEARCH_REGIONS: i64 = 2;

/// How many bits in 64 a re-centred region must have changed by: replay's default threshold,
/// so the change is one a replay tells from no change.
pub const CHANGED_BITS: u64 = 10;

/// The after-action region to record for a step acting at `point` (`image` after acting,
/// `before` before), whose region there hashes to `at_point`: that hash with no centre of its
/// own when it is not blank, else the nearest region with content the action changed and its
/// centre; `None` when there is none (or no screenshot before acting to tell).
pub(super) fn after_region(
    image: &Image,
    before: Option<&Image>,
    point: (i64, i64),
    at_point: ImageHash,
    settings: &RecordSettings,
) -> Option<(ImageHash, Option<(i64, i64)>)> {
    if !at_point.is_near_flat() {
        return Some((at_point, None));
    }
    let before = before
        .filter(|before| (before.width(), before.height()) == (image.width(), image.height()))?;
    let hash = |image: &Image, centre: (i64, i64)| {
        region_hash_at(
            image,
            centre,
            settings.method,
            settings.region_size,
            settings.hash_size,
        )
        .ok()
    };
    let size = i64::from(settings.region_size.max(1));
    let stride = (size / 4).max(1);
    let reach = SEARCH_REGIONS * size / stride;
    let mut offsets: Vec<(i64, i64)> = (-reach..=reach)
        .flat_map(|dy| (-reach..=reach).map(move |dx| (dx * stride, dy * stride)))
        .filter(|offset| *offset != (0, 0))
        .collect();
    offsets.sort_by_key(|(dx, dy)| (dx * dx + dy * dy, *dy, *dx));
    offsets.into_iter().find_map(|(dx, dy)| {
        let centre = (point.0 + dx, point.1 + dy);
        let inside = centre.0 >= 0
            && centre.1 >= 0
            && centre.0 < i64::from(image.width())
            && centre.1 < i64::from(image.height());
        if !inside {
            return None;
        }
        let after = hash(image, centre).filter(|after| !after.is_near_flat())?;
        let changed = u64::from(after.distance(&hash(before, centre)?).ok()?);
        (changed * 64 > CHANGED_BITS * after.bits().len() as u64).then_some((after, Some(centre)))
    })
}

/// The hash of the `region_size` square around `point` in `image`: what a step stores as
/// `visual_representation` (and `_after`), and what `retrace approve` stores again.
pub fn region_hash_at(
    image: &Image,
    point: (i64, i64),
    method: Method,
    region_size: u32,
    hash_size: u32,
) -> Result<ImageHash, VisionError> {
    let region = retrace_vision::action_region(point, region_size, image.width(), image.height());
    retrace_vision::region_hash(image, region, method, hash_size)
}
