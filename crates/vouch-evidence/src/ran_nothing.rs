//! Test runs that ran nothing: a test command that exits 0 after running zero tests is not a
//! passing run. Each runner says it its own way; this module knows how the common ones do.

use std::sync::OnceLock;

use regex::Regex;

/// Why a run's output shows that it ran no test: the runner and the line that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RanNothing {
    /// The test runner whose output it is (`cargo`, `pytest`, …).
    pub runner: &'static str,
    /// The line of the output that says so.
    pub line: String,
}

/// A runner's way of saying it ran nothing.
#[derive(Clone, Copy)]
enum Sign {
    /// A line that says so outright.
    Says,
    /// Lines that count tests: nothing ran when at least one counts and every one says 0.
    Counts,
    /// Lines that report a package each: nothing ran when at least one does and every one
    /// carries the marker the pattern's group captures.
    Marked,
}

/// Every runner's signs, compiled once.
fn signs() -> &'static [(&'static str, Sign, Regex)] {
    static SIGNS: OnceLock<Vec<(&'static str, Sign, Regex)>> = OnceLock::new();
    SIGNS.get_or_init(|| {
        let table: [(&'static str, Sign, &str); 20] = [
            ("cargo", Sign::Counts, r"(?m)^running (\d+) tests?$"),
            ("pytest", Sign::Says, r"(?m)^=*\s*no tests ran\b"),
            ("pytest", Sign::Counts, r"(?m)^collected (\d+) items?\b"),
            ("pytest", Sign::Says, r"(?m)^=*\s*\d+ deselected in [\d.]+s"),
            (
                "go test",
                Sign::Says,
                r"(?m)testing: warning: no tests to run",
            ),
            (
                "go test",
                Sign::Marked,
                r"(?m)^(?:ok|\?)\s+\S+[^\n]*?(\[no tests? (?:to run|files)\])?$",
            ),
            ("jest", Sign::Says, r"(?m)^No tests found"),
            (
                "jest",
                Sign::Says,
                r"(?m)^Tests:\s+(?:\d+ (?:skipped|todo), )+\d+ total",
            ),
            ("jest", Sign::Counts, r"(?m)^Tests:\s+(\d+) total"),
            ("vitest", Sign::Says, r"(?m)No test files found"),
            ("mocha", Sign::Counts, r"(?m)^\s*(\d+) passing\b"),
            ("rspec", Sign::Says, r"(?m)^0 examples, 0 failures"),
            ("maven", Sign::Counts, r"(?m)Tests run: (\d+), Failures"),
            (
                "gradle",
                Sign::Says,
                r"(?m)No tests found for given includes",
            ),
            ("dotnet", Sign::Says, r"(?m)No test is available in"),
            (
                "dotnet",
                Sign::Says,
                r"(?m)No test matches the given testcase filter",
            ),
            ("dotnet", Sign::Counts, r"(?m)^\s*Total tests: (\d+)"),
            ("phpunit", Sign::Says, r"(?m)^No tests executed!"),
            ("ctest", Sign::Says, r"(?m)^No tests were found!!!"),
            (
                "ctest",
                Sign::Counts,
                r"(?m)tests passed, \d+ tests failed out of (\d+)",
            ),
        ];
        table
            .into_iter()
            .filter_map(|(runner, sign, pattern)| Some((runner, sign, Regex::new(pattern).ok()?)))
            .collect()
    })
}

/// Returns why `output` shows a test run that ran no test, or `None` when it ran some (or
/// says nothing either way).
pub fn ran_nothing(output: &str) -> Option<RanNothing> {
    for (runner, sign, re) in signs() {
        match sign {
            Sign::Says => {
                if let Some(m) = re.find(output) {
                    return Some(RanNothing {
                        runner,
                        line: line_of(output, m.start()),
                    });
                }
            }
            Sign::Counts => {
                let mut first_zero = None;
                let mut counted = false;
                let mut some_ran = false;
                for caps in re.captures_iter(output) {
                    let Some(n) = caps.get(1) else { continue };
                    counted = true;
                    if n.as_str().parse::<u64>().is_ok_and(|n| n > 0) {
                        some_ran = true;
                        break;
                    }
                    first_zero.get_or_insert(n.start());
                }
                if counted && !some_ran {
                    return first_zero.map(|at| RanNothing {
                        runner,
                        line: line_of(output, at),
                    });
                }
            }
            Sign::Marked => {
                let mut first = None;
                let mut all_marked = true;
                for caps in re.captures_iter(output) {
                    let Some(line) = caps.get(0) else { continue };
                    first.get_or_insert(line.start());
                    all_marked &= caps.get(1).is_some();
                }
                if all_marked && let Some(at) = first {
                    return Some(RanNothing {
                        runner,
                        line: line_of(output, at),
                    });
                }
            }
        }
    }
    None
}

/// Returns the whole line of `text` that holds byte `at`.
fn line_of(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runner_saying_it_ran_nothing_is_caught() {
        assert_eq!(signs().len(), 20, "every sign's pattern compiles");
        let nothing = [
            (
                "cargo",
                "running 0 tests\n\ntest result: ok. 0 passed; 0 failed\n",
            ),
            (
                "pytest",
                "collected 0 items\n\n===== no tests ran in 0.01s =====\n",
            ),
            (
                "go test",
                "testing: warning: no tests to run\nPASS\nok  \tpkg\t0.002s [no tests to run]\n",
            ),
            ("jest", "No tests found, exiting with code 0\n"),
            ("jest", "Tests:       4 skipped, 4 total\n"),
            ("pytest", "4 deselected in 0.01s\n"),
            (
                "go test",
                "ok  \tpkg\t0.01s [no tests to run]\n?   \tpkg/b\t[no test files]\n",
            ),
            (
                "dotnet",
                "No test matches the given testcase filter `X` in /a/b.dll\n",
            ),
            ("jest", "Test Suites: 0 total\nTests:       0 total\n"),
            ("vitest", "No test files found, exiting with code 0\n"),
            ("mocha", "\n  0 passing (1ms)\n"),
            (
                "rspec",
                "Finished in 0.001 seconds\n0 examples, 0 failures\n",
            ),
            (
                "maven",
                "[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n",
            ),
            ("gradle", "> No tests found for given includes: [FooTest]\n"),
            (
                "dotnet",
                "No test is available in /src/bin/Debug/net8.0/App.Tests.dll.\n",
            ),
            ("phpunit", "No tests executed!\n"),
            ("ctest", "No tests were found!!!\n"),
        ];
        for (runner, output) in nothing {
            let found = ran_nothing(output).unwrap_or_else(|| panic!("{runner}: {output}"));
            assert_eq!(found.runner, runner, "{output}");
        }
    }

    #[test]
    fn runs_that_ran_tests_are_not_caught() {
        let ran = [
            "running 0 tests\nrunning 3 tests\ntest result: ok. 3 passed\n",
            "collected 4 items\n\n==== 4 passed in 0.1s ====\n",
            "ok  \tpkg\t0.02s\n",
            "ok  \tpkg\t0.02s\n?   \tpkg/b\t[no test files]\n",
            "Tests:       1 skipped, 3 passed, 4 total\n",
            "3 passed, 1 deselected in 0.2s\n",
            "Tests:       2 passed, 2 total\n",
            "  3 passing (5ms)\n",
            "5 examples, 0 failures\n",
            "Tests run: 0, Failures: 0\nTests run: 7, Failures: 0\n",
            "  Total tests: 12\n",
            "100% tests passed, 0 tests failed out of 4\n",
            "nothing about tests at all\n",
        ];
        for output in ran {
            assert_eq!(ran_nothing(output), None, "{output}");
        }
    }

    #[test]
    fn the_line_that_says_so_is_quoted() {
        let found = ran_nothing("building\nrunning 0 tests\n").unwrap();
        assert_eq!(found.line, "running 0 tests");
    }

    proptest::proptest! {
        #[test]
        fn any_output_is_read_without_panicking(output in "\\PC{0,200}") {
            let _ = ran_nothing(&output);
        }
    }
}
