//! Small text formatters shared by the renderings: one-line excerpts, durations, numbers.

/// Returns the first line of `text` with control characters replaced, cut to `max` characters
/// with `…` when longer (or when more lines follow).
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let trimmed = text.trim();
    let mut lines = trimmed.lines();
    let first = lines.next().unwrap_or_default();
    let more = lines.next().is_some();
    let mut out = String::new();
    for (i, c) in first.chars().enumerate() {
        if i + 1 >= max {
            out.push('…');
            return out;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    if more {
        out.push_str(" …");
    }
    out
}

/// Returns a duration in seconds as `1h 12m 49s`, `3m 05s`, `42s` or `850ms`.
pub(crate) fn duration(secs: f64) -> String {
    if secs < 1.0 {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "under one second"
        )]
        return format!("{}ms", (secs * 1000.0).round().max(0.0) as u64);
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "seconds of a session"
    )]
    let total = secs.round() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, _) => format!("{m}m {s:02}s"),
        _ => format!("{h}h {m:02}m {s:02}s"),
    }
}

/// Returns `n` with thousands separated by commas.
pub(crate) fn count(n: usize) -> String {
    count_u64(u64::try_from(n).unwrap_or(u64::MAX))
}

/// Returns `n`, its thousands separated, and the noun that goes with it (`1 event`, `2,000
/// events`).
pub(crate) fn plural_count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// Returns `n` with thousands separated by commas (token counts).
pub(crate) fn count_u64(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How a run ended, in words shared by every rendering: a verdict (`ended`, `stuck`,
/// `stopped`, `interrupted`, `failed`, `tampered`), whether it is a success, and what happened. A stuck
/// run's last message comes after a line break.
pub(crate) fn ended(e: &vouch_pipeline::Ended) -> (&'static str, Verdict, String) {
    use vouch_pipeline::Ended;
    match e {
        Ended::Terminated { reason } => ("ended", Verdict::Pass, reason.clone()),
        Ended::Stuck {
            agent,
            validator,
            failures,
            last_message,
        } => (
            "stuck",
            Verdict::Fail,
            format!(
                "{} was blocked by {validator} {failures} times in a row; last message:\n{last_message}",
                agent.as_deref().unwrap_or("the agent")
            ),
        ),
        Ended::TurnCap { cap } => (
            "stopped",
            Verdict::Fail,
            format!("the cap of {cap} turns was reached"),
        ),
        Ended::TokenBudget { tokens, budget } => (
            "stopped",
            Verdict::Fail,
            format!("{tokens} tokens used, over the budget of {budget}"),
        ),
        Ended::Interrupted => (
            "interrupted",
            Verdict::Warn,
            "resume with `vouch run --resume`".to_owned(),
        ),
        Ended::ModelFailed { agent, error } => (
            "failed",
            Verdict::Error,
            format!("{agent}'s model could not answer: {error}"),
        ),
        Ended::Tampered { reason } => ("tampered", Verdict::Fail, reason.clone()),
    }
}

/// How a verdict looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    Fail,
    Warn,
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_cut_and_mark_more_lines() {
        assert_eq!(excerpt("  hello\nworld", 20), "hello …");
        assert_eq!(excerpt("abcdef", 4), "abc…");
        assert_eq!(excerpt("a\tb", 10), "a b");
        assert_eq!(excerpt("", 10), "");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(0.25), "250ms");
        assert_eq!(duration(42.0), "42s");
        assert_eq!(duration(185.0), "3m 05s");
        assert_eq!(duration(4369.0), "1h 12m 49s");
    }

    #[test]
    fn counts_have_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1234), "1,234");
        assert_eq!(count(1_000_000), "1,000,000");
    }
}
