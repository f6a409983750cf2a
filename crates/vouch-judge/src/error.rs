//! What can go wrong in the judge: a grader that cannot be built, a reply that holds no grade,
//! calibration cases that do not load.

/// A failure of the judge; each message reads on its own and says where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A configured grader cannot be built (a scripted grader without its file, a transport
    /// that cannot start).
    #[error("{0}")]
    Grader(String),
    /// A grader's reply holds no grade vouch can read; the message quotes the reply.
    #[error("{0}")]
    Reply(String),
    /// A calibration cases file cannot be read, or says something impossible.
    #[error("{0}")]
    Cases(String),
}
