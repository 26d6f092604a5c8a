//! A scripted stand-in for a screen and the computer tool acting on it, so the replay engine
//! runs without Chromium and every test is deterministic: the screen changes per screenshot
//! taken or per action, never with the clock.

use std::collections::VecDeque;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_replay::screen::PageProbe;
use retrace_replay::screen::Screen;

use crate::page::PageModel;
use crate::page::WorldPage;
use retrace_vision::Image;
use retrace_vision::Method;
use retrace_vision::PixelLayout;
use serde_json::Value;
use serde_json::json;

/// Screen side in pixels.
pub const SIDE: u32 = 240;

/// A screen of light background with dark squares at the given top-left corners (40 px
/// each), a pattern a perceptual hash of a 100 px region sees clearly.
pub fn squares(corners: &[(u32, u32)]) -> Image {
    let mut data = vec![230u8; (SIDE * SIDE) as usize];
    for &(left, top) in corners {
        for y in top..(top + 40).min(SIDE) {
            for x in left..(left + 40).min(SIDE) {
                data[(y * SIDE + x) as usize] = 20;
            }
        }
    }
    Image::new(SIDE, SIDE, PixelLayout::Gray, data).unwrap()
}

/// A control: two dark 40 px squares corner to corner (an 80 px checker), structure a 100 px
/// region's perceptual hash sees clearly (a lone square in a flat region hashes close to a
/// flat region).
pub fn control_at(left: u32, top: u32) -> Image {
    squares(&[(left, top), (left + 40, top + 40)])
}

/// The screen of `control_at(40, 80)` in negative: its structure inverted, so every hash
/// of it is far from the recorded one and no search finds the recorded region in it.
pub fn other_screen() -> Image {
    let screen = control_at(40, 80);
    let data = screen.data().iter().map(|value| 255 - value).collect();
    Image::new(SIDE, SIDE, PixelLayout::Gray, data).unwrap()
}

/// The hash replay compares at `point` in `image` (pHash of the 100 px region).
pub fn hash_at(image: &Image, point: (i64, i64)) -> String {
    let region = retrace_vision::action_region(point, 100, image.width(), image.height());
    retrace_vision::region_hash(image, region, Method::Phash, 8)
        .unwrap()
        .to_string()
}

/// What the screen shows: frames queued to show one per screenshot (an animation or a page
/// loading), then the settled picture.
struct Frames {
    queue: VecDeque<Image>,
    settled: Image,
    captures: usize,
    /// How many of the captures were of part of the screen.
    parts: usize,
}

/// What an action does to the screen.
pub type Reaction = Box<dyn Fn(&mut Vec<Image>, &mut Image) + Send + Sync>;

/// The world: a screen, and what each action does to it.
pub struct World {
    frames: Mutex<Frames>,
    reactions: Mutex<VecDeque<Reaction>>,
    /// Each action: its input, and how many screenshots had been taken when it ran.
    pub actions: Mutex<Vec<(Value, usize)>>,
    /// Inputs that answer with a tool error instead of acting.
    pub failing_actions: Mutex<Vec<Value>>,
    /// The browser page behind the screen, if the world is a browser's.
    pub page: Option<Arc<Mutex<PageModel>>>,
}

impl World {
    /// A world showing `screen`.
    pub fn showing(screen: Image) -> Arc<World> {
        Arc::new(Self::new(screen, None))
    }

    /// A browser's world showing `screen`, with `page` behind it.
    pub fn browser(screen: Image, page: PageModel) -> Arc<World> {
        Arc::new(Self::new(screen, Some(Arc::new(Mutex::new(page)))))
    }

    fn new(screen: Image, page: Option<Arc<Mutex<PageModel>>>) -> World {
        World {
            frames: Mutex::new(Frames {
                queue: VecDeque::new(),
                settled: screen,
                captures: 0,
                parts: 0,
            }),
            reactions: Mutex::new(VecDeque::new()),
            actions: Mutex::new(Vec::new()),
            failing_actions: Mutex::new(Vec::new()),
            page,
        }
    }

    /// The page model (panics for a desktop world).
    pub fn page(&self) -> std::sync::MutexGuard<'_, PageModel> {
        self.page.as_ref().expect("a browser world").lock().unwrap()
    }

    /// Shows `frames`, one per screenshot, before the settled screen.
    pub fn queue(&self, frames: Vec<Image>) {
        self.frames.lock().unwrap().queue.extend(frames);
    }

    /// The next action (in order) runs `reaction` on the queue and the settled screen.
    pub fn on_next_action(&self, reaction: Reaction) {
        self.reactions.lock().unwrap().push_back(reaction);
    }

    /// Screenshots taken so far.
    pub fn captures(&self) -> usize {
        self.frames.lock().unwrap().captures
    }

    /// Screenshots of part of the screen taken so far (counted in [`World::captures`] too).
    pub fn part_captures(&self) -> usize {
        self.frames.lock().unwrap().parts
    }

    /// The inputs acted, in order.
    pub fn inputs(&self) -> Vec<Value> {
        self.actions
            .lock()
            .unwrap()
            .iter()
            .map(|(input, _)| input.clone())
            .collect()
    }
}

/// The world's screen.
pub struct WorldScreen(pub Arc<World>);

#[async_trait]
impl Screen for WorldScreen {
    async fn capture(&self) -> Result<Image, String> {
        let mut frames = self.0.frames.lock().unwrap();
        frames.captures += 1;
        Ok(match frames.queue.pop_front() {
            Some(frame) => frame,
            None => frames.settled.clone(),
        })
    }

    /// A browser world captures parts as a browser page does: only the part shows the
    /// screen, the rest is blank.
    async fn part_capture_size(&self) -> Option<(u32, u32)> {
        self.0.page.as_ref().map(|_| (SIDE, SIDE))
    }

    async fn capture_part(&self, part: retrace_vision::Region) -> Result<Image, String> {
        let whole = self.capture().await?;
        if self.0.page.is_none() {
            return Ok(whole);
        }
        self.0.frames.lock().unwrap().parts += 1;
        Ok(blank_outside(&whole, part))
    }

    fn page(&self) -> Option<PageProbe> {
        let page = self.0.page.as_ref()?;
        Some(PageProbe::new(Arc::new(WorldPage(page.clone())), None))
    }
}

/// `image` with every sample outside `part` set to 0.
fn blank_outside(image: &Image, part: retrace_vision::Region) -> Image {
    let channels = image.layout().channels();
    let width = image.width() as usize;
    let data = image
        .data()
        .chunks_exact(channels)
        .enumerate()
        .flat_map(|(index, pixel)| {
            let (x, y) = ((index % width) as u32, (index / width) as u32);
            let inside =
                (part.left..part.right).contains(&x) && (part.top..part.bottom).contains(&y);
            pixel
                .iter()
                .map(move |&sample| if inside { sample } else { 0 })
        })
        .collect();
    Image::new(image.width(), image.height(), image.layout(), data).unwrap()
}

/// A cacheable `computer` tool acting on the world.
pub struct WorldComputer(pub Arc<World>);

#[async_trait]
impl Tool for WorldComputer {
    fn name(&self) -> &str {
        "computer"
    }
    fn description(&self) -> &str {
        "acts on the scripted world"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        true
    }
    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        if self.0.failing_actions.lock().unwrap().contains(&input) {
            return Err(ToolError::for_model("the element is not clickable"));
        }
        let captures = self.0.captures();
        if let (Some(page), Some("type"), Some(text)) = (
            &self.0.page,
            input["action"].as_str(),
            input["text"].as_str(),
        ) {
            page.lock().unwrap().typed(text);
        }
        self.0.actions.lock().unwrap().push((input, captures));
        if let Some(reaction) = self.0.reactions.lock().unwrap().pop_front() {
            let mut frames = self.0.frames.lock().unwrap();
            let mut queued: Vec<Image> = frames.queue.drain(..).collect();
            let mut settled = frames.settled.clone();
            reaction(&mut queued, &mut settled);
            frames.queue = queued.into();
            frames.settled = settled;
        }
        Ok(ToolOutput::text("done"))
    }
}

/// A non-cacheable tool (askui's `locate` is one): a replay must hand its steps to a model.
pub struct Locate;

#[async_trait]
impl Tool for Locate {
    fn name(&self) -> &str {
        "locate"
    }
    fn description(&self) -> &str {
        "finds an element with a model"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        false
    }
    async fn call(&self, _input: Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("found"))
    }
}

/// One recorded step: tool, input, and the hashes to record with it.
pub struct Step {
    pub tool: &'static str,
    pub input: Value,
    pub before: Option<String>,
    pub after: Option<String>,
    /// Extra step fields (`element`, `focused_after`...).
    pub extra: Vec<(&'static str, Value)>,
}

impl Step {
    /// A `computer` click at `point`, recorded on `before` with `after` the screen it led to.
    pub fn click(point: (i64, i64), before: &Image, after: &Image) -> Step {
        Step {
            tool: "computer",
            input: json!({"action": "left_click", "coordinate": [point.0, point.1]}),
            before: Some(hash_at(before, point)),
            after: Some(hash_at(after, point)),
            extra: Vec::new(),
        }
    }

    /// A `computer` step with no point (typing), so nothing is hashed.
    pub fn typing(text: &str) -> Step {
        Step {
            tool: "computer",
            input: json!({"action": "type", "text": text}),
            before: None,
            after: None,
            extra: Vec::new(),
        }
    }

    /// The step with an extra field.
    pub fn with(mut self, field: &'static str, value: Value) -> Step {
        self.extra.push((field, value));
        self
    }
}

/// Writes a trajectory file of `steps` into `dir` and returns its path.
pub fn write_trajectory(dir: &Path, steps: &[Step]) -> PathBuf {
    let trajectory: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(index, step)| {
            let mut block = json!({
                "type": "tool_use",
                "id": format!("toolu_{index}"),
                "name": step.tool,
                "input": step.input,
            });
            if let Some(hash) = &step.before {
                block["visual_representation"] = json!(hash);
            }
            if let Some(hash) = &step.after {
                block["visual_representation_after"] = json!(hash);
            }
            for (field, value) in &step.extra {
                block[*field] = value.clone();
            }
            block
        })
        .collect();
    let names = retrace_cache::params::parameters_in_value(&Value::Array(trajectory.clone()));
    let parameters: serde_json::Map<String, Value> = names
        .into_iter()
        .map(|name| (name.clone(), json!(format!("Parameter for {name}"))))
        .collect();
    let file = json!({
        "metadata": {
            "version": "0.1",
            "created_at": "2026-11-24T00:00:00Z",
            "goal": "scripted",
            "execution_attempts": 0,
            "failures": [],
            "is_valid": true,
            "visual_validation": {"enabled": true, "method": "phash", "region_size": 100}
        },
        "trajectory": trajectory,
        "cache_parameters": parameters,
    });
    let path = dir.join("trajectory.json");
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    path
}
