//! The state machine (decision T8): exactly the protocol's table. Re-running a completed or
//! cancelled task is a separate operation, never a transition.

use crate::issue::{Issue, code};
use crate::model::Status;

/// The statuses `from` may move to.
pub fn next_statuses(from: Status) -> &'static [Status] {
    match from {
        Status::Pending => &[Status::InProgress, Status::Cancelled],
        Status::InProgress => &[Status::Completed, Status::Failed, Status::Cancelled],
        Status::Failed => &[Status::Pending],
        Status::Completed | Status::Cancelled => &[],
    }
}

/// Checks the transition `from` → `to`; the error carries the protocol's code (-32006).
pub fn check_transition(from: Status, to: Status) -> Result<(), Box<Issue>> {
    let allowed = next_statuses(from);
    if allowed.contains(&to) {
        return Ok(());
    }
    let expected = if allowed.is_empty() {
        format!("nothing: {from} is terminal")
    } else {
        allowed
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("|")
    };
    let mut issue = Issue::error(
        code::INVALID_TRANSITION,
        None,
        "status",
        format!("Invalid state transition: {from} -> {to}"),
    )
    .expected(expected)
    .actual(to.as_str());
    "$.status".clone_into(&mut issue.path);
    Err(Box::new(issue))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_table() {
        let allowed = [
            ("pending", "in_progress"),
            ("pending", "cancelled"),
            ("in_progress", "completed"),
            ("in_progress", "failed"),
            ("in_progress", "cancelled"),
            ("failed", "pending"),
        ];
        for from in Status::ALL {
            for to in Status::ALL {
                let ok = allowed.contains(&(from.as_str(), to.as_str()));
                assert_eq!(check_transition(*from, *to).is_ok(), ok, "{from} -> {to}");
            }
        }
        let e = check_transition(Status::Completed, Status::Pending).unwrap_err();
        assert_eq!(e.code, -32006);
        assert_eq!(e.reason, "Invalid state transition: completed -> pending");
    }
}
