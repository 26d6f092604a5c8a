//! Runs one target: loads its corpus, draws inputs (arbitrary bytes, byte edits, structure
//! edits of a corpus file) with a seeded proptest runner, and runs each input in a thread of
//! its own, failing on a panic, on a time limit passed (a hang) and on an allocation limit
//! passed (a blow-up). A failing input is written under the target directory to replay.

use std::path::Path;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::Config;
use proptest::test_runner::RngAlgorithm;
use proptest::test_runner::TestCaseError;
use proptest::test_runner::TestError;
use proptest::test_runner::TestRng;
use proptest::test_runner::TestRunner;

use crate::alloc_limit;
use crate::mutate;
use crate::mutate_toml;

/// How a target's files are written, so the structure-aware edits fit them.
#[derive(Debug, Clone, Copy)]
pub enum Form {
    Json,
    Toml,
}

/// A reader of user files under test.
pub struct Target {
    /// Its name, and its corpus folder's (`corpus/<name>/`).
    pub name: &'static str,
    pub form: Form,
    /// The cases `cargo test` runs (overridden by `RETRACE_FUZZ_CASES`).
    pub cases: u32,
    /// The input's file name, in a folder of its own (the name decides the format for some
    /// readers); every error must name it.
    pub file_name: &'static str,
    /// Reads the file at the path given as retrace reads the user's file: `Ok` with a
    /// description of what was accepted, or the error text the user would see. It must not
    /// panic, hang or allocate without bound.
    pub read: fn(&Path) -> Result<String, String>,
}

/// One fuzz input: how to make its bytes.
#[derive(Debug, Clone)]
enum Input {
    Raw(Vec<u8>),
    Bytes(prop::sample::Index, Vec<mutate::ByteEdit>),
    Json(
        prop::sample::Index,
        Vec<mutate::TreeEdit>,
        Vec<mutate::ByteEdit>,
    ),
    Toml(prop::sample::Index, Vec<mutate_toml::LineEdit>),
}

fn inputs(form: Form) -> BoxedStrategy<Input> {
    let raw = prop::collection::vec(any::<u8>(), 0..2048).prop_map(Input::Raw);
    let bytes = (
        any::<prop::sample::Index>(),
        prop::collection::vec(mutate::byte_edit(), 1..6),
    )
        .prop_map(|(file, edits)| Input::Bytes(file, edits));
    match form {
        Form::Json => {
            let tree = (
                any::<prop::sample::Index>(),
                prop::collection::vec(mutate::tree_edit(), 1..5),
                prop::collection::vec(mutate::byte_edit(), 0..2),
            )
                .prop_map(|(file, tree, bytes)| Input::Json(file, tree, bytes));
            prop_oneof![1 => raw, 3 => bytes, 6 => tree].boxed()
        }
        Form::Toml => {
            let lines = (
                any::<prop::sample::Index>(),
                prop::collection::vec(mutate_toml::line_edit(), 1..5),
            )
                .prop_map(|(file, edits)| Input::Toml(file, edits));
            prop_oneof![1 => raw, 3 => bytes, 6 => lines].boxed()
        }
    }
}

impl Input {
    fn bytes(&self, corpus: &[Vec<u8>]) -> Vec<u8> {
        match self {
            Input::Raw(bytes) => bytes.clone(),
            Input::Bytes(file, edits) => {
                mutate::apply_bytes(corpus[file.index(corpus.len())].clone(), edits, corpus)
            }
            Input::Json(file, tree, bytes) => {
                let original = &corpus[file.index(corpus.len())];
                let Ok(document) = serde_json::from_slice(original) else {
                    return mutate::apply_bytes(original.clone(), bytes, corpus);
                };
                let edited = mutate::apply_tree(document, tree);
                let text = serde_json::to_vec_pretty(&edited).unwrap_or_default();
                mutate::apply_bytes(text, bytes, corpus)
            }
            Input::Toml(file, edits) => {
                let original = String::from_utf8_lossy(&corpus[file.index(corpus.len())]);
                mutate_toml::apply_lines(&original, edits).into_bytes()
            }
        }
    }
}

/// The committed corpus of `target`: every file of `corpus/<name>/`, in name order.
pub fn corpus(name: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: an empty corpus", dir.display());
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

/// The limits one input runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longer than this is a hang (generous: a loaded machine is slow, a hang is endless).
    pub time: Duration,
    /// Holding more than this at once is a blow-up (inputs are at most a few hundred KB).
    pub memory: usize,
}

impl Limits {
    pub fn from_env() -> Limits {
        let seconds = env_number("RETRACE_FUZZ_INPUT_SECONDS").unwrap_or(30);
        let megabytes = env_number("RETRACE_FUZZ_INPUT_MB").unwrap_or(256);
        Limits {
            time: Duration::from_secs(seconds),
            memory: usize::try_from(megabytes)
                .unwrap_or(usize::MAX)
                .saturating_mul(1 << 20),
        }
    }
}

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name}={text}: expected a whole number")),
    )
}

/// What the reader made of one input: `Ok` with what it accepted, `Err` with its error.
pub type Reading = Result<String, String>;

/// Runs `target.read` on `bytes` in a thread of its own under `limits`: the reading, or why
/// the input failed the target (a panic, a hang, a blow-up, an error not naming the file).
pub fn run_one(target: &Target, bytes: &[u8], limits: Limits) -> Result<Reading, String> {
    let (sender, receiver) = mpsc::channel();
    let owned = bytes.to_vec();
    let (read, file_name) = (target.read, target.file_name);
    let thread = std::thread::Builder::new()
        .name(format!("fuzz-{}", target.name))
        .spawn(move || {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(file_name);
            std::fs::write(&path, &owned).unwrap();
            alloc_limit::start_limited();
            let reading = read(&path);
            let peak = alloc_limit::peak();
            #[cfg(feature = "planted-panic")]
            if let Ok(accepted) = &reading {
                assert!(
                    !accepted.contains(&"a".repeat(1000)),
                    "planted panic: the reader accepted a 1000-character run of `a`"
                );
            }
            let _ = sender.send((reading, peak));
        })
        .unwrap();
    match receiver.recv_timeout(limits.time) {
        Ok((reading, peak)) => {
            let _ = thread.join();
            if peak > limits.memory {
                return Err(format!(
                    "a blow-up: the input made the reader hold {peak} bytes at once (limit {})",
                    limits.memory
                ));
            }
            if let Err(error) = &reading
                && !error.contains(file_name)
            {
                return Err(format!("an error that does not name the file: {error}"));
            }
            Ok(reading)
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let panic = thread.join().err().map(|payload| {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default()
            });
            Err(format!("a panic: {}", panic.unwrap_or_default()))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "a hang: the input took longer than {:?} (RETRACE_FUZZ_INPUT_SECONDS)",
            limits.time
        )),
    }
}

/// The seed every target starts from (`RETRACE_FUZZ_SEED` for another sequence of inputs).
fn seed() -> u64 {
    env_number("RETRACE_FUZZ_SEED").unwrap_or(0x7265_7472_6163_6521)
}

/// Runs `target` for `cases` inputs; the failure (shrunk) and where its bytes were written,
/// or `Ok` with the number of inputs the reader accepted.
pub fn fuzz(target: &Target, cases: u32) -> Result<u32, String> {
    let corpus: Vec<Vec<u8>> = corpus(target.name).into_iter().map(|(_, b)| b).collect();
    let limits = Limits::from_env();
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 512,
        ..Config::default()
    };
    let mut seed_bytes = [0u8; 32];
    for chunk in seed_bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed().to_le_bytes());
    }
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let accepted = std::cell::Cell::new(0u32);
    let result = runner.run(&inputs(target.form), |input| {
        let bytes = input.bytes(&corpus);
        match run_one(target, &bytes, limits) {
            Ok(reading) => {
                accepted.set(accepted.get() + u32::from(reading.is_ok()));
                Ok(())
            }
            Err(why) => Err(TestCaseError::fail(why)),
        }
    });
    match result {
        Ok(()) => Ok(accepted.get()),
        Err(TestError::Fail(why, input)) => {
            let bytes = input.bytes(&corpus);
            let saved = save_failure(target.name, &bytes);
            Err(format!(
                "{}: {why}\ninput ({} bytes) written to {}; replay it with \
                 RETRACE_FUZZ_REPLAY={} cargo test -p retrace-fuzz --test fuzz replay\n{input:?}",
                target.name,
                bytes.len(),
                saved.display(),
                saved.display()
            ))
        }
        Err(TestError::Abort(why)) => Err(format!("{}: aborted: {why}", target.name)),
    }
}

fn save_failure(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{:016x}.bin", fnv(bytes)));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
