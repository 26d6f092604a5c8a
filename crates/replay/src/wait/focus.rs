//! Where the focused field is, in screenshot pixels: what a keyboard step watches, and what
//! the look after a click also captures when typing follows.

use retrace_protocol::element::BoundingBox;
use retrace_protocol::tool_input;
use retrace_vision::Region;

use super::waiter::Waiter;
use crate::plan::PlannedStep;

/// CSS pixels around a focused field that a keyboard step also watches (its label, a hint
/// or an error shown beside it).
const FOCUS_MARGIN: f64 = 24.0;

impl Waiter<'_> {
    /// The focused field's box with a [`FOCUS_MARGIN`] around it, in screenshot pixels;
    /// `None` without a page or a focused element other than the document's body.
    pub(super) async fn focus_region(&self, width: u32, height: u32) -> Option<Region> {
        let page = self.env.page.as_ref()?;
        let focused = page.focused_element().await.ok()??;
        if matches!(focused.tag.as_str(), "body" | "html") {
            return None;
        }
        self.field_region(&focused.bounds, (0, 0), width, height)
    }

    /// Where the focus will be after `step` acted at `at` (`None`: at no point, as typing
    /// does), in screenshot pixels with a
    /// [`FOCUS_MARGIN`]: the field it was recorded clicking, moved as the step was (a click
    /// into a field focuses it), without asking the page. When the step did not record
    /// clicking a field, the page is asked where its focus is.
    pub(super) async fn focus_region_after(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        width: u32,
        height: u32,
    ) -> Option<Region> {
        let recorded = step.element.as_ref().filter(|element| {
            element.editable && tool_input::action_name(&step.call).ends_with("click")
        });
        match (recorded, step.point, at) {
            (Some(field), Some(point), Some(at)) => self.field_region(
                &field.bounds,
                (at.0 - point.0, at.1 - point.1),
                width,
                height,
            ),
            _ => self.focus_region(width, height).await,
        }
    }

    /// `bounds` (page pixels) with a [`FOCUS_MARGIN`] around it, moved by `offset` (screenshot
    /// pixels), in screenshot pixels; `None` without a page or outside the screen.
    fn field_region(
        &self,
        bounds: &BoundingBox,
        offset: (i64, i64),
        width: u32,
        height: u32,
    ) -> Option<Region> {
        let page = self.env.page.as_ref()?;
        let (left, top) = page.to_trajectory((bounds.x - FOCUS_MARGIN, bounds.y - FOCUS_MARGIN));
        let (right, bottom) = page.to_trajectory((
            bounds.x + bounds.width + FOCUS_MARGIN,
            bounds.y + bounds.height + FOCUS_MARGIN,
        ));
        let clamp = |value: i64, most: u32| u32::try_from(value.max(0)).unwrap_or(most).min(most);
        let region = Region::new(
            clamp(left + offset.0, width),
            clamp(top + offset.1, height),
            clamp(right + offset.0, width),
            clamp(bottom + offset.1, height),
        );
        region.fits(width, height).then_some(region)
    }
}
