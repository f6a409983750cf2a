//! Strict evidence in the gates: the receipts a strict check reads, and how the ones it
//! rejected or ignored are listed in a block message.

use std::fmt::Write;

use vouch_evidence::{
    Call, Error, EvidenceView, Script, StrictReceipts, TestResultRow, Unbacked, backing,
};

/// Returns the receipts a strict check reads: the change log's for the active session, then
/// those of the shell calls among `calls`.
pub(crate) fn receipts<'v, 's>(
    view: &'v EvidenceView<'s>,
    calls: &[Call<'s>],
) -> Result<StrictReceipts, &'v Error> {
    let mut receipts = view.log_receipts()?;
    let from_calls = view.call_receipts(calls);
    receipts.kept.extend(from_calls.kept);
    receipts.ignored.extend(from_calls.ignored);
    Ok(receipts)
}

/// Returns the PASS rows among `rows` that no passing run of their command backs, as
/// `✗ criterion — `command`: why` lines, with how many there are.
pub(crate) fn unbacked_rows<'r>(
    rows: impl IntoIterator<Item = &'r TestResultRow>,
    receipts: &StrictReceipts,
) -> (usize, String) {
    let mut lines = String::new();
    let mut count = 0;
    for row in rows {
        let command = row.command.trim();
        if let Err(why) = backing(&Script::parse(command), &receipts.kept) {
            count += 1;
            let _ = writeln!(
                lines,
                "✗ {} — `{command}`: {}",
                row.criterion,
                explain(&why, receipts, command)
            );
        }
    }
    (count, lines)
}

/// Returns why the `reported` command is not backed, naming the receipt rejected.
fn explain(why: &Unbacked, receipts: &StrictReceipts, reported: &str) -> String {
    match why {
        Unbacked::Report(r) => format!("the command itself does not count: {r}"),
        Unbacked::Rejected { receipt, why } => match receipts.kept.get(*receipt) {
            Some((r, _)) => format!("{r} does not count: {why}"),
            None => why.to_string(),
        },
        _ => {
            let wanted = words(reported);
            match receipts
                .kept
                .iter()
                .find(|(r, _)| !wanted.is_empty() && words(&r.run.command).contains(&wanted))
            {
                Some((r, _)) => format!("{r} mentions it but does not run it"),
                None => "no recorded command runs it".to_owned(),
            }
        }
    }
}

/// Returns the `Ignored:` lines of a block message, empty when nothing was ignored.
pub(crate) fn ignored_lines(receipts: &StrictReceipts) -> String {
    let mut out = String::new();
    if !receipts.ignored.is_empty() {
        out.push_str("Ignored (evidence that answers no call of its own):\n");
        for line in &receipts.ignored {
            let _ = writeln!(out, "- {line}");
        }
    }
    out
}

/// Returns `text` with runs of whitespace made single spaces.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
