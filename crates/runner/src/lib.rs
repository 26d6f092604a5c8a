//! retrace-runner: wiring and scheduling. It turns what the user asked for (a typed job) into
//! a running session: a browser launched or connected ([`browser`]), a model provider
//! ([`provider`]), the tools and speakers of a model run ([`act`], [`act_cache`]) or a replay
//! ([`replay`]), the recording of a successful run ([`record`]), a person's demonstration
//! recorded in a headed browser ([`demonstrate`]) or on an X11 desktop ([`desktop_record`]), the demo ([`demo`]), and approving an
//! intended change into a trajectory ([`approve`]).
//!
//! Every session reports through the event stream it is given and ends with a
//! [`retrace_protocol::events::Event::SessionFinished`] carrying its
//! [`retrace_protocol::events::SessionReport`]: what a front end prints, what a report
//! keeps, what decides the exit code. The runner reads results the same way
//! ([`collect::Collector`]). It never prints; the CLI parses arguments into jobs and prints.
//!
//! Suites of trajectories ([`suite`]) run here too: many files, in parallel, in one browser.
//! Trajectories and run state can live in a [`store`] (a directory, or object storage such
//! as `s3://bucket/prefix`); [`stored_replay`] replays a trajectory kept there. Visual
//! checks ([`check`]) are scheduled here too, each side signed in first by a login flow the
//! replay engine replays ([`check_login`]) when asked; a desktop window's check
//! ([`desktop_check`]) brings each side's application to its state by replaying a flow.
//!
//! The work of every other command is here too, so the CLI only parses and prints: each
//! takes arguments and returns results of this crate's own types (errors as a
//! [`failure::Failure`] with its causes): [`hash`], [`diff`], [`schema`], [`cache`],
//! [`do_actions`], [`demo_app`] (`serve-demo`), [`check_spec`] (the check's spec from its
//! flags), [`suite::remote`] (a suite in object storage). The MCP server ([`mcp`]) is a
//! module of this crate for the same reason: it calls the same functions.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod act;
pub mod act_cache;
pub mod act_job;
pub mod approve;
pub mod browser;
pub mod cache;
pub mod check;
pub mod check_login;
pub mod check_spec;
pub mod chromium_path;
pub mod collect;
pub mod demo;
pub mod demo_app;
pub mod demonstrate;
pub mod desktop;
mod desktop_a11y;
pub mod desktop_check;
pub mod desktop_check_request;
pub mod desktop_record;
mod desktop_run;
pub mod diff;
pub mod do_actions;
pub mod error;
pub mod failure;
pub mod hash;
pub mod mcp;
pub mod models;
pub mod parameters;
pub mod provider;
pub mod record;
pub mod replay;
pub mod replay_job;
pub mod replay_options;
pub mod replay_state;
pub mod schema;
pub mod store;
pub mod stored_cache;
pub mod stored_replay;
pub mod suite;

pub use act::ActJob;
pub use act::ActMode;
pub use act::CacheMode;
pub use act::run_act;
pub use act::run_act_until;
pub use approve::ApproveRequest;
pub use approve::approve;
pub use browser::BrowserConfig;
pub use browser::BrowserTarget;
pub use error::RunnerError;
pub use parameters::Parameters;
pub use provider::Provider;
pub use provider::ProviderConfig;
pub use record::ToolFormat;
pub use replay::ReplayJob;
pub use replay::run_replay;
pub use replay::run_replay_in;
pub use replay::run_replay_until;
pub use replay_state::record_replay_state;

/// The runtime every command runs on: two workers (the machines retrace targets are small),
/// timers and I/O enabled.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}
