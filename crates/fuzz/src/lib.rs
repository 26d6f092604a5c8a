//! Fuzz targets for every reader of a file a user (or a tool) hands retrace: trajectory
//! files in every format (retrace's, askui's object and legacy list layouts, the computer
//! toolset's form), pages files in JSON and TOML, `retrace.toml`, `--params-file` files, a
//! stored baseline's `fingerprint.json`, and the reports `retrace report merge` reads.
//!
//! The targets are one test binary (`tests/fuzz/`), run on the stable toolchain with
//! proptest: arbitrary bytes, byte-level mutations and structure-aware mutations (of the JSON
//! tree, of TOML lines) of the valid files in `corpus/<target>/`. Each input runs in a thread
//! of its own under a time limit and an allocation limit (a counting global allocator), so a
//! hang or a memory blow-up fails like a panic does. A fixed number of cases per target runs
//! in `cargo test`; `docs/fuzzing.md` says how to run them longer.
//!
//! This library holds nothing: the crate exists for its test binary.
