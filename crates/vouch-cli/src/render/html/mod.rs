//! Self-contained HTML reports: one file with its CSS and script inline, no request to any
//! server, readable from `file://`, without colour and without script.

mod page;
mod pipeline;
mod session;
mod test_run;

pub(crate) use page::write_report;
pub(crate) use pipeline::pipeline_page;
pub(crate) use session::session_page;
pub(crate) use test_run::tests_page;
