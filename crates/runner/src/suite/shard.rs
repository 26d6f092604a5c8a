//! Splitting a suite across machines: `retrace run --shard I/N` runs the I-th of N disjoint
//! parts of the suite (1-based), so N CI jobs together run every test exactly once and
//! `retrace report merge` adds their reports up to what one unsharded run would report.
//!
//! Which shard a test belongs to depends only on its id (its path relative to the suite
//! root, `/`-separated, as reports show it), never on the machine, the process or the order
//! files were found:
//!
//! - [`ShardMode::Hash`] (the default): shard `fnv1a64(id) mod N + 1`, where `fnv1a64` is
//!   64-bit FNV-1a over the id's UTF-8 bytes (offset basis `0xcbf29ce484222325`, prime
//!   `0x100000001b3`: for each byte, `h ^= byte; h *= prime` wrapping). Adding or removing
//!   files never moves another file to a different shard. The function is written out here,
//!   not borrowed from `std::hash` (whose algorithm may change between Rust releases), and
//!   golden assignments are pinned by tests.
//! - [`ShardMode::Slice`]: the ids sorted byte-wise, the k-th (0-based) in shard `k mod N + 1`:
//!   the evenest split, but adding a file moves the files sorted after it.
//!
//! Shards are dealt from the tests `--grep` and `--tag` keep (the same filters must be given
//! to every shard; in hash mode they do not change a file's shard anyway).
//!
//! When `--shard` is not given, the shard comes from the CI's environment, first found wins:
//! GitLab `parallel:` (`CI_NODE_INDEX` 1-based, `CI_NODE_TOTAL`), CircleCI parallelism
//! (`CIRCLE_NODE_INDEX` 0-based, `CIRCLE_NODE_TOTAL`), a Kubernetes Indexed Job
//! (`JOB_COMPLETION_INDEX` 0-based, with `RETRACE_SHARD_TOTAL` set to the Job's
//! `completions`). An index outside its base is refused with a message naming the variable
//! (a 0-based index given where a 1-based one is expected is the usual mistake). A total of 1
//! from the environment (a CI job without parallelism) means no sharding.
//!
//! Tests of other shards are left out of the run entirely (not reported as skipped), so the
//! shards' totals add up to the unsharded run's.

use retrace_protocol::events::Shard;

use super::error::SuiteError;

/// The most shards a suite can be split into.
pub const MAX_SHARDS: u32 = 10_000;

/// How tests are dealt to shards (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShardMode {
    /// By a fixed hash of the test's id: stable as files come and go.
    #[default]
    Hash,
    /// Round-robin over the sorted ids: the evenest split.
    Slice,
}

impl std::str::FromStr for ShardMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hash" => Ok(ShardMode::Hash),
            "slice" => Ok(ShardMode::Slice),
            _ => Err(format!(
                "`{text}` is not a shard mode (expected `hash` or `slice`)"
            )),
        }
    }
}

/// The shard this run covers, how tests are dealt, and where the shard came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSelection {
    /// This run's shard (1-based index).
    pub shard: Shard,
    /// How tests are dealt to shards.
    pub mode: ShardMode,
    /// Where the shard came from: `--shard`, or the environment variables read.
    pub source: String,
}

use retrace_protocol::stable_hash::fnv1a64;

/// The shard (1-based) of each of `ids` among `total` shards, in the order of `ids`.
/// A `total` of 0 is taken as 1 (parsing refuses it before this is reached).
pub fn assign(ids: &[&str], total: u32, mode: ShardMode) -> Vec<u32> {
    let total = total.max(1);
    match mode {
        ShardMode::Hash => ids
            .iter()
            .map(|id| {
                let part = fnv1a64(id.as_bytes()) % u64::from(total);
                // `part < total`, a u32.
                u32::try_from(part).unwrap_or(0) + 1
            })
            .collect(),
        ShardMode::Slice => {
            let mut order: Vec<usize> = (0..ids.len()).collect();
            order.sort_by(|&a, &b| ids[a].cmp(ids[b]));
            let mut shards = vec![1; ids.len()];
            for (rank, &position) in order.iter().enumerate() {
                let part = rank % total as usize;
                shards[position] = u32::try_from(part).unwrap_or(0) + 1;
            }
            shards
        }
    }
}

/// Parses `I/N` (1 ≤ I ≤ N ≤ [`MAX_SHARDS`]), as `--shard` takes it.
///
/// # Errors
/// Anything else, with what was given and what is expected.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let expected = "expected INDEX/TOTAL with 1 <= INDEX <= TOTAL, such as 2/4";
    let Some((index, total)) = text.split_once('/') else {
        return Err(format!("`{text}` is not a shard: {expected}"));
    };
    let number = |part: &str, what: &str| {
        part.trim().parse::<u32>().map_err(|_| {
            format!(
                "`{text}` is not a shard: its {what} `{part}` is not a whole number; {expected}"
            )
        })
    };
    let (index, total) = (number(index, "index")?, number(total, "total")?);
    if total == 0 || total > MAX_SHARDS {
        return Err(format!(
            "`{text}` is not a shard: the total must be 1..={MAX_SHARDS}"
        ));
    }
    if index == 0 {
        return Err(format!(
            "`{text}` is not a shard: shards are numbered from 1 (the first of {total} is 1/{total})"
        ));
    }
    if index > total {
        return Err(format!(
            "`{text}` is not a shard: there is no shard {index} of {total} (the last is {total}/{total})"
        ));
    }
    Ok(Shard { index, total })
}

/// How one CI names its shard in the environment.
struct CiVariables {
    /// Who sets them, for messages.
    ci: &'static str,
    index: &'static str,
    total: &'static str,
    /// Whether the index counts from 1.
    one_based: bool,
}

/// The CIs whose variables are read, in the order they are looked for.
const CI_VARIABLES: [CiVariables; 3] = [
    CiVariables {
        ci: "GitLab parallel",
        index: "CI_NODE_INDEX",
        total: "CI_NODE_TOTAL",
        one_based: true,
    },
    CiVariables {
        ci: "CircleCI parallelism",
        index: "CIRCLE_NODE_INDEX",
        total: "CIRCLE_NODE_TOTAL",
        one_based: false,
    },
    CiVariables {
        ci: "a Kubernetes Indexed Job",
        index: "JOB_COMPLETION_INDEX",
        total: "RETRACE_SHARD_TOTAL",
        one_based: false,
    },
];

/// The shard to run: `flag` (`--shard I/N`, parsed by [`parse_shard`]) when given, else the
/// CI's environment read through `env` (see the module doc); `None` for the whole suite.
///
/// # Errors
/// A CI variable that is not a number, out of its base or range, or set
/// without its partner, named in the message.
pub fn resolve(
    flag: Option<Shard>,
    mode: ShardMode,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ShardSelection>, SuiteError> {
    if let Some(shard) = flag {
        return Ok(Some(ShardSelection {
            shard,
            mode,
            source: "--shard".to_owned(),
        }));
    }
    let set = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    for ci in &CI_VARIABLES {
        let (index, total) = (set(ci.index), set(ci.total));
        let (index, total) = match (index, total) {
            (None, None) => continue,
            // GitLab sets the total (to 1) on every job, the index only with `parallel:`.
            (None, Some(total)) if total.trim() == "1" => continue,
            (None, Some(_)) => {
                return Err(SuiteError::Shard(format!(
                    "{} is set but {} is not: set both (for {}) or pass --shard INDEX/TOTAL",
                    ci.total, ci.index, ci.ci
                )));
            }
            (Some(_), None) => {
                return Err(SuiteError::Shard(format!(
                    "{} is set but {} is not: set both (for {}) or pass --shard INDEX/TOTAL",
                    ci.index, ci.total, ci.ci
                )));
            }
            (Some(index), Some(total)) => (index, total),
        };
        let shard = from_ci(ci, &index, &total)?;
        if shard.total == 1 {
            return Ok(None);
        }
        return Ok(Some(ShardSelection {
            shard,
            mode,
            source: format!("{}={index}, {}={total}", ci.index, ci.total),
        }));
    }
    Ok(None)
}

/// The shard one CI's `index` and `total` values name, checked against its base.
fn from_ci(ci: &CiVariables, index: &str, total: &str) -> Result<Shard, SuiteError> {
    let number = |name: &str, value: &str| {
        value.trim().parse::<u32>().map_err(|_| {
            SuiteError::Shard(format!(
                "{name}={value} is not a whole number (set by {})",
                ci.ci
            ))
        })
    };
    let total_value = number(ci.total, total)?;
    let index_value = number(ci.index, index)?;
    if total_value == 0 || total_value > MAX_SHARDS {
        return Err(SuiteError::Shard(format!(
            "{}={total} is not a number of shards (1..={MAX_SHARDS})",
            ci.total
        )));
    }
    let (first, last) = if ci.one_based {
        (1, total_value)
    } else {
        (0, total_value - 1)
    };
    if index_value < first || index_value > last {
        let base = if ci.one_based { "1-based" } else { "0-based" };
        return Err(SuiteError::Shard(format!(
            "{}={index} is out of range for {}={total}: {} counts its nodes from {first} \
             ({base}), so it must be {first}..={last}",
            ci.index, ci.total, ci.ci
        )));
    }
    Ok(Shard {
        index: if ci.one_based {
            index_value
        } else {
            index_value + 1
        },
        total: total_value,
    })
}

#[cfg(test)]
#[path = "shard_tests.rs"]
mod tests;
