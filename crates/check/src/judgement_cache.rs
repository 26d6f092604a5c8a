//! The judgement cache: one JSON file per [`judgement_cache_key`](crate::judgement_cache_key)
//! (both screenshots, the masks, the model, the prompt version) holding the model's answer as
//! given, so a rerun of an unchanged page asks no model. Only answers that read as a PASS or
//! a FAIL are kept (an ERROR is worth asking again), and the answer is re-read by the rules
//! in force on every hit. Writes go to a temporary file renamed into place, so a reader never
//! sees half a file and two checks writing the same key leave one whole answer.

use std::path::Path;
use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

/// What a cache file holds.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// The model that answered.
    model: String,
    /// The prompt version it answered.
    prompt_version: String,
    /// Its answer, as given.
    answer: String,
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The answer cached under `key`, when there is a readable one for `model`.
pub fn load(dir: &Path, key: &str, model: &str) -> Option<String> {
    let bytes = std::fs::read(entry_path(dir, key)).ok()?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    (entry.model == model && entry.prompt_version == crate::judgement::JUDGE_PROMPT_VERSION)
        .then_some(entry.answer)
}

/// Keeps `answer` under `key` (atomically: a temporary file renamed into place).
pub fn store(dir: &Path, key: &str, model: &str, answer: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let entry = Entry {
        model: model.to_owned(),
        prompt_version: crate::judgement::JUDGE_PROMPT_VERSION.to_owned(),
        answer: answer.to_owned(),
    };
    let json =
        serde_json::to_vec_pretty(&entry).map_err(|e| format!("cannot encode a judgement: {e}"))?;
    let path = entry_path(dir, key);
    retrace_files::write_atomic(&path, &json)
        .map_err(|e| format!("cannot write a judgement to {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn an_answer_comes_back_for_its_model_only_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("judgements");
        assert_eq!(load(&cache, "k1", "m"), None);
        let path = store(&cache, "k1", "m", "{\"verdict\":\"PASS\"}").unwrap();
        assert!(path.ends_with("k1.json"));
        assert_eq!(
            load(&cache, "k1", "m").as_deref(),
            Some("{\"verdict\":\"PASS\"}")
        );
        assert_eq!(load(&cache, "k1", "other-model"), None);
        store(&cache, "k1", "m", "second").unwrap();
        assert_eq!(load(&cache, "k1", "m").as_deref(), Some("second"));
        let names: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["k1.json".to_owned()]);
        std::fs::write(cache.join("k2.json"), "not json").unwrap();
        assert_eq!(load(&cache, "k2", "m"), None, "a broken file is a miss");
    }
}
