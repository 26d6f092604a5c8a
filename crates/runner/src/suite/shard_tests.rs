#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use super::*;

/// A realistic suite: nested folders, numbered flows, spaces and non-ASCII names.
fn suite_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for index in 1..=20 {
        ids.push(format!("v1/login/flow-{index:02}.json"));
    }
    for index in 21..=35 {
        ids.push(format!("v1/invoices/flow-{index:02}.json"));
    }
    for index in 1..=5 {
        ids.push(format!("v2/flow-{index:02}.json"));
    }
    ids.extend(
        [
            "checkout/pay with card.json",
            "checkout/pay with invoice.json",
            "søk/æøå.json",
            "smoke.json",
        ]
        .map(String::from),
    );
    ids
}

fn refs(ids: &[String]) -> Vec<&str> {
    ids.iter().map(String::as_str).collect()
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn resolved(pairs: &[(&str, &str)]) -> Result<Option<Shard>, String> {
    resolve(None, ShardMode::Hash, &env_of(pairs))
        .map(|selection| selection.map(|selection| selection.shard))
        .map_err(|error| error.to_string())
}

#[test]
fn every_split_up_to_16_is_disjoint_and_covers_the_suite_in_both_modes() {
    let ids = suite_ids();
    for mode in [ShardMode::Hash, ShardMode::Slice] {
        for total in 1..=16 {
            let shards = assign(&refs(&ids), total, mode);
            assert_eq!(shards.len(), ids.len());
            // One shard per file (disjoint), each in 1..=total (so the shards cover the suite).
            assert!(
                shards.iter().all(|shard| (1..=total).contains(shard)),
                "{mode:?} {total}: {shards:?}"
            );
            let mut seen = vec![0usize; total as usize];
            for shard in &shards {
                seen[*shard as usize - 1] += 1;
            }
            assert_eq!(seen.iter().sum::<usize>(), ids.len());
            if mode == ShardMode::Slice {
                // Round-robin: shard sizes differ by at most one.
                let (least, most) = (seen.iter().min().unwrap(), seen.iter().max().unwrap());
                assert!(most - least <= 1, "{total}: {seen:?}");
            }
        }
    }
}

#[test]
fn hash_assignments_are_pinned() {
    // Golden values: changing the hash (or how ids are fed to it) moves files between
    // shards for every user mid-migration; this must fail if it ever happens.
    let ids = [
        "v1/login/flow-01.json",
        "v1/login/flow-02.json",
        "v1/invoices/flow-21.json",
        "v2/flow-01.json",
        "checkout/pay with card.json",
        "søk/æøå.json",
    ];
    assert_eq!(assign(&ids, 2, ShardMode::Hash), [2, 1, 1, 1, 1, 2]);
    assert_eq!(assign(&ids, 3, ShardMode::Hash), [1, 3, 3, 1, 3, 2]);
    assert_eq!(assign(&ids, 4, ShardMode::Hash), [4, 1, 1, 3, 3, 4]);
    assert_eq!(assign(&ids, 16, ShardMode::Hash), [8, 9, 5, 11, 7, 4]);
    let flat: Vec<String> = (1..=8)
        .map(|index| format!("flow-{index:02}.json"))
        .collect();
    assert_eq!(
        assign(&refs(&flat), 4, ShardMode::Hash),
        [2, 3, 4, 1, 2, 3, 4, 1]
    );
}

#[test]
fn slice_deals_the_sorted_ids_round_robin_whatever_their_order() {
    let ids = ["c.json", "a.json", "d.json", "b.json", "e.json"];
    // Sorted: a b c d e -> 1 2 3 1 2.
    assert_eq!(assign(&ids, 3, ShardMode::Slice), [3, 1, 1, 2, 2]);
}

#[test]
fn adding_files_never_moves_existing_ones_in_hash_mode() {
    let ids = suite_ids();
    let mut grown = ids.clone();
    grown.extend((1..=30).map(|index| format!("new/feature-{index}.json")));
    grown.sort();
    for total in 2..=16 {
        let before: BTreeMap<&str, u32> = ids
            .iter()
            .map(String::as_str)
            .zip(assign(&refs(&ids), total, ShardMode::Hash))
            .collect();
        let after: BTreeMap<&str, u32> = grown
            .iter()
            .map(String::as_str)
            .zip(assign(&refs(&grown), total, ShardMode::Hash))
            .collect();
        for (id, shard) in &before {
            assert_eq!(
                after[id], *shard,
                "{id} moved when files were added ({total})"
            );
        }
    }
}

#[test]
fn shard_flags_parse_and_bad_ones_say_why() {
    assert_eq!(parse_shard("2/4"), Ok(Shard { index: 2, total: 4 }));
    assert_eq!(parse_shard(" 1 / 1 "), Ok(Shard { index: 1, total: 1 }));
    let error = |text: &str| parse_shard(text).unwrap_err();
    assert!(error("0/4").contains("numbered from 1"), "{}", error("0/4"));
    assert!(error("5/4").contains("no shard 5 of 4"), "{}", error("5/4"));
    assert!(
        error("1/0").contains("total must be 1.."),
        "{}",
        error("1/0")
    );
    assert!(error("two/4").contains("index `two`"), "{}", error("two/4"));
    assert!(
        error("2").contains("expected INDEX/TOTAL"),
        "{}",
        error("2")
    );
    assert!(error("2/4/8").contains("total `4/8`"), "{}", error("2/4/8"));
    assert!(
        error("-1/4").contains("not a whole number"),
        "{}",
        error("-1/4")
    );
}

#[test]
fn the_flag_wins_over_the_environment() {
    let env = env_of(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")]);
    let flag = Shard { index: 3, total: 5 };
    let selection = resolve(Some(flag), ShardMode::Slice, &env)
        .unwrap()
        .unwrap();
    assert_eq!(selection.shard, flag);
    assert_eq!(selection.mode, ShardMode::Slice);
    assert_eq!(selection.source, "--shard");
}

#[test]
fn each_ci_counts_from_its_own_base() {
    let second_of_four = Some(Shard { index: 2, total: 4 });
    assert_eq!(
        resolved(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "4")]),
        Ok(second_of_four)
    );
    assert_eq!(
        resolved(&[("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "4")]),
        Ok(second_of_four)
    );
    assert_eq!(
        resolved(&[("JOB_COMPLETION_INDEX", "1"), ("RETRACE_SHARD_TOTAL", "4")]),
        Ok(second_of_four)
    );
    // GitLab's first node is Kubernetes' index 0.
    assert_eq!(
        resolved(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "3")]),
        resolved(&[("JOB_COMPLETION_INDEX", "0"), ("RETRACE_SHARD_TOTAL", "3")])
    );
    let source = resolve(
        None,
        ShardMode::Hash,
        &env_of(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "4")]),
    )
    .unwrap()
    .unwrap()
    .source;
    assert_eq!(source, "CI_NODE_INDEX=2, CI_NODE_TOTAL=4");
}

#[test]
fn no_ci_or_a_ci_without_parallelism_runs_the_whole_suite() {
    assert_eq!(resolved(&[]), Ok(None));
    // GitLab sets CI_NODE_TOTAL=1 on every job; CircleCI sets 0 of 1.
    assert_eq!(resolved(&[("CI_NODE_TOTAL", "1")]), Ok(None));
    assert_eq!(
        resolved(&[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "1")]),
        Ok(None)
    );
    // Empty values count as unset.
    assert_eq!(
        resolved(&[("CI_NODE_INDEX", " "), ("CI_NODE_TOTAL", "")]),
        Ok(None)
    );
}

#[test]
fn indexes_in_the_wrong_base_are_refused_naming_the_variable() {
    let error = resolved(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "4")]).unwrap_err();
    assert!(
        error.starts_with("CI_NODE_INDEX=0 is out of range for CI_NODE_TOTAL=4")
            && error.contains("1-based")
            && error.contains("1..=4"),
        "{error}"
    );
    let error = resolved(&[("CIRCLE_NODE_INDEX", "4"), ("CIRCLE_NODE_TOTAL", "4")]).unwrap_err();
    assert!(
        error.starts_with("CIRCLE_NODE_INDEX=4 is out of range")
            && error.contains("0-based")
            && error.contains("0..=3"),
        "{error}"
    );
    let error =
        resolved(&[("JOB_COMPLETION_INDEX", "3"), ("RETRACE_SHARD_TOTAL", "3")]).unwrap_err();
    assert!(
        error.starts_with("JOB_COMPLETION_INDEX=3 is out of range"),
        "{error}"
    );
}

#[test]
fn half_set_or_garbage_ci_variables_are_refused_naming_them() {
    let error = resolved(&[("JOB_COMPLETION_INDEX", "2")]).unwrap_err();
    assert!(
        error.starts_with("JOB_COMPLETION_INDEX is set but RETRACE_SHARD_TOTAL is not"),
        "{error}"
    );
    let error = resolved(&[("RETRACE_SHARD_TOTAL", "4")]).unwrap_err();
    assert!(
        error.starts_with("RETRACE_SHARD_TOTAL is set but JOB_COMPLETION_INDEX is not"),
        "{error}"
    );
    let error = resolved(&[("CI_NODE_INDEX", "first"), ("CI_NODE_TOTAL", "4")]).unwrap_err();
    assert!(
        error.starts_with("CI_NODE_INDEX=first is not a whole number"),
        "{error}"
    );
    let error = resolved(&[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "0")]).unwrap_err();
    assert!(
        error.starts_with("CIRCLE_NODE_TOTAL=0 is not a number of shards"),
        "{error}"
    );
}

#[test]
fn modes_parse_by_name() {
    assert_eq!("hash".parse::<ShardMode>(), Ok(ShardMode::Hash));
    assert_eq!("Slice".parse::<ShardMode>(), Ok(ShardMode::Slice));
    assert!(
        "random"
            .parse::<ShardMode>()
            .unwrap_err()
            .contains("`random`")
    );
}
